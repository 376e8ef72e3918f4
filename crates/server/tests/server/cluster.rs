//! Several server processes on one PostgreSQL behind nginx (docs/deploy.md), and what happens
//! when one dies, when PostgreSQL restarts, or when a process misses notifications: the rules
//! of live matches (ON-M03, ON-M04, ON-M05) hold across processes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use futures_util::future::join_all;
use sqlx::{Connection, Executor, Row};
use velha_api::{
    ClientMsg, EndHow, ErrorCode, MatchState, Refusal, RoomAct, RoomBoard, RoomServerMsg, Scope,
    Seat, ServerMsg,
};
use velha_load::steady::{self, Side};
use velha_load::{Client, Live};

use crate::common::{Db, Server, expect, room_live_again};
use crate::live::moved;

/// A free loopback port (bound and released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// A PostgreSQL server of the test's own, which it may stop and start (the one the test
/// script started is shared by every test).
struct OwnPostgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
}

impl OwnPostgres {
    /// None when the developer chose to skip PostgreSQL.
    fn start() -> Option<OwnPostgres> {
        if std::env::var("VELHA_TEST_POSTGRES").as_deref() == Ok("skip") {
            eprintln!("PostgreSQL skipped (VELHA_TEST_POSTGRES=skip)");
            return None;
        }
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL's programs in /usr/lib/postgresql (apt-get install postgresql)")
            .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
            .filter(|b| b.join("initdb").exists())
            .max()
            .expect("initdb in /usr/lib/postgresql/*/bin");
        let pg = OwnPostgres {
            dir: tempfile::tempdir().expect("temp dir"),
            bin,
            port: free_port(),
        };
        if is_root() {
            // PostgreSQL refuses to run as root: as root, it runs as the user apt made.
            run(Command::new("chown").arg("postgres:").arg(pg.dir.path()));
        }
        run(pg
            .as_owner("initdb")
            .args(["-U", "velha", "-A", "trust", "--no-sync", "-D"])
            .arg(pg.data()));
        pg.pg_ctl_start();
        Some(pg)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn as_owner(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        }
    }

