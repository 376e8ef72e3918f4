//! ON-M03 … ON-M05: live matches over the WebSocket.

use std::time::Duration;

use velha_api::{
    ClientMsg, EndHow, Ending, ErrorCode, Illegal, MatchState, Refusal, Scope, Seat, ServerMsg,
};
use velha_load::{Client, Live};
use velha_server::store::{Backend, MoveCommit, Store};
use velha_server::token::{new_id, now_ms};

use crate::common::{Db, Server, expect};

/// Two subscribers met in the lobby, both on the WebSocket: (X, X's socket, O, O's socket,
/// match id).
pub async fn meet(server: &Server, level: u8) -> (Client, Live, Client, Live, String) {
    let x = server.player("xavier", "pt-BR", Some("2099-12-31")).await;
    let o = server.player("olivia", "pt-BR", Some("2099-12-31")).await;
    let mut x_live = x.live().await.unwrap();
    expect(&mut x_live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    let open = x.create(Scope::Mundial, level).await.unwrap();
    let mut o_live = o.live().await.unwrap();
    expect(&mut o_live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    o.join(&open.id).await.unwrap();
    for live in [&mut x_live, &mut o_live] {
        expect(live, "started", |m| matches!(m, ServerMsg::Started { .. })).await;
    }
    (x, x_live, o, o_live, open.id)
}

fn play(id: &str, ply: u32, actions: &[&str]) -> ClientMsg {
    ClientMsg::Play {
        match_id: id.to_owned(),
        ply,
        actions: actions.iter().map(|a| a.to_string()).collect(),
    }
}

/// Sends a move and checks both players hear it with the given ply.
pub async fn moved(mover: &mut Live, other: &mut Live, id: &str, ply: u32, actions: &[&str]) {
    mover.send(&play(id, ply, actions)).await.unwrap();
    for live in [mover, other] {
        let msg = expect(live, "moved", |m| {
            matches!(m, ServerMsg::Moved { .. } | ServerMsg::Refused { .. })
        })
        .await;
        let ServerMsg::Moved {
            ply: got,
            actions: a,
            ..
        } = msg
        else {
            panic!("{actions:?} at ply {ply} refused: {msg:?}");
        };
        assert_eq!(got, ply + 1);
        assert_eq!(a, actions);
    }
}

async fn refused(live: &mut Live, msg: ClientMsg) -> Refusal {
    live.send(&msg).await.unwrap();
    let answer = expect(live, "refused", |m| {
        matches!(m, ServerMsg::Refused { .. } | ServerMsg::Moved { .. })
    })
    .await;
    match answer {
        ServerMsg::Refused { refusal, .. } => refusal,
        other => panic!("{msg:?} was accepted: {other:?}"),
    }
}

async fn ended(live: &mut Live) -> Ending {
    match expect(live, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await {
        ServerMsg::Ended { ending, .. } => ending,
        _ => unreachable!(),
    }
}

async fn on_m05_moves_are_checked_and_only_players_hear_them(db: Db) {
    let server = Server::start(db, &[]).await;
    let (x, mut xl, o, mut ol, id) = meet(&server, 1).await;
    let carol = server.player("carol", "pt-BR", Some("2099-12-31")).await;
    let mut cl = carol.live().await.unwrap();
    expect(&mut cl, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;

    assert_eq!(
        refused(&mut ol, play(&id, 0, &["a1"])).await,
        Refusal::NotYourTurn
    );
    assert_eq!(
        refused(&mut cl, play(&id, 0, &["a1"])).await,
        Refusal::NotAPlayer
    );
    assert_eq!(
        refused(
            &mut cl,
            ClientMsg::Leave {
                match_id: id.clone()
            }
        )
        .await,
        Refusal::NotAPlayer
    );
    assert_eq!(
        refused(&mut xl, play(&id, 0, &["R-"])).await,
        Refusal::Illegal {
            index: 0,
            reason: Illegal::WrongDirectionLevel1
        }
    );
    assert_eq!(
        refused(&mut xl, play(&id, 0, &["z9"])).await,
        Refusal::BadAction { index: 0 }
    );
    assert_eq!(
        refused(&mut xl, play(&id, 0, &[])).await,
        Refusal::BadLength
    );
    assert_eq!(
        refused(&mut xl, play(&id, 0, &["a1", "b1"])).await,
        Refusal::BadLength,
        "b1 would be O's"
    );
    assert_eq!(
        refused(&mut xl, play(&id, 5, &["a1"])).await,
        Refusal::Stale { ply: 0 }
    );
    assert_eq!(
        refused(&mut xl, play("nope", 0, &["a1"])).await,
        Refusal::NoSuchMatch
    );
    assert_eq!(
        x.get_match(&id).await.unwrap().ply,
        0,
        "refusals change nothing"
    );

    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    assert_eq!(
        refused(&mut ol, play(&id, 1, &["a1"])).await,
        Refusal::Illegal {
            index: 0,
            reason: Illegal::OpponentSymbol
        }
    );
    // A free turn and the main action in one move; then the rest of a line for X.
    moved(&mut ol, &mut xl, &id, 1, &["S+", "c3"]).await;
    moved(&mut xl, &mut ol, &id, 2, &["a2"]).await;
    moved(&mut ol, &mut xl, &id, 3, &["c2"]).await;
    moved(&mut xl, &mut ol, &id, 4, &["a3"]).await;
    let want = Ending {
        winner: Some(Seat::X),
        how: EndHow::Line,
    };
    assert_eq!(ended(&mut xl).await, want);
    assert_eq!(ended(&mut ol).await, want);
    let view = o.get_match(&id).await.unwrap();
    assert_eq!(
        (view.state, view.ending, view.ply),
        (MatchState::Over, Some(want), 5)
    );
    assert_eq!(
        refused(&mut xl, play(&id, 5, &["b1"])).await,
        Refusal::NotLive
    );

    // Carol heard nothing of it.
    cl.send(&ClientMsg::Ping).await.unwrap();
    let next = cl.recv(Duration::from_secs(5)).await.unwrap();
    assert_eq!(next, ServerMsg::Pong, "the outsider got {next:?}");

    // Garbage on the socket gets an error and the connection goes on.
    xl.send_text("{\"type\":\"fly\"}").await.unwrap();
    let err = xl.recv(Duration::from_secs(5)).await.unwrap();
    assert!(
        matches!(
            err,
            ServerMsg::Error {
                code: ErrorCode::BadRequest,
                ..
            }
        ),
        "{err:?}"
    );
    xl.send(&ClientMsg::Ping).await.unwrap();
    assert_eq!(
        xl.recv(Duration::from_secs(5)).await.unwrap(),
        ServerMsg::Pong
    );
}
on_both!(on_m05_moves_are_checked_and_only_players_hear_them);

/// A hostile client: a move of hundreds of actions, a bad token deep in a long list, and the
/// same move fired twenty times without waiting for an answer. The match changes once, every
/// extra copy is refused as stale, and the rest changes nothing.
async fn on_m05_floods_and_long_moves_change_the_match_at_most_once(db: Db) {
    let server = Server::start(db, &[]).await;
    let (x, mut xl, _o, mut ol, id) = meet(&server, 1).await;
    let long: Vec<&str> = std::iter::repeat_n("F+", 300).collect();
    assert_eq!(
        refused(&mut xl, play(&id, 0, &long)).await,
        Refusal::BadLength
    );
    let mut bad = long.clone();
    bad[250] = "zz";
    assert_eq!(
        refused(&mut xl, play(&id, 0, &bad)).await,
        Refusal::BadAction { index: 250 }
    );
    assert_eq!(
        x.get_match(&id).await.unwrap().ply,
        0,
        "refusals change nothing"
    );

    for _ in 0..20 {
        xl.send(&play(&id, 0, &["a1"])).await.unwrap();
    }
    let (mut moves, mut stale) = (0, 0);
    for _ in 0..20 {
        let answer = expect(&mut xl, "an answer", |m| {
            matches!(m, ServerMsg::Refused { .. } | ServerMsg::Moved { .. })
        })
        .await;
        match answer {
            ServerMsg::Moved { .. } => moves += 1,
            ServerMsg::Refused {
                refusal: Refusal::Stale { ply: 1 },
                ..
            } => stale += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((moves, stale), (1, 19));
    let view = x.get_match(&id).await.unwrap();
    assert_eq!((view.ply, view.to_move), (1, Some(Seat::O)));
    expect(&mut ol, "the one move", |m| {
        matches!(m, ServerMsg::Moved { .. })
    })
    .await;
}
on_both!(on_m05_floods_and_long_moves_change_the_match_at_most_once);

async fn on_m05_a_connection_must_say_hello_with_a_valid_token(db: Db) {
    let server = Server::start(db, &[]).await;
    let mut c = server.client();
    c.token = Some("forged".into());
    let mut live = c.live().await.unwrap();
    let msg = live.recv(Duration::from_secs(5)).await.unwrap();
    assert!(
        matches!(
            msg,
            ServerMsg::Error {
                code: ErrorCode::Unauthorized,
                ..
            }
        ),
        "{msg:?}"
    );
    assert!(
        live.recv(Duration::from_secs(5)).await.is_err(),
        "closed after"
    );
}
on_both!(on_m05_a_connection_must_say_hello_with_a_valid_token);

async fn on_m03_the_side_to_move_loses_when_its_minute_runs_out(db: Db) {
    let server = Server::start(db, &["--move-time-ms", "600"]).await;
    let (_x, mut xl, o, mut ol, id) = meet(&server, 2).await;
    // X moves in time; the clock passes to O, who lets it run out.
    moved(&mut xl, &mut ol, &id, 0, &["b2"]).await;
    let want = Ending {
        winner: Some(Seat::X),
        how: EndHow::Time,
    };
    assert_eq!(ended(&mut ol).await, want);
    assert_eq!(ended(&mut xl).await, want);
    assert_eq!(o.get_match(&id).await.unwrap().ending, Some(want));
    assert_eq!(
        refused(&mut ol, play(&id, 1, &["a1"])).await,
        Refusal::NotLive
    );
}
on_both!(on_m03_the_side_to_move_loses_when_its_minute_runs_out);

async fn on_m03_a_free_turn_does_not_restart_the_clock(db: Db) {
    let server = Server::start(db, &["--move-time-ms", "900"]).await;
    let (x, mut xl, _o, mut ol, id) = meet(&server, 1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The free turn is committed but the turn goes on: the clock keeps X's deadline.
    moved(&mut xl, &mut ol, &id, 0, &["S+"]).await;
    let clock = x.get_match(&id).await.unwrap().clock_ms.unwrap();
    assert!(clock < 450, "X's clock was restarted: {clock} ms left");
    assert_eq!(
        ended(&mut xl).await,
        Ending {
            winner: Some(Seat::O),
            how: EndHow::Time
        }
    );
}
on_both!(on_m03_a_free_turn_does_not_restart_the_clock);

async fn on_m04_a_dropped_player_may_come_back_to_the_same_match(db: Db) {
    let server = Server::start(db, &["--reconnect-grace-ms", "1500"]).await;
    let (_x, mut xl, o, ol, id) = meet(&server, 1).await;
    ol.close().await;
    let away = expect(&mut xl, "away", |m| matches!(m, ServerMsg::Away { .. })).await;
    assert!(
        matches!(away, ServerMsg::Away { seat: Seat::O, .. }),
        "{away:?}"
    );
    moved_alone(&mut xl, &id, 0, &["a1"]).await;
    let mut ol = o.live().await.unwrap();
    let welcome = expect(&mut ol, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    let ServerMsg::Welcome { matches, .. } = welcome else {
        unreachable!()
    };
    assert_eq!(matches.len(), 1);
    let view = &matches[0];
    assert_eq!(
        (view.id.as_str(), view.ply, view.to_move),
        (id.as_str(), 1, Some(Seat::O))
    );
    assert!(view.clock_ms.is_some_and(|ms| ms < 60_000));
    let back = expect(&mut xl, "back", |m| matches!(m, ServerMsg::Back { .. })).await;
    assert_eq!(
        back,
        ServerMsg::Back {
            match_id: id.clone(),
            seat: Seat::O
        }
    );
    tokio::time::sleep(Duration::from_millis(1800)).await;
    moved(&mut ol, &mut xl, &id, 1, &["c3"]).await;

    // Gone for longer than the grace: a loss by abandonment.
    ol.close().await;
    let want = Ending {
        winner: Some(Seat::X),
        how: EndHow::Abandonment,
    };
    assert_eq!(ended(&mut xl).await, want);
    assert_eq!(o.get_match(&id).await.unwrap().ending, Some(want));
}
on_both!(on_m04_a_dropped_player_may_come_back_to_the_same_match);

/// A player's connection that says nothing, not even the answer to the server's pings (a phone
/// that lost its signal), is closed once the silence is over: their seat is away, and the grace
/// time runs. One that reads, and so answers the pings, stays.
async fn on_m04_a_silent_connection_is_away_once_the_silence_is_over(db: Db) {
    let server = Server::start(db, &["--silence-ms", "1500"]).await;
    let (_x, mut xl, _o, ol, id) = meet(&server, 1).await;
    // O's connection stays open on its side and reads nothing; X's reads throughout.
    let away = expect(&mut xl, "away", |m| matches!(m, ServerMsg::Away { .. })).await;
    assert!(
        matches!(away, ServerMsg::Away { seat: Seat::O, .. }),
        "{away:?}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    moved_alone(&mut xl, &id, 0, &["a1"]).await;
    drop(ol);
}
on_both!(on_m04_a_silent_connection_is_away_once_the_silence_is_over);

async fn moved_alone(live: &mut Live, id: &str, ply: u32, actions: &[&str]) {
    live.send(&play(id, ply, actions)).await.unwrap();
    let msg = expect(live, "moved", |m| {
        matches!(m, ServerMsg::Moved { .. } | ServerMsg::Refused { .. })
    })
    .await;
    assert!(matches!(msg, ServerMsg::Moved { .. }), "{msg:?}");
}

async fn on_m04_leaving_is_abandonment(db: Db) {
    let server = Server::start(db, &[]).await;
    let (x, mut xl, _o, mut ol, id) = meet(&server, 2).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    xl.send(&ClientMsg::Leave {
        match_id: id.clone(),
    })
    .await
    .unwrap();
    let want = Ending {
        winner: Some(Seat::O),
        how: EndHow::Abandonment,
    };
    assert_eq!(ended(&mut ol).await, want);
    assert_eq!(ended(&mut xl).await, want);
    assert_eq!(x.get_match(&id).await.unwrap().ending, Some(want));
    // Free for the next match.
    assert!(x.create(Scope::Mundial, 1).await.is_ok());
}
on_both!(on_m04_leaving_is_abandonment);

async fn on_m02_the_creator_is_x_and_moves_first(db: Db) {
    let server = Server::start(db, &[]).await;
    let (x, mut xl, o, mut ol, id) = meet(&server, 2).await;
    let (xv, ov) = (
        x.get_match(&id).await.unwrap(),
        o.get_match(&id).await.unwrap(),
    );
    assert_eq!((xv.seat, ov.seat), (Seat::X, Seat::O));
    assert_eq!((xv.x.as_str(), xv.o.as_deref()), ("xavier", Some("olivia")));
    assert_eq!(ov.to_move, Some(Seat::X));
    assert!(ov.position.ends_with(" X L2 - x=0 o=0"), "{}", ov.position);
    assert_eq!(
        refused(&mut ol, play(&id, 0, &["b2"])).await,
        Refusal::NotYourTurn
    );
    moved(&mut xl, &mut ol, &id, 0, &["b2"]).await;
    assert_eq!(o.get_match(&id).await.unwrap().to_move, Some(Seat::O));
}
on_both!(on_m02_the_creator_is_x_and_moves_first);

/// A move is committed once, at its ply, together with the event that tells the other
/// processes of it (PostgreSQL): a kept move has its row and its event; the same move over
/// the ply it read, once another came first, is declined and leaves neither behind.
async fn on_m05_a_move_and_the_event_telling_of_it_commit_together(db: Db) {
    let server = Server::start(db, &[]).await;
    let (_x, _xl, _o, _ol, id) = meet(&server, 1).await;
    let store = Store::open(&server.database_url()).await.unwrap();
    let row = store.get_match(&id).await.unwrap().unwrap();
    let commit = |events| MoveCommit {
        match_id: &id,
        ply_before: row.ply,
        seat: Seat::X,
        actions: "b2",
        position: &row.position,
        now: now_ms(),
        deadline: row.deadline,
        ending: None,
        events,
    };
    let kept = [(new_id(), r#"{"kept":true}"#.to_owned())];
    assert!(store.commit_move(&commit(&kept)).await.unwrap());
    let stale = [(new_id(), r#"{"kept":false}"#.to_owned())];
    assert!(!store.commit_move(&commit(&stale)).await.unwrap());
    assert_eq!(
        store.moves_of(&id).await.unwrap(),
        [(1, Seat::X, "b2".to_owned())]
    );
    assert_eq!(store.get_match(&id).await.unwrap().unwrap().ply, 1);
    if store.backend() == Backend::Postgres {
        assert_eq!(
            store.event(&kept[0].0).await.unwrap(),
            Some(kept[0].1.clone())
        );
    }
    assert_eq!(store.event(&stale[0].0).await.unwrap(), None);
}
on_both!(on_m05_a_move_and_the_event_telling_of_it_commit_together);
