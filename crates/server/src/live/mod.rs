//! Live matches (online.md ON-M02 … ON-M05) and what connections hear of: every action on a
//! match is checked by velha-rules and committed by whichever process received it
//! (`referee.rs`), and only then acknowledged and told, through events every process delivers
//! to the connections it holds (`bus.rs`). The hub, here, knows this process's connections.

mod bus;
mod clock;
mod live_game;
mod lobby_watch;
mod matchmaker;
mod referee;
mod room_presence;
mod rooms;
mod velha_pool;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};
use velha_api::{EndHow, Ending, ErrorCode, MatchView, OpenMatch, Refusal, RoomView, ServerMsg};
use velha_rules::Cube;

use crate::store::{AccountRow, Backend, LobbyList, MatchRow, RoomRow, SeatChange, Store};
use crate::token::{new_id, now_ms};
pub use bus::Ended;
use bus::Event;
use clock::Timers;
use lobby_watch::Watches;
pub use matchmaker::{pair_waiting, run as run_matchmaker};
use referee::{Loaded, from_row, load, with_live};
pub use rooms::{RoomWatch, RoomWatches, room_frame};
pub use velha_pool::VelhaPool;

/// How long moves and reconnections may take.
#[derive(Clone, Copy, Debug)]
pub struct Clocks {
    /// Time for each move (ON-M03).
    pub move_ms: i64,
    /// Time to come back after a dropped connection (ON-M04).
    pub grace_ms: i64,
}

/// Messages waiting for one slow connection; past this it is closed rather than let grow.
const OUTBOX: usize = 512;
/// Connections one player may hold at once (phone, tablet, a few tabs); a new one past it
/// closes the oldest, so no client can make the server hold connections without end.
pub const MAX_CONNECTIONS_PER_PLAYER: usize = 8;

struct Conn {
    id: u64,
    /// The id of the session it signed in with (`token::session_id`).
    session: String,
    tx: mpsc::Sender<ServerMsg>,
    close: Arc<Notify>,
}

/// A registered connection: where its messages arrive and the signal to close it.
pub struct ConnHandle {
    /// Its number.
    pub id: u64,
    /// Messages to send to the client.
    pub rx: mpsc::Receiver<ServerMsg>,
    /// Sends to this connection alone (answers to its own requests).
    pub tx: mpsc::Sender<ServerMsg>,
    /// Fires when the server gives up on a connection that does not read.
    pub close: Arc<Notify>,
}

/// How often the sweeper looks for matches whose process died.
const SWEEP: Duration = Duration::from_millis(250);
/// How late past its clock a match is before any process's sweeper settles it: the process
/// that changed it last is meant to, on time.
const SWEEP_LATE_MS: i64 = 500;
/// How many sweeps between two heartbeats (a second), and how long unseen before the other
/// processes give one up for dead (with its players' connections).
const HEARTBEAT_EVERY: u64 = 4;
const DEAD_AFTER_MS: i64 = 5_000;
/// How long since the Velha's turn began before another process decides for her: the one
/// that was deciding died.
const VELHA_STUCK_MS: i64 = 15_000;
/// How long the events stay in the database for processes catching up.
const EVENTS_KEPT_MS: i64 = 10 * 60_000;
/// Players whose presence changes wait on one of these locks, so that one player's
/// connections coming and going are written in the order they happened.
const PRESENCE_LOCKS: usize = 64;

#[derive(Default)]
struct HubState {
    conns: HashMap<String, Vec<Conn>>,
    lobby: Watches,
}

/// A room's change told as an event (`Hub::room_news`).
pub struct RoomNews {
    events: Vec<Event>,
    record: Option<(String, String)>,
}

