//! The rating of Jogo da Velha 2.0's competitive mode (V2-R06).

use serde::{Deserialize, Serialize};

/// The rating every player starts with.
pub const INITIAL_RATING: u32 = 1000;

/// The result of a rated game, for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RatedResult {
    /// +30.
    Win,
    /// No change.
    Draw,
    /// −20, never below 0.
    Loss,
}

/// The rating after a game: +30 for a win, 0 for a draw, −20 for a loss, never below 0.
pub const fn rating_after(rating: u32, result: RatedResult) -> u32 {
    match result {
        RatedResult::Win => rating.saturating_add(30),
        RatedResult::Draw => rating,
        RatedResult::Loss => rating.saturating_sub(20),
    }
}
