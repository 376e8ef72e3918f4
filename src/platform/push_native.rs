//! The desktop app has no push service of its own: while it runs, the room's connection and
//! desktop notifications tell the player (alert_native.rs); closed, it is not told.

use super::PushFailure;

/// Never on the desktop.
pub fn push_supported() -> bool {
    false
}

/// See [`push_supported`].
pub async fn push_subscribe(_public_key: &str) -> Result<String, PushFailure> {
    Err(PushFailure::Unsupported)
}

/// Nothing was subscribed.
pub async fn push_unsubscribe() {}
