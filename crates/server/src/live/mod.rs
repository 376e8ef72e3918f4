//! Live matches (online.md ON-M02 … ON-M05) and what connections hear of: every action on a
//! match is decided with velha-rules (`referee.rs`) and committed by whichever process
//! received it (`matches.rs`), and only then acknowledged and told, through events every process delivers
//! to the connections it holds (`bus.rs`). The hub, here, is what a process holds: its
//! connections (`connections.rs`), the lobby lists they watch (`lobby_watch.rs`), the rooms
//! they watch (`rooms.rs`, `room_presence.rs`), the live matches' clocks (`matches.rs`,
//! `clock.rs`) and the background sweeper (`sweeper.rs`).

mod bans;
mod bus;
mod clock;
mod connections;
mod drain;
mod live_game;
mod lobby_watch;
mod matches;
mod matchmaker;
mod referee;
mod room_presence;
mod rooms;
mod sweeper;
mod velha_pool;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use crate::store::Store;
use crate::token::new_id;
pub use bus::Ended;
use clock::Timers;
use connections::Conn;
pub use connections::{ConnHandle, MAX_CONNECTIONS_PER_PLAYER, Outgoing};
pub use drain::{Drain, RESTARTING, RESTARTING_REASON};
use lobby_watch::Watches;
pub use matchmaker::{pair_waiting, run as run_matchmaker};
pub use rooms::{RoomLine, RoomNews, RoomWatches, room_frame};
pub use velha_pool::VelhaPool;

/// How long moves and reconnections may take.
#[derive(Clone, Copy, Debug)]
pub struct Clocks {
    /// Time for each move (ON-M03).
    pub move_ms: i64,
    /// Time to come back after a dropped connection (ON-M04).
    pub grace_ms: i64,
}

#[derive(Default)]
struct HubState {
    conns: HashMap<String, Vec<Conn>>,
    lobby: Watches,
}

/// Connections of this process, and the live matches it looks after.
pub struct Hub {
    store: Store,
    clocks: Clocks,
    velha: VelhaPool,
    /// This process's name among the others on the same database.
    process: String,
    /// Who watches each invitation room here.
    pub rooms: RoomWatches,
    state: Mutex<HubState>,
    next_conn: AtomicU64,
    timers: Timers,
    presence: Vec<tokio::sync::Mutex<()>>,
    /// What this process wrote of its rooms' connections (PostgreSQL).
    room_presence: room_presence::Written,
    /// Set when the others gave this process up for dead, until its presence is written back.
    rewrite_presence: std::sync::atomic::AtomicBool,
    /// The events delivered here lately (PostgreSQL): each is delivered once.
    delivered: Mutex<bus::Delivered>,
    /// Whether the process is stopping, and what it waits for first.
    pub drain: Arc<drain::Drain>,
    /// The recent bans this process withdrew from the lobby (`bans.rs`).
    bans_handled: Mutex<bans::Handled>,
    /// The Velha's turns (match, ply) a task here is playing, so that the sweeper starts no
    /// second one.
    velha_turns: Mutex<HashSet<(String, u32)>>,
}

impl Hub {
    /// A hub over this store.
    pub fn new(store: Store, clocks: Clocks, velha: VelhaPool) -> Arc<Hub> {
        Arc::new(Hub {
            store,
            clocks,
            velha,
            process: new_id(),
            rooms: RoomWatches::default(),
            state: Mutex::new(HubState::default()),
            next_conn: AtomicU64::new(1),
            timers: Timers::default(),
            presence: (0..connections::PRESENCE_LOCKS)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
            room_presence: room_presence::Written::default(),
            rewrite_presence: std::sync::atomic::AtomicBool::new(false),
            delivered: Mutex::new(bus::Delivered::default()),
            drain: Arc::default(),
            bans_handled: Mutex::default(),
            velha_turns: Mutex::default(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}
