//! The rooms last read or written, on SQLite, where this process is the only writer: a
//! room's every move, connection and recount read it, and a read is a round trip to a
//! connection's thread. A stale entry can only make a change's compare-and-set fail, which
//! forgets it and reads the database again. PostgreSQL's processes share rooms and read them.

use std::collections::HashMap;
use std::sync::Mutex;

use velha_api::Seat;

use super::rooms::RoomRow;

/// Rooms kept at most (a room is about a kilobyte): far more than are played at once.
const CAPACITY: usize = 2048;
/// Rooms forgotten at once when it is full, the least recently used: one pass over the cache
/// for this many new rooms.
const EVICT: usize = CAPACITY / 8;

struct Entry {
    row: RoomRow,
    /// Credential hashes known to hold a seat (the rest are read from the database).
    seats: Vec<(String, Seat)>,
    /// When it was last used, to forget the least recent first.
    used: u64,
}

#[derive(Default)]
struct Rooms {
    map: HashMap<String, Entry>,
    clock: u64,
}

impl Rooms {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }
}

/// The cache.
#[derive(Default)]
pub(super) struct RoomCache {
    rooms: Mutex<Rooms>,
}

impl std::fmt::Debug for RoomCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RoomCache")
    }
}

impl RoomCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Rooms> {
        self.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The room, when kept.
    pub(super) fn get(&self, id: &str) -> Option<RoomRow> {
        let mut rooms = self.lock();
        let now = rooms.tick();
        let entry = rooms.map.get_mut(id)?;
        entry.used = now;
        Some(entry.row.clone())
    }

    /// The seat a credential hash is known to hold.
    pub(super) fn seat(&self, id: &str, credential_hash: &str) -> Option<Seat> {
        let rooms = self.lock();
        let entry = rooms.map.get(id)?;
        entry
            .seats
            .iter()
            .find(|(hash, _)| hash == credential_hash)
            .map(|(_, seat)| *seat)
    }

    /// Keeps the room as read or saved, unless a later version is kept already (two saves'
    /// callers can arrive here in either order).
    pub(super) fn put(&self, row: &RoomRow) {
        let mut rooms = self.lock();
        let now = rooms.tick();
        if let Some(entry) = rooms.map.get_mut(&row.id) {
            if entry.row.version <= row.version {
                entry.row = row.clone();
            }
            entry.used = now;
            return;
        }
        if rooms.map.len() >= CAPACITY {
            let mut ages: Vec<u64> = rooms.map.values().map(|e| e.used).collect();
            let (_, &mut cut, _) = ages.select_nth_unstable(EVICT - 1);
            rooms.map.retain(|_, e| e.used > cut);
        }
        rooms.map.insert(
            row.id.clone(),
            Entry {
                row: row.clone(),
                seats: Vec::new(),
                used: now,
            },
        );
    }

    /// Notes a seat's credential hash in a kept room.
    pub(super) fn put_seat(&self, id: &str, credential_hash: &str, seat: Seat) {
        let mut rooms = self.lock();
        if let Some(entry) = rooms.map.get_mut(id)
            && !entry.seats.iter().any(|(h, _)| h == credential_hash)
        {
            entry.seats.push((credential_hash.to_owned(), seat));
        }
    }

    /// Forgets a room (its kept version proved stale).
    pub(super) fn forget(&self, id: &str) {
        self.lock().map.remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use velha_rules::room::{Room, RoomGame};

    fn row(id: &str, version: i64) -> RoomRow {
        RoomRow {
            id: id.into(),
            room: Room::create(RoomGame::Super, "Ana", None, velha_rules::Player::X, 0).unwrap(),
            version,
            game: 0,
            ply: 0,
        }
    }

    #[test]
    fn an_older_version_never_replaces_a_newer_one() {
        let cache = RoomCache::default();
        cache.put(&row("r", 2));
        cache.put(&row("r", 1));
        assert_eq!(cache.get("r").unwrap().version, 2);
        cache.put(&row("r", 3));
        assert_eq!(cache.get("r").unwrap().version, 3);
        cache.forget("r");
        assert!(cache.get("r").is_none());
    }

    #[test]
    fn it_holds_at_most_its_capacity_forgetting_the_least_recently_used() {
        let cache = RoomCache::default();
        for i in 0..CAPACITY {
            cache.put(&row(&format!("r{i}"), 0));
        }
        // r0 is used again, so r1 … r{EVICT} are now the least recent.
        assert!(cache.get("r0").is_some());
        cache.put(&row("new", 0));
        assert_eq!(cache.lock().map.len(), CAPACITY - EVICT + 1);
        assert!(cache.get("r0").is_some() && cache.get("new").is_some());
        assert!((1..=EVICT).all(|i| cache.get(&format!("r{i}")).is_none()));
        assert!(cache.get(&format!("r{}", EVICT + 1)).is_some());
    }

    #[test]
    fn seats_are_known_only_once_noted() {
        let cache = RoomCache::default();
        cache.put(&row("r", 0));
        assert_eq!(cache.seat("r", "h"), None);
        cache.put_seat("r", "h", Seat::O);
        cache.put_seat("r", "h", Seat::O);
        assert_eq!(cache.seat("r", "h"), Some(Seat::O));
        assert_eq!(cache.lock().map["r"].seats.len(), 1);
        assert_eq!(cache.seat("r", "other"), None);
    }
}
