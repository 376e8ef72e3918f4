//! Connections watching a lobby list (ON-M01, ON-M02): each hears of matches opening and
//! closing in its list as they happen, instead of asking again and again.
//!
//! A new watch first collects what happens while its snapshot is read from the database, and
//! sends those changes right after the snapshot: the app applies them on top (adding what it
//! lacks, removing what it has), so nothing that happened in between is lost.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::{Notify, mpsc};
use velha_api::{OpenMatch, Scope, ServerMsg};

/// Changes held for one watch while its snapshot is read; past this the snapshot is read
/// again rather than the list grown.
const HELD: usize = 64;

struct Watch {
    scope: Scope,
    level: u8,
    /// The watcher's country: a Nacional list shows only matches of that country.
    country: String,
    tx: mpsc::Sender<ServerMsg>,
    close: Arc<Notify>,
    /// Changes waiting for the snapshot (`None` once it is sent); `Err` when too many came.
    held: Option<Result<Vec<ServerMsg>, ()>>,
}

/// Every watch of this process, by connection.
#[derive(Default)]
pub struct Watches(HashMap<u64, Watch>);

impl Watches {
    /// Connection `conn` watches this list from now on (replacing its last watch); its
    /// changes are held until [`Watches::snapshot`].
    pub fn watch(
        &mut self,
        conn: u64,
        (scope, level): (Scope, u8),
        country: &str,
        tx: mpsc::Sender<ServerMsg>,
        close: Arc<Notify>,
    ) {
        self.0.insert(
            conn,
            Watch {
                scope,
                level,
                country: country.to_owned(),
                tx,
                close,
                held: Some(Ok(Vec::new())),
            },
        );
    }

    /// Sends the list as read since [`Watches::watch`], then the changes held meanwhile.
    /// `false` when too many changes came to hold: read the list again and call this again.
    pub fn snapshot(&mut self, conn: u64, snapshot: ServerMsg) -> bool {
        let Some(watch) = self.0.get_mut(&conn) else {
            return true;
        };
        match watch.held.take() {
            Some(Err(())) => {
                watch.held = Some(Ok(Vec::new()));
                false
            }
            Some(Ok(held)) => {
                for msg in std::iter::once(snapshot).chain(held) {
                    deliver(watch, msg);
                }
                true
            }
            None => true,
        }
    }

    /// The connection stops watching (it asked, or it closed).
    pub fn unwatch(&mut self, conn: u64) {
        self.0.remove(&conn);
    }

    /// A match opened: the connections watching its list hear of it.
    pub fn opened(&mut self, open: &OpenMatch) {
        for watch in self.0.values_mut() {
            let country_ok = open.scope == Scope::Mundial || watch.country == open.country;
            if watch.scope == open.scope && watch.level == open.level && country_ok {
                tell(watch, ServerMsg::LobbyOpened { open: open.clone() });
            }
        }
    }

    /// A match left the lobby: the connections watching its list hear of it.
    pub fn closed(&mut self, id: &str, scope: Scope, level: u8) {
        for watch in self.0.values_mut() {
            if watch.scope == scope && watch.level == level {
                tell(watch, ServerMsg::LobbyClosed { id: id.to_owned() });
            }
        }
    }
}

fn tell(watch: &mut Watch, msg: ServerMsg) {
    match &mut watch.held {
        Some(Ok(held)) if held.len() < HELD => held.push(msg),
        Some(held) => *held = Err(()),
        None => deliver(watch, msg),
    }
}

/// A connection that does not read its messages is closed, as everywhere in the hub.
fn deliver(watch: &Watch, msg: ServerMsg) {
    if watch.tx.try_send(msg).is_err() {
        watch.close.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(id: &str, scope: Scope, country: &str) -> OpenMatch {
        OpenMatch {
            id: id.into(),
            creator: "ana".into(),
            country: country.into(),
            scope,
            level: 2,
            waiting_ms: 0,
        }
    }

    fn drain(rx: &mut mpsc::Receiver<ServerMsg>) -> Vec<ServerMsg> {
        std::iter::from_fn(|| rx.try_recv().ok()).collect()
    }

    #[test]
    fn on_m01_changes_during_the_snapshot_follow_it_and_nacional_stays_national() {
        let mut watches = Watches::default();
        let (tx, mut rx) = mpsc::channel(16);
        let close = Arc::new(Notify::new());
        watches.watch(1, (Scope::Nacional, 2), "BR", tx, close);
        watches.opened(&open("a", Scope::Nacional, "BR"));
        watches.opened(&open("b", Scope::Nacional, "PT"));
        watches.opened(&open("c", Scope::Mundial, "BR"));
        assert!(drain(&mut rx).is_empty(), "held until the snapshot");
        let snapshot = ServerMsg::Lobby {
            scope: Scope::Nacional,
            level: 2,
            matches: vec![],
        };
        assert!(watches.snapshot(1, snapshot.clone()));
        assert_eq!(
            drain(&mut rx),
            vec![
                snapshot,
                ServerMsg::LobbyOpened {
                    open: open("a", Scope::Nacional, "BR")
                }
            ]
        );
        watches.closed("a", Scope::Nacional, 2);
        watches.closed("x", Scope::Nacional, 1);
        assert_eq!(
            drain(&mut rx),
            vec![ServerMsg::LobbyClosed { id: "a".into() }]
        );
        watches.unwatch(1);
        watches.opened(&open("d", Scope::Nacional, "BR"));
        assert!(drain(&mut rx).is_empty(), "no longer watching");
    }

    #[test]
    fn too_many_changes_during_a_snapshot_ask_for_it_again_and_memory_stays_bounded() {
        let mut watches = Watches::default();
        let (tx, mut rx) = mpsc::channel(256);
        watches.watch(7, (Scope::Mundial, 1), "BR", tx, Arc::new(Notify::new()));
        for i in 0..HELD + 10 {
            watches.closed(&i.to_string(), Scope::Mundial, 1);
        }
        let snapshot = ServerMsg::Lobby {
            scope: Scope::Mundial,
            level: 1,
            matches: vec![],
        };
        assert!(!watches.snapshot(7, snapshot.clone()), "read again");
        assert!(drain(&mut rx).is_empty());
        assert!(watches.snapshot(7, snapshot.clone()));
        assert_eq!(drain(&mut rx), vec![snapshot]);
    }
}
