//! The load bench: starts a `velha-server` (the one built beside this binary), signs up 2 × N
//! players, opens one WebSocket each, meets them in N concurrent cube matches, and plays them
//! with random legal moves over real HTTPS and WebSocket on loopback. Prints matches/s,
//! moves/s, move latency percentiles and the server's peak memory.
//!
//! `cargo build --release -p velha-server -p velha-load && …/release/velha-load --matches 1000`
//! (the server is a separate package: build both, so the bench never measures a stale one).
//! With `--rooms N`, invitation rooms instead: see `rooms_bench`; with `--peer-matches N`, the
//! workload of boardgame.io's load harness: see `peer_bench`.

mod deploy_bench;
mod move_stages;
mod peer_bench;
mod push_bench;
mod rooms_bench;

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::Semaphore;
use velha_api::{ClientMsg, Scope, ServerMsg};
use velha_load::steady::{next as next_random, pick};
use velha_load::{Client, Live};

use crate::move_stages::{Sent, now_us};
use velha_rules::{Cube, Player};

/// Load bench of the server: concurrent cube matches over real WebSockets.
#[derive(Parser)]
struct Args {
    /// Concurrent matches (twice as many players).
    #[arg(long, default_value_t = 1000)]
    matches: usize,
    /// Moves per match; then the player to move leaves (unless a line ended it first).
    #[arg(long, default_value_t = 40)]
    moves: u32,
    /// Cube level.
    #[arg(long, default_value_t = 2)]
    level: u8,
    /// Mean pause before each move, in milliseconds, spread evenly over half to one and a half
    /// times it so the matches do not move in step (0: as fast as the server answers).
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// PostgreSQL URL; default: SQLite in a temporary folder.
    #[arg(long)]
    database_url: Option<String>,
    /// Memory of each password hash in KiB, passed to the server (default: production's).
    #[arg(long, default_value_t = 19_456)]
    argon2_memory_kib: u32,
    /// The server binary; default: velha-server beside this one.
    #[arg(long)]
    server: Option<PathBuf>,
    /// Instead of cube matches: this many classic invitation rooms played at `--think-ms`,
    /// each watched by `--spectators` connections.
    #[arg(long, default_value_t = 0)]
    rooms: usize,
    /// Spectators per room.
    #[arg(long, default_value_t = 10)]
    spectators: usize,
    /// How long the rooms play, in seconds.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Instead: this many 5-move classic room games, the peer harness's workload.
    #[arg(long, default_value_t = 0)]
    peer_matches: usize,
    /// With --peer-matches: each player opens its room connection for each game and closes it
    /// after, as the peers' harnesses do (two connections, and over HTTPS two TLS handshakes, a
    /// game), rather than keeping it from game to game as the app does.
    #[arg(long, requires = "peer_matches")]
    sockets_per_match: bool,
    /// Peer games in flight at once.
    #[arg(long, default_value_t = 100)]
    concurrency: usize,
    /// Cube matches and rooms: server processes on the PostgreSQL of `--database-url`, behind
    /// nginx (scripts/balancer.sh, deploy/nginx.conf) when more than one.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=16))]
    processes: u16,
    /// Cube matches only: this many more players, each holding one idle live connection
    /// through the matches (the memory each costs is printed).
    #[arg(long, default_value_t = 0)]
    idle: usize,
    /// With `--idle`: that many of the idle players first open a match in the Mundial level-1
    /// lobby, and every idle player watches that lobby, as an app left on the lobby's screen
    /// does: what an idle connection costs once it was sent the list.
    #[arg(long, default_value_t = 0, requires = "idle")]
    idle_watching: usize,
    /// Behind nginx even with one process (compared with two or three).
    #[arg(long)]
    nginx: bool,
    /// The balancer's script (with `--processes` over 1, or `--nginx`).
    #[arg(long, default_value = "scripts/balancer.sh")]
    balancer: PathBuf,
    /// One process, spoken to over plain HTTP and WebSocket (`velha-server --plain-http`, as
    /// behind a balancer that ends TLS): the peer harness's transport.
    #[arg(long, conflicts_with_all = ["nginx", "processes"])]
    plain_http: bool,
    /// Each player's live sockets as streams of an HTTP/2 connection of its own (RFC 8441), as
    /// a browser opens them from a page served over HTTP/2, kept for that player's next
    /// matches (the started server offers HTTP/2: `velha-server --http2`); the default is a
    /// connection each, as over HTTP/1.1.
    #[arg(long, conflicts_with_all = ["plain_http", "nginx", "processes"])]
    http2: bool,
    /// Rooms or peer games only: play them against a deployment already running at this
    /// address (`https://host`, a load balancer or a compose stack) instead of starting a
    /// server. Its CPU and memory are then not measured.
    #[arg(long, conflicts_with_all = ["nginx", "processes", "plain_http", "server", "database_url"])]
    target: Option<String>,
    /// Instead: the push bench (push_bench.rs) on this many rooms per round, the bench being
    /// the push service.
    #[arg(long, default_value_t = 0, conflicts_with_all = ["target", "processes", "rooms", "peer_matches"])]
    push_rooms: usize,
    /// The push service the started server sends to (the push bench's own).
    #[arg(skip)]
    push_sink: Option<String>,
    /// Cube matches on `--processes` (two or more) behind nginx, each stopped with SIGTERM
    /// and started again in turn while the players play on (deploy_bench.rs).
    #[arg(long, conflicts_with_all = ["target", "rooms", "peer_matches", "push_rooms", "idle"])]
    rolling_deploy: bool,
    /// The started servers write each move's stages (`velha-server --trace-moves`), joined
    /// after the run with the bench's own send and receive times: where the moves' time went
    /// (peer games and cube matches).
    #[arg(long, conflicts_with = "target")]
    trace_moves: bool,
    /// The CPUs the started servers may run on (`taskset -c`), e.g. `0`: what one core's share
    /// holds.
    #[arg(long, conflicts_with = "target")]
    server_cpus: Option<String>,
    /// With `--target`: the certificates its certificate is checked against (PEM).
    #[arg(long, default_value = "/etc/ssl/certs/ca-certificates.crt")]
    ca: PathBuf,
}

