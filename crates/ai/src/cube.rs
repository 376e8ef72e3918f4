//! The Velha, the cube's computer opponent (CUBE-V05): the same rules as a person, at both
//! levels, free turns included.
//!
//! Negamax alpha-beta with iterative deepening and a transposition table. Depth counts whole
//! turns: a free turn (S+, B+) keeps the turn and the depth, so "free turn, then main action"
//! is one ply like a plain main action. Two plies always complete, whatever the budget, so the
//! Velha never misses a win in one and never allows a loss in one that it could avoid.

use std::hash::{Hash, Hasher};

use velha_rules::{Cell, Cube, CubeAction, LINES, Position, Status};

use crate::budget::Budget;
use crate::{Limits, Opponent, Rng};

const MATE: i32 = 30_000;
/// Scores beyond this are wins or losses in a known number of actions.
const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;
/// Plies that always complete, whatever the budget.
const MANDATORY_DEPTH: u32 = 2;
/// Deepest search tried.
const MAX_DEPTH: u32 = 32;
const TT_BITS: u32 = 17;

/// Search figures of the last decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VelhaStats {
    /// Positions visited.
    pub nodes: u64,
    /// Deepest fully searched depth, in turns.
    pub depth: u32,
}

/// The Velha. It keeps its transposition table between moves.
pub struct Velha {
    table: Vec<Entry>,
    /// Figures of the last [`Opponent::choose`].
    pub stats: VelhaStats,
}

