//! The Velha, the cube's computer opponent (CUBE-V05): the same rules as a person, at both
//! levels, free turns included.
//!
//! Negamax alpha-beta with iterative deepening and a transposition table, over whole turns
//! (`search.rs`), scoring the positions it does not search further by weights tuned in
//! self-play (`eval.rs`). Two plies always complete, whatever the budget, so the Velha never
//! misses a win in one and never allows a loss in one that it could avoid. At the root she
//! weighs whole turns, and a turn that returns to a position already seen in the game is
//! worth at most [`REPETITION`] to her unless it is a forced result: where she is not losing
//! and cannot make progress, the game still goes somewhere.

mod eval;
mod search;
mod table;

pub use eval::Weights;

use velha_rules::{Cube, CubeAction, Position, Status};

use web_time::Duration;

use crate::budget::Budget;
use crate::{Deliberate, Limits, Opponent, Rng, Thought};
use search::{Context, Negamax, Stop, order_key};
use table::{Table, key};

/// The score of a win on the spot; a win `n` actions ahead scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (either sign) are wins or losses in a known number of actions.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;
/// Whole turns that always complete, whatever the budget.
const MANDATORY_DEPTH: u32 = 2;
/// Deepest search tried.
const MAX_DEPTH: u32 = 32;
/// The most a turn back to an earlier position of the game is worth to the Velha: a little
/// less than an even game, so between equal moves she takes the new one.
pub const REPETITION: i32 = -1;

/// Search figures of the last decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VelhaStats {
    /// Positions visited.
    pub nodes: u64,
    /// Deepest fully searched depth, in whole turns.
    pub depth: u32,
    /// The chosen action's value at that depth, for the side that chose.
    pub score: i32,
    /// When the chosen action is a free turn, the main action searched after it: with it, the
    /// whole turn she would play (what an analysis shows as the best move).
    pub then: Option<CubeAction>,
    /// The best value of the last complete depth before the one `score` comes from (whatever
    /// action it was for), when there was one: a search that ends on the side to move's turn
    /// flatters it, so an analysis takes the mean of the two (odd and even depths).
    pub shallower: Option<i32>,
}

/// The Velha. She keeps her transposition table between moves.
pub struct Velha {
    table: Table,
    weights: Weights,
    negamax: Negamax,
    job: Option<Job>,
    /// Figures of the last decision.
    pub stats: VelhaStats,
}

/// A decision in progress.
#[derive(Debug)]
enum Job {
    /// Known without searching.
    Decided(Option<CubeAction>),
    /// Iterative deepening over the root's whole turns.
    Deepening(Deepening),
}

#[derive(Debug)]
struct Deepening {
    turns: Vec<WholeTurn>,
    budget: Budget,
    max_depth: u32,
    /// The iteration being searched.
    depth: u32,
    /// The whole turn being searched in it, and whether its search has begun.
    next: usize,
    begun: bool,
    alpha: i32,
    best_index: usize,
    /// The best of the last complete iteration, and its value. Kept as two fields: as one
    /// `Option<(CubeAction, i32)>`, rustc 1.95's optimised debug build stored a wrong value
    /// (tests/velha_oracle.rs caught it; release builds were right).
    best: Option<CubeAction>,
    best_then: Option<CubeAction>,
    best_score: i32,
    /// The best value of the iteration before the one `best_score` comes from.
    shallower_score: Option<i32>,
}

impl std::fmt::Debug for Velha {
    /// The table is megabytes of entries: only the figures are worth printing.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Velha")
            .field("weights", &self.weights)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Default for Velha {
    fn default() -> Self {
        Velha::new()
    }
}

/// One whole turn from the root: a main action, or a free turn and then a main action.
#[derive(Clone, Copy, Debug)]
struct WholeTurn {
    first: CubeAction,
    /// The main action after a free turn.
    second: Option<CubeAction>,
    after: Cube,
    /// `after` is a position the game has already been in.
    repeats: bool,
    /// Where move ordering puts it: by its first action, then its second.
    order: (i32, i32),
}

impl Velha {
    /// What she may spend per action in play, on the phone as on the server (ON-G05): 250 ms,
    /// and at most the nodes she searches in that time on a desktop core, so she plays
    /// equally well on every machine fast enough (velha-ai-arena measures her at this budget).
    pub const PLAY_LIMITS: Limits = Limits {
        time: Some(Duration::from_millis(250)),
        work: Some(1_024_000),
    };

