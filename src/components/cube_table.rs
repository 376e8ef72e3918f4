//! The cube as a game table, the same for a game on the device and a live match online: the
//! counts of symbols on side 1, "Giro: livre / sentido único", a refusal just above the canvas,
//! the canvas, "Ver de frente" under it at level 2, and side 1's cells and every turn as
//! buttons for the keyboard and screen readers.

use dioxus::prelude::*;
use velha_cube_view::gesture::Meaning;
use velha_rules::cube::{Layer, Sticker, TurnKind};
use velha_rules::{Cell, Cube, CubeAction, CubeIllegal, Level, Player, Position, Turn};

use crate::app::use_texts;
use crate::components::cube_stage::{FrontView, TurnQueue};
use crate::i18n::Texts;
use crate::platform::{CANVAS_AT_ORIGIN, CubeCanvas};
use crate::screens::Mark;

/// Which way a turn moves side 1 as seen from the front: ↓ ↑ for the columns, ← → for the
/// rows, ↻ ↺ for the layers parallel to side 1.
fn arrow(turn: Turn) -> &'static str {
    let (axis, _) = turn.layer.axis_and_coord();
    [["↓", "↑"], ["←", "→"], ["↻", "↺"]][axis][usize::from(!turn.canonical)]
}

/// The turn's name for people: "Coluna a ↓", "Fileira 1 ←", "Frente ↻".
pub fn turn_name(t: &Texts, turn: Turn) -> String {
    let arrow = arrow(turn);
    match turn.layer {
        Layer::L => format!("{} a {arrow}", t.column),
        Layer::M => format!("{} b {arrow}", t.column),
        Layer::R => format!("{} c {arrow}", t.column),
        Layer::U => format!("{} 1 {arrow}", t.row),
        Layer::E => format!("{} 2 {arrow}", t.row),
        Layer::D => format!("{} 3 {arrow}", t.row),
        Layer::F => format!("{} {arrow}", t.front),
        Layer::S => format!("{} {arrow}", t.middle),
        Layer::B => format!("{} {arrow}", t.back_layer),
    }
}

/// The wrong-way warning: the one way a layer of this kind turns when a rule allows only one,
/// always its canonical way (CUBE-R08), with the arrow its turn's name shows: "Nas colunas, só
/// para baixo ↓".
pub fn only_way(t: &Texts, layer: Layer) -> String {
    let (axis, _) = layer.axis_and_coord();
    let canonical = Turn {
        layer,
        canonical: true,
    };
    format!("{} {}", t.only_way[axis], arrow(canonical))
}

