//! Invitation rooms (CLASSIC-R08 … R13, online.md ON-R01): two seats, spectators, a series of
//! games with the starter alternating (on 2.0 the symbols instead, V2-R08), resignation, the
//! absence claim and the idle close.
//!
//! Pure like the rest of the crate: the caller stores the room and passes the time of every
//! request (milliseconds since the Unix epoch); nothing here reads a clock.

mod replay;
mod stored;
mod table;

use serde::{Deserialize, Serialize};

use crate::game::{Ended, Refusal};
use crate::{Classic, ParseError, Player, Position, Series, Status, Ultimate, Variant};
pub use replay::{GameReplay, replay_game};
use stored::StoredRoom;
pub use table::BoardIllegal;
use table::Table;

/// How long the player to move may be away before the other may claim the game (CLASSIC-R12).
pub const ABSENCE_MS: u64 = 2 * 24 * 60 * 60 * 1000;
/// How long a room may go without a move before it closes (CLASSIC-R12).
pub const IDLE_CLOSE_MS: u64 = 7 * 24 * 60 * 60 * 1000;
/// Spectators a room admits (CLASSIC-R13).
pub const MAX_SPECTATORS: u32 = 50;
/// Longest player name, in characters.
pub const MAX_NAME_CHARS: usize = 24;
/// How a resignation is recorded among a game's actions (the moves are cells).
pub const RESIGN_ACTION: &str = "resign";
/// How an absence claim is recorded among a game's actions.
pub const ABSENT_ACTION: &str = "absent";
/// How a turn lost on the clock is recorded (2.0 with a clock, V2-R05; the engine protocol's
/// word). Rooms run no clock (ON-R04), so only competitive 2.0 matches hold it.
pub const TIMEOUT_ACTION: &str = crate::notation::TIMEOUT;

/// The board a room plays (ON-R01).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RoomGame {
    /// Jogo da Velha, with characters.
    Classic,
    /// Super Jogo da Velha, names only.
    Super,
    /// Jogo da Velha 2.0, names only.
    V2,
}

/// The Vila Quintal characters a player of a classic room picks as an avatar (CLASSIC-R08).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Avatar {
    /// Rabisco.
    Rabisco,
    /// Nino.
    Nino,
    /// Vó Quelônia.
    Quelonia,
}

/// A seated player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// The name they wrote.
    pub name: String,
    /// Their character, in classic rooms.
    pub avatar: Option<Avatar>,
}

/// The game on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Board {
    /// A classic board.
    Classic(Classic),
    /// A Super or 2.0 grid.
    Ultimate(Ultimate),
}

impl Board {
    /// The empty board of a game that `starter` begins.
    pub fn new(game: RoomGame, starter: Player) -> Board {
        match game {
            RoomGame::Classic => Board::Classic(Classic::new(starter)),
            RoomGame::Super => Board::Ultimate(Ultimate::new(Variant::Super, starter)),
            RoomGame::V2 => Board::Ultimate(Ultimate::new(Variant::V2, starter)),
        }
    }

    /// Who moves, or how the game on the board ended.
    pub fn status(&self) -> Status {
        match self {
            Board::Classic(b) => b.status(),
            Board::Ultimate(b) => b.status(),
        }
    }
}

impl std::fmt::Display for Board {
    /// The board's state line (engine-protocol.md).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Board::Classic(b) => b.fmt(f),
            Board::Ultimate(b) => b.fmt(f),
        }
    }
}

/// What joining a room made of the newcomer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Joined {
    /// They took the free seat and play O (CLASSIC-R08).
    Player(Player),
    /// Both seats were taken: they watch (CLASSIC-R13).
    Spectator,
}

/// Why a room refused a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoomError {
    /// The name is empty, only spaces, or longer than [`MAX_NAME_CHARS`].
    BadName,
    /// Classic rooms need a character; the other boards take names only.
    AvatarRequired,
    /// Super and 2.0 rooms have no characters.
    NoAvatars,
    /// Only Super's first game may be begun by O (SUPER-R05); the others begin with X
    /// (CLASSIC-R05, V2-R08).
    StarterFixed,
    /// That character is taken by the other player.
    AvatarTaken,
    /// Both seats and all 50 spectator places are taken.
    RoomFull,
    /// Nobody has joined yet.
    WaitingForOpponent,
    /// The game on the table refused the move or the resignation, as any match refuses: it
    /// is over (wait for the rematch), it is the other player's turn, or the rules forbid
    /// the cell.
    Game(Refusal<BoardIllegal>),
    /// The cell is not written as the engine protocol writes this board's cells.
    Unreadable(ParseError),
    /// The game is still going on.
    GameNotOver,
    /// The player to move has not been away long enough (2 days), or it is your own turn.
    NotAbsent,
    /// The room closed after 7 days without a move.
    Closed,
}

