//! What this process has written to the database of its room connections (PostgreSQL): its
//! seats' connections, which every process's push sender reads (docs/push.md), and its
//! spectators' places, the 50 of CLASSIC-R13. Each write and the count it leaves change under
//! one lock per shard of rooms, so a process given up for dead while alive (a long pause)
//! writes back exactly what the others took away — not more, not less, whatever connections
//! come and go meanwhile.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use tokio::sync::{Mutex, MutexGuard};
use velha_api::Seat;

use super::Hub;
use super::sweeper::DEAD_AFTER_MS;
use crate::store::Backend;

/// Shards of rooms, each written one change at a time.
const SHARDS: usize = 64;

/// One shard's counts as the database has them.
#[derive(Default)]
pub struct Counts {
    /// Connections of each (room, seat).
    pub seats: HashMap<(String, Seat), i64>,
    /// Spectators' places of each room.
    pub spectators: HashMap<String, i64>,
}

impl Counts {
    /// A seat's connection written as come (+1) or gone (-1).
    pub fn seat(&mut self, room: &str, seat: Seat, change: i64) {
        add(&mut self.seats, (room.to_owned(), seat), change);
    }

    /// A spectator's place written as taken (+1) or given back (-1).
    pub fn spectator(&mut self, room: &str, change: i64) {
        add(&mut self.spectators, room.to_owned(), change);
    }
}

fn add<K: std::hash::Hash + Eq>(counts: &mut HashMap<K, i64>, key: K, change: i64) {
    match counts.entry(key) {
        Entry::Occupied(mut count) => {
            *count.get_mut() += change;
            if *count.get() <= 0 {
                count.remove();
            }
        }
        // A row the database no longer had (its process buried) is not counted below nothing.
        Entry::Vacant(none) => {
            if change > 0 {
                none.insert(change);
            }
        }
    }
}

/// Every shard of this process's written room presence.
pub struct Written {
    shards: Vec<Mutex<Counts>>,
}

impl Default for Written {
    fn default() -> Written {
        Written {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }
}

impl Written {
    /// The shard of `room`, locked: write to the database, then change its counts.
    pub async fn lock(&self, room: &str) -> MutexGuard<'_, Counts> {
        let hash = room.bytes().fold(0usize, |h, b| {
            h.wrapping_mul(31).wrapping_add(usize::from(b))
        });
        self.shards[hash % SHARDS].lock().await
    }

    /// Every shard, one after the other, locked.
    pub fn shards(&self) -> impl Iterator<Item = &Mutex<Counts>> {
        self.shards.iter()
    }
}

impl Hub {
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
    pub(super) async fn rewrite_room_presence(&self) -> Result<(), sqlx::Error> {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn classic_r09_counts_follow_what_was_written_and_never_go_below_nothing() {
        let written = Written::default();
        let mut counts = written.lock("r").await;
        counts.seat("r", Seat::X, 1);
        counts.seat("r", Seat::X, 1);
        counts.seat("r", Seat::O, -1);
        counts.spectator("r", 1);
        counts.spectator("r", -1);
        assert_eq!(counts.seats.get(&("r".into(), Seat::X)), Some(&2));
        assert_eq!(counts.seats.get(&("r".into(), Seat::O)), None);
        assert!(counts.spectators.is_empty());
    }
}
