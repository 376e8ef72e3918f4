//! CLASSIC-R08 … R13, ON-R01 … ON-R05: invitation rooms on the server — a link, two seats
//! proved by credentials, spectators who only watch, the series (Super's first starter by
//! choice or the server's coin, SUPER-R05; 2.0's symbols swapped every game, V2-R08), and the
//! absence claim and the 7-day close by the server's clock, across a restart.

use std::time::Duration;

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::json;
use velha_api::{
    Avatar, EndHow, ErrorCode, ReplayGame, RoomAct, RoomBoard, RoomClientMsg, RoomServerMsg,
    RoomStarter, RoomView, Seat,
};
use velha_load::{Client, RoomLive};
use velha_rules::Player;
use velha_rules::room::{Avatar as RulesAvatar, Room, RoomGame};
use velha_server::store::{RoomSave, Store};
use velha_server::token::{new_id, new_token, now_ms, token_hash};

use crate::common::{Db, Server, limited_at_once, send_oversized};
use crate::groups::count;

const DAY: i64 = 86_400_000;

fn code(e: &velha_api::ApiError) -> ErrorCode {
    e.code
}

fn play(cell: &str) -> RoomAct {
    RoomAct::Play { cell: cell.into() }
}

/// The next room message `wanted` accepts, within 5 s.
async fn heard(live: &mut RoomLive, wanted: impl Fn(&RoomServerMsg) -> bool) -> RoomServerMsg {
    live.recv_until(Duration::from_secs(5), wanted)
        .await
        .unwrap_or_else(|e| panic!("waiting on a room: {e}"))
}

fn room_at_ply(ply: u32) -> impl Fn(&RoomServerMsg) -> bool {
    move |m| matches!(m, RoomServerMsg::Room { room } if room.ply == ply)
}

async fn classic_r08_a_room_by_link_with_characters_a_series_rematch_and_resign(db: Db) {
    let server = Server::start(db, &[]).await;
    let (ana, bia, caio) = (server.client(), server.client(), server.client());
    for (board, avatar, want) in [
        (RoomBoard::Classic, None, ErrorCode::BadRequest),
        (RoomBoard::Super, Some(Avatar::Nino), ErrorCode::BadRequest),
        (RoomBoard::V2, None, ErrorCode::BadName),
    ] {
        let name = if want == ErrorCode::BadName {
            "  "
        } else {
            "Ana"
        };
        let e = ana.create_room(board, name, avatar).await.unwrap_err();
        assert_eq!(code(&e), want, "{board:?} {avatar:?}");
    }
    let made = ana
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Quelonia))
        .await
        .unwrap();
    let id = made.room.id.clone();
    assert!(id.len() >= 16, "at least 96 random bits: {id}");
    assert_eq!((made.room.you, made.room.o.clone()), (Some(Seat::X), None));
    let e = bia
        .join_room(&id, "Bia", Some(Avatar::Quelonia))
        .await
        .unwrap_err();
    assert_eq!(code(&e), ErrorCode::AvatarTaken);
    let seat = bia.join_room(&id, "Bia", Some(Avatar::Nino)).await.unwrap();
    assert_eq!(seat.room.you, Some(Seat::O));
    assert_eq!(
        seat.room.o.as_ref().map(|o| o.avatar),
        Some(Some(Avatar::Nino))
    );
    let e = caio
        .join_room(&id, "Caio", Some(Avatar::Rabisco))
        .await
        .unwrap_err();
    assert_eq!(
        code(&e),
        ErrorCode::Conflict,
        "both seats taken: the link watches"
    );
    let (x, o) = (made.credential, seat.credential);

    // CLASSIC-R09: each in turn; the rules refuse the rest.
    let e = caio.room_act(&id, &o, play("b2")).await.unwrap_err();
    assert_eq!(code(&e), ErrorCode::NotYourTurn);
    let e = caio
        .room_act(&id, "a-made-up-credential", play("a1"))
        .await
        .unwrap_err();
    assert_eq!(code(&e), ErrorCode::Forbidden);
    // X's credential with its time kept and its secret changed, and a seat of another room:
    // neither holds a seat here, and the refusal changes nothing.
    let mut forged = x.clone();
    forged.replace_range(x.len() - 4.., "AAAA");
    let other = caio
        .create_room(RoomBoard::Classic, "Caio", Some(Avatar::Nino))
        .await
        .unwrap();
    for credential in [forged.as_str(), other.credential.as_str()] {
        let e = caio
            .room_act(&id, credential, play("a1"))
            .await
            .unwrap_err();
        assert_eq!(code(&e), ErrorCode::Forbidden, "{credential}");
    }
    let (status, room) = caio
        .raw(Method::GET, &format!("/api/rooms/{id}"), None)
        .await
        .unwrap();
    assert_eq!((status, &room["ply"]), (200, &json!(0)), "{room}");
    caio.room_act(&id, &x, play("a1")).await.unwrap();
    let e = caio.room_act(&id, &o, play("a1")).await.unwrap_err();
    assert_eq!(code(&e), ErrorCode::IllegalMove);
    for (cred, cell) in [(&o, "b1"), (&x, "a2"), (&o, "b2")] {
        caio.room_act(&id, cred, play(cell)).await.unwrap();
    }
    let room = caio.room_act(&id, &x, play("a3")).await.unwrap();
    let ending = room.ending.unwrap();
    assert_eq!((ending.winner, ending.how), (Some(Seat::X), EndHow::Line));
    assert_eq!(
        (room.series, room.games, room.to_move),
        ([1, 0, 0], 1, None)
    );
    let e = caio.room_act(&id, &o, play("c3")).await.unwrap_err();
    assert_eq!(code(&e), ErrorCode::Conflict, "over: wait for the rematch");

    // CLASSIC-R10: both ask, and the starter alternates: O opens the second game.
    let room = caio.room_act(&id, &x, RoomAct::Rematch).await.unwrap();
    assert_eq!((room.rematch, room.ending.is_some()), ([true, false], true));
    let room = caio.room_act(&id, &o, RoomAct::Rematch).await.unwrap();
    assert_eq!(
        (room.ending, room.ply, room.to_move),
        (None, 0, Some(Seat::O))
    );
    // CLASSIC-R11: O resigns; the game goes to X.
    let room = caio.room_act(&id, &o, RoomAct::Resign).await.unwrap();
    let ending = room.ending.unwrap();
    assert_eq!(
        (ending.winner, ending.how),
        (Some(Seat::X), EndHow::Resigned)
    );
    assert_eq!(room.series, [2, 0, 0]);

    // ON-P01: each finished game replays from what was recorded, numbered from 1; the record
    // of a resignation is the ending, not a move; the game not played yet has no replay.
    let first = ana.replay(&format!("{id}/1")).await.unwrap();
    assert_eq!(
        (first.id.clone(), first.game, first.winner, first.how),
        (
            format!("{id}/1"),
            ReplayGame::Classic { starter: Seat::X },
            Some(Seat::X),
            EndHow::Line
        )
    );
    let cells: Vec<(Seat, &str)> = first
        .moves
        .iter()
        .map(|m| (m.by, m.actions[0].as_str()))
        .collect();
    assert_eq!(
        cells,
        [
            (Seat::X, "a1"),
            (Seat::O, "b1"),
            (Seat::X, "a2"),
            (Seat::O, "b2"),
            (Seat::X, "a3")
        ]
    );
    assert_eq!(
        (first.x.avatar, first.o.name.as_str()),
        (Some(Avatar::Quelonia), "Bia")
    );
    let second = server.client().replay(&format!("{id}/2")).await.unwrap();
    assert_eq!(
        (second.game, second.moves.len(), second.winner, second.how),
        (
            ReplayGame::Classic { starter: Seat::O },
            0,
            Some(Seat::X),
            EndHow::Resigned
        )
    );
    let e = ana.replay(&format!("{id}/3")).await.unwrap_err();
    assert_eq!(code(&e), ErrorCode::NotFound, "not played yet");
    for bad in ["0", "-1", "x", "99999999999"] {
        let e = ana.replay(&format!("{id}/{bad}")).await.unwrap_err();
        assert_eq!(code(&e), ErrorCode::BadRequest, "{bad}");
    }
    let e = ana.replay(&format!("{}/1", new_id())).await.unwrap_err();
    assert_eq!(code(&e), ErrorCode::NotFound);
    let (status, seen) = caio
        .raw(Method::GET, &format!("/api/rooms/{id}"), None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let seen: RoomView = serde_json::from_value(seen).unwrap();
    assert_eq!(
        (seen.you, seen.x.name.as_str(), seen.games),
        (None, "Ana", 2)
    );
    let (status, _) = caio
        .raw(Method::GET, "/api/rooms/nope", None)
        .await
        .unwrap();
    assert_eq!(status, 404);
}
on_both!(classic_r08_a_room_by_link_with_characters_a_series_rematch_and_resign);