impl std::fmt::Display for RoomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RoomError::BadName => write!(f, "the name must have 1 to {MAX_NAME_CHARS} characters"),
            RoomError::AvatarRequired => f.write_str("pick a character"),
            RoomError::NoAvatars => f.write_str("this board has no characters"),
            RoomError::StarterFixed => f.write_str("this board's first game begins with X"),
            RoomError::AvatarTaken => f.write_str("that character is taken"),
            RoomError::RoomFull => f.write_str("the room is full"),
            RoomError::WaitingForOpponent => f.write_str("waiting for the opponent to join"),
            RoomError::Game(Refusal::Over) => f.write_str("the game is over"),
            RoomError::Game(Refusal::NotYourTurn) => f.write_str("not your turn"),
            RoomError::Game(Refusal::Illegal { reason, .. }) => write!(f, "illegal move: {reason}"),
            RoomError::Game(refusal) => write!(f, "illegal move: {refusal}"),
            RoomError::Unreadable(e) => write!(f, "illegal move: {e}"),
            RoomError::GameNotOver => f.write_str("the game is not over"),
            RoomError::NotAbsent => f.write_str("the other player is not absent for 2 days"),
            RoomError::Closed => f.write_str("the room closed after 7 days without a move"),
        }
    }
}

impl std::error::Error for RoomError {}

/// An invitation room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StoredRoom", into = "StoredRoom")]
pub struct Room {
    game: RoomGame,
    /// The creator's seat and the guest's, named by the symbols they play in the room's first
    /// game (X, O); on 2.0 they swap symbols every game (V2-R08).
    seats: [Option<Seat>; 2],
    spectators: u32,
    /// The game on the table, a clockless match: its board, whose turn, how it ended.
    table: Table,
    series: Series,
    /// By seat.
    rematch: [bool; 2],
    /// The last move, or the start of the current game; absence and idleness count from it.
    last_activity_ms: u64,
}

fn check_name(name: &str) -> Result<String, RoomError> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(RoomError::BadName);
    }
    Ok(name.to_string())
}

impl Room {
    /// A new room: the creator sits as X and waits (CLASSIC-R08); `starter` begins its first
    /// game, which only Super leaves to the players (SUPER-R05).
    pub fn create(
        game: RoomGame,
        name: &str,
        avatar: Option<Avatar>,
        starter: Player,
        now_ms: u64,
    ) -> Result<Room, RoomError> {
        let name = check_name(name)?;
        match (game, avatar) {
            (RoomGame::Classic, None) => return Err(RoomError::AvatarRequired),
            (RoomGame::Super | RoomGame::V2, Some(_)) => return Err(RoomError::NoAvatars),
            _ => {}
        }
        let series = match game {
            RoomGame::Super => Series::new(starter, Player::X),
            _ if starter != Player::X => return Err(RoomError::StarterFixed),
            RoomGame::Classic => Series::new(Player::X, Player::X),
            RoomGame::V2 => Series::swapping(Player::X),
        };
        Ok(Room {
            game,
            seats: [Some(Seat { name, avatar }), None],
            spectators: 0,
            table: Table::new(game, series.next_starter()),
            series,
            rematch: [false, false],
            last_activity_ms: now_ms,
        })
    }

    /// Someone opened the link: they take the free seat as O, or watch when both are taken
    /// (CLASSIC-R08, R13).
    pub fn join(
        &mut self,
        name: &str,
        avatar: Option<Avatar>,
        now_ms: u64,
    ) -> Result<Joined, RoomError> {
        self.check_open(now_ms)?;
        if self.seats[1].is_some() {
            if self.spectators >= MAX_SPECTATORS {
                return Err(RoomError::RoomFull);
            }
            self.spectators += 1;
            return Ok(Joined::Spectator);
        }
        let name = check_name(name)?;
        match (self.game, avatar) {
            (RoomGame::Classic, None) => return Err(RoomError::AvatarRequired),
            (RoomGame::Super | RoomGame::V2, Some(_)) => return Err(RoomError::NoAvatars),
            (RoomGame::Classic, Some(a))
                if self.seats[0].as_ref().and_then(|s| s.avatar) == Some(a) =>
            {
                return Err(RoomError::AvatarTaken);
            }
            _ => {}
        }
        self.seats[1] = Some(Seat { name, avatar });
        self.last_activity_ms = now_ms;
        Ok(Joined::Player(Player::O))
    }

    /// A spectator left, freeing their place.
    pub fn leave_spectator(&mut self) {
        self.spectators = self.spectators.saturating_sub(1);
    }

    /// A seated player's move (CLASSIC-R09). Spectators have no seat and so can never move.
    pub fn play(&mut self, seat: Player, cell: &str, now_ms: u64) -> Result<Status, RoomError> {
        self.check_playing(now_ms)?;
        self.table.play(self.plays(seat), cell)?;
        self.last_activity_ms = now_ms;
        self.record_end();
        Ok(self.table.board().status())
    }

    /// `seat` resigns and the game goes to the other (CLASSIC-R11).
    pub fn resign(&mut self, seat: Player, now_ms: u64) -> Result<Ended, RoomError> {
        self.check_playing(now_ms)?;
        let ended = self.table.resign(self.plays(seat))?;
        self.record_end();
        Ok(ended)
    }

