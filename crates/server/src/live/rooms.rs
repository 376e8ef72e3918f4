//! Who watches each room live on this process (CLASSIC-R09, R13): its players' connections
//! and at most 50 spectators' (50 in all processes together: `Hub::spectate`). Every change of
//! a room reaches them all, each with their own seat in it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{Notify, mpsc};
use tokio_tungstenite::tungstenite::Utf8Bytes;
use velha_api::{RoomServerMsg, RoomView, Seat};
use velha_rules::room::MAX_SPECTATORS;

use super::Hub;
use super::bus::Event;
use crate::store::{Backend, RoomRow};

/// Connections a seat may hold in one room (a phone and a few tabs); a new one past it is
/// refused, so nobody holding a credential grows a room's list without end.
pub const MAX_SEAT_CONNECTIONS: usize = 8;
/// Messages waiting for one slow connection; past this it is dropped rather than let grow.
const OUTBOX: usize = 64;

/// A message as its connection's frame: JSON text, shared by every connection sent it.
pub fn room_frame(msg: &RoomServerMsg) -> Utf8Bytes {
    // Serialising these plain types cannot fail.
    Utf8Bytes::from(serde_json::to_string(msg).unwrap_or_default())
}

/// One change of a room as each kind of watcher reads it: a player's view names their seat, so
/// a room's views are at most three however many watch it, each encoded once when first needed.
struct Views<'a> {
    view: &'a RoomView,
    encoded: [Option<Utf8Bytes>; 3],
}

impl<'a> Views<'a> {
    fn new(view: &'a RoomView) -> Self {
        Views {
            view,
            encoded: [None, None, None],
        }
    }

    fn for_seat(&mut self, seat: Option<Seat>) -> Utf8Bytes {
        let slot = match seat {
            None => 0,
            Some(Seat::X) => 1,
            Some(Seat::O) => 2,
        };
        self.encoded[slot]
            .get_or_insert_with(|| {
                let mut room = self.view.clone();
                // A connection holds the seat its credential proved; the view names seats by the
                // symbols of the game on the table, which 2.0 swaps every game (V2-R08).
                room.you = seat.map(|s| match (s, room.creator_plays) {
                    (s, Seat::X) => s,
                    (Seat::X, Seat::O) => Seat::O,
                    (Seat::O, Seat::O) => Seat::X,
                });
                room_frame(&RoomServerMsg::Room { room })
            })
            .clone()
    }
}

struct Watcher {
    id: u64,
    seat: Option<Seat>,
    tx: mpsc::Sender<Utf8Bytes>,
    close: Arc<Notify>,
}

impl Watcher {
    /// Sends it the room, with its own seat in it; false (and it is told to close) when it has
    /// not read what it was sent before.
    fn send(&self, views: &mut Views) -> bool {
        let sent = self.tx.try_send(views.for_seat(self.seat)).is_ok();
        if !sent {
            self.close.notify_one();
        }
        sent
    }
}

/// A room connection's own way in, kept as the connection moves from room to room: whichever
/// room it watches sends to it here, and says here that it stopped reading.
#[derive(Clone)]
pub struct RoomLine {
    /// Sends to the connection.
    pub tx: mpsc::Sender<Utf8Bytes>,
    /// Fires when the connection stopped reading and was dropped from its room's list.
    pub close: Arc<Notify>,
}

impl RoomLine {
    /// A new connection's way in, and where what it is sent arrives, encoded.
    pub fn new() -> (RoomLine, mpsc::Receiver<Utf8Bytes>) {
        let (tx, rx) = mpsc::channel(OUTBOX);
        let close = Arc::new(Notify::new());
        (RoomLine { tx, close }, rx)
    }
}

/// One room's watchers here, and the version of the room they were sent last.
#[derive(Default)]
struct Watched {
    version: i64,
    watchers: Vec<Watcher>,
}

/// Every room's watchers in this process.
#[derive(Default)]
pub struct RoomWatches {
    rooms: Mutex<HashMap<String, Watched>>,
    next: AtomicU64,
}

