//! How a game ended, in one word for every game: a live match, a room's game, a replay.

use serde::{Deserialize, Serialize};

use crate::Seat;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EndHow {
    /// A line of the winner's (the cube's side 1, CUBE-R11); on 2.0 also the count of boards
    /// once every board is decided.
    Line,
    /// A cube turn made lines of both symbols and the player who turned lost (CUBE-R12).
    BothLines,
    /// The loser's time ran out: the cube's minute (ON-M03), 2.0's third lost turn (V2-R05).
    Time,
    /// The loser left, or did not come back within the grace time (ON-M04).
    Abandonment,
    /// Nobody won: a full board, or on 2.0 an even count or both lines at once (V2-R03, R04).
    Draw,
    /// The loser resigned (CLASSIC-R11).
    Resigned,
    /// The loser was away more than 2 days and the winner claimed the game (CLASSIC-R12).
    Absent,
}

impl EndHow {
    /// Every ending.
    pub const ALL: [EndHow; 7] = [
        EndHow::Line,
        EndHow::BothLines,
        EndHow::Time,
        EndHow::Abandonment,
        EndHow::Draw,
        EndHow::Resigned,
        EndHow::Absent,
    ];

    /// The word stored and sent.
    pub const fn as_str(self) -> &'static str {
        match self {
            EndHow::Line => "line",
            EndHow::BothLines => "both_lines",
            EndHow::Time => "time",
            EndHow::Abandonment => "abandonment",
            EndHow::Draw => "draw",
            EndHow::Resigned => "resigned",
            EndHow::Absent => "absent",
        }
    }

    /// The ending a stored word names.
    pub fn from_str_opt(s: &str) -> Option<EndHow> {
        EndHow::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Ending {
    /// Who won; none for a draw.
    pub winner: Option<Seat>,
    /// How.
    pub how: EndHow,
}
