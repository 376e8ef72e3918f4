//! One module per screen.

pub mod classic;
pub mod cube;
pub mod home;
pub mod howto;
pub mod ultimate;

use dioxus::prelude::*;
use velha_rules::Player;

/// X as a cross and O as a ring, in their colours: symbols differ by shape, not colour alone.
#[component]
pub fn Mark(player: Player) -> Element {
    match player {
        Player::X => rsx! {
            svg { class: "mark x", view_box: "0 0 100 100", "aria-hidden": "true",
                line { x1: "22", y1: "22", x2: "78", y2: "78" }
                line { x1: "78", y1: "22", x2: "22", y2: "78" }
            }
        },
        Player::O => rsx! {
            svg { class: "mark o", view_box: "0 0 100 100", "aria-hidden": "true",
                circle { cx: "50", cy: "50", r: "29" }
            }
        },
    }
}

/// A seed for the opponents' random choices: different every game.
pub fn random_seed() -> u64 {
    (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64
}
