//! How the processes of one server tell each other what happened (docs/deploy.md): every
//! change a connection must hear of is an [`Event`]. The process that made an event delivers
//! it to its own connections once the change is committed. On PostgreSQL the event is also
//! written in that transaction and announced with `NOTIFY` once it committed
//! (`store/announcer.rs`), and every other process delivers it to the connections it holds
//! (the maker knows the id, and skips its own). An event too large for `NOTIFY` is read from
//! the database by its id; after the listening connection is lost, after a process is given
//! up, and after notifications were dropped, the events of the gap are read back from the
//! database.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::postgres::PgListener;
use velha_api::{Ending, ErrorCode, OpenMatch, RoomView, ServerMsg};

use super::Hub;
use crate::store::{Backend, CATCH_UP, CHANNEL, LobbyList};
use crate::token::{new_ordered_id, now_ms};

/// Something connections must hear of.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A message for every connection of these players.
    Players {
        /// Account ids.
        to: Vec<String>,
        /// The message.
        msg: ServerMsg,
    },
    /// A match ended: its ending, score and ratings are read from the database once it is
    /// committed, and sent to both players.
    Ended {
        /// The match.
        match_id: String,
        /// Its players (the Velha's seat is empty).
        players: [String; 2],
    },
    /// A match opened in a lobby list.
    LobbyOpened {
        /// The match.
        open: OpenMatch,
    },
    /// A match left a lobby list.
    LobbyClosed {
        /// The match.
        id: String,
        /// Which list.
        list: LobbyList,
    },
    /// A group's participants or invitations changed, or it was finalized.
    Group {
        /// The group.
        group: String,
        /// Who takes part in it now.
        members: Vec<String>,
        /// Who does not (any more, or yet): their watches of its lobby end.
        others: Vec<String>,
        /// Whether it was finalized.
        finalized: bool,
    },
    /// Sessions of an account ended (signed out from another device, a new password): their
    /// live connections are told and closed.
    SignedOut {
        /// The account.
        account: String,
        /// Which of its sessions.
        sessions: Ended,
    },
    /// A room changed (everyone watching it gets it, with their own seat).
    Room {
        /// The room as it is now.
        room: RoomView,
        /// Its version (changes so far): an older one arriving late is not sent.
        version: i64,
    },
}

/// Which sessions of an account ended, by their ids (`token::session_id`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// These.
    These(Vec<String>),
    /// Every one but this one (none: every one).
    AllBut(Option<String>),
}

impl Ended {
    /// Whether the session `id` is one of them.
    pub fn holds(&self, id: &str) -> bool {
        match self {
            Ended::These(ids) => ids.iter().any(|e| e == id),
            Ended::AllBut(kept) => kept.as_deref() != Some(id),
        }
    }
}

/// How long a catching-up process reads back before it lost its listening connection:
/// transactions commit in a slightly different order than they recorded their events.
const CATCH_UP_MARGIN_MS: i64 = 5_000;
/// Event ids remembered to deliver each once (NOTIFY and catching up may both bring one).
const REMEMBERED: usize = 65_536;

/// The ids of the events delivered lately, the oldest forgotten first.
#[derive(Default)]
pub struct Delivered {
    order: VecDeque<String>,
    ids: HashSet<String>,
}

impl Delivered {
    /// Whether `id` is new (and remembers it).
    pub fn first_time(&mut self, id: &str) -> bool {
        if self.ids.contains(id) {
            return false;
        }
        if self.order.len() == REMEMBERED
            && let Some(old) = self.order.pop_front()
        {
            self.ids.remove(&old);
        }
        self.order.push_back(id.to_owned());
        self.ids.insert(id.to_owned());
        true
    }
}

/// Serializes events for storage and `NOTIFY`, each with a new id: (id, payload).
pub fn encode(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match serde_json::to_string(e) {
            // Ordered: its time says how long it took to reach the other processes.
            Ok(text) => Some((new_ordered_id(now_ms()), text)),
            Err(e) => {
                tracing::error!(error = %e, "an event could not be written");
                None
            }
        })
        .collect()
}

