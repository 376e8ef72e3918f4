//! Expand and contract (docs/deploy.md, "Rolling deploys"): a newer version's migration that
//! only adds runs while this version serves, and this version goes on serving and may restart
//! on it; one that raises `schema_floor` past this version stops it from starting, with a clear
//! error, rather than letting it fail on its queries.

use sqlx::{Executor, Row};
use velha_api::{Avatar, EndHow, RoomAct, RoomBoard, ServerMsg};

use crate::common::{Db, Server, expect};
use crate::live::{meet, moved};

/// Every table of the schema but the migrations' own.
async fn tables(server: &Server, db: &Db) -> Vec<String> {
    let sql = match db {
        Db::Sqlite => {
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations'"
        }
        Db::Postgres(_) => {
            "SELECT CAST(table_name AS TEXT) AS name FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' \
             AND table_name <> '_sqlx_migrations'"
        }
    };
    let mut conn = server.database().await;
    sqlx::query(sql)
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get("name"))
        .collect()
}

/// What a newer version's expand migration does: a column added to every table (so no query
/// of this version may depend on a table's exact columns), recorded as applied.
async fn expand(server: &Server, db: &Db, version: i64) {
    let tables = tables(server, db).await;
    assert!(tables.len() > 20, "{tables:?}");
    let mut conn = server.database().await;
    for table in &tables {
        conn.execute(
            format!("ALTER TABLE {table} ADD COLUMN added_later INTEGER NOT NULL DEFAULT 7")
                .as_str(),
        )
        .await
        .unwrap_or_else(|e| panic!("expand {table}: {e}"));
    }
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES ($1, 'added later', TRUE, $2, 1)",
    )
    .bind(version)
    .bind(vec![0u8; 48])
    .execute(&mut conn)
    .await
    .unwrap();
}

async fn upgrades_an_expand_migration_runs_while_this_version_serves(db: Db) {
    let mut server = Server::start(db.clone(), &["--move-time-ms", "30000"]).await;
    let (x, mut xl, o, mut ol, id) = meet(&server, 1).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    let latest: i64 = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
        .fetch_one(&mut server.database().await)
        .await
        .unwrap();

    // The newer version's expand step, while this one serves the match.
    expand(&server, &db, latest + 1).await;
    moved(&mut ol, &mut xl, &id, 1, &["c3"]).await;
    moved(&mut xl, &mut ol, &id, 2, &["a2"]).await;
    moved(&mut ol, &mut xl, &id, 3, &["c2"]).await;
    moved(&mut xl, &mut ol, &id, 4, &["a3"]).await;
    let ended = expect(&mut ol, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
    assert!(
        matches!(&ended, ServerMsg::Ended { ending, .. } if ending.how == EndHow::Line),
        "{ended:?}"
    );
    // Every kind of write still works: a new account, a room and its move, the rankings.
    let bia = server.player("bia", "pt-BR", None).await;
    let room = bia
        .create_room(RoomBoard::Classic, "Bia", Some(Avatar::Nino))
        .await
        .unwrap();
    let caio = server.client();
    caio.join_room(&room.room.id, "Caio", Some(Avatar::Rabisco))
        .await
        .unwrap();
    bia.room_act(
        &room.room.id,
        &room.credential,
        RoomAct::Play { cell: "b2".into() },
    )
    .await
    .unwrap();
    assert_eq!(x.replay(&id).await.unwrap().moves.len(), 5);
    assert!(o.leaderboard().await.is_ok());

    // This version restarting mid-deploy (a crash, or a rollback) starts on the newer schema.
    server.restart().await;
    let (status, _) = x
        .raw(reqwest::Method::GET, "/api/ready", None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(x.get_match(&id).await.unwrap().ply, 5);
    let (ok, said) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{said}");

    // A contract step that this version cannot serve on: it refuses to start, and says why.
    let mut conn = server.database().await;
    sqlx::query("UPDATE schema_floor SET oldest_reader = $1")
        .bind(latest + 1)
        .execute(&mut conn)
        .await
        .unwrap();
    drop(conn);
    server.kill9().await;
    let (ok, said) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(!ok, "{said}");
    assert!(
        said.contains("newer version") && said.contains(&format!("migration {}", latest + 1)),
        "{said}"
    );
}
on_both!(upgrades_an_expand_migration_runs_while_this_version_serves);

/// Processes started together on a new database (a compose stack's first start) migrate it
/// once, each waiting its turn, even through the indexes PostgreSQL builds `CONCURRENTLY`:
/// with sqlx's own lock the waiting process's `pg_advisory_lock` and the index's build waited
/// for each other until PostgreSQL ended one ("deadlock detected"), the index left invalid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgrades_processes_starting_together_migrate_a_new_postgresql_database_once() {
    for round in 0..5 {
        let Some(Db::Postgres(url)) = Db::postgres().await else {
            return;
        };
        let opened =
            futures_util::future::join_all((0..4).map(|_| velha_server::store::Store::open(&url)))
                .await;
        for store in &opened {
            assert!(store.is_ok(), "round {round}: {:?}", store.as_ref().err());
        }
        let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&url)
            .await
            .unwrap();
        let invalid: Vec<String> = sqlx::query_scalar(
            "SELECT CAST(indexrelid::regclass AS TEXT) FROM pg_index WHERE NOT indisvalid",
        )
        .fetch_all(&mut conn)
        .await
        .unwrap();
        assert!(invalid.is_empty(), "round {round}: {invalid:?}");
        let (newest, failed): (i64, i64) = sqlx::query_as(
            "SELECT MAX(version), SUM(CASE WHEN success THEN 0 ELSE 1 END) FROM _sqlx_migrations",
        )
        .fetch_one(&mut conn)
        .await
        .unwrap();
        assert_eq!(
            (newest, failed),
            (velha_server::store::latest_migration(), 0),
            "round {round}"
        );
        for store in opened.into_iter().flatten() {
            store.close().await;
        }
    }
}
