//! What the store's benches share: their numbers from the command line, a fresh PostgreSQL
//! database, and the line each prints for a series of timings.

use std::time::Duration;

use sqlx::{Connection, Executor};

/// The numbers given after `--`, in order.
pub fn numbers_from_args() -> Vec<i64> {
    std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect()
}

/// The PostgreSQL server to measure on (its `postgres` database), if one is set.
pub fn postgres_admin() -> Option<String> {
    std::env::var("VELHA_BENCH_POSTGRES_URL")
        .or_else(|_| std::env::var("VELHA_TEST_POSTGRES_URL"))
        .ok()
}

/// A new, empty database `{prefix}_{pid}` on that server (one a run left is dropped first);
/// its URL.
pub async fn fresh_postgres(admin: &str, prefix: &str) -> String {
    let name = format!("{prefix}_{}", std::process::id());
    let mut conn = sqlx::AnyConnection::connect(admin)
        .await
        .expect("connect to PostgreSQL");
    conn.execute(format!("DROP DATABASE IF EXISTS {name}").as_str())
        .await
        .expect("drop an old bench database");
    conn.execute(format!("CREATE DATABASE {name}").as_str())
        .await
        .expect("create the bench database");
    let base = admin.rsplit_once('/').map_or(admin, |(b, _)| b);
    format!("{base}/{name}")
}

/// The `p` quantile of sorted timings, in milliseconds.
pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

/// Prints a series of timings: p50, p99, the slowest.
pub fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    println!(
        "{what:<44} p50 {:8.3} ms   p99 {:8.3} ms   max {:8.3} ms   ({} runs)",
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times.last().map_or(0.0, |t| t.as_secs_f64() * 1000.0),
        times.len()
    );
}
