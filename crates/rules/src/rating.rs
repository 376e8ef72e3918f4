//! What a finished match is worth: the rankings' points (ON-K02) and the rating of Jogo da
//! Velha 2.0's competitive mode (V2-R06).

use serde::{Deserialize, Serialize};

use crate::game::Ending;

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

/// Ranking points of a match that ended `ending` (ON-K02): the winner's 3, and the loser's 1,
/// or 0 when they lost on time, by abandonment, by resigning or by being away. Only matches
/// with a winner score; 2.0's draws are rated instead (V2-R06).
pub const fn ranking_points(ending: Ending) -> (u32, u32) {
    if ending.on_the_board() {
        (3, 1)
    } else {
        (3, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_k02_a_win_is_3_a_loss_1_and_a_loss_on_time_or_by_abandonment_0() {
        assert_eq!(ranking_points(Ending::Line), (3, 1));
        assert_eq!(ranking_points(Ending::BothLines), (3, 1));
        assert_eq!(ranking_points(Ending::Time), (3, 0));
        assert_eq!(ranking_points(Ending::Abandonment), (3, 0));
        assert_eq!(ranking_points(Ending::Resigned), (3, 0));
        assert_eq!(ranking_points(Ending::Absent), (3, 0));
    }

    #[test]
    fn v2_r06_a_rating_moves_30_up_20_down_and_never_below_0() {
        assert_eq!(rating_after(1000, RatedResult::Win), 1030);
        assert_eq!(rating_after(1000, RatedResult::Draw), 1000);
        assert_eq!(rating_after(1000, RatedResult::Loss), 980);
        assert_eq!(rating_after(10, RatedResult::Loss), 0);
    }
}
