//! Turn notices while the app is closed (docs/push.md): the server's VAPID key, and a device's
//! push subscription for its seats and account.

use serde::{Deserialize, Serialize};

/// `GET /api/push/key`: the key the browser's push manager subscribes with
/// (`applicationServerKey`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PushKey {
    /// The server's VAPID public key (RFC 8292): a P-256 point, uncompressed, base64url.
    pub public_key: String,
}

/// The keys of a Web Push subscription, as `PushSubscription.toJSON()` gives them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PushKeys {
    /// The browser's P-256 public key, uncompressed, base64url (RFC 8291).
    pub p256dh: String,
    /// The 16-byte authentication secret, base64url.
    pub auth: String,
}

/// `POST /api/push/subscriptions`: a device asks to be told of its turns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PushSubscribe {
    /// The push service's endpoint for this device: a secret of the device, never shown.
    pub endpoint: String,
    /// Its encryption keys.
    pub keys: PushKeys,
    /// The seat credentials the device holds (at most 100), each a seat to be told of.
    #[serde(default)]
    pub credentials: Vec<String>,
    /// The language of the notices: `pt-BR` or `en`.
    #[serde(default)]
    pub language: Option<String>,
}

/// The subscription kept: its id, to unsubscribe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PushSubscribed {
    /// Random; `DELETE /api/push/subscriptions/{id}` ends it.
    pub id: String,
    /// How many seats it is told of.
    pub seats: u32,
}
