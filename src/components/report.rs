//! "Denunciar": the signed-in player reports the player they met in a finished match, a room or
//! the rankings, in a dialog with the four reasons and an optional note. The stylesheet has no
//! rules of its own for it yet: the few its pieces need are set on them.

use std::rc::Rc;

use dioxus::prelude::*;
use velha_api::{ErrorCode, MAX_REPORT_NOTE, REMOVED_PLAYER, Report, ReportAbout, ReportReason};

use crate::app::{OpenDialog, next_dialog_id, use_texts};
use crate::online::client::{self, Problem};
use crate::online::membership::Membership;
use crate::online::moderation_texts::{
    moderation_texts, reason_name, report_note, report_sentence,
};
use crate::platform;
use crate::request::{Request, use_request};

/// What a report's answer said.
#[derive(Clone, Debug, PartialEq)]
enum Answer {
    /// Sent.
    Sent,
    /// This player had already been reported by this one, about the same match, room or
    /// ranking: nothing more to send.
    Already,
    /// Not sent, and why.
    Failed(String),
}

/// How long a row's answer floats over the page after the dialog closes (ms); the button
/// keeps saying it.
const TOLD_MS: u32 = 6000;

/// Whose rows the signed-in player may report: anyone's but their own and a removed player's
/// (nobody, signed out).
pub fn reportable_by(membership: Membership) -> impl Fn(&str) -> bool + Clone {
    let me = match membership {
        Membership::Member(account) => Some(account.name),
        _ => None,
    };
    move |name: &str| {
        me.as_deref()
            .is_some_and(|me| me != name && name != REMOVED_PLAYER)
    }
}