impl Args {
    /// The players' live sockets over HTTP/2 with `--http2`.
    fn transport(&self, base: Client) -> Client {
        if self.http2 { base.over_http2() } else { base }
    }

    fn rooms_args(&self) -> rooms_bench::RoomsArgs {
        rooms_bench::RoomsArgs {
            rooms: self.rooms,
            spectators: self.spectators,
            think: Duration::from_millis(self.think_ms),
            play_for: Duration::from_secs(self.seconds),
        }
    }

    fn peer_args(&self) -> peer_bench::PeerArgs {
        peer_bench::PeerArgs {
            matches: self.peer_matches,
            concurrency: self.concurrency,
            sockets_per_match: self.sockets_per_match,
        }
    }
}

/// How long idle connections are watched for the CPU they cost: one round of the servers'
/// pings at the default silence limit.
const IDLE_WINDOW: Duration = Duration::from_secs(11);

/// Each server's move trace, in its folder.
const TRACE: &str = "moves.trace";

struct Pair {
    x: Live,
    o: Live,
    id: String,
}

#[derive(Default)]
struct Outcome {
    latencies_us: Vec<u64>,
    /// When each move was sent and the other player had it.
    sent: Vec<Sent>,
    moves: u64,
    finished: bool,
}

async fn own_answer(live: &mut Live) -> Result<ServerMsg, String> {
    live.recv_until(Duration::from_secs(120), |m| {
        matches!(
            m,
            ServerMsg::Moved { .. } | ServerMsg::Refused { .. } | ServerMsg::Ended { .. }
        )
    })
    .await
}

