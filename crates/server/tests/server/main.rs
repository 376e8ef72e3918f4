//! The server end to end: real `velha-server` processes on loopback, real HTTPS and WebSocket
//! clients, every test on SQLite and on PostgreSQL. Tests are named after the rule they check
//! (docs/rules/online.md).

#[macro_use]
mod common;

mod accounts;
mod api_doc;
mod backups;
mod clocks;
mod cluster;
mod competitive;
mod deletion;
mod durability;
mod export;
mod google;
mod group_matches;
mod groups;
mod hardening;
mod http2;
mod live;
mod lobby;
mod mail;
mod metrics;
mod moderation;
mod payments;
mod push;
mod rankings;
mod replays;
mod rooms;
mod sessions;
mod upgrades;
