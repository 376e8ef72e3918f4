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

use crate::budget::Budget;
use crate::{Limits, Opponent, Rng};
use search::{OutOfBudget, Search, order_key};
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
}

/// The Velha. She keeps her transposition table between moves.
pub struct Velha {
    table: Table,
    weights: Weights,
    /// Figures of the last decision.
    pub stats: VelhaStats,
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
    /// The Velha with her tuned weights and an empty table (about 2 MB).
    pub fn new() -> Velha {
        Velha::with_weights(Weights::TUNED)
    }

    /// A Velha that evaluates with `weights` (for tuning and for measuring the tuning).
    pub fn with_weights(weights: Weights) -> Velha {
        Velha {
            table: Table::new(),
            weights,
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
        self.think(earlier, position, limits, depth, None)
    }

    fn think(
        &mut self,
        earlier: &[Cube],
        position: &Cube,
        limits: Limits,
        max_depth: u32,
        rng: Option<&mut Rng>,
    ) -> Option<(CubeAction, i32)> {
        self.stats = VelhaStats::default();
        if position.status().is_over() || max_depth == 0 {
            return None;
        }
        let mut turns = whole_turns(earlier, position);
        // Shuffled, then ordered: equal moves are chosen differently from game to game.
        if let Some(rng) = rng {
            for i in (1..turns.len()).rev() {
                turns.swap(i, rng.below(i + 1));
            }
        }
        turns.sort_by_key(|t| t.order);
        let mut budget = Budget::start(limits);
        let mut best = None;
        for depth in 1..=max_depth {
            let mut search = Search {
                table: &mut self.table,
                weights: &self.weights,
                budget: &mut budget,
                mandatory: depth <= MANDATORY_DEPTH,
            };
            match root(&mut search, &mut turns, depth) {
                Ok(found) => {
                    best = Some(found);
                    self.stats.depth = depth;
                    self.stats.score = found.1;
                    // A forced result is final: deeper search finds the same one.
                    if found.1.abs() >= MATE_BOUND {
                        break;
                    }
                }
                Err(OutOfBudget) => break,
            }
            if budget.exhausted() {
                break;
            }
        }
        self.stats.nodes = budget.spent();
        best
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

/// Searches every whole turn at `depth` with the window `(alpha, ∞)` from the root's side;
/// returns the first action of the best and its value, and moves the best to the front for
/// the next iteration.
fn root(
    search: &mut Search<'_>,
    turns: &mut [WholeTurn],
    depth: u32,
) -> Result<(CubeAction, i32), OutOfBudget> {
    let mut alpha = -INFINITY;
    let mut best = 0;
    for (i, turn) in turns.iter().enumerate() {
        let ply = if turn.second.is_some() { 2 } else { 1 };
        let mut score = -search.negamax(&turn.after, depth - 1, -INFINITY, -alpha, ply)?;
        // A fail-low bound stays one after the cap: the cap only lowers.
        if turn.repeats && score.abs() < MATE_BOUND {
            score = score.min(REPETITION);
        }
        if score > alpha {
            alpha = score;
            best = i;
        }
    }
    turns[..=best].rotate_right(1);
    Ok((turns[0].first, alpha))
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
        let Status::Ongoing(me) = position.status() else {
            return None;
        };
        // An immediate win needs no search.
        for action in position.legal_actions() {
            let mut next = *position;
            if next.play(action) == Ok(Status::Win(me)) {
                self.stats = VelhaStats {
                    score: MATE - 1,
                    ..VelhaStats::default()
                };
                return Some(action);
            }
        }
        self.think(earlier, position, limits, MAX_DEPTH, Some(rng))
            .map(|(action, _)| action)
    }
}
