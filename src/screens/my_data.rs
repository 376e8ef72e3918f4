//! "Seus dados" (docs/accounts.md): the player downloads everything the server holds about
//! them (ON-A05), or deletes the account, asked twice and confirmed by the password or a
//! fresh Google sign-in (ON-A04).

use dioxus::prelude::*;
use velha_api::{Account, ErrorCode};

use super::account::{edited, shown};
use super::{SignInFirst, TopBar};
use crate::app::{AfterSignIn, Screen, use_texts};
use crate::i18n::Texts;
use crate::online::client::{self, Problem};
use crate::online::membership::{Membership, remember, sign_out_if_ended, use_membership};
use crate::online::my_data_texts::{my_data_sentence, my_data_texts};
use crate::online::texts::sentence;
use crate::platform;
use crate::request::use_request;

/// The screen: a member's data and account; a guest is sent to sign in and brought back.
#[component]
pub fn MyDataScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let s = my_data_texts(t.pt);
    let membership = use_membership();
    let deleted = use_signal(|| false);
    if deleted() {
        return rsx! {
            TopBar { title: s.title, go }
            p { class: "ok", role: "status", "data-said": "deleted", "{s.deleted}" }
            button { class: "primary wide", "data-action": "home", onclick: move |_| go.call(Screen::Home),
                "{s.home}"
            }
        };
    }
    rsx! {
        TopBar { title: s.title, go, up: Screen::MyData.up() }
        match membership() {
            Membership::Checking => rsx! { p { class: "muted", role: "status", "{t.checking}" } },
            Membership::Guest => rsx! {
                SignInFirst { says: s.sign_in_first, back: Screen::MyData, go }
            },
            Membership::Member(account) => rsx! {
                Export {}
                Delete { account, deleted, go }
            },
        }
    }
}

/// What a failed request says.
fn says(problem: &Problem, t: &'static Texts) -> String {
    my_data_sentence(my_data_texts(t.pt), problem).unwrap_or_else(|| sentence(t.online(), problem))
}

/// Downloads the player's data as a file.
#[component]
fn Export() -> Element {
    let t = use_texts();
    let s = my_data_texts(t.pt);
    let membership = use_membership();
    // What it said: whether the file was saved, and the sentence.
    let request = use_request::<(bool, String)>();
    let download = move |_| {
        request.run(async move {
            let answer = client::export().await;
            match answer {
                Ok(text) => {
                    let day = day_of(platform::now_ms() as i64);
                    let name = format!("cubo-da-velha-{day}.json");
                    Some(match platform::save_file(&name, &text) {
                        Some(at) => (true, (s.saved)(&at)),
                        None => (false, s.not_saved.to_owned()),
                    })
                }
                Err(problem) => {
                    sign_out_if_ended(&problem, membership);
                    Some((false, says(&problem, t)))
                }
            }
        })
    };
    rsx! {
        section { class: "my-data",
            h2 { "{s.export_title}" }
            p { class: "muted", "{s.export_about}" }
            button { class: "wide", "data-action": "export", disabled: request.busy(), onclick: download,
                if request.busy() { "{t.online().working}" } else { "{s.export}" }
            }
            if let Some((ok, says)) = request.said() {
                p { class: if ok { "ok" } else { "warning" }, role: if ok { "status" } else { "alert" },
                    "data-said": if ok { "saved" } else { "problem" }, "{says}" }
            }
        }
    }
}

/// The UTC day of `ms` as `YYYY-MM-DD`: the file's name says when it was taken.
fn day_of(ms: i64) -> String {
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Deleting the account: a first tap shows what it does and asks for the password; a second
/// deletes it.
#[component]
fn Delete(account: Account, deleted: Signal<bool>, go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let s = my_data_texts(t.pt);
    let mut membership = use_membership();
    let mut back_to = use_context::<AfterSignIn>().0;
    let mut asked = use_signal(|| false);
    let mut password = use_signal(String::new);
    // What it said is the server's problem itself: one of them asks to sign in again.
    let request = use_request::<Problem>();
    let with_password = account.password;
    let confirm = move |_| {
        request.run(async move {
            let typed = password();
            let answer = client::delete_account(with_password.then_some(typed.as_str())).await;
            match answer {
                Ok(()) => {
                    remember(false);
                    deleted.set(true);
                    membership.set(Membership::Guest);
                    None
                }
                Err(problem) => {
                    sign_out_if_ended(&problem, membership);
                    Some(problem)
                }
            }
        })
    };
    let sign_in_again =
        matches!(&request.said(), Some(Problem::Refused(e)) if e.code == ErrorCode::SignInAgain);
    rsx! {
        section { class: "delete-account",
            h2 { "{s.delete_title}" }
            p { class: "muted", "{s.delete_about}" }
            if !asked() {
                button { class: "wide danger", "data-action": "delete-account",
                    onclick: move |_| asked.set(true),
                    "{s.delete}"
                }
            } else {
                form { class: "account-form", novalidate: true, "data-form": "delete-account",
                    onsubmit: move |ev| ev.prevent_default(),
                    p { class: "warning", "{s.delete_warning}" }
                    ul { class: "consequences",
                        for line in s.delete_consequences {
                            li { "{line}" }
                        }
                    }
                    if with_password {
                        label {
                            span { "{s.password}" }
                            input { name: "password", r#type: "password", autocomplete: "current-password",
                                value: shown(&password()), oninput: move |ev| password.set(edited(&password(), ev.value())) }
                        }
                    } else {
                        p { class: "muted", "{s.fresh_google}" }
                    }
                    if let Some(problem) = request.said() {
                        p { class: "warning", role: "alert", "data-said": "problem", "{says(&problem, t)}" }
                    }
                    if sign_in_again {
                        button { class: "wide", "data-action": "sign-in-again",
                            onclick: move |_| {
                                back_to.set(Some(Screen::MyData));
                                spawn(async move {
                                    let _ = client::log_out().await;
                                    remember(false);
                                    membership.set(Membership::Guest);
                                    go.call(Screen::Account);
                                });
                            },
                            "{s.sign_in_again_button}"
                        }
                    }
                    button { class: "wide danger strong", r#type: "submit", "data-action": "delete-forever",
                        disabled: request.busy(), onclick: confirm,
                        if request.busy() { "{t.online().working}" } else { "{s.delete_forever}" }
                    }
                    button { class: "wide", "data-action": "keep-account",
                        onclick: move |_| {
                            asked.set(false);
                            password.set(String::new());
                            request.clear();
                        },
                        "{s.keep}"
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::day_of;

    #[test]
    fn on_a05_the_files_name_has_the_utc_day() {
        assert_eq!(day_of(0), "1970-01-01");
        assert_eq!(day_of(1_801_439_999_999), "2027-01-31");
        assert_eq!(day_of(951_782_400_000), "2000-02-29");
        assert_eq!(day_of(-1), "1969-12-31");
    }
}
