//! The country list of the sign-up forms and the profile (ON-A02): Brasil first, then every
//! country in the alphabetical order of the player's language, narrowed by what the player
//! types. Buttons rather than a `select`, which Blitz does not draw.

use std::rc::Rc;

use dioxus::prelude::*;

use crate::app::use_texts;
use crate::countries::{countries, folded};

/// Most players are Brazilian: their country needs no scrolling or typing.
const FIRST: &str = "BR";

/// A button that says `closed` and opens the list; a tap on a country (or Enter in the search,
/// for the first one shown) hands its code to `on_pick` and closes the list. `value` is the
/// country marked in the list.
#[component]
pub fn CountryPicker(
    value: Option<String>,
    closed: String,
    on_pick: EventHandler<String>,
    #[props(default)] disabled: bool,
) -> Element {
    let texts = use_texts();
    let t = texts.online();
    let all = use_hook(|| {
        let mut all = countries(texts.lang);
        all.sort_by_key(|&(code, _)| code != FIRST);
        Rc::new(all)
    });
    let mut open = use_signal(|| false);
    let mut query = use_signal(String::new);
    let wanted = folded(query().trim());
    let shown: Vec<(&'static str, &'static str)> = all
        .iter()
        .filter(|(_, name)| folded(name).contains(&wanted))
        .copied()
        .collect();
    let first = shown.first().map(|&(code, _)| code);
    let mut pick = move |code: &str| {
        open.set(false);
        query.set(String::new());
        on_pick.call(code.to_owned());
    };
    rsx! {
        div { class: "country-picker",
            button { class: if value.is_some() { "country-open" } else { "country-open unset" },
                r#type: "button", "data-action": "choose-country",
                "data-country": value.clone().unwrap_or_default(), disabled,
                "aria-expanded": if open() { "true" } else { "false" },
                onclick: move |_| open.toggle(),
                "{closed}"
            }
            if open() {
                input { class: "country-search", r#type: "search", name: "country-search",
                    autocomplete: "off", placeholder: t.country_search, "aria-label": t.country_search,
                    value: "{query}", oninput: move |e| query.set(e.value()),
                    // Enter picks, rather than sending the form around the list.
                    onkeydown: move |e| {
                        if e.key() == Key::Enter {
                            e.prevent_default();
                            if let Some(code) = first {
                                pick(code);
                            }
                        }
                    },
                }
                ul { class: "country-list", role: "listbox", "aria-label": t.country,
                    for (code, name) in shown {
                        li { key: "{code}",
                            button { r#type: "button", role: "option", "data-country": code,
                                "aria-selected": if value.as_deref() == Some(code) { "true" } else { "false" },
                                onclick: move |_| pick(code),
                                "{name}"
                            }
                        }
                    }
                    if first.is_none() {
                        li { class: "muted", "{t.no_country_found}" }
                    }
                }
            }
        }
    }
}
