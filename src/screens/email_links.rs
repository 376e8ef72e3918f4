//! The e-mail's links and what leads to them (docs/mail.md): the screen a confirmation link
//! opens, the screen a new-password link opens, "Esqueci a senha" beside the sign-in form, and
//! the profile's reminder to confirm with its "Reenviar".

use dioxus::prelude::*;

use super::TopBar;
use super::account::{edited, shown};
use crate::app::{Screen, use_texts};
use crate::components::warning::warning;
use crate::online::client;
use crate::online::email_texts::email_texts;
use crate::online::membership::{Membership, remember, use_membership};
use crate::online::texts::sentence;
use crate::platform;
use crate::request::{Request, use_request};

/// The link's token: the address's fragment (never sent to a server, never in a log).
fn link_token() -> Option<String> {
    platform::fragment().filter(|t| !t.is_empty() && t.len() <= 128)
}

/// `/conta/confirmar#<token>`: confirms the e-mail as soon as it opens.
#[component]
pub fn ConfirmEmailScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let e = email_texts(t.pt);
    let mut membership = use_membership();
    let mut answer = use_resource(move || async move {
        let token = link_token()?;
        let said = client::verify_email(&token).await;
        // Used already, perhaps by this screen's own first try whose answer was lost: the
        // account, read again, says whether its e-mail is confirmed.
        let member = matches!(*membership.peek(), Membership::Member(_));
        if let Err(client::Problem::Refused(refused)) = &said
            && refused.code == velha_api::ErrorCode::BadLink
            && member
            && let Ok(account) = client::me().await
        {
            membership.set(Membership::Member(account));
        }
        Some(said)
    });
    let said = match &*answer.read() {
        None => rsx! { p { class: "muted", role: "status", "{e.confirming}" } },
        Some(None) => {
            rsx! { p { class: "warning", role: "alert", "data-problem": "true", "{e.no_link}" } }
        }
        Some(Some(Ok(done))) => rsx! {
            p { class: "ok", role: "status", "data-confirmed": "true", "{(e.confirmed)(&done.email)}" }
        },
        Some(Some(Err(refused))) => match membership() {
            // Opened again after it worked (a reload): the account says it is confirmed.
            Membership::Member(account) if account.email_verified => rsx! {
                p { class: "ok", role: "status", "data-confirmed": "true",
                    "{(e.confirmed)(account.email.as_deref().unwrap_or_default())}" }
            },
            _ => rsx! {
                {warning(&sentence(t.online(), refused), "true",
                    // Cleared, the screen shows it is confirming, and a second tap before it
                    // redraws asks no second time.
                    refused.passing().then(|| EventHandler::new(move |()| if answer.peek().is_some() {
                        answer.clear();
                        answer.restart();
                    })))}
            },
        },
    };
    rsx! {
        TopBar { title: e.confirm_title, go }
        section { class: "account-form",
            {said}
            button { class: "primary wide", "data-action": "continue", onclick: move |_| go.call(Screen::Account),
                "{e.go_on}" }
        }
    }
}

/// `/conta/nova-senha#<token>`: the new password; saved, this device is signed in and every
/// other signed out.
#[component]
pub fn NewPasswordScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let e = email_texts(t.pt);
    let mut membership = use_membership();
    let mut password = use_signal(String::new);
    let request: Request = use_request();
    let mut saved = use_signal(|| false);
    let token = use_hook(link_token);
    let Some(token) = token else {
        return rsx! {
            TopBar { title: e.new_password_title, go }
            p { class: "warning", role: "alert", "data-problem": "true", "{e.no_link}" }
        };
    };
    let submit = move |_| {
        let (token, chosen) = (token.clone(), password());
        request.run(async move {
            let answer = client::reset_password(&token, &chosen).await;
            match answer {
                Ok(session) => {
                    remember(true);
                    membership.set(Membership::Member(session.account));
                    saved.set(true);
                    None
                }
                Err(refused) => Some(sentence(t.online(), &refused)),
            }
        })
    };
    rsx! {
        TopBar { title: e.new_password_title, go }
        if saved() {
            section { class: "account-form",
                p { class: "ok", role: "status", "data-saved": "true", "{e.password_saved}" }
                button { class: "primary wide", "data-action": "continue", onclick: move |_| go.call(Screen::Account),
                    "{e.go_on}" }
            }
        } else {
            form { class: "account-form", novalidate: true, "data-form": "new-password",
                onsubmit: move |ev| ev.prevent_default(),
                label {
                    span { "{e.new_password}" }
                    input { name: "password", r#type: "password", autocomplete: "new-password",
                        value: shown(&password()), oninput: move |ev| password.set(edited(&password(), ev.value())) }
                    small { "{t.online().password_hint}" }
                }
                if let Some(says) = request.said() {
                    p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
                }
                button { class: "primary wide", r#type: "submit", "data-action": "save-password", disabled: request.busy(),
                    onclick: submit,
                    if request.busy() { "{t.online().working}" } else { "{e.save_password}" }
                }
            }
        }
    }
}

