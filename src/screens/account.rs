//! "Entrar": signing up and in with e-mail and password, and the player's profile with the
//! subscription that opens online play (ON-A01 … ON-A03).

use dioxus::prelude::*;
use velha_api::{Account, ErrorCode, GoogleOptions, PaidState, SignInOptions};

use super::TopBar;
use super::email_links::{ConfirmReminder, ForgotPassword};
use super::subscription::{PaymentPage, ProviderButton, SubscribeLink, ask};
use crate::app::{AfterSignIn, Screen, use_texts};
use crate::components::country_picker::CountryPicker;
use crate::components::google_button::GoogleButton;
use crate::components::rename_notice::RenameNotice;
use crate::countries::country_name;
use crate::online::check;
use crate::online::client::{self, Problem};
use crate::online::form_draft::FormDraft;
use crate::online::membership::{Membership, remember, use_membership};
use crate::online::my_data_texts::my_data_texts;
use crate::online::security_texts::security_texts;
use crate::online::subscription_texts::{shown_day, standing};
use crate::online::texts::{google_sentence, sentence};
use crate::platform;
use crate::request::{Request, use_request};

/// Google sign-in as the server offers it; `None` while asking, when it is off, or when the
/// server cannot be reached (the forms say so when used).
fn use_google() -> Option<GoogleOptions> {
    let options = use_resource(client::sign_in_options);
    match &*options.read() {
        Some(Ok(SignInOptions {
            google: Some(google),
            ..
        })) => Some(google.clone()),
        _ => None,
    }
}

/// The account screen: the forms for a guest, the profile for a member.
#[component]
pub fn AccountScreen(go: EventHandler<Screen>) -> Element {
    let texts = use_texts();
    let t = texts.online();
    let membership = use_membership();
    // A guest sent here to sign in first goes back where they were once signed in.
    let mut back_to = use_context::<AfterSignIn>().0;
    use_effect(move || {
        if matches!(membership(), Membership::Member(_))
            && let Some(screen) = back_to.take()
        {
            go.call(screen);
        }
    });
    use_drop(move || back_to.set(None));
    rsx! {
        TopBar { title: t.account_title, go }
        match membership() {
            Membership::Checking => rsx! { p { class: "muted", role: "status", "{texts.checking}" } },
            Membership::Guest => rsx! { Guest {} },
            Membership::Member(account) => rsx! { Profile { account, go } },
        }
    }
}

/// What the password field shows: the browser hides it itself, Blitz needs the dots drawn.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn shown(password: &str) -> String {
    crate::online::masking::masked(password)
}
#[cfg(target_arch = "wasm32")]
pub(super) fn shown(password: &str) -> String {
    password.to_owned()
}

/// The password after the field's text changed to `text`.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn edited(password: &str, text: String) -> String {
    crate::online::masking::unmask(password, &text)
}
#[cfg(target_arch = "wasm32")]
pub(super) fn edited(_password: &str, text: String) -> String {
    text
}

/// A guest's ways in; a first Google sign-in's name form alone on the screen.
#[component]
fn Guest() -> Element {
    // The ID token of a first Google sign-in, waiting for the player's name.
    let pending = use_signal(|| None::<String>);
    let mut forgot = use_signal(|| false);
    if forgot() {
        return rsx! { ForgotPassword { back: move |()| forgot.set(false) } };
    }
    rsx! {
        if pending().is_none() {
            SignIn { forgot: move |()| forgot.set(true) }
        }
        GoogleSignIn { pending }
    }
}

/// Whether the server sends e-mail: what needs it is offered only then.
fn use_email_on() -> bool {
    let options = use_resource(client::sign_in_options);
    matches!(
        &*options.read(),
        Some(Ok(SignInOptions { email: true, .. }))
    )
}

/// The country the device's region proposes for a new account, if it names one (ON-A02).
fn proposed_country() -> Option<String> {
    velha_api::country_of(&platform::region())
}

