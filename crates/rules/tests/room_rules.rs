//! Invitation rooms: CLASSIC-R08 … R13 and ON-R01 (the room machinery for every board), and
//! ON-P01 (a room's games replayed from their records).

use proptest::prelude::*;
use velha_rules::game::Refusal;
use velha_rules::room::{
    ABSENCE_MS, ABSENT_ACTION, Avatar, Board, BoardIllegal, IDLE_CLOSE_MS, Joined, MAX_SPECTATORS,
    RESIGN_ACTION, Room, RoomError, RoomGame, TIMEOUT_ACTION, replay_game,
};
use velha_rules::{ClassicIllegal, Ending, Player, Position, Status, UltimateIllegal};

const T0: u64 = 1_800_000_000_000;
const HOUR: u64 = 60 * 60 * 1000;

fn classic_room() -> Room {
    let mut room =
        Room::create(RoomGame::Classic, "Ana", Some(Avatar::Nino), Player::X, T0).unwrap();
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
    let mut room = Room::create(
        RoomGame::Classic,
        "  Ana ",
        Some(Avatar::Rabisco),
        Player::X,
        T0,
    )
    .unwrap();
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
        Room::create(RoomGame::Classic, "Ana", None, Player::X, T0),
        Err(RoomError::AvatarRequired)
    );
}

#[test]
fn classic_r09_each_plays_their_turn_when_they_can() {
    let mut room = classic_room();
    assert_eq!(
        room.play(Player::O, "b2", T0 + HOUR),
        Err(RoomError::Game(Refusal::NotYourTurn))
    );
    assert_eq!(
        room.play(Player::X, "b2", T0 + 30 * HOUR),
        Ok(Status::Ongoing(Player::O))
    );
    assert_eq!(
        room.play(Player::O, "b2", T0 + 31 * HOUR),
        Err(RoomError::Game(Refusal::Illegal {
            index: 0,
            reason: BoardIllegal::Classic(ClassicIllegal::Occupied)
        }))
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
        Err(RoomError::Game(Refusal::Over))
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
    // The symbols stay: the classic game alternates the starter instead (V2-R08 is 2.0's).
    assert_eq!(
        (
            room.plays(Player::X),
            room.playing(Player::X).unwrap().name.as_str()
        ),
        (Player::X, "Ana")
    );
}

#[test]
fn classic_r11_whoever_resigns_loses() {
    let mut room = classic_room();
    room.play(Player::X, "b2", T0).unwrap();
    assert_eq!(
        room.resign(Player::X, T0),
        Ok((Some(Player::O), Ending::Resigned))
    );
    assert_eq!(room.ending().unwrap().0, Some(Player::O));
    assert_eq!(room.series().score().losses, 1);
    assert_eq!(
        room.resign(Player::O, T0),
        Err(RoomError::Game(Refusal::Over))
    );
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
        Ok((Some(Player::X), Ending::Absent))
    );
    assert_eq!(room.ending().unwrap().0, Some(Player::X));
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
            Room::create(game, "Ana", Some(Avatar::Nino), Player::X, T0),
            Err(RoomError::NoAvatars)
        );
        let mut room = Room::create(game, "Ana", None, Player::X, T0).unwrap();
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
            Err(RoomError::Game(Refusal::Illegal {
                index: 0,
                reason: BoardIllegal::Ultimate(UltimateIllegal::WrongBoard { sent: 4 })
            }))
        );
        assert!(matches!(room.board(), Board::Ultimate(_)));
    }
}

/// A legal cell of the board, as text, picked by `pick`.
fn some_cell(board: &Board, pick: usize) -> String {
    match board {
        Board::Classic(b) => {
            let cells: Vec<_> = b.legal_actions().into_iter().collect();
            cells[pick % cells.len()].to_string()
        }
        Board::Ultimate(b) => {
            let cells: Vec<_> = b.legal_actions().into_iter().collect();
            cells[pick % cells.len()].to_string()
        }
    }
}

