//! Connections watching a lobby list (ON-M01, ON-M02): each hears of matches opening and
//! closing in its list as they happen, instead of asking again and again.
//!
//! A new watch first collects what happens while its snapshot is read from the database, and
//! sends those changes right after the snapshot: the app applies them on top (adding what it
//! lacks, removing what it has), so nothing that happened in between is lost.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use tokio::sync::{Notify, mpsc};
use velha_api::{OpenMatch, Scope, ServerMsg};

use super::Hub;
use super::bus::Event;
use super::connections::Outgoing;
use crate::store::{AccountRow, LobbyList};

/// Changes held for one watch while its snapshot is read; past this the snapshot is read
/// again rather than the list grown.
const HELD: usize = 64;

struct Watch {
    list: LobbyList,
    /// Whose connection it is: a group's list is watched only while they take part in it.
    account: String,
    /// The watcher's country: a Nacional list shows only matches of that country.
    country: String,
    tx: mpsc::Sender<Outgoing>,
    close: Arc<Notify>,
    /// Changes waiting for the snapshot (`None` once it is sent); `Err` when too many came.
    held: Option<Result<Vec<ServerMsg>, ()>>,
}

/// Matches that left the lobby lately, remembered to ignore their opening should it arrive
/// after: processes announce their events each in its own order (`store/announcer.rs`).
const CLOSED_KEPT: usize = 4096;

/// Every watch of this process, by connection, and the matches that left the lobby lately.
#[derive(Default)]
pub struct Watches(HashMap<u64, Watch>, Closed);

/// The ids of the matches that left the lobby lately, the oldest forgotten first.
#[derive(Default)]
struct Closed {
    order: VecDeque<String>,
    ids: HashSet<String>,
}

