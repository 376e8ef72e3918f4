//! The cube as a game table, the same for a game on the device and a live match online: the
//! counts of symbols on side 1, "Giro: livre / sentido único", the canvas, a refusal over it,
//! and side 1's cells and every turn as buttons for the keyboard and screen readers.

use dioxus::prelude::*;
use velha_cube_view::gesture::Meaning;
use velha_rules::cube::{Sticker, TurnKind};
use velha_rules::{Cell, Cube, CubeAction, CubeIllegal, Level, Player, Position, Turn};

use crate::app::use_texts;
use crate::components::cube_stage::TurnQueue;
use crate::i18n::Texts;
use crate::platform::{CANVAS_AT_ORIGIN, CubeCanvas};
use crate::screens::Mark;

/// The turn's name for people: "Coluna a ↓", "Fileira 1 ←", "Frente ↻".
pub fn turn_name(t: &Texts, turn: Turn) -> String {
    use velha_rules::cube::Layer;
    let (down, left, clockwise) = if turn.canonical {
        ("↓", "←", "↻")
    } else {
        ("↑", "→", "↺")
    };
    match turn.layer {
        Layer::L => format!("{} a {down}", t.column),
        Layer::M => format!("{} b {down}", t.column),
        Layer::R => format!("{} c {down}", t.column),
        Layer::U => format!("{} 1 {left}", t.row),
        Layer::E => format!("{} 2 {left}", t.row),
        Layer::D => format!("{} 3 {left}", t.row),
        Layer::F => format!("{} {clockwise}", t.front),
        Layer::S => format!("{} {clockwise}", t.middle),
        Layer::B => format!("{} {clockwise}", t.back_layer),
    }
}

/// Why the rules refused an action, as the player reads it.
pub fn refusal(t: &Texts, reason: CubeIllegal) -> &'static str {
    match reason {
        CubeIllegal::WrongDirection(_) => t.wrong_direction,
        CubeIllegal::SymbolLimit(_) => t.symbol_limit,
        CubeIllegal::OpponentSymbol => t.opponent_symbol,
        CubeIllegal::SecondFreeTurn => t.second_free_turn,
        CubeIllegal::GameOver => t.game_over,
    }
}

/// The table. `header` goes above it (on native the canvas must come first of all: Blitz
/// reports window coordinates); `children` below the cube (the end of a game's buttons).
/// `playing`: whether this device may act now.
#[component]
pub fn CubeTable(
    cube: Cube,
    turns: TurnQueue,
    playing: bool,
    message: Option<String>,
    on_act: EventHandler<CubeAction>,
    on_refuse: EventHandler<CubeIllegal>,
    header: Element,
    children: Element,
) -> Element {
    let t = use_texts();
    let c = cube;
    let status = c.status();
    let next = c.next_turn_kind(c.side_to_move());
    let canvas = rsx! {
        CubeCanvas {
            cube: c,
            turns,
            on_gesture: move |meaning| match meaning {
                Meaning::Tap(cell) if playing => on_act.call(CubeAction::Tap(cell)),
                Meaning::Turn(turn) if playing => on_act.call(CubeAction::Turn(turn)),
                Meaning::Refuse(reason) if playing => on_refuse.call(reason),
                _ => {}
            },
        }
    };
    // Native 0.7 reports client coordinates only: there the canvas sits at the window's origin.
    let (above, below) = if CANVAS_AT_ORIGIN {
        (canvas, rsx! {})
    } else {
        (rsx! {}, canvas)
    };
    rsx! {
        {above}
        {header}
        div { class: "cube-bar",
            span { "data-count": "X", Mark { player: Player::X } " {c.symbols_on_side1(Player::X)}/4" }
            if c.level() == Level::Two && !status.is_over() {
                span { class: if next == TurnKind::Either { "giro free" } else { "giro one-way" },
                    "data-giro": if next == TurnKind::Either { "free" } else { "one-way" },
                    if next == TurnKind::Either { "{t.next_turn_free}" } else { "{t.next_turn_one_way}" }
                }
            }
            span { "data-count": "O", Mark { player: Player::O } " {c.symbols_on_side1(Player::O)}/4" }
        }
        p { class: "sr-only", "{t.symbols_on_side1}" }
        // The refusal shows over the cube, where the finger and the eyes are.
        div { class: "cube-area",
            {below}
            if let Some(m) = message {
                p { class: "warning over-cube", role: "alert", "data-refusal": "true", "{m}" }
            }
        }
        {children}
        // Side 1's cells and every turn as buttons, for the keyboard and screen readers: one
        // tap away, and not pushing the cube off a phone's screen.
        details { class: "buttons-panel",
            summary { "data-action": "buttons", "{t.play_with_buttons}" }
            section { class: "side1", "aria-label": t.cells_title,
                h2 { class: "sr-only", "{t.cells_title}" }
                div { class: "board3",
                    for cell in Cell::ALL {
                        CubeCell { key: "{cell}", cell, sticker: c.cell(cell), enabled: playing, onpress: move |cell| on_act.call(CubeAction::Tap(cell)) }
                    }
                }
            }
            section { class: "turns", "aria-label": t.turns_title,
                h2 { "{t.turns_title}" }
                div { class: "turn-buttons",
                    for turn in Turn::ALL {
                        button { key: "{turn}", class: "turn", "data-action": "{turn}", disabled: !playing,
                            onclick: move |_| on_act.call(CubeAction::Turn(turn)),
                            "{turn_name(t, turn)}"
                        }
                    }
                }
            }
        }
    }
}

#[component]
fn CubeCell(cell: Cell, sticker: Sticker, enabled: bool, onpress: EventHandler<Cell>) -> Element {
    let t = use_texts();
    let (state, label) = match sticker {
        Sticker::Blank => ("blank", t.empty.to_string()),
        Sticker::Spent => ("spent", "*".to_string()),
        Sticker::Mark(p) => ("marked", p.to_string()),
    };
    rsx! {
        button { class: "cell sticker {state}", "data-cell": "{cell}", "aria-label": "{cell}, {label}", disabled: !enabled,
            onclick: move |_| onpress.call(cell),
            if let Sticker::Mark(p) = sticker { Mark { player: p } }
        }
    }
}