/// A game as the room played it: its recorded actions, the boards it went through, its end.
type PlayedGame = (Vec<(Player, String)>, Vec<Board>, (Option<Player>, Ending));

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// ON-P01: a series played through the room (moves, resignations, absence claims,
    /// rematches) and recorded as the server records it is rebuilt game by game by
    /// `replay_game` to the same boards and endings the room reached.
    #[test]
    fn on_p01_a_rooms_games_replay_from_their_recorded_actions(
        game in prop_oneof![Just(RoomGame::Classic), Just(RoomGame::Super), Just(RoomGame::V2)],
        o_begins in any::<bool>(),
        choices in proptest::collection::vec(0usize..1000, 20..400),
    ) {
        let avatar = (game == RoomGame::Classic).then_some(Avatar::Nino);
        // SUPER-R05: Super's first game may be O's.
        let starter = if game == RoomGame::Super && o_begins { Player::O } else { Player::X };
        let mut room = Room::create(game, "Ana", avatar, starter, T0).unwrap();
        let other = (game == RoomGame::Classic).then_some(Avatar::Rabisco);
        room.join("Bia", other, T0).unwrap();
        let mut at = T0;
        let mut games: Vec<PlayedGame> = Vec::new();
        let mut actions = Vec::new();
        let mut boards = vec![room.board()];
        for pick in choices {
            at += HOUR;
            // Recorded by symbol, as the server records it; the room is asked by seat.
            let Status::Ongoing(mover) = room.board().status() else {
                let ending = room.ending().expect("a finished game has an ending");
                games.push((std::mem::take(&mut actions), std::mem::take(&mut boards), ending));
                room.rematch(Player::X, at).unwrap();
                room.rematch(Player::O, at).unwrap();
                boards.push(room.board());
                continue;
            };
            let seat = room.seat_playing(mover);
            match pick % 50 {
                0 => {
                    room.resign(seat, at).unwrap();
                    actions.push((mover, RESIGN_ACTION.to_owned()));
                }
                1 => {
                    at += ABSENCE_MS + 1;
                    room.claim_absence(!seat, at).unwrap();
                    actions.push((!mover, ABSENT_ACTION.to_owned()));
                }
                _ => {
                    let cell = some_cell(&room.board(), pick);
                    room.play(seat, &cell, at).unwrap();
                    actions.push((mover, cell));
                    boards.push(room.board());
                }
            }
            if let Some(ending) = room.ending() {
                games.push((std::mem::take(&mut actions), std::mem::take(&mut boards), ending));
                room.rematch(Player::X, at).unwrap();
                room.rematch(Player::O, at).unwrap();
                boards.push(room.board());
            }
        }
        for (number, (actions, boards, ending)) in games.iter().enumerate() {
            let recorded: Vec<(Player, &str)> =
                actions.iter().map(|(p, a)| (*p, a.as_str())).collect();
            let starter = room.series().starter_of(number as u32);
            let replayed = replay_game(game, starter, &recorded).unwrap();
            prop_assert_eq!(&replayed.boards, boards);
            prop_assert_eq!(replayed.ending, Some(*ending));
        }
        // The game in progress replays to where it stands, with no ending.
        let recorded: Vec<(Player, &str)> = actions.iter().map(|(p, a)| (*p, a.as_str())).collect();
        let now = replay_game(game, room.series().starter_of(games.len() as u32), &recorded).unwrap();
        prop_assert_eq!(now.boards, boards);
        prop_assert_eq!(now.ending, None);
    }
}

#[test]
fn on_p01_a_tampered_record_is_refused() {
    let x = Player::X;
    let o = Player::O;
    let game = RoomGame::Classic;
    // Out of turn, on a taken cell, after the end, a claim against the one who just moved.
    assert_eq!(
        replay_game(game, Player::X, &[(o, "a1")]),
        Err(RoomError::Game(Refusal::NotYourTurn))
    );
    assert!(matches!(
        replay_game(game, Player::X, &[(x, "a1"), (o, "a1")]),
        Err(RoomError::Game(Refusal::Illegal { .. }))
    ));
    assert_eq!(
        replay_game(game, Player::X, &[(x, "a1"), (o, RESIGN_ACTION), (x, "b1")]),
        Err(RoomError::Game(Refusal::Over))
    );
    assert_eq!(
        replay_game(game, Player::X, &[(x, "a1"), (o, ABSENT_ACTION)]),
        Err(RoomError::NotAbsent)
    );
    assert!(matches!(
        replay_game(game, Player::X, &[(x, "z9")]),
        Err(RoomError::Unreadable(_))
    ));
    // Only 2.0 has a clock: a turn lost on it replays there, nowhere else (V2-R05).
    assert!(matches!(
        replay_game(game, Player::X, &[(x, TIMEOUT_ACTION)]),
        Err(RoomError::Game(Refusal::Illegal { .. }))
    ));
    assert!(matches!(
        replay_game(RoomGame::Super, Player::X, &[(x, TIMEOUT_ACTION)]),
        Err(RoomError::Game(Refusal::Illegal { .. }))
    ));
    let lost = replay_game(RoomGame::V2, Player::X, &[(x, TIMEOUT_ACTION), (o, "e5")]).unwrap();
    assert_eq!(lost.boards.len(), 3);
    assert_eq!(lost.boards[2].status(), Status::Ongoing(x));
    assert_eq!(
        replay_game(RoomGame::V2, Player::X, &[(o, TIMEOUT_ACTION)]),
        Err(RoomError::Game(Refusal::NotYourTurn))
    );
    // A game O begins (a classic rematch, CLASSIC-R10).
    assert_eq!(
        replay_game(game, o, &[(x, "a1")]),
        Err(RoomError::Game(Refusal::NotYourTurn))
    );
    let second = replay_game(game, o, &[(o, "a1")]).unwrap();
    assert_eq!(second.boards.len(), 2);
}

