//! Live matches over the WebSocket: the cube's (online.md ON-M02 … ON-M05) and Jogo da Velha
//! 2.0's competitive ones (ON-V01, ON-V02).
//!
//! The client's first message is [`ClientMsg::Hello`]; the server answers
//! [`ServerMsg::Welcome`] with every match the player has open or live, so a reconnecting
//! phone picks up the same match with the same clock.

use serde::{Deserialize, Serialize};

use crate::{Ending, ErrorCode, OpenMatch, Scope};

/// A side of a match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Seat {
    /// The creator, who moves first (ON-M02).
    X,
    /// The player who joined.
    O,
}

/// Where a match is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MatchState {
    /// In the lobby, waiting for an opponent.
    Open,
    /// Being played.
    Live,
    /// Finished.
    Over,
    /// Withdrawn from the lobby before anyone joined.
    Cancelled,
}

impl MatchState {
    /// The word stored and sent.
    pub const fn as_str(self) -> &'static str {
        match self {
            MatchState::Open => "open",
            MatchState::Live => "live",
            MatchState::Over => "over",
            MatchState::Cancelled => "cancelled",
        }
    }

    /// The state a stored word names.
    pub fn from_str_opt(s: &str) -> Option<MatchState> {
        [
            MatchState::Open,
            MatchState::Live,
            MatchState::Over,
            MatchState::Cancelled,
        ]
        .into_iter()
        .find(|m| m.as_str() == s)
    }
}

/// The game a match plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum MatchGame {
    /// Cubo da Velha, from the lobby or a group.
    #[default]
    Cube,
    /// Jogo da Velha 2.0's competitive mode (ON-V01).
    V2,
}

impl MatchGame {
    /// The word stored and sent.
    pub const fn as_str(self) -> &'static str {
        match self {
            MatchGame::Cube => "cube",
            MatchGame::V2 => "v2",
        }
    }

    /// The game a stored word names.
    pub fn from_str_opt(s: &str) -> Option<MatchGame> {
        [MatchGame::Cube, MatchGame::V2]
            .into_iter()
            .find(|g| g.as_str() == s)
    }
}

/// What the signed-in player is in the middle of: an app that starts (a reload, a killed tab)
/// goes straight back to it, within the reconnection grace (ON-M04).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Playing {
    /// Their open or live match, as they see it (ON-M02: one at most).
    pub current: Option<MatchView>,
    /// Whether they wait in Jogo da Velha 2.0's queue (ON-V01).
    pub queued: bool,
}

/// A match as one of its players sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MatchView {
    /// The match id.
    pub id: String,
    /// The game: the cube unless said.
    #[serde(default)]
    pub game: MatchGame,
    /// Mundial or Nacional.
    pub scope: Scope,
    /// The cube's level: 1 or 2 (0 in 2.0).
    pub level: u8,
    /// X's player name.
    pub x: String,
    /// O's player name, once someone joined.
    pub o: Option<String>,
    /// The viewer's side.
    pub seat: Seat,
    /// Open, live, over or cancelled.
    pub state: MatchState,
    /// The position as the engine protocol's state line.
    pub position: String,
    /// Moves committed so far; a `play` must name this number.
    pub ply: u32,
    /// Whose turn it is, while live.
    pub to_move: Option<Seat>,
    /// Milliseconds left on the clock of the side to move, while live.
    pub clock_ms: Option<u64>,
    /// Seats whose player is away, with the milliseconds they have left to come back.
    pub away: Vec<Away>,
    /// The result, once over.
    pub ending: Option<Ending>,
    /// Whether the finished match scored in the rankings: false for the third and later match
    /// of a UTC day against the same opponent at this level (ON-K03).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored: Option<bool>,
    /// The mini-ranking group it belongs to, if any (ON-G04).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Whether O is the server's Velha (ON-G05).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub velha: bool,
    /// 2.0: both ratings before and after, once the match is over (V2-R06).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<crate::RatingChanges>,
}

/// A player whose connection dropped (ON-M04).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Away {
    /// Their side.
    pub seat: Seat,
    /// Milliseconds left to come back before losing by abandonment.
    pub grace_ms: u64,
}

