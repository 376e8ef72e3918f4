//! The replay of a finished online game (online.md ON-P01): who played, every move as it was
//! recorded, and how the game ended. The app rebuilds each position from the moves by the
//! rules; no position is sent.

use serde::{Deserialize, Serialize};

use crate::room::RoomPlayer;
use crate::{EndHow, Seat};

/// The game a replay shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReplayGame {
    /// Cubo da Velha.
    Cube {
        /// 1 or 2.
        level: u8,
    },
    /// Jogo da Velha (a room's game), begun by `starter`.
    Classic {
        /// Who moved first.
        starter: Seat,
    },
    /// Super Jogo da Velha (a room's game).
    Super {
        /// Who moved first.
        starter: Seat,
    },
    /// Jogo da Velha 2.0 (a room's game).
    V2 {
        /// Who moved first.
        starter: Seat,
    },
}

/// One move as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReplayMove {
    /// Who made it.
    pub by: Seat,
    /// The move in the engine protocol's words: a cell (`b2`, `e5`), or a cube move's actions
    /// (`a1`, `R`, …).
    pub actions: Vec<String>,
}

/// A finished game, move by move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Replay {
    /// The replay's address after `/partida/`: a match's id, or a room's id and the game's
    /// number (`<room>/<n>`, the first game is 1).
    pub id: String,
    /// The game and how it began.
    pub game: ReplayGame,
    /// X.
    pub x: RoomPlayer,
    /// O.
    pub o: RoomPlayer,
    /// Every move, in order.
    pub moves: Vec<ReplayMove>,
    /// The winner; none for a draw.
    pub winner: Option<Seat>,
    /// How it ended.
    pub how: EndHow,
}

/// Whether `id` may be a match's or a room's id: what the server makes (URL-safe base64), so
/// nothing else reaches a path.
pub fn is_link_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether `id` may name a replay: a match's id, or a room's id and a game's number.
pub fn is_replay_id(id: &str) -> bool {
    match id.split_once('/') {
        None => is_link_id(id),
        Some((room, game)) => {
            is_link_id(room)
                && !game.is_empty()
                && game.len() <= 9
                && game.bytes().all(|b| b.is_ascii_digit())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_p01_replay_ids_are_a_match_or_a_room_and_a_number() {
        assert!(is_replay_id("AbC-d_e12345678x"));
        assert!(is_replay_id("AbC-d_e12345678x/12"));
        for bad in [
            "", "a/b", "a/", "/1", "a/1/2", "a b", "../x", "a%2F1", "a/1x",
        ] {
            assert!(!is_replay_id(bad), "{bad:?}");
        }
    }
}