impl std::fmt::Debug for Velha {
    /// The table is megabytes of entries: only the figures are worth printing.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Velha")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Default for Velha {
    fn default() -> Self {
        Velha::new()
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    score: i32,
    depth: u8,
    bound: Bound,
    /// Best action as its bit in [`CubeActions`] order, 255 for none.
    best: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

/// Search was stopped by the budget; the partial result is thrown away.
struct OutOfBudget;

impl Velha {
    /// A Velha with an empty table (about 3 MB).
    pub fn new() -> Velha {
        Velha {
            table: vec![Entry::default(); 1 << TT_BITS],
            stats: VelhaStats::default(),
        }
    }
}

impl Opponent<Cube> for Velha {
    fn choose(&mut self, position: &Cube, limits: Limits, rng: &mut Rng) -> Option<CubeAction> {
        let Status::Ongoing(me) = position.status() else {
            return None;
        };
        self.stats = VelhaStats::default();
        let mut root: Vec<CubeAction> = position.legal_actions().collect();
        // An immediate win needs no search.
        for &action in &root {
            let mut next = *position;
            if next.play(action) == Ok(Status::Win(me)) {
                return Some(action);
            }
        }
        // Shuffled, then ordered: equal moves are chosen differently from game to game.
        for i in (1..root.len()).rev() {
            root.swap(i, rng.below(i + 1));
        }
        root.sort_by_key(|&a| order_key(position, a));
        let mut budget = Budget::start(limits);
        let mut best = root[0];
        for depth in 1..=MAX_DEPTH {
            let mut search = Search {
                velha: self,
                budget: &mut budget,
                mandatory: depth <= MANDATORY_DEPTH,
            };
            match search.root(position, &mut root, depth) {
                Ok((action, score)) => {
                    best = action;
                    self.stats.depth = depth;
                    // A forced result is final; deeper search cannot change it.
                    if score.abs() >= MATE_BOUND {
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
        Some(best)
    }
}

struct Search<'a> {
    velha: &'a mut Velha,
    budget: &'a mut Budget,
    /// The first plies ignore the budget: they are what makes the Velha safe.
    mandatory: bool,
}

impl Search<'_> {
    fn tick(&mut self) -> Result<(), OutOfBudget> {
        if self.budget.spend() || self.mandatory {
            Ok(())
        } else {
            Err(OutOfBudget)
        }
    }

    /// Searches every root move at `depth`; returns the best and its score, and moves it to
    /// the front for the next iteration.
    fn root(
        &mut self,
        position: &Cube,
        moves: &mut [CubeAction],
        depth: u32,
    ) -> Result<(CubeAction, i32), OutOfBudget> {
        let mut alpha = -INFINITY;
        let mut best = 0;
        for (i, &action) in moves.iter().enumerate() {
            let mut child = *position;
            child.play(action).expect("root moves are legal");
            let score = self.child_score(position, &child, depth, -INFINITY, -alpha, 1)?;
            if score > alpha {
                alpha = score;
                best = i;
            }
        }
        moves[..=best].rotate_right(1);
        Ok((moves[0], alpha))
    }

    /// The score of `child` (reached from `parent` by one action) for `parent`'s side to
    /// move: a free turn keeps both the side and the depth.
    fn child_score(
        &mut self,
        parent: &Cube,
        child: &Cube,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: i32,
    ) -> Result<i32, OutOfBudget> {
        if child.side_to_move() == parent.side_to_move() && !child.status().is_over() {
            self.negamax(child, depth, alpha, beta, ply)
        } else {
            Ok(-self.negamax(child, depth - 1, -beta, -alpha, ply)?)
        }
    }

    fn negamax(
        &mut self,
        position: &Cube,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: i32,
    ) -> Result<i32, OutOfBudget> {
        self.tick()?;
        let side = position.side_to_move();
        match position.status() {
            Status::Win(w) => return Ok(if w == side { MATE - ply } else { -(MATE - ply) }),
            Status::Draw => return Ok(0),
            Status::Ongoing(_) => {}
        }
        if depth == 0 {
            return Ok(evaluate(position, ply));
        }
        let key = hash(position);
        let slot = (key as usize) & ((1 << TT_BITS) - 1);
        let entry = self.velha.table[slot];
        let mut tt_move = None;
        if entry.key == key {
            tt_move = (entry.best != u8::MAX).then_some(entry.best);
            if u32::from(entry.depth) >= depth {
                let score = from_table(entry.score, ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return Ok(score);
                }
            }
        }
        let legal = position.legal_actions();
        // At most 27 actions: kept on the stack, this loop is the hot path.
        let mut buffer = [(0i32, 0u8); 27];
        let mut count = 0;
        for action in legal {
            buffer[count] = (order_key(position, action), action_bit(action));
            count += 1;
        }
        let moves = &mut buffer[..count];
        if let Some(m) = tt_move.and_then(|t| moves.iter_mut().find(|m| m.1 == t)) {
            m.0 = i32::MIN;
        }
        moves.sort_unstable();
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = u8::MAX;
        for &(_, bit) in moves.iter() {
            let action = action_from_bit(bit);
            let mut child = *position;
            child.play(action).expect("legal");
            let score = self.child_score(position, &child, depth, alpha, beta, ply + 1)?;
            if score > best_score {
                best_score = score;
                best_move = bit;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best_score <= original_alpha {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.velha.table[slot] = Entry {
            key,
            score: to_table(best_score, ply),
            depth: depth as u8,
            bound,
            best: best_move,
        };
        Ok(best_score)
    }
}

/// Mate scores are stored relative to the node, so they stay true from other paths.
fn to_table(score: i32, ply: i32) -> i32 {
    if score >= MATE_BOUND {
        score + ply
    } else if score <= -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

fn from_table(score: i32, ply: i32) -> i32 {
    if score >= MATE_BOUND {
        score - ply
    } else if score <= -MATE_BOUND {
        score + ply
    } else {
        score
    }
}

fn action_bit(action: CubeAction) -> u8 {
    match action {
        CubeAction::Tap(cell) => cell.index() as u8,
        CubeAction::Turn(turn) => 9 + turn.index() as u8,
    }
}

fn action_from_bit(bit: u8) -> CubeAction {
    match bit {
        0..9 => CubeAction::Tap(Cell::ALL[bit as usize]),
        _ => CubeAction::Turn(velha_rules::Turn::ALL[bit as usize - 9]),
    }
}

/// Lower keys are tried first: marks, then counted turns, then resets, then free turns
/// (they double the branching and rarely decide alone).
fn order_key(position: &Cube, action: CubeAction) -> i32 {
    use velha_rules::cube::TapKind;
    match action {
        CubeAction::Tap(cell) => match position.tap_kind(cell) {
            TapKind::Mark => {
                let side = position.side_to_move();
                let own = position.side1_marks(side) | cell.bit();
                if velha_rules::has_line(own) {
                    -100
                } else {
                    [2, 3, 2, 3, 1, 3, 2, 3, 2][cell.index()]
                }
            }
            _ => 20,
        },
        CubeAction::Turn(turn) if turn.is_counted() => 10,
        CubeAction::Turn(_) => 30,
    }
}

/// The position's worth for the side to move, which acts next.
fn evaluate(position: &Cube, ply: i32) -> i32 {
    let side = position.side_to_move();
    let own = position.side1_marks(side);
    let opp = position.side1_marks(!side);
    let blank = position.side1_blank();
    let own_free = own.count_ones() < 4;
    let opp_free = opp.count_ones() < 4;
    let mut score = 0;
    let mut own_threats = 0;
    let mut opp_threats = 0;
    for line in LINES {
        let (a, b) = ((own & line).count_ones(), (opp & line).count_ones());
        let open = (blank & line).count_ones();
        match (a, b) {
            (2, 0) if open == 1 => own_threats += 1,
            (0, 2) if open == 1 => opp_threats += 1,
            (1, 0) => score += 6,
            (0, 1) => score -= 6,
            (2, 0) => score += 12,
            (0, 2) => score -= 12,
            _ => {}
        }
    }
    // The side to move completes a ready line with a tap.
    if own_threats > 0 && own_free {
        return MATE - ply - 1;
    }
    score += if opp_free {
        -60 * opp_threats
    } else {
        -25 * opp_threats
    };
    if opp_threats >= 2 {
        score -= 120;
    }
    score += 20 * own_threats;
    // Symbols on side 1 are options; the last one before the limit is worth less.
    score += 3 * (own.count_ones() as i32 - opp.count_ones() as i32);
    score
}

/// A 64-bit key of everything that decides the future of a position.
fn hash(position: &Cube) -> u64 {
    let mut hasher = MixHasher(0);
    position.hash(&mut hasher);
    hasher.0
}

/// A fast multiply-rotate hasher: the table only needs well-spread keys, not resistance to
/// chosen inputs.
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}