impl RoomNews {
    /// What the change's transaction records and notifies (none on SQLite).
    pub fn record(&self) -> Option<&(String, String)> {
        self.record.as_ref()
    }
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
            presence: (0..PRESENCE_LOCKS)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
            room_presence: room_presence::Written::default(),
            rewrite_presence: std::sync::atomic::AtomicBool::new(false),
            delivered: Mutex::new(bus::Delivered::default()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn presence_lock(&self, account: &str) -> &tokio::sync::Mutex<()> {
        let hash = account.bytes().fold(0usize, |h, b| {
            h.wrapping_mul(31).wrapping_add(usize::from(b))
        });
        &self.presence[hash % PRESENCE_LOCKS]
    }

    /// Registers a connection of `account`, signed in with the session `session` (its id);
    /// when it is their first here, every process's connections learn they are back in their
    /// live matches.
    pub async fn connect(self: &Arc<Self>, account: &str, session: String) -> ConnHandle {
        let _order = self.presence_lock(account).lock().await;
        let (tx, rx) = mpsc::channel(OUTBOX);
        let close = Arc::new(Notify::new());
        let id = self.next_conn.fetch_add(1, Ordering::Relaxed);
        let first = {
            let mut state = self.lock();
            let conns = state.conns.entry(account.to_owned()).or_default();
            if conns.len() >= MAX_CONNECTIONS_PER_PLAYER {
                // The oldest is the likeliest to be a phone that went away without closing.
                let oldest = conns.remove(0);
                let _ = oldest.tx.try_send(ServerMsg::Error {
                    code: ErrorCode::Conflict,
                    message: format!(
                        "more than {MAX_CONNECTIONS_PER_PLAYER} connections: this, the oldest, is closed"
                    ),
                });
                oldest.close.notify_one();
            }
            conns.push(Conn {
                id,
                session,
                tx: tx.clone(),
                close: close.clone(),
            });
            conns.len() == 1
        };
        if first {
            match self.store.came_back(account, &self.process).await {
                Ok(back) => self.presence_changed(back, None).await,
                Err(e) => tracing::error!(error = %e, "could not record a player's connection"),
            }
        }
        ConnHandle { id, rx, tx, close }
    }

    /// Forgets a connection. When no process holds one of the player's any more, their live
    /// matches start the reconnection grace, and their open matches leave the lobby if they do
    /// not come back.
    pub async fn disconnect(self: &Arc<Self>, account: &str, conn: u64) {
        let _order = self.presence_lock(account).lock().await;
        let last = {
            let mut state = self.lock();
            state.lobby.unwatch(conn);
            let Some(conns) = state.conns.get_mut(account) else {
                return;
            };
            conns.retain(|c| c.id != conn);
            let last = conns.is_empty();
            if last {
                state.conns.remove(account);
            }
            last
        };
        if last {
            let until = now_ms() + self.clocks.grace_ms;
            match self.store.went_away(account, &self.process, until).await {
                Ok(away) => self.presence_changed(away, Some(until)).await,
                Err(e) => tracing::error!(error = %e, "could not record a player's departure"),
            }
            self.withdraw_if_gone(account.to_owned());
        }
    }

    /// Tells both players of each match that a seat is away until `until`, or back (`None`).
    async fn presence_changed(self: &Arc<Self>, changes: Vec<SeatChange>, until: Option<i64>) {
        let now = now_ms();
        let events: Vec<Event> = changes
            .iter()
            .map(|c| Event::Players {
                to: c
                    .players
                    .iter()
                    .filter(|p| !p.is_empty())
                    .cloned()
                    .collect(),
                msg: match until {
                    Some(t) => ServerMsg::Away {
                        match_id: c.match_id.clone(),
                        seat: c.seat,
                        grace_ms: crate::token::ms_until(t, now),
                    },
                    None => ServerMsg::Back {
                        match_id: c.match_id.clone(),
                        seat: c.seat,
                    },
                },
            })
            .collect();
        if let Some(t) = until {
            for c in &changes {
                self.timers.wake_by(&c.match_id, t);
            }
        }
        self.publish(events).await;
    }

    /// A waiting creator who does not come back within the grace time is no longer waiting:
    /// their open matches leave the lobby, so nobody joins a match without an opponent.
    pub fn withdraw_if_gone(self: &Arc<Self>, account: String) {
        let hub = self.clone();
        tokio::spawn(async move {
            let grace = hub.clocks.grace_ms;
            tokio::time::sleep(Duration::from_millis(grace as u64)).await;
            if hub.is_online(&account).await {
                return;
            }
            // Nor is anyone gone long still waiting for a 2.0 opponent (ON-V01).
            if let Err(e) = hub.store.queue_leave(&account).await {
                tracing::error!(error = %e, "could not take a player who left out of the queue");
            }
            match hub.store.cancel_open_matches_of(&account, now_ms()).await {
                Ok(withdrawn) if withdrawn.is_empty() => {}
                Ok(withdrawn) => {
                    let n = withdrawn.len();
                    tracing::info!(%account, n, "withdrew the open matches of a creator who left");
                    for (id, list) in withdrawn {
                        hub.lobby_closed(&id, &list).await;
                    }
                }
                Err(e) => tracing::error!(error = %e, "could not withdraw open matches"),
            }
        });
    }

    /// Connection `conn` of `account` watches this lobby list from now on; the
    /// changes meanwhile wait for [`Hub::lobby_snapshot`].
    pub fn watch_lobby(
        &self,
        conn: u64,
        list: LobbyList,
        account: &AccountRow,
        tx: mpsc::Sender<ServerMsg>,
        close: Arc<Notify>,
    ) {
        self.lock().lobby.watch(conn, list, account, tx, close);
    }

    /// Sends a watcher its list as just read, then what changed meanwhile; `false` when too
    /// much changed: read it again.
    pub fn lobby_snapshot(&self, conn: u64, snapshot: ServerMsg) -> bool {
        self.lock().lobby.snapshot(conn, snapshot)
    }

    /// The connection stops watching the lobby.
    pub fn unwatch_lobby(&self, conn: u64) {
        self.lock().lobby.unwatch(conn);
    }

    /// A match opened: the watchers of its list hear of it, on every process.
    pub async fn lobby_opened(self: &Arc<Self>, open: &OpenMatch) {
        self.publish(vec![Event::LobbyOpened { open: open.clone() }])
            .await;
    }

    /// A match left the lobby (started or withdrawn): the watchers of its list hear of it.
    pub async fn lobby_closed(self: &Arc<Self>, id: &str, list: &LobbyList) {
        self.publish(vec![Event::LobbyClosed {
            id: id.to_owned(),
            list: list.clone(),
        }])
        .await;
    }

    /// A group changed: its participants (`members`) and those who no longer or do not yet
    /// take part in it (`others`, whose watches of its lobby end) hear of it, on every process.
    pub async fn group_changed(
        self: &Arc<Self>,
        group: &str,
        members: Vec<String>,
        others: Vec<String>,
    ) {
        self.publish(vec![Event::Group {
            group: group.to_owned(),
            members,
            others,
            finalized: false,
        }])
        .await;
    }

    /// A group was finalized: everyone who took part in it or was invited hears of it, and
    /// their watches of its lobby end.
    pub async fn group_finalized(self: &Arc<Self>, group: &str, people: Vec<String>) {
        self.publish(vec![Event::Group {
            group: group.to_owned(),
            members: vec![],
            others: people,
            finalized: true,
        }])
        .await;
    }

    /// The ends of matches a deleted player abandoned, as told to the other processes in the
    /// transaction that records them.
    pub fn abandoned_told(&self, ended: &[crate::store::Abandoned]) -> Vec<(String, String)> {
        self.encode(&abandoned(ended))
    }

    /// Those ends are committed: their players' connections here hear of them.
    pub async fn abandoned_committed(self: &Arc<Self>, ended: &[crate::store::Abandoned]) {
        self.committed(abandoned(ended)).await;
    }

    /// Sessions of `account` ended: their live connections, on every process, are told and
    /// closed (a session's socket lives no longer than the session).
    pub async fn signed_out(self: &Arc<Self>, account: &str, sessions: bus::Ended) {
        self.publish(vec![Event::SignedOut {
            account: account.to_owned(),
            sessions,
        }])
        .await;
    }

    /// The number watching a room changed: everyone watching it, on every process, gets it as
    /// it is at `version`.
    pub async fn room_changed(self: &Arc<Self>, room: RoomView, version: i64) {
        self.publish(vec![Event::Room { room, version }]).await;
    }

    /// A change to a room about to be saved, as the event that tells of it: its record goes in
    /// the change's transaction (`RoomNews::record`), and once that commits, `room_saved`
    /// delivers it here.
    pub fn room_news(&self, room: RoomView, version: i64) -> RoomNews {
        let events = vec![Event::Room { room, version }];
        let record = self.encode(&events).pop();
        RoomNews { events, record }
    }

    /// A room's change committed with its news: everyone watching it here gets it (the other
    /// processes hear of it by NOTIFY).
    pub async fn room_saved(self: &Arc<Self>, news: RoomNews) {
        self.committed(news.events).await;
    }

    /// A room as stored and how many watch it, on every process.
    pub async fn watched_room(&self, id: &str) -> Result<Option<(RoomRow, u32)>, sqlx::Error> {
        if self.store.backend() == Backend::Sqlite {
            let row = self.store.room(id).await?;
            return Ok(row.map(|row| (row, self.rooms.spectators(id))));
        }
        self.store.room_and_spectators(id).await
    }

    /// Takes a spectator's place in a room, unless its spectators (on every process) are all
    /// there. On SQLite, one process: its own list of watchers holds the limit.
    pub async fn spectate(&self, room: &str) -> Result<bool, sqlx::Error> {
        if self.store.backend() == Backend::Sqlite {
            return Ok(true);
        }
        let mut written = self.room_presence.lock(room).await;
        let placed = self
            .store
            .spectate(room, &self.process, velha_rules::room::MAX_SPECTATORS)
            .await?;
        if placed {
            written.spectator(room, 1);
        }
        Ok(placed)
    }

    /// Gives back a spectator's place.
    pub async fn unspectate(&self, room: &str) {
        if self.store.backend() == Backend::Sqlite {
            return;
        }
        let mut written = self.room_presence.lock(room).await;
        match self.store.unspectate(room, &self.process).await {
            Ok(()) => written.spectator(room, -1),
            Err(e) => tracing::error!(error = %e, "could not give back a spectator's place"),
        }
    }

    /// A connection of a room's seat opened here (`came`) or closed: on PostgreSQL the other
    /// processes' push senders learn that the player is looking (`seat_looking`).
    pub async fn seat_presence(&self, room: &str, seat: velha_api::Seat, came: bool) {
        if self.store.backend() == Backend::Sqlite {
            return;
        }
        let mut written = self.room_presence.lock(room).await;
        match self
            .store
            .seat_presence(room, seat, &self.process, came)
            .await
        {
            Ok(()) => written.seat(room, seat, if came { 1 } else { -1 }),
            Err(e) => tracing::error!(error = %e, "could not keep a room seat's presence"),
        }
    }

    /// Writes back this process's room connections, which the others took away when they
    /// gave it up for dead.
    async fn rewrite_room_presence(&self) -> Result<(), sqlx::Error> {
        for shard in self.room_presence.shards() {
            let written = shard.lock().await;
            self.store
                .rewrite_room_presence(&self.process, &written.seats, &written.spectators)
                .await?;
        }
        Ok(())
    }

    /// Whether a player of the room's seat is connected to it, through any live process. A
    /// database that cannot answer counts as nobody looking: the notice is sent.
    pub async fn seat_looking(&self, room: &str, seat: velha_api::Seat) -> bool {
        if self.rooms.seat_connected(room, seat) {
            return true;
        }
        if self.store.backend() == Backend::Sqlite {
            return false;
        }
        self.store
            .seat_looking(room, seat, crate::token::now_ms() - DEAD_AFTER_MS)
            .await
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "could not read a room seat's presence");
                false
            })
    }

    /// How many watch a room, on every process (0 if that cannot be read now).
    pub async fn spectators(&self, room: &str) -> u32 {
        self.spectators_of(&[room]).await[0]
    }

    /// How many watch each of these rooms, in their order.
    pub async fn spectators_of(&self, rooms: &[&str]) -> Vec<u32> {
        if self.store.backend() == Backend::Sqlite {
            return rooms
                .iter()
                .map(|room| self.rooms.spectators(room))
                .collect();
        }
        self.store.spectators(rooms).await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "could not count rooms' spectators");
            vec![0; rooms.len()]
        })
    }

    /// Whether any process holds a connection of the player.
    pub async fn is_online(&self, account: &str) -> bool {
        match self.store.is_online(account).await {
            Ok(online) => online,
            Err(e) => {
                tracing::error!(error = %e, "could not read a player's presence");
                // Treated as here: nobody loses a seat because the database hiccuped.
                true
            }
        }
    }

    /// Sends to every connection of a player here; a connection that stopped reading is
    /// closed.
    fn send_to(&self, account: &str, msg: &ServerMsg) {
        let state = self.lock();
        for conn in state.conns.get(account).into_iter().flatten() {
            if conn.tx.try_send(msg.clone()).is_err() {
                tracing::warn!(%account, conn = conn.id, "closing a connection that does not read");
                conn.close.notify_one();
            }
        }
    }

    fn holds_any(&self, accounts: &[String]) -> bool {
        let state = self.lock();
        accounts.iter().any(|a| state.conns.contains_key(a))
    }

    /// Whether an event is new here (and remembers that it is not any more).
    fn first_time(&self, id: &str) -> bool {
        self.delivered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .first_time(id)
    }

    /// Gives events their ids, remembered as delivered here: this process delivers its own
    /// events once committed and skips their notifications. Nothing on SQLite, where no other
    /// process listens.
    fn encode(&self, events: &[Event]) -> Vec<(String, String)> {
        if self.store.backend() != Backend::Postgres {
            return Vec::new();
        }
        let encoded = bus::encode(events);
        for (id, _) in &encoded {
            self.first_time(id);
        }
        encoded
    }

    /// Tells every process (this one too) of events that change nothing stored.
    async fn publish(self: &Arc<Self>, events: Vec<Event>) {
        if events.is_empty() {
            return;
        }
        if let Err(e) = self.store.publish(&self.encode(&events)).await {
            tracing::error!(error = %e, "could not tell the other processes");
        }
        self.committed(events).await;
    }

    /// Delivers here events just committed with the change that made them (the other
    /// processes hear of them by NOTIFY).
    async fn committed(self: &Arc<Self>, events: Vec<Event>) {
        for event in events {
            self.deliver(event).await;
        }
    }

    /// Hands an event to the connections of this process it is for.
    async fn deliver(self: &Arc<Self>, event: Event) {
        match event {
            Event::Players { to, msg } => {
                for account in &to {
                    self.send_to(account, &msg);
                }
            }
            Event::Ended { match_id, players } => {
                if !self.holds_any(&players) {
                    return;
                }
                match self.store.get_match(&match_id).await {
                    Ok(Some(row)) => {
                        if let Some(how) = row.ending {
                            let ended = ServerMsg::Ended {
                                match_id,
                                ending: Ending {
                                    winner: row.winner,
                                    how,
                                },
                                position: row.position,
                                scored: row.scored,
                                ratings: row.ratings,
                            };
                            for account in players.iter().filter(|p| !p.is_empty()) {
                                self.send_to(account, &ended);
                            }
                        }
                    }
                    Ok(None) => {}
                    Err(e) => tracing::error!(error = %e, "could not read an ended match"),
                }
            }
            Event::LobbyOpened { open } => self.lock().lobby.opened(&open),
            Event::LobbyClosed { id, list } => self.lock().lobby.closed(&id, &list),
            Event::Room { room, version } => self.rooms.changed(&room, version),
            Event::SignedOut { account, sessions } => {
                let state = self.lock();
                let signed_out = ServerMsg::Error {
                    code: ErrorCode::Unauthorized,
                    message: "this session was signed out; sign in again".into(),
                };
                for conn in state.conns.get(&account).into_iter().flatten() {
                    if sessions.holds(&conn.session) {
                        let _ = conn.tx.try_send(signed_out.clone());
                        conn.close.notify_one();
                    }
                }
            }
            Event::Group {
                group,
                members,
                others,
                finalized,
            } => {
                self.lock().lobby.left(&group, &others);
                for (accounts, member) in [(members, true), (others, false)] {
                    let msg = ServerMsg::GroupChanged {
                        group: group.clone(),
                        member,
                        finalized,
                    };
                    for account in &accounts {
                        self.send_to(account, &msg);
                    }
                }
            }
        }
    }

    /// Starts a live match just made: both players are told, its clocks are looked after,
    /// and a player without a connection anywhere has the reconnection grace to come. The
    /// match as `viewer` (one of its players) sees it now, read once for all of that.
    pub async fn start(
        self: &Arc<Self>,
        row: &MatchRow,
        viewer: &str,
    ) -> Result<Option<MatchView>, String> {
        let until = now_ms() + self.clocks.grace_ms;
        for account in [Some(&row.x_id), row.o_id.as_ref().filter(|_| !row.velha)]
            .into_iter()
            .flatten()
        {
            match self.store.away_if_offline(account, until).await {
                Ok(away) => self.presence_changed(away, Some(until)).await,
                Err(e) => tracing::error!(error = %e, "could not read a player's presence"),
            }
        }
        let Some(loaded) = load(self, &row.id).await? else {
            return Err(format!("match {}: not live", row.id));
        };
        Ok(with_live!(loaded, live => {
            let started = live.announce();
            self.publish(started).await;
            self.after_change(&row.id, live.next_wake(), live.velha_to_move());
            live.view_for(viewer)
        }))
    }

    /// After a match changed: when to look at it next, and the Velha's turn.
    fn after_change(self: &Arc<Self>, match_id: &str, wake: Option<i64>, velha: Option<u32>) {
        self.timers.set(match_id, wake);
        if let Some(ply) = velha {
            self.velha_decides(match_id.to_owned(), ply);
        }
    }

    /// The Velha decides her action at `ply` and plays it, unless the match moved on meanwhile.
    fn velha_decides(self: &Arc<Self>, match_id: String, ply: u32) {
        let hub = self.clone();
        tokio::spawn(async move {
            let Ok(Some(Loaded::Cube(live))) = load(&hub, &match_id).await else {
                return;
            };
            if live.velha_to_move() != Some(ply) {
                return;
            }
            let start = Cube::new(live.position().level()).to_string();
            let earlier = match hub.store.positions_of(&match_id, &start).await {
                Ok(positions) => positions.iter().filter_map(|p| p.parse().ok()).collect(),
                Err(e) => {
                    tracing::error!(error = %e, "the Velha cannot read the game");
                    return;
                }
            };
            let Ok(Some(action)) = hub.velha.decide(earlier, *live.position()).await else {
                tracing::error!(%match_id, "the Velha had no action to play");
                return;
            };
            // Read again: the player may have left while she thought.
            if let Ok(Some(Loaded::Cube(mut live))) = load(&hub, &match_id).await
                && live.velha_to_move() == Some(ply)
            {
                live.velha_plays(&action.to_string()).await;
            }
        });
    }

    /// Settles the clocks of a match that ran out. One not due any more was changed since by
    /// another process, which looks after its clock from then on.
    async fn settle(self: &Arc<Self>, match_id: &str) {
        match load(self, match_id).await {
            Ok(Some(loaded)) => with_live!(loaded, live => {
                if live.next_wake().is_some_and(|t| t <= now_ms()) {
                    live.settle().await;
                    self.timers.set(match_id, live.next_wake());
                }
            }),
            Ok(None) => {}
            Err(e) => tracing::error!(error = %e, "a live match cannot be settled"),
        }
    }

    /// Takes up the live matches after a start: their clocks are looked after here until
    /// another process changes them. On SQLite this process is the whole server, and every
    /// player gets the reconnection grace (the restart, not they, dropped the connections); on
    /// PostgreSQL the other processes go on, and a dead one's players are found by the sweeper.
    pub async fn resume(self: &Arc<Self>) -> Result<usize, sqlx::Error> {
        let now = now_ms();
        if self.store.backend() == Backend::Sqlite {
            self.store
                .restart_presence(now + self.clocks.grace_ms)
                .await?;
        }
        self.store.heartbeat(&self.process, now).await?;
        let live = self.store.live_matches().await?;
        for row in &live {
            let wake = row.away.iter().flatten().copied().chain(row.deadline).min();
            // She decides only if it is her turn: `velha_decides` reads the match first.
            let velha = row.velha.then_some(row.ply);
            self.after_change(&row.id, wake, velha);
        }
        if self.store.backend() == Backend::Sqlite {
            for creator in self.store.open_match_creators().await? {
                self.withdraw_if_gone(creator);
            }
        }
        Ok(live.len())
    }

    /// What every process does in the background: listening to the others (PostgreSQL),
    /// saying it is alive, giving up dead processes, and settling matches whose process died.
    pub fn run(self: &Arc<Self>, database_url: &str) {
        tokio::spawn(clock::run(self.clone()));
        if self.store.backend() == Backend::Postgres {
            tokio::spawn(bus::listen(self.clone(), database_url.to_owned()));
        }
        let hub = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(SWEEP);
            let mut rounds = 0u64;
            loop {
                every.tick().await;
                rounds += 1;
                if let Err(e) = hub.sweep(rounds).await {
                    tracing::error!(error = %e, "the sweeper failed; trying again");
                }
            }
        });
    }

    async fn sweep(self: &Arc<Self>, round: u64) -> Result<(), sqlx::Error> {
        let now = now_ms();
        if round.is_multiple_of(HEARTBEAT_EVERY) {
            self.heartbeat(now).await?;
        }
        for id in self.store.overdue_matches(now - SWEEP_LATE_MS, 200).await? {
            self.settle(&id).await;
        }
        if !round.is_multiple_of(HEARTBEAT_EVERY) {
            return Ok(());
        }
        let stuck = now + self.clocks.move_ms - VELHA_STUCK_MS;
        for (id, ply) in self.store.velha_waiting(stuck).await? {
            tracing::warn!(match_id = %id, "the Velha's turn was left waiting; she decides here");
            self.velha_decides(id, ply);
        }
        if round.is_multiple_of(60 * HEARTBEAT_EVERY) {
            self.store.prune_events(now - EVENTS_KEPT_MS).await?;
        }
        Ok(())
    }

    /// Says this process is alive, and gives up the processes that no longer say so.
    async fn heartbeat(self: &Arc<Self>, now: i64) -> Result<(), sqlx::Error> {
        if !self.store.heartbeat(&self.process, now).await? {
            tracing::warn!("this process was given up for dead");
            self.rewrite_presence.store(true, Ordering::Relaxed);
        }
        // Given up for dead while alive (a long pause): say again who is connected here, until
        // all of it is written (a failure tries again at the next heartbeat).
        if self.rewrite_presence.load(Ordering::Relaxed) {
            let accounts: Vec<String> = self.lock().conns.keys().cloned().collect();
            for account in accounts {
                let back = self.store.came_back(&account, &self.process).await?;
                self.presence_changed(back, None).await;
            }
            if self.store.backend() == Backend::Postgres {
                self.rewrite_room_presence().await?;
            }
            self.rewrite_presence.store(false, Ordering::Relaxed);
        }
        let until = now + self.clocks.grace_ms;
        let away = self
            .store
            .bury_dead_processes(now - DEAD_AFTER_MS, until)
            .await?;
        if !away.is_empty() {
            tracing::info!(seats = away.len(), "players of a dead process are away");
            self.presence_changed(away, Some(until)).await;
        }
        Ok(())
    }

    /// Why an action found the match changed by another first.
    async fn conflict(&self, match_id: &str) -> Refusal {
        match self.store.get_match(match_id).await {
            Ok(Some(row)) if row.state == velha_api::MatchState::Live => {
                Refusal::Stale { ply: row.ply }
            }
            Ok(_) => Refusal::NotLive,
            Err(_) => Refusal::Unavailable,
        }
    }

    async fn not_running(&self, account: &str, match_id: &str) -> Refusal {
        match self.store.get_match(match_id).await {
            Ok(Some(m)) if m.x_id == account || m.o_id.as_deref() == Some(account) => {
                Refusal::NotLive
            }
            Ok(_) => Refusal::NoSuchMatch,
            Err(e) => {
                tracing::error!(error = %e, "database error");
                Refusal::Unavailable
            }
        }
    }

    /// A move of `account` in a match.
    pub async fn play(
        self: &Arc<Self>,
        account: &str,
        match_id: &str,
        ply: u32,
        actions: Vec<String>,
    ) -> Result<(), Refusal> {
        match load(self, match_id).await {
            Ok(Some(loaded)) => with_live!(loaded, live => live.play(account, ply, &actions).await),
            Ok(None) => Err(self.not_running(account, match_id).await),
            Err(e) => {
                tracing::error!(error = %e, "a live match cannot be read");
                Err(Refusal::Unavailable)
            }
        }
    }

    /// `account` leaves a match: a loss by abandonment.
    pub async fn leave(self: &Arc<Self>, account: &str, match_id: &str) -> Result<(), Refusal> {
        match load(self, match_id).await {
            Ok(Some(loaded)) => with_live!(loaded, live => live.leave(account).await),
            Ok(None) => Err(self.not_running(account, match_id).await),
            Err(e) => {
                tracing::error!(error = %e, "a live match cannot be read");
                Err(Refusal::Unavailable)
            }
        }
    }

    /// A match just read as `account` sees it, with its clocks now; None if it is not live or
    /// not theirs.
    pub async fn view_of(self: &Arc<Self>, account: &str, row: MatchRow) -> Option<MatchView> {
        match from_row(self, row).await {
            Ok(Some(loaded)) => with_live!(loaded, live => live.view_for(account)),
            _ => None,
        }
    }
}

/// A deleted player's abandoned matches as events: read from the row, or told as they ended
/// when the row went with the player's group.
fn abandoned(ended: &[crate::store::Abandoned]) -> Vec<Event> {
    ended
        .iter()
        .map(|a| {
            if !a.gone {
                return Event::Ended {
                    match_id: a.match_id.clone(),
                    players: a.players.clone(),
                };
            }
            Event::Players {
                to: a
                    .players
                    .iter()
                    .filter(|p| !p.is_empty())
                    .cloned()
                    .collect(),
                msg: ServerMsg::Ended {
                    match_id: a.match_id.clone(),
                    ending: Ending {
                        winner: Some(a.winner),
                        how: EndHow::Abandonment,
                    },
                    position: a.position.clone(),
                    scored: None,
                    ratings: None,
                },
            }
        })
        .collect()
}
