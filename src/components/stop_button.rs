//! PARAR. Mid-game (a move or a lost turn on the board, no result yet) it asks first, because
//! the game then ends with no result and, the game being kept across visits, there is no
//! other way to lose it; before that, and after a game, it ends at once.

use dioxus::prelude::*;

use crate::app::use_texts;

/// PARAR, asking first when `mid_game` (a game with a move made and no result yet).
#[component]
pub fn StopButton(mid_game: bool, onstop: EventHandler<()>) -> Element {
    let t = use_texts();
    let mut asking = use_signal(|| false);
    // A game that ended while the question was open (the other side's move, 2.0's clock) must
    // not have the next game open with it.
    use_effect(use_reactive!(|mid_game| if !mid_game && *asking.peek() {
        asking.set(false);
    }));
    if asking() && mid_game {
        return rsx! {
            div { class: "confirm ask", role: "alertdialog", "aria-label": t.confirm_stop, "data-asking": "stop",
                p { "{t.confirm_stop}" }
                button { class: "danger", "data-action": "confirm-stop",
                    onclick: move |_| {
                        asking.set(false);
                        onstop.call(());
                    },
                    "{t.stop}"
                }
                button { "data-action": "keep-playing", onclick: move |_| asking.set(false), "{t.no}" }
            }
        };
    }
    rsx! {
        button { "data-action": "stop",
            onclick: move |_| {
                if mid_game {
                    asking.set(true);
                } else {
                    onstop.call(());
                }
            },
            "{t.stop}"
        }
    }
}