async fn play(mut pair: Pair, level: u8, moves: u32, think: Duration, seed: u64) -> Outcome {
    let mut out = Outcome::default();
    let mut cube =
        Cube::new(velha_rules::Level::from_number(level).unwrap_or(velha_rules::Level::One));
    let mut rng = seed | 1;
    for ply in 0..moves {
        if !think.is_zero() {
            let spread = 0.5 + (next_random(&mut rng) % 1000) as f64 / 1000.0;
            tokio::time::sleep(think.mul_f64(spread)).await;
        }
        let x_moves = cube.side_to_move() == Player::X;
        let (mover, other) = if x_moves {
            (&mut pair.x, &mut pair.o)
        } else {
            (&mut pair.o, &mut pair.x)
        };
        let actions = pick(&cube, &mut rng);
        let sent = Instant::now();
        let sent_us = now_us();
        let msg = ClientMsg::Play {
            match_id: pair.id.clone(),
            ply,
            actions,
        };
        if mover.send(&msg).await.is_err() {
            return out;
        }
        match own_answer(mover).await {
            Ok(ServerMsg::Moved {
                position, to_move, ..
            }) => {
                out.latencies_us.push(sent.elapsed().as_micros() as u64);
                out.moves += 1;
                let _ = own_answer(other).await;
                out.sent.push(Sent {
                    key: format!("match {} {ply}", pair.id),
                    sent: sent_us,
                    seen: now_us(),
                });
                match position.parse() {
                    Ok(c) => cube = c,
                    Err(_) => return out,
                }
                if to_move.is_none() {
                    out.finished = true;
                    return out;
                }
            }
            Ok(other_msg) => {
                eprintln!("move refused: {other_msg:?}");
                return out;
            }
            Err(e) => {
                eprintln!("no answer: {e}");
                return out;
            }
        }
    }
    let mover = if cube.side_to_move() == Player::X {
        &mut pair.x
    } else {
        &mut pair.o
    };
    let leave = ClientMsg::Leave {
        match_id: pair.id.clone(),
    };
    if mover.send(&leave).await.is_ok() {
        out.finished = matches!(own_answer(mover).await, Ok(ServerMsg::Ended { .. }));
    }
    out
}

/// A memory figure of the process from /proc (`VmHWM`: peak, `VmRSS`: now), in KiB.
pub(crate) fn memory_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn peak_memory_kib(pid: u32) -> Option<u64> {
    memory_kib(pid, "VmHWM:")
}

/// User plus system CPU seconds the process has used.
pub(crate) fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // Linux reports in clock ticks of 1/100 s (USER_HZ) on every common platform.
    Some(ticks / 100.0)
}

pub(crate) fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

async fn setup_player(base: &Client, name: String) -> Result<Client, String> {
    let mut c = base.another();
    c.sign_up(
        &format!("{name}@load.test"),
        "carga-gira-cubo-9",
        &name,
        "pt-BR",
    )
    .await
    .map_err(|e| format!("sign up {name}: {e}"))?;
    Ok(c)
}

/// The servers under test, started for the bench.
struct Started {
    children: Vec<tokio::process::Child>,
    pids: Vec<u32>,
    /// nginx in front of them, when more than one.
    balancer: Option<tokio::process::Child>,
    base: Client,
    db_url: String,
    dir: PathBuf,
    server_bin: PathBuf,
    /// Each process's address, where it is started again.
    listen: Vec<String>,
}

