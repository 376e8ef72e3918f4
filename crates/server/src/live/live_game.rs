//! What the referee of a live match needs of its game beyond the rules' `Position`: whether a
//! turn run out on the clock is a move of the game, and how its position is stored.

use velha_api::Illegal;
use velha_rules::{Cube, Player, Position, Ultimate};

/// A game a live match plays.
pub(crate) trait LiveGame:
    Position<Action: Send + Sync, Illegal: Send + Sync + Into<Illegal>> + Send + Sync + 'static
{
    /// Whether a turn lost on the clock is a move of the game, stored and sent like one (2.0's
    /// lost turn), rather than the end of the match (the cube's).
    const TIMEOUT_IS_A_MOVE: bool;

    /// Who moves (or would, once the game is over).
    fn side_to_move(&self) -> Player;

    /// The position as the match's row keeps it: its state line, whole.
    fn stored_line(&self) -> String {
        self.to_string()
    }
}

impl LiveGame for Cube {
    const TIMEOUT_IS_A_MOVE: bool = false;

    fn side_to_move(&self) -> Player {
        Cube::side_to_move(self)
    }
}

impl LiveGame for Ultimate {
    const TIMEOUT_IS_A_MOVE: bool = true;

    fn side_to_move(&self) -> Player {
        Ultimate::side_to_move(self)
    }

    /// With the lost-turn counts even when none is lost, so a line stored before the counts
    /// existed (three fields) is told apart.
    fn stored_line(&self) -> String {
        self.state_line_with_counts()
    }
}
