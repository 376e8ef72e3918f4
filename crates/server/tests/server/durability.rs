//! A move is committed before it is acknowledged: after kill -9 and a restart every match goes
//! on from its last acknowledged move, and clocks that ran out meanwhile are settled. A
//! restarted PostgreSQL costs a server little and is reconnected to.

use std::time::Duration;

use velha_api::{EndHow, Ending, MatchState, Seat, ServerMsg};

use crate::common::{Db, Server, expect};
use crate::live::{meet, moved};

async fn durability_kill9_mid_match_and_the_match_goes_on(db: Db) {
    let mut server = Server::start(db, &["--move-time-ms", "30000"]).await;
    let (x, mut xl, o, mut ol, id) = meet(&server, 1).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    moved(&mut ol, &mut xl, &id, 1, &["c3"]).await;
    moved(&mut xl, &mut ol, &id, 2, &["a2"]).await;

    server.restart().await;
    assert!(
        xl.recv(Duration::from_secs(5)).await.is_err(),
        "the old socket died"
    );
    let mut xl = x.live().await.unwrap();
    let mut ol = o.live().await.unwrap();
    for live in [&mut xl, &mut ol] {
        let welcome = expect(live, "welcome", |m| matches!(m, ServerMsg::Welcome { .. })).await;
        let ServerMsg::Welcome { matches, .. } = welcome else {
            unreachable!()
        };
        assert_eq!(matches.len(), 1);
        let m = &matches[0];
        assert_eq!(
            (m.id.as_str(), m.state, m.ply),
            (id.as_str(), MatchState::Live, 3)
        );
        assert_eq!(m.to_move, Some(Seat::O));
        assert!(
            m.clock_ms.is_some_and(|ms| ms > 0 && ms < 30_000),
            "{:?}",
            m.clock_ms
        );
    }
    moved(&mut ol, &mut xl, &id, 3, &["c2"]).await;
    moved(&mut xl, &mut ol, &id, 4, &["a3"]).await;
    let ended = expect(&mut ol, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
    let want = Ending {
        winner: Some(Seat::X),
        how: EndHow::Line,
    };
    assert!(matches!(ended, ServerMsg::Ended { ending, .. } if ending == want));
}
on_both!(durability_kill9_mid_match_and_the_match_goes_on);

async fn durability_clocks_that_ran_out_while_down_are_settled(db: Db) {
    let mut server = Server::start(db, &["--move-time-ms", "1500"]).await;
    let (x, mut xl, _o, mut ol, id) = meet(&server, 2).await;
    moved(&mut xl, &mut ol, &id, 0, &["b2"]).await;
    server.kill9().await;
    tokio::time::sleep(Duration::from_millis(2000)).await;
    server.restart().await;
    let want = Some(Ending {
        winner: Some(Seat::X),
        how: EndHow::Time,
    });
    for _ in 0..50 {
        if x.get_match(&id).await.unwrap().ending == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("O's clock ran out while the server was down, and was not settled");
}
on_both!(durability_clocks_that_ran_out_while_down_are_settled);

async fn durability_sigterm_stops_cleanly_and_loses_nothing(db: Db) {
    let mut server = Server::start(db, &[]).await;
    let (x, mut xl, _o, mut ol, id) = meet(&server, 1).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    let status = server.terminate().await;
    assert!(status.success(), "{status:?}");
    // Both players were told to connect again (a deploy), not dropped.
    for live in [&mut xl, &mut ol] {
        let (code, reason) = live
            .closed(Duration::from_secs(5))
            .await
            .unwrap()
            .expect("a close frame");
        assert_eq!(code, 1012, "{reason}");
        assert!(reason.contains("restarting"), "{reason}");
    }
    server.restart().await;
    let view = x.get_match(&id).await.unwrap();
    assert_eq!((view.state, view.ply), (MatchState::Live, 1));
}
on_both!(durability_sigterm_stops_cleanly_and_loses_nothing);

/// Every other connection to the database ended, as a restart of PostgreSQL ends them. How
/// many were (one still ending from the round before is not counted).
async fn database_restarted(admin: &mut sqlx::AnyConnection) -> usize {
    let ended: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid() \
         AND backend_type = 'client backend'",
    )
    .fetch_all(&mut *admin)
    .await
    .unwrap();
    ended.iter().filter(|e| **e).count()
}

/// Several requests at once, all answered, so that the pool holds several connections; then a
/// pause for sqlx to take them back (it checks each one as it does).
async fn busy(store: &velha_server::store::Store, round: usize) {
    let answers = futures_util::future::join_all((0..8).map(|_| store.schema_version())).await;
    assert!(
        answers.iter().all(Result::is_ok),
        "round {round}: {answers:?}"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// 32 requests one after another, every one answered.
async fn answered_in_turn(store: &velha_server::store::Store, round: usize, when: &str) {
    for i in 0..32 {
        let read = store.schema_version().await;
        assert!(read.is_ok(), "round {round}, {when}, request {i}: {read:?}");
    }
}

/// A connection is checked before use only once it sat unused for a second (a check each time
/// was a round trip on every query): a restarted database costs a server that was idle that
/// long no request an error, and a busy one at most one request a connection it held, which
/// shows that a recently used connection is not checked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durability_a_restarted_postgresql_costs_at_most_one_request_a_connection() {
    let Some(Db::Postgres(url)) = Db::postgres().await else {
        return;
    };
    let store = velha_server::store::Store::open(&url).await.unwrap();
    let mut admin = <sqlx::AnyConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    for round in 0..3 {
        busy(&store, round).await;
        database_restarted(&mut admin).await;
        tokio::time::sleep(Duration::from_millis(1300)).await;
        answered_in_turn(&store, round, "idle").await;

        busy(&store, round).await;
        let held = database_restarted(&mut admin).await;
        let answers: Vec<bool> = futures_util::future::join_all(
            (0..held + 32).map(|_| async { store.schema_version().await.is_ok() }),
        )
        .await;
        let failed = answers.iter().filter(|ok| !**ok).count();
        assert!(
            (1..=held).contains(&failed),
            "round {round}: {failed} requests failed with {held} connections ended"
        );
        answered_in_turn(&store, round, "after").await;
    }
}
