//! The 81 cells of Super Jogo da Velha and Jogo da Velha 2.0: the boards a move may go to
//! highlighted, decided boards marked (2.0: "X inside O" for a draw). One device's games and
//! invitation rooms draw the same grid.

use dioxus::prelude::*;
use velha_rules::ultimate::BoardState;
use velha_rules::{Player, Position, UltCell, Ultimate, Variant};

use crate::app::use_texts;
use crate::screens::Mark;

/// The grid; `enabled` says whether the viewer may move now; `hint` is ringed (ANA-10); the
/// boards of the line that won are ringed (SUPER-R02, V2-R03), as the cube rings its own.
#[component]
pub fn UltimateGrid(
    board: Ultimate,
    enabled: bool,
    onpress: EventHandler<UltCell>,
    #[props(default)] hint: Option<UltCell>,
) -> Element {
    let t = use_texts();
    let over = board.status().is_over();
    let legal = board.legal_cells();
    let v2 = board.variant() == Variant::V2;
    let winning = board.winning_boards();
    let class = |small: usize| {
        if winning & 1 << small != 0 {
            "small-board winning"
        } else if !over && legal.into_iter().any(|c| c.board() == small) {
            "small-board sent"
        } else {
            "small-board"
        }
    };
    rsx! {
        div { class: "grid9",
            for small in 0..9 {
                div {
                    key: "{small}",
                    class: class(small),
                    "data-board": "{small + 1}",
                    for pos in 0..9 {
                        UltSquare {
                            key: "{pos}",
                            cell: UltCell::in_board(small, pos).expect("in range"),
                            piece: board.piece(UltCell::in_board(small, pos).expect("in range")),
                            enabled: enabled && legal.contains(UltCell::in_board(small, pos).expect("in range")),
                            hinted: hint == UltCell::in_board(small, pos),
                            onpress,
                        }
                    }
                    match board.board(small) {
                        BoardState::Open => rsx! {},
                        BoardState::Won(p) => rsx! {
                            div { class: "decided", "data-decided": "{p}", "aria-label": "{t.board_word} {small + 1}: {t.won_by} {p}", Mark { player: p } }
                        },
                        BoardState::Drawn if v2 => rsx! {
                            div { class: "decided both", "data-decided": "draw", "aria-label": "{t.board_word} {small + 1}: {t.drawn_board}",
                                svg { class: "mark xo", view_box: "0 0 100 100", "aria-hidden": "true",
                                    circle { cx: "50", cy: "50", r: "38" }
                                    line { x1: "34", y1: "34", x2: "66", y2: "66" }
                                    line { x1: "66", y1: "34", x2: "34", y2: "66" }
                                }
                            }
                        },
                        BoardState::Drawn => rsx! {
                            div { class: "decided none", "data-decided": "draw", "aria-label": "{t.board_word} {small + 1}: {t.drawn_board}" }
                        },
                    }
                }
            }
        }
    }
}

/// 2.0's points on the big board (V2-R02), shown above the grid; nothing for Super. `middle`
/// goes between the two counts (the local game's clock).
#[component]
pub fn PointsBar(board: Ultimate, middle: Option<Element>) -> Element {
    let t = use_texts();
    if board.variant() != Variant::V2 {
        return rsx! {};
    }
    rsx! {
        div { class: "v2-bar",
            span { class: "points x", "data-points": "X", "{t.points} X: {board.points(Player::X)}" }
            if let Some(m) = middle { {m} }
            span { class: "points o", "data-points": "O", "{t.points} O: {board.points(Player::O)}" }
        }
    }
}

/// Where the next move goes: the board it was sent to, or any.
pub fn sent_text(board: &Ultimate) -> String {
    let t = use_texts();
    match board.sent_board() {
        Some(b) => format!("{} {}", t.board_sent, b + 1),
        None => t.any_board.to_string(),
    }
}

#[component]
fn UltSquare(
    cell: UltCell,
    piece: Option<Player>,
    enabled: bool,
    hinted: bool,
    onpress: EventHandler<UltCell>,
) -> Element {
    let t = use_texts();
    let label = match piece {
        Some(p) => format!("{cell}, {p}"),
        None => format!("{cell}, {}", t.empty),
    };
    rsx! {
        button { class: if hinted { "cell hinted" } else { "cell" }, "data-cell": "{cell}", "aria-label": "{label}", disabled: !enabled,
            onclick: move |_| onpress.call(cell),
            if let Some(p) = piece { Mark { player: p } }
        }
    }
}
