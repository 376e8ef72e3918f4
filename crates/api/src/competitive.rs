//! Jogo da Velha 2.0's competitive mode (online.md ON-V01, ON-V02; ultimate.md V2-R05, V2-R06):
//! a queue that pairs signed-in players by rating, widening the difference it accepts the longer
//! they wait; matches with the server's 1-minute turns; the rating after each; a leaderboard.

use serde::{Deserialize, Serialize};

/// The rating difference a player accepts on first joining the queue.
pub const FIRST_DIFFERENCE: u32 = 100;
/// How much more is accepted every [`WIDEN_EVERY_MS`] of waiting.
pub const WIDEN_BY: u32 = 50;
/// See [`WIDEN_BY`].
pub const WIDEN_EVERY_MS: u64 = 5_000;
/// The widest difference ever accepted: anyone, after about 2.5 minutes.
pub const WIDEST_DIFFERENCE: u32 = 1_600;

/// The rating difference a player who has waited `waited_ms` accepts: two players are paired
/// when each accepts their difference.
pub fn accepted_difference(waited_ms: u64) -> u32 {
    let steps = u32::try_from(waited_ms / WIDEN_EVERY_MS).unwrap_or(u32::MAX);
    FIRST_DIFFERENCE
        .saturating_add(WIDEN_BY.saturating_mul(steps))
        .min(WIDEST_DIFFERENCE)
}

/// The player in the queue, or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QueueStatus {
    /// Whether the player waits in the queue.
    pub queued: bool,
    /// Their rating (V2-R06: 1000 to start).
    pub rating: u32,
    /// How long they have waited, in milliseconds.
    pub waited_ms: u64,
    /// The rating difference accepted now ([`accepted_difference`]).
    pub accepted_difference: u32,
}

/// A rating before and after a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingChange {
    /// Before the match.
    pub before: u32,
    /// After it.
    pub after: u32,
}

/// Both players' rating changes at the end of a competitive match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingChanges {
    /// X's.
    pub x: RatingChange,
    /// O's.
    pub o: RatingChange,
}

/// A line of the rating leaderboard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RatingRow {
    /// 1 for the best; equal ratings share a position.
    pub position: u64,
    /// The player name.
    pub name: String,
    /// The rating.
    pub rating: u32,
    /// Rated matches played.
    pub games: u32,
    /// Of which won.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost.
    pub losses: u32,
}

/// A page of the leaderboard, and the player's own line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Leaderboard {
    /// Best first.
    pub rows: Vec<RatingRow>,
    /// The player's line, once they have played a rated match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub me: Option<RatingRow>,
}

/// Which page of the leaderboard.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams, utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", into_params(parameter_in = Query))]
pub struct LeaderboardQuery {
    /// Rows to skip from the top (0 when absent), at most 100 000.
    #[serde(default)]
    pub offset: Option<u32>,
    /// Rows in the page, 1 to 100 (50 when absent).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_v01_the_accepted_difference_widens_with_waiting_up_to_a_bound() {
        assert_eq!(accepted_difference(0), 100);
        assert_eq!(accepted_difference(4_999), 100);
        assert_eq!(accepted_difference(5_000), 150);
        assert_eq!(accepted_difference(60_000), 700);
        assert_eq!(accepted_difference(u64::MAX), WIDEST_DIFFERENCE);
        let mut last = 0;
        for ms in (0..400_000).step_by(1_000) {
            let now = accepted_difference(ms);
            assert!(now >= last, "never narrows");
            last = now;
        }
    }
}
