//! The newest change each room told its seats of, among the notices waiting to be sent
//! (`webpush.rs`). A turn waits a moment before it is sent, and is sent only if nothing was
//! played since (`push::still_holds`); a room that told of a change committed after it has
//! settled that without its row being read again. Without it, every notice of every move read
//! its room from the database once its wait was over, by then mostly out of the rooms' cache
//! (2 seconds of a busy server's rooms): six reads for a five-move game, all but one of them for
//! turns already played.
//!
//! Changes are told by the requests that made them, each once its own commit is done, so two
//! changes of a room may be told in the other order than they were committed: they are ordered
//! by the room's version, which every commit raises, not by when they were told.

use std::collections::HashMap;
use std::sync::Mutex;

/// Rooms with a notice waiting, each with the highest version told.
#[derive(Default)]
pub struct LatestTold(Mutex<HashMap<String, i64>>);

impl LatestTold {
    fn rooms(&self) -> std::sync::MutexGuard<'_, HashMap<String, i64>> {
        // Every change is one insert, assignment or removal: a panic cannot leave it half made.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues a notice of `room`'s change to `version` with `queue`; the change is noted only
    /// once the notice is queued, so that every room noted has a notice waiting (which bounds
    /// the rooms noted by the queue's length). Whether it was queued.
    pub fn tell(&self, room: String, version: i64, queue: impl FnOnce() -> bool) -> bool {
        let mut rooms = self.rooms();
        // Under the lock: the notice is never taken before its change is noted.
        if !queue() {
            return false;
        }
        let latest = rooms.entry(room).or_insert(version);
        *latest = (*latest).max(version);
        true
    }

    /// Whether a waiting notice of `room`'s change to `version` is known to be old news, taken
    /// off the queue: a change committed after it was told. The newest one told forgets the
    /// room (its next change notes it again); a room not noted (a notice a stopped process
    /// kept) is not known to be stale.
    pub fn taken(&self, room: &str, version: i64) -> bool {
        let mut rooms = self.rooms();
        match rooms.get(room) {
            Some(&latest) if latest > version => true,
            Some(&latest) if latest == version => {
                rooms.remove(room);
                false
            }
            _ => false,
        }
    }

    /// How many rooms are noted.
    #[cfg(test)]
    fn noted(&self) -> usize {
        self.rooms().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_r09_a_turn_is_stale_once_its_room_told_something_newer_and_the_last_one_is_not() {
        let told = LatestTold::default();
        for version in [1, 2, 3] {
            assert!(told.tell("r".into(), version, || true));
        }
        assert!(told.tell("s".into(), 2, || true));
        assert!(told.taken("r", 1), "played since");
        assert!(told.taken("r", 2), "played since");
        assert!(!told.taken("s", 2), "the last one of its room");
        assert!(!told.taken("r", 3), "the last one of its room");
        assert_eq!(told.noted(), 0, "no notice waits: no room is noted");
        // A later change of a forgotten room is noted again.
        assert!(told.tell("r".into(), 4, || true));
        assert!(!told.taken("r", 4));
    }

    #[test]
    fn classic_r09_a_notice_never_queued_notes_nothing_and_an_unknown_room_is_never_stale() {
        let told = LatestTold::default();
        assert!(told.tell("r".into(), 1, || true));
        assert!(!told.tell("r".into(), 2, || false), "the queue was full");
        assert!(
            !told.taken("r", 1),
            "the dropped notice did not make it stale"
        );
        assert!(!told.taken("kept by a stopped process", 5));
        assert_eq!(told.noted(), 0);
    }

    #[test]
    fn classic_r09_changes_told_in_the_other_order_than_committed_stale_only_the_older() {
        // Both seats asked for the rematch at once: the second commit (version 8, the new game
        // began) was told before the first (version 7, a rematch asked). The new game's turn is
        // news; the older change, taken after it, is not known to be stale: the room is read.
        let told = LatestTold::default();
        assert!(told.tell("r".into(), 8, || true));
        assert!(told.tell("r".into(), 7, || true));
        assert!(!told.taken("r", 8), "the newest commit is never stale");
        assert!(!told.taken("r", 7), "forgotten with the newest: read");
        assert_eq!(told.noted(), 0);
        // Were the older one taken first, it would be stale.
        assert!(told.tell("r".into(), 8, || true));
        assert!(told.tell("r".into(), 7, || true));
        assert!(told.taken("r", 7));
        assert!(!told.taken("r", 8));
    }
}
