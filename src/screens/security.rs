//! "Senha e aparelhos" (docs/accounts.md): where the account is signed in — the kind of
//! device, the country, when — signing out one device or every other, and a new password,
//! which signs out every other device.

use dioxus::prelude::*;
use velha_api::SignedIn;

use super::account::{edited, shown};
use super::{SignInFirst, TopBar};
use crate::app::{Screen, use_texts};
use crate::components::warning::warning;
use crate::countries::country_name;
use crate::i18n::Texts;
use crate::online::client::{self, Problem};
use crate::online::membership::{Membership, sign_out_if_ended, use_membership};
use crate::online::security_texts::{ago, security_sentence, security_texts};
use crate::online::texts::sentence;
use crate::platform;
use crate::request::use_request;

/// The screen: a member's devices and password; a guest is sent to sign in and brought back.
#[component]
pub fn SecurityScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let s = security_texts(t.pt);
    let membership = use_membership();
    // Bumped when a new password signed the other devices out: the list is read again.
    let changed = use_signal(|| 0u32);
    rsx! {
        TopBar { title: s.title, go, up: Screen::Security.up() }
        match membership() {
            Membership::Checking => rsx! { p { class: "muted", role: "status", "{t.checking}" } },
            Membership::Guest => rsx! {
                SignInFirst { says: s.sign_in_first, back: Screen::Security, go }
            },
            Membership::Member(account) => rsx! {
                Devices { changed }
                if account.password {
                    NewPassword { changed }
                } else {
                    p { class: "muted", "data-password": "none", "{s.no_password}" }
                }
            },
        }
    }
}

/// What a failed request says.
fn says(problem: &Problem, t: &'static Texts) -> String {
    security_sentence(security_texts(t.pt), problem)
        .unwrap_or_else(|| sentence(t.online(), problem))
}

/// The places the account is signed in, this device first; read again when `changed` is.
#[component]
fn Devices(changed: Signal<u32>) -> Element {
    let t = use_texts();
    let pt = t.pt;
    let s = security_texts(pt);
    let membership = use_membership();
    let mut sessions = use_resource(move || {
        changed();
        client::sessions()
    });
    // What it said: whether all went well, and the sentence.
    let request = use_request::<(bool, String)>();
    let end = move |id: Option<String>| {
        request.run(async move {
            let done = match &id {
                Some(id) => client::end_session(id).await,
                None => client::end_other_sessions().await,
            };
            let said = match done {
                Ok(()) => id.is_none().then(|| (true, s.ended_others.to_owned())),
                Err(problem) => {
                    sign_out_if_ended(&problem, membership);
                    Some((false, says(&problem, t)))
                }
            };
            sessions.restart();
            said
        })
    };
    let now = platform::now_ms() as i64;
    // Why the list is not shown, and whether reading it again may show it.
    let listed: Option<Result<Vec<SignedIn>, (String, bool)>> = match &*sessions.read() {
        None => None,
        Some(Ok(list)) => {
            let mut list = list.clone();
            // This device first; the others as the server ordered them, the last used first.
            list.sort_by_key(|s| !s.this);
            Some(Ok(list))
        }
        Some(Err(problem)) => Some(Err((says(problem, t), problem.passing()))),
    };
    use_effect(move || {
        if let Some(Err(problem)) = &*sessions.read() {
            sign_out_if_ended(problem, membership);
        }
    });
    rsx! {
        section { class: "devices",
            h2 { "{s.sessions_title}" }
            match listed {
                None => rsx! { p { class: "muted", role: "status", "{t.online().working}" } },
                Some(Err((says, again))) => rsx! {
                    {warning(&says, "sessions",
                        // Cleared, the list shows it is being read, and a second tap before
                        // the screen redraws reads no second time.
                        again.then(|| EventHandler::new(move |()| if sessions.peek().is_some() {
                            sessions.clear();
                            sessions.restart();
                        })))}
                },
                Some(Ok(list)) => {
                    let others = list.iter().filter(|s| !s.this).count();
                    rsx! {
                        ul { class: "sessions",
                            for session in list {
                                li { key: "{session.id}", "data-session": "{session.id}",
                                    "data-this": if session.this { "true" } else { "false" },
                                    div { class: "session-text",
                                        p { class: "session-device",
                                            "{session.device.clone().unwrap_or_else(|| s.unknown_device.to_owned())}"
                                            if session.this { span { class: "this-device", " · {s.this_device}" } }
                                        }
                                        p { class: "muted",
                                            if let Some(code) = &session.country { "{country_name(code, t.lang)} · " }
                                            "{(s.when)(&ago(s, session.since, now), &ago(s, session.seen, now))}"
                                        }
                                    }
                                    if !session.this {
                                        button { class: "small", "data-action": "end-session", disabled: request.busy(),
                                            onclick: {
                                                let id = session.id.clone();
                                                move |_| end(Some(id.clone()))
                                            },
                                            "{s.end}"
                                        }
                                    }
                                }
                            }
                        }
                        if others > 0 {
                            button { class: "wide", "data-action": "end-other-sessions", disabled: request.busy(),
                                onclick: move |_| end(None),
                                if request.busy() { "{t.online().working}" } else { "{s.end_others}" }
                            }
                        }
                    }
                }
            }
            if let Some((ok, says)) = request.said() {
                p { class: if ok { "ok" } else { "warning" }, role: if ok { "status" } else { "alert" },
                    "data-said": if ok { "ok" } else { "problem" }, "{says}" }
            }
        }
    }
}

/// The current password and a new one; `changed` is bumped once it is saved.
#[component]
fn NewPassword(mut changed: Signal<u32>) -> Element {
    let t = use_texts();
    let pt = t.pt;
    let s = security_texts(pt);
    let membership = use_membership();
    let mut current = use_signal(String::new);
    let mut password = use_signal(String::new);
    // What it said: whether the password changed, and the sentence.
    let request = use_request::<(bool, String)>();
    let submit = move |_| {
        request.run(async move {
            let answer = client::change_password(&current(), &password()).await;
            match answer {
                Ok(()) => {
                    current.set(String::new());
                    password.set(String::new());
                    changed += 1;
                    Some((true, s.changed.to_owned()))
                }
                Err(problem) => {
                    sign_out_if_ended(&problem, membership);
                    Some((false, says(&problem, t)))
                }
            }
        })
    };
    rsx! {
        form { class: "account-form", novalidate: true, "data-form": "change-password",
            onsubmit: move |ev| ev.prevent_default(),
            h2 { "{s.password_title}" }
            label {
                span { "{s.current}" }
                input { name: "current", r#type: "password", autocomplete: "current-password",
                    value: shown(&current()), oninput: move |ev| current.set(edited(&current(), ev.value())) }
            }
            label {
                span { "{s.new_password}" }
                input { name: "password", r#type: "password", autocomplete: "new-password",
                    value: shown(&password()), oninput: move |ev| password.set(edited(&password(), ev.value())) }
                small { "{t.online().password_hint}" }
            }
            if let Some((ok, says)) = request.said() {
                p { class: if ok { "ok" } else { "warning" }, role: if ok { "status" } else { "alert" },
                    "data-said": if ok { "ok" } else { "problem" }, "{says}" }
            }
            button { class: "primary wide", r#type: "submit", "data-action": "change-password", disabled: request.busy(),
                onclick: submit,
                if request.busy() { "{t.online().working}" } else { "{s.change}" }
            }
        }
    }
}