#[test]
fn super_r05_a_super_room_begins_with_the_starter_chosen_or_tossed_then_alternates() {
    let mut room = Room::create(RoomGame::Super, "Ana", None, Player::O, T0).unwrap();
    room.join("Beto", None, T0).unwrap();
    assert_eq!(room.board().status(), Status::Ongoing(Player::O));
    assert_eq!(
        room.play(Player::X, "e5", T0),
        Err(RoomError::Game(Refusal::NotYourTurn))
    );
    room.play(Player::O, "e5", T0).unwrap();
    room.resign(Player::X, T0).unwrap();
    room.rematch(Player::X, T0).unwrap();
    room.rematch(Player::O, T0).unwrap();
    assert_eq!(room.board().status(), Status::Ongoing(Player::X));
    assert_eq!(room.series().starter_of(2), Player::O);
    // The other boards' first games are X's: CLASSIC-R05, V2-R08.
    for (game, avatar) in [
        (RoomGame::Classic, Some(Avatar::Nino)),
        (RoomGame::V2, None),
    ] {
        assert_eq!(
            Room::create(game, "Ana", avatar, Player::O, T0),
            Err(RoomError::StarterFixed)
        );
    }
}

/// A 2.0 room with Ana (the creator) and Beto seated.
fn v2_room() -> Room {
    let mut room = Room::create(RoomGame::V2, "Ana", None, Player::X, T0).unwrap();
    room.join("Beto", None, T0).unwrap();
    room
}

fn name_of(room: &Room, symbol: Player) -> &str {
    room.playing(symbol).unwrap().name.as_str()
}

#[test]
fn v2_r08_a_rooms_rematch_swaps_the_symbols_so_x_always_starts() {
    let (ana, beto) = (Player::X, Player::O);
    let mut room = v2_room();
    assert_eq!(
        (name_of(&room, Player::X), room.plays(ana)),
        ("Ana", Player::X)
    );
    room.play(ana, "e5", T0).unwrap();
    room.resign(ana, T0).unwrap();
    assert_eq!(room.ending().unwrap().0, Some(Player::O));
    // While the rematch waits, the finished game keeps its symbols.
    room.rematch(beto, T0).unwrap();
    assert_eq!(room.plays(beto), Player::O);
    room.rematch(ana, T0).unwrap();
    // Beto would begin the second game, so he plays X, and X begins.
    assert_eq!(room.board().status(), Status::Ongoing(Player::X));
    assert_eq!(
        (name_of(&room, Player::X), name_of(&room, Player::O)),
        ("Beto", "Ana")
    );
    assert_eq!(
        (room.plays(beto), room.seat_playing(Player::O)),
        (Player::X, ana)
    );
    assert_eq!(
        room.play(ana, "e5", T0),
        Err(RoomError::Game(Refusal::NotYourTurn))
    );
    assert_eq!(room.play(beto, "e5", T0), Ok(Status::Ongoing(Player::O)));
    // Ana (O) is to move: Beto may claim her absence, she may not claim his.
    let late = T0 + ABSENCE_MS + 1;
    assert_eq!(room.claim_absence(ana, late), Err(RoomError::NotAbsent));
    assert_eq!(
        room.claim_absence(beto, late),
        Ok((Some(Player::X), Ending::Absent))
    );
    // The score is each player's, not each symbol's: Ana lost both games, as X then as O.
    let score = room.series().score();
    assert_eq!((score.wins, score.losses, score.draws), (0, 2, 0));
    room.rematch(ana, late).unwrap();
    room.rematch(beto, late).unwrap();
    assert_eq!(
        (name_of(&room, Player::X), room.board().status()),
        ("Ana", Status::Ongoing(Player::X))
    );
    room.play(ana, "a1", late).unwrap();
    room.resign(beto, late).unwrap();
    assert_eq!(
        room.series().score().wins,
        1,
        "Ana won the third game, as X"
    );
}