/// Why the rules refused `action`, as the player reads it.
pub fn refusal(t: &Texts, action: CubeAction, reason: CubeIllegal) -> String {
    match reason {
        CubeIllegal::WrongDirection(_) => match action {
            CubeAction::Turn(turn) => return only_way(t, turn.layer),
            // Only turns have a direction; the general sentence, should a tap ever be refused so.
            CubeAction::Tap(_) => t.wrong_direction,
        },
        CubeIllegal::SymbolLimit(_) => t.symbol_limit,
        CubeIllegal::OpponentSymbol => t.opponent_symbol,
        CubeIllegal::SecondFreeTurn => t.second_free_turn,
        CubeIllegal::GameOver => t.game_over,
    }
    .into()
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
    on_refuse: EventHandler<(CubeAction, CubeIllegal)>,
    header: Element,
    children: Element,
) -> Element {
    let t = use_texts();
    let c = cube;
    let status = c.status();
    let next = c.next_turn_kind(c.side_to_move());
    let winning = c.winning_lines().fold(0, |cells, (_, line)| cells | line);
    let front = use_hook(FrontView::default);
    // Whether the view was orbited since it last showed the front (only level 2 orbits).
    let mut orbited = use_signal(|| false);
    let canvas = rsx! {
        CubeCanvas {
            cube: c,
            turns,
            front: front.clone(),
            on_gesture: move |meaning| match meaning {
                Meaning::Tap(cell) if playing => on_act.call(CubeAction::Tap(cell)),
                Meaning::Turn(turn) if playing => on_act.call(CubeAction::Turn(turn)),
                Meaning::Refuse(action, reason) if playing => on_refuse.call((action, reason)),
                Meaning::Orbit => orbited.set(true),
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
        // The refusal shows right above the cube, where the eyes are and no hand is, in room
        // kept for it: it covers no sticker and moves nothing when it comes.
        div { class: "cube-note",
            if let Some(m) = message {
                p { class: "warning", role: "alert", "data-refusal": "true", "{m}" }
            }
        }
        {below}
        if c.level() == Level::Two {
            // Room kept too, so the button comes and goes without moving what is below.
            div { class: "cube-tools",
                if orbited() {
                    button { class: "small", "data-action": "front-view",
                        onclick: move |_| {
                            front.request();
                            orbited.set(false);
                        },
                        "{t.front_view}"
                    }
                }
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
                        CubeCell { key: "{cell}", cell, sticker: c.cell(cell), enabled: playing,
                            winning: winning >> cell.index() & 1 == 1,
                            onpress: move |cell| on_act.call(CubeAction::Tap(cell)) }
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

/// One cell of side 1 as a button; `winning`: on the line that ended the game.
#[component]
fn CubeCell(
    cell: Cell,
    sticker: Sticker,
    enabled: bool,
    winning: bool,
    onpress: EventHandler<Cell>,
) -> Element {
    let t = use_texts();
    let (state, label) = match sticker {
        Sticker::Blank => ("blank", t.empty.to_string()),
        Sticker::Spent => ("spent", "*".to_string()),
        Sticker::Mark(p) => ("marked", p.to_string()),
    };
    rsx! {
        button { class: if winning { "cell sticker {state} winning" } else { "cell sticker {state}" },
            "data-cell": "{cell}", "aria-label": "{cell}, {label}", disabled: !enabled,
            onclick: move |_| onpress.call(cell),
            if let Sticker::Mark(p) = sticker { Mark { player: p } }
        }
    }
}

#[cfg(test)]
mod tests {
    use velha_rules::cube::OneWayRule;

    use super::*;
    use crate::i18n::{EN, PT};

    #[test]
    fn cube_r08_the_wrong_way_warning_names_the_one_way_each_kind_of_layer_turns() {
        for (layers, pt, en) in [
            (
                [Layer::L, Layer::M, Layer::R],
                "Nas colunas, só para baixo ↓",
                "Columns rotate only down ↓",
            ),
            (
                [Layer::U, Layer::E, Layer::D],
                "Nas fileiras, só para a esquerda ←",
                "Rows rotate only left ←",
            ),
            (
                [Layer::F, Layer::S, Layer::B],
                "Frente, meio e trás, só no sentido horário ↻",
                "Front, middle and back rotate only clockwise ↻",
            ),
        ] {
            for layer in layers {
                let allowed = Turn {
                    layer,
                    canonical: true,
                };
                let refused = CubeAction::Turn(allowed.inverse());
                // Whichever rule refused it: level 1, the alternation, a free turn.
                for rule in [
                    OneWayRule::Level1,
                    OneWayRule::Alternation,
                    OneWayRule::FreeTurn,
                ] {
                    let reason = CubeIllegal::WrongDirection(rule);
                    assert_eq!(refusal(&PT, refused, reason), pt, "{refused}");
                    assert_eq!(refusal(&EN, refused, reason), en, "{refused}");
                }
                // The arrow the allowed turn's button shows.
                assert!(turn_name(&PT, allowed).ends_with(arrow(allowed)));
                assert!(pt.ends_with(arrow(allowed)) && en.ends_with(arrow(allowed)));
            }
        }
        let tap = CubeAction::Tap(Cell::ALL[0]);
        assert_eq!(
            refusal(&PT, tap, CubeIllegal::OpponentSymbol),
            PT.opponent_symbol
        );
    }
}
