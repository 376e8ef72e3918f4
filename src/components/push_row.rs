//! Notices with the app closed (docs/push.md): "Avise-me quando for a minha vez", which asks
//! the browser's permission at that tap and subscribes the device, and the settings row that
//! turns notices off again. A refusal is told in a sentence.

use dioxus::prelude::*;

use crate::app::use_texts;
use crate::online::push::{self, PushProblem};
use crate::platform::{self, AlertPermission, PushFailure};
use crate::request::{Request, use_request};

/// The button asking to be told (`offer`: the player waits for the other's move), what is on,
/// and why it could not be.
#[component]
pub fn TurnNotices(offer: bool) -> Element {
    let t = use_texts();
    let r = t.rooms();
    let mut alerts = use_signal(platform::alert_permission);
    let mut on = use_signal(push::is_on);
    let request = use_request::<&'static str>();
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
            button { class: "wide", "data-action": "allow-alerts", disabled: request.busy(),
                onclick: move |_| request.run(async move {
                    let answer = platform::ask_alert_permission().await;
                    alerts.set(answer);
                    match answer {
                        AlertPermission::Granted if platform::push_supported() => {
                            match push::turn_on(t.lang).await {
                                Ok(()) => {
                                    on.set(true);
                                    None
                                }
                                Err(PushProblem::Device(PushFailure::Denied)) => Some(r.push_denied),
                                Err(PushProblem::Device(PushFailure::Unsupported)) => Some(r.push_unsupported),
                                Err(_) => Some(r.push_failed),
                            }
                        }
                        AlertPermission::Granted => web.then_some(r.push_unsupported),
                        AlertPermission::Refused => Some(r.push_denied),
                        AlertPermission::Ask => None,
                    }
                }),
                "{r.alert_ask}"
            }
        }
        if on() {
            NoticesOff { on }
        } else if alerts() == AlertPermission::Granted && web {
            p { class: "muted hint", "data-alerts": "on", "{r.alert_on}" }
        }
        if let Some(why) = request.said() {
            p { class: "warning", role: "status", "data-push": "refused", "{why}" }
        }
    }
}

/// The settings row of a subscribed device: what is on, and the button that turns it off.
#[component]
fn NoticesOff(on: Signal<bool>) -> Element {
    let r = use_texts().rooms();
    // Turning off has nothing to tell: the row goes away.
    let request: Request = use_request();
    rsx! {
        div { class: "settings-row", "data-push": "on",
            p { class: "muted hint", "{r.push_on}" }
            button { class: "wide", "data-action": "push-off", disabled: request.busy(),
                onclick: move |_| request.run(async move {
                    push::turn_off().await;
                    on.set(false);
                    None
                }),
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
