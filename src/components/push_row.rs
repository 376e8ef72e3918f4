//! Notices with the app closed (docs/push.md): "Avise-me quando for a minha vez", which asks
//! the browser's permission at that tap and subscribes the device, and the settings row that
//! turns notices off again. A refusal is told in a sentence.

use dioxus::prelude::*;

use crate::app::use_texts;
use crate::online::push::{self, PushProblem};
use crate::platform::{self, AlertPermission, PushFailure};

/// The button asking to be told (`offer`: the player waits for the other's move), what is on,
/// and why it could not be.
#[component]
pub fn TurnNotices(offer: bool) -> Element {
    let t = use_texts();
    let r = t.rooms;
    let mut alerts = use_signal(platform::alert_permission);
    let mut on = use_signal(push::is_on);
    let mut said = use_signal(|| None::<&'static str>);
    let mut busy = use_signal(|| false);
    // A room opened is when the device's subscription is checked and mended.
    use_hook(|| {
        spawn(async move {
            push::keep_fresh(t.lang).await;
            on.set(push::is_on());
        })
    });
    let web = cfg!(target_arch = "wasm32");
    let can_push = platform::push_supported() && !on();
    let ask = offer
        && (alerts() == AlertPermission::Ask || (alerts() == AlertPermission::Granted && can_push));
    rsx! {
        if ask {
            button { class: "wide", "data-action": "allow-alerts", disabled: busy(),
                onclick: move |_| async move {
                    busy.set(true);
                    said.set(None);
                    let answer = platform::ask_alert_permission().await;
                    alerts.set(answer);
                    match answer {
                        AlertPermission::Granted if platform::push_supported() => {
                            match push::turn_on(t.lang).await {
                                Ok(()) => on.set(true),
                                Err(PushProblem::Device(PushFailure::Denied)) => said.set(Some(r.push_denied)),
                                Err(PushProblem::Device(PushFailure::Unsupported)) => said.set(Some(r.push_unsupported)),
                                Err(_) => said.set(Some(r.push_failed)),
                            }
                        }
                        AlertPermission::Granted => {
                            if web {
                                said.set(Some(r.push_unsupported));
                            }
                        }
                        AlertPermission::Refused => said.set(Some(r.push_denied)),
                        AlertPermission::Ask => {}
                    }
                    busy.set(false);
                },
                "{r.alert_ask}"
            }
        }
        if on() {
            NoticesOff { on }
        } else if alerts() == AlertPermission::Granted && web {
            p { class: "muted hint", "data-alerts": "on", "{r.alert_on}" }
        }
        if let Some(why) = said() {
            p { class: "warning", role: "status", "data-push": "refused", "{why}" }
        }
    }
}

/// The settings row of a subscribed device: what is on, and the button that turns it off.
#[component]
fn NoticesOff(on: Signal<bool>) -> Element {
    let r = use_texts().rooms;
    let mut busy = use_signal(|| false);
    rsx! {
        div { class: "settings-row", "data-push": "on",
            p { class: "muted hint", "{r.push_on}" }
            button { class: "wide", "data-action": "push-off", disabled: busy(),
                onclick: move |_| async move {
                    busy.set(true);
                    push::turn_off().await;
                    on.set(false);
                    busy.set(false);
                },
                "{r.push_turn_off}"
            }
        }
    }
}

/// The row on the list of rooms, while the device is subscribed.
#[component]
pub fn NoticesSetting() -> Element {
    let on = use_signal(push::is_on);
    rsx! {
        if on() {
            NoticesOff { on }
        }
    }
}
