//! The HTTP handlers, one module a resource; the WebSocket of live play in `socket`.

pub mod accounts;
pub mod competitive;
mod connection;
pub mod deletion;
pub mod email;
pub mod export;
pub mod groups;
pub mod lobby;
pub mod push;
pub mod rankings;
pub mod replays;
pub mod reports;
pub mod room_socket;
pub mod rooms;
pub mod sessions;
pub mod socket;
pub mod subscription;
mod websocket;

use velha_api::ErrorCode;
use velha_rules::Level;

use crate::error::{AppError, AppResult};
use crate::store::AccountRow;

/// Refuses a player without an active subscription (ON-A03), saying `why`.
pub(crate) fn subscribers_only(account: &AccountRow, why: &'static str) -> AppResult<()> {
    if crate::auth::is_subscriber(account, crate::token::now_ms()) {
        Ok(())
    } else {
        Err(AppError::new(ErrorCode::SubscribersOnly, why))
    }
}

/// A request's level: 1 or 2.
pub(crate) fn level(n: u8) -> AppResult<Level> {
    Level::from_number(n).ok_or_else(|| {
        AppError::new(
            ErrorCode::BadRequest,
            format!("the level is 1 or 2, not {n}"),
        )
    })
}
