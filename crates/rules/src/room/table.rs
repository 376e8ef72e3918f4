//! The game on a room's table: a clockless match of its board (the rules' [`Match`], as live
//! matches hold theirs), played with cells written as the engine protocol writes them.

use std::fmt;

use super::{Board, RoomError, RoomGame};
use crate::game::{Ended, Refusal};
use crate::{Classic, ClassicIllegal, Match, Player, Ultimate, UltimateIllegal};

/// Why the rules of a room's board refused a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardIllegal {
    /// Jogo da Velha's reason.
    Classic(ClassicIllegal),
    /// Super's or 2.0's reason.
    Ultimate(UltimateIllegal),
}

impl fmt::Display for BoardIllegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardIllegal::Classic(reason) => reason.fmt(f),
            BoardIllegal::Ultimate(reason) => reason.fmt(f),
        }
    }
}

/// The match on the table, of whichever board the room plays.
#[derive(Clone, Debug)]
pub(super) enum Table {
    Classic(Match<Classic>),
    Ultimate(Match<Ultimate>),
}

/// Two tables are the same game when their boards and endings are: the positions a match
/// remembers for the Velha are not part of a room.
impl PartialEq for Table {
    fn eq(&self, other: &Table) -> bool {
        (self.board(), self.ended()) == (other.board(), other.ended())
    }
}

impl Eq for Table {}

/// Calls `$body` with the match on `$table` as `$m`, whichever board it is.
macro_rules! on_match {
    ($table:expr, $m:ident => $body:expr) => {
        match $table {
            Table::Classic($m) => $body,
            Table::Ultimate($m) => $body,
        }
    };
}

impl Table {
    /// The empty board of a game of `game` that `starter` begins.
    pub(super) fn new(game: RoomGame, starter: Player) -> Table {
        Table::of(Board::new(game, starter))
    }

    /// The match of a board as it stands (ended already if the board is decided).
    pub(super) fn of(board: Board) -> Table {
        match board {
            Board::Classic(b) => Table::Classic(Match::new(b, None, 0)),
            Board::Ultimate(b) => Table::Ultimate(Match::new(b, None, 0)),
        }
    }

    /// The position on the board.
    pub(super) fn board(&self) -> Board {
        match self {
            Table::Classic(m) => Board::Classic(*m.position()),
            Table::Ultimate(m) => Board::Ultimate(*m.position()),
        }
    }

    /// Who moves, while the game goes on.
    pub(super) fn to_move(&self) -> Option<Player> {
        on_match!(self, m => m.to_move())
    }

    /// The winner (none for a draw) and how, once over.
    pub(super) fn ended(&self) -> Option<Ended> {
        on_match!(self, m => m.ended())
    }

    /// `by` plays `cell` (`b2`, `e5`).
    pub(super) fn play(&mut self, by: Player, cell: &str) -> Result<(), RoomError> {
        // The turn is checked before the text, so a player out of turn hears that first.
        match self.to_move() {
            None => return Err(RoomError::Game(Refusal::Over)),
            Some(p) if p != by => return Err(RoomError::Game(Refusal::NotYourTurn)),
            Some(_) => {}
        }
        on_match!(self, m => {
            let cell = cell.parse().map_err(RoomError::Unreadable)?;
            m.act(by, cell, 0).map(drop).map_err(refused)
        })
    }

    /// `by`'s turn ran out on a clock kept elsewhere: a competitive 2.0 match's record played
    /// back (V2-R05). Rooms have no clock (ON-R04), and the other boards refuse it.
    pub(super) fn time_out(&mut self, by: Player) -> Result<(), RoomError> {
        on_match!(self, m => m.time_out(by).map(drop).map_err(refused))
    }

    /// `by` resigns (CLASSIC-R11).
    pub(super) fn resign(&mut self, by: Player) -> Result<Ended, RoomError> {
        on_match!(self, m => m.resign(by).map_err(refused))
    }

    /// `by`, to move, is absent and the other claims the game (CLASSIC-R12).
    pub(super) fn absent(&mut self, by: Player) -> Result<Ended, RoomError> {
        on_match!(self, m => m.absent(by).map_err(|r| match r {
            Refusal::NotYourTurn => RoomError::NotAbsent,
            r => refused(r),
        }))
    }
}

impl From<ClassicIllegal> for BoardIllegal {
    fn from(reason: ClassicIllegal) -> BoardIllegal {
        BoardIllegal::Classic(reason)
    }
}

impl From<UltimateIllegal> for BoardIllegal {
    fn from(reason: UltimateIllegal) -> BoardIllegal {
        BoardIllegal::Ultimate(reason)
    }
}

fn refused<I: Into<BoardIllegal>>(refusal: Refusal<I>) -> RoomError {
    RoomError::Game(refusal.map_illegal(Into::into))
}