/// The button that reports `name`, and its dialog. `about` is where they met; `compact` (a
/// table's row) shows a flag, with the words as its label, until the report is made.
#[component]
pub fn ReportButton(about: ReportAbout, name: String, #[props(default)] compact: bool) -> Element {
    let o = use_texts().online();
    let m = moderation_texts(o.pt);
    let mut dialog = use_context::<OpenDialog>().0;
    let id = use_hook(next_dialog_id);
    let open = dialog() == Some(id);
    let mut reason = use_signal(|| None::<ReportReason>);
    let mut note = use_signal(String::new);
    let request: Request<Answer> = use_request();
    let mut told = use_signal(|| false);
    let mut opener = use_signal(|| None::<Rc<MountedData>>);
    // However the dialog closed (cancel, Escape, back, sent), the focus goes back to its button.
    let mut was_open = use_hook(|| CopyValue::new(false));
    use_effect(move || {
        let open = dialog() == Some(id);
        if was_open.replace(open)
            && !open
            && let Some(button) = opener.peek().clone()
        {
            spawn(async move {
                let _ = button.set_focus(true).await;
            });
        }
    });
    use_drop(move || {
        if *dialog.peek() == Some(id) {
            dialog.set(None);
        }
    });
    let send = use_callback(move |()| {
        let Some(why) = reason() else {
            request.say(Answer::Failed(m.choose_reason.into()));
            return;
        };
        let note = match report_note(o, &note()) {
            Ok(note) => note,
            Err(says) => {
                request.say(Answer::Failed(says));
                return;
            }
        };
        let report = Report {
            about: about.clone(),
            reason: why,
            note,
        };
        request.run(async move {
            let answer = match client::report(&report).await {
                Ok(()) => Answer::Sent,
                Err(Problem::Refused(e)) if e.code == ErrorCode::Conflict => Answer::Already,
                Err(refused) => return Some(Answer::Failed(report_sentence(m, o, &refused))),
            };
            if *dialog.peek() == Some(id) {
                dialog.set(None);
            }
            told.set(true);
            spawn(async move {
                platform::sleep_ms(TOLD_MS).await;
                told.set(false);
            });
            Some(answer)
        });
    });
    let answer = request.said();
    let done = matches!(answer, Some(Answer::Sent | Answer::Already));
    let label = if done {
        m.reported.to_owned()
    } else {
        (m.report_who)(&name)
    };
    let button = rsx! {
        button { class: "small", r#type: "button", "data-action": "report",
            "aria-haspopup": "dialog", "aria-label": if compact { "{label}" },
            disabled: done || request.busy(),
            onmounted: move |e: MountedEvent| opener.set(Some(e.data())),
            onclick: move |_| {
                // A refusal of last time is not said again over a fresh dialog.
                request.clear();
                dialog.set(Some(id));
            },
            if done {
                "{m.reported}"
            } else if compact {
                "⚑"
            } else {
                "{m.report}"
            }
        }
    };
    let result = match answer {
        Some(Answer::Sent) => Some(("sent", m.sent)),
        Some(Answer::Already) => Some(("already", m.already)),
        _ => None,
    };
    rsx! {
        if compact {
            {button}
            // A row has no room for a sentence: it floats over the page for a while.
            if let (Some((key, says)), true) = (result, told()) {
                div { class: "ok floating toast", role: "status", "data-report-result": key,
                    p { "{says}" }
                }
            }
        } else {
            div { class: "after", {button} }
            if let Some((key, says)) = result {
                p { class: "ok", role: "status", "data-report-result": key, "{says}" }
            }
        }
        if open {
            // Over the page, which it keeps from being tapped until the dialog closes.
            div { "aria-hidden": "true", position: "fixed", top: "0", left: "0", right: "0", bottom: "0",
                z_index: "19", background: "rgba(0, 0, 0, 0.6)",
                onclick: move |_| dialog.set(None),
            }
            div { class: "confirm floating", role: "dialog", "aria-modal": "true",
                "aria-labelledby": "report-title", "data-dialog": "report",
                max_height: "calc(100vh - 76px)", overflow_y: "auto",
                onkeydown: move |e: KeyboardEvent| {
                    if e.key() == Key::Escape {
                        // The desktop's Escape would also go back a screen.
                        e.stop_propagation();
                        dialog.set(None);
                    }
                },
                h2 { id: "report-title", "{(m.report_who)(&name)}" }
                form { class: "new-group", novalidate: true, margin: "0", padding: "0 2px",
                    onsubmit: move |e| {
                        e.prevent_default();
                        send.call(());
                    },
                    fieldset { border: "none", margin: "0", padding: "0",
                        legend { font_weight: "600", "{m.reason}" }
                        for (i, r) in ReportReason::ALL.into_iter().enumerate() {
                            label { class: "check", key: "{r.as_str()}",
                                input { r#type: "radio", name: "report-reason", value: r.as_str(),
                                    "data-report-reason": r.as_str(), checked: reason() == Some(r),
                                    onmounted: move |e: MountedEvent| async move {
                                        if i == 0 {
                                            let _ = e.set_focus(true).await;
                                        }
                                    },
                                    onchange: move |_| reason.set(Some(r)),
                                }
                                "{reason_name(m, r)}"
                            }
                        }
                    }
                    label { r#for: "report-note", "{m.note}" }
                    textarea { id: "report-note", name: "report-note", rows: "3", maxlength: "{MAX_REPORT_NOTE}",
                        value: "{note}", oninput: move |e| note.set(e.value()),
                        box_sizing: "border-box", width: "100%", padding: "8px 10px", font: "inherit",
                        color: "inherit", background: "var(--bg)", border: "2px solid #3a4470",
                        border_radius: "10px", resize: "vertical",
                    }
                    p { class: "muted hint", "{(m.note_hint)(MAX_REPORT_NOTE)}" }
                    if let Some(Answer::Failed(says)) = request.said() {
                        p { class: "warning", role: "alert", "data-report-result": "failed", "{says}" }
                    }
                    div { class: "after",
                        button { class: "primary", r#type: "submit", "data-action": "send-report",
                            disabled: request.busy(), "aria-busy": if request.busy() { "true" } else { "false" },
                            onclick: move |e| {
                                e.prevent_default();
                                send.call(());
                            },
                            if request.busy() { "{o.working}" } else { "{m.send}" }
                        }
                        button { r#type: "button", "data-action": "cancel-report",
                            onclick: move |_| dialog.set(None), "{m.cancel}" }
                    }
                }
            }
        }
    }
}
