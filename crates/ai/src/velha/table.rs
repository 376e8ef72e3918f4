//! The transposition table: what earlier searches learned about a position, under a key
//! that holds exactly what decides the position's future.

use velha_rules::{Cube, Level, Player};

use super::MATE_BOUND;

/// Entries kept: 2^17 of 16 bytes, 2 MB.
const BITS: u32 = 17;

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Entry {
    pub key: u64,
    pub score: i32,
    /// Whole turns searched below the position.
    pub depth: u8,
    pub bound: Bound,
    /// Best action as [`super::search::action_bit`], `u8::MAX` for none.
    pub best: u8,
}

/// What an entry's score says about the position's value at its depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Bound {
    #[default]
    Exact,
    /// The value is at least the score (the search stopped at a cut-off).
    Lower,
    /// The value is at most the score (every action failed low).
    Upper,
}

pub(super) struct Table(Vec<Entry>);

impl Table {
    pub fn new() -> Table {
        Table(vec![Entry::default(); 1 << BITS])
    }

    /// The entry stored for `key`, if that slot still holds it.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.0[slot(key)];
        (entry.key == key).then_some(entry)
    }

    /// Always replaces: the newest search is the one being played.
    #[inline]
    pub fn store(&mut self, entry: Entry) {
        self.0[slot(entry.key)] = entry;
    }
}

#[inline]
fn slot(key: u64) -> usize {
    (key as usize) & ((1 << BITS) - 1)
}

/// A 64-bit key of what decides the future of `position`: the stickers, whose turn, whether
/// the free turn is spent, the level, and in level 2 the parity of each player's counted
/// turns (CUBE-R08). Not the counts themselves: positions that differ only in them play the
/// same, so the table shares their results and a return to one of them is a repetition.
pub(super) fn key(position: &Cube) -> u64 {
    let parity = |p: Player| match position.level() {
        Level::One => 0,
        Level::Two => u64::from(position.counted_turns(p) % 2),
    };
    let flags = u64::from(position.side_to_move() == Player::O)
        | u64::from(position.free_turn_made()) << 1
        | u64::from(position.level() == Level::Two) << 2
        | parity(Player::X) << 3
        | parity(Player::O) << 4;
    let mut h = mix(flags);
    for plane in [
        position.marks(Player::X),
        position.marks(Player::O),
        position.spent_stickers(),
    ] {
        h = mix(h ^ plane);
    }
    h
}

/// SplitMix64's finaliser: every input bit reaches every output bit.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Mate scores are stored relative to the node, so they stay true when the node is reached
/// after a different number of actions.
pub(super) fn to_table(score: i32, ply: i32) -> i32 {
    if score >= MATE_BOUND {
        score + ply
    } else if score <= -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

/// The inverse of [`to_table`] at the node's `ply`.
pub(super) fn from_table(score: i32, ply: i32) -> i32 {
    if score >= MATE_BOUND {
        score - ply
    } else if score <= -MATE_BOUND {
        score + ply
    } else {
        score
    }
}
