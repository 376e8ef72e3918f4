//! The "sign in with Google" control: on the web Google's own button (its script loaded from
//! where the server says), on the desktop ours, which opens the system browser. Both hand the
//! ID token of a finished sign-in to `on_token`.

use dioxus::prelude::*;
use velha_api::GoogleOptions;

#[cfg(not(target_arch = "wasm32"))]
use crate::online::texts::OnlineTexts;

/// The control for the platform; nothing where this platform cannot sign in with Google.
#[component]
pub fn GoogleButton(google: GoogleOptions, on_token: EventHandler<String>) -> Element {
    #[cfg(target_arch = "wasm32")]
    return rsx! { WebButton { google, on_token } };
    #[cfg(not(target_arch = "wasm32"))]
    match google.desktop {
        Some(desktop) if crate::platform::GOOGLE_IN_BROWSER => {
            rsx! { DesktopButton { desktop, on_token } }
        }
        _ => rsx! {},
    }
}

#[cfg(target_arch = "wasm32")]
#[derive(Clone, Copy, PartialEq)]
enum Script {
    Loading,
    Ready,
    Unavailable,
}

/// Google's button, drawn by its script into an element of ours once that is on the page.
#[cfg(target_arch = "wasm32")]
#[component]
fn WebButton(google: GoogleOptions, on_token: EventHandler<String>) -> Element {
    use futures_util::StreamExt;

    let t = crate::app::use_texts().online();
    let mut script = use_signal(|| Script::Loading);
    let state = match script() {
        Script::Loading => "loading",
        Script::Ready => "ready",
        Script::Unavailable => "unavailable",
    };
    rsx! {
        div { class: "google-area", "data-google": state,
            div { id: "google-button", class: "google-button",
                onmounted: move |_| {
                    let google = google.clone();
                    spawn(async move {
                        let locale = crate::platform::locale();
                        let drawn = crate::platform::google_button(
                            "google-button",
                            &google.client_id,
                            &google.script_url,
                            &locale,
                        )
                        .await;
                        match drawn {
                            Ok(mut tokens) => {
                                script.set(Script::Ready);
                                while let Some(token) = tokens.next().await {
                                    on_token.call(token);
                                }
                            }
                            Err(()) => script.set(Script::Unavailable),
                        }
                    });
                }
            }
            match script() {
                Script::Loading => rsx! { p { class: "muted small-print", role: "status", "{t.google_loading}" } },
                Script::Unavailable => rsx! { p { class: "muted small-print", "data-google-unavailable": "true", "{t.google_unavailable}" } },
                Script::Ready => rsx! {},
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn failure(t: &OnlineTexts, f: crate::platform::GoogleFailure) -> &'static str {
    use crate::platform::GoogleFailure;
    match f {
        GoogleFailure::NoBrowser => t.google_no_browser,
        GoogleFailure::Cancelled => t.google_cancelled,
        GoogleFailure::Failed => t.google_failed,
    }
}

/// Our button: the sign-in happens in the system browser while the app waits (and can stop
/// waiting).
#[cfg(not(target_arch = "wasm32"))]
#[component]
fn DesktopButton(desktop: velha_api::GoogleDesktop, on_token: EventHandler<String>) -> Element {
    let t = crate::app::use_texts().online();
    let mut waiting = use_signal(|| None::<dioxus::core::Task>);
    let mut problem = use_signal(|| None::<&'static str>);
    rsx! {
        div { class: "google-area", "data-google": if waiting().is_some() { "waiting" } else { "ready" },
            if let Some(task) = waiting() {
                p { role: "status", "{t.google_in_browser}" }
                button { class: "wide", "data-action": "google-cancel",
                    onclick: move |_| {
                        task.cancel();
                        waiting.set(None);
                    },
                    "{t.cancel}"
                }
            } else {
                button { class: "wide google", "data-action": "google",
                    onclick: move |_| {
                        problem.set(None);
                        let desktop = desktop.clone();
                        let task = spawn(async move {
                            let pages = (t.browser_done, t.browser_failed);
                            let answer = crate::platform::google_sign_in(&desktop, pages).await;
                            waiting.set(None);
                            match answer {
                                Ok(token) => on_token.call(token),
                                Err(f) => problem.set(Some(failure(t, f))),
                            }
                        });
                        waiting.set(Some(task));
                    },
                    span { class: "g-mark", "aria-hidden": "true", "G" }
                    "{t.google_sign_in}"
                }
            }
            if let Some(says) = problem() {
                p { class: "warning", role: "alert", "data-problem": "google", "{says}" }
            }
        }
    }
}
