//! Live matches (online.md ON-M02 … ON-M05): one task per match owns its position and clocks;
//! every move is checked by velha-rules, committed, and only then acknowledged and sent to
//! both players (`task.rs`). The hub, here, knows who is connected and routes messages.

mod game;
mod lobby_watch;
mod matchmaker;
mod rooms;
mod task;
mod velha_pool;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, mpsc, oneshot};
use velha_api::{ErrorCode, MatchGame, MatchView, OpenMatch, Refusal, ServerMsg};
use velha_rules::room::{self, Board, RoomGame};
use velha_rules::{Cube, Player, Ultimate, Variant};

use crate::store::{LobbyList, MatchRow, Store};
use crate::token::now_ms;
use game::LiveGame;
use lobby_watch::Watches;
pub use matchmaker::{pair_waiting, run as run_matchmaker};
pub use rooms::{RoomWatch, RoomWatches};
use task::{Actor, Cmd};
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

#[derive(Default)]
struct HubState {
    conns: HashMap<String, Vec<Conn>>,
    /// When each player without a connection lost their last one.
    gone_since: HashMap<String, i64>,
    actors: HashMap<String, mpsc::UnboundedSender<Cmd>>,
    playing: HashMap<String, HashSet<String>>,
    lobby: Watches,
}

/// Connections and live matches of this process.
pub struct Hub {
    store: Store,
    clocks: Clocks,
    velha: VelhaPool,
    /// Who watches each invitation room.
    pub rooms: RoomWatches,
    state: Mutex<HubState>,
    next_conn: AtomicU64,
}

