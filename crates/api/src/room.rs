//! Invitation rooms (online.md ON-R01 … ON-R05, classic.md CLASSIC-R08 … R13): free, no
//! account needed, played asynchronously, watched by up to 50 spectators.

use serde::{Deserialize, Serialize};

use crate::{Ending, Seat};

/// The board a room plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RoomBoard {
    /// Jogo da Velha, with characters.
    Classic,
    /// Super Jogo da Velha.
    Super,
    /// Jogo da Velha 2.0.
    V2,
}

/// A Vila Quintal character, the avatar of a classic room's player (CLASSIC-R08).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Avatar {
    /// Rabisco.
    Rabisco,
    /// Nino.
    Nino,
    /// Vó Quelônia.
    Quelonia,
}

/// Who begins a room's first game (SUPER-R05).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RoomStarter {
    /// X, the creator: the classic board's and 2.0's only choice (CLASSIC-R05, V2-R08).
    #[default]
    #[serde(rename = "X")]
    X,
    /// O, the guest (Super only).
    #[serde(rename = "O")]
    O,
    /// A coin the server tosses (Super only).
    CoinToss,
}

/// A new room; its creator sits as X.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateRoom {
    /// The board.
    pub board: RoomBoard,
    /// The creator's name, 1 to 24 characters.
    pub name: String,
    /// The creator's character: required on the classic board, refused on the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<Avatar>,
    /// Who begins the first game; X when left out.
    #[serde(default)]
    pub starter: RoomStarter,
}

/// Taking the free seat of a room (O).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JoinRoom {
    /// The name, 1 to 24 characters.
    pub name: String,
    /// A character the creator left free, on the classic board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<Avatar>,
}

/// What a seated player does, proving the seat with its credential (ON-R05).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomAction {
    /// The seat's credential, as creating or joining the room gave it.
    pub credential: String,
    /// What to do.
    pub act: RoomAct,
}

/// The actions of a seated player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RoomAct {
    /// A move: the cell as the engine protocol writes it (`b2` classic, `e5` ultimate).
    Play {
        /// The cell.
        cell: String,
    },
    /// Give the game to the other player (CLASSIC-R11).
    Resign,
    /// End the game as the winner: the other player is to move and has been away more than
    /// 2 days (CLASSIC-R12).
    ClaimAbsence,
    /// Ask for the next game; it starts when both have asked (CLASSIC-R10).
    Rematch,
}

/// A seated player as everyone sees them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomPlayer {
    /// Their name.
    pub name: String,
    /// Their character, on the classic board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<Avatar>,
}

fn x() -> Seat {
    Seat::X
}

/// A room as anyone holding its link sees it; `you` says which seat the credential sent
/// holds, if any. Seats are named by the symbols their players have in the game on the table
/// (begun, or just finished while the rematch waits): on 2.0 the players swap symbols every
/// game (V2-R08).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomView {
    /// The room's id: the link is `/sala/<id>` (at least 96 random bits, ON-R02).
    pub id: String,
    /// The board.
    pub board: RoomBoard,
    /// X: the creator, but on 2.0 every second game the guest.
    pub x: RoomPlayer,
    /// O, once someone joined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub o: Option<RoomPlayer>,
    /// The symbol the creator plays.
    #[serde(default = "x")]
    pub creator_plays: Seat,
    /// Who begins the game (SUPER-R05: on Super the first game may be O's).
    #[serde(default = "x")]
    pub starter: Seat,
    /// The viewer's seat, when the request proved one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<Seat>,
    /// The game on the table, as the engine protocol's state line.
    pub position: String,
    /// Moves in this game so far.
    pub ply: u32,
    /// Who moves, while the game goes on and both seats are taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_move: Option<Seat>,
    /// How the game ended, while the rematch waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ending: Option<Ending>,
    /// Who has asked for the rematch: X, O.
    pub rematch: [bool; 2],
    /// The series: games won by the player now X, by the player now O, draws.
    pub series: [u32; 3],
    /// Games finished in this room.
    pub games: u32,
    /// Connections watching now (not the players).
    pub spectators: u32,
    /// Milliseconds since the last move (or since the game began).
    pub idle_ms: u64,
    /// While a game goes on: milliseconds until the player not to move may claim it for an
    /// absence (CLASSIC-R12); 0 once they may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_in_ms: Option<u64>,
    /// Milliseconds until the room closes if nobody moves (7 days after the last move).
    pub closes_in_ms: u64,
    /// Whether it closed (7 days without a move): it can be watched, not played.
    pub closed: bool,
}

/// A new room, or the seat just taken: the room and the seat's credential, which the device
/// keeps (ON-R05); it is shown only this once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomSeat {
    /// The room.
    pub room: RoomView,
    /// The seat's secret.
    pub credential: String,
}

/// The rooms a device holds credentials for (a guest's list, ON-R05).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RoomLookup {
    /// The credentials, at most 100.
    pub credentials: Vec<String>,
}

/// A message to a room's live connection (`/api/rooms/{id}/live`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RoomClientMsg {
    /// The first message: a seat's credential to play, or none to watch.
    Hello {
        /// The credential; empty to watch.
        #[serde(default)]
        credential: String,
    },
    /// Moves the connection to another room (or the same one with another credential), as
    /// `hello` would open it there: its seat's credential to play, or empty to watch. The
    /// connection first leaves the room it was in; refused (an unknown room, a credential of
    /// no seat there, no place left, too many moves of a spectator: ten at once, then one a
    /// second), it hears why and closes, as after a refused `hello`. The app keeps one
    /// connection for every room it opens.
    Enter {
        /// The room id, from the link.
        room: String,
        /// The credential; empty to watch.
        #[serde(default)]
        credential: String,
    },
    /// Leaves the room, keeping the connection for the next `enter`: the seat no longer
    /// counts as looking (its turns are pushed), a spectator's place is given back.
    Leave,
    /// A seated player's action.
    Act {
        /// What to do.
        act: RoomAct,
    },
    /// Keeps the connection alive.
    Ping,
}

/// A message from a room's live connection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RoomServerMsg {
    /// The room as it is now: the answer to `hello` and `enter`, then after every change.
    /// After an `enter`, a change of the room left may still arrive: its `id` tells.
    Room {
        /// The room.
        room: RoomView,
    },
    /// An action or a hello was refused.
    Error {
        /// What went wrong.
        code: crate::ErrorCode,
        /// In English words.
        message: String,
    },
    /// The answer to `ping`.
    Pong,
}