impl Started {
    /// Grants these players a subscription as an operator does, through the server's admin
    /// command on its database, a few hundred names a run.
    async fn grant(&self, names: &[String]) -> Result<(), String> {
        for some in names.chunks(500) {
            let out = tokio::process::Command::new(&self.server_bin)
                .arg("--data-dir")
                .arg(self.dir.join("server-1"))
                .args(["admin", "subscription", "grant", "--until", "2999-12-31"])
                .args(some)
                .env("DATABASE_URL", &self.db_url)
                .env("RUST_LOG", "error")
                .output()
                .await
                .map_err(|e| format!("cannot run {}: {e}", self.server_bin.display()))?;
            if !out.status.success() {
                return Err(format!(
                    "granting subscriptions failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        Ok(())
    }

    /// The servers' move traces, when asked for.
    fn traces(&self, args: &Args) -> Vec<PathBuf> {
        if !args.trace_moves {
            return Vec::new();
        }
        (1..=self.children.len())
            .map(|n| self.dir.join(format!("server-{n}")).join(TRACE))
            .collect()
    }

    /// Starts process `i` again, on its port and data, after it stopped.
    async fn respawn(&mut self, args: &Args, i: usize) -> Result<(), String> {
        let first = self.dir.join("server-1");
        let (child, _) = start_one(
            args,
            &self.server_bin,
            &self.dir.join(format!("server-{}", i + 1)),
            &self.db_url,
            (i > 0).then_some(first.as_path()),
            &self.listen[i],
        )
        .await?;
        self.pids[i] = child.id().unwrap_or(0);
        self.children[i] = child;
        Ok(())
    }

    async fn stop(mut self) {
        if let Some(nginx) = &self.balancer
            && let Some(pid) = nginx.id()
        {
            // SIGTERM: nginx's master stops its workers too.
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
        }
        if let Some(mut nginx) = self.balancer.take() {
            let _ = nginx.wait().await;
        }
        for child in &mut self.children {
            let _ = child.kill().await;
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts one server process in `dir`; its address.
async fn start_one(
    args: &Args,
    server_bin: &std::path::Path,
    dir: &std::path::Path,
    db_url: &str,
    tls_from: Option<&std::path::Path>,
    listen: &str,
) -> Result<(tokio::process::Child, String), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut command = match &args.server_cpus {
        // taskset execs the server: the child's pid is the server's.
        Some(cpus) => {
            let mut c = tokio::process::Command::new("taskset");
            c.args(["-c", cpus]).arg(server_bin);
            c
        }
        None => tokio::process::Command::new(server_bin),
    };
    command
        .args(["--listen", listen, "--argon2-memory-kib"])
        .arg(args.argon2_memory_kib.to_string())
        .args([
            "--move-time-ms",
            // A deploy is played on the real clock, so a match it made lose on time shows.
            if args.rolling_deploy {
                "60000"
            } else {
                "600000"
            },
            "--signups-per-address-per-hour",
            "100000000",
            "--rooms-per-address-per-hour",
            "100000000",
            "--forwarded-for-header",
            "x-forwarded-for",
        ])
        .arg("--data-dir")
        .arg(dir);
    if args.plain_http {
        command.arg("--plain-http");
    }
    if args.http2 {
        command.arg("--http2");
    }
    if args.trace_moves {
        command.arg("--trace-moves").arg(dir.join(TRACE));
    }
    if let Some(sink) = &args.push_sink {
        command.args(["--push-services", sink]);
    }
    if let Some(first) = tls_from {
        command
            .arg("--tls-cert")
            .arg(first.join("dev-cert.pem"))
            .arg("--tls-key")
            .arg(first.join("dev-key.pem"));
    }
    let mut child = command
        .env("DATABASE_URL", db_url)
        .env("RUST_LOG", "error")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", server_bin.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let line = BufReader::new(stdout)
        .lines()
        .next_line()
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the server exited")?;
    let base = line
        .strip_prefix("velha-server listening on ")
        .ok_or_else(|| format!("unexpected {line:?}"))?
        .to_owned();
    Ok((child, base))
}

async fn start_servers(args: &Args) -> Result<Started, String> {
    let dir = std::env::temp_dir().join(format!("velha-load-{}", std::process::id()));
    let server_bin = match &args.server {
        Some(p) => p.clone(),
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("velha-server"),
    };
    if !server_bin.is_file() {
        return Err(format!(
            "no server at {}: build it beside this bench (`cargo build -p velha-server -p velha-load`, \
             with --release for both or neither) or name it with --server",
            server_bin.display()
        ));
    }
    let db_url = args
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite://{}?mode=rwc", dir.join("velha.db").display()));
    if args.processes > 1 && !db_url.starts_with("postgres") {
        return Err("several processes share one PostgreSQL: give --database-url".into());
    }
    let first_dir = dir.join("server-1");
    let mut children = Vec::new();
    let mut bases = Vec::new();
    for n in 1..=args.processes {
        let tls_from = (n > 1).then_some(first_dir.as_path());
        let (child, base) = start_one(
            args,
            &server_bin,
            &dir.join(format!("server-{n}")),
            &db_url,
            tls_from,
            "127.0.0.1:0",
        )
        .await?;
        children.push(child);
        bases.push(base);
    }
    let pids = children.iter().map(|c| c.id().unwrap_or(0)).collect();
    let cert = if args.plain_http {
        Vec::new()
    } else {
        std::fs::read(first_dir.join("dev-cert.pem")).map_err(|e| e.to_string())?
    };
    let (base, balancer) = if args.processes > 1 || args.nginx {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let nginx = tokio::process::Command::new("bash")
            .arg(&args.balancer)
            .arg(dir.join("nginx"))
            .arg(port.to_string())
            .arg(first_dir.join("dev-cert.pem"))
            .arg(first_dir.join("dev-key.pem"))
            .args(bases.iter().filter_map(|b| b.rsplit(':').next()))
            // Every player of the bench connects from this machine's address: nginx's
            // largest limit (it refuses to start with 65 536 or more).
            .env("VELHA_CONNECTIONS_PER_ADDRESS", "65535")
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start nginx: {e}"))?;
        let mut up = false;
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                up = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if !up {
            return Err("nginx did not listen within 5 s".into());
        }
        (format!("https://127.0.0.1:{port}"), Some(nginx))
    } else {
        (bases[0].clone(), None)
    };
    let listen = bases
        .iter()
        .map(|b| b.rsplit("://").next().unwrap_or(b).to_owned())
        .collect();
    Ok(Started {
        listen,
        children,
        pids,
        balancer,
        base: Client::new(&base, &cert)?,
        db_url,
        dir,
        server_bin,
    })
}

/// The servers' resident memory now, summed, in KiB.
fn resident_kib(pids: &[u32]) -> Option<u64> {
    pids.iter().map(|p| memory_kib(*p, "VmRSS:")).sum()
}

/// CPU seconds of every process whose name is `comm` (PostgreSQL's, nginx's), summed.
fn cpu_seconds_named(comm: &str) -> f64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == comm)
        })
        .filter_map(cpu_seconds)
        .sum()
}

/// CPU seconds of the servers, PostgreSQL, nginx and this bench.
fn machine_cpu(pids: &[u32]) -> [f64; 4] {
    [
        cpu_seconds_all(pids).unwrap_or(0.0),
        cpu_seconds_named("postgres"),
        cpu_seconds_named("nginx"),
        cpu_seconds(std::process::id()).unwrap_or(0.0),
    ]
}

/// The whole machine's CPU seconds since it started (`/proc/stat`): busy, whatever ran; taken
/// by its host for other guests (steal); and all its cores gave. They say whether a run slower
/// than another on the same build had the machine to itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MachineTime {
    busy: f64,
    stolen: f64,
    all: f64,
}

impl MachineTime {
    pub(crate) fn now() -> Option<MachineTime> {
        MachineTime::read(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// What `/proc/stat`'s first line counts.
    fn read(stat: &str) -> Option<MachineTime> {
        let ticks: Vec<f64> = stat
            .lines()
            .next()?
            .strip_prefix("cpu ")?
            .split_whitespace()
            .map(|t| t.parse().ok())
            .collect::<Option<_>>()?;
        // In clock ticks of 1/100 s; a guest's own guests are counted in user and nice.
        let [user, nice, system, idle, iowait, irq, softirq, steal, ..] = ticks[..] else {
            return None;
        };
        let busy = user + nice + system + irq + softirq;
        Some(MachineTime {
            busy: busy / 100.0,
            stolen: steal / 100.0,
            all: (busy + idle + iowait + steal) / 100.0,
        })
    }

    /// What the machine did from `before` to this.
    pub(crate) fn since(self, before: MachineTime) -> String {
        format!(
            "busy {:.1} s of the {:.1} its cores gave (everything running on it), taken by its host {:.1} s (steal)",
            self.busy - before.busy,
            self.all - before.all,
            self.stolen - before.stolen
        )
    }
}

/// The servers' CPU seconds, summed (none without servers).
pub(crate) fn cpu_seconds_all(pids: &[u32]) -> Option<f64> {
    if pids.is_empty() {
        return None;
    }
    pids.iter().map(|p| cpu_seconds(*p)).sum()
}

/// A memory figure of the servers, summed, in KiB (none without servers).
pub(crate) fn memory_kib_all(pids: &[u32], field: &str) -> Option<u64> {
    if pids.is_empty() {
        return None;
    }
    pids.iter().map(|p| memory_kib(*p, field)).sum()
}

// The client shares the machine with the server it measures: glibc's malloc took about a
// fifth of its CPU (page faults and free-list upkeep), CPU the server's moves then waited for.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), String> {
    let args = Args::parse();
    // The peer workload's client runs on one thread, as boardgame.io's (node) does: one
    // thread holds its 200 connections on less than a core, without the wake-ups between
    // threads that took CPU from the server it measures. The cube benches drive thousands
    // of connections flat out and use every core.
    let mut runtime = if args.peer_matches > 0 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = runtime.enable_all().build().map_err(|e| e.to_string())?;
    runtime.block_on(bench(args))
}

async fn bench(args: Args) -> Result<(), String> {
    if args.processes > 1 && args.peer_matches > 0 {
        return Err("--processes is for cube matches and rooms".into());
    }
    if let Some(target) = &args.target {
        let ca = std::fs::read(&args.ca)
            .map_err(|e| format!("cannot read --ca {}: {e}", args.ca.display()))?;
        let base = args.transport(Client::new(target, &ca)?);
        return if args.rooms > 0 {
            rooms_bench::run(&base, &[], &args.rooms_args()).await
        } else if args.peer_matches > 0 {
            peer_bench::run(&base, &[], &args.peer_args(), &[]).await
        } else {
            Err("--target plays rooms (--rooms) or peer games (--peer-matches): cube matches need accounts made in the server's database".into())
        };
    }
    if args.push_rooms > 0 {
        let sink = push_bench::Sink::start().await?;
        let mut args = args;
        args.push_sink = Some(sink.url.clone());
        let started = start_servers(&args).await?;
        let result = push_bench::run(&started.base, &sink, args.push_rooms).await;
        started.stop().await;
        return result;
    }
    if args.rolling_deploy && (args.processes < 2 || args.database_url.is_none()) {
        return Err("--rolling-deploy needs --processes 2 or more and --database-url".into());
    }
    let started = start_servers(&args).await?;
    if args.rolling_deploy {
        return deploy_bench::run(&args, started).await;
    }
    let (pids, base, db_url) = (
        started.pids.clone(),
        args.transport(started.base.clone()),
        started.db_url.clone(),
    );
    if args.rooms > 0 || args.peer_matches > 0 {
        let result = if args.rooms > 0 {
            rooms_bench::run(&base, &pids, &args.rooms_args()).await
        } else {
            let traces = started.traces(&args);
            peer_bench::run(&base, &pids, &args.peer_args(), &traces).await
        };
        started.stop().await;
        return result;
    }
    let n = args.matches;
    let backend = if db_url.starts_with("postgres") {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    println!(
        "velha-load: {n} concurrent matches, level {}, {} moves each, think {} ms, {backend}, {} server process{}{}",
        args.level,
        args.moves,
        args.think_ms,
        args.processes,
        if args.processes > 1 { "es" } else { "" },
        if args.processes > 1 || args.nginx {
            " behind nginx"
        } else {
            ""
        }
    );

    // Players: sign up, subscribe, connect.
    let t = Instant::now();
    let gate = Arc::new(Semaphore::new(64));
    let mut tasks = Vec::with_capacity(2 * n);
    let everyone = 2 * n + args.idle;
    for i in 0..everyone {
        let base = base.clone();
        let gate = gate.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire().await;
            setup_player(&base, format!("player{i}")).await
        }));
    }
    let mut players = Vec::with_capacity(everyone);
    for t in tasks {
        players.push(t.await.map_err(|e| e.to_string())??);
    }
    let idle_players = players.split_off(2 * n);
    let names: Vec<String> = (0..everyone).map(|i| format!("player{i}")).collect();
    started.grant(&names).await?;
    let signed_up = t.elapsed();

