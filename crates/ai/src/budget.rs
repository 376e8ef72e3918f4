//! How long an opponent may think: a wall-clock limit for play, a work limit for tests.

use web_time::{Duration, Instant};

/// What an opponent may spend on one decision. Time makes play fit the screen; work (nodes
/// or playouts) makes tests deterministic for a seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time for the decision, if limited.
    pub time: Option<Duration>,
    /// Units of work (search nodes or playouts), if limited.
    pub work: Option<u64>,
}

impl Limits {
    /// At most `ms` milliseconds.
    pub const fn millis(ms: u64) -> Limits {
        Limits {
            time: Some(Duration::from_millis(ms)),
            work: None,
        }
    }

    /// At most `units` of work, whatever the time: the same answer on every machine.
    pub const fn work(units: u64) -> Limits {
        Limits {
            time: None,
            work: Some(units),
        }
    }
}

/// A running budget: counts work and watches the clock.
#[derive(Debug)]
pub struct Budget {
    deadline: Option<Instant>,
    work_left: u64,
    spent: u64,
}

impl Budget {
    /// Starts spending `limits` now.
    pub fn start(limits: Limits) -> Budget {
        Budget {
            // A limit too far away to represent is no limit.
            deadline: limits.time.and_then(|t| Instant::now().checked_add(t)),
            work_left: limits.work.unwrap_or(u64::MAX),
            spent: 0,
        }
    }

    /// Records one unit of work; true while there is budget left. The clock is read every 64
    /// units, so checking costs little and the deadline is overrun by at most 64 units.
    #[inline]
    pub fn spend(&mut self) -> bool {
        if self.work_left == 0 {
            return false;
        }
        self.work_left -= 1;
        self.spent += 1;
        if self.spent.is_multiple_of(64) && self.out_of_time() {
            self.work_left = 0;
            return false;
        }
        true
    }

    /// True once the budget is gone.
    pub fn exhausted(&self) -> bool {
        self.work_left == 0
    }

    /// Units of work done so far.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}