impl RoomWatches {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Watched>> {
        self.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A connection (its `line`) starts watching `room` — as a player of `seat`, or a
    /// spectator — unless the room's 50 spectators (or the seat's connections) are all there:
    /// its number in the room's list, to leave with.
    pub fn watch(&self, room: &str, seat: Option<Seat>, line: &RoomLine) -> Option<u64> {
        let mut rooms = self.lock();
        let list = &mut rooms.entry(room.to_owned()).or_default().watchers;
        let alike = list.iter().filter(|w| w.seat == seat).count();
        let limit = if seat.is_some() {
            MAX_SEAT_CONNECTIONS
        } else {
            MAX_SPECTATORS as usize
        };
        if alike >= limit {
            return None;
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        list.push(Watcher {
            id,
            seat,
            tx: line.tx.clone(),
            close: line.close.clone(),
        });
        Some(id)
    }

    /// The connection stopped watching.
    pub fn unwatch(&self, room: &str, id: u64) {
        let mut rooms = self.lock();
        if let Some(watched) = rooms.get_mut(room) {
            watched.watchers.retain(|w| w.id != id);
            if watched.watchers.is_empty() {
                rooms.remove(room);
            }
        }
    }

    /// Whether a player of `seat` is connected to `room` on this process now.
    pub fn seat_connected(&self, room: &str, seat: Seat) -> bool {
        self.lock()
            .get(room)
            .is_some_and(|watched| watched.watchers.iter().any(|w| w.seat == Some(seat)))
    }

    /// Spectators watching `room` on this process now.
    pub fn spectators(&self, room: &str) -> u32 {
        let rooms = self.lock();
        let watching = rooms.get(room).map_or(0, |watched| {
            watched.watchers.iter().filter(|w| w.seat.is_none()).count()
        });
        u32::try_from(watching).unwrap_or(u32::MAX)
    }

    /// Sends the room at `version` to the one connection `id` (its first view), unless
    /// everyone was sent a later version already (which reached it too).
    pub fn greet(&self, id: u64, view: &RoomView, version: i64) {
        let rooms = self.lock();
        let Some(watched) = rooms.get(&view.id) else {
            return;
        };
        if version < watched.version {
            return;
        }
        if let Some(w) = watched.watchers.iter().find(|w| w.id == id) {
            w.send(&mut Views::new(view));
        }
    }

    /// Sends the room at `version` to everyone watching it, each with their own seat, unless
    /// they were sent a later version already (views read before a change can arrive after
    /// it, from this process or another); a connection that does not read is dropped from the
    /// list and told to close.
    pub fn changed(&self, view: &RoomView, version: i64) {
        let mut rooms = self.lock();
        let Some(watched) = rooms.get_mut(&view.id) else {
            return;
        };
        if version < watched.version {
            return;
        }
        watched.version = version;
        let mut views = Views::new(view);
        watched.watchers.retain(|w| w.send(&mut views));
    }
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

impl Hub {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use velha_api::{RoomBoard, RoomPlayer};

    fn view(ply: u32) -> RoomView {
        RoomView {
            id: "r".into(),
            board: RoomBoard::Super,
            x: RoomPlayer {
                name: "Ana".into(),
                avatar: None,
            },
            o: None,
            creator_plays: Seat::X,
            starter: Seat::X,
            you: None,
            position: String::new(),
            ply,
            to_move: None,
            ending: None,
            rematch: [false; 2],
            series: [0; 3],
            games: 0,
            spectators: 0,
            idle_ms: 0,
            claim_in_ms: None,
            closes_in_ms: 0,
            closed: false,
        }
    }

    #[test]
    fn a_view_older_than_the_last_sent_is_dropped() {
        let watches = RoomWatches::default();
        let (line, mut rx) = RoomLine::new();
        watches.watch("r", None, &line).unwrap();
        watches.changed(&view(1), 5);
        watches.changed(&view(0), 4);
        watches.changed(&view(1), 5);
        watches.changed(&view(2), 6);
        let mut plies = Vec::new();
        while let Ok(frame) = rx.try_recv() {
            plies.push(room_of(&frame).ply);
        }
        assert_eq!(plies, [1, 1, 2]);
    }

    /// A new connection watching `room` as `seat`: what it is sent.
    fn watching(
        watches: &RoomWatches,
        room: &str,
        seat: Option<Seat>,
    ) -> mpsc::Receiver<Utf8Bytes> {
        let (line, rx) = RoomLine::new();
        watches.watch(room, seat, &line).unwrap();
        rx
    }

    #[test]
    fn classic_r09_a_connection_that_moves_to_another_room_hears_only_that_room() {
        let watches = RoomWatches::default();
        let (line, mut rx) = RoomLine::new();
        let first = watches.watch("a", Some(Seat::X), &line).unwrap();
        watches.unwatch("a", first);
        watches.watch("r", Some(Seat::O), &line).unwrap();
        watches.changed(
            &RoomView {
                id: "a".into(),
                ..view(1)
            },
            1,
        );
        watches.changed(&view(2), 1);
        let room = room_of(&rx.try_recv().unwrap());
        assert_eq!(
            (room.id.as_str(), room.ply, room.you),
            ("r", 2, Some(Seat::O))
        );
        assert!(rx.try_recv().is_err());
        assert!(!watches.seat_connected("a", Seat::X));
        assert!(watches.seat_connected("r", Seat::O));
    }

    fn room_of(frame: &Utf8Bytes) -> RoomView {
        match serde_json::from_str(frame.as_str()).unwrap() {
            RoomServerMsg::Room { room } => room,
            other => panic!("not a room: {other:?}"),
        }
    }

    #[test]
    fn classic_r13_every_watcher_reads_its_own_seat_and_spectators_share_one_frame() {
        let watches = RoomWatches::default();
        let mut x = watching(&watches, "r", Some(Seat::X));
        let mut o = watching(&watches, "r", Some(Seat::O));
        let mut spectators: Vec<_> = (0..3).map(|_| watching(&watches, "r", None)).collect();
        watches.changed(&view(3), 1);
        assert_eq!(room_of(&x.try_recv().unwrap()).you, Some(Seat::X));
        assert_eq!(room_of(&o.try_recv().unwrap()).you, Some(Seat::O));
        let frames: Vec<_> = spectators
            .iter_mut()
            .map(|w| w.try_recv().unwrap())
            .collect();
        for frame in &frames {
            let room = room_of(frame);
            assert_eq!((room.you, room.ply), (None, 3));
        }
        // One encoding for all of them, not one per connection.
        assert!(
            frames
                .iter()
                .all(|f| f.as_str().as_ptr() == frames[0].as_str().as_ptr())
        );
    }

    #[test]
    fn v2_r08_each_seat_reads_the_symbol_it_plays_in_this_game() {
        let watches = RoomWatches::default();
        let mut creator = watching(&watches, "r", Some(Seat::X));
        let mut guest = watching(&watches, "r", Some(Seat::O));
        watches.changed(
            &RoomView {
                creator_plays: Seat::O,
                ..view(0)
            },
            1,
        );
        assert_eq!(room_of(&creator.try_recv().unwrap()).you, Some(Seat::O));
        assert_eq!(room_of(&guest.try_recv().unwrap()).you, Some(Seat::X));
    }
}
