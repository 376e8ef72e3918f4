//! ON-P01: a finished game replays move by move at its own link, for anyone, rebuilt by the
//! rules from the stored moves.

use velha_api::{EndHow, ErrorCode, ReplayGame, RoomAct, RoomBoard, Seat};
use velha_rules::{Cube, CubeAction, Level, Position};

use crate::common::{Db, Server};
use crate::live::{meet, moved};

async fn on_p01_a_finished_cube_match_replays_for_anyone(db: Db) {
    let server = Server::start(db, &[]).await;
    let (x, mut xl, _o, mut ol, id) = meet(&server, 2).await;
    let stranger = server.client();
    let e = stranger.replay(&id).await.unwrap_err();
    assert_eq!(
        e.code,
        ErrorCode::NotFound,
        "a live match has no replay yet"
    );

    let played: [(Seat, &[&str]); 5] = [
        (Seat::X, &["a1"]),
        (Seat::O, &["S+", "c3"]),
        (Seat::X, &["a2"]),
        (Seat::O, &["c2"]),
        (Seat::X, &["a3"]),
    ];
    for (ply, (by, actions)) in played.iter().enumerate() {
        let (mover, other) = if *by == Seat::X {
            (&mut xl, &mut ol)
        } else {
            (&mut ol, &mut xl)
        };
        moved(mover, other, &id, ply as u32, actions).await;
    }
    let over = x.get_match(&id).await.unwrap();

    // No account, no session: the link is enough.
    let replay = stranger.replay(&id).await.unwrap();
    assert_eq!(replay.id, id);
    assert_eq!(replay.game, ReplayGame::Cube { level: 2 });
    assert_eq!(
        (replay.x.name.as_str(), replay.o.name.as_str()),
        ("xavier", "olivia")
    );
    assert_eq!((replay.winner, replay.how), (Some(Seat::X), EndHow::Line));
    let sent: Vec<(Seat, Vec<&str>)> = replay
        .moves
        .iter()
        .map(|m| (m.by, m.actions.iter().map(String::as_str).collect()))
        .collect();
    let want: Vec<(Seat, Vec<&str>)> = played.iter().map(|(s, a)| (*s, a.to_vec())).collect();
    assert_eq!(sent, want);
    // The rules rebuild the final position from the moves alone.
    let mut cube = Cube::new(Level::Two);
    for action in replay.moves.iter().flat_map(|m| &m.actions) {
        cube.play(action.parse::<CubeAction>().unwrap()).unwrap();
    }
    assert_eq!(cube.to_string(), over.position);

    let e = stranger.replay("no-such-match-id").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);

    // The moves out of reach for a moment is the server failing, not the record: the app
    // says to try again, and the next try shows the game.
    let mut database = server.database().await;
    let sql = |q: &'static str| sqlx::query(q);
    sql("ALTER TABLE moves RENAME TO moves_away")
        .execute(&mut database)
        .await
        .unwrap();
    let e = stranger.replay(&id).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal, "{}", e.message);
    sql("ALTER TABLE moves_away RENAME TO moves")
        .execute(&mut database)
        .await
        .unwrap();
    assert_eq!(stranger.replay(&id).await.unwrap().moves.len(), 5);
    // A seat no version writes is a damaged record.
    sqlx::query("UPDATE moves SET seat = 'Z' WHERE match_id = $1 AND ply = 3")
        .bind(&id)
        .execute(&mut database)
        .await
        .unwrap();
    let e = stranger.replay(&id).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::DamagedRecord, "{}", e.message);
    assert!(e.message.contains("seat"), "{}", e.message);
}
on_both!(on_p01_a_finished_cube_match_replays_for_anyone);

async fn on_p01_a_damaged_room_record_is_refused_not_shown(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let made = c.create_room(RoomBoard::Super, "Ana", None).await.unwrap();
    let id = made.room.id.clone();
    let seat = c.join_room(&id, "Bia", None).await.unwrap();
    let play = |cell: &str| RoomAct::Play { cell: cell.into() };
    c.room_act(&id, &made.credential, play("e5")).await.unwrap();
    c.room_act(&id, &seat.credential, play("d4")).await.unwrap();
    c.room_act(&id, &made.credential, RoomAct::Resign)
        .await
        .unwrap();
    let replay = c.replay(&format!("{id}/1")).await.unwrap();
    assert_eq!(
        (replay.game, replay.moves.len(), replay.winner, replay.how),
        (
            ReplayGame::Super { starter: Seat::X },
            2,
            Some(Seat::O),
            EndHow::Resigned
        )
    );
    // O's move is rewritten to a cell outside the board X sent her to: the rules refuse it.
    sqlx::query("UPDATE room_moves SET action = 'a1' WHERE room_id = $1 AND ply = 2")
        .bind(&id)
        .execute(&mut server.database().await)
        .await
        .unwrap();
    let e = c.replay(&format!("{id}/1")).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::DamagedRecord);
    assert!(e.message.contains("damaged"), "{}", e.message);
}
on_both!(on_p01_a_damaged_room_record_is_refused_not_shown);
