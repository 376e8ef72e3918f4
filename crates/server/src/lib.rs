//! The Cubo da Velha server (velha-server): accounts, subscriptions, the lobby and live cube
//! matches with server clocks, over HTTPS and WebSocket, on SQLite or PostgreSQL.
//!
//! It is authoritative: every move is checked with velha-rules and committed before anyone
//! hears of it, and every clock is a deadline stored with its match.

pub mod admin;
pub mod admission;
pub mod app;
pub mod auth;
pub mod backup;
pub mod config;
pub mod dates;
pub mod devices;
pub mod error;
pub mod google;
pub mod headers;
pub mod latest_told;
pub mod limits;
pub mod live;
pub mod mail;
pub mod metrics;
pub mod move_trace;
pub mod passwords;
pub mod payments;
pub mod push;
pub mod routes;
pub mod store;
pub mod text;
pub mod tls;
pub mod tls_stream;
pub mod token;
pub mod vapid;
pub mod view;
pub mod webpush;