/// Why the rules refused an action (velha-rules' `CubeIllegal`, `UltimateIllegal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Illegal {
    /// The game is over.
    GameOver,
    /// The cell holds the opponent's symbol (CUBE-R06).
    OpponentSymbol,
    /// More than 4 symbols of this seat would be on side 1 (CUBE-R09).
    SymbolLimit(Seat),
    /// Level 1 turns only go the canonical way (CUBE-R08).
    WrongDirectionLevel1,
    /// This counted turn is one-way (CUBE-R08).
    WrongDirectionAlternation,
    /// Free turns only go the canonical way (CUBE-R08).
    WrongDirectionFreeTurn,
    /// A second free turn in one turn (CUBE-R02).
    SecondFreeTurn,
    /// 2.0: the move must go in this small board, 1 to 9 (ULT-R03).
    WrongBoard(u8),
    /// 2.0: that small board is already won or drawn (ULT-R05).
    BoardDecided,
    /// 2.0: the cell is taken.
    Occupied,
}

/// Why a `play` or `leave` changed nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// An action is not legal here (ON-M05); `index` is its place in the list.
    Illegal {
        /// Which action.
        index: usize,
        /// Why.
        reason: Illegal,
    },
    /// An action is not written as the engine protocol writes actions.
    BadAction {
        /// Which action.
        index: usize,
    },
    /// The list of actions is empty or longer than one turn can be.
    BadLength,
    /// It is the other player's turn.
    NotYourTurn,
    /// Only the two players act in a match.
    NotAPlayer,
    /// The move was made for another ply: the client missed a move or sent one twice.
    Stale {
        /// The ply the server is at.
        ply: u32,
    },
    /// The match is over, or was never started.
    NotLive,
    /// No such match.
    NoSuchMatch,
    /// The server could not store the move; nothing changed, it may be sent again.
    Unavailable,
}

/// What the app sends on the WebSocket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// The first message: who this is.
    Hello {
        /// The session token; empty (or absent) for the session cookie the connection's
        /// upgrade request carried, which counts only from this site's own pages (the web
        /// app).
        #[serde(default)]
        token: String,
    },
    /// Show this lobby list and keep it current (ON-M01, ON-M02): answered with `lobby`, then
    /// `lobby_opened` and `lobby_closed` as matches come and go. One list per connection: a
    /// new watch replaces the last. Subscribers only (ON-A03).
    WatchLobby {
        /// Mundial or Nacional (the player's own country).
        scope: Scope,
        /// 1 or 2.
        level: u8,
        /// A mini-ranking group's matches instead, for its participants (ON-G03, ON-G08).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        group: Option<String>,
    },
    /// Stop watching the lobby.
    UnwatchLobby,
    /// One move: the actions of the engine protocol (`a1`, `R+`, …), applied in order, all or
    /// nothing. A free turn may come alone or before the main action.
    Play {
        /// The match.
        match_id: String,
        /// The ply the player saw last ([`MatchView::ply`]).
        ply: u32,
        /// The actions.
        actions: Vec<String>,
    },
    /// Leave the match: a loss by abandonment (ON-M04).
    Leave {
        /// The match.
        match_id: String,
    },
    /// Keeps idle proxies from closing the connection; answered with `pong`.
    Ping,
}

