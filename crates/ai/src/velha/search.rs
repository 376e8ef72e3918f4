//! Negamax alpha-beta over whole turns, with the transposition table.
//!
//! Depth counts whole turns: a free turn (S+, B+) keeps the side and the depth, so "free turn,
//! then main action" is one ply like a plain main action. Scores are for the side to move at
//! each node; `ply` counts actions from the root, so a sooner win scores higher.

use velha_rules::{Cell, Cube, CubeAction, Position, Status, Turn};

use super::eval::Weights;
use super::table::{Bound, Entry, Table, from_table, key, to_table};
use super::{INFINITY, MATE};
use crate::budget::Budget;

/// Search was stopped by the budget; the partial result is thrown away.
pub(super) struct OutOfBudget;

pub(super) struct Search<'a> {
    pub table: &'a mut Table,
    pub weights: &'a Weights,
    pub budget: &'a mut Budget,
    /// The first plies ignore the budget: they are what makes the Velha safe.
    pub mandatory: bool,
}

impl Search<'_> {
    fn tick(&mut self) -> Result<(), OutOfBudget> {
        if self.budget.spend() || self.mandatory {
            Ok(())
        } else {
            Err(OutOfBudget)
        }
    }

    /// The value of `child`, reached from `parent` by one action, for `parent`'s side to
    /// move, within `parent`'s window: a free turn keeps the side, the window and the depth.
    pub fn child_score(
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

    /// Fail-soft alpha-beta. Table entries cut only at exactly the depth asked: an entry of a
    /// deeper search would make the result depend on what was searched before, and the
    /// search could no longer be checked against plain negamax (tests/velha_oracle.rs).
    pub fn negamax(
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
            return Ok(self.weights.evaluate(position, ply));
        }
        let key = key(position);
        let mut tt_move = None;
        if let Some(entry) = self.table.probe(key) {
            tt_move = (entry.best != u8::MAX).then_some(entry.best);
            if u32::from(entry.depth) == depth {
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
        // At most 27 actions: kept on the stack, this loop is the hot path.
        let mut buffer = [(0i32, 0u8); 27];
        let mut count = 0;
        for action in position.legal_actions() {
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
            let mut child = *position;
            child.play(action_from_bit(bit)).expect("legal");
            let score = self.child_score(position, &child, depth, alpha, beta, ply + 1)?;
            if score > best_score {
                best_score = score;
                best_move = bit;
            }
            alpha = alpha.max(score);
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
        self.table.store(Entry {
            key,
            score: to_table(best_score, ply),
            depth: depth as u8,
            bound,
            best: best_move,
        });
        Ok(best_score)
    }
}

pub(super) fn action_bit(action: CubeAction) -> u8 {
    match action {
        CubeAction::Tap(cell) => cell.index() as u8,
        CubeAction::Turn(turn) => 9 + turn.index() as u8,
    }
}

fn action_from_bit(bit: u8) -> CubeAction {
    match bit {
        0..9 => CubeAction::Tap(Cell::ALL[bit as usize]),
        _ => CubeAction::Turn(Turn::ALL[bit as usize - 9]),
    }
}

/// Lower keys are tried first: a tap that completes a line, marks (the centre, then
/// corners), then counted turns, then resets, then free turns (they double the branching
/// and rarely decide alone).
pub(super) fn order_key(position: &Cube, action: CubeAction) -> i32 {
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
