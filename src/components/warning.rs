//! Why a screen could not read or do something, and, when asking again may help (the signal
//! came back, the server got over it), the button that asks again: every screen says it alike,
//! so a player who met it once knows it everywhere.

use dioxus::prelude::*;

use crate::i18n::Texts;

/// `says` as an alert (`data-problem` names it for the tests: `problem`, or "true") and, with
/// `again`, "Tentar de novo". The caller's `again` ignores a tap that comes before its screen
/// redrew, so two quick taps ask once. A function, not a component: each screen's branch
/// draws it in place, which costs the online screens' module less than a component's props.
pub fn warning(says: &str, problem: &'static str, again: Option<EventHandler<()>>) -> Element {
    // Not a hook, so any branch of a screen may draw it.
    let t = consume_context::<&'static Texts>();
    rsx! {
        p { class: "warning", role: "alert", "data-problem": problem, "{says}" }
        if let Some(again) = again {
            button { class: "wide", "data-action": "retry", onclick: move |_| again.call(()),
                "{t.try_again}" }
        }
    }
}
