//! Who is signed in on this device, shared by every screen.

use dioxus::prelude::*;
use velha_api::Account;

use super::client::{self, Problem};
use crate::platform;

/// Where the device stands with the server.
#[derive(Clone, Debug, PartialEq)]
pub enum Membership {
    /// Asking the server whether the kept session still works.
    Checking,
    /// Nobody is signed in.
    Guest,
    /// Signed in.
    Member(Account),
}

/// A hint kept on the device that a session exists: a web page cannot see its HttpOnly
/// cookie, and asking the server on every start would cost every guest a request.
const SIGNED_IN_KEY: &str = "cubo-da-velha.signed-in";

/// Remembers that this device is signed in (or no longer is). Signed in, what the forms kept
/// is forgotten, whichever way the player came in: it would show again at the next sign-out.
pub fn remember(signed_in: bool) {
    platform::save(SIGNED_IN_KEY, if signed_in { "1" } else { "" });
    if signed_in {
        crate::online::form_draft::FormDraft::forget();
    }
}

/// A session ended from elsewhere (signed out from another device, the account deleted)
/// signs this device out.
pub fn sign_out_if_ended(problem: &Problem, mut membership: Signal<Membership>) {
    if let Problem::Refused(e) = problem
        && e.code == velha_api::ErrorCode::Unauthorized
    {
        remember(false);
        platform::keep_session_token(None);
        membership.set(Membership::Guest);
    }
}

/// The membership every screen reads; made once by the app's root.
pub fn use_membership() -> Signal<Membership> {
    use_context::<Signal<Membership>>()
}

/// Provides the membership and checks a kept session with the server once: still valid (and
/// the device's country sent again when it changed, ON-A02), expired, or unknown for now
/// (no connection: the player signs in again from the account screen).
pub fn use_membership_provider() -> Signal<Membership> {
    let kept = platform::load(SIGNED_IN_KEY).is_some_and(|v| v == "1");
    let mut membership = use_context_provider(|| {
        Signal::new(if kept {
            Membership::Checking
        } else {
            Membership::Guest
        })
    });
    use_hook(move || {
        if kept {
            spawn(async move {
                // Asked now, while the lobby's module (src/lazy.rs), which reads the answer
                // with the server's client, downloads; without it there is no connection
                // either.
                let (answer, door) = futures_util::future::join(
                    platform::http("GET", "/api/me", None),
                    crate::lazy::load_lobby(),
                )
                .await;
                let found = match door {
                    Some(door) => (door.session)(answer).await,
                    None => Membership::Guest,
                };
                membership.set(found);
            });
        }
    });
    membership
}

/// What the server's answer to `GET /api/me` says of the kept session. Part of the lobby's
/// module (src/lazy.rs).
pub fn session(answer: platform::Answer) -> crate::lazy::Later<Membership> {
    Box::pin(async {
        match client::read::<Account>(answer) {
            Ok(account) => {
                remember(true);
                Membership::Member(refresh_country(account).await)
            }
            Err(Problem::Refused(_)) => {
                remember(false);
                Membership::Guest
            }
            Err(Problem::Offline) => Membership::Guest,
        }
    })
}

/// Sends the device's region when the account's country differs from it, unless the player
/// picked the country (ON-A02).
async fn refresh_country(account: Account) -> Account {
    if account.country_chosen {
        return account;
    }
    let region = platform::region();
    match velha_api::country_of(&region) {
        Some(country) if country != account.country => {
            client::set_region(region).await.unwrap_or(account)
        }
        _ => account,
    }
}