    /// The Velha with her tuned weights and an empty table (about 2 MB).
    pub fn new() -> Velha {
        Velha::with_weights(Weights::TUNED)
    }

    /// A Velha that evaluates with `weights` (for tuning and for measuring the tuning).
    pub fn with_weights(weights: Weights) -> Velha {
        Velha {
            table: Table::new(),
            weights,
            negamax: Negamax::default(),
            job: None,
            stats: VelhaStats::default(),
        }
    }

    /// The value of `position` for its side to move, searched exactly `depth` whole turns
    /// deep with no budget, and an action of that value; `earlier` are the game's positions
    /// before it (see [`REPETITION`]). `None` when the game is over or `depth` is 0.
    pub fn analyse(
        &mut self,
        earlier: &[Cube],
        position: &Cube,
        depth: u32,
    ) -> Option<(CubeAction, i32)> {
        let limits = Limits {
            time: None,
            work: None,
        };
        self.begin(earlier, position, limits, depth, None);
        loop {
            if let Some(found) = self.work(Duration::MAX) {
                return found;
            }
        }
    }

    fn begin(
        &mut self,
        earlier: &[Cube],
        position: &Cube,
        limits: Limits,
        max_depth: u32,
        rng: Option<&mut Rng>,
    ) {
        self.stats = VelhaStats::default();
        if position.status().is_over() || max_depth == 0 {
            self.job = Some(Job::Decided(None));
            return;
        }
        let mut turns = whole_turns(earlier, position);
        // Shuffled, then ordered: equal moves are chosen differently from game to game.
        if let Some(rng) = rng {
            for i in (1..turns.len()).rev() {
                turns.swap(i, rng.below(i + 1));
            }
        }
        turns.sort_by_key(|t| t.order);
        self.job = Some(Job::Deepening(Deepening {
            turns,
            budget: Budget::new(limits),
            max_depth,
            depth: 1,
            next: 0,
            begun: false,
            alpha: -INFINITY,
            best_index: 0,
            best: None,
            best_then: None,
            best_score: -INFINITY,
            shallower_score: None,
        }));
    }

