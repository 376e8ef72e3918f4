//! The clock sweep's query (`Store::overdue_matches`, four times a second in every process)
//! beside a long history: a fresh database on SQLite and on PostgreSQL filled with MATCHES
//! finished matches and LIVE live ones (one in fifty with a seat away), then 2 000 sweeps that
//! find nothing overdue, as nearly every sweep does. Prints the figures; asserts nothing about
//! time.
//!
//!   VELHA_BENCH_POSTGRES_URL=postgres://user@host:port/postgres \
//!     cargo bench -p velha-server --bench sweep [-- MATCHES LIVE]
//!
//! (VELHA_TEST_POSTGRES_URL is used when the first is not set; without either, SQLite only.)

use std::time::Instant;

use sqlx::{Connection, Executor};
use velha_server::store::Store;

mod support;

use support::{fresh_postgres, numbers_from_args, postgres_admin, report};

const SWEEPS: usize = 2000;

/// MATCHES finished matches and LIVE live ones, their clocks an hour ahead; one live match in
/// fifty has X away, also an hour ahead. The same SQL on both databases (a recursive count:
/// SQLite has no `generate_series`).
async fn fill(url: &str, matches: i64, live: i64) {
    let mut db = sqlx::AnyConnection::connect(url).await.expect("connect");
    let count = |n: i64| {
        format!("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n})")
    };
    db.execute(
        format!(
            "INSERT INTO accounts (id, name, name_key, country, created_at) {} \
             SELECT 'a' || i, 'p' || i, 'p' || i, 'BR', 0 FROM n",
            count(10_000)
        )
        .as_str(),
    )
    .await
    .expect("players");
    let later = velha_server::token::now_ms() + 3_600_000;
    let ahead = format!("{later} + i");
    for (n, state, clock, prefix) in [
        (matches, "over", "CAST(NULL AS BIGINT)", "m"),
        (live, "live", ahead.as_str(), "l"),
    ] {
        db.execute(
            format!(
                "INSERT INTO matches (id, scope, level, x_id, o_id, x_country, o_country, state, \
                 position, ply, created_at, deadline, x_away_until) {} \
                 SELECT '{prefix}' || i, 'mundial', 1, 'a' || (1 + i % 10000), \
                 'a' || (1 + (i + 7) % 10000), 'BR', 'BR', '{state}', '', 3, 0, {clock}, \
                 CASE WHEN i % 50 = 0 THEN {clock} END FROM n",
                count(n)
            )
            .as_str(),
        )
        .await
        .expect("matches");
    }
    // PostgreSQL's autovacuum would have; the server never asks SQLite to.
    if url.starts_with("postgres") {
        db.execute("ANALYZE").await.expect("analyze");
    }
}

async fn sweeps(what: &str, url: &str, matches: i64, live: i64) {
    let store = Store::open(url).await.expect("migrate");
    let started = Instant::now();
    fill(url, matches, live).await;
    println!(
        "{what:<12} filled {matches} finished and {live} live matches in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let now = velha_server::token::now_ms();
    let mut times = Vec::with_capacity(SWEEPS);
    for _ in 0..SWEEPS {
        let started = Instant::now();
        let overdue = store.overdue_matches(now, 200).await.expect("sweep");
        times.push(started.elapsed());
        assert!(overdue.is_empty(), "nothing is overdue");
    }
    report(&format!("{what}: a sweep"), times);
    store.close().await;
}

#[tokio::main]
async fn main() {
    let args = numbers_from_args();
    let matches = args.first().copied().unwrap_or(1_000_000);
    let live = args.get(1).copied().unwrap_or(2_000);
    sqlx::any::install_default_drivers();
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("sweep.db").display()
    );
    sweeps("SQLite", &sqlite, matches, live).await;
    let Some(admin) = postgres_admin() else {
        println!("PostgreSQL skipped: set VELHA_BENCH_POSTGRES_URL");
        return;
    };
    let url = fresh_postgres(&admin, "velha_sweep").await;
    sweeps("PostgreSQL", &url, matches, live).await;
}
