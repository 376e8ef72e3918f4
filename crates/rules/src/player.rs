//! The two sides of every game.

use serde::{Deserialize, Serialize};

/// One of the two players. X is always the first symbol of the protocol's texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Player {
    /// The player with the X symbol.
    X,
    /// The player with the O symbol.
    O,
}

impl Player {
    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// 0 for X, 1 for O: an index into per-player arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The symbol as one character (`X` or `O`).
    pub const fn symbol(self) -> char {
        match self {
            Player::X => 'X',
            Player::O => 'O',
        }
    }

    /// Both players, X first.
    pub const BOTH: [Player; 2] = [Player::X, Player::O];
}

impl std::ops::Not for Player {
    type Output = Player;
    #[inline]
    fn not(self) -> Player {
        self.opponent()
    }
}

impl std::fmt::Display for Player {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.symbol())
    }
}