impl Hub {
    /// A hub over this store.
    pub fn new(store: Store, clocks: Clocks, velha: VelhaPool) -> Arc<Hub> {
        Arc::new(Hub {
            store,
            clocks,
            velha,
            rooms: RoomWatches::default(),
            state: Mutex::new(HubState::default()),
            next_conn: AtomicU64::new(1),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HubState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a connection of `account`; its live matches learn the player is back.
    pub fn connect(&self, account: &str) -> ConnHandle {
        let (tx, rx) = mpsc::channel(OUTBOX);
        let close = Arc::new(Notify::new());
        let id = self.next_conn.fetch_add(1, Ordering::Relaxed);
        let mut state = self.lock();
        state.gone_since.remove(account);
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
            tx: tx.clone(),
            close: close.clone(),
        });
        if conns.len() == 1 {
            Self::tell_matches(&state, account, true);
        }
        ConnHandle { id, rx, tx, close }
    }

    fn tell_matches(state: &HubState, account: &str, online: bool) {
        for m in state.playing.get(account).into_iter().flatten() {
            if let Some(actor) = state.actors.get(m) {
                let _ = actor.send(Cmd::Presence {
                    account: account.to_owned(),
                    online,
                });
            }
        }
    }

    /// Forgets a connection. When it was the player's last, their live matches start the
    /// reconnection grace, and their open matches leave the lobby if they do not come back.
    pub fn disconnect(self: &Arc<Self>, account: &str, conn: u64) {
        let mut state = self.lock();
        let Some(conns) = state.conns.get_mut(account) else {
            return;
        };
        conns.retain(|c| c.id != conn);
        let last = conns.is_empty();
        state.lobby.unwatch(conn);
        if last {
            state.conns.remove(account);
            state.gone_since.insert(account.to_owned(), now_ms());
            Self::tell_matches(&state, account, false);
            drop(state);
            self.withdraw_if_gone(account.to_owned());
        }
    }

    /// A waiting creator who does not come back within the grace time is no longer waiting:
    /// their open matches leave the lobby, so nobody joins a match without an opponent.
    pub fn withdraw_if_gone(self: &Arc<Self>, account: String) {
        let hub = self.clone();
        tokio::spawn(async move {
            let grace = hub.clocks.grace_ms;
            tokio::time::sleep(Duration::from_millis(grace as u64)).await;
            let gone = {
                let mut state = hub.lock();
                let since = state.gone_since.get(&account).copied();
                // Gone again after coming back: the later disconnection's own check decides.
                let gone_long = since.is_none_or(|t| now_ms() - t >= grace);
                if gone_long {
                    state.gone_since.remove(&account);
                }
                gone_long && !state.conns.contains_key(&account)
            };
            if gone {
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
                            hub.lobby_closed(&id, &list);
                        }
                    }
                    Err(e) => tracing::error!(error = %e, "could not withdraw open matches"),
                }
            }
        });
    }

    /// Connection `conn` of a player from `country` watches this lobby list from now on; the
    /// changes meanwhile wait for [`Hub::lobby_snapshot`].
    pub fn watch_lobby(
        &self,
        conn: u64,
        list: LobbyList,
        country: &str,
        tx: mpsc::Sender<ServerMsg>,
        close: Arc<Notify>,
    ) {
        self.lock().lobby.watch(conn, list, country, tx, close);
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

    /// A match opened: the watchers of its list hear of it.
    pub fn lobby_opened(&self, open: &OpenMatch) {
        self.lock().lobby.opened(open);
    }

    /// A match left the lobby (started or withdrawn): the watchers of its list hear of it.
    pub fn lobby_closed(&self, id: &str, list: &LobbyList) {
        self.lock().lobby.closed(id, list);
    }

    /// Whether the player has a connection open.
    pub fn is_online(&self, account: &str) -> bool {
        self.lock().conns.contains_key(account)
    }

    /// Sends to every connection of a player; a connection that stopped reading is closed.
    pub fn send_to(&self, account: &str, msg: &ServerMsg) {
        let state = self.lock();
        for conn in state.conns.get(account).into_iter().flatten() {
            if conn.tx.try_send(msg.clone()).is_err() {
                tracing::warn!(%account, conn = conn.id, "closing a connection that does not read");
                conn.close.notify_one();
            }
        }
    }

    /// Starts the task of a live match: a new one (both players are told) or one resumed
    /// after a restart.
    pub fn start(self: &Arc<Self>, row: &MatchRow, resumed: bool) -> Result<(), String> {
        // The Velha has no account: her seat is nobody's connection.
        let o_id = match (&row.o_id, row.velha) {
            (_, true) => String::new(),
            (Some(o), false) => o.clone(),
            (None, false) => return Err("a live match without O".into()),
        };
        match row.game {
            MatchGame::Cube => {
                let cube: Cube = row
                    .position
                    .parse()
                    .map_err(|e| format!("match {}: stored position unreadable: {e}", row.id))?;
                self.spawn(row, o_id, cube, resumed)
            }
            MatchGame::V2 if row.ply == 0 => {
                self.spawn(row, o_id, Ultimate::new(Variant::V2, Player::X), resumed)
            }
            MatchGame::V2 => Err(format!(
                "match {}: a 2.0 match under way resumes from its moves",
                row.id
            )),
        }
    }

    /// A 2.0 match's position rebuilt from its stored moves by the rules: its state line does
    /// not hold the lost turns in a row (V2-R05), the moves do.
    async fn v2_position(&self, row: &MatchRow) -> Result<Ultimate, String> {
        let moves = self
            .store
            .moves_of(&row.id)
            .await
            .map_err(|e| format!("match {}: moves unreadable: {e}", row.id))?;
        let actions: Vec<(Player, &str)> = moves
            .iter()
            .map(|(_, seat, action)| (task::player(*seat), action.as_str()))
            .collect();
        let replayed = room::replay_game(RoomGame::V2, Player::X, &actions)
            .map_err(|e| format!("match {}: moves do not replay: {e}", row.id))?;
        match replayed.boards.last() {
            Some(Board::Ultimate(u)) => Ok(*u),
            _ => Err(format!("match {}: not a 2.0 game", row.id)),
        }
    }

    fn spawn<G: LiveGame>(
        self: &Arc<Self>,
        row: &MatchRow,
        o_id: String,
        position: G,
        resumed: bool,
    ) -> Result<(), String> {
        let deadline = row
            .deadline
            .ok_or_else(|| format!("match {}: live without a deadline", row.id))?;
        let (tx, rx) = mpsc::unbounded_channel();
        let ids = [row.x_id.clone(), o_id];
        let online = {
            let mut state = self.lock();
            state.actors.insert(row.id.clone(), tx);
            for id in ids.iter().filter(|id| !id.is_empty()) {
                state
                    .playing
                    .entry(id.clone())
                    .or_default()
                    .insert(row.id.clone());
            }
            [
                state.conns.contains_key(&ids[0]),
                row.velha || state.conns.contains_key(&ids[1]),
            ]
        };
        let now = now_ms();
        let away = online.map(|on| (!on).then_some(now + self.clocks.grace_ms));
        let actor = Actor::new(self.clone(), row, ids, position, deadline, away);
        if !resumed {
            actor.announce();
        }
        tokio::spawn(actor.run(rx));
        Ok(())
    }

    /// Resumes every live match after a start: overdue clocks are settled at once, and both
    /// players get the reconnection grace (the server, not they, dropped the connections).
    pub async fn resume(self: &Arc<Self>) -> Result<usize, sqlx::Error> {
        let live = self.store.live_matches().await?;
        for row in &live {
            let resumed = match row.game {
                MatchGame::V2 if row.ply > 0 => match self.v2_position(row).await {
                    Ok(position) => {
                        let o_id = row.o_id.clone().unwrap_or_default();
                        self.spawn(row, o_id, position, true)
                    }
                    Err(e) => Err(e),
                },
                _ => self.start(row, true),
            };
            if let Err(e) = resumed {
                tracing::error!(error = %e, "a live match cannot be resumed");
            }
        }
        for creator in self.store.open_match_creators().await? {
            self.withdraw_if_gone(creator);
        }
        Ok(live.len())
    }

    fn actor(&self, match_id: &str) -> Option<mpsc::UnboundedSender<Cmd>> {
        self.lock().actors.get(match_id).cloned()
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
        &self,
        account: &str,
        match_id: &str,
        ply: u32,
        actions: Vec<String>,
    ) -> Result<(), Refusal> {
        self.act(account, match_id, |account, reply| Cmd::Play {
            account,
            ply,
            actions,
            reply,
        })
        .await
    }

    /// `account` leaves a match: a loss by abandonment.
    pub async fn leave(&self, account: &str, match_id: &str) -> Result<(), Refusal> {
        self.act(account, match_id, |account, reply| Cmd::Leave {
            account,
            reply,
        })
        .await
    }

    /// Sends a player's command to the match's task and waits for its answer.
    async fn act(
        &self,
        account: &str,
        match_id: &str,
        cmd: impl FnOnce(String, oneshot::Sender<Result<(), Refusal>>) -> Cmd,
    ) -> Result<(), Refusal> {
        let Some(actor) = self.actor(match_id) else {
            return Err(self.not_running(account, match_id).await);
        };
        let (reply, answer) = oneshot::channel();
        if actor.send(cmd(account.to_owned(), reply)).is_err() {
            return Err(Refusal::NotLive);
        }
        answer.await.unwrap_or(Err(Refusal::NotLive))
    }

    /// A live match as `account` sees it, with its clocks now; None if not live here or not
    /// theirs.
    pub async fn view(&self, account: &str, match_id: &str) -> Option<MatchView> {
        let actor = self.actor(match_id)?;
        let (reply, answer) = oneshot::channel();
        actor
            .send(Cmd::View {
                account: account.to_owned(),
                reply,
            })
            .ok()?;
        answer.await.ok().flatten()
    }

    fn finished(&self, match_id: &str, ids: &[String; 2]) {
        let mut state = self.lock();
        state.actors.remove(match_id);
        for id in ids {
            if let Some(set) = state.playing.get_mut(id) {
                set.remove(match_id);
                if set.is_empty() {
                    state.playing.remove(id);
                }
            }
        }
    }

    /// How many matches this process is running.
    pub fn live_count(&self) -> usize {
        self.lock().actors.len()
    }
}
