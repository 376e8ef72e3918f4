//! One recorded game rebuilt from its actions (ON-P01): a room's, or a competitive 2.0
//! match's.

use super::table::Table;
use super::{ABSENT_ACTION, Board, RESIGN_ACTION, RoomError, RoomGame, TIMEOUT_ACTION};
use crate::Player;
use crate::game::Ended;

/// A game as its record rebuilds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReplay {
    /// The empty board, then the board after each move.
    pub boards: Vec<Board>,
    /// The winner (none for a draw) and how the game ended; none when the actions stop
    /// before its end.
    pub ending: Option<Ended>,
}

/// Replays a game of a `game` board that `starter` began (see [`crate::Series::starter_of`])
/// from its actions as recorded, each with the symbol that made it: cells, [`RESIGN_ACTION`],
/// [`ABSENT_ACTION`], and a competitive 2.0 match's lost turns, [`TIMEOUT_ACTION`]. Every
/// action goes through the same match a room plays, so a tampered record is refused rather
/// than shown.
pub fn replay_game(
    game: RoomGame,
    starter: Player,
    actions: &[(Player, &str)],
) -> Result<GameReplay, RoomError> {
    let mut table = Table::new(game, starter);
    let mut boards = vec![table.board()];
    for &(by, action) in actions {
        match action {
            RESIGN_ACTION => {
                table.resign(by)?;
            }
            // The claimant wins: the absent one was to move.
            ABSENT_ACTION => {
                table.absent(!by)?;
            }
            TIMEOUT_ACTION => {
                table.time_out(by)?;
                boards.push(table.board());
            }
            cell => {
                table.play(by, cell)?;
                boards.push(table.board());
            }
        }
    }
    Ok(GameReplay {
        boards,
        ending: table.ended(),
    })
}
