//! The rankings at scale on PostgreSQL (issue "Rankings and mini-ranking groups"): a fresh
//! database filled with 100 000 players and 1 000 000 finished matches, scored by the full
//! recomputation, then a real server answers 1 000 ranking pages (random rankings, random
//! depths through cursors) and 1 000 "my position" requests over HTTPS, and 1 000 results are
//! recorded with their standings update. Prints the figures; asserts nothing about time.
//!
//!   VELHA_BENCH_POSTGRES_URL=postgres://user@host:port/postgres \
//!     cargo bench -p velha-server --bench rankings [-- PLAYERS MATCHES]
//!
//! (VELHA_TEST_POSTGRES_URL is used when the first is not set.)

use std::time::Instant;

use sqlx::{Connection, Executor};
use velha_api::{EndHow, MatchGame, MatchState, MyPosition, RankingPage, Scope, Seat};
use velha_server::store::{MatchRow, Store};

mod support;

use support::{fresh_postgres, numbers_from_args, percentile, postgres_admin, report};

const REQUESTS: usize = 1000;
const DAY_MS: i64 = 86_400_000;

/// A small deterministic generator.
struct Random(u64);

impl Random {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Players p1 … pN in 20 countries; matches between spread-out pairs (never a player against
/// themself) at both levels, ending evenly over the 60 days before now.
async fn fill(url: &str, players: i64, matches: i64) {
    let mut db = sqlx::AnyConnection::connect(url).await.expect("connect");
    let countries = "ARRAY['BR','PT','US','AR','MX','ES','FR','DE','IT','JP','CN','IN','GB','CA',\
                     'AU','CL','CO','PE','UY','AO']";
    db.execute(
        format!(
            "INSERT INTO accounts (id, name, name_key, country, created_at) \
             SELECT 'a' || i, 'p' || i, 'p' || i, ({countries})[1 + i % 20], 0 \
             FROM generate_series(1::bigint, {players}) AS i"
        )
        .as_str(),
    )
    .await
    .expect("players");
    let now = velha_server::token::now_ms();
    let (start, step) = (now - 60 * DAY_MS, 60 * DAY_MS / matches.max(1));
    db.execute(
        format!(
            "INSERT INTO matches (id, scope, level, x_id, o_id, x_country, o_country, state, \
             position, ply, winner, ending, created_at, started_at, ended_at) \
             SELECT 'm' || i, 'mundial', 1 + (i % 2), 'a' || x, 'a' || (1 + (x - 1 + d) % {players}), \
             'BR', 'BR', 'over', '', 20, CASE WHEN i % 3 = 0 THEN 'O' ELSE 'X' END, \
             (ARRAY['line','both_lines','time','abandonment'])[1 + (i / 7) % 4], e - 600000, \
             e - 590000, e \
             FROM (SELECT i, 1 + (i * 7919) % {players} AS x, 1 + (i * 104729) % ({players} - 1) AS d, \
                   {start}::bigint + i * {step}::bigint AS e \
                   FROM generate_series(1::bigint, {matches}) AS i) AS g"
        )
        .as_str(),
    )
    .await
    .expect("matches");
    db.execute("ANALYZE").await.expect("analyze");
}

#[tokio::main]
async fn main() {
    let args = numbers_from_args();
    let players = args.first().copied().unwrap_or(100_000);
    let matches = args.get(1).copied().unwrap_or(1_000_000);
    let admin = postgres_admin()
        .expect("set VELHA_BENCH_POSTGRES_URL to a PostgreSQL server (its postgres database)");
    sqlx::any::install_default_drivers();
    let url = fresh_postgres(&admin, "velha_bench").await;
    let store = Store::open(&url).await.expect("migrate");

    let started = Instant::now();
    fill(&url, players, matches).await;
    println!(
        "filled {players} players and {matches} finished matches in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let rebuilt = store.rebuild_rankings(true).await.expect("rebuild");
    println!(
        "scored them (rebuild): {} standings in {:.1} s",
        rebuilt.players,
        started.elapsed().as_secs_f64()
    );
    let mut db = sqlx::AnyConnection::connect(&url).await.expect("connect");
    db.execute("VACUUM ANALYZE").await.expect("vacuum");

    // A real server on the filled database, and sessions for 1 000 random ranked players.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut server = tokio::process::Command::new(env!("CARGO_BIN_EXE_velha-server"))
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .env("DATABASE_URL", &url)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start velha-server");
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(
        server.stdout.take().expect("stdout"),
    ));
    let line = lines.next_line().await.expect("read").expect("a line");
    let base = line
        .strip_prefix("velha-server listening on ")
        .expect("the address line")
        .to_owned();
    let cert = std::fs::read(dir.path().join("dev-cert.pem")).expect("certificate");
    let anon = velha_load::Client::new(&base, &cert).expect("client");
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    let mut viewers = Vec::with_capacity(REQUESTS);
    for _ in 0..REQUESTS {
        let token = velha_server::token::new_token();
        let account = format!("a{}", 1 + random.below(players as u64));
        store
            .insert_session(
                &velha_server::token::token_hash(&token),
                &account,
                (
                    velha_server::token::now_ms(),
                    velha_server::token::now_ms() + DAY_MS,
                ),
                &velha_server::devices::Device::default(),
            )
            .await
            .expect("session");
        let mut c = anon.another();
        c.token = Some(token);
        viewers.push(c);
    }

    // Pages: random ranking, and a random depth reached through a real cursor.
    let mut cursors: Vec<(String, String)> = Vec::new();
    for (scope, level) in [
        ("mundial", 1),
        ("mundial", 2),
        ("nacional", 1),
        ("nacional", 2),
    ] {
        let query = format!("scope={scope}&level={level}&limit=100");
        let mut next = None;
        for _ in 0..20 {
            let path = match &next {
                Some(c) => format!("/api/rankings?{query}&cursor={c}"),
                None => format!("/api/rankings?{query}"),
            };
            let (_, body) = viewers[0]
                .raw(reqwest::Method::GET, &path, None)
                .await
                .expect("page");
            let page: RankingPage = serde_json::from_value(body).expect("a page");
            cursors.push((query.clone(), next.clone().unwrap_or_default()));
            match page.next {
                Some(c) => next = Some(c),
                None => break,
            }
        }
    }
    let mut times = Vec::with_capacity(REQUESTS);
    for viewer in &viewers {
        let (query, cursor) = &cursors[random.below(cursors.len() as u64) as usize];
        let path = if cursor.is_empty() {
            format!("/api/rankings?{query}")
        } else {
            format!("/api/rankings?{query}&cursor={cursor}")
        };
        let t = Instant::now();
        let (status, _) = viewer
            .raw(
                reqwest::Method::GET,
                &path.replace("limit=100", "limit=50"),
                None,
            )
            .await
            .expect("page");
        times.push(t.elapsed());
        assert_eq!(status, 200);
    }
    report("GET /api/rankings (a page of 50, HTTPS)", times);

    let mut times = Vec::with_capacity(REQUESTS);
    let mut ranked = 0;
    for viewer in &viewers {
        let t = Instant::now();
        let (status, body) = viewer
            .raw(reqwest::Method::GET, "/api/rankings/me", None)
            .await
            .expect("mine");
        times.push(t.elapsed());
        assert_eq!(status, 200);
        let mine: Vec<MyPosition> = serde_json::from_value(body).expect("positions");
        ranked += mine.iter().filter(|p| p.row.is_some()).count();
    }
    report("GET /api/rankings/me (4 positions, HTTPS)", times);
    println!("  ({ranked} of {} positions were ranked)", REQUESTS * 4);

    // Recording results: each end scores the match and updates both standings in the same
    // transaction. The same end without the rankings (end_match's own statements, run here
    // as SQL) is the baseline; the difference is the rankings' extra cost.
    let now = velha_server::token::now_ms();
    let mut with = Vec::with_capacity(REQUESTS);
    let mut without = Vec::with_capacity(REQUESTS);
    for i in 0..2 * REQUESTS as i64 {
        let everyone = players as u64;
        let xi = random.below(everyone);
        let oi = (xi + 1 + random.below(everyone - 1)) % everyone;
        let (x, o) = (format!("a{}", 1 + xi), format!("a{}", 1 + oi));
        let id = velha_server::token::new_id();
        let row = MatchRow {
            game: MatchGame::Cube,
            ratings: None,
            away: [None, None],
            id: id.clone(),
            scope: Scope::Mundial,
            level: 1,
            x_id: x,
            x_name: String::new(),
            x_country: "BR".into(),
            o_id: None,
            o_name: None,
            state: MatchState::Open,
            position: String::new(),
            ply: 0,
            deadline: None,
            winner: None,
            ending: None,
            created_at: now,
            scored: None,
            group: None,
            velha: false,
        };
        if store.insert_open_match(&row).await.is_err()
            || store
                .join_match(&id, &o, "BR", now, now + 60_000)
                .await
                .is_err()
        {
            continue;
        }
        let t = Instant::now();
        if i % 2 == 0 {
            assert!(
                store
                    .end_match(&id, Some(Seat::X), EndHow::Line, now + i, &[])
                    .await
                    .expect("end")
            );
            with.push(t.elapsed());
        } else {
            let mut tx = db.begin().await.expect("begin");
            sqlx::query(
                "UPDATE matches SET state = 'over', winner = 'X', ending = 'line', ended_at = $1, \
                 deadline = NULL WHERE id = $2 AND state = 'live'",
            )
            .bind(now + i)
            .bind(&id)
            .execute(&mut *tx)
            .await
            .expect("end");
            sqlx::query("DELETE FROM active_players WHERE match_id = $1")
                .bind(&id)
                .execute(&mut *tx)
                .await
                .expect("release");
            tx.commit().await.expect("commit");
            without.push(t.elapsed());
        }
    }
    with.sort();
    without.sort();
    report("end a match with the rankings (store)", with.clone());
    report("the same end without them (baseline SQL)", without.clone());
    println!(
        "  the rankings' extra cost: p50 {:.2} ms, p99 {:.2} ms",
        percentile(&with, 0.5) - percentile(&without, 0.5),
        percentile(&with, 0.99) - percentile(&without, 0.99)
    );
    let _ = server.kill().await;
    store.close().await;
    let mut conn = sqlx::AnyConnection::connect(&admin).await.expect("connect");
    let name = url.rsplit('/').next().unwrap_or_default().to_owned();
    let _ = conn
        .execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str())
        .await;
}