/// What the server sends on the WebSocket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The answer to `hello`: the player's open and live matches.
    Welcome {
        /// The player name.
        name: String,
        /// Open and live matches, as this player sees them.
        matches: Vec<MatchView>,
    },
    /// Someone joined: the match starts, X to move (ON-M02). Sent to both players.
    Started {
        /// The match.
        view: MatchView,
    },
    /// A move was committed. Sent to both players; for the mover it is the acknowledgement.
    Moved {
        /// The match.
        match_id: String,
        /// The ply after this move.
        ply: u32,
        /// Who moved.
        by: Seat,
        /// The actions, as the engine protocol writes them; `timeout` alone: the turn was lost
        /// on time (2.0, V2-R05).
        actions: Vec<String>,
        /// The position after them.
        position: String,
        /// Whose turn it is now, unless the move ended the match.
        to_move: Option<Seat>,
        /// Milliseconds on the clock of the side to move.
        clock_ms: Option<u64>,
    },
    /// A `play` or `leave` changed nothing.
    Refused {
        /// The match named.
        match_id: String,
        /// Why.
        refusal: Refusal,
    },
    /// A player's connection dropped; the clock keeps running (ON-M04).
    Away {
        /// The match.
        match_id: String,
        /// Whose.
        seat: Seat,
        /// Milliseconds they have to come back.
        grace_ms: u64,
    },
    /// The player came back.
    Back {
        /// The match.
        match_id: String,
        /// Whose.
        seat: Seat,
    },
    /// The match is over.
    Ended {
        /// The match.
        match_id: String,
        /// Who won and how.
        ending: Ending,
        /// The final position.
        position: String,
        /// Whether it scored in the rankings (ON-K03).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scored: Option<bool>,
        /// 2.0: both ratings before and after (V2-R06).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratings: Option<crate::RatingChanges>,
    },
    /// A message could not be understood, or the session is not valid.
    Error {
        /// What went wrong.
        code: ErrorCode,
        /// In English words.
        message: String,
    },
    /// The answer to `ping`.
    Pong,
    /// The lobby list being watched, as it is now: open matches, oldest first.
    Lobby {
        /// Mundial or Nacional.
        scope: Scope,
        /// 1 or 2.
        level: u8,
        /// The group whose matches these are, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        group: Option<String>,
        /// The open matches.
        matches: Vec<OpenMatch>,
    },
    /// A match opened in the lobby list being watched.
    LobbyOpened {
        /// The match.
        open: OpenMatch,
    },
    /// A match left the lobby list being watched: it started, or its creator withdrew it.
    LobbyClosed {
        /// The match id.
        id: String,
    },
    /// A group the player takes part in, or was invited to, changed (someone was invited,
    /// joined, declined or left, or the creator finalized it): read it again. Without
    /// `member` the player no longer takes part (left, or the group is gone), and a watch of
    /// its lobby list has ended (ON-G08).
    GroupChanged {
        /// The group id.
        group: String,
        /// Whether the player takes part in it now.
        member: bool,
        /// Whether the creator finalized it: it is gone for everyone (ON-G09).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        finalized: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EndHow;

    #[test]
    fn a_seat_is_the_rules_player_of_the_same_symbol() {
        for (seat, player) in [
            (Seat::X, velha_rules::Player::X),
            (Seat::O, velha_rules::Player::O),
        ] {
            assert_eq!(velha_rules::Player::from(seat), player);
            assert_eq!(Seat::from(player), seat);
            assert_eq!(
                Seat::from(!player),
                if seat == Seat::X { Seat::O } else { Seat::X }
            );
        }
    }

    #[test]
    fn messages_are_tagged_snake_case_json() {
        let play = ClientMsg::Play {
            match_id: "m".into(),
            ply: 3,
            actions: vec!["S+".into(), "a1".into()],
        };
        let text = serde_json::to_string(&play).unwrap();
        assert_eq!(
            text,
            r#"{"type":"play","match_id":"m","ply":3,"actions":["S+","a1"]}"#
        );
        assert_eq!(serde_json::from_str::<ClientMsg>(&text).unwrap(), play);
        let refused = ServerMsg::Refused {
            match_id: "m".into(),
            refusal: Refusal::Illegal {
                index: 1,
                reason: Illegal::SymbolLimit(Seat::O),
            },
        };
        let text = serde_json::to_string(&refused).unwrap();
        assert_eq!(
            text,
            r#"{"type":"refused","match_id":"m","refusal":{"kind":"illegal","index":1,"reason":{"symbol_limit":"O"}}}"#
        );
    }

    #[test]
    fn stored_words_round_trip() {
        for how in EndHow::ALL {
            assert_eq!(EndHow::from_str_opt(how.as_str()), Some(how));
            let json = serde_json::to_string(&how).unwrap();
            assert_eq!(json, format!("\"{}\"", how.as_str()), "sent as stored");
        }
        assert_eq!(EndHow::from_str_opt("resign"), None);
        for s in [
            MatchState::Open,
            MatchState::Live,
            MatchState::Over,
            MatchState::Cancelled,
        ] {
            assert_eq!(MatchState::from_str_opt(s.as_str()), Some(s));
        }
        assert_eq!(Scope::from_str_opt("nacional"), Some(Scope::Nacional));
        assert_eq!(Scope::from_str_opt("x"), None);
    }
}