/// A new account's country: the one proposed, or "choose your country" until one is picked.
#[component]
fn CountryField(country: Signal<Option<String>>) -> Element {
    let texts = use_texts();
    let t = texts.online();
    let closed = match country() {
        Some(code) => country_name(&code, texts.lang),
        None => t.choose_country.to_owned(),
    };
    rsx! {
        div { class: "field", "data-field": "country",
            span { "{t.country}" }
            CountryPicker { value: country(), closed, on_pick: move |code| country.set(Some(code)) }
            small { "{t.country_hint}" }
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Form {
    SignIn,
    SignUp,
}

/// Sign in, or make an account; every refusal is a sentence under the fields.
#[component]
fn SignIn(forgot: EventHandler<()>) -> Element {
    let texts = use_texts();
    let t = texts.online();
    let e = crate::online::email_texts::email_texts(t.pt);
    let email_on = use_email_on();
    let mut membership = use_membership();
    let draft = use_hook(FormDraft::kept).unwrap_or_default();
    let mut form = use_signal(|| {
        if draft.signing_up {
            Form::SignUp
        } else {
            Form::SignIn
        }
    });
    let mut email = use_signal(|| draft.email.clone());
    let mut password = use_signal(String::new);
    let mut name = use_signal(|| draft.name.clone());
    let country = use_signal(|| draft.country.clone().or_else(proposed_country));
    use_effect(move || {
        FormDraft {
            signing_up: form() == Form::SignUp,
            email: email(),
            name: name(),
            country: country(),
        }
        .keep();
    });
    let request: Request = use_request();
    // The last problem was the connection's: it is told with a button to try again.
    let mut offline = use_signal(|| false);

    let mut submit = move || {
        if request.busy() {
            return;
        }
        let (e, p, n, c) = (email(), password(), name(), country());
        let checked = match form() {
            Form::SignIn => check::log_in(t, &e, &p),
            Form::SignUp => check::sign_up(t, &e, &p, &n, c.as_deref()),
        };
        if let Err(says) = checked {
            request.say(says);
            return;
        }
        offline.set(false);
        request.run(async move {
            let answer = match form() {
                Form::SignIn => client::log_in(&e, &p).await,
                Form::SignUp => client::sign_up(&e, &p, &n, c.as_deref()).await,
            };
            match answer {
                Ok(session) => {
                    remember(true);
                    membership.set(Membership::Member(session.account));
                    None
                }
                Err(refused) => {
                    offline.set(refused == Problem::Offline);
                    Some(sentence(t, &refused))
                }
            }
        });
    };
    let signing_up = form() == Form::SignUp;
    rsx! {
        // The app's own sentences, not the browser's validation bubbles.
        form { class: "account-form", novalidate: true,
            "data-form": if signing_up { "sign-up" } else { "sign-in" },
            onsubmit: move |e| {
                e.prevent_default();
                submit();
            },
            h2 { if signing_up { "{t.sign_up}" } else { "{texts.sign_in}" } }
            if signing_up {
                label {
                    span { "{t.name}" }
                    input { name: "name", autocomplete: "username", maxlength: "40", value: "{name}",
                        oninput: move |e| name.set(e.value()) }
                    small { "{t.name_hint}" }
                }
            }
            label {
                span { "{t.email}" }
                input { name: "email", r#type: "email", inputmode: "email", autocomplete: "email",
                    maxlength: "254", value: "{email}", oninput: move |e| email.set(e.value()) }
            }
            label {
                span { "{t.password}" }
                input { name: "password", r#type: "password",
                    autocomplete: if signing_up { "new-password" } else { "current-password" },
                    value: shown(&password()), oninput: move |e| password.set(edited(&password(), e.value())) }
                if signing_up {
                    small { "{t.password_hint}" }
                }
            }
            if signing_up {
                CountryField { country }
            }
            if let Some(says) = request.said() {
                p { class: "warning", role: "alert", "data-problem": "true",
                    "{says}"
                    if offline() {
                        " "
                        button { class: "small", r#type: "button", "data-action": "retry",
                            onclick: move |_| submit(), "{texts.try_again}" }
                    }
                }
            }
            // The click submits (Blitz has no form submission); on the web, Enter in a field
            // clicks this button too.
            button { class: "primary wide", r#type: "submit", "data-action": "submit", disabled: request.busy(),
                onclick: move |e| {
                    e.prevent_default();
                    submit();
                },
                "aria-busy": if request.busy() { "true" } else { "false" },
                if request.busy() { "{t.working}" } else if signing_up { "{t.create}" } else { "{t.enter}" }
            }
            if email_on && !signing_up {
                button { class: "link", r#type: "button", "data-action": "forgot",
                    onclick: move |_| forgot.call(()), "{e.forgot}" }
            }
            button { class: "link", r#type: "button", "data-action": "switch-form",
                onclick: move |_| {
                    request.clear();
                    form.set(if signing_up { Form::SignIn } else { Form::SignUp });
                },
                if signing_up { "{t.have_account}" } else { "{t.no_account_yet}" }
            }
        }
    }
}

/// Signing in with Google; the first time, the player also chooses a name and the country.
#[component]
fn GoogleSignIn(pending: Signal<Option<String>>) -> Element {
    let t = use_texts().online();
    let mut membership = use_membership();
    let google = use_google();
    let mut name = use_signal(String::new);
    let country = use_signal(proposed_country);
    let request: Request = use_request();

    let finish = move |token: String, chosen: Option<String>, country: Option<String>| {
        request.run(async move {
            let answer = client::google(&token, chosen.as_deref(), country.as_deref()).await;
            match answer {
                Ok(session) => {
                    remember(true);
                    membership.set(Membership::Member(session.account));
                    None
                }
                Err(Problem::Refused(e)) if e.code == ErrorCode::NameRequired => {
                    pending.set(Some(token));
                    None
                }
                Err(refused) => Some(google_sentence(t, &refused)),
            }
        })
    };
    let Some(google) = google else {
        return rsx! {};
    };
    let submit_name = move || {
        let Some(token) = pending() else { return };
        match check::google_sign_up(t, &name(), country().as_deref()) {
            Ok(()) => finish(token, Some(name()), country()),
            Err(says) => request.say(says),
        }
    };
    rsx! {
        if pending().is_some() {
            form { class: "account-form", novalidate: true, "data-form": "google-name",
                onsubmit: move |e| {
                    e.prevent_default();
                    submit_name();
                },
                p { "{t.google_choose_name}" }
                label {
                    span { "{t.name}" }
                    input { name: "name", autocomplete: "username", maxlength: "40", value: "{name}",
                        oninput: move |e| name.set(e.value()) }
                    small { "{t.name_hint}" }
                }
                CountryField { country }
                if let Some(says) = request.said() {
                    p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
                }
                button { class: "primary wide", r#type: "submit", "data-action": "submit", disabled: request.busy(),
                    onclick: move |e| {
                        e.prevent_default();
                        submit_name();
                    },
                    "aria-busy": if request.busy() { "true" } else { "false" },
                    if request.busy() { "{t.working}" } else { "{t.create}" }
                }
                button { class: "link", r#type: "button", "data-action": "google-name-cancel",
                    onclick: move |_| {
                        request.clear();
                        pending.set(None);
                    },
                    "{t.cancel}"
                }
            }
        } else {
            p { class: "or", "{t.or}" }
            GoogleButton { google, on_token: move |token| finish(token, None, None) }
            if request.busy() {
                p { class: "muted", role: "status", "{t.working}" }
            }
            if let Some(says) = request.said() {
                p { class: "warning", role: "alert", "data-problem": "google", "{says}" }
            }
        }
    }
}

/// Links a Google account to a password account, so either signs in.
#[component]
fn LinkGoogle() -> Element {
    let t = use_texts().online();
    let mut membership = use_membership();
    let google = use_google();
    let request: Request = use_request();
    let Some(google) = google else {
        return rsx! {};
    };
    rsx! {
        section { class: "link-google",
            h2 { "{t.link_google}" }
            GoogleButton { google,
                on_token: move |token: String| {
                    request.run(async move {
                        match client::link_google(&token).await {
                            Ok(account) => {
                                membership.set(Membership::Member(account));
                                None
                            }
                            Err(refused) => Some(google_sentence(t, &refused)),
                        }
                    });
                }
            }
            if let Some(says) = request.said() {
                p { class: "warning", role: "alert", "data-problem": "google", "{says}" }
            }
        }
    }
}

/// `text` cut after each `@` and `.`: where a long e-mail may go on to the next line, rather
/// than in the middle of a word.
fn break_points(text: &str) -> Vec<String> {
    text.split_inclusive(['@', '.'])
        .map(str::to_owned)
        .collect()
}

/// The player picks another country (ON-A02): the national rankings follow, and the phone's
/// region no longer changes it.
#[component]
fn CountryChange(country: String) -> Element {
    let t = use_texts().online();
    let mut membership = use_membership();
    let request: Request = use_request();
    let closed = if request.busy() {
        t.working
    } else {
        t.change_country
    }
    .to_owned();
    rsx! {
        section { class: "country-change",
            CountryPicker { value: Some(country), closed, disabled: request.busy(),
                on_pick: move |code: String| {
                    request.run(async move {
                        match client::set_country(&code).await {
                            Ok(account) => {
                                membership.set(Membership::Member(account));
                                None
                            }
                            Err(refused) => Some(sentence(t, &refused)),
                        }
                    });
                }
            }
            if let Some(says) = request.said() {
                p { class: "warning", role: "alert", "data-problem": "country", "{says}" }
            }
        }
    }
}

/// Name, country, subscription, the online gate (ON-A03), and signing out.
#[component]
fn Profile(account: Account, go: EventHandler<Screen>) -> Element {
    let texts = use_texts();
    let t = texts.online();
    let s = texts.subscription();
    let groups = texts.groups();
    // The mini ranking's invitations waiting for an answer, shown as a badge.
    let mut invitations = use_signal(|| 0usize);
    let subscriber = account.subscriber;
    use_hook(move || {
        if subscriber {
            spawn(async move {
                if let Ok(mine) = client::my_groups().await {
                    invitations.set(mine.invitations.len());
                }
            });
        }
    });
    let mut membership = use_membership();
    // Signing out has nothing to tell: the device is signed out either way.
    let signing_out: Request = use_request();
    // Whether it renews or was canceled, and the portal, come from the subscription's own
    // answer; until it comes, or without it, the account's dates say what they can.
    let answer = use_signal(|| None);
    use_hook(move || ask(answer, membership));
    let (subscription, manageable) = match &*answer.read() {
        Some(Ok(view)) => (
            standing(s, view.subscriber, shown_day(view), view.paid),
            view.manageable,
        ),
        _ => (
            standing(
                s,
                account.subscriber,
                account.subscribed_until.as_deref(),
                PaidState::None,
            ),
            false,
        ),
    };
    // Rows from a list: a conditional inside the grid would leave a placeholder that Blitz
    // lays out as a cell.
    let mut rows = vec![
        (t.name, "name", account.name.clone()),
        (
            t.country,
            "country",
            country_name(&account.country, use_texts().lang),
        ),
    ];
    if let Some(email) = &account.email {
        rows.push((t.email, "email", email.clone()));
    }
    let email_on = use_email_on();
    let unconfirmed = account
        .email
        .clone()
        .filter(|_| email_on && !account.email_verified);
    if account.google {
        rows.push((t.google, "google", t.google_linked.to_owned()));
    }
    rows.push((s.title, "subscription", subscription));
    rsx! {
        RenameNotice {}
        section { class: "profile",
            dl {
                for (label, key, value) in rows {
                    dt { key: "{key}", "{label}" }
                    dd { "data-profile": key,
                        for piece in break_points(&value) { "{piece}" wbr {} }
                    }
                }
            }
            if manageable {
                ProviderButton { page: PaymentPage::Portal, go }
            }
        }
        if let Some(email) = unconfirmed {
            ConfirmReminder { email }
        }
        section { class: "online-gate", "data-subscriber": if account.subscriber { "true" } else { "false" },
            h2 { "{texts.online_play}" }
            if account.subscriber {
                button { class: "primary wide", "data-action": "play-online",
                    onclick: move |_| go.call(Screen::Online), "{texts.play_online}" }
                button { class: "wide", "data-action": "groups", onclick: move |_| go.call(Screen::Groups),
                    "{groups.title}"
                    if invitations() > 0 {
                        " "
                        span { class: "badge", "data-badge": "{invitations()}", "aria-label": crate::i18n::counted(invitations() as u32, groups.invitation_counted[0], groups.invitation_counted[1]),
                            "{invitations()}"
                        }
                    }
                }
            } else {
                p { "{t.subscribers_only}" }
                SubscribeLink { go, from: Screen::Account }
            }
        }
        button { class: "wide", "data-action": "ranking", onclick: move |_| go.call(Screen::Ranking),
            "{t.ranking}"
        }
        if !account.google {
            LinkGoogle {}
        }
        button { class: "wide", "data-action": "sign-out", disabled: signing_out.busy(),
            onclick: move |_| {
                signing_out.run(async move {
                    // Signed out on the device either way: a session the server could not be
                    // told about ends when it expires.
                    let _ = client::log_out().await;
                    remember(false);
                    membership.set(Membership::Guest);
                    None
                });
            },
            if signing_out.busy() { "{t.working}" } else { "{t.sign_out}" }
        }
        button { class: "wide", "data-action": "security", onclick: move |_| go.call(Screen::Security),
            "{security_texts(t.pt).open}"
        }
        button { class: "wide", "data-action": "my-data", onclick: move |_| go.call(Screen::MyData),
            "{my_data_texts(t.pt).open}"
        }
        // Last: it opens a long list, and the way to play stays where the eye expects it.
        CountryChange { country: account.country.clone() }
    }
}