/// Listens to the other processes for as long as the server runs (PostgreSQL only).
pub async fn listen(hub: Arc<Hub>, url: String) {
    // When the listening connection was lost: the events since then are read back.
    let mut lost_at: Option<i64> = None;
    loop {
        let mut listener = match connect(&url).await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen to the other processes; retrying");
                lost_at.get_or_insert_with(now_ms);
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        if let Some(at) = lost_at.take() {
            match catch_up(&hub, at).await {
                Ok(n) => tracing::info!(events = n, "listening again; caught up from the database"),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot catch up; retrying");
                    lost_at = Some(at);
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            }
        }
        loop {
            match listener.try_recv().await {
                Ok(Some(note)) => {
                    if let Some(since) = note.payload().strip_prefix(CATCH_UP) {
                        // A process was given up, or a notification was dropped.
                        if let Ok(since) = since.parse::<i64>()
                            && let Err(e) = catch_up(&hub, since).await
                        {
                            tracing::warn!(error = %e, "cannot catch up; listening again");
                            lost_at = Some(since);
                            break;
                        }
                        continue;
                    }
                    let (id, inline) = match note.payload().split_once('\n') {
                        Some((id, payload)) => (id, Some(payload)),
                        None => (note.payload(), None),
                    };
                    if !hub.first_time(id) {
                        continue;
                    }
                    if let Some(sent) = crate::token::time_of(id) {
                        let lag = (now_ms() - sent).max(0) as f64 / 1000.0;
                        metrics::histogram!(crate::metrics::NOTIFY_SECONDS).record(lag);
                    }
                    match inline {
                        Some(payload) => deliver(&hub, payload).await,
                        None => match hub.store.event(id).await {
                            Ok(Some(payload)) => deliver(&hub, &payload).await,
                            Ok(None) => tracing::warn!(%id, "an announced event is gone"),
                            Err(e) => tracing::error!(error = %e, %id, "cannot read an event"),
                        },
                    }
                }
                Ok(None) | Err(_) => {
                    tracing::warn!("lost the connection listening to the other processes");
                    lost_at = Some(now_ms());
                    break;
                }
            }
        }
    }
}

/// Delivers the events recorded since `at` (ms, less a margin) that were not delivered here;
/// answers how many were read.
async fn catch_up(hub: &Arc<Hub>, at: i64) -> Result<usize, sqlx::Error> {
    let events = hub.store.events_since(at - CATCH_UP_MARGIN_MS).await?;
    let n = events.len();
    for (id, payload) in events {
        if hub.first_time(&id) {
            deliver(hub, &payload).await;
        }
    }
    Ok(n)
}

async fn connect(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}

async fn deliver(hub: &Arc<Hub>, payload: &str) {
    match serde_json::from_str::<Event>(payload) {
        Ok(event) => hub.deliver(event).await,
        Err(e) => tracing::error!(error = %e, "an event could not be read"),
    }
}

impl Hub {
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
    pub(super) fn encode(&self, events: &[Event]) -> Vec<(String, String)> {
        if self.store.backend() != Backend::Postgres {
            return Vec::new();
        }
        let encoded = encode(events);
        for (id, _) in &encoded {
            self.first_time(id);
        }
        encoded
    }

    /// Tells every process (this one too) of events that change nothing stored.
    pub(super) async fn publish(self: &Arc<Self>, events: Vec<Event>) {
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
    pub(super) async fn committed(self: &Arc<Self>, events: Vec<Event>) {
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
                                position: crate::view::wire_position(row.game, &row.position),
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
                let signed_out = Arc::new(ServerMsg::Error {
                    code: ErrorCode::Unauthorized,
                    message: "this session was signed out; sign in again".into(),
                });
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_event_is_delivered_once_and_memory_stays_bounded() {
        let mut d = Delivered::default();
        assert!(d.first_time("a"));
        assert!(!d.first_time("a"));
        for i in 0..REMEMBERED + 10 {
            d.first_time(&i.to_string());
        }
        assert_eq!(d.order.len(), REMEMBERED);
        assert_eq!(d.ids.len(), REMEMBERED);
        // The oldest were forgotten, the newest are still known.
        assert!(d.first_time("a"));
        assert!(!d.first_time(&(REMEMBERED + 9).to_string()));
    }
}
