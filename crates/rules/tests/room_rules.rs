//! Invitation rooms: CLASSIC-R08 … R13 and ON-R01 (the room machinery for every board).

use velha_rules::room::{
    ABSENCE_MS, Avatar, Board, Ending, IDLE_CLOSE_MS, Joined, MAX_SPECTATORS, Room, RoomError,
    RoomGame,
};
use velha_rules::{Player, Status};

const T0: u64 = 1_800_000_000_000;
const HOUR: u64 = 60 * 60 * 1000;

fn classic_room() -> Room {
    let mut room = Room::create(RoomGame::Classic, "Ana", Some(Avatar::Nino), T0).unwrap();
    assert_eq!(
        room.join("Beto", Some(Avatar::Quelonia), T0 + 1),
        Ok(Joined::Player(Player::O))
    );
    room
}

fn play_all(room: &mut Room, moves: &[(Player, &str)], at: u64) -> Status {
    let mut status = room.board().status();
    for &(p, cell) in moves {
        status = room
            .play(p, cell, at)
            .unwrap_or_else(|e| panic!("{cell}: {e}"));
    }
    status
}

#[test]
fn classic_r08_the_creator_is_x_and_the_guest_picks_a_character_left() {
    let mut room = Room::create(RoomGame::Classic, "  Ana ", Some(Avatar::Rabisco), T0).unwrap();
    assert_eq!(room.seat(Player::X).unwrap().name, "Ana");
    assert_eq!(
        room.play(Player::X, "a1", T0),
        Err(RoomError::WaitingForOpponent)
    );
    assert_eq!(
        room.join("Beto", Some(Avatar::Rabisco), T0),
        Err(RoomError::AvatarTaken)
    );
    assert_eq!(room.join("Beto", None, T0), Err(RoomError::AvatarRequired));
    assert_eq!(
        room.join("", Some(Avatar::Nino), T0),
        Err(RoomError::BadName)
    );
    assert_eq!(
        room.join(&"x".repeat(25), Some(Avatar::Nino), T0),
        Err(RoomError::BadName)
    );
    assert_eq!(
        room.join("Beto", Some(Avatar::Nino), T0),
        Ok(Joined::Player(Player::O))
    );
    assert_eq!(room.seat(Player::O).unwrap().avatar, Some(Avatar::Nino));
    assert_eq!(
        Room::create(RoomGame::Classic, "Ana", None, T0),
        Err(RoomError::AvatarRequired)
    );
}

#[test]
fn classic_r09_each_plays_their_turn_when_they_can() {
    let mut room = classic_room();
    assert_eq!(
        room.play(Player::O, "b2", T0 + HOUR),
        Err(RoomError::NotYourTurn)
    );
    assert_eq!(
        room.play(Player::X, "b2", T0 + 30 * HOUR),
        Ok(Status::Ongoing(Player::O))
    );
    assert_eq!(
        room.play(Player::O, "b2", T0 + 31 * HOUR),
        Err(RoomError::Illegal("cell occupied".into()))
    );
    assert!(
        room.play(Player::O, "z9", T0 + 31 * HOUR)
            .unwrap_err()
            .to_string()
            .contains("not a cell")
    );
    assert_eq!(
        room.play(Player::O, "a1", T0 + 40 * HOUR),
        Ok(Status::Ongoing(Player::X))
    );
    // The stored room round-trips, so the game survives in storage between turns.
    let json = serde_json::to_string(&room).unwrap();
    assert_eq!(serde_json::from_str::<Room>(&json).unwrap(), room);
}

#[test]
fn classic_r10_rematch_needs_both_and_the_starter_alternates() {
    let mut room = classic_room();
    let status = play_all(
        &mut room,
        &[
            (Player::X, "a1"),
            (Player::O, "b1"),
            (Player::X, "a2"),
            (Player::O, "b2"),
            (Player::X, "a3"),
        ],
        T0 + HOUR,
    );
    assert_eq!(status, Status::Win(Player::X));
    assert_eq!(
        room.play(Player::O, "c3", T0 + HOUR),
        Err(RoomError::GameOver)
    );
    assert_eq!(room.rematch(Player::O, T0 + 2 * HOUR), Ok(false));
    assert_eq!(room.rematch(Player::X, T0 + 2 * HOUR), Ok(true));
    assert_eq!(
        room.board().status(),
        Status::Ongoing(Player::O),
        "O starts the rematch"
    );
    assert_eq!(
        room.rematch(Player::X, T0 + 2 * HOUR),
        Err(RoomError::GameNotOver)
    );
    assert_eq!(room.series().score().wins, 1);
}

