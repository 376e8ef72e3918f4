//! Jogo da Velha: against Rabisco, Nino or Vó Quelônia (the person is X), or two people on
//! one device; a series with the starter alternating, OUTRA PARTIDA and PARAR.

use dioxus::prelude::*;
use velha_ai::Character;
use velha_ai::analysis::classic_hint;
use velha_api::RoomBoard;
use velha_rules::{Cell, Classic, Player, Position};

use crate::analysis::Record;
use crate::app::{Screen, use_texts};
use crate::components::character::{self, Avatar};
use crate::components::hint::{HintRow, Hints};
use crate::components::review::{ReviewPanel, WhereWrong, lost, use_review};
use crate::components::room_list::PlayWithSomeone;
use crate::components::stop_button::StopButton;
use crate::local::classic::{ClassicSession, KEPT, Rival};
use crate::platform::{self, random_seed};
use crate::screens::{Mark, TopBar, status_text, use_kept};

/// The classic game screen.
#[component]
pub fn ClassicScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let mut session = use_kept(
        KEPT,
        |text| crate::lazy::kept_door().and_then(|door| (door.classic)(text)),
        || ClassicSession::new(random_seed()),
        ClassicSession::kept,
    );
    let mut hints = use_signal(|| {
        let s = session.peek();
        Hints::kept(KEPT, s.game_number(), &s.board())
    });
    use_effect(move || hints.read().keep(KEPT));
    let review = use_review();
    // Whatever finished a game buzzes once, as the series counts it.
    let mut change = move |happen: &dyn Fn(&mut ClassicSession) -> bool| {
        if session.with_mut(|s| happen(s)) {
            platform::vibrate(platform::BUZZ_GAME_OVER);
        }
    };

    let s = session.read();
    let Some(current) = s.rival() else {
        return rsx! {
            TopBar { title: t.game_classic, go }
            section { class: "choose",
                h2 { "{t.choose_opponent}" }
                p { "{t.you_are_x}" }
                for who in Character::ALL {
                    button { class: "character-pick", key: "{who.protocol_name()}", "data-rival": who.protocol_name(),
                        onclick: move |_| change(&|s| s.face(Rival::Computer(who))),
                        Avatar { who, size: 56 }
                        span { class: "pick-text",
                            strong { "{character::name(t, who)}" }
                            span { "{character::about(t, who)}" }
                        }
                    }
                }
                button { class: "primary wide", "data-rival": "friend",
                    onclick: move |_| change(&|s| s.face(Rival::Friend)),
                    "{t.two_players}"
                }
                PlayWithSomeone { go, board: RoomBoard::Classic }
            }
        };
    };

    let b = s.board();
    let status = b.status();
    let score = s.score();
    let message = status_text(t, status, s.person());
    let person_moves = s.person_moves();
    let stopped = s.stopped();
    let game = s.game_number();
    let hint = hints.read().shown(game, &b);
    let hints_left = hints.read().left(game);
    rsx! {
        TopBar { title: t.game_classic, go }
        if stopped {
            section { class: "series-end", "data-series": "final",
                h2 { "{t.series_score}" }
                ScoreLine { wins: score.wins, draws: score.draws, losses: score.losses }
                button { class: "primary wide", onclick: move |_| session.with_mut(ClassicSession::choose_again), "{t.choose_opponent}" }
            }
        } else {
            p { class: "status", role: "status", "aria-live": "polite", "data-status": "{status}", "{message}" }
            if let Rival::Computer(who) = current {
                character::Rival { who, status }
            }
            ClassicGrid { board: review.shown(Record::classic).unwrap_or(b),
                enabled: person_moves && !review.is_open(), hint,
                onpress: move |cell: Cell| change(&|s| s.press(cell)),
            }
            if matches!(current, Rival::Computer(_)) && !status.is_over() {
                HintRow { left: hints_left, enabled: person_moves, thinking: false,
                    says: hint.map(|c| c.to_string()),
                    onclick: move |_| {
                        if let Some(best) = classic_hint(&b) {
                            hints.write().give(game, b, best);
                        }
                    },
                }
            }
            ScoreLine { wins: score.wins, draws: score.draws, losses: score.losses }
            if status.is_over() {
                ReviewPanel { review }
            }
            div { class: "after",
                if status.is_over() {
                    button { class: "primary", "data-action": "another", onclick: move |_| { review.close(); change(&ClassicSession::another_game) }, "{t.another_game}" }
                }
                // Shown mid-game too: leaving keeps the game, so this is the only way to end it.
                StopButton { mid_game: s.mid_game(), onstop: move |()| session.with_mut(ClassicSession::stop) }
            }
            if status.is_over() {
                WhereWrong { review, can_open: s.person().is_some_and(|p| lost(status, p)),
                    onopen: move |_| review.open(&session.peek().positions(), Record::Classic) }
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

/// The 3x3 board: the empty cells can be played while `enabled`; `hint` is ringed (ANA-10),
/// and so is the line that won (CLASSIC-R03), as the cube rings its own.
#[component]
pub fn ClassicGrid(
    board: Classic,
    enabled: bool,
    onpress: EventHandler<Cell>,
    #[props(default)] hint: Option<Cell>,
) -> Element {
    let winning = board.winning_cells();
    rsx! {
        div { class: "board3", role: "grid",
            for cell in Cell::ALL {
                Square {
                    key: "{cell}",
                    name: cell.to_string(),
                    piece: board.piece(cell),
                    enabled: enabled && board.piece(cell).is_none(),
                    hinted: hint == Some(cell),
                    winning: winning & cell.bit() != 0,
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
    hinted: bool,
    winning: bool,
    onpress: EventHandler<()>,
) -> Element {
    let t = use_texts();
    let label = match piece {
        Some(p) => format!("{name}, {p}"),
        None => format!("{name}, {}", t.empty),
    };
    let class = match (hinted, winning) {
        (_, true) => "cell winning",
        (true, false) => "cell hinted",
        (false, false) => "cell",
    };
    rsx! {
        button { class, "data-cell": "{name}", "aria-label": "{label}", disabled: !enabled,
            onclick: move |_| onpress.call(()),
            if let Some(p) = piece { Mark { player: p } }
        }
    }
}
