//! Notices while the app is closed (docs/push.md): this device's push subscription, which
//! seats it was told of, and turning it off. The browser's permission is asked for by the
//! screen, at the player's tap, before [`turn_on`].

use serde::{Deserialize, Serialize};
use velha_api::{PushKeys, PushSubscribe};

use crate::online::client::{self, Problem};
use crate::online::room_live;
use crate::platform::{self, PushFailure};

/// Where the device keeps its subscription.
const KEY: &str = "push-subscription";

/// The subscription as the server knows it.
#[derive(Serialize, Deserialize)]
struct Kept {
    /// The server's id, to unsubscribe.
    id: String,
    /// The rooms whose seats it was told of, the latest first.
    rooms: Vec<String>,
    /// When it was last told (ms).
    #[serde(default)]
    at: f64,
}

/// `PushSubscription.toJSON()`.
#[derive(Deserialize)]
struct Subscription {
    endpoint: String,
    keys: PushKeys,
}

/// Why notices could not be turned on.
#[derive(Clone, Debug, PartialEq)]
pub enum PushProblem {
    /// The browser cannot, or refused.
    Device(PushFailure),
    /// The server could not be reached, or refused.
    Server(Problem),
}

fn kept() -> Option<Kept> {
    platform::load(KEY).and_then(|text| serde_json::from_str(&text).ok())
}

/// Whether this device is subscribed.
pub fn is_on() -> bool {
    kept().is_some()
}

/// Subscribes this device for every seat it holds (and the account, signed in), or tells the
/// server of the seats taken since. Notifications must be allowed already.
pub async fn turn_on(language: &str) -> Result<(), PushProblem> {
    let key = client::push_key().await.map_err(PushProblem::Server)?;
    let json = platform::push_subscribe(&key.public_key)
        .await
        .map_err(PushProblem::Device)?;
    let subscription: Subscription =
        serde_json::from_str(&json).map_err(|_| PushProblem::Device(PushFailure::Service))?;
    let rooms = room_live::rooms();
    let body = PushSubscribe {
        endpoint: subscription.endpoint,
        keys: subscription.keys,
        credentials: room_live::credentials(),
        language: Some(language.to_owned()),
    };
    let answer = client::push_subscribe(&body)
        .await
        .map_err(PushProblem::Server)?;
    if let Ok(text) = serde_json::to_string(&Kept {
        id: answer.id,
        rooms,
        at: platform::now_ms(),
    }) {
        platform::save(KEY, &text);
    }
    Ok(())
}

/// Keeps the server's copy of this device's subscription right: forgotten when the player
/// withdrew the permission; told again of the seats taken since it subscribed, and once a day
/// anyway (the server may have dropped it after failures, the browser may have changed its
/// endpoint or the server its key: subscribing again mends each).
pub async fn keep_fresh(language: &str) {
    let Some(kept) = kept() else {
        return;
    };
    if platform::alert_permission() != platform::AlertPermission::Granted {
        platform::forget(KEY);
        return;
    }
    if kept.rooms != room_live::rooms() || platform::now_ms() - kept.at > DAY_MS {
        // Offline or refused: the next room opened tries again.
        let _ = turn_on(language).await;
    }
}

const DAY_MS: f64 = 24.0 * 3_600_000.0;

/// Unsubscribes this device: at the browser's push service, and at the server.
pub async fn turn_off() {
    let Some(kept) = kept() else {
        return;
    };
    platform::push_unsubscribe().await;
    // Unreachable now: the push service answers "gone" to the server's next notice, and the
    // server forgets the subscription then.
    let _ = client::push_unsubscribe(&kept.id).await;
    platform::forget(KEY);
}
