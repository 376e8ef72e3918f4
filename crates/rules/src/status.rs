//! Where a game stands.

use serde::{Deserialize, Serialize};

use crate::Player;

/// Who moves next, or how the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    /// The game goes on; this player acts next.
    Ongoing(Player),
    /// The game is over and this player won.
    Win(Player),
    /// The game is over and nobody won ("velha").
    Draw,
}

impl Status {
    /// True once the game has ended (a win or a draw).
    pub const fn is_over(self) -> bool {
        !matches!(self, Status::Ongoing(_))
    }

    /// The winner, if the game ended with one.
    pub const fn winner(self) -> Option<Player> {
        match self {
            Status::Win(p) => Some(p),
            _ => None,
        }
    }
}

impl std::fmt::Display for Status {
    /// The protocol's `status` answer: `ongoing X`, `win O`, `draw`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Ongoing(p) => write!(f, "ongoing {p}"),
            Status::Win(p) => write!(f, "win {p}"),
            Status::Draw => write!(f, "draw"),
        }
    }
}
