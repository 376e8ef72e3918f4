//! The last activity each room told its seats of, among the notices waiting to be sent
//! (`webpush.rs`). A turn waits a moment before it is sent, and is sent only if nothing was
//! played since (`push::still_holds`); a room that told something newer meanwhile has settled
//! that without its row being read again. Without it, every notice of every move read its room
//! from the database once its wait was over, by then mostly out of the rooms' cache (2 seconds
//! of a busy server's rooms): six reads for a five-move game, all but one of them for turns
//! already played.

use std::collections::HashMap;
use std::sync::Mutex;

/// Rooms with a notice waiting, each with the activity of the last one told.
#[derive(Default)]
pub struct LatestTold(Mutex<HashMap<String, u64>>);

impl LatestTold {
    fn rooms(&self) -> std::sync::MutexGuard<'_, HashMap<String, u64>> {
        // Every change is one insert or removal: a panic cannot leave it half made.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues a notice of `room`'s change at `activity` with `queue`; the change is noted only
    /// once the notice is queued, so that every room noted has a notice waiting (which bounds
    /// the rooms noted by the queue's length). Whether it was queued.
    pub fn tell(&self, room: &str, activity: u64, queue: impl FnOnce() -> bool) -> bool {
        let mut rooms = self.rooms();
        // Under the lock: the notice is never taken before its change is noted.
        if !queue() {
            return false;
        }
        match rooms.get_mut(room) {
            Some(latest) => *latest = activity,
            None => {
                rooms.insert(room.to_owned(), activity);
            }
        }
        true
    }

    /// Whether a waiting notice of `room` at `activity` is stale, taken off the queue: the room
    /// told a change at another activity since, so its last activity is no longer this one.
    /// The last one told forgets the room (its next change notes it again); a room not noted
    /// (a notice a stopped process kept) is not known to be stale.
    pub fn taken(&self, room: &str, activity: u64) -> bool {
        let mut rooms = self.rooms();
        match rooms.get(room) {
            Some(&latest) if latest != activity => true,
            Some(_) => {
                rooms.remove(room);
                false
            }
            None => false,
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
        for activity in [10, 20, 30] {
            assert!(told.tell("r", activity, || true));
        }
        assert!(told.tell("s", 15, || true));
        assert!(told.taken("r", 10), "played since");
        assert!(told.taken("r", 20), "played since");
        assert!(!told.taken("s", 15), "the last one of its room");
        assert!(!told.taken("r", 30), "the last one of its room");
        assert_eq!(told.noted(), 0, "no notice waits: no room is noted");
        // A later change of a forgotten room is noted again.
        assert!(told.tell("r", 40, || true));
        assert!(!told.taken("r", 40));
    }

    #[test]
    fn classic_r09_a_notice_never_queued_notes_nothing_and_an_unknown_room_is_never_stale() {
        let told = LatestTold::default();
        assert!(told.tell("r", 10, || true));
        assert!(!told.tell("r", 20, || false), "the queue was full");
        assert!(
            !told.taken("r", 10),
            "the dropped notice did not make it stale"
        );
        assert!(!told.taken("kept by a stopped process", 5));
        assert_eq!(told.noted(), 0);
    }

    #[test]
    fn classic_r09_a_clock_set_back_makes_the_older_notice_stale_not_the_newer() {
        // The newer change happened at a smaller activity (the wall clock went back): the
        // room's last activity is the newer change's, which is the one still to tell.
        let told = LatestTold::default();
        assert!(told.tell("r", 100, || true));
        assert!(told.tell("r", 50, || true));
        assert!(told.taken("r", 100));
        assert!(!told.taken("r", 50));
    }
}
