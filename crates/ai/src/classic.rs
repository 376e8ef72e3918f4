//! The Vila Quintal, Jogo da Velha's three characters (CLASSIC-R06).

use std::sync::OnceLock;

use velha_rules::{Cell, Classic, Player, Position, Status, has_line};

use crate::{Limits, Opponent, Rng};

/// One of the three characters the person can play against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Character {
    /// Easy: closes its own line only now and then, never blocks yours, otherwise random.
    Rabisco,
    /// Medium: almost always wins at once and blocks, but never sees double threats;
    /// otherwise centre, then corners, then sides.
    Nino,
    /// Hard: perfect play; prefers, among equal moves, those that leave the most mistakes.
    Quelonia,
}

impl Character {
    /// All three, easiest first.
    pub const ALL: [Character; 3] = [Character::Rabisco, Character::Nino, Character::Quelonia];

    /// The engine protocol's name.
    pub const fn protocol_name(self) -> &'static str {
        match self {
            Character::Rabisco => "rabisco",
            Character::Nino => "nino",
            Character::Quelonia => "quelonia",
        }
    }

    /// Vó Quelônia's candidate moves: the best-valued moves that leave the person the most
    /// ways to go wrong. She picks one of them at random.
    pub fn quelonia_candidates(board: &Classic) -> Vec<Cell> {
        let moves: Vec<(Cell, i8)> = board
            .legal_actions()
            .into_iter()
            .map(|cell| (cell, -value(&after(board, cell))))
            .collect();
        let Some(best) = moves.iter().map(|&(_, v)| v).max() else {
            return vec![];
        };
        let scored: Vec<(Cell, usize)> = moves
            .iter()
            .filter(|&&(_, v)| v == best)
            .map(|&(cell, _)| (cell, mistakes_left(&after(board, cell))))
            .collect();
        let most = scored.iter().map(|&(_, m)| m).max().unwrap_or(0);
        scored
            .into_iter()
            .filter(|&(_, m)| m == most)
            .map(|(cell, _)| cell)
            .collect()
    }
}

impl Opponent<Classic> for Character {
    fn choose(&mut self, board: &Classic, _limits: Limits, rng: &mut Rng) -> Option<Cell> {
        let me = board.side_to_move();
        let empty: Vec<Cell> = board.legal_actions().into_iter().collect();
        if empty.is_empty() {
            return None;
        }
        let wins = completing(board, me);
        let blocks = completing(board, !me);
        match self {
            Character::Rabisco => {
                if !wins.is_empty() && rng.chance(1, 3) {
                    return rng.pick(&wins);
                }
                // Neither winning (this time) nor blocking, whenever such a cell exists.
                let calm: Vec<Cell> = empty
                    .iter()
                    .copied()
                    .filter(|c| !wins.contains(c) && !blocks.contains(c))
                    .collect();
                let unblocking: Vec<Cell> = empty
                    .iter()
                    .copied()
                    .filter(|c| !blocks.contains(c))
                    .collect();
                rng.pick(&calm)
                    .or_else(|| rng.pick(&unblocking))
                    .or_else(|| rng.pick(&empty))
            }
            Character::Nino => {
                if !wins.is_empty() && rng.chance(9, 10) {
                    return rng.pick(&wins);
                }
                if !blocks.is_empty() && rng.chance(9, 10) {
                    return rng.pick(&blocks);
                }
                let class = |c: &Cell| match c.index() {
                    4 => 0,
                    0 | 2 | 6 | 8 => 1,
                    _ => 2,
                };
                let best = empty.iter().map(class).min()?;
                let preferred: Vec<Cell> =
                    empty.iter().copied().filter(|c| class(c) == best).collect();
                rng.pick(&preferred)
            }
            Character::Quelonia => rng.pick(&Character::quelonia_candidates(board)),
        }
    }
}

/// Empty cells that would complete a line of `player`.
fn completing(board: &Classic, player: Player) -> Vec<Cell> {
    board
        .legal_actions()
        .into_iter()
        .filter(|c| has_line(board.mask(player) | c.bit()))
        .collect()
}

fn after(board: &Classic, cell: Cell) -> Classic {
    let mut next = *board;
    next.play(cell).expect("a legal cell");
    next
}

/// How many replies of the side to move are worse for it than its best reply (by outcome:
/// a drawable position lost, a won one drawn or lost).
fn mistakes_left(board: &Classic) -> usize {
    let outcomes: Vec<i8> = board
        .legal_actions()
        .into_iter()
        .map(|c| -value(&after(board, c)).signum())
        .collect();
    let best = outcomes.iter().copied().max().unwrap_or(0);
    outcomes.iter().filter(|&&o| o < best).count()
}

/// The exact value of a position for the side to move: 0 for a draw; a win counts more the
/// sooner it comes (1 + empty cells at the end), a loss the same negated.
pub(crate) fn value(board: &Classic) -> i8 {
    let table = VALUES.get_or_init(solve_all);
    table[index(board)]
}

static VALUES: OnceLock<Vec<i8>> = OnceLock::new();

const UNKNOWN: i8 = i8::MIN;

/// A unique number per board and side to move: base-3 digits plus a side bit.
fn index(board: &Classic) -> usize {
    let digits = Cell::ALL.iter().rev().fold(0, |acc, &c| {
        acc * 3
            + match board.piece(c) {
                None => 0,
                Some(Player::X) => 1,
                Some(Player::O) => 2,
            }
    });
    digits * 2 + board.side_to_move().index()
}

/// Solves every position reachable from the empty board, whoever starts (a few thousand).
fn solve_all() -> Vec<i8> {
    let mut table = vec![UNKNOWN; 19_683 * 2];
    for starter in Player::BOTH {
        solve(&Classic::new(starter), &mut table);
    }
    table
}

fn solve(board: &Classic, table: &mut [i8]) -> i8 {
    let i = index(board);
    if table[i] != UNKNOWN {
        return table[i];
    }
    let v = match board.status() {
        Status::Draw => 0,
        // The previous player just won: a loss for the side to move.
        Status::Win(_) => -(1 + empty_cells(board)),
        Status::Ongoing(_) => board
            .legal_actions()
            .into_iter()
            .map(|c| -solve(&after(board, c), table))
            .max()
            .expect("an ongoing game has a move"),
    };
    table[i] = v;
    v
}

/// Empty cells of a board.
pub(crate) fn empty_cells(board: &Classic) -> i8 {
    (9 - (board.mask(Player::X) | board.mask(Player::O)).count_ones()) as i8
}
