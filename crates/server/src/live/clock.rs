//! When this process next looks at a live match: the clocks of the matches it changed last
//! (a move's deadline, an absent player's return). A match whose process died is found by
//! the sweeper (`sweeper.rs`) instead, a moment late but at the time its clock ran out.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use super::Hub;
use crate::token::{ms_until, now_ms};

/// The next wake of each match this process changed last; one entry per live match at most.
#[derive(Default)]
pub struct Timers {
    state: Mutex<Wakes>,
    changed: Notify,
}

#[derive(Default)]
struct Wakes {
    queue: BTreeSet<(i64, String)>,
    by_match: HashMap<String, i64>,
}

impl Timers {
    fn lock(&self) -> std::sync::MutexGuard<'_, Wakes> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wake for `match_id` at `at` (ms since the epoch), or never again with `None`.
    pub fn set(&self, match_id: &str, at: Option<i64>) {
        let mut wakes = self.lock();
        if let Some(old) = wakes.by_match.remove(match_id) {
            wakes.queue.remove(&(old, match_id.to_owned()));
        }
        if let Some(at) = at {
            wakes.by_match.insert(match_id.to_owned(), at);
            wakes.queue.insert((at, match_id.to_owned()));
        }
        drop(wakes);
        self.changed.notify_one();
    }

    /// Wake for `match_id` by `at` at the latest: an earlier wake already set stays (it finds
    /// nothing due, or settles the earlier clock, and sets the next).
    pub fn wake_by(&self, match_id: &str, at: i64) {
        let earlier = self.lock().by_match.get(match_id).is_some_and(|t| *t <= at);
        if !earlier {
            self.set(match_id, Some(at));
        }
    }

    /// The matches due at `now`, taken off the queue.
    fn due(&self, now: i64) -> (Vec<String>, Option<i64>) {
        let mut wakes = self.lock();
        let mut due = Vec::new();
        while let Some((at, _)) = wakes.queue.first()
            && *at <= now
        {
            if let Some((_, id)) = wakes.queue.pop_first() {
                wakes.by_match.remove(&id);
                due.push(id);
            }
        }
        let next = wakes.queue.first().map(|(at, _)| *at);
        (due, next)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().by_match.len()
    }
}

/// Settles each match when its clock runs out, for as long as the server runs.
pub async fn run(hub: Arc<Hub>) {
    loop {
        let (due, next) = hub.timers.due(now_ms());
        for id in due {
            let hub = hub.clone();
            tokio::spawn(async move { hub.settle(&id).await });
        }
        let wait = next.map_or(60_000, |at| ms_until(at, now_ms()));
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(wait)) => {}
            () = hub.timers.changed.notified() => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_has_one_wake_the_latest_set() {
        let t = Timers::default();
        t.set("a", Some(50));
        t.set("b", Some(20));
        t.set("a", Some(10));
        t.set("c", Some(30));
        t.set("c", None);
        assert_eq!(t.len(), 2);
        assert_eq!(t.due(15), (vec!["a".to_owned()], Some(20)));
        assert_eq!(t.due(100), (vec!["b".to_owned()], None));
        assert_eq!(t.len(), 0);
        // A wake "by" a time keeps an earlier one.
        t.set("d", Some(40));
        t.wake_by("d", 60);
        t.wake_by("e", 70);
        t.wake_by("e", 65);
        assert_eq!(t.due(100).0, ["d".to_owned(), "e".to_owned()]);
    }
}