async fn classic_r13_fifty_spectators_watch_live_the_51st_is_refused_and_none_plays(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let made = c.create_room(RoomBoard::Super, "Ana", None).await.unwrap();
    let id = made.room.id.clone();
    let joined = c.join_room(&id, "Bia", None).await.unwrap();
    let mut spectators = Vec::new();
    for _ in 0..50 {
        let mut live = c.room_live(&id, "").await.unwrap();
        heard(&mut live, |m| matches!(m, RoomServerMsg::Room { .. })).await;
        spectators.push(live);
    }
    let mut late = c.room_live(&id, "").await.unwrap();
    let refused = heard(&mut late, |_| true).await;
    assert!(
        matches!(
            refused,
            RoomServerMsg::Error {
                code: ErrorCode::RoomFull,
                ..
            }
        ),
        "{refused:?}"
    );
    // A spectator's action is refused and changes nothing; the players' moves reach all 50.
    spectators[7]
        .send(&velha_api::RoomClientMsg::Act { act: play("e5") })
        .await
        .unwrap();
    let answer = heard(&mut spectators[7], |m| {
        matches!(m, RoomServerMsg::Error { .. })
    })
    .await;
    assert!(matches!(
        answer,
        RoomServerMsg::Error {
            code: ErrorCode::Forbidden,
            ..
        }
    ));
    let mut x = c.room_live(&id, &made.credential).await.unwrap();
    heard(
        &mut x,
        |m| matches!(m, RoomServerMsg::Room { room } if room.you == Some(Seat::X)),
    )
    .await;
    x.send(&velha_api::RoomClientMsg::Act { act: play("e5") })
        .await
        .unwrap();
    for live in &mut spectators {
        let seen = heard(live, room_at_ply(1)).await;
        let RoomServerMsg::Room { room } = seen else {
            unreachable!()
        };
        assert_eq!(
            (room.you, room.to_move, room.spectators),
            (None, Some(Seat::O), 50)
        );
    }
    c.room_act(&id, &joined.credential, play("d4"))
        .await
        .unwrap();
    heard(&mut x, room_at_ply(2)).await;
    // One leaves: a place frees up for the next.
    spectators.pop().unwrap().close().await;
    let mut next = None;
    for _ in 0..50 {
        let mut live = c.room_live(&id, "").await.unwrap();
        if matches!(heard(&mut live, |_| true).await, RoomServerMsg::Room { .. }) {
            next = Some(live);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(next.is_some(), "the freed place is taken again");
}
on_both!(classic_r13_fifty_spectators_watch_live_the_51st_is_refused_and_none_plays);

async fn on_r02_joins_racing_for_the_free_seat_seat_exactly_one(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    for round in 0..5 {
        let made = c.create_room(RoomBoard::V2, "Ana", None).await.unwrap();
        let id = made.room.id;
        let tries = (0..20).map(|i| {
            let c = c.clone();
            let id = id.clone();
            async move { c.join_room(&id, &format!("P{i}"), None).await }
        });
        let results = join_all(tries).await;
        let seated = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!(seated, 1, "round {round}");
        for e in results.iter().filter_map(|r| r.as_ref().err()) {
            assert_eq!(e.code, ErrorCode::Conflict, "round {round}: {}", e.message);
        }
    }
}
on_both!(on_r02_joins_racing_for_the_free_seat_seat_exactly_one);

/// A classic room with Ana (X, Nino) and Bia (O, Rabisco) seated: its id and both credentials.
async fn seated_classic(c: &Client) -> (String, String, String) {
    let made = c
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let seat = c
        .join_room(&made.room.id, "Bia", Some(Avatar::Rabisco))
        .await
        .unwrap();
    (made.room.id, made.credential, seat.credential)
}

/// The next view of room `id` on `live` (a room left may still send one or two before it).
async fn room_of(live: &mut RoomLive, id: &str) -> RoomView {
    match heard(
        live,
        |m| matches!(m, RoomServerMsg::Room { room } if room.id == id),
    )
    .await
    {
        RoomServerMsg::Room { room } => room,
        _ => unreachable!(),
    }
}

/// The next refusal on `live`: its code.
async fn refusal(live: &mut RoomLive) -> ErrorCode {
    match heard(live, |m| matches!(m, RoomServerMsg::Error { .. })).await {
        RoomServerMsg::Error { code, .. } => code,
        _ => unreachable!(),
    }
}

fn enter(room: &str, credential: &str) -> RoomClientMsg {
    RoomClientMsg::Enter {
        room: room.into(),
        credential: credential.into(),
    }
}

async fn classic_r09_one_connection_moves_from_room_to_room_and_plays_in_each(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let (a, ax, _) = seated_classic(&c).await;
    let (b, bx, bo) = seated_classic(&c).await;
    let mut live = c.room_live(&a, &ax).await.unwrap();
    assert_eq!(room_of(&mut live, &a).await.you, Some(Seat::X));
    live.send(&enter(&b, &bx)).await.unwrap();
    let there = room_of(&mut live, &b).await;
    assert_eq!((there.you, there.ply), (Some(Seat::X), 0));
    // Its moves are the new room's; the room left goes on without it.
    live.send(&RoomClientMsg::Act { act: play("a1") })
        .await
        .unwrap();
    assert_eq!(room_of(&mut live, &b).await.ply, 1);
    assert_eq!(c.room(&a).await.unwrap().ply, 0);
    c.room_act(&a, &ax, play("c3")).await.unwrap();
    c.room_act(&b, &bo, play("b1")).await.unwrap();
    let next = heard(&mut live, |m| matches!(m, RoomServerMsg::Room { .. })).await;
    let RoomServerMsg::Room { room: next } = next else {
        unreachable!()
    };
    assert_eq!(
        (next.id.as_str(), next.ply),
        (b.as_str(), 2),
        "nothing of the room left"
    );
    // To watch: one more spectator, whom the seated player hears come and go.
    let mut x = c.room_live(&a, &ax).await.unwrap();
    assert_eq!(room_of(&mut x, &a).await.spectators, 0);
    live.send(&enter(&a, "")).await.unwrap();
    let watching = room_of(&mut live, &a).await;
    assert_eq!(
        (watching.you, watching.ply, watching.spectators),
        (None, 1, 1)
    );
    assert_eq!(room_of(&mut x, &a).await.spectators, 1);
    // Out of every room, the connection stays for the next: no room, no move.
    live.send(&RoomClientMsg::Leave).await.unwrap();
    assert_eq!(room_of(&mut x, &a).await.spectators, 0);
    live.send(&RoomClientMsg::Act { act: play("a2") })
        .await
        .unwrap();
    assert_eq!(refusal(&mut live).await, ErrorCode::BadRequest);
    assert_eq!(c.room(&a).await.unwrap().ply, 1, "no room, no move");
    live.send(&enter(&b, &bx)).await.unwrap();
    assert_eq!(room_of(&mut live, &b).await.you, Some(Seat::X));
    // Refused, it is told why and closed, as after a refused hello.
    for (room, credential, code) in [
        ("nope", "", ErrorCode::NotFound),
        (a.as_str(), bo.as_str(), ErrorCode::Unauthorized),
    ] {
        live.send(&enter(room, credential)).await.unwrap();
        assert_eq!(refusal(&mut live).await, code);
        live.closed(Duration::from_secs(5)).await.unwrap();
        live = c.room_live(&b, &bx).await.unwrap();
        room_of(&mut live, &b).await;
    }
}
on_both!(classic_r09_one_connection_moves_from_room_to_room_and_plays_in_each);

/// How many of a room's seat connections, and of its spectators, PostgreSQL counts: what
/// decides whether a seat's turn is pushed, and the 50 places.
async fn counted(server: &Server, room: &str) -> (i64, i64) {
    let sum = |table: &str, column: &str| {
        format!(
            "SELECT CAST(COALESCE(SUM({column}), 0) AS BIGINT) FROM {table} WHERE room_id = '{room}'"
        )
    };
    (
        count(server, &sum("room_seat_presence", "connections")).await,
        count(server, &sum("room_spectators", "watching")).await,
    )
}

/// On PostgreSQL who looks at a room (whose turns then go unpushed) and who watches it follow a
/// connection from room to room, out of every room, through a refused enter and to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classic_r09_who_looks_follows_a_connection_that_moves() {
    let Some(db) = Db::postgres().await else {
        return;
    };
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let (a, ax, _) = seated_classic(&c).await;
    let (b, _, _) = seated_classic(&c).await;
    let mut live = c.room_live(&a, &ax).await.unwrap();
    room_of(&mut live, &a).await;
    assert_eq!(counted(&server, &a).await, (1, 0));
    live.send(&enter(&b, "")).await.unwrap();
    room_of(&mut live, &b).await;
    assert_eq!(counted(&server, &a).await, (0, 0));
    assert_eq!(counted(&server, &b).await, (0, 1));
    // A message is answered once the one before it is done.
    live.send(&RoomClientMsg::Leave).await.unwrap();
    live.send(&RoomClientMsg::Ping).await.unwrap();
    heard(&mut live, |m| *m == RoomServerMsg::Pong).await;
    assert_eq!(counted(&server, &b).await, (0, 0));
    live.send(&enter(&a, &ax)).await.unwrap();
    room_of(&mut live, &a).await;
    assert_eq!(counted(&server, &a).await, (1, 0));
    live.send(&enter("nope", "")).await.unwrap();
    assert_eq!(refusal(&mut live).await, ErrorCode::NotFound);
    assert_eq!(counted(&server, &a).await, (0, 0));
    let mut watcher = c.room_live(&b, "").await.unwrap();
    room_of(&mut watcher, &b).await;
    assert_eq!(counted(&server, &b).await, (0, 1));
    watcher.close().await;
    let mut gone = (0, 1);
    for _ in 0..50 {
        gone = counted(&server, &b).await;
        if gone == (0, 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(gone, (0, 0), "a connection that ends gives its place back");
}

async fn on_r02_a_connection_moving_between_rooms_too_fast_is_told_to_wait(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let (a, ax, _) = seated_classic(&c).await;
    let (b, bx, _) = seated_classic(&c).await;
    let mut live = c.room_live(&a, &ax).await.unwrap();
    room_of(&mut live, &a).await;
    // A seat's moves tell nobody else: as many as it likes.
    for i in 0..30 {
        live.send(&if i % 2 == 0 {
            enter(&b, &bx)
        } else {
            enter(&a, &ax)
        })
        .await
        .unwrap();
    }
    live.send(&RoomClientMsg::Ping).await.unwrap();
    let answer = heard(&mut live, |m| !matches!(m, RoomServerMsg::Room { .. })).await;
    assert_eq!(answer, RoomServerMsg::Pong);
    // A spectator's: ten at once, then one a second; past that it is told to wait, and closed.
    for i in 0..30 {
        let room = if i % 2 == 0 { &b } else { &a };
        if live.send(&enter(room, "")).await.is_err() {
            break;
        }
    }
    assert_eq!(refusal(&mut live).await, ErrorCode::RateLimited);
    live.closed(Duration::from_secs(5)).await.unwrap();
    // Another connection moves at once, and the closed one gave its place back.
    let mut again = c.room_live(&a, "").await.unwrap();
    room_of(&mut again, &a).await;
    again.send(&enter(&b, "")).await.unwrap();
    heard(
        &mut again,
        |m| matches!(m, RoomServerMsg::Room { room } if room.id == b && room.spectators == 1),
    )
    .await;
}
on_both!(on_r02_a_connection_moving_between_rooms_too_fast_is_told_to_wait);

async fn classic_r13_connections_entering_a_room_at_once_take_at_most_fifty_places(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    for round in 0..3 {
        let made = c.create_room(RoomBoard::Super, "Ana", None).await.unwrap();
        let id = made.room.id;
        // Sixty connections, each watching another room first.
        let mut lives = watchers(&c, 30).await;
        lives.extend(watchers(&c, 30).await);
        let entered = join_all(lives.iter_mut().map(|live| {
            let id = id.clone();
            async move {
                live.send(&enter(&id, "")).await.unwrap();
                heard(live, |m| match m {
                    RoomServerMsg::Room { room } => room.id == id,
                    RoomServerMsg::Error { .. } => true,
                    RoomServerMsg::Pong => false,
                })
                .await
            }
        }))
        .await;
        let placed = entered
            .iter()
            .filter(|m| matches!(m, RoomServerMsg::Room { .. }))
            .count();
        assert_eq!(placed, 50, "round {round}");
        for m in &entered {
            assert!(
                matches!(
                    m,
                    RoomServerMsg::Room { .. }
                        | RoomServerMsg::Error {
                            code: ErrorCode::RoomFull,
                            ..
                        }
                ),
                "round {round}: {m:?}"
            );
        }
        assert_eq!(c.room(&id).await.unwrap().spectators, 50, "round {round}");
    }
}
on_both!(classic_r13_connections_entering_a_room_at_once_take_at_most_fifty_places);

async fn classic_r09_racing_moves_of_one_seat_play_exactly_one(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    for round in 0..5 {
        let (id, x, _) = seated_classic(&c).await;
        let cells = ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"];
        let tries = cells.iter().map(|cell| {
            let (c, id, credential) = (c.clone(), id.clone(), x.clone());
            let act = RoomAct::Play {
                cell: (*cell).to_owned(),
            };
            async move { c.room_act(&id, &credential, act).await }
        });
        let results = join_all(tries).await;
        let played: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(played.len(), 1, "round {round}");
        for e in results.iter().filter_map(|r| r.as_ref().err()) {
            assert_eq!(
                e.code,
                ErrorCode::NotYourTurn,
                "round {round}: {}",
                e.message
            );
        }
        // The one move stands for whoever opens the room next: O is to move after ply 1.
        let mut live = c.room_live(&id, "").await.unwrap();
        let RoomServerMsg::Room { room: seen } = heard(&mut live, |_| true).await else {
            panic!("round {round}: the room first");
        };
        assert_eq!(
            (seen.ply, seen.to_move),
            (1, Some(Seat::O)),
            "round {round}"
        );
        assert_eq!(seen.position, played[0].position, "round {round}");
    }
}
on_both!(classic_r09_racing_moves_of_one_seat_play_exactly_one);

/// A phone that lost its connection comes back with the TLS ticket of its last one, and the
/// server takes it: every connection of a wave resumes, however many come back at once, and
/// although 300 other players connected since (the server seals its tickets, where rustls's
/// default remembered the last 256 sessions).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_coming_back_all_at_once_resume_their_tls_sessions() {
    let server = Server::start(Db::Sqlite, &[]).await;
    let c = server.client();
    // Every spectator of a wave connects at once and reads the room (its ticket comes with the
    // handshake), then leaves; the next wave comes back with the tickets. The first wave is
    // twice as large: a connection may resume with the ticket of one of its own wave that
    // came sooner, and the wave then leaves fewer tickets than it has connections.
    let wave: u64 = 40;
    let (first, second) = tokio::join!(watchers(&c, wave), watchers(&c, wave));
    for live in first.into_iter().chain(second) {
        live.close().await;
    }
    let mut before = c.handshakes();
    assert_eq!(before.0 + before.1, 2 * wave);
    for round in 1..3 {
        if round == 2 {
            // Other players, each new to the server: 300 sessions it has not seen before.
            for _ in 0..10 {
                for live in watchers(&server.client(), 30).await {
                    live.close().await;
                }
            }
        }
        for live in watchers(&c, wave).await {
            live.close().await;
        }
        let (full, resumed) = c.handshakes();
        assert_eq!(
            (full - before.0, resumed - before.1),
            (0, wave),
            "round {round}"
        );
        before = (full, resumed);
    }
}

/// `n` spectators of a new room, connected at once, each having read the room.
async fn watchers(c: &Client, n: u64) -> Vec<RoomLive> {
    let made = c
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let lives = join_all((0..n).map(|_| c.room_live(&made.room.id, ""))).await;
    let mut lives: Vec<RoomLive> = lives.into_iter().map(Result::unwrap).collect();
    for live in &mut lives {
        heard(live, |m| matches!(m, RoomServerMsg::Room { .. })).await;
    }
    lives
}

/// On PostgreSQL a room's change records the event that tells the other processes of it in its
/// own transaction: a kept change has its event, a declined one leaves none behind (so no
/// process hears of a move that was never made, or misses one that was).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classic_r09_a_rooms_change_and_the_event_telling_of_it_commit_together() {
    let Some(db) = Db::postgres().await else {
        return;
    };
    let server = Server::start(db, &[]).await;
    let store = Store::open(&server.database_url()).await.unwrap();
    let (id, _, _) = room_played_ago(&store, 0).await;
    let row = store.room(&id).await.unwrap().unwrap();
    let mut played = row.room.clone();
    played.play(Player::O, "b2", now_ms() as u64).unwrap();
    let save = |told| RoomSave {
        before: &row,
        after: &played,
        action: Some((Seat::O, "b2")),
        new_game: false,
        now: now_ms(),
        told,
    };
    let kept = (new_id(), r#"{"kept":true}"#.to_owned());
    assert!(store.save_room(&save(Some(&kept))).await.unwrap().is_some());
    assert_eq!(store.event(&kept.0).await.unwrap(), Some(kept.1.clone()));
    // The same change again, over the version it read: declined, and its event with it.
    let stale = (new_id(), r#"{"kept":false}"#.to_owned());
    assert!(
        store
            .save_room(&save(Some(&stale)))
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(store.event(&stale.0).await.unwrap(), None);
    assert_eq!(store.room(&id).await.unwrap().unwrap().ply, 2);
}

/// Behind a balancer that ends TLS, a process may speak plain HTTP: the same rooms, live.
async fn plain_http_behind_a_balancer_serves_rooms_live_and_never_alone(db: Db) {
    let server = Server::start(
        db,
        &["--plain-http", "--forwarded-for-header", "x-forwarded-for"],
    )
    .await;
    assert!(server.base.starts_with("http://"), "{}", server.base);
    let c = server.client();
    let (id, x, o) = seated_classic(&c).await;
    let mut o_live = c.room_live(&id, &o).await.unwrap();
    heard(&mut o_live, room_at_ply(0)).await;
    c.room_act(&id, &x, RoomAct::Play { cell: "b2".into() })
        .await
        .unwrap();
    heard(&mut o_live, room_at_ply(1)).await;
    // Without the balancer's header it would count every player as the balancer: refused.
    let alone = std::process::Command::new(crate::common::bin())
        .args(["--plain-http", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    assert!(!alone.status.success());
    let said = String::from_utf8_lossy(&alone.stderr);
    assert!(said.contains("--forwarded-for-header"), "{said}");
}
on_both!(plain_http_behind_a_balancer_serves_rooms_live_and_never_alone);

/// A classic room whose creator X played a1 `ago` ms before now, O to move: written through
/// the store with the rules' clock set back (the server's clock then decides); its id and the
/// credentials of X and O.
pub async fn room_played_ago(store: &Store, ago: i64) -> (String, String, String) {
    let then = (now_ms() - ago) as u64;
    let id = new_id();
    let (x, o) = (new_token(), new_token());
    let created = Room::create(
        RoomGame::Classic,
        "Ana",
        Some(RulesAvatar::Nino),
        Player::X,
        then,
    )
    .unwrap();
    store
        .create_room(&id, "classic", &created, &token_hash(&x), None, then as i64)
        .await
        .unwrap();
    let row = store.room(&id).await.unwrap().unwrap();
    let mut joined = row.room.clone();
    joined
        .join("Bia", Some(RulesAvatar::Rabisco), then)
        .unwrap();
    assert!(
        store
            .take_room_seat(&row, &joined, &token_hash(&o), None, then as i64, None)
            .await
            .unwrap()
            .is_some()
    );
    let row = store.room(&id).await.unwrap().unwrap();
    let mut played = row.room.clone();
    played.play(Player::X, "a1", then).unwrap();
    let save = RoomSave {
        before: &row,
        after: &played,
        action: Some((Seat::X, "a1")),
        new_game: false,
        now: then as i64,
        told: None,
    };
    assert!(store.save_room(&save).await.unwrap().is_some());
    (id, x, o)
}

async fn classic_r12_absence_claim_after_2_days_and_close_after_7_by_the_servers_clock(db: Db) {
    let mut server = Server::start(db, &[]).await;
    let store = Store::open(&server.database_url()).await.unwrap();
    let (fresh, fx, _) = room_played_ago(&store, DAY).await;
    let (away, ax, ao) = room_played_ago(&store, 2 * DAY + 60_000).await;
    let (idle, ix, io) = room_played_ago(&store, 7 * DAY + 60_000).await;
    drop(store);
    // ON-R03: the server's clock, across a restart.
    server.restart().await;
    let c = server.client();
    let e = c
        .room_act(&fresh, &fx, RoomAct::ClaimAbsence)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotAbsentYet, "a day is not 2");
    let (_, seen) = c
        .raw(Method::GET, &format!("/api/rooms/{fresh}"), None)
        .await
        .unwrap();
    let seen: RoomView = serde_json::from_value(seen).unwrap();
    let left = seen.claim_in_ms.unwrap();
    assert!(
        left > (DAY - 60_000) as u64 && left <= DAY as u64 + 1,
        "{left}"
    );
    let e = c
        .room_act(&away, &ao, RoomAct::ClaimAbsence)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotAbsentYet, "O is the one to move");
    let room = c.room_act(&away, &ax, RoomAct::ClaimAbsence).await.unwrap();
    let ending = room.ending.unwrap();
    assert_eq!((ending.winner, ending.how), (Some(Seat::X), EndHow::Absent));
    // Seven days without a move: closed to play, open to look at.
    for (cred, act) in [(&io, play("b2")), (&ix, RoomAct::ClaimAbsence)] {
        let e = c.room_act(&idle, cred, act).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::RoomClosed);
    }
    let (_, seen) = c
        .raw(Method::GET, &format!("/api/rooms/{idle}"), None)
        .await
        .unwrap();
    let seen: RoomView = serde_json::from_value(seen).unwrap();
    assert!(seen.closed && seen.closes_in_ms == 0, "{seen:?}");
}
on_both!(classic_r12_absence_claim_after_2_days_and_close_after_7_by_the_servers_clock);

async fn on_r05_rooms_are_listed_by_account_and_by_the_devices_credentials(db: Db) {
    let server = Server::start(db, &["--rooms-per-address-per-hour", "4"]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let guest = server.client();
    let hers = ana
        .create_room(RoomBoard::Super, "Ana", None)
        .await
        .unwrap();
    let mine = guest.create_room(RoomBoard::V2, "Gil", None).await.unwrap();
    let joined = guest.join_room(&hers.room.id, "Gil", None).await.unwrap();
    let (status, listed) = ana.raw(Method::GET, "/api/rooms", None).await.unwrap();
    assert_eq!(status, 200);
    let listed: Vec<RoomView> = serde_json::from_value(listed).unwrap();
    assert_eq!(
        listed
            .iter()
            .map(|r| (r.id.as_str(), r.you))
            .collect::<Vec<_>>(),
        [(hers.room.id.as_str(), Some(Seat::X))]
    );
    let body = json!({ "credentials": [mine.credential, joined.credential, "unknown"] });
    let (status, found) = guest
        .raw(Method::POST, "/api/rooms/lookup", Some(&body.to_string()))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let found: Vec<RoomView> = serde_json::from_value(found).unwrap();
    let mut seats: Vec<(String, Option<Seat>)> = found.into_iter().map(|r| (r.id, r.you)).collect();
    seats.sort();
    let mut want = vec![
        (mine.room.id.clone(), Some(Seat::X)),
        (hers.room.id.clone(), Some(Seat::O)),
    ];
    want.sort();
    assert_eq!(seats, want);
    let many = json!({ "credentials": vec!["x"; 101] });
    let (status, _) = guest
        .raw(Method::POST, "/api/rooms/lookup", Some(&many.to_string()))
        .await
        .unwrap();
    assert_eq!(status, 400);
    let (status, _) = guest.raw(Method::GET, "/api/rooms", None).await.unwrap();
    assert_eq!(status, 401, "a guest's list is the lookup");
    // Rooms need no account, so their making is limited per address.
    guest.create_room(RoomBoard::V2, "Gil", None).await.unwrap();
    guest.create_room(RoomBoard::V2, "Gil", None).await.unwrap();
    let e = guest
        .create_room(RoomBoard::V2, "Gil", None)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::RateLimited);
}
on_both!(on_r05_rooms_are_listed_by_account_and_by_the_devices_credentials);

/// The refusal a room's connection answers to its first message, then the close.
async fn refused_hello(server: &Server, room: &str, first: &str) -> (ErrorCode, String) {
    let mut live = server.client().room_live_without_hello(room).await.unwrap();
    live.send_text(first).await.unwrap();
    let answer = live.recv(Duration::from_secs(5)).await.unwrap();
    let RoomServerMsg::Error { code, message } = answer else {
        panic!("{first:?} was accepted: {answer:?}");
    };
    assert!(
        live.closed(Duration::from_secs(5)).await.is_ok(),
        "closed after {first:?}"
    );
    (code, message)
}

async fn on_r02_a_rooms_connection_refuses_garbage_and_oversized_frames(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let (id, x, o) = seated_classic(&c).await;

    for (room, first, want, says) in [
        (
            id.as_str(),
            "{not json",
            ErrorCode::BadRequest,
            "not a message",
        ),
        (
            id.as_str(),
            r#"{"type":"ping"}"#,
            ErrorCode::BadRequest,
            "must be hello",
        ),
        (
            id.as_str(),
            r#"{"type":"act","act":{"type":"resign"}}"#,
            ErrorCode::BadRequest,
            "must be hello",
        ),
        (
            id.as_str(),
            r#"{"type":"hello","credential":"made-up"}"#,
            ErrorCode::Unauthorized,
            "holds no seat",
        ),
        (
            "no-such-room",
            r#"{"type":"hello"}"#,
            ErrorCode::NotFound,
            "no room",
        ),
    ] {
        let (code, message) = refused_hello(&server, room, first).await;
        assert_eq!(code, want, "{first}");
        assert!(message.contains(says), "{first}: {message}");
    }

    // After hello: garbage is answered and the connection stays; an oversized frame closes
    // it with 1009 and the room goes on for everyone else.
    let mut watcher = c.room_live(&id, "").await.unwrap();
    heard(&mut watcher, room_at_ply(0)).await;
    let mut rude = c.room_live(&id, &o).await.unwrap();
    heard(&mut rude, room_at_ply(0)).await;
    rude.send_text("[1, 2").await.unwrap();
    let answer = rude
        .recv_until(Duration::from_secs(5), |m| {
            matches!(m, RoomServerMsg::Error { .. })
        })
        .await
        .unwrap();
    assert!(matches!(
        answer,
        RoomServerMsg::Error {
            code: ErrorCode::BadRequest,
            ..
        }
    ));
    rude.send_text(r#"{"type":"hello","credential":""}"#)
        .await
        .unwrap();
    let answer = rude
        .recv_until(Duration::from_secs(5), |m| {
            matches!(m, RoomServerMsg::Error { .. })
        })
        .await
        .unwrap();
    assert!(
        matches!(answer, RoomServerMsg::Error { ref message, .. } if message.contains("already")),
        "{answer:?}"
    );
    assert_eq!(send_oversized(&mut rude).await.0, 1009);
    c.room_act(&id, &x, play("b2")).await.unwrap();
    heard(&mut watcher, room_at_ply(1)).await;
    // Before hello, too.
    let mut fresh = c.room_live_without_hello(&id).await.unwrap();
    assert_eq!(send_oversized(&mut fresh).await.0, 1009);
}
on_both!(on_r02_a_rooms_connection_refuses_garbage_and_oversized_frames);

async fn on_r05_the_rooms_per_address_limit_holds_under_concurrent_requests(db: Db) {
    // Behind a proxy the address is the header's: each round is a new address.
    let server = Server::start(
        db,
        &[
            "--rooms-per-address-per-hour",
            "5",
            "--forwarded-for-header",
            "x-forwarded-for",
        ],
    )
    .await;
    let body = json!({ "board": "super", "name": "Ana" }).to_string();
    for round in 0..10 {
        let address = format!("203.0.113.{round}");
        limited_at_once(&server, "/api/rooms", &address, vec![body.clone(); 20], 5).await;
    }
    let made = 50;
    let mut database = server.database().await;
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rooms")
        .fetch_one(&mut database)
        .await
        .unwrap();
    assert_eq!(stored, made);
}
on_both!(on_r05_the_rooms_per_address_limit_holds_under_concurrent_requests);

async fn on_r01_seat_names_refuse_invisible_characters(db: Db) {
    let server = Server::start(db, &[]).await;
    let (ana, bia) = (server.client(), server.client());
    let room = ana
        .create_room(RoomBoard::Super, "Ana", None)
        .await
        .unwrap();
    for name in [
        "\u{202E}aiB",
        "\u{200B}",
        "Bi\u{200B}a",
        "\u{FEFF}Bia",
        "\u{2066}Bia\u{2069}",
        "Bia\u{FFFF}",
        "\u{061C}Bia",
        "Bi\u{00AD}a",
        "Bia\u{E0041}\u{E007F}",
    ] {
        for board in [RoomBoard::Classic, RoomBoard::V2] {
            let e = bia.create_room(board, name, None).await.unwrap_err();
            assert_eq!(code(&e), ErrorCode::BadName, "{name:?}: {}", e.message);
        }
        let e = bia.join_room(&room.room.id, name, None).await.unwrap_err();
        assert_eq!(code(&e), ErrorCode::BadName, "{name:?}: {}", e.message);
        assert!(
            e.message.contains("U+"),
            "names the character: {}",
            e.message
        );
    }
    let (_, seen) = bia
        .raw(Method::GET, &format!("/api/rooms/{}", room.room.id), None)
        .await
        .unwrap();
    let seen: RoomView = serde_json::from_value(seen).unwrap();
    assert!(seen.o.is_none(), "nobody took the seat: {seen:?}");
    let joined = bia.join_room(&room.room.id, "Bia", None).await.unwrap();
    assert_eq!(joined.room.o.map(|o| o.name).as_deref(), Some("Bia"));
}
on_both!(on_r01_seat_names_refuse_invisible_characters);

/// A room seen with a seat's credential, as the app reads it on opening.
async fn seen_by(c: &Client, id: &str, credential: &str) -> RoomView {
    let headers = [("x-room-credential", credential)];
    let (status, _, seen) = c
        .raw_with_headers(Method::GET, &format!("/api/rooms/{id}"), &headers, None)
        .await
        .unwrap();
    assert_eq!(status, 200, "{seen}");
    serde_json::from_value(seen).unwrap()
}

async fn v2_r08_a_rooms_rematch_swaps_the_symbols_so_x_always_starts(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    // SUPER-R05 is Super's: the classic board's and 2.0's first games are X's.
    for (board, avatar) in [
        (RoomBoard::Classic, Some(Avatar::Nino)),
        (RoomBoard::V2, None),
    ] {
        for starter in [RoomStarter::O, RoomStarter::CoinToss] {
            let e = c
                .create_room_begun_by(board, "Ana", avatar, starter)
                .await
                .unwrap_err();
            assert_eq!(code(&e), ErrorCode::BadRequest, "{board:?} {starter:?}");
        }
    }
    let made = c.create_room(RoomBoard::V2, "Ana", None).await.unwrap();
    let id = made.room.id.clone();
    let joined = c.join_room(&id, "Bia", None).await.unwrap();
    let (ana, bia) = (made.credential, joined.credential);
    let mut bia_live = c.room_live(&id, &bia).await.unwrap();
    c.room_act(&id, &ana, play("e5")).await.unwrap();
    let room = c.room_act(&id, &ana, RoomAct::Resign).await.unwrap();
    assert_eq!(
        (room.you, room.ending.unwrap().winner, room.series),
        (Some(Seat::X), Some(Seat::O), [0, 1, 0])
    );
    c.room_act(&id, &ana, RoomAct::Rematch).await.unwrap();
    let room = c.room_act(&id, &bia, RoomAct::Rematch).await.unwrap();
    // Bia would begin the second game, so she plays X, and X begins; her win stays hers.
    assert_eq!(
        (
            room.you,
            room.to_move,
            room.x.name.as_str(),
            room.o.unwrap().name
        ),
        (Some(Seat::X), Some(Seat::X), "Bia", "Ana".to_owned())
    );
    assert_eq!(
        (room.creator_plays, room.starter, room.series, room.rematch),
        (Seat::O, Seat::X, [1, 0, 0], [false, false])
    );
    let seen = seen_by(&c, &id, &ana).await;
    assert_eq!((seen.you, seen.to_move), (Some(Seat::O), Some(Seat::X)));
    let RoomServerMsg::Room { room } = heard(
        &mut bia_live,
        |m| matches!(m, RoomServerMsg::Room { room } if room.games == 1 && room.ending.is_none()),
    )
    .await
    else {
        unreachable!()
    };
    assert_eq!(
        room.you,
        Some(Seat::X),
        "her live connection follows the swap"
    );
    let e = c.room_act(&id, &ana, play("e5")).await.unwrap_err();
    assert_eq!(code(&e), ErrorCode::NotYourTurn);
    c.room_act(&id, &bia, play("e5")).await.unwrap();
    c.room_act(&id, &ana, play("d4")).await.unwrap();
    let room = c.room_act(&id, &bia, RoomAct::Resign).await.unwrap();
    assert_eq!(
        (room.you, room.ending.unwrap().winner, room.series),
        (Some(Seat::X), Some(Seat::O), [1, 1, 0])
    );
    // The guest's list reads her seat by this game's symbols too.
    let body = json!({ "credentials": [bia] }).to_string();
    let (_, listed) = c
        .raw(Method::POST, "/api/rooms/lookup", Some(&body))
        .await
        .unwrap();
    assert_eq!(listed[0]["you"], "X", "{listed}");

    // ON-P01: each game replays with its own players and its moves by their symbols.
    let first = c.replay(&format!("{id}/1")).await.unwrap();
    let second = c.replay(&format!("{id}/2")).await.unwrap();
    for (replay, x, o, moves) in [(&first, "Ana", "Bia", 1), (&second, "Bia", "Ana", 2)] {
        assert_eq!(
            (replay.game, replay.x.name.as_str(), replay.o.name.as_str()),
            (ReplayGame::V2 { starter: Seat::X }, x, o)
        );
        assert_eq!(replay.moves.len(), moves);
        assert_eq!(replay.moves[0].by, Seat::X);
        assert_eq!(replay.winner, Some(Seat::O));
    }
}
on_both!(v2_r08_a_rooms_rematch_swaps_the_symbols_so_x_always_starts);

async fn super_r05_a_super_room_begins_by_choice_or_by_the_servers_coin(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let made = c
        .create_room_begun_by(RoomBoard::Super, "Ana", None, RoomStarter::O)
        .await
        .unwrap();
    assert_eq!((made.room.starter, made.room.to_move), (Seat::O, None));
    let id = made.room.id.clone();
    let joined = c.join_room(&id, "Bia", None).await.unwrap();
    assert_eq!(joined.room.to_move, Some(Seat::O), "the guest begins");
    let e = c
        .room_act(&id, &made.credential, play("e5"))
        .await
        .unwrap_err();
    assert_eq!(code(&e), ErrorCode::NotYourTurn);
    c.room_act(&id, &joined.credential, RoomAct::Resign)
        .await
        .unwrap();
    c.room_act(&id, &made.credential, RoomAct::Rematch)
        .await
        .unwrap();
    let room = c
        .room_act(&id, &joined.credential, RoomAct::Rematch)
        .await
        .unwrap();
    assert_eq!(
        (room.starter, room.to_move, room.creator_plays),
        (Seat::X, Some(Seat::X), Seat::X),
        "then it alternates; the symbols stay"
    );
    let replay = c.replay(&format!("{id}/1")).await.unwrap();
    assert_eq!(replay.game, ReplayGame::Super { starter: Seat::O });

    // The coin is the server's: the body says only that there is one, and both faces come up.
    let mut starters = std::collections::HashSet::new();
    for _ in 0..30 {
        let tossed = c
            .create_room_begun_by(RoomBoard::Super, "Ana", None, RoomStarter::CoinToss)
            .await
            .unwrap();
        starters.insert(tossed.room.starter);
    }
    assert_eq!(starters.len(), 2, "30 tosses, one face: {starters:?}");
    // An app from before the choice sends none: X begins.
    let (status, old) = c
        .raw(
            Method::POST,
            "/api/rooms",
            Some(r#"{"board": "super", "name": "Ana"}"#),
        )
        .await
        .unwrap();
    assert_eq!(
        (status, &old["room"]["starter"]),
        (201, &json!("X")),
        "{old}"
    );
}
on_both!(super_r05_a_super_room_begins_by_choice_or_by_the_servers_coin);

async fn super_r05_only_a_super_room_may_begin_with_o_or_the_coin(db: Db) {
    // One room an hour: the refusals below must not spend it.
    let server = Server::start(db, &["--rooms-per-address-per-hour", "1"]).await;
    let c = server.client();
    for (board, avatar) in [
        (RoomBoard::Classic, Some(Avatar::Nino)),
        (RoomBoard::V2, None),
    ] {
        for starter in [RoomStarter::O, RoomStarter::CoinToss] {
            let e = c
                .create_room_begun_by(board, "Ana", avatar, starter)
                .await
                .unwrap_err();
            assert_eq!(code(&e), ErrorCode::BadRequest, "{board:?} {starter:?}");
            assert_eq!(
                e.message, "this board's first game begins with X",
                "{board:?} {starter:?}"
            );
        }
    }
    let made = c
        .create_room_begun_by(
            RoomBoard::Classic,
            "Ana",
            Some(Avatar::Nino),
            RoomStarter::X,
        )
        .await
        .unwrap();
    assert_eq!(made.room.starter, Seat::X);
}
on_both!(super_r05_only_a_super_room_may_begin_with_o_or_the_coin);