    /// `claimant` ends the game as the winner: the other player is to move and has not played
    /// for more than 2 days (CLASSIC-R12).
    pub fn claim_absence(&mut self, claimant: Player, now_ms: u64) -> Result<Ended, RoomError> {
        self.check_playing(now_ms)?;
        if now_ms.saturating_sub(self.last_activity_ms) <= ABSENCE_MS {
            return Err(RoomError::NotAbsent);
        }
        let ended = self.table.absent(!self.plays(claimant))?;
        self.record_end();
        Ok(ended)
    }

    /// `seat` asks for a rematch; when both have, the next game starts with the other starter
    /// (CLASSIC-R10, R05), or on 2.0 with the symbols swapped (V2-R08). Returns whether it
    /// started.
    pub fn rematch(&mut self, seat: Player, now_ms: u64) -> Result<bool, RoomError> {
        self.check_open(now_ms)?;
        if self.table.ended().is_none() {
            return Err(RoomError::GameNotOver);
        }
        self.rematch[seat.index()] = true;
        if self.rematch != [true, true] {
            return Ok(false);
        }
        self.table = Table::new(self.game, self.series.next_starter());
        self.rematch = [false, false];
        self.last_activity_ms = now_ms;
        Ok(true)
    }

    /// Whether the room has closed: 7 days without a move (CLASSIC-R12).
    pub fn is_closed(&self, now_ms: u64) -> bool {
        now_ms.saturating_sub(self.last_activity_ms) >= IDLE_CLOSE_MS
    }

    /// The board the room plays.
    pub fn game(&self) -> RoomGame {
        self.game
    }

    /// The position on the table.
    pub fn board(&self) -> Board {
        self.table.board()
    }

    /// The creator's seat (X) or the guest's (O), as they sat for the room's first game.
    pub fn seat(&self, seat: Player) -> Option<&Seat> {
        self.seats[seat.index()].as_ref()
    }

    /// Renames a seat whose player is gone (their account deleted): the room and its games
    /// stay for the other player, the name they wrote does not. Whether the seat was taken.
    pub fn rename_seat(&mut self, seat: Player, name: &str) -> bool {
        match self.seats[seat.index()].as_mut() {
            Some(s) => {
                name.clone_into(&mut s.name);
                true
            }
            None => false,
        }
    }

    /// Which game of the room is on the table: 0 for the first, and the one just finished
    /// while the rematch waits.
    pub fn game_on_table(&self) -> u32 {
        self.series
            .games_played()
            .saturating_sub(u32::from(self.table.ended().is_some()))
    }

    /// The seat playing `symbol` in game `game` of the room (0 for the first).
    pub fn seat_playing_in(&self, game: u32, symbol: Player) -> Player {
        let creator = self.series.side_in(game);
        if symbol == creator {
            Player::X
        } else {
            Player::O
        }
    }

    /// The seat playing `symbol` in the game on the table.
    pub fn seat_playing(&self, symbol: Player) -> Player {
        self.seat_playing_in(self.game_on_table(), symbol)
    }

    /// The symbol `seat` plays in the game on the table.
    pub fn plays(&self, seat: Player) -> Player {
        // Swapping two symbols between two seats is its own inverse.
        self.seat_playing(seat)
    }

    /// Who plays `symbol` in the game on the table.
    pub fn playing(&self, symbol: Player) -> Option<&Seat> {
        self.seat(self.seat_playing(symbol))
    }

    /// People watching.
    pub fn spectators(&self) -> u32 {
        self.spectators
    }

    /// How the last game ended, while it waits for a rematch: the winner's symbol (none for
    /// a draw) and how.
    pub fn ending(&self) -> Option<Ended> {
        self.table.ended()
    }

    /// When the last move was made, or the current game began (ms since the Unix epoch).
    pub fn last_activity_ms(&self) -> u64 {
        self.last_activity_ms
    }

    /// Whether each seat (the creator's, the guest's) has asked for the rematch.
    pub fn rematch_asked(&self) -> [bool; 2] {
        self.rematch
    }

    /// The series so far, scored for the creator's seat (who begins the 2.0 series as X).
    pub fn series(&self) -> &Series {
        &self.series
    }

    /// Scores the game on the table in the series once it has ended.
    fn record_end(&mut self) {
        if let Some((winner, _)) = self.table.ended() {
            self.series.record(winner.map_or(Status::Draw, Status::Win));
        }
    }

    fn check_open(&self, now_ms: u64) -> Result<(), RoomError> {
        if self.is_closed(now_ms) {
            Err(RoomError::Closed)
        } else {
            Ok(())
        }
    }

    fn check_playing(&self, now_ms: u64) -> Result<(), RoomError> {
        self.check_open(now_ms)?;
        if self.seats[1].is_none() {
            return Err(RoomError::WaitingForOpponent);
        }
        if self.table.ended().is_some() {
            return Err(RoomError::Game(Refusal::Over));
        }
        Ok(())
    }
}