    /// Thinks for at most `slice`: the best action and its value once decided (`None` inside
    /// when there is nothing to play), `None` while still thinking.
    fn work(&mut self, slice: Duration) -> Option<Option<(CubeAction, i32)>> {
        let Velha {
            table,
            weights,
            negamax,
            job,
            stats,
        } = self;
        let deepening = match job.as_mut()? {
            Job::Decided(action) => {
                let found = action.map(|a| (a, stats.score));
                *job = None;
                return Some(found);
            }
            Job::Deepening(deepening) => deepening,
        };
        let d = deepening;
        d.budget.start_slice(slice);
        let finished = loop {
            if d.next == d.turns.len() {
                // The iteration is complete; the next one tries its best first.
                d.turns[..=d.best_index].rotate_right(1);
                d.shallower_score = d.best.and(Some(d.best_score));
                d.best = Some(d.turns[0].first);
                d.best_then = d.turns[0].second;
                d.best_score = d.alpha;
                stats.depth = d.depth;
                stats.score = d.alpha;
                // A forced result is final: deeper search finds the same one.
                if d.alpha.abs() >= MATE_BOUND || d.depth == d.max_depth || d.budget.exhausted() {
                    break true;
                }
                d.depth += 1;
                d.next = 0;
                d.alpha = -INFINITY;
                d.best_index = 0;
            }
            let turn = &d.turns[d.next];
            if !d.begun {
                // Each whole turn is searched with the window (alpha, ∞) from the root's side.
                let ply = if turn.second.is_some() { 2 } else { 1 };
                negamax.begin(&turn.after, d.depth - 1, -INFINITY, -d.alpha, ply);
                d.begun = true;
            }
            let mut cx = Context {
                table,
                weights,
                budget: &mut d.budget,
                mandatory: d.depth <= MANDATORY_DEPTH,
            };
            match negamax.run(&mut cx) {
                Ok(value) => {
                    let mut score = -value;
                    // A fail-low bound stays one after the cap: the cap only lowers.
                    if turn.repeats && score.abs() < MATE_BOUND {
                        score = score.min(REPETITION);
                    }
                    if score > d.alpha {
                        d.alpha = score;
                        d.best_index = d.next;
                    }
                    d.next += 1;
                    d.begun = false;
                }
                Err(Stop::Pause) => break false,
                Err(Stop::OutOfBudget) => {
                    // The unfinished iteration searched the last best turn first: once that
                    // one is done, its best so far is known at this depth, better informed
                    // than the last complete iteration (and where a larger budget gains).
                    if d.next > 0 {
                        d.shallower_score = d.best.and(Some(d.best_score));
                        d.best = Some(d.turns[d.best_index].first);
                        d.best_then = d.turns[d.best_index].second;
                        d.best_score = d.alpha;
                        stats.score = d.alpha;
                    }
                    break true;
                }
            }
        };
        d.budget.end_slice();
        stats.nodes = d.budget.spent();
        if !finished {
            return None;
        }
        let best = d.best.map(|action| (action, d.best_score));
        stats.then = d.best.and(d.best_then);
        stats.shallower = d.shallower_score;
        *job = None;
        Some(best)
    }
}

/// Every whole turn of the side to move, marking those that return to a position of the
/// game.
fn whole_turns(earlier: &[Cube], position: &Cube) -> Vec<WholeTurn> {
    let mut seen: Vec<u64> = earlier.iter().map(key).collect();
    seen.sort_unstable();
    let repeats = |p: &Cube| !p.status().is_over() && seen.binary_search(&key(p)).is_ok();
    let side = position.side_to_move();
    let mut turns = Vec::with_capacity(80);
    for first in position.legal_actions() {
        let mut next = *position;
        next.play(first).expect("legal");
        let first_order = order_key(position, first);
        if next.side_to_move() == side && !next.status().is_over() {
            for second in next.legal_actions() {
                let mut after = next;
                after.play(second).expect("legal");
                turns.push(WholeTurn {
                    first,
                    second: Some(second),
                    after,
                    repeats: repeats(&after),
                    order: (first_order, order_key(&next, second)),
                });
            }
        } else {
            turns.push(WholeTurn {
                first,
                second: None,
                after: next,
                repeats: repeats(&next),
                order: (first_order, 0),
            });
        }
    }
    turns
}

impl Opponent<Cube> for Velha {
    fn choose(&mut self, position: &Cube, limits: Limits, rng: &mut Rng) -> Option<CubeAction> {
        self.choose_in_game(&[], position, limits, rng)
    }

    fn choose_in_game(
        &mut self,
        earlier: &[Cube],
        position: &Cube,
        limits: Limits,
        rng: &mut Rng,
    ) -> Option<CubeAction> {
        crate::decide_at_once(self, earlier, position, limits, rng)
    }
}

impl Deliberate<Cube> for Velha {
    fn start(&mut self, earlier: &[Cube], position: &Cube, limits: Limits, rng: &mut Rng) {
        let Status::Ongoing(me) = position.status() else {
            self.stats = VelhaStats::default();
            self.job = Some(Job::Decided(None));
            return;
        };
        // An immediate win needs no search.
        for action in position.legal_actions() {
            let mut next = *position;
            if next.play(action) == Ok(Status::Win(me)) {
                self.stats = VelhaStats {
                    score: MATE - 1,
                    ..VelhaStats::default()
                };
                self.job = Some(Job::Decided(Some(action)));
                return;
            }
        }
        self.begin(earlier, position, limits, MAX_DEPTH, Some(rng));
    }

    fn think(&mut self, slice: Duration, _rng: &mut Rng) -> Thought<CubeAction> {
        match self.work(slice) {
            Some(found) => Thought::Decided(found.map(|(action, _)| action)),
            None if self.job.is_some() => Thought::Thinking,
            None => Thought::Decided(None),
        }
    }
}