    fn pg_ctl_start(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        run(self
            .as_owner("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.path().join("log"))
            .args(["-w", "-o", &options, "start"]));
    }

    /// Stops at once, as a crash would (recovery on the next start), then starts again.
    fn crash_and_restart(&self, down_for: Duration) {
        run(self.as_owner("pg_ctl").arg("-D").arg(self.data()).args([
            "-m",
            "immediate",
            "-w",
            "stop",
        ]));
        std::thread::sleep(down_for);
        self.pg_ctl_start();
    }

    async fn database(&self) -> Db {
        let admin = format!("postgres://velha@127.0.0.1:{}/postgres", self.port);
        sqlx::any::install_default_drivers();
        let mut conn = sqlx::AnyConnection::connect(&admin)
            .await
            .expect("connect to the test's PostgreSQL");
        conn.execute("CREATE DATABASE velha").await.expect("create");
        Db::Postgres(format!("postgres://velha@127.0.0.1:{}/velha", self.port))
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        let _ = self
            .as_owner("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn run(c: &mut Command) {
    let out = c.output().expect("run a command");
    assert!(
        out.status.success(),
        "{c:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// nginx in front of the servers, configured by `deploy/nginx.conf` (scripts/balancer.sh).
struct Balancer {
    child: std::process::Child,
    _dir: tempfile::TempDir,
    base: String,
}

impl Balancer {
    /// In front of these servers, with the first one's certificate.
    async fn start(servers: &[&Server]) -> Balancer {
        Balancer::start_with(servers, None).await
    }

    /// The same, with `per_address` connections a client address may hold instead of the
    /// shipped limit.
    async fn start_with(servers: &[&Server], per_address: Option<u32>) -> Balancer {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/balancer.sh");
        let certs = servers[0].dir.path();
        let mut command = Command::new("bash");
        if let Some(n) = per_address {
            command.env("VELHA_CONNECTIONS_PER_ADDRESS", n.to_string());
        }
        let child = command
            .arg(script)
            .arg(dir.path())
            .arg(port.to_string())
            .arg(certs.join("dev-cert.pem"))
            .arg(certs.join("dev-key.pem"))
            .args(servers.iter().map(|s| s.base.rsplit(':').next().unwrap()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
        let balancer = Balancer {
            child,
            _dir: dir,
            base: format!("https://127.0.0.1:{port}"),
        };
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return balancer;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("nginx did not listen within 5 s");
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        // SIGTERM: nginx's master stops its workers too (SIGKILL would leave them running).
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// The flags of every process: one certificate for all (the first's), the client's address
/// from nginx, and these clocks.
fn flags(first: Option<&Server>, move_ms: u64, grace_ms: u64) -> Vec<String> {
    let mut f = vec![
        "--move-time-ms".to_owned(),
        move_ms.to_string(),
        "--reconnect-grace-ms".to_owned(),
        grace_ms.to_string(),
        "--forwarded-for-header".to_owned(),
        "x-forwarded-for".to_owned(),
        // A stopping process waits this long at most for its players to be back elsewhere:
        // long enough that a busy test machine never makes a deploy look like a departure.
        "--shutdown-grace-s".to_owned(),
        "20".to_owned(),
    ];
    if let Some(first) = first {
        for (flag, file) in [("--tls-cert", "dev-cert.pem"), ("--tls-key", "dev-key.pem")] {
            f.push(flag.to_owned());
            f.push(first.dir.path().join(file).display().to_string());
        }
    }
    f
}

async fn start(db: &Db, first: Option<&Server>, move_ms: u64, grace_ms: u64) -> Server {
    let f = flags(first, move_ms, grace_ms);
    let f: Vec<&str> = f.iter().map(String::as_str).collect();
    Server::start(db.clone(), &f).await
}

/// A PostgreSQL of the test's own, server processes on it, and nginx in front of them all.
struct Cluster {
    pg: OwnPostgres,
    servers: Vec<Server>,
    lb: Balancer,
}

/// `n` processes with these clocks; None when PostgreSQL is skipped.
async fn cluster(n: usize, move_ms: u64, grace_ms: u64) -> Option<Cluster> {
    let pg = OwnPostgres::start()?;
    let db = pg.database().await;
    let first = start(&db, None, move_ms, grace_ms).await;
    let mut servers = Vec::with_capacity(n);
    for _ in 1..n {
        servers.push(start(&db, Some(&first), move_ms, grace_ms).await);
    }
    servers.insert(0, first);
    let lb = Balancer::start(&servers.iter().collect::<Vec<_>>()).await;
    Some(Cluster { pg, servers, lb })
}

/// A subscriber signed up through the balancer.
async fn player(lb: &Balancer, admin: &Server, name: &str) -> Client {
    let mut c = Client::new(&lb.base, &admin.cert).expect("client");
    c.sign_up(&format!("{name}@example.com"), "cubo-gira-9", name, "pt-BR")
        .await
        .unwrap_or_else(|e| panic!("sign up {name}: {e}"));
    let (ok, text) = admin
        .admin(&["subscription", "grant", name, "--until", "2099-12-31"])
        .await;
    assert!(ok, "{text}");
    c
}

async fn welcomed(client: &Client) -> (Live, Vec<velha_api::MatchView>) {
    let mut live = client.live().await.expect("a live connection");
    match expect(&mut live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await
    {
        ServerMsg::Welcome { matches, .. } => (live, matches),
        _ => unreachable!(),
    }
}

/// X on `x_at`, O on `o_at`: a match made through the balancer, both told it started.
async fn meet(
    lb: &Balancer,
    admin: &Server,
    (x_at, o_at): (&str, &str),
) -> (Client, Live, Client, Live, String) {
    let x = player(lb, admin, "xavier").await;
    let o = player(lb, admin, "olivia").await;
    let (mut xl, _) = welcomed(&x.at(x_at)).await;
    let (mut ol, _) = welcomed(&o.at(o_at)).await;
    let open = x.create(Scope::Mundial, 1).await.expect("create");
    o.join(&open.id).await.expect("join");
    for live in [&mut xl, &mut ol] {
        expect(live, "started", |m| matches!(m, ServerMsg::Started { .. })).await;
    }
    (x, xl, o, ol, open.id)
}

/// (state, ply, deadline, ending, ended_at) as stored.
async fn stored(
    server: &Server,
    id: &str,
) -> (String, i64, Option<i64>, Option<String>, Option<i64>) {
    let mut db = server.database().await;
    let row =
        sqlx::query("SELECT state, ply, deadline, ending, ended_at FROM matches WHERE id = $1")
            .bind(id)
            .fetch_one(&mut db)
            .await
            .expect("the match");
    (
        row.get("state"),
        row.get("ply"),
        row.get("deadline"),
        row.get("ending"),
        row.get("ended_at"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_m04_a_killed_processs_players_come_back_through_the_balancer_and_play_on() {
    let Some(Cluster {
        pg: _pg,
        mut servers,
        lb,
    }) = cluster(2, 30_000, 20_000).await
    else {
        return;
    };
    let [a, b] = &mut servers[..] else {
        unreachable!()
    };
    // X's connection on A, O's on B: every message crosses processes.
    let (x, mut xl, _o, mut ol, id) = meet(&lb, b, (&a.base, &b.base)).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    moved(&mut ol, &mut xl, &id, 1, &["c3"]).await;
    let (_, _, deadline, _, _) = stored(b, &id).await;

    a.kill9().await;
    // X comes back through nginx, which finds A gone and takes B.
    let (mut xl, matches) = welcomed(&x.at(&lb.base)).await;
    let view = matches
        .iter()
        .find(|m| m.id == id)
        .expect("the match is X's");
    assert_eq!((view.state, view.ply), (MatchState::Live, 2));
    // The clock went on while A was dead: the same deadline, not a new turn.
    let left = view.clock_ms.expect("a clock");
    assert!(left < 30_000, "{left} ms left: the clock was restarted");
    assert_eq!(stored(b, &id).await.2, deadline);
    moved(&mut xl, &mut ol, &id, 2, &["a2"]).await;
    moved(&mut ol, &mut xl, &id, 3, &["c2"]).await;
    // A stale or repeated move is still refused by whichever process takes it.
    xl.send(&ClientMsg::Play {
        match_id: id.clone(),
        ply: 3,
        actions: vec!["b2".into()],
    })
    .await
    .unwrap();
    let refused = expect(&mut xl, "refused", |m| {
        matches!(m, ServerMsg::Refused { .. })
    })
    .await;
    assert!(
        matches!(
            refused,
            ServerMsg::Refused {
                refusal: Refusal::Stale { ply: 4 },
                ..
            }
        ),
        "{refused:?}"
    );
    moved(&mut xl, &mut ol, &id, 4, &["a3"]).await;
    for live in [&mut xl, &mut ol] {
        let end = expect(live, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
        let ServerMsg::Ended { ending, .. } = end else {
            unreachable!()
        };
        assert_eq!((ending.winner, ending.how), (Some(Seat::X), EndHow::Line));
    }
    // Every acknowledged move stored once, in order.
    let mut conn = b.database().await;
    let plies: Vec<i64> = sqlx::query("SELECT ply FROM moves WHERE match_id = $1 ORDER BY ply")
        .bind(&id)
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get("ply"))
        .collect();
    assert_eq!(plies, [1, 2, 3, 4, 5]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_m03_a_deadline_passing_while_its_process_is_dead_ends_the_match_once() {
    let Some(Cluster {
        pg: _pg,
        mut servers,
        lb,
    }) = cluster(3, 3_000, 60_000).await
    else {
        return;
    };
    let [a, b, _c] = &mut servers[..] else {
        unreachable!()
    };
    // Both players on A, which alone knows when the clock runs out.
    let (x, mut xl, o, mut ol, id) = meet(&lb, b, (&a.base, &a.base)).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    let (_, _, deadline, _, _) = stored(b, &id).await;
    let deadline = deadline.expect("a deadline");
    a.kill9().await;

    // O does not move: B and C both find the clock run out; exactly one ends the match.
    let mut ending = None;
    for _ in 0..100 {
        let (state, _, _, how, at) = stored(b, &id).await;
        if state == "over" {
            ending = Some((how, at));
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (how, at) = ending.expect("the match ended within 10 s of its deadline");
    assert_eq!(how.as_deref(), Some("time"));
    assert_eq!(
        at,
        Some(deadline),
        "ended when the clock ran out, not when found"
    );
    // Scored once in the rankings: one win for X, one loss for O.
    let mut conn = b.database().await;
    let tally = sqlx::query(
        "SELECT CAST(SUM(-neg_wins) AS BIGINT) AS wins, CAST(SUM(losses) AS BIGINT) AS losses \
         FROM standings WHERE level = 1",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    let (wins, losses): (i64, i64) = (tally.get("wins"), tally.get("losses"));
    assert_eq!((wins, losses), (1, 1));
    // Both come back through nginx and hear how it ended.
    for client in [&x, &o] {
        let (_, matches) = welcomed(&client.at(&lb.base)).await;
        assert!(
            matches.iter().all(|m| m.id != id),
            "the match is no longer live"
        );
        let view = client.at(&lb.base).get_match(&id).await.unwrap();
        assert_eq!(view.state, MatchState::Over);
        assert_eq!(
            view.ending.map(|e| (e.winner, e.how)),
            Some((Some(Seat::X), EndHow::Time))
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_m05_a_postgresql_restart_loses_no_acknowledged_move() {
    let Some(Cluster {
        pg,
        mut servers,
        lb,
    }) = cluster(2, 60_000, 60_000).await
    else {
        return;
    };
    let [a, b] = &mut servers[..] else {
        unreachable!()
    };
    let (_x, mut xl, _o, mut ol, id) = meet(&lb, b, (&a.base, &b.base)).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;

    pg.crash_and_restart(Duration::from_secs(2));
    // The first tries may find the pools reconnecting: refused as unavailable, never lost.
    let mut acknowledged = false;
    for _ in 0..50 {
        ol.send(&ClientMsg::Play {
            match_id: id.clone(),
            ply: 1,
            actions: vec!["c3".into()],
        })
        .await
        .unwrap();
        match expect(&mut ol, "an answer", |m| {
            matches!(m, ServerMsg::Moved { .. } | ServerMsg::Refused { .. })
        })
        .await
        {
            ServerMsg::Moved { ply: 2, .. } => {
                acknowledged = true;
                break;
            }
            ServerMsg::Refused {
                refusal: Refusal::Unavailable,
                ..
            } => tokio::time::sleep(Duration::from_millis(200)).await,
            other => panic!("{other:?}"),
        }
    }
    assert!(acknowledged, "no move was taken after PostgreSQL came back");
    // X, on the other process, hears it: its listener reconnected.
    expect(&mut xl, "O's move", |m| {
        matches!(m, ServerMsg::Moved { ply: 2, .. })
    })
    .await;
    moved(&mut xl, &mut ol, &id, 2, &["a2"]).await;
    let mut conn = a.database().await;
    let n: i64 = sqlx::query("SELECT COUNT(*) AS n FROM moves WHERE match_id = $1")
        .bind(&id)
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get("n");
    assert_eq!(n, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_m05_moves_missed_while_a_process_was_not_listening_are_caught_up() {
    let Some(Cluster {
        pg: _pg,
        mut servers,
        lb,
    }) = cluster(2, 60_000, 60_000).await
    else {
        return;
    };
    let [a, b] = &mut servers[..] else {
        unreachable!()
    };
    let (_x, mut xl, _o, mut ol, id) = meet(&lb, b, (&a.base, &b.base)).await;
    let mut admin = b.database().await;
    // Each round B's listening connection is cut just before X moves on A: the move reaches
    // O, on B, by NOTIFY if B listens again in time, else read back from the database.
    let moves = [["a1"], ["c3"], ["a2"], ["c2"]];
    for (ply, action) in moves.iter().enumerate() {
        admin
            .execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
            )
            .await
            .unwrap();
        let ply = u32::try_from(ply).unwrap();
        if ply % 2 == 0 {
            moved(&mut xl, &mut ol, &id, ply, action).await;
        } else {
            moved(&mut ol, &mut xl, &id, ply, action).await;
        }
    }
}

/// A change is committed with its event and its process dies before notifying the others
/// (notifications go out after the commit, `store/announcer.rs`): once that process is given
/// up, every other one reads back what it recorded since it was last seen, and its players
/// hear of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_m05_an_event_whose_process_died_before_notifying_is_caught_up() {
    let Some(Cluster {
        pg: _pg,
        mut servers,
        lb,
    }) = cluster(2, 60_000, 60_000).await
    else {
        return;
    };
    let [a, b] = &mut servers[..] else {
        unreachable!()
    };
    let (_x, _xl, _o, mut ol, _id) = meet(&lb, b, (&a.base, &b.base)).await;
    let mut db = b.database().await;
    let olivia: String = sqlx::query_scalar("SELECT id FROM accounts WHERE name = 'olivia'")
        .fetch_one(&mut db)
        .await
        .unwrap();
    // What a process that died right after its commit leaves: its event, recorded, never
    // notified, and its heartbeat, going stale.
    let msg = serde_json::to_value(ServerMsg::Error {
        code: ErrorCode::Conflict,
        message: "from a process that died".into(),
    })
    .unwrap();
    let event = serde_json::json!({"kind": "players", "to": [olivia], "msg": msg});
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    sqlx::query("INSERT INTO processes (id, seen_at) VALUES ('died', $1)")
        .bind(now - 4_500)
        .execute(&mut db)
        .await
        .unwrap();
    sqlx::query("INSERT INTO events (id, at, payload) VALUES ('died-1', $1, $2)")
        .bind(now)
        .bind(event.to_string())
        .execute(&mut db)
        .await
        .unwrap();
    // Given up five seconds after it was last seen, by either process's sweeper.
    expect(
        &mut ol,
        "the dead process's event",
        |m| matches!(m, ServerMsg::Error { message, .. } if message == "from a process that died"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_m01_the_lobby_and_presence_are_the_same_from_every_process() {
    let Some(Cluster {
        pg: _pg,
        mut servers,
        lb,
    }) = cluster(2, 60_000, 2_000).await
    else {
        return;
    };
    let [a, b] = &mut servers[..] else {
        unreachable!()
    };
    let watcher = player(&lb, a, "walter").await;
    let creator = player(&lb, a, "carla").await;
    // Walter watches the lobby on B; Carla, connected on A, opens a match through A.
    let (mut wl, _) = welcomed(&watcher.at(&b.base)).await;
    wl.send(&ClientMsg::WatchLobby {
        scope: Scope::Mundial,
        level: 1,
        group: None,
    })
    .await
    .unwrap();
    expect(&mut wl, "the lobby", |m| {
        matches!(m, ServerMsg::Lobby { .. })
    })
    .await;
    let (cl, _) = welcomed(&creator.at(&a.base)).await;
    let open = creator.at(&a.base).create(Scope::Mundial, 1).await.unwrap();
    let opened = expect(&mut wl, "opened", |m| {
        matches!(m, ServerMsg::LobbyOpened { .. })
    })
    .await;
    assert!(matches!(opened, ServerMsg::LobbyOpened { open: ref o } if o.id == open.id));
    // Carla closes her only connection (on A); past the grace her match leaves the lobby,
    // withdrawn by A, and B's watcher hears it.
    cl.close().await;
    let closed = expect(&mut wl, "closed", |m| {
        matches!(m, ServerMsg::LobbyClosed { .. })
    })
    .await;
    assert!(matches!(closed, ServerMsg::LobbyClosed { ref id } if *id == open.id));
    // Connected on B only, she stays: being online is known to every process.
    let (_cl, _) = welcomed(&creator.at(&b.base)).await;
    let again = creator.at(&a.base).create(Scope::Mundial, 1).await.unwrap();
    expect(&mut wl, "opened again", |m| {
        matches!(m, ServerMsg::LobbyOpened { .. })
    })
    .await;
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    let listed = watcher.at(&a.base).lobby(Scope::Mundial, 1).await.unwrap();
    assert!(listed.iter().any(|m| m.id == again.id), "{listed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classic_r13_a_rooms_fifty_spectators_are_counted_across_processes() {
    let Some(Cluster {
        pg: _pg,
        mut servers,
        lb: _lb,
    }) = cluster(2, 60_000, 60_000).await
    else {
        return;
    };
    let [a, b] = &mut servers[..] else {
        unreachable!()
    };
    let on_a = a.client();
    let on_b = on_a.at(&b.base);
    let made = on_a
        .create_room(RoomBoard::Super, "Ana", None)
        .await
        .unwrap();
    let id = made.room.id.clone();
    on_b.join_room(&id, "Bia", None).await.unwrap();
    // Sixty at once, half on each process: fifty watch, ten are refused.
    let tries = (0..60).map(|i| {
        let client = if i % 2 == 0 {
            on_a.clone()
        } else {
            on_b.clone()
        };
        let id = id.clone();
        async move {
            let mut live = client.room_live(&id, "").await.unwrap();
            let first = live
                .recv_until(Duration::from_secs(10), |_| true)
                .await
                .unwrap();
            (live, first)
        }
    });
    let mut watching = Vec::new();
    let mut full = 0;
    for (live, first) in join_all(tries).await {
        match first {
            RoomServerMsg::Room { .. } => watching.push(live),
            RoomServerMsg::Error {
                code: ErrorCode::RoomFull,
                ..
            } => full += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((watching.len(), full), (50, 10));
    // Ana's move, taken by A, reaches the fifty on both processes, who all count fifty.
    on_a.room_act(&id, &made.credential, RoomAct::Play { cell: "e5".into() })
        .await
        .unwrap();
    for live in &mut watching {
        let seen = live
            .recv_until(
                Duration::from_secs(5),
                |m| matches!(m, RoomServerMsg::Room { room } if room.ply == 1),
            )
            .await
            .unwrap();
        let RoomServerMsg::Room { room } = seen else {
            unreachable!()
        };
        assert_eq!(room.spectators, 50);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_m04_a_rolling_deploy_loses_no_move_and_ends_no_match() {
    let Some(Cluster {
        pg: _pg,
        mut servers,
        lb,
    }) = cluster(2, 20_000, 20_000).await
    else {
        return;
    };
    let mut matches = Vec::new();
    for i in 0..6 {
        let x = player(&lb, &servers[0], &format!("xis{i}")).await;
        let o = player(&lb, &servers[0], &format!("bola{i}")).await;
        matches.push((x, o));
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let games: Vec<_> = matches
        .iter()
        .enumerate()
        .map(|(i, (x, o))| {
            tokio::spawn(steady::keep_playing(
                [Side::new(x.clone()), Side::new(o.clone())],
                velha_rules::Level::One,
                400,
                Duration::from_millis(60),
                i as u64 + 1,
                stop.clone(),
            ))
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(1)).await;
    // Each process in turn, as a deploy does: SIGTERM, a clean exit, the same port again,
    // and nginx's `fail_timeout` (2 s) before the next, so it sends requests to the new one.
    for server in &mut servers {
        let status = server.terminate().await;
        assert!(status.success(), "{status:?}");
        server.start_again().await;
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut told = 0;
    let mut db = servers[0].database().await;
    for played in join_all(games).await.into_iter().flat_map(Result::unwrap) {
        assert_eq!(played.failure, None, "match {}", played.id);
        assert!(
            !matches!(
                played.ending,
                Some(EndHow::Time | EndHow::Abandonment | EndHow::Absent)
            ),
            "match {} ended by {:?}",
            played.id,
            played.ending
        );
        // The hand-over: nobody's opponent saw them leave.
        assert_eq!(played.away_seen, 0, "match {}", played.id);
        told += played.told_to_come_back;
        eprintln!(
            "match {}: {} moves, {} told to come back, {} lost, longest without a connection {:.1} ms",
            played.id,
            played.acknowledged.len(),
            played.told_to_come_back,
            played.lost,
            played.longest_down_us as f64 / 1000.0
        );
        // Every acknowledged move is stored, once, in order, and nothing else.
        let plies: Vec<i64> = sqlx::query("SELECT ply FROM moves WHERE match_id = $1 ORDER BY ply")
            .bind(&played.id)
            .fetch_all(&mut db)
            .await
            .unwrap()
            .iter()
            .map(|r| r.get("ply"))
            .collect();
        let acknowledged: Vec<i64> = played
            .acknowledged
            .iter()
            .map(|(ply, _, _)| i64::from(*ply))
            .collect();
        assert_eq!(plies, acknowledged, "match {}", played.id);
        // A match met just before the stop has no move yet.
        let (_, ply, ..) = stored(&servers[0], &played.id).await;
        assert_eq!(ply, acknowledged.last().copied().unwrap_or(0));
    }
    // Every player held a connection through both restarts.
    assert!(told >= 12, "{told} connections were told to come back");
}

/// Behind nginx the servers leave the connections per address to it (`limit_conn` in
/// deploy/nginx.conf): past an address's share a WebSocket is answered 503, and the place
/// comes back when one of its connections ends.
#[tokio::test]
async fn the_balancer_limits_the_connections_of_one_address() {
    let server = Server::start(Db::Sqlite, &["--forwarded-for-header", "x-forwarded-for"]).await;
    let lb = Balancer::start_with(&[&server], Some(3)).await;
    let c = Client::new(&lb.base, &server.cert).expect("client");
    // A request's kept-alive connection is not counted once it is answered.
    let room = c
        .create_room(RoomBoard::Classic, "Ana", Some(velha_api::Avatar::Nino))
        .await
        .unwrap()
        .room
        .id;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(c.room_live(&room, "").await.unwrap());
    }
    let refused = c
        .room_live(&room, "")
        .await
        .err()
        .expect("a fourth WebSocket");
    assert!(refused.contains("503"), "{refused}");
    held.pop().unwrap().close().await;
    assert!(
        room_live_again(&c, &room).await,
        "the place of the closed one comes back"
    );
}