    // The idle connections, and what each costs the servers; opened before the matches, whose
    // connections are not read until they play (on one core, 20 000 connections take longer
    // to open than the servers' silence limit).
    let mut idle = Vec::with_capacity(idle_players.len());
    if args.idle_watching > idle_players.len() {
        return Err("--idle-watching counts idle players: at most --idle".into());
    }
    for opener in &idle_players[..args.idle_watching] {
        opener
            .create(Scope::Mundial, 1)
            .await
            .map_err(|e| format!("opening a match to watch: {e}"))?;
    }
    let watching = args.idle_watching > 0;
    if !idle_players.is_empty() {
        let before = resident_kib(&pids);
        let t = Instant::now();
        let tasks: Vec<_> = idle_players
            .into_iter()
            .map(|p| {
                let gate = gate.clone();
                tokio::spawn(async move {
                    let _permit = gate.acquire().await;
                    let mut live = p.live().await?;
                    live.recv(Duration::from_secs(60)).await?;
                    let mut list_bytes = 0;
                    if watching {
                        live.send(&ClientMsg::WatchLobby {
                            scope: Scope::Mundial,
                            level: 1,
                            group: None,
                        })
                        .await?;
                        let list = live
                            .recv_until(Duration::from_secs(60), |m| {
                                matches!(m, ServerMsg::Lobby { .. })
                            })
                            .await?;
                        list_bytes = serde_json::to_string(&list).map_or(0, |t| t.len());
                    }
                    // Reading answers the server's pings, as an app's idle page does: a
                    // connection that says nothing is closed (`--silence-ms`).
                    Ok::<_, String>((
                        tokio::spawn(async move {
                            while live.recv(Duration::from_secs(3600)).await.is_ok() {}
                        }),
                        list_bytes,
                    ))
                })
            })
            .collect();
        let mut list_bytes = 0;
        for task in tasks {
            let (reader, bytes) = task.await.map_err(|e| e.to_string())??;
            idle.push(reader);
            list_bytes = list_bytes.max(bytes);
        }
        if watching {
            println!(
                "idle: each watching the Mundial level-1 lobby of {} open matches (its list {:.1} KiB)",
                args.idle_watching,
                list_bytes as f64 / 1024.0
            );
        }
        let opened_in = t.elapsed();
        // Settled: what the connections still hold once their greeting is sent.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let after = resident_kib(&pids);
        // A server pings a connection silent for a third of its silence limit (10 s by
        // default): over that long every idle connection is pinged once.
        let cpu_before = cpu_seconds_all(&pids);
        tokio::time::sleep(IDLE_WINDOW).await;
        let idle_cpu = cpu_seconds_all(&pids).zip(cpu_before).map(|(a, b)| a - b);
        println!(
            "idle: {} more WebSockets in {:.1} s ({} in all); the servers' memory {}",
            idle.len(),
            opened_in.as_secs_f64(),
            idle.len() + 2 * n,
            match (before, after) {
                (Some(b), Some(a)) => format!(
                    "{:.1} → {:.1} MiB: {:.1} KiB each",
                    b as f64 / 1024.0,
                    a as f64 / 1024.0,
                    a.saturating_sub(b) as f64 / idle.len() as f64
                ),
                _ => "unavailable (no /proc)".to_owned(),
            }
        );
        if let Some(cpu) = idle_cpu {
            println!(
                "idle: the servers' CPU over {} s of idle connections (each pinged once): {cpu:.2} s, {:.1} % of one core",
                IDLE_WINDOW.as_secs(),
                100.0 * cpu / IDLE_WINDOW.as_secs_f64()
            );
        }
    }

