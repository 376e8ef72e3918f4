//! A process's connections of signed-in players: registering and forgetting them, one
//! player's presence across processes (and the reconnection grace it starts), and sending
//! them messages.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::{Notify, mpsc};
use velha_api::{ErrorCode, ServerMsg};

use super::Hub;
use super::bus::{self, Event};
use crate::store::{Backend, SeatChange};
use crate::token::now_ms;

/// Messages waiting for one slow connection; past this it is closed rather than let grow.
const OUTBOX: usize = 512;
/// Connections one player may hold at once (phone, tablet, a few tabs); a new one past it
/// closes the oldest, so no client can make the server hold connections without end.
pub const MAX_CONNECTIONS_PER_PLAYER: usize = 8;

pub(super) struct Conn {
    pub(super) id: u64,
    /// The id of the session it signed in with (`token::session_id`).
    pub(super) session: String,
    pub(super) tx: mpsc::Sender<Outgoing>,
    pub(super) close: Arc<Notify>,
}

/// A message on its way to a connection: shared by a player's connections, and small in the
/// outbox, whose first block of slots every connection holds even when idle (32 messages of
/// 200 bytes were 6 KiB a connection).
pub type Outgoing = Arc<ServerMsg>;

/// A registered connection: where its messages arrive and the signal to close it.
pub struct ConnHandle {
    /// Its number.
    pub id: u64,
    /// Messages to send to the client.
    pub rx: mpsc::Receiver<Outgoing>,
    /// Sends to this connection alone (answers to its own requests).
    pub tx: mpsc::Sender<Outgoing>,
    /// Fires when the server gives up on a connection that does not read.
    pub close: Arc<Notify>,
}

/// Players whose presence changes wait on one of these locks, so that one player's
/// connections coming and going are written in the order they happened.
pub(super) const PRESENCE_LOCKS: usize = 64;

impl Hub {
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
                let _ = oldest.tx.try_send(Arc::new(ServerMsg::Error {
                    code: ErrorCode::Conflict,
                    message: format!(
                        "more than {MAX_CONNECTIONS_PER_PLAYER} connections: this, the oldest, is closed"
                    ),
                }));
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
        // A stopping process keeps its players present while they come back elsewhere
        // (`Hub::hand_over`): their opponents should not see them leave for a deploy.
        if last && !(self.drain.is_on() && self.store.backend() == Backend::Postgres) {
            let until = now_ms() + self.clocks.grace_ms;
            match self.store.went_away(account, &self.process, until).await {
                Ok(away) => self.presence_changed(away, Some(until)).await,
                Err(e) => tracing::error!(error = %e, "could not record a player's departure"),
            }
            self.withdraw_if_gone(account.to_owned());
        }
    }

    /// Tells both players of each match that a seat is away until `until`, or back (`None`).
    pub(super) async fn presence_changed(
        self: &Arc<Self>,
        changes: Vec<SeatChange>,
        until: Option<i64>,
    ) {
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

    /// Sessions of `account` ended: their live connections, on every process, are told and
    /// closed (a session's socket lives no longer than the session).
    pub async fn signed_out(self: &Arc<Self>, account: &str, sessions: bus::Ended) {
        self.publish(vec![Event::SignedOut {
            account: account.to_owned(),
            sessions,
        }])
        .await;
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
    pub(super) fn send_to(&self, account: &str, msg: &ServerMsg) {
        let state = self.lock();
        // Most players a process hears of are connected to another one: nothing to copy.
        let Some(conns) = state.conns.get(account) else {
            return;
        };
        let msg = Arc::new(msg.clone());
        for conn in conns {
            if conn.tx.try_send(msg.clone()).is_err() {
                tracing::warn!(%account, conn = conn.id, "closing a connection that does not read");
                conn.close.notify_one();
            }
        }
    }

    pub(super) fn holds_any(&self, accounts: &[String]) -> bool {
        let state = self.lock();
        accounts.iter().any(|a| state.conns.contains_key(a))
    }
}
