//! Mundial / Nacional and nível 1 / 2: the two choices the lobby and the rankings share.

use dioxus::prelude::*;
use velha_api::Scope;

use crate::app::use_texts;

/// The scope and level tabs, each pressed one shown as selected; a group's lobby has only
/// the level (its matches are between its participants, whatever their countries).
#[component]
pub fn ScopeLevelTabs(
    scope: Signal<Scope>,
    level: Signal<u8>,
    #[props(default = true)] with_scope: bool,
) -> Element {
    let t = use_texts();
    let o = t.online();
    rsx! {
        if with_scope {
            div { class: "tabs", role: "group",
                for (s, label, id) in [(Scope::Mundial, o.mundial, "mundial"), (Scope::Nacional, o.nacional, "nacional")] {
                    button { key: "{id}", class: if scope() == s { "tab selected" } else { "tab" }, "data-scope": id,
                        "aria-pressed": if scope() == s { "true" } else { "false" },
                        onclick: move |_| scope.set(s), "{label}" }
                }
            }
        }
        div { class: "tabs", role: "group",
            for (l, label) in [(1u8, t.level_1), (2u8, t.level_2)] {
                button { key: "{l}", class: if level() == l { "tab selected" } else { "tab" }, "data-level": "{l}",
                    "aria-pressed": if level() == l { "true" } else { "false" },
                    onclick: move |_| level.set(l), "{label}" }
            }
        }
    }
}
