//! What the referee of a live match needs of its game beyond the rules' `Position`: the wire's words for
//! refusals and endings, and whether a turn run out on the clock is a move of the game.

use velha_api::{EndHow, Illegal};
use velha_rules::cube::{EndKind, OneWayRule};
use velha_rules::{Cube, CubeIllegal, Player, Position, Ultimate, UltimateIllegal};

/// A game a live match plays.
pub(crate) trait LiveGame:
    Position<Action: Send + Sync, Illegal: Send + Sync> + Send + Sync + 'static
{
    /// Whether a turn lost on the clock is a move of the game, stored and sent like one (2.0's
    /// lost turn), rather than the end of the match (the cube's).
    const TIMEOUT_IS_A_MOVE: bool;

    /// Who moves (or would, once the game is over).
    fn side_to_move(&self) -> Player;

    /// The wire's word for why the rules refused an action.
    fn illegal(reason: Self::Illegal) -> Illegal;

    /// How the game's own rules ended it, with this winner.
    fn end_how(&self, winner: Option<Player>) -> EndHow;
}

impl LiveGame for Cube {
    const TIMEOUT_IS_A_MOVE: bool = false;

    fn side_to_move(&self) -> Player {
        Cube::side_to_move(self)
    }

    fn illegal(reason: CubeIllegal) -> Illegal {
        match reason {
            CubeIllegal::GameOver => Illegal::GameOver,
            CubeIllegal::OpponentSymbol => Illegal::OpponentSymbol,
            CubeIllegal::SymbolLimit(p) => Illegal::SymbolLimit(velha_api::Seat::from(p)),
            CubeIllegal::WrongDirection(OneWayRule::Level1) => Illegal::WrongDirectionLevel1,
            CubeIllegal::WrongDirection(OneWayRule::Alternation) => {
                Illegal::WrongDirectionAlternation
            }
            CubeIllegal::WrongDirection(OneWayRule::FreeTurn) => Illegal::WrongDirectionFreeTurn,
            CubeIllegal::SecondFreeTurn => Illegal::SecondFreeTurn,
        }
    }

    fn end_how(&self, _winner: Option<Player>) -> EndHow {
        match self.ending().map(|e| e.how) {
            Some(EndKind::BothLines) => EndHow::BothLines,
            Some(EndKind::Timeout) => EndHow::Time,
            _ => EndHow::Line,
        }
    }
}

impl LiveGame for Ultimate {
    const TIMEOUT_IS_A_MOVE: bool = true;

    fn side_to_move(&self) -> Player {
        Ultimate::side_to_move(self)
    }

    fn illegal(reason: UltimateIllegal) -> Illegal {
        match reason {
            UltimateIllegal::GameOver | UltimateIllegal::NoClock => Illegal::GameOver,
            UltimateIllegal::WrongBoard { sent } => Illegal::WrongBoard(sent + 1),
            UltimateIllegal::BoardDecided => Illegal::BoardDecided,
            UltimateIllegal::Occupied => Illegal::Occupied,
        }
    }

    fn end_how(&self, winner: Option<Player>) -> EndHow {
        match winner {
            Some(_) => EndHow::Line,
            None => EndHow::Draw,
        }
    }
}