impl Watches {
    /// Connection `conn` watches this list from now on (replacing its last watch); its
    /// changes are held until [`Watches::snapshot`].
    pub fn watch(
        &mut self,
        conn: u64,
        list: LobbyList,
        account: &AccountRow,
        tx: mpsc::Sender<Outgoing>,
        close: Arc<Notify>,
    ) {
        self.0.insert(
            conn,
            Watch {
                list,
                account: account.id.clone(),
                country: account.country.clone(),
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

    /// These players no longer take part in `group` (or never did): their watches of its
    /// list end. The connection hears of it from [`ServerMsg::GroupChanged`].
    pub fn left(&mut self, group: &str, accounts: &[String]) {
        self.0.retain(|_, w| {
            w.list.group.as_deref() != Some(group) || !accounts.contains(&w.account)
        });
    }

    /// A match opened: the connections watching its list hear of it.
    pub fn opened(&mut self, open: &OpenMatch) {
        if self.1.ids.contains(&open.id) {
            return;
        }
        for watch in self.0.values_mut() {
            let country_ok = open.group.is_some()
                || open.scope == Scope::Mundial
                || watch.country == open.country;
            if watch
                .list
                .holds(open.scope, open.level, open.group.as_deref())
                && country_ok
            {
                tell(watch, ServerMsg::LobbyOpened { open: open.clone() });
            }
        }
    }

    /// A match left the lobby: the connections watching its list hear of it.
    pub fn closed(&mut self, id: &str, list: &LobbyList) {
        let closed = &mut self.1;
        if closed.ids.insert(id.to_owned()) {
            closed.order.push_back(id.to_owned());
            if closed.order.len() > CLOSED_KEPT
                && let Some(old) = closed.order.pop_front()
            {
                closed.ids.remove(&old);
            }
        }
        for watch in self.0.values_mut() {
            if watch
                .list
                .holds(list.scope, list.level, list.group.as_deref())
            {
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
    if watch.tx.try_send(Arc::new(msg)).is_err() {
        watch.close.notify_one();
    }
}

impl Hub {
    /// Connection `conn` of `account` watches this lobby list from now on; the
    /// changes meanwhile wait for [`Hub::lobby_snapshot`].
    pub fn watch_lobby(
        &self,
        conn: u64,
        list: LobbyList,
        account: &AccountRow,
        tx: mpsc::Sender<Outgoing>,
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
            group: None,
        }
    }

    fn list(scope: Scope, level: u8, group: Option<&str>) -> LobbyList {
        LobbyList {
            scope,
            level,
            group: group.map(Into::into),
        }
    }

    fn player(id: &str, country: &str) -> AccountRow {
        AccountRow {
            id: id.into(),
            name: id.into(),
            email: None,
            password_hash: None,
            google_sub: None,
            country: country.into(),
            country_chosen: false,
            subscribed_until: None,
            email_verified_at: None,
            ban_reason: None,
            renamed_from: None,
        }
    }

    fn drain(rx: &mut mpsc::Receiver<Outgoing>) -> Vec<ServerMsg> {
        std::iter::from_fn(|| rx.try_recv().ok())
            .map(Arc::unwrap_or_clone)
            .collect()
    }

    #[test]
    fn on_m01_a_matchs_opening_arriving_after_it_left_is_not_shown() {
        let mut watches = Watches::default();
        let (tx, mut rx) = mpsc::channel(16);
        watches.watch(
            1,
            list(Scope::Mundial, 2, None),
            &player("ana", "BR"),
            tx,
            Arc::new(Notify::new()),
        );
        let snapshot = ServerMsg::Lobby {
            scope: Scope::Mundial,
            level: 2,
            group: None,
            matches: vec![],
        };
        assert!(watches.snapshot(1, snapshot));
        drain(&mut rx);
        let mundial = list(Scope::Mundial, 2, None);
        watches.closed("late", &mundial);
        watches.opened(&open("late", Scope::Mundial, "BR"));
        watches.opened(&open("new", Scope::Mundial, "BR"));
        let ids: Vec<String> = drain(&mut rx)
            .into_iter()
            .map(|m| match m {
                ServerMsg::LobbyClosed { id } => format!("closed {id}"),
                ServerMsg::LobbyOpened { open } => format!("opened {}", open.id),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(ids, ["closed late", "opened new"]);
        // Only the latest are remembered: an id closed long ago may open again.
        for i in 0..CLOSED_KEPT {
            watches.closed(&i.to_string(), &mundial);
        }
        assert_eq!(watches.1.ids.len(), CLOSED_KEPT);
        assert!(!watches.1.ids.contains("late"));
    }

    #[test]
    fn on_m01_changes_during_the_snapshot_follow_it_and_nacional_stays_national() {
        let mut watches = Watches::default();
        let (tx, mut rx) = mpsc::channel(16);
        let close = Arc::new(Notify::new());
        watches.watch(
            1,
            list(Scope::Nacional, 2, None),
            &player("ana", "BR"),
            tx,
            close,
        );
        watches.opened(&open("a", Scope::Nacional, "BR"));
        watches.opened(&open("b", Scope::Nacional, "PT"));
        watches.opened(&open("c", Scope::Mundial, "BR"));
        assert!(drain(&mut rx).is_empty(), "held until the snapshot");
        let snapshot = ServerMsg::Lobby {
            scope: Scope::Nacional,
            level: 2,
            group: None,
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
        watches.closed("a", &list(Scope::Nacional, 2, None));
        watches.closed("x", &list(Scope::Nacional, 1, None));
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
        let watching = list(Scope::Mundial, 1, None);
        watches.watch(
            7,
            watching.clone(),
            &player("ana", "BR"),
            tx,
            Arc::new(Notify::new()),
        );
        for i in 0..HELD + 10 {
            watches.closed(&i.to_string(), &watching);
        }
        let snapshot = ServerMsg::Lobby {
            scope: Scope::Mundial,
            level: 1,
            group: None,
            matches: vec![],
        };
        assert!(!watches.snapshot(7, snapshot.clone()), "read again");
        assert!(drain(&mut rx).is_empty());
        assert!(watches.snapshot(7, snapshot.clone()));
        assert_eq!(drain(&mut rx), vec![snapshot]);
    }

    #[test]
    fn on_g03_a_group_list_hears_only_its_group_from_any_country() {
        let mut watches = Watches::default();
        let (tx, mut rx) = mpsc::channel(16);
        watches.watch(
            3,
            list(Scope::Mundial, 2, Some("g")),
            &player("ana", "BR"),
            tx,
            Arc::new(Notify::new()),
        );
        assert!(watches.snapshot(3, ServerMsg::Pong));
        let in_group = |id: &str, group: &str| OpenMatch {
            group: Some(group.into()),
            ..open(id, Scope::Nacional, "PT")
        };
        watches.opened(&in_group("a", "g"));
        watches.opened(&in_group("b", "other"));
        watches.opened(&open("c", Scope::Mundial, "BR"));
        watches.closed("c", &list(Scope::Mundial, 2, None));
        watches.closed("a", &list(Scope::Nacional, 2, Some("g")));
        assert_eq!(
            drain(&mut rx),
            vec![
                ServerMsg::Pong,
                ServerMsg::LobbyOpened {
                    open: in_group("a", "g")
                },
                ServerMsg::LobbyClosed { id: "a".into() },
            ]
        );
    }

    #[test]
    fn on_g08_a_group_list_is_watched_only_while_one_takes_part() {
        let mut watches = Watches::default();
        let in_group = list(Scope::Mundial, 2, Some("g"));
        let mut rxs = Vec::new();
        for (conn, who, watching) in [
            (1, "ana", in_group.clone()),
            (2, "bia", in_group.clone()),
            (3, "bia", list(Scope::Mundial, 2, Some("other"))),
            (4, "bia", list(Scope::Mundial, 2, None)),
        ] {
            let (tx, rx) = mpsc::channel(16);
            watches.watch(
                conn,
                watching,
                &player(who, "BR"),
                tx,
                Arc::new(Notify::new()),
            );
            assert!(watches.snapshot(conn, ServerMsg::Pong));
            rxs.push(rx);
        }
        watches.left("g", &["bia".into()]);
        let opened = |group: Option<&str>| OpenMatch {
            group: group.map(Into::into),
            ..open("m", Scope::Mundial, "BR")
        };
        watches.opened(&opened(Some("g")));
        watches.opened(&opened(Some("other")));
        watches.opened(&opened(None));
        let heard: Vec<usize> = rxs.iter_mut().map(|rx| drain(rx).len()).collect();
        // Ana still hears g; Bia's watch of g is gone, her other watches are not.
        assert_eq!(heard, [2, 1, 2, 2]);
    }
}
