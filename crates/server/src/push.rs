//! Telling a player of their turn while the app is closed: the next step of CLASSIC-R09,
//! designed in docs/push.md. Every change that hands a room's turn to a seat goes through
//! [`Push::turn`]; a delivery service implements the trait: Web Push (`webpush.rs`) today,
//! FCM and APNs for phone apps later.

use velha_rules::Player;
use velha_rules::room::{Room, RoomGame};

/// A seat whose turn it now is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnNotice {
    /// The room.
    pub room: String,
    /// The seat to tell.
    pub seat: Player,
    /// Who moved, as the notification names them.
    pub mover: String,
    /// The room's board, which the notification names.
    pub game: RoomGame,
}

/// Delivers turn notices to the devices subscribed for a seat (see docs/push.md). Called on
/// the request's task after the change is committed: it must hand the work off, not wait.
pub trait Push: Send + Sync {
    /// It is now `notice.seat`'s turn in `notice.room`.
    fn turn(&self, notice: TurnNotice);
}

/// The seat (the creator's X, the guest's O) a change handed the turn to, if it did: the game
/// goes on, both seats are taken, and the side to move is another than before (a move), or a
/// new game began.
pub fn turn_passed(before: &Room, after: &Room) -> Option<Player> {
    let to_move = |r: &Room| match (r.board().status(), r.seat(Player::O), r.ending()) {
        (velha_rules::Status::Ongoing(p), Some(_), None) => Some(p),
        _ => None,
    };
    let now = to_move(after)?;
    let began = before.series().games_played() != after.series().games_played()
        || before.ending().is_some();
    (to_move(before) != Some(now) || began).then(|| after.seat_playing(now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use velha_rules::room::{Avatar, RoomGame};

    #[test]
    fn classic_r09_a_move_hands_the_turn_and_nothing_else_does() {
        let mut room =
            Room::create(RoomGame::Classic, "Ana", Some(Avatar::Nino), Player::X, 0).unwrap();
        let alone = room.clone();
        room.join("Bia", Some(Avatar::Rabisco), 1).unwrap();
        // Bia's joining gives Ana (X) her first turn.
        assert_eq!(turn_passed(&alone, &room), Some(Player::X));
        let before = room.clone();
        room.play(Player::X, "a1", 2).unwrap();
        assert_eq!(turn_passed(&before, &room), Some(Player::O));
        // A spectator arriving changes no turn.
        let before = room.clone();
        room.join("Caio", None, 3).unwrap();
        assert_eq!(turn_passed(&before, &room), None);
        // A resignation ends the game: nobody's turn.
        let before = room.clone();
        room.resign(Player::O, 4).unwrap();
        assert_eq!(turn_passed(&before, &room), None);
        // The rematch starts the next game with O: her turn.
        room.rematch(Player::X, 5).unwrap();
        let before = room.clone();
        room.rematch(Player::O, 6).unwrap();
        assert_eq!(turn_passed(&before, &room), Some(Player::O));
    }

    #[test]
    fn v2_r08_the_guest_is_told_of_the_rematch_they_begin_as_x() {
        let mut room = Room::create(RoomGame::V2, "Ana", None, Player::X, 0).unwrap();
        room.join("Bia", None, 1).unwrap();
        room.resign(Player::X, 2).unwrap();
        room.rematch(Player::X, 3).unwrap();
        let before = room.clone();
        room.rematch(Player::O, 4).unwrap();
        // X begins, and X is now Bia's: her seat (the guest's, O) is told.
        assert_eq!(
            room.board().status(),
            velha_rules::Status::Ongoing(Player::X)
        );
        assert_eq!(turn_passed(&before, &room), Some(Player::O));
    }
}
