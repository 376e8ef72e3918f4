//! Super Jogo da Velha and Jogo da Velha 2.0: 81 cells, the board you are sent to
//! highlighted, decided boards marked (2.0: "X inside O" for a draw), 2.0's points and its
//! 1-minute turn clock with the lost-turn rule; against easy, medium, hard or a friend. 2.0
//! always begins with X, so its sides swap symbols every game (V2-R08).

use dioxus::core::Task;
use dioxus::prelude::*;
use velha_ai::{Difficulty, Limits, UltimateAi};
use velha_api::RoomBoard;
use velha_rules::game::{Clock, Event};
use velha_rules::{Match, Player, Position, Series, Status, UltCell, Ultimate, Variant};

use crate::app::{Screen, use_texts};
use crate::components::room_list::PlayWithSomeone;
use crate::components::ultimate_grid::{PointsBar, UltimateGrid, sent_text};
use crate::platform::{self, now_ms, random_seed};
use crate::screens::classic::ScoreLine;
use crate::screens::{TopBar, status_text};
use crate::thinking::use_thinker;

/// Seconds per turn in 2.0 (V2-R05); tests may shorten it (see `platform`).
fn turn_seconds() -> f64 {
    platform::turn_seconds_override()
        .filter(|s| *s > 0.0)
        .unwrap_or(60.0)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rival {
    Computer(Difficulty),
    Friend,
}

/// The screen of both ultimate games.
#[component]
pub fn UltimateScreen(v2: bool, go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let variant = if v2 { Variant::V2 } else { Variant::Super };
    // SUPER-R05: a coin toss picks who starts the first game, unless the players agree on
    // one; 2.0 always starts with X.
    let toss = || {
        if random_seed().is_multiple_of(2) {
            Player::O
        } else {
            Player::X
        }
    };
    let mut first = use_signal(move || if v2 { Player::X } else { toss() });
    // Once the players agree on a starter, the line stops calling it the coin's.
    let mut tossed = use_signal(|| true);
    let mut series = use_signal(|| Series::new(Player::X, Player::X));
    // The person's symbol in the game on the board (between friends, the first player's):
    // the series has moved on to the next game's once this one is recorded.
    let mut person = use_signal(|| Player::X);
    let mut rival = use_signal(|| None::<Rival>);
    // 2.0's clock (V2-R05) is the match's: a lost turn passes the move, three in a row lose.
    let clock = move || {
        v2.then(|| Clock {
            move_ms: (turn_seconds() * 1000.0) as u64,
        })
    };
    let now = || now_ms() as u64;
    let mut game =
        use_signal(move || Match::new(Ultimate::new(variant, Player::X), clock(), now()));
    let grid = move || *game.read().position();
    let mut recorded = use_signal(|| false);
    let mut ai = use_thinker(|| UltimateAi::new(Difficulty::Medium));
    // The computer's thinking: one at a time, dropped when the game it thinks about changes.
    let mut thinking = use_hook(|| CopyValue::new(None::<Task>));
    let mut clock_text = use_signal(|| turn_seconds().ceil() as u32);
    let mut lost_message = use_signal(|| None::<Player>);
    let mut record = move || {
        let status = grid().status();
        if status.is_over() && !recorded() {
            series.with_mut(|s| s.record(status));
            recorded.set(true);
            platform::vibrate(platform::BUZZ_GAME_OVER);
        }
    };

    let mut after_move = move || {
        if let Some(task) = thinking.take() {
            task.cancel();
        }
        if let Some(Rival::Computer(_)) = rival() {
            let g = grid();
            let computer = !person();
            if g.status() == Status::Ongoing(computer) {
                let ply = game.read().ply();
                let decision = ai.decide(&[], &g, Limits::millis(400));
                let turn = spawn(async move {
                    let cell = decision.await;
                    // 2.0's clock may have taken the turn away meanwhile: then it is stale.
                    if let Some(cell) = cell.filter(|_| game.read().ply() == ply) {
                        game.with_mut(|m| m.act(computer, cell, now()).ok());
                    }
                    thinking.set(None);
                    record();
                });
                thinking.set(Some(turn));
            }
        }
        record();
    };
    let mut start_game = move || {
        person.set(series().next_side());
        game.set(Match::new(
            Ultimate::new(variant, series().next_starter()),
            clock(),
            now(),
        ));
        recorded.set(false);
        lost_message.set(None);
        after_move();
    };

    // The clock's hand: the match decides what a run-out turn means.
    use_future(move || async move {
        loop {
            platform::sleep_ms(200).await;
            if !v2 || rival().is_none() || grid().status().is_over() {
                continue;
            }
            let events = game.with_mut(|m| m.tick(now()));
            let left = game.read().time_left(now()).unwrap_or(0);
            clock_text.set(left.div_ceil(1000) as u32);
            for event in &events {
                if let Event::TurnLost { by, .. } = event {
                    lost_message.set(Some(*by));
                }
            }
            if !events.is_empty() {
                after_move();
            }
        }
    });

    let title = if v2 { t.game_v2 } else { t.game_super };
    let Some(current) = rival() else {
        return rsx! {
            TopBar { title, go }
            section { class: "choose",
                h2 { "{t.choose_opponent}" }
                if !v2 {
                    p { "data-coin": "{first}",
                        if tossed() { "{t.coin_toss}: {(t.starts)(first())}" } else { "{(t.starts)(first())}" }
                    }
                    div { class: "starter",
                        button { class: "small", "data-starter": "coin", onclick: move |_| { first.set(toss()); tossed.set(true) }, "{t.coin_toss}" }
                        for who in [Player::X, Player::O] {
                            button { class: "small", key: "{who}", "data-starter": "{who}", onclick: move |_| { first.set(who); tossed.set(false) }, "{(t.starts)(who)}" }
                        }
                    }
                }
                for (who, label, id) in [
                    (Rival::Computer(Difficulty::Easy), t.easy, "easy"),
                    (Rival::Computer(Difficulty::Medium), t.medium, "medium"),
                    (Rival::Computer(Difficulty::Hard), t.hard, "hard"),
                    (Rival::Friend, t.two_players, "friend"),
                ] {
                    button { class: "primary wide", key: "{id}", "data-rival": id,
                        onclick: move |_| {
                            if let Rival::Computer(d) = who {
                                ai.set(UltimateAi::new(d));
                            }
                            rival.set(Some(who));
                            // V2-R08: 2.0 always begins with X, so the sides swap symbols.
                            series.set(if v2 {
                                Series::swapping(Player::X)
                            } else {
                                Series::new(first(), Player::X)
                            });
                            start_game();
                        },
                        "{label}"
                    }
                }
                if v2 {
                    button { class: "primary wide", "data-action": "competitive", onclick: move |_| go.call(Screen::Competitive),
                        "{t.competitive.play_rated}" }
                }
                PlayWithSomeone { go, board: if v2 { RoomBoard::V2 } else { RoomBoard::Super } }
            }
        };
    };

    let g = grid();
    let status = g.status();
    let score = series().score();
    let against_computer = matches!(current, Rival::Computer(_));
    let person_moves = match current {
        Rival::Computer(_) => status == Status::Ongoing(person()),
        Rival::Friend => !status.is_over(),
    };
    let message = status_text(t, status, against_computer.then_some(person()));
    let name_of = |symbol: Player| match (symbol == person(), against_computer) {
        (true, true) => t.you,
        (false, true) => t.computer,
        (true, false) => t.player_one,
        (false, false) => t.player_two,
    };
    let where_to = sent_text(&g);
    rsx! {
        TopBar { title, go }
        if v2 {
            p { class: "players",
                span { "data-player": "X", "X · {name_of(Player::X)}" }
                " × "
                span { "data-player": "O", "O · {name_of(Player::O)}" }
            }
        }
        p { class: "status", role: "status", "aria-live": "polite", "data-status": "{status}", "{message}" }
        if !status.is_over() {
            p { class: "hint", "data-sent": "{g.sent_board().map(|b| b + 1).unwrap_or(0)}", "{where_to}" }
        }
        if v2 {
            PointsBar { board: g,
                middle: (!status.is_over()).then(|| rsx! {
                    span { class: "clock", "data-clock": "{clock_text}", "{clock_text}{t.seconds_left}" }
                }),
            }
            if let Some(p) = lost_message() {
                p { class: "warning floating toast", role: "alert", "data-lost-turn": "{p}", "{p} {t.lost_turn}" }
            }
        }
        UltimateGrid {
            board: g,
            enabled: person_moves,
            onpress: move |cell: UltCell| {
                lost_message.set(None);
                game.with_mut(|m| {
                    let by = m.position().side_to_move();
                    m.act(by, cell, now()).ok()
                });
                after_move();
            },
        }
        ScoreLine { wins: score.wins, draws: score.draws, losses: score.losses }
        if status.is_over() {
            div { class: "after",
                button { class: "primary", "data-action": "another", onclick: move |_| start_game(), "{t.another_game}" }
                button { "data-action": "stop", onclick: move |_| { rival.set(None); go.call(Screen::Home) }, "{t.stop}" }
            }
        }
    }
}
