//! Jogo da Velha: against Rabisco, Nino or Vó Quelônia (the person is X), or two people on
//! one device; a series with the starter alternating, OUTRA PARTIDA and PARAR.

use dioxus::prelude::*;
use velha_ai::{Character, Limits, Opponent, Rng};
use velha_api::RoomBoard;
use velha_rules::{Cell, Classic, Match, Player, Position, Series, Status};

use crate::app::{Screen, use_texts};
use crate::components::character::{self, Avatar};
use crate::components::room_list::PlayWithSomeone;
use crate::platform::{self, random_seed};
use crate::screens::{Mark, TopBar, status_text};

/// Who the person plays against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rival {
    Computer(Character),
    Friend,
}

/// The classic game screen.
#[component]
pub fn ClassicScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let mut rival = use_signal(|| None::<Rival>);
    let mut series = use_signal(|| Series::new(Player::X, Player::X));
    // Classic has no clock: the match only keeps whose move it is and the moves made.
    let mut game = use_signal(|| Match::new(Classic::new(Player::X), None, 0));
    let board = move || *game.read().position();
    let mut recorded = use_signal(|| false);
    let mut stopped = use_signal(|| false);
    let mut rng = use_signal(|| Rng::new(random_seed()));

    // The computer answers whenever it is O's turn against a character.
    let mut computer_turn = move || {
        if let Some(Rival::Computer(mut who)) = rival() {
            let b = board();
            let cell = (b.status() == Status::Ongoing(Player::O))
                .then(|| who.choose(&b, Limits::millis(100), &mut rng.write()))
                .flatten();
            if let Some(cell) = cell {
                game.with_mut(|m| m.act(Player::O, cell, 0).ok());
            }
        }
        let status = board().status();
        if status.is_over() && !recorded() {
            series.with_mut(|s| s.record(status));
            recorded.set(true);
            platform::vibrate(platform::BUZZ_GAME_OVER);
        }
    };
    let mut start_game = move || {
        game.set(Match::new(Classic::new(series().next_starter()), None, 0));
        recorded.set(false);
        computer_turn();
    };
    // A new opponent starts a new series, X first.
    let mut face = move |who: Rival| {
        rival.set(Some(who));
        series.set(Series::new(Player::X, Player::X));
        stopped.set(false);
        start_game();
    };

    let Some(current) = rival() else {
        return rsx! {
            TopBar { title: t.game_classic, go }
            section { class: "choose",
                h2 { "{t.choose_opponent}" }
                p { "{t.you_are_x}" }
                for who in Character::ALL {
                    button { class: "character-pick", key: "{who.protocol_name()}", "data-rival": who.protocol_name(),
                        onclick: move |_| face(Rival::Computer(who)),
                        Avatar { who, size: 56 }
                        span { class: "pick-text",
                            strong { "{character::name(t, who)}" }
                            span { "{character::about(t, who)}" }
                        }
                    }
                }
                button { class: "primary wide", "data-rival": "friend",
                    onclick: move |_| face(Rival::Friend),
                    "{t.two_players}"
                }
                PlayWithSomeone { go, board: RoomBoard::Classic }
            }
        };
    };

    let b = board();
    let status = b.status();
    let score = series().score();
    let message = status_text(
        t,
        status,
        matches!(current, Rival::Computer(_)).then_some(Player::X),
    );
    let person_moves = match current {
        Rival::Computer(_) => status == Status::Ongoing(Player::X),
        Rival::Friend => !status.is_over(),
    };
    rsx! {
        TopBar { title: t.game_classic, go }
        if stopped() {
            section { class: "series-end", "data-series": "final",
                h2 { "{t.series_score}" }
                ScoreLine { wins: score.wins, draws: score.draws, losses: score.losses }
                button { class: "primary wide", onclick: move |_| rival.set(None), "{t.choose_opponent}" }
            }
        } else {
            p { class: "status", role: "status", "aria-live": "polite", "data-status": "{status}", "{message}" }
            if let Rival::Computer(who) = current {
                character::Rival { who, status }
            }
            ClassicGrid { board: b, enabled: person_moves,
                onpress: move |cell: Cell| {
                    game.with_mut(|m| {
                        let by = m.position().side_to_move();
                        m.act(by, cell, 0).ok()
                    });
                    computer_turn();
                },
            }
            ScoreLine { wins: score.wins, draws: score.draws, losses: score.losses }
            if status.is_over() {
                div { class: "after",
                    button { class: "primary", "data-action": "another", onclick: move |_| start_game(), "{t.another_game}" }
                    button { "data-action": "stop", onclick: move |_| stopped.set(true), "{t.stop}" }
                }
            }
        }
    }
}

/// The series score: wins, draws ("velhas") and losses of X.
#[component]
pub fn ScoreLine(wins: u32, draws: u32, losses: u32) -> Element {
    let t = use_texts();
    rsx! {
        p { class: "series",
            span { "data-series": "wins", "data-count": "{wins}", "{(t.wins)(wins)}" } " · "
            span { "data-series": "draws", "data-count": "{draws}", "{(t.draws)(draws)}" } " · "
            span { "data-series": "losses", "data-count": "{losses}", "{(t.losses)(losses)}" }
        }
    }
}

/// The 3x3 board: the empty cells can be played while `enabled`.
#[component]
pub fn ClassicGrid(board: Classic, enabled: bool, onpress: EventHandler<Cell>) -> Element {
    rsx! {
        div { class: "board3", role: "grid",
            for cell in Cell::ALL {
                Square {
                    key: "{cell}",
                    name: cell.to_string(),
                    piece: board.piece(cell),
                    enabled: enabled && board.piece(cell).is_none(),
                    onpress: move |_| onpress.call(cell),
                }
            }
        }
    }
}

/// One cell of a board: a button named "a1, vazio" or "b2, X".
#[component]
fn Square(
    name: String,
    piece: Option<Player>,
    enabled: bool,
    onpress: EventHandler<()>,
) -> Element {
    let t = use_texts();
    let label = match piece {
        Some(p) => format!("{name}, {p}"),
        None => format!("{name}, {}", t.empty),
    };
    rsx! {
        button { class: "cell", "data-cell": "{name}", "aria-label": "{label}", disabled: !enabled,
            onclick: move |_| onpress.call(()),
            if let Some(p) = piece { Mark { player: p } }
        }
    }
}