#[test]
fn v2_r08_a_2_0_room_stored_before_the_swap_keeps_its_symbols() {
    let mut room = v2_room();
    room.resign(Player::X, T0).unwrap();
    let stored = serde_json::to_string(&room).unwrap();
    assert!(stored.contains(r#""swaps":true"#), "{stored}");
    let mut old: Room = serde_json::from_str(&stored.replace(r#""swaps":true,"#, "")).unwrap();
    old.rematch(Player::X, T0).unwrap();
    old.rematch(Player::O, T0).unwrap();
    assert_eq!(
        (name_of(&old, Player::X), old.board().status()),
        ("Ana", Status::Ongoing(Player::O))
    );
}

/// Rooms as the release before the rooms held a match wrote them: a resigned classic game, a
/// 2.0 game won by an absence claim while the rematch waits, a Super game in progress.
const STORED_BEFORE: [&str; 3] = [
    r#"{"game":"classic","seats":[{"name":"Ana","avatar":"nino"},{"name":"Bia","avatar":"rabisco"}],"spectators":0,"board":{"Classic":{"state":"....X.... O"}},"series":{"first_starter":"X","swaps":false,"games":1,"side":"X","score":{"wins":1,"draws":0,"losses":0}},"ending":{"Resigned":"O"},"rematch":[false,false],"last_activity_ms":2000}"#,
    r#"{"game":"v2","seats":[{"name":"Ana","avatar":null},{"name":"Bia","avatar":null}],"spectators":0,"board":{"Ultimate":{"variant":"v2","state":"........................................X........................................ O 5"}},"series":{"first_starter":"X","swaps":true,"games":1,"side":"X","score":{"wins":1,"draws":0,"losses":0}},"ending":{"Absent":"O"},"rematch":[true,false],"last_activity_ms":2000}"#,
    r#"{"game":"super","seats":[{"name":"Ana","avatar":null},{"name":"Bia","avatar":null}],"spectators":0,"board":{"Ultimate":{"variant":"super","state":"O.........X.............................O........................................ X 5"}},"series":{"first_starter":"O","swaps":false,"games":0,"side":"X","score":{"wins":0,"draws":0,"losses":0}},"ending":null,"rematch":[false,false],"last_activity_ms":2000}"#,
];

#[test]
fn on_r01_rooms_stored_by_an_earlier_version_read_back_and_are_written_alike() {
    let [classic, v2, ultimate] =
        STORED_BEFORE.map(|json| serde_json::from_str::<Room>(json).unwrap());
    assert_eq!(classic.ending(), Some((Some(Player::X), Ending::Resigned)));
    assert_eq!(v2.ending(), Some((Some(Player::X), Ending::Absent)));
    assert_eq!(v2.rematch_asked(), [true, false]);
    assert_eq!(ultimate.ending(), None);
    assert_eq!(ultimate.board().status(), Status::Ongoing(Player::X));
    // Written back byte for byte: a room loses no turns, so its 2.0 lines are as they were.
    assert_eq!(serde_json::to_string(&classic).unwrap(), STORED_BEFORE[0]);
    assert_eq!(serde_json::to_string(&v2).unwrap(), STORED_BEFORE[1]);
    assert_eq!(serde_json::to_string(&ultimate).unwrap(), STORED_BEFORE[2]);
    // A stored ending that does not fit its board is refused, not believed.
    for lying in [
        STORED_BEFORE[2].replace(r#""ending":null"#, r#""ending":{"Board":"Draw"}"#),
        STORED_BEFORE[2].replace(r#""ending":null"#, r#""ending":{"Board":{"Ongoing":"X"}}"#),
        STORED_BEFORE[0].replace(r#""ending":{"Resigned":"O"}"#, r#""ending":{"Absent":"X"}"#),
    ] {
        assert!(serde_json::from_str::<Room>(&lying).is_err(), "{lying}");
    }
}
