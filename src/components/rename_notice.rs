//! The notice that the moderation changed the signed-in player's name, until they say they
//! read it: then the server forgets it, so no device shows it again.

use dioxus::prelude::*;

use crate::app::use_texts;
use crate::online::client;
use crate::online::membership::{Membership, sign_out_if_ended, use_membership};
use crate::online::moderation_texts::moderation_texts;
use crate::online::texts::sentence;
use crate::request::{Request, use_request};

/// The old name and the new one, and "Entendi"; nothing unless the account was renamed.
#[component]
pub fn RenameNotice() -> Element {
    let o = use_texts().online();
    let m = moderation_texts(o.pt);
    let mut membership = use_membership();
    let request: Request = use_request();
    let Membership::Member(account) = membership() else {
        return rsx! {};
    };
    let Some(old) = account.renamed_from else {
        return rsx! {};
    };
    let dismiss = move |_| {
        request.run(async move {
            match client::clear_rename_notice().await {
                Ok(()) => {
                    membership.with_mut(|m| {
                        if let Membership::Member(account) = m {
                            account.renamed_from = None;
                        }
                    });
                    None
                }
                Err(refused) => {
                    sign_out_if_ended(&refused, membership);
                    Some(sentence(o, &refused))
                }
            }
        });
    };
    rsx! {
        section { class: "invitation", role: "status", "data-notice": "renamed",
            p { {(m.renamed)(&old, &account.name)} }
            if let Some(says) = request.said() {
                p { class: "warning", role: "alert", "data-problem": "rename-notice", "{says}" }
            }
            button { class: "small", "data-action": "dismiss-rename", disabled: request.busy(),
                onclick: dismiss,
                if request.busy() { "{o.working}" } else { "{m.got_it}" }
            }
        }
    }
}
