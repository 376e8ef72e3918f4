//! How long an opponent may think: a wall-clock limit for play, a work limit for tests.
//!
//! Thinking may be spread over slices (a screen draws between them): the time limit counts
//! only the time spent inside slices, so a decision is as strong in slices as at once.

use web_time::{Duration, Instant};

/// What an opponent may spend on one decision. Time makes play fit the screen; work (nodes
/// or playouts) makes tests deterministic for a seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Thinking time for the decision, if limited.
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

/// What a unit of work may do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spend {
    /// Do it: it is counted.
    Go,
    /// The slice is over: stop and do it in the next slice (it was not counted).
    Pause,
    /// The decision's budget is gone.
    Exhausted,
}

/// The clock is read once per this many units: cheap, and a deadline is overrun by at most
/// this many units.
const CLOCK_EVERY: u64 = 64;

/// A running budget: counts work and watches the clock, slice by slice.
#[derive(Debug)]
pub struct Budget {
    time: Option<Duration>,
    /// Thinking time of the slices before this one.
    used: Duration,
    slice_start: Instant,
    /// When the current slice ends (`None`: no sooner than the budget).
    slice_end: Option<Instant>,
    /// The current slice has not counted a unit yet: it does at least one, so slices always
    /// make progress.
    fresh: bool,
    out_of_time: bool,
    work: u64,
    spent: u64,
}

impl Budget {
    /// A budget of `limits`; no time runs until the first slice starts.
    pub fn new(limits: Limits) -> Budget {
        Budget {
            time: limits.time,
            used: Duration::ZERO,
            slice_start: Instant::now(),
            slice_end: None,
            fresh: true,
            out_of_time: false,
            work: limits.work.unwrap_or(u64::MAX),
            spent: 0,
        }
    }

    /// Starts a slice of at most `slice` of thinking time (`Duration::MAX`: until done).
    pub fn start_slice(&mut self, slice: Duration) {
        self.slice_start = Instant::now();
        // A limit too far away to represent is no limit.
        self.slice_end = self.slice_start.checked_add(slice);
        self.fresh = true;
    }

    /// Ends the slice: its time counts against the limit.
    pub fn end_slice(&mut self) {
        self.used += self.slice_start.elapsed();
    }

    /// Asks to do one unit of work.
    #[inline]
    pub fn spend(&mut self) -> Spend {
        self.ask(false)
    }

    /// Asks to do one unit of work that must be done even past the budget (the first plies
    /// of a search): only the slice's end stops it.
    #[inline]
    pub fn spend_anyway(&mut self) -> Spend {
        self.ask(true)
    }

    #[inline]
    fn ask(&mut self, anyway: bool) -> Spend {
        if !anyway && self.exhausted() {
            return Spend::Exhausted;
        }
        if self.spent.is_multiple_of(CLOCK_EVERY) && !self.fresh {
            let now = Instant::now();
            if self
                .time
                .is_some_and(|t| self.used + (now - self.slice_start) >= t)
            {
                self.out_of_time = true;
                if !anyway {
                    return Spend::Exhausted;
                }
            }
            if self.slice_end.is_some_and(|end| now >= end) {
                return Spend::Pause;
            }
        }
        self.fresh = false;
        self.spent += 1;
        Spend::Go
    }

    /// True once the budget is gone.
    pub fn exhausted(&self) -> bool {
        self.out_of_time || self.spent >= self.work
    }

    /// Units of work done so far.
    pub fn spent(&self) -> u64 {
        self.spent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_out_after_exactly_the_units_allowed() {
        let mut budget = Budget::new(Limits::work(100));
        budget.start_slice(Duration::MAX);
        let done = std::iter::from_fn(|| (budget.spend() == Spend::Go).then_some(())).count();
        assert_eq!(done, 100);
        assert_eq!(budget.spend(), Spend::Exhausted);
        assert_eq!(budget.spend_anyway(), Spend::Go, "mandatory work goes on");
        assert_eq!(budget.spent(), 101);
    }

    #[test]
    fn a_slice_pauses_without_counting_and_the_next_one_goes_on() {
        let mut budget = Budget::new(Limits::work(1_000));
        budget.start_slice(Duration::ZERO);
        let mut done = 0;
        while budget.spend() == Spend::Go {
            done += 1;
        }
        assert_eq!(
            done, CLOCK_EVERY,
            "the clock is read once per {CLOCK_EVERY} units"
        );
        assert_eq!(budget.spent(), done);
        budget.end_slice();
        budget.start_slice(Duration::ZERO);
        assert_eq!(
            budget.spend(),
            Spend::Go,
            "a new slice always makes progress"
        );
        assert!(!budget.exhausted());
    }

    #[test]
    fn time_between_slices_does_not_count() {
        // The breaks alone (160 ms) are longer than the limit.
        let mut budget = Budget::new(Limits::millis(100));
        for _ in 0..4 {
            budget.start_slice(Duration::from_millis(1));
            while budget.spend() == Spend::Go {}
            budget.end_slice();
            assert!(!budget.exhausted(), "four 1 ms slices fit in 100 ms");
            std::thread::sleep(Duration::from_millis(40));
        }
        budget.start_slice(Duration::MAX);
        while budget.spend() == Spend::Go {}
        budget.end_slice();
        assert!(budget.exhausted());
        assert!(budget.used >= Duration::from_millis(100));
    }
}
