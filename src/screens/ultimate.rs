//! Super Jogo da Velha and Jogo da Velha 2.0: 81 cells, the board you are sent to
//! highlighted, decided boards marked (2.0: "X inside O" for a draw), 2.0's points and its
//! 1-minute turn clock with the lost-turn rule; against easy, medium, hard or a friend. 2.0
//! always begins with X, so its sides swap symbols every game (V2-R08).

use dioxus::core::Task;
use dioxus::prelude::*;
use velha_ai::analysis::ULTIMATE_PLAYOUTS;
use velha_ai::{Difficulty, Limits, UltimateAi};
use velha_api::RoomBoard;
use velha_rules::{Player, Position, UltCell};

use crate::analysis::Record;
use crate::app::{Screen, use_texts};
use crate::components::hint::{HintRow, Hints};
use crate::components::review::{ReviewPanel, WhereWrong, lost, use_review};
use crate::components::room_list::PlayWithSomeone;
use crate::components::stop_button::StopButton;
use crate::components::ultimate_grid::{PointsBar, UltimateGrid, sent_text};
use crate::local::ultimate::{Rival, UltimateSession};
use crate::platform::{self, now_ms, random_seed};
use crate::screens::classic::ScoreLine;
use crate::screens::{TopBar, status_text, use_kept};
use crate::thinking::use_thinker;

/// Milliseconds per turn in 2.0 (V2-R05); tests may shorten it (see `platform`).
fn turn_ms() -> u64 {
    let seconds = platform::turn_seconds_override()
        .filter(|s| *s > 0)
        .unwrap_or(60);
    u64::from(seconds) * 1000
}

/// SUPER-R05: a coin toss picks who starts the first game, unless the players agree on one.
fn toss() -> Player {
    if random_seed().is_multiple_of(2) {
        Player::O
    } else {
        Player::X
    }
}

fn now() -> u64 {
    now_ms() as u64
}

