//! Push subscriptions (docs/push.md): the VAPID key a browser subscribes with, and a device
//! asking to be told of its turns while the app is closed.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use velha_api::{ErrorCode, PushKey, PushSubscribe, PushSubscribed};

use crate::app::App;
use crate::auth::Player;
use crate::error::{AppError, AppResult, Json};
use crate::store::{MOST_PER_HOLDER, NewPush, PushError};
use crate::token::{now_ms, random_text, seat_key};

/// The most credentials one request names: a guest's room list's bound (`/api/rooms/lookup`).
const MOST_CREDENTIALS: usize = 100;
/// Longer than any push service's endpoint.
const LONGEST_ENDPOINT: usize = 2048;

/// The key the browser's push manager subscribes with.
#[utoipa::path(
    get,
    path = "/api/push/key",
    tag = "push",
    responses((status = 200, body = PushKey))
)]
pub async fn key(State(app): State<Arc<App>>) -> Json<PushKey> {
    Json(PushKey {
        public_key: app.vapid.public_key.clone(),
    })
}

fn bad(why: impl Into<String>) -> AppError {
    AppError::new(ErrorCode::BadRequest, why)
}

/// Whether the endpoint is on one of the push services the server sends to: an endpoint is
/// the client's to give, and anywhere else would make the server post wherever it was told.
/// A service is an origin (`https://fcm.googleapis.com`), or `https://*.push.apple.com` for
/// any host under it.
pub fn on_known_service(endpoint: &str, services: &[String]) -> bool {
    let Ok(url) = reqwest::Url::parse(endpoint) else {
        return false;
    };
    let (Some(host), scheme) = (url.host_str(), url.scheme()) else {
        return false;
    };
    let origin = url.origin().ascii_serialization();
    services
        .iter()
        .any(|service| match service.split_once("://*.") {
            Some((s, suffix)) => {
                s == scheme
                    && host.ends_with(suffix)
                    && host.len() > suffix.len()
                    && host.as_bytes()[host.len() - suffix.len() - 1] == b'.'
                    && url.port().is_none()
            }
            None => origin == service.trim_end_matches('/'),
        })
}

fn key_of(text: &str, length: usize, what: &str) -> AppResult<()> {
    match URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')) {
        Ok(bytes) if bytes.len() == length && (length != 65 || bytes[0] == 4) => Ok(()),
        _ => Err(bad(format!(
            "{what} is not {length} bytes of URL-safe base64{}",
            if length == 65 {
                " (an uncompressed P-256 point)"
            } else {
                ""
            }
        ))),
    }
}

/// Asks for a device's turns: the seats its credentials prove and, signed in, its account.
#[utoipa::path(
    post,
    path = "/api/push/subscriptions",
    tag = "push",
    request_body = PushSubscribe,
    security((), ("session" = []), ("session_cookie" = [])),
    responses(
        (status = 201, description = "Kept, or the endpoint's subscription replaced", body = PushSubscribed),
        (status = 400, description = "An endpoint on no known push service, bad keys, more than 100 credentials, or nothing to be told of", body = velha_api::ApiError),
        (status = 403, description = "forbidden: a credential that holds no seat", body = velha_api::ApiError),
        (status = 409, description = "too_many_subscriptions: a seat or the account is told on 10 devices already", body = velha_api::ApiError),
    )
)]
pub async fn subscribe(
    State(app): State<Arc<App>>,
    player: Option<Player>,
    Json(body): Json<PushSubscribe>,
) -> AppResult<(StatusCode, Json<PushSubscribed>)> {
    if body.endpoint.len() > LONGEST_ENDPOINT
        || !on_known_service(&body.endpoint, &app.push_services)
    {
        return Err(bad(
            "the endpoint is not on a push service this server sends to",
        ));
    }
    key_of(&body.keys.p256dh, 65, "p256dh")?;
    key_of(&body.keys.auth, 16, "auth")?;
    if body.credentials.len() > MOST_CREDENTIALS {
        return Err(bad(format!(
            "at most {MOST_CREDENTIALS} credentials at once"
        )));
    }
    if body
        .credentials
        .iter()
        .any(|c| c.is_empty() || c.len() > 128)
    {
        return Err(bad("a credential is empty or longer than any seat's"));
    }
    let mut seats: Vec<String> = body.credentials.iter().map(|c| seat_key(c)).collect();
    seats.sort();
    seats.dedup();
    let account = player.as_ref().map(|p| p.account.id.as_str());
    if seats.is_empty() && account.is_none() {
        return Err(bad(
            "no seat credential and no session: nothing to be told of",
        ));
    }
    let language = match body.language.as_deref() {
        Some(l) if l.to_ascii_lowercase().starts_with("en") => "en",
        _ => "pt-BR",
    };
    let fresh = random_text(16);
    let saved = app
        .store
        .save_push(&NewPush {
            id: &fresh,
            endpoint: &body.endpoint,
            p256dh: &body.keys.p256dh,
            auth: &body.keys.auth,
            language,
            account,
            seats: &seats,
            now: now_ms(),
        })
        .await;
    match saved {
        Ok(id) => Ok((
            StatusCode::CREATED,
            Json(PushSubscribed {
                id,
                seats: u32::try_from(seats.len()).unwrap_or(u32::MAX),
            }),
        )),
        Err(PushError::UnknownSeat) => Err(AppError::new(
            ErrorCode::Forbidden,
            "a credential holds no seat: only players are told of turns",
        )),
        Err(PushError::TooMany) => Err(AppError::new(
            ErrorCode::TooManySubscriptions,
            format!("a seat or the account is told on {MOST_PER_HOLDER} devices already"),
        )),
        Err(PushError::Db(e)) => Err(e.into()),
    }
}

/// Ends a device's subscription: its id is the device's to know.
#[utoipa::path(
    delete,
    path = "/api/push/subscriptions/{id}",
    tag = "push",
    params(("id" = String, Path, description = "The subscription's id")),
    responses(
        (status = 204, description = "Ended"),
        (status = 404, body = velha_api::ApiError),
    )
)]
pub async fn unsubscribe(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    if id.len() > 64 || !app.store.delete_push(&id).await? {
        return Err(AppError::new(
            ErrorCode::NotFound,
            "no such push subscription",
        ));
    }
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_push_services_configured_are_posted_to() {
        let services: Vec<String> = [
            "https://fcm.googleapis.com",
            "https://*.push.apple.com",
            "http://127.0.0.1:4000",
        ]
        .map(String::from)
        .to_vec();
        let known = |e: &str| on_known_service(e, &services);
        assert!(known("https://fcm.googleapis.com/fcm/send/abc"));
        assert!(known("https://web.push.apple.com/QGx"));
        assert!(known("http://127.0.0.1:4000/push/x"));
        assert!(
            !known("https://push.apple.com.evil.example/x"),
            "a suffix is a whole label"
        );
        assert!(!known("https://evilpush.apple.com/x"), "nor a part of one");
        assert!(
            !known("http://fcm.googleapis.com/fcm/send/abc"),
            "not https"
        );
        assert!(!known("https://fcm.googleapis.com:8443/x"), "another port");
        assert!(!known("http://127.0.0.1:4001/push/x"));
        assert!(!known("http://169.254.169.254/latest/meta-data"));
        assert!(!known("not a url"));
    }
}
