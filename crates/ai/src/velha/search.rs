//! Negamax alpha-beta over whole turns, with the transposition table, on an explicit stack:
//! the search can stop at any node when its slice of time ends and go on from there later,
//! visiting exactly the nodes it would have visited at once.
//!
//! Depth counts whole turns: a free turn (S+, B+) keeps the side and the depth, so "free turn,
//! then main action" is one ply like a plain main action. Scores are for the side to move at
//! each node; `ply` counts actions from the root, so a sooner win scores higher.

use velha_rules::{Cell, Cube, CubeAction, Position, Status, Turn};

use super::eval::Weights;
use super::table::{Bound, Entry, Table, from_table, key, to_table};
use super::{INFINITY, MATE};
use crate::budget::{Budget, Spend};

/// Why a search stopped before its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The slice is over: run it again to go on.
    Pause,
    /// The budget is gone: the partial result is thrown away.
    OutOfBudget,
}

/// What a search works with.
pub(super) struct Context<'a> {
    pub table: &'a mut Table,
    pub weights: &'a Weights,
    pub budget: &'a mut Budget,
    /// The first plies ignore the budget: they are what makes the Velha safe.
    pub mandatory: bool,
}

impl Context<'_> {
    fn tick(&mut self) -> Result<(), Stop> {
        let spend = if self.mandatory {
            self.budget.spend_anyway()
        } else {
            self.budget.spend()
        };
        match spend {
            Spend::Go => Ok(()),
            Spend::Pause => Err(Stop::Pause),
            Spend::Exhausted => Err(Stop::OutOfBudget),
        }
    }
}

/// A node to search: `negamax(position, depth, alpha, beta, ply)`.
#[derive(Clone, Copy, Debug)]
struct Call {
    position: Cube,
    depth: u32,
    alpha: i32,
    beta: i32,
    ply: i32,
}

/// A node whose actions are being searched.
#[derive(Clone, Copy, Debug)]
struct Frame {
    call: Call,
    original_alpha: i32,
    key: u64,
    /// (order key, action bit); at most 27 actions, kept inline: this is the hot path.
    moves: [(i32, u8); 27],
    count: u8,
    /// The action searched now (or next).
    next: u8,
    /// The action searched now is a free turn: its value is already this node's side's.
    free: bool,
    best_score: i32,
    best_move: u8,
}

/// One fail-soft alpha-beta search in progress. Table entries cut only at exactly the depth
/// asked: an entry of a deeper search would make the result depend on what was searched
/// before, and the search could no longer be checked against plain negamax
/// (tests/velha_oracle.rs).
#[derive(Debug, Default)]
pub(super) struct Negamax {
    stack: Vec<Frame>,
    /// The root call, until it has been entered.
    root: Option<Call>,
}

impl Negamax {
    /// Starts searching `position` `depth` whole turns deep within `(alpha, beta)`.
    pub fn begin(&mut self, position: &Cube, depth: u32, alpha: i32, beta: i32, ply: i32) {
        self.stack.clear();
        self.root = Some(Call {
            position: *position,
            depth,
            alpha,
            beta,
            ply,
        });
    }

    /// Searches on; the value for the side to move at the root once done. After a pause,
    /// running again goes on where it stopped.
    pub fn run(&mut self, cx: &mut Context<'_>) -> Result<i32, Stop> {
        loop {
            let call = match (self.root, self.stack.last_mut()) {
                (Some(root), _) => root,
                (None, Some(top)) if top.next < top.count => {
                    let mut child = top.call.position;
                    let bit = top.moves[usize::from(top.next)].1;
                    child.play(action_from_bit(bit)).expect("legal");
                    let parent = top.call;
                    top.free = child.side_to_move() == parent.position.side_to_move()
                        && !child.status().is_over();
                    if top.free {
                        Call {
                            position: child,
                            ply: parent.ply + 1,
                            ..parent
                        }
                    } else {
                        Call {
                            position: child,
                            depth: parent.depth - 1,
                            alpha: -parent.beta,
                            beta: -parent.alpha,
                            ply: parent.ply + 1,
                        }
                    }
                }
                (None, Some(_)) => {
                    let done = self.stack.pop().expect("a frame");
                    self.finish(cx, &done);
                    if self.answer(done.best_score) {
                        return Ok(done.best_score);
                    }
                    continue;
                }
                (None, None) => unreachable!("run after the result"),
            };
            let entered = self.enter(cx, call)?;
            self.root = None;
            if let Some(value) = entered
                && self.answer(value)
            {
                return Ok(value);
            }
        }
    }

    /// Hands a node's value to its parent; true when it was the root.
    fn answer(&mut self, value: i32) -> bool {
        let Some(top) = self.stack.last_mut() else {
            return true;
        };
        let score = if top.free { value } else { -value };
        if score > top.best_score {
            top.best_score = score;
            top.best_move = top.moves[usize::from(top.next)].1;
        }
        top.call.alpha = top.call.alpha.max(score);
        top.next = if top.call.alpha >= top.call.beta {
            top.count
        } else {
            top.next + 1
        };
        false
    }

    /// Visits a node: its value when known at once, or `None` after pushing its frame.
    fn enter(&mut self, cx: &mut Context<'_>, call: Call) -> Result<Option<i32>, Stop> {
        cx.tick()?;
        let Call {
            position,
            depth,
            alpha,
            beta,
            ply,
        } = call;
        let side = position.side_to_move();
        match position.status() {
            Status::Win(w) => return Ok(Some(if w == side { MATE - ply } else { -(MATE - ply) })),
            Status::Draw => return Ok(Some(0)),
            Status::Ongoing(_) => {}
        }
        if depth == 0 {
            return Ok(Some(cx.weights.evaluate(&position, ply)));
        }
        let key = key(&position);
        let mut tt_move = None;
        if let Some(entry) = cx.table.probe(key) {
            tt_move = (entry.best != u8::MAX).then_some(entry.best);
            if u32::from(entry.depth) == depth {
                let score = from_table(entry.score, ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return Ok(Some(score));
                }
            }
        }
        let mut frame = Frame {
            call,
            original_alpha: alpha,
            key,
            moves: [(0, 0); 27],
            count: 0,
            next: 0,
            free: false,
            best_score: -INFINITY,
            best_move: u8::MAX,
        };
        for action in position.legal_actions() {
            frame.moves[usize::from(frame.count)] =
                (order_key(&position, action), action_bit(action));
            frame.count += 1;
        }
        let moves = &mut frame.moves[..usize::from(frame.count)];
        if let Some(m) = tt_move.and_then(|t| moves.iter_mut().find(|m| m.1 == t)) {
            m.0 = i32::MIN;
        }
        moves.sort_unstable();
        self.stack.push(frame);
        Ok(None)
    }

    /// Records a searched node in the table.
    fn finish(&self, cx: &mut Context<'_>, frame: &Frame) {
        let bound = if frame.best_score <= frame.original_alpha {
            Bound::Upper
        } else if frame.best_score >= frame.call.beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        cx.table.store(Entry {
            key: frame.key,
            score: to_table(frame.best_score, frame.call.ply),
            depth: frame.call.depth as u8,
            bound,
            best: frame.best_move,
        });
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
