//! The HTTP handlers, one module a resource; the WebSocket of live play in `socket`.

pub mod accounts;
pub mod groups;
pub mod lobby;
pub mod rankings;
pub mod socket;