#[test]
fn classic_r11_whoever_resigns_loses() {
    let mut room = classic_room();
    room.play(Player::X, "b2", T0).unwrap();
    assert_eq!(room.resign(Player::X, T0), Ok(Ending::Resigned(Player::X)));
    assert_eq!(room.ending().unwrap().winner(), Some(Player::O));
    assert_eq!(room.series().score().losses, 1);
    assert_eq!(room.resign(Player::O, T0), Err(RoomError::GameOver));
}

#[test]
fn classic_r12_absence_after_two_days_and_close_after_seven() {
    let mut room = classic_room();
    room.play(Player::X, "b2", T0).unwrap();
    // O is to move: X may claim only after more than 2 days; O never may on its own turn.
    assert_eq!(
        room.claim_absence(Player::X, T0 + ABSENCE_MS),
        Err(RoomError::NotAbsent)
    );
    assert_eq!(
        room.claim_absence(Player::O, T0 + ABSENCE_MS + 1),
        Err(RoomError::NotAbsent)
    );
    assert_eq!(
        room.claim_absence(Player::X, T0 + ABSENCE_MS + 1),
        Ok(Ending::Absent(Player::O))
    );
    assert_eq!(room.ending().unwrap().winner(), Some(Player::X));
    // A room with no move for 7 days closes.
    let mut idle = classic_room();
    idle.play(Player::X, "a1", T0).unwrap();
    assert!(!idle.is_closed(T0 + IDLE_CLOSE_MS - 1));
    assert!(idle.is_closed(T0 + IDLE_CLOSE_MS));
    assert_eq!(
        idle.play(Player::O, "b2", T0 + IDLE_CLOSE_MS),
        Err(RoomError::Closed)
    );
    assert_eq!(
        idle.join("Caio", Some(Avatar::Rabisco), T0 + IDLE_CLOSE_MS),
        Err(RoomError::Closed)
    );
}

#[test]
fn classic_r13_up_to_50_spectators_who_never_move() {
    let mut room = classic_room();
    for _ in 0..MAX_SPECTATORS {
        assert_eq!(
            room.join("Fã", Some(Avatar::Rabisco), T0),
            Ok(Joined::Spectator)
        );
    }
    assert_eq!(room.join("Fã 51", None, T0), Err(RoomError::RoomFull));
    room.leave_spectator();
    assert_eq!(room.join("Fã 51", None, T0), Ok(Joined::Spectator));
    assert_eq!(room.spectators(), MAX_SPECTATORS);
    // Moving needs a seat (X or O); a spectator has none, so the board only changes by them.
    assert_eq!(room.board().status(), Status::Ongoing(Player::X));
}

#[test]
fn on_r01_super_and_2_0_rooms_use_names_only() {
    for game in [RoomGame::Super, RoomGame::V2] {
        assert_eq!(
            Room::create(game, "Ana", Some(Avatar::Nino), T0),
            Err(RoomError::NoAvatars)
        );
        let mut room = Room::create(game, "Ana", None, T0).unwrap();
        assert_eq!(
            room.join("Beto", Some(Avatar::Nino), T0),
            Err(RoomError::NoAvatars)
        );
        assert_eq!(room.join("Beto", None, T0), Ok(Joined::Player(Player::O)));
        assert_eq!(
            room.play(Player::X, "e5", T0),
            Ok(Status::Ongoing(Player::O))
        );
        assert_eq!(
            room.play(Player::O, "a1", T0),
            Err(RoomError::Illegal("must play in board 5".into()))
        );
        assert!(matches!(room.board(), Board::Ultimate(_)));
    }
}