/// "Esqueci a senha": the e-mail, and the same sentence whether an account has it or not.
#[component]
pub fn ForgotPassword(back: EventHandler<()>) -> Element {
    let t = use_texts();
    let e = email_texts(t.pt);
    let mut email = use_signal(String::new);
    // What it said: whether the link was sent, and the sentence.
    let request = use_request::<(bool, String)>();
    let submit = move |_| {
        if request.busy() {
            return;
        }
        if let Err(says) = crate::online::check::email(t.online(), &email()) {
            request.say((false, says));
            return;
        }
        request.run(async move {
            let answer = client::forgot_password(&email()).await;
            Some(match answer {
                Ok(()) => (true, e.forgot_sent.to_owned()),
                Err(refused) => (false, sentence(t.online(), &refused)),
            })
        })
    };
    rsx! {
        form { class: "account-form", novalidate: true, "data-form": "forgot",
            onsubmit: move |ev| ev.prevent_default(),
            h2 { "{e.forgot_title}" }
            p { class: "muted", "{e.forgot_explain}" }
            label {
                span { "{t.online().email}" }
                input { name: "email", r#type: "email", inputmode: "email", autocomplete: "email",
                    maxlength: "254", value: "{email}", oninput: move |ev| email.set(ev.value()) }
            }
            match request.said() {
                Some((true, says)) => rsx! { p { class: "ok", role: "status", "data-sent": "true", "{says}" } },
                Some((false, says)) => rsx! { p { class: "warning", role: "alert", "data-problem": "true", "{says}" } },
                None => rsx! {},
            }
            button { class: "primary wide", r#type: "submit", "data-action": "send-link", disabled: request.busy(),
                onclick: submit,
                if request.busy() { "{t.online().working}" } else { "{e.send_link}" }
            }
            button { class: "link", r#type: "button", "data-action": "back-to-sign-in",
                onclick: move |_| back.call(()), "{e.back_to_sign_in}" }
        }
    }
}

/// On the profile of an account whose e-mail is not confirmed: where the link went, and
/// "Reenviar".
#[component]
pub fn ConfirmReminder(email: String) -> Element {
    let t = use_texts();
    let e = email_texts(t.pt);
    // Sent or not, the answer is told the same way.
    let request: Request = use_request();
    let to = email.clone();
    rsx! {
        section { class: "confirm-reminder", "data-email-confirmed": "false",
            p { "{(e.unconfirmed)(&email)}" }
            if let Some(says) = request.said() {
                p { class: "muted", role: "status", "data-resent": "true", "{says}" }
            }
            button { class: "wide", "data-action": "resend", disabled: request.busy(),
                onclick: move |_| {
                    let to = to.clone();
                    request.run(async move {
                        let answer = client::resend_confirmation().await;
                        Some(match answer {
                            Ok(()) => (e.resent)(&to),
                            Err(client::Problem::Refused(r)) if r.code == velha_api::ErrorCode::RateLimited => {
                                e.resend_soon.to_owned()
                            }
                            Err(refused) => sentence(t.online(), &refused),
                        })
                    });
                },
                if request.busy() { "{t.online().working}" } else { "{e.resend}" }
            }
        }
    }
}
