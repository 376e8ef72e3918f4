//! A room as it is stored (JSON in the server's `rooms` table): the shape rooms have been
//! written in since the first release, whatever a room holds in memory, so a room stored by
//! any earlier version reads back and nothing has to be migrated.

use serde::{Deserialize, Serialize};

use super::table::Table;
use super::{Board, Room, RoomGame, Seat};
use crate::game::Ending;
use crate::{Player, Series, Status};

#[derive(Serialize, Deserialize)]
pub(super) struct StoredRoom {
    game: RoomGame,
    seats: [Option<Seat>; 2],
    spectators: u32,
    board: Board,
    series: Series,
    ending: Option<StoredEnding>,
    rematch: [bool; 2],
    last_activity_ms: u64,
}

/// How the game on the table ended, in the symbols of that game.
#[derive(Serialize, Deserialize)]
enum StoredEnding {
    /// On the board: a line or a draw.
    Board(Status),
    /// This player resigned.
    Resigned(Player),
    /// This player was absent too long and the other claimed the game.
    Absent(Player),
}

impl TryFrom<StoredRoom> for Room {
    type Error = String;

    fn try_from(stored: StoredRoom) -> Result<Room, String> {
        let mut table = Table::of(stored.board);
        let on_the_board = stored.board.status();
        let fits = match stored.ending {
            None => !on_the_board.is_over(),
            Some(StoredEnding::Board(status)) => status == on_the_board && status.is_over(),
            Some(StoredEnding::Resigned(p)) => table.resign(p).is_ok(),
            Some(StoredEnding::Absent(p)) => table.absent(p).is_ok(),
        };
        if !fits {
            return Err("the stored ending does not fit the board".into());
        }
        Ok(Room {
            game: stored.game,
            seats: stored.seats,
            spectators: stored.spectators,
            table,
            series: stored.series,
            rematch: stored.rematch,
            last_activity_ms: stored.last_activity_ms,
        })
    }
}

impl From<Room> for StoredRoom {
    fn from(room: Room) -> StoredRoom {
        let board = room.table.board();
        let ending = room.table.ended().map(|ended| match ended {
            (Some(winner), Ending::Resigned) => StoredEnding::Resigned(!winner),
            // A room has no clock and nobody abandons it: the other endings not on the board
            // are claims of absence.
            (Some(winner), how) if !how.on_the_board() => StoredEnding::Absent(!winner),
            _ => StoredEnding::Board(board.status()),
        });
        StoredRoom {
            game: room.game,
            seats: room.seats,
            spectators: room.spectators,
            board,
            series: room.series,
            ending,
            rematch: room.rematch,
            last_activity_ms: room.last_activity_ms,
        }
    }
}
