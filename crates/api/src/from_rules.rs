//! The one place the rules' types become the wire's and back: sides, endings, boards,
//! characters, refusals and a room's error codes. The server and the app convert only through these.

use velha_rules::cube::OneWayRule;
use velha_rules::game::{self, Ended};
use velha_rules::room::{self, RoomError, RoomGame};
use velha_rules::{CubeIllegal, Player, UltimateIllegal};

use crate::{Avatar, EndHow, Ending, ErrorCode, Illegal, Refusal, RoomBoard, RoomPlayer, Seat};

impl From<Player> for Seat {
    fn from(p: Player) -> Seat {
        match p {
            Player::X => Seat::X,
            Player::O => Seat::O,
        }
    }
}

impl From<Seat> for Player {
    fn from(s: Seat) -> Player {
        match s {
            Seat::X => Player::X,
            Seat::O => Player::O,
        }
    }
}

impl From<game::Ending> for EndHow {
    fn from(ending: game::Ending) -> EndHow {
        match ending {
            game::Ending::Line => EndHow::Line,
            game::Ending::BothLines => EndHow::BothLines,
            game::Ending::Draw => EndHow::Draw,
            game::Ending::Time => EndHow::Time,
            game::Ending::Abandonment => EndHow::Abandonment,
            game::Ending::Resigned => EndHow::Resigned,
            game::Ending::Absent => EndHow::Absent,
        }
    }
}

impl From<EndHow> for game::Ending {
    fn from(how: EndHow) -> game::Ending {
        match how {
            EndHow::Line => game::Ending::Line,
            EndHow::BothLines => game::Ending::BothLines,
            EndHow::Draw => game::Ending::Draw,
            EndHow::Time => game::Ending::Time,
            EndHow::Abandonment => game::Ending::Abandonment,
            EndHow::Resigned => game::Ending::Resigned,
            EndHow::Absent => game::Ending::Absent,
        }
    }
}

impl From<Ended> for Ending {
    fn from((winner, how): Ended) -> Ending {
        Ending {
            winner: winner.map(Seat::from),
            how: how.into(),
        }
    }
}

impl From<RoomBoard> for RoomGame {
    fn from(board: RoomBoard) -> RoomGame {
        match board {
            RoomBoard::Classic => RoomGame::Classic,
            RoomBoard::Super => RoomGame::Super,
            RoomBoard::V2 => RoomGame::V2,
        }
    }
}

impl From<RoomGame> for RoomBoard {
    fn from(game: RoomGame) -> RoomBoard {
        match game {
            RoomGame::Classic => RoomBoard::Classic,
            RoomGame::Super => RoomBoard::Super,
            RoomGame::V2 => RoomBoard::V2,
        }
    }
}

impl From<Avatar> for room::Avatar {
    fn from(a: Avatar) -> room::Avatar {
        match a {
            Avatar::Rabisco => room::Avatar::Rabisco,
            Avatar::Nino => room::Avatar::Nino,
            Avatar::Quelonia => room::Avatar::Quelonia,
        }
    }
}

impl From<room::Avatar> for Avatar {
    fn from(a: room::Avatar) -> Avatar {
        match a {
            room::Avatar::Rabisco => Avatar::Rabisco,
            room::Avatar::Nino => Avatar::Nino,
            room::Avatar::Quelonia => Avatar::Quelonia,
        }
    }
}

impl From<&room::Seat> for RoomPlayer {
    fn from(s: &room::Seat) -> RoomPlayer {
        RoomPlayer {
            name: s.name.clone(),
            avatar: s.avatar.map(Avatar::from),
        }
    }
}

impl From<CubeIllegal> for Illegal {
    fn from(reason: CubeIllegal) -> Illegal {
        match reason {
            CubeIllegal::GameOver => Illegal::GameOver,
            CubeIllegal::OpponentSymbol => Illegal::OpponentSymbol,
            CubeIllegal::SymbolLimit(p) => Illegal::SymbolLimit(Seat::from(p)),
            CubeIllegal::WrongDirection(OneWayRule::Level1) => Illegal::WrongDirectionLevel1,
            CubeIllegal::WrongDirection(OneWayRule::Alternation) => {
                Illegal::WrongDirectionAlternation
            }
            CubeIllegal::WrongDirection(OneWayRule::FreeTurn) => Illegal::WrongDirectionFreeTurn,
            CubeIllegal::SecondFreeTurn => Illegal::SecondFreeTurn,
        }
    }
}

impl From<UltimateIllegal> for Illegal {
    fn from(reason: UltimateIllegal) -> Illegal {
        match reason {
            UltimateIllegal::GameOver | UltimateIllegal::NoClock => Illegal::GameOver,
            UltimateIllegal::WrongBoard { sent } => Illegal::WrongBoard(sent + 1),
            UltimateIllegal::BoardDecided => Illegal::BoardDecided,
            UltimateIllegal::Occupied => Illegal::Occupied,
        }
    }
}

impl From<&RoomError> for ErrorCode {
    fn from(e: &RoomError) -> ErrorCode {
        match e {
            RoomError::BadName => ErrorCode::BadName,
            RoomError::AvatarRequired | RoomError::NoAvatars | RoomError::StarterFixed => {
                ErrorCode::BadRequest
            }
            RoomError::AvatarTaken => ErrorCode::AvatarTaken,
            RoomError::RoomFull => ErrorCode::RoomFull,
            RoomError::WaitingForOpponent
            | RoomError::Game(game::Refusal::Over)
            | RoomError::GameNotOver => ErrorCode::Conflict,
            RoomError::Game(game::Refusal::NotYourTurn) => ErrorCode::NotYourTurn,
            RoomError::Game(_) | RoomError::Unreadable(_) => ErrorCode::IllegalMove,
            RoomError::NotAbsent => ErrorCode::NotAbsentYet,
            RoomError::Closed => ErrorCode::RoomClosed,
        }
    }
}

impl<I: Into<Illegal>> From<game::Refusal<I>> for Refusal {
    /// A live match's refusal: a move after the clock ran out finds the match no longer live.
    fn from(refusal: game::Refusal<I>) -> Refusal {
        match refusal {
            game::Refusal::Over | game::Refusal::TimeUp => Refusal::NotLive,
            game::Refusal::NotYourTurn => Refusal::NotYourTurn,
            game::Refusal::Illegal { index, reason } => Refusal::Illegal {
                index,
                reason: reason.into(),
            },
            game::Refusal::Unfinished | game::Refusal::TooLong => Refusal::BadLength,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ending_of_the_rules_is_one_word_on_the_wire_and_back() {
        for how in EndHow::ALL {
            assert_eq!(EndHow::from(game::Ending::from(how)), how);
        }
        let resigned: Ending = (Some(Player::O), game::Ending::Resigned).into();
        assert_eq!(
            serde_json::to_string(&resigned).unwrap(),
            r#"{"winner":"O","how":"resigned"}"#
        );
    }
}
