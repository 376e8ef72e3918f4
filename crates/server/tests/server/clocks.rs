//! The sweep for clocks that ran out (ON-M03's move clock, ON-M04's reconnection deadline): it
//! finds exactly the live matches overdue, most overdue first, and reads them through indexes
//! of live matches, never through the table's history.

use sqlx::{Connection, Executor, Row};
use velha_server::store::{Backend, Store, overdue_matches_sql};

use crate::common::{Db, Random};

/// Now and then a clock within `range`, else none.
fn maybe(random: &mut Random, range: i64) -> Option<i64> {
    (random.below(3) == 0).then(|| random.below(range as u64) as i64)
}

/// A stored match as the sweep sees it.
struct Stored {
    id: String,
    live: bool,
    deadline: i64,
    away: [Option<i64>; 2],
}

impl Stored {
    fn overdue(&self, now: i64) -> bool {
        self.live && (self.deadline <= now || self.away.iter().flatten().any(|until| *until <= now))
    }
}

/// What the sweep must answer, computed the plain way: every match looked at.
fn oracle(stored: &[Stored], now: i64, limit: usize) -> Vec<String> {
    let mut due: Vec<&Stored> = stored.iter().filter(|m| m.overdue(now)).collect();
    due.sort_by_key(|m| m.deadline);
    due.iter().take(limit).map(|m| m.id.clone()).collect()
}

async fn on_m04_the_clock_sweep_finds_exactly_the_overdue_live_matches_through_indexes(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = match &db {
        Db::Sqlite => format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("sweep.db").display()
        ),
        Db::Postgres(url) => url.clone(),
    };
    let store = Store::open(&url).await.unwrap();
    let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
    for i in 0..20 {
        sqlx::query(
            "INSERT INTO accounts (id, name, name_key, country, created_at) \
             VALUES ($1, $2, $2, 'BR', 0)",
        )
        .bind(format!("a{i}"))
        .bind(format!("p{i}"))
        .execute(&mut conn)
        .await
        .unwrap();
    }
    let mut random = Random(0x5eed_c10c);
    let mut stored = Vec::new();
    // Every deadline different, so "most overdue first" is one order on both databases.
    let mut deadlines: Vec<i64> = (0..1200).map(|d| d * 10).collect();
    for round in 0..3 {
        for n in 0..400 {
            let pick = random.below(deadlines.len() as u64) as usize;
            let m = Stored {
                id: format!("m{round}-{n}"),
                live: random.below(3) == 0,
                deadline: deadlines.swap_remove(pick),
                away: [maybe(&mut random, 12_000), maybe(&mut random, 12_000)],
            };
            let state = if m.live {
                "live"
            } else {
                ["over", "open", "cancelled"][random.below(3) as usize]
            };
            let x = random.below(20);
            sqlx::query(
                "INSERT INTO matches (id, scope, level, x_id, o_id, x_country, o_country, state, \
                 position, ply, deadline, created_at, x_away_until, o_away_until) \
                 VALUES ($1, 'mundial', 1, $2, $3, 'BR', 'BR', $4, '', 3, $5, 0, $6, $7)",
            )
            .bind(&m.id)
            .bind(format!("a{x}"))
            .bind(format!("a{}", (x + 1 + random.below(19)) % 20))
            .bind(state)
            .bind(m.deadline)
            .bind(m.away[0])
            .bind(m.away[1])
            .execute(&mut conn)
            .await
            .unwrap();
            stored.push(m);
        }
        for _ in 0..30 {
            // Half the time exactly a stored clock: a clock that ends now is overdue.
            let m = &stored[random.below(stored.len() as u64) as usize];
            let now = match random.below(4) {
                0 => m.deadline,
                1 => m.away[0].unwrap_or(m.deadline),
                _ => random.below(12_500) as i64 - 200,
            };
            let limit = [1, 5, 50, 200, 2000][random.below(5) as usize];
            assert_eq!(
                store.overdue_matches(now, limit as i64).await.unwrap(),
                oracle(&stored, now, limit),
                "round {round}, now {now}, limit {limit}"
            );
        }
    }

    // Each clock is a range of its own partial index of live matches. With 1 200 rows, most
    // of them not live, a plan that reads the table whole, or every live match, shows here.
    let backend = match db {
        Db::Sqlite => Backend::Sqlite,
        Db::Postgres(_) => Backend::Postgres,
    };
    let sql = overdue_matches_sql(backend)
        .replace("$1", "6000")
        .replace("$2", "200");
    let plan: Vec<String> = match db {
        Db::Sqlite => sqlx::query(&format!("EXPLAIN QUERY PLAN {sql}"))
            .fetch_all(&mut conn)
            .await
            .unwrap()
            .iter()
            .map(|r| r.get::<String, _>("detail"))
            .collect(),
        Db::Postgres(_) => {
            conn.execute("ANALYZE matches").await.unwrap();
            // Off, PostgreSQL still reads the table whole when no index can serve.
            conn.execute("SET enable_seqscan = off").await.unwrap();
            sqlx::query(&format!("EXPLAIN {sql}"))
                .fetch_all(&mut conn)
                .await
                .unwrap()
                .iter()
                .map(|r| r.get::<String, _>(0))
                .collect()
        }
    };
    let clocks = [
        "matches_live_deadline",
        "matches_live_x_away",
        "matches_live_o_away",
    ];
    for line in &plan {
        let whole_table = line.contains("Seq Scan") || line.starts_with("SCAN");
        let by_index = ["Index Scan", "Index Only Scan", "INDEX"]
            .iter()
            .any(|read| line.contains(read));
        assert!(
            !whole_table && (!by_index || clocks.iter().any(|i| line.contains(i))),
            "{line}: {plan:#?}"
        );
    }
    for index in clocks {
        assert!(
            plan.iter().any(|line| line.contains(index)),
            "{index} unused: {plan:#?}"
        );
    }
}
on_both!(on_m04_the_clock_sweep_finds_exactly_the_overdue_live_matches_through_indexes);
