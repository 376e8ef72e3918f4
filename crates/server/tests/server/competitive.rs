//! ON-V01, ON-V02, V2-R05, V2-R06: Jogo da Velha 2.0's competitive mode — the queue pairs
//! signed-in players (no subscription) by rating, the server's 1-minute turns with lost turns
//! and the third in a row lost, the ratings after, the leaderboard; across a restart.

use std::time::Duration;

use futures_util::future::join_all;
use velha_api::{
    ClientMsg, EndHow, Ending, ErrorCode, MatchGame, MatchView, RatingChanges, ReplayGame, Seat,
    ServerMsg,
};
use velha_load::{Client, Live};

use crate::common::{Db, Server, expect};

/// A player with no subscription, connected: (client, socket).
async fn online(server: &Server, name: &str) -> (Client, Live) {
    let c = server.player(name, "pt-BR", None).await;
    let mut live = c.live().await.unwrap();
    expect(&mut live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    (c, live)
}

async fn started(live: &mut Live) -> MatchView {
    match expect(live, "started", |m| matches!(m, ServerMsg::Started { .. })).await {
        ServerMsg::Started { view } => view,
        _ => unreachable!(),
    }
}

/// The next `moved` each socket hears: (by, actions, to_move) of the last.
async fn heard_move<const N: usize>(lives: [&mut Live; N]) -> (Seat, Vec<String>, Option<Seat>) {
    let mut seen = None;
    for live in lives {
        let msg = expect(live, "moved", |m| matches!(m, ServerMsg::Moved { .. })).await;
        if let ServerMsg::Moved {
            by,
            actions,
            to_move,
            ..
        } = msg
        {
            seen = Some((by, actions, to_move));
        }
    }
    seen.unwrap()
}

/// How the match ended and the ratings, as `ended` tells a player.
async fn ended(live: &mut Live) -> (Ending, Option<RatingChanges>) {
    match expect(live, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await {
        ServerMsg::Ended {
            ending, ratings, ..
        } => (ending, ratings),
        _ => unreachable!(),
    }
}

fn play(id: &str, ply: u32, cell: &str) -> ClientMsg {
    ClientMsg::Play {
        match_id: id.into(),
        ply,
        actions: vec![cell.into()],
    }
}

async fn on_v01_players_are_paired_by_the_queue_and_ratings_change_at_the_end(db: Db) {
    let server = Server::start(db, &["--pair-every-ms", "100"]).await;
    // ON-V02: accounts without a subscription.
    let (ana, mut al) = online(&server, "ana").await;
    let (bia, mut bl) = online(&server, "bia").await;
    let status = ana.queue_status().await.unwrap();
    assert_eq!((status.queued, status.rating), (false, 1000));
    let waiting = ana.queue_join().await.unwrap();
    assert_eq!(
        (waiting.queued, waiting.rating, waiting.accepted_difference),
        (true, 1000, 100)
    );
    // Joining twice keeps one place.
    assert!(ana.queue_join().await.unwrap().queued);
    bia.queue_join().await.unwrap();
    let view = started(&mut al).await;
    assert_eq!(started(&mut bl).await.id, view.id);
    assert_eq!(
        (view.game, view.seat, view.to_move),
        (MatchGame::V2, Seat::X, Some(Seat::X))
    );
    assert!(
        view.clock_ms.is_some_and(|ms| ms > 50_000),
        "a minute a turn: {:?}",
        view.clock_ms
    );
    assert_eq!(view.o.as_deref(), Some("bia"), "who waited longer is X");
    assert!(
        !ana.queue_status().await.unwrap().queued,
        "a match takes them off the queue"
    );
    // One match at a time: the queue refuses while it goes on.
    let e = ana.queue_join().await.unwrap_err();
    assert_eq!(e.code, ErrorCode::AlreadyPlaying);

    // The rules of 2.0 hold: X anywhere; O in the board X sent her to.
    al.send(&play(&view.id, 0, "e5")).await.unwrap();
    let (by, _, to_move) = heard_move([&mut al, &mut bl]).await;
    assert_eq!((by, to_move), (Seat::X, Some(Seat::O)));
    bl.send(&play(&view.id, 1, "a1")).await.unwrap();
    let refused = expect(&mut bl, "refused", |m| {
        matches!(m, ServerMsg::Refused { .. })
    })
    .await;
    assert!(
        matches!(
            &refused,
            ServerMsg::Refused {
                refusal: velha_api::Refusal::Illegal {
                    reason: velha_api::Illegal::WrongBoard(5),
                    ..
                },
                ..
            }
        ),
        "{refused:?}"
    );
    // Bia leaves: Ana wins by abandonment; +30 for her, −20 for Bia (V2-R06).
    bl.send(&ClientMsg::Leave {
        match_id: view.id.clone(),
    })
    .await
    .unwrap();
    for live in [&mut al, &mut bl] {
        let (ending, ratings) = ended(live).await;
        assert_eq!(
            (ending.winner, ending.how),
            (Some(Seat::X), EndHow::Abandonment)
        );
        let r = ratings.expect("rated");
        assert_eq!(
            (r.x.before, r.x.after, r.o.before, r.o.after),
            (1000, 1030, 1000, 980)
        );
    }
    let board = bia.leaderboard().await.unwrap();
    let rows: Vec<(u64, &str, u32, u32)> = board
        .rows
        .iter()
        .map(|r| (r.position, r.name.as_str(), r.rating, r.games))
        .collect();
    assert_eq!(rows, [(1, "ana", 1030, 1), (2, "bia", 980, 1)]);
    assert_eq!(board.me.map(|m| (m.position, m.losses)), Some((2, 1)));
    // Out-of-range pages and strangers are refused, and nothing changes.
    for query in ["limit=0", "limit=101", "offset=100001", "limit=abc"] {
        let (status, _) = bia
            .raw(
                reqwest::Method::GET,
                &format!("/api/competitive/leaderboard?{query}"),
                None,
            )
            .await
            .unwrap();
        assert_eq!(status, 400, "{query}");
    }
    let stranger = server.client();
    let e = stranger.queue_join().await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Unauthorized);
    assert_eq!(
        stranger.leaderboard().await.unwrap_err().code,
        ErrorCode::Unauthorized
    );
    assert_eq!(bia.queue_status().await.unwrap().rating, 980);
    // The cube's rankings never count it: their rebuild from the matches agrees with them.
    let (ok, report) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{report}");
    // Its replay, for anyone with the link (ON-P01).
    let e = server.client().replay(&view.id).await.unwrap();
    assert_eq!(e.game, ReplayGame::V2 { starter: Seat::X });
    assert_eq!((e.winner, e.how), (Some(Seat::X), EndHow::Abandonment));
}
on_both!(on_v01_players_are_paired_by_the_queue_and_ratings_change_at_the_end);

async fn v2_r05_lost_turns_pass_the_move_and_the_third_in_a_row_loses_across_a_restart(db: Db) {
    // Turns long enough that a restart slow enough to pass Bia's turn (the test takes that)
    // still leaves Ana hers, and short enough that three lost turns fit in the test's waits.
    let mut server = Server::start(db, &["--pair-every-ms", "100", "--move-time-ms", "2500"]).await;
    let (ana, mut al) = online(&server, "ana").await;
    let (bia, mut bl) = online(&server, "bia").await;
    ana.queue_join().await.unwrap();
    bia.queue_join().await.unwrap();
    let id = started(&mut al).await.id;
    started(&mut bl).await;
    al.send(&play(&id, 0, "e5")).await.unwrap();
    heard_move([&mut al, &mut bl]).await;
    // Bia lets her minute run out: the turn passes, and Ana may play anywhere.
    let (by, actions, to_move) = heard_move([&mut al, &mut bl]).await;
    assert_eq!(
        (by, actions, to_move),
        (Seat::O, vec!["timeout".to_owned()], Some(Seat::X))
    );
    al.send(&play(&id, 2, "a1")).await.unwrap();
    heard_move([&mut al, &mut bl]).await;

    // The server restarts, and the match reads back from its stored position: 2.0's state line
    // holds the turns lost in a row. Here it was stored as a release before that did, in three
    // fields: Bia's lost turn is then counted from the stored moves.
    server.kill9().await;
    let mut db = server.database().await;
    let position: String = sqlx::query_scalar("SELECT position FROM matches WHERE id = $1")
        .bind(&id)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert!(position.ends_with(" x=0 o=1"), "{position}");
    let before_the_counts = position.split(' ').take(3).collect::<Vec<_>>().join(" ");
    sqlx::query("UPDATE matches SET position = $1 WHERE id = $2")
        .bind(before_the_counts)
        .bind(&id)
        .execute(&mut db)
        .await
        .unwrap();
    server.start_again().await;
    let mut al = ana.live().await.unwrap();
    let mut bl = bia.live().await.unwrap();
    // Bia is sent to board 1 and lets it run out again: her second in a row. Her clock ran on
    // while the server was down, so a slow restart passes her turn before a player is back:
    // then that player's welcome already holds it, or the turn is told while the welcome is
    // being read, just before it (the replay below checks it).
    let mut waits = Vec::new();
    for live in [&mut al, &mut bl] {
        let told = std::cell::Cell::new(false);
        let welcome = expect(live, "welcome", |m| {
            told.set(told.get() || matches!(m, ServerMsg::Moved { .. }));
            matches!(m, ServerMsg::Welcome { .. })
        })
        .await;
        let ServerMsg::Welcome { matches, .. } = welcome else {
            unreachable!()
        };
        let ply = matches.iter().find(|m| m.id == id).map(|m| m.ply);
        assert!(matches!(ply, Some(3 | 4)), "after the restart: {ply:?}");
        waits.push(ply == Some(3) && !told.get());
    }
    for (live, wait) in [&mut al, &mut bl].into_iter().zip(waits) {
        if wait {
            let (by, actions, _) = heard_move([live]).await;
            assert_eq!((by, actions), (Seat::O, vec!["timeout".to_owned()]));
        }
    }
    al.send(&play(&id, 4, "i9")).await.unwrap();
    heard_move([&mut al, &mut bl]).await;
    // The third: she loses on time (V2-R05), and the ratings change.
    let (ending, ratings) = ended(&mut bl).await;
    assert_eq!((ending.winner, ending.how), (Some(Seat::X), EndHow::Time));
    assert_eq!(ratings.map(|r| (r.x.after, r.o.after)), Some((1030, 980)));
    let replay = server.client().replay(&id).await.unwrap();
    let moves: Vec<(Seat, &str)> = replay
        .moves
        .iter()
        .map(|m| (m.by, m.actions[0].as_str()))
        .collect();
    assert_eq!(
        moves,
        [
            (Seat::X, "e5"),
            (Seat::O, "timeout"),
            (Seat::X, "a1"),
            (Seat::O, "timeout"),
            (Seat::X, "i9"),
            (Seat::O, "timeout")
        ]
    );
}
on_both!(v2_r05_lost_turns_pass_the_move_and_the_third_in_a_row_loses_across_a_restart);

async fn on_v01_racing_queue_joins_put_each_player_in_one_match(db: Db) {
    let server = Server::start(db, &["--pair-every-ms", "50"]).await;
    let mut players = Vec::new();
    for i in 0..12 {
        players.push(online(&server, &format!("p{i:02}")).await);
    }
    for round in 0..3 {
        // Every player asks five times at once.
        let asks = players
            .iter()
            .flat_map(|(c, _)| (0..5).map(move |_| c.queue_join()));
        for answer in join_all(asks).await {
            if let Err(e) = answer {
                // Paired already by the time a late ask arrived.
                assert_eq!(e.code, ErrorCode::AlreadyPlaying, "round {round}");
            }
        }
        let mut ids = Vec::new();
        for (_, live) in &mut players {
            ids.push(started(live).await.id);
        }
        ids.sort();
        let pairs = ids.len();
        ids.dedup();
        assert_eq!(
            (pairs, ids.len()),
            (12, 6),
            "round {round}: six matches of two"
        );
        // Everyone leaves: X of each match leaves and loses.
        for (_, live) in &mut players {
            for id in &ids {
                let _ = live
                    .send(&ClientMsg::Leave {
                        match_id: id.clone(),
                    })
                    .await;
            }
        }
        for (_, live) in &mut players {
            expect(live, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let board = players[0].0.leaderboard().await.unwrap();
    let games: u32 = board.rows.iter().map(|r| r.games).sum();
    assert_eq!(games, 12 * 3, "every player rated once a round");
}
on_both!(on_v01_racing_queue_joins_put_each_player_in_one_match);

async fn on_v02_a_player_gone_longer_than_the_grace_loses_a_rated_match(db: Db) {
    let server = Server::start(
        db,
        &["--pair-every-ms", "100", "--reconnect-grace-ms", "1000"],
    )
    .await;
    let (ana, mut al) = online(&server, "ana").await;
    let (bia, bl) = online(&server, "bia").await;
    ana.queue_join().await.unwrap();
    bia.queue_join().await.unwrap();
    let id = started(&mut al).await.id;
    // Bia's connection drops: Ana is told, and after the grace Bia loses by abandonment.
    bl.close().await;
    let away = expect(&mut al, "away", |m| matches!(m, ServerMsg::Away { .. })).await;
    assert!(
        matches!(away, ServerMsg::Away { seat: Seat::O, .. }),
        "{away:?}"
    );
    let (ending, ratings) = ended(&mut al).await;
    assert_eq!(
        (ending.winner, ending.how),
        (Some(Seat::X), EndHow::Abandonment)
    );
    assert_eq!(ratings.map(|r| (r.x.after, r.o.after)), Some((1030, 980)));
    assert_eq!(ana.get_match(&id).await.unwrap().ratings, ratings);
}
on_both!(on_v02_a_player_gone_longer_than_the_grace_loses_a_rated_match);

async fn v2_r06_a_draw_changes_no_rating_and_no_rating_falls_below_zero(db: Db) {
    let server = Server::start(db, &["--pair-every-ms", "60000"]).await;
    for name in ["ana", "bia"] {
        server.player(name, "pt-BR", None).await;
    }
    let store = velha_server::store::Store::open(&server.database_url())
        .await
        .unwrap();
    let mut conn = server.database().await;
    let id_of = |name: &'static str| {
        sqlx::query_scalar::<_, String>("SELECT id FROM accounts WHERE name = $1").bind(name)
    };
    let ana = id_of("ana").fetch_one(&mut conn).await.unwrap();
    let bia = id_of("bia").fetch_one(&mut conn).await.unwrap();
    let rated = |n: u32, winner: Option<Seat>, how: EndHow| {
        let (store, ana, bia) = (&store, ana.clone(), bia.clone());
        async move {
            let now = velha_server::token::now_ms();
            let x = store.queue_join(&ana, now).await.unwrap();
            let o = store.queue_join(&bia, now).await.unwrap();
            let id = format!("rated-{n}");
            let row = store
                .start_rated_match(&x, &o, &id, "start", now, now + 60_000)
                .await
                .unwrap()
                .expect("both waiting");
            assert!(
                store
                    .end_match(&row.id, winner, how, now + 1, &[])
                    .await
                    .unwrap()
            );
            store
                .get_match(&id)
                .await
                .unwrap()
                .unwrap()
                .ratings
                .unwrap()
        }
    };
    // A draw: no change, counted as a game and a draw for both.
    let r = rated(0, None, EndHow::Draw).await;
    assert_eq!(
        (r.x.before, r.x.after, r.o.before, r.o.after),
        (1000, 1000, 1000, 1000)
    );
    // Bia at 10 loses: 0, never below.
    sqlx::query("UPDATE v2_ratings SET rating = 10 WHERE account_id = $1")
        .bind(&bia)
        .execute(&mut conn)
        .await
        .unwrap();
    let r = rated(1, Some(Seat::X), EndHow::Time).await;
    assert_eq!((r.o.before, r.o.after, r.x.after), (10, 0, 1030));
    let r = rated(2, Some(Seat::X), EndHow::Time).await;
    assert_eq!((r.o.before, r.o.after), (0, 0));
    let (rows, me) = store.leaderboard(0, 10, &bia).await.unwrap();
    assert_eq!(rows.len(), 2);
    let me = me.unwrap();
    assert_eq!(
        (me.position, me.rating, me.games, me.draws, me.losses),
        (2, 0, 3, 1, 2)
    );
}
on_both!(v2_r06_a_draw_changes_no_rating_and_no_rating_falls_below_zero);