    let t = Instant::now();
    let mut tasks = Vec::with_capacity(n);
    let mut iter = players.into_iter();
    while let (Some(x), Some(o)) = (iter.next(), iter.next()) {
        let gate = gate.clone();
        let level = args.level;
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire().await;
            let mut xl = x.live().await?;
            let mut ol = o.live().await?;
            for l in [&mut xl, &mut ol] {
                l.recv(Duration::from_secs(60)).await?;
            }
            let open = x
                .create(Scope::Mundial, level)
                .await
                .map_err(|e| e.to_string())?;
            o.join(&open.id).await.map_err(|e| e.to_string())?;
            for l in [&mut xl, &mut ol] {
                l.recv_until(Duration::from_secs(60), |m| {
                    matches!(m, ServerMsg::Started { .. })
                })
                .await?;
            }
            Ok::<Pair, String>(Pair {
                x: xl,
                o: ol,
                id: open.id,
            })
        }));
    }
    let mut pairs = Vec::with_capacity(n);
    for t in tasks {
        pairs.push(t.await.map_err(|e| e.to_string())??);
    }
    let met = t.elapsed();
    println!(
        "setup: {everyone} accounts in {:.1} s ({:.0} sign-ups/s, argon2id {} KiB); {} WebSockets and {n} live matches in {:.1} s",
        signed_up.as_secs_f64(),
        everyone as f64 / signed_up.as_secs_f64(),
        args.argon2_memory_kib,
        2 * n,
        met.as_secs_f64()
    );

    let t = Instant::now();
    let cpu_before = cpu_seconds_all(&pids);
    let machine_before = machine_cpu(&pids);
    let whole_before = MachineTime::now();
    let think = Duration::from_millis(args.think_ms);
    let tasks: Vec<_> = pairs
        .into_iter()
        .enumerate()
        .map(|(i, pair)| {
            let (level, moves) = (args.level, args.moves);
            tokio::spawn(play(
                pair,
                level,
                moves,
                think,
                0x9E37_79B9_7F4A_7C15 ^ (i as u64 * 7919),
            ))
        })
        .collect();
    let mut latencies = Vec::new();
    let mut sent = Vec::new();
    let (mut moves, mut finished) = (0u64, 0u64);
    for task in tasks {
        let o = task.await.map_err(|e| e.to_string())?;
        latencies.extend(o.latencies_us);
        sent.extend(o.sent);
        moves += o.moves;
        finished += u64::from(o.finished);
    }
    let secs = t.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let cpu = cpu_seconds_all(&pids).zip(cpu_before).map(|(a, b)| a - b);
    println!("play: {moves} moves and {finished} finished matches in {secs:.1} s");
    println!(
        "throughput: {:.0} moves/s, {:.1} matches/s",
        moves as f64 / secs,
        finished as f64 / secs
    );
    println!(
        "move latency (send to acknowledgement): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0)
    );
    if let Some(cpu) = cpu {
        println!(
            "server CPU while playing: {cpu:.1} s in {secs:.1} s ({:.0} % of one core; this machine has {} cores shared with the bench)",
            100.0 * cpu / secs,
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
    }
    let machine_after = machine_cpu(&pids);
    let used: Vec<f64> = machine_after
        .iter()
        .zip(machine_before)
        .map(|(a, b)| a - b)
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "the machine's CPU while playing (s): servers {:.1}, PostgreSQL {:.1}, nginx {:.1}, this bench {:.1}; {:.1} of the {:.1} its {cores} cores give",
        used[0],
        used[1],
        used[2],
        used[3],
        used.iter().sum::<f64>(),
        cores as f64 * secs
    );
    if let Some((now, before)) = MachineTime::now().zip(whole_before) {
        println!("the whole machine while playing: {}", now.since(before));
    }
    for (i, pid) in pids.iter().enumerate() {
        match (peak_memory_kib(*pid), memory_kib(*pid, "VmRSS:")) {
            (Some(peak), Some(now)) => println!(
                "server process {}: peak memory (VmHWM) {:.1} MiB, now {:.1} MiB",
                i + 1,
                peak as f64 / 1024.0,
                now as f64 / 1024.0
            ),
            _ => println!("server process {}: memory unavailable (no /proc)", i + 1),
        }
    }
    let traces = started.traces(&args);
    move_stages::report(&sent, &traces).await?;
    for reader in idle {
        reader.abort();
    }
    started.stop().await;
    if finished < n as u64 {
        return Err(format!("only {finished} of {n} matches finished"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::MachineTime;

    #[test]
    fn the_machines_busy_stolen_and_whole_time_is_read_from_its_first_line() {
        let stat = "cpu  5502215 522120 1423735 4779436 104587 0 163870 21161 0 0\n\
                    cpu0 2751107 261060 711867 2389718 52293 0 81935 10580 0 0\n";
        let t = MachineTime::read(stat).unwrap();
        assert!((t.busy - 76_119.40).abs() < 1e-6, "{t:?}");
        assert!((t.stolen - 211.61).abs() < 1e-6, "{t:?}");
        assert!((t.all - 125_171.24).abs() < 1e-6, "{t:?}");
        let later = MachineTime {
            busy: t.busy + 61.1,
            stolen: t.stolen + 0.2,
            all: t.all + 149.7,
        };
        assert_eq!(
            later.since(t),
            "busy 61.1 s of the 149.7 its cores gave (everything running on it), taken by its host 0.2 s (steal)"
        );
        // An older kernel's line without steal, or anything else, is no figure.
        assert_eq!(MachineTime::read("cpu  1 2 3 4 5 6 7\n"), None);
        assert_eq!(MachineTime::read("cpu0 1 2 3 4 5 6 7 8\n"), None);
        assert_eq!(MachineTime::read("cpu  1 2 x 4 5 6 7 8\n"), None);
        assert_eq!(MachineTime::read(""), None);
    }
}