/// The screen of both ultimate games.
#[component]
pub fn UltimateScreen(v2: bool, go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let move_ms = use_hook(turn_ms);
    let mut session = use_kept(
        UltimateSession::kept_name(v2),
        |text| crate::lazy::kept_door().and_then(|door| (door.ultimate)(text, v2, move_ms, now())),
        || UltimateSession::new(v2, toss(), move_ms, now()),
        UltimateSession::kept,
    );
    // A kept game goes on against the difficulty it was begun with.
    let mut ai = use_thinker(move || {
        UltimateAi::new(match session.peek().rival() {
            Some(Rival::Computer(d)) => d,
            _ => Difficulty::Medium,
        })
    });
    // The hints' own search, as the analysis judges (ANA-10).
    let helper = use_thinker(|| UltimateAi::new(Difficulty::Hard));
    let mut hints = use_signal(|| {
        let s = session.peek();
        Hints::kept(UltimateSession::kept_name(v2), s.game_number(), &s.grid())
    });
    use_effect(move || hints.read().keep(UltimateSession::kept_name(v2)));
    let mut hinting = use_signal(|| false);
    let review = use_review();
    // The computer's thinking: one at a time, dropped when the game it thinks about changes.
    let mut thinking = use_hook(|| CopyValue::new(None::<Task>));
    // A game that ended buzzes once, as the series counts it.
    let buzz = |ended: bool| {
        if ended {
            platform::vibrate(platform::BUZZ_GAME_OVER);
        }
    };

    // After every change of the game on the board: the computer thinks when it is its turn.
    let mut after_move = move |ended: bool| {
        if let Some(task) = thinking.take() {
            task.cancel();
        }
        let asked = session.peek().computer_to_think();
        if let Some(ply) = asked {
            let decision = ai.decide(&[], &session.peek().grid(), Limits::millis(400));
            let turn = spawn(async move {
                let cell = decision.await;
                let ended = session.with_mut(|s| s.computer_plays(ply, cell, now()));
                thinking.set(None);
                buzz(ended);
            });
            thinking.set(Some(turn));
        }
        buzz(ended);
    };

    // A game kept on the device may be waiting for the computer's move.
    use_hook(move || after_move(false));

    // The clock's hand: the session decides what a run-out turn means.
    use_future(move || async move {
        loop {
            platform::sleep_ms(200).await;
            // Only a running clock writes: a screen without one is not drawn again.
            let runs = session.peek().clock_runs();
            if runs && let Some(ended) = session.with_mut(|s| s.tick(now())) {
                after_move(ended);
            }
        }
    });

    let title = if v2 { t.game_v2 } else { t.game_super };
    let s = session.read();
    let Some(current) = s.rival() else {
        let (first, tossed) = (s.first(), s.tossed());
        return rsx! {
            TopBar { title, go }
            section { class: "choose",
                h2 { "{t.choose_opponent}" }
                if !v2 {
                    p { "data-coin": "{first}",
                        if tossed { "{t.coin_toss}: {(t.starts)(first)}" } else { "{(t.starts)(first)}" }
                    }
                    div { class: "starter",
                        // The way the first game's starter was chosen shows as chosen.
                        button { class: if tossed { "small selected" } else { "small" }, "data-starter": "coin",
                            "aria-pressed": "{tossed}", onclick: move |_| session.with_mut(|s| s.toss(toss())), "{t.coin_toss}" }
                        for who in [Player::X, Player::O] {
                            button { class: if !tossed && first == who { "small selected" } else { "small" }, key: "{who}", "data-starter": "{who}",
                                "aria-pressed": "{!tossed && first == who}",
                                onclick: move |_| session.with_mut(|s| s.agree_starter(who)), "{(t.starts)(who)}" }
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
                            after_move(session.with_mut(|s| s.face(who, now())));
                        },
                        "{label}"
                    }
                }
                if v2 {
                    button { class: "primary wide", "data-action": "competitive", onclick: move |_| go.call(Screen::Competitive),
                        "{t.play_rated}" }
                }
                PlayWithSomeone { go, board: if v2 { RoomBoard::V2 } else { RoomBoard::Super } }
            }
        };
    };

    let g = s.grid();
    let status = g.status();
    let score = s.score();
    let person = s.person();
    let person_moves = s.person_moves();
    let (seconds_left, lost_turn) = (s.seconds_left(), s.lost_turn());
    let against_computer = matches!(current, Rival::Computer(_));
    let message = status_text(t, status, against_computer.then_some(person));
    let name_of = |symbol: Player| match (symbol == person, against_computer) {
        (true, true) => t.you,
        (false, true) => t.computer,
        (true, false) => t.player_one,
        (false, false) => t.player_two,
    };
    let where_to = sent_text(&g);
    let game = s.game_number();
    let hint = hints.read().shown(game, &g);
    let hints_left = hints.read().left(game);
    let ask_hint = move |_| {
        let grid = session.peek().grid();
        let decision = helper.decide(&[], &grid, Limits::work(ULTIMATE_PLAYOUTS));
        hinting.set(true);
        spawn(async move {
            let best = decision.await;
            hinting.set(false);
            // A move or the clock changed the board meanwhile: that hint is for nothing.
            if let Some(best) = best.filter(|_| session.peek().grid() == grid) {
                hints.write().give(game, grid, best);
            }
        });
    };
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
                    span { class: "clock", "data-clock": "{seconds_left}", "{seconds_left}{t.seconds_left}" }
                }),
            }
            if let Some(p) = lost_turn {
                p { class: "warning floating toast", role: "alert", "data-lost-turn": "{p}", "{p} {t.lost_turn}" }
            }
        }
        UltimateGrid {
            board: review.shown(Record::ultimate).unwrap_or(g),
            enabled: person_moves && !review.is_open(),
            hint,
            onpress: move |cell: UltCell| after_move(session.with_mut(|s| s.press(cell, now()))),
        }
        if against_computer && !status.is_over() {
            HintRow { left: hints_left, enabled: person_moves, thinking: hinting(),
                says: hint.map(|c| c.to_string()), onclick: ask_hint }
        }
        ScoreLine { wins: score.wins, draws: score.draws, losses: score.losses }
        if status.is_over() {
            ReviewPanel { review }
        }
        div { class: "after",
            if status.is_over() {
                button { class: "primary", "data-action": "another", onclick: move |_| { review.close(); after_move(session.with_mut(|s| s.another_game(now()))) }, "{t.another_game}" }
            }
            // Shown mid-game too: leaving keeps the game, so this is the only way to end it.
            StopButton { mid_game: s.mid_game(),
                onstop: move |()| {
                    if let Some(task) = thinking.take() {
                        task.cancel();
                    }
                    session.with_mut(UltimateSession::stop);
                    go.call(Screen::Home)
                },
            }
        }
        if status.is_over() {
            WhereWrong { review, can_open: against_computer && lost(status, person),
                onopen: move |_| review.open(&session.peek().positions(), Record::Ultimate) }
        }
    }
}
