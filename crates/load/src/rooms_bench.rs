//! The rooms bench: N classic invitation rooms, each with its two players and K spectators on
//! the room's WebSocket, played at people's pace (a move every `--think-ms` on average, over
//! HTTPS as the app does; a rematch after every game) for `--seconds`. Every spectator stamps
//! when each move reaches it: the move-to-spectator latency is from the moment the move was
//! sent to that arrival. Prints the latency percentiles, the moves and deliveries (and any
//! missed), and the server's memory: idle per connection, and at its peak.
//!
//! `…/release/velha-load --rooms 1000 --spectators 10 --think-ms 3000 --seconds 60`

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use velha_api::{RoomAct, RoomBoard, RoomServerMsg, RoomView, Seat};
use velha_load::{Client, RoomLive};
use velha_rules::{Classic, Position};

use crate::{cpu_seconds_all, memory_kib_all, next_random, percentile};

/// What the rooms bench runs.
pub struct RoomsArgs {
    /// Rooms.
    pub rooms: usize,
    /// Spectators per room.
    pub spectators: usize,
    /// Mean pause before each move.
    pub think: Duration,
    /// How long the rooms play.
    pub play_for: Duration,
}

/// When each move of a room was sent, by (game, ply) as spectators see it.
type Sent = Arc<Mutex<HashMap<(u32, u32), Instant>>>;

/// One room ready to play: its id, both credentials, its sockets.
struct Room {
    id: String,
    x: String,
    o: String,
    sockets: Vec<RoomLive>,
    /// The room as the join left it.
    view: RoomView,
}

/// The move a view shows as its last: (game, ply), with the game that just ended counted as
/// the one it was.
fn move_key(view: &RoomView) -> Option<(u32, u32)> {
    let game = if view.ending.is_some() {
        view.games.checked_sub(1)?
    } else {
        view.games
    };
    (view.ply > 0).then_some((game, view.ply))
}

async fn first_view(live: &mut RoomLive) -> Result<(), String> {
    live.recv_until(Duration::from_secs(60), |m| {
        matches!(m, RoomServerMsg::Room { .. })
    })
    .await
    .map(drop)
}

async fn open_room(base: &Client, spectators: usize) -> Result<Room, String> {
    let made = base
        .create_room(RoomBoard::Classic, "Ana", Some(velha_api::Avatar::Nino))
        .await
        .map_err(|e| format!("create a room: {e}"))?;
    let id = made.room.id.clone();
    let seat = base
        .join_room(&id, "Bia", Some(velha_api::Avatar::Rabisco))
        .await
        .map_err(|e| format!("join a room: {e}"))?;
    let mut sockets = Vec::with_capacity(spectators + 2);
    for credential in [made.credential.as_str(), seat.credential.as_str()] {
        sockets.push(base.room_live(&id, credential).await?);
    }
    for _ in 0..spectators {
        sockets.push(base.room_live(&id, "").await?);
    }
    for live in &mut sockets {
        first_view(live).await?;
    }
    Ok(Room {
        id,
        x: made.credential,
        o: seat.credential,
        sockets,
        view: seat.room,
    })
}

/// A spectator: stamps the first arrival of every move until `until`.
async fn watch(mut live: RoomLive, sent: Sent, until: Instant) -> Vec<u64> {
    let mut seen = HashSet::new();
    let mut latencies = Vec::new();
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match live.recv(left).await {
            Ok(RoomServerMsg::Room { room }) => {
                let arrived = Instant::now();
                if let Some(key) = move_key(&room)
                    && seen.insert(key)
                    && let Some(at) = sent.lock().ok().and_then(|s| s.get(&key).copied())
                {
                    latencies.push(arrived.duration_since(at).as_micros() as u64);
                }
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    live.close().await;
    latencies
}

/// The players: a move at a time at people's pace, a rematch after each game; the moves made.
async fn play(base: Client, room: Room, sent: Sent, a: &RoomsArgs, seed: u64) -> u64 {
    let deadline = Instant::now() + a.play_for;
    let mut rng = seed | 1;
    let mut moves = 0;
    let mut view = room.view.clone();
    while Instant::now() < deadline {
        let spread = 0.5 + (next_random(&mut rng) % 1000) as f64 / 1000.0;
        tokio::time::sleep(a.think.mul_f64(spread)).await;
        if view.ending.is_some() {
            for credential in [&room.x, &room.o] {
                match base.room_act(&room.id, credential, RoomAct::Rematch).await {
                    Ok(v) => view = v,
                    Err(e) => eprintln!("rematch refused: {e}"),
                }
            }
            continue;
        }
        let Ok(board) = view.position.parse::<Classic>() else {
            return moves;
        };
        let legal: Vec<_> = board.legal_actions().into_iter().collect();
        if legal.is_empty() {
            return moves;
        }
        let cell = legal[(next_random(&mut rng) % legal.len() as u64) as usize];
        let credential = match view.to_move {
            Some(Seat::X) => &room.x,
            _ => &room.o,
        };
        let key = (view.games, view.ply + 1);
        if let Ok(mut s) = sent.lock() {
            s.insert(key, Instant::now());
        }
        let act = RoomAct::Play {
            cell: cell.to_string(),
        };
        match base.room_act(&room.id, credential, act).await {
            Ok(v) => {
                view = v;
                moves += 1;
            }
            Err(e) => {
                eprintln!("move refused: {e}");
                return moves;
            }
        }
    }
    moves
}

/// Runs the rooms bench against the servers at `base` (processes `pids`, none when they do
/// not run here): their memory and CPU are summed.
pub async fn run(base: &Client, pids: &[u32], a: &RoomsArgs) -> Result<(), String> {
    let connections = a.rooms * (a.spectators + 2);
    println!(
        "velha-load rooms: {} classic rooms, 2 players and {} spectators each ({connections} WebSockets), a move every {} ms on average, {} s",
        a.rooms,
        a.spectators,
        a.think.as_millis(),
        a.play_for.as_secs()
    );
    let before = memory_kib_all(pids, "VmRSS:");
    let servers = match pids.len() {
        1 => "server".to_owned(),
        n => format!("{n} servers' summed"),
    };
    let t = Instant::now();
    let gate = Arc::new(Semaphore::new(64));
    let tasks: Vec<_> = (0..a.rooms)
        .map(|_| {
            let (base, gate, k) = (base.clone(), gate.clone(), a.spectators);
            tokio::spawn(async move {
                let _permit = gate.acquire().await;
                open_room(&base, k).await
            })
        })
        .collect();
    let mut rooms = Vec::with_capacity(a.rooms);
    for task in tasks {
        rooms.push(task.await.map_err(|e| e.to_string())??);
    }
    // Idle: every connection open and every room's first view delivered.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle = memory_kib_all(pids, "VmRSS:");
    println!(
        "setup: {} rooms and {connections} WebSockets in {:.1} s",
        a.rooms,
        t.elapsed().as_secs_f64()
    );
    if let (Some(b), Some(i)) = (before, idle) {
        println!(
            "{servers} memory idle: {:.1} MiB with every connection open (from {:.1} MiB): {:.1} KiB a connection, rooms included",
            i as f64 / 1024.0,
            b as f64 / 1024.0,
            i.saturating_sub(b) as f64 / connections as f64
        );
    }

    let cpu_before = cpu_seconds_all(pids);
    let t = Instant::now();
    let watch_until = t + a.play_for + a.think * 2 + Duration::from_secs(5);
    let mut watchers = Vec::with_capacity(a.rooms * a.spectators);
    let mut players = Vec::with_capacity(a.rooms);
    let shared = Arc::new(RoomsArgs { ..*a });
    for (i, mut room) in rooms.into_iter().enumerate() {
        let sent: Sent = Arc::default();
        // Spectators stamp the moves; the players' own sockets are read as the app reads them.
        for live in room.sockets.drain(2..) {
            watchers.push(tokio::spawn(watch(live, sent.clone(), watch_until)));
        }
        for live in room.sockets.drain(..) {
            tokio::spawn(watch(live, Sent::default(), watch_until));
        }
        let (base, args) = (base.clone(), shared.clone());
        players.push(tokio::spawn(async move {
            play(base, room, sent, &args, 0x9E37_79B9 ^ (i as u64 * 7919)).await
        }));
    }
    let mut moves = 0;
    for p in players {
        moves += p.await.map_err(|e| e.to_string())?;
    }
    let played = t.elapsed().as_secs_f64();
    let mut latencies = Vec::new();
    for w in watchers {
        latencies.extend(w.await.map_err(|e| e.to_string())?);
    }
    latencies.sort_unstable();
    let expected = moves * a.spectators as u64;
    let cpu = cpu_seconds_all(pids).zip(cpu_before).map(|(x, y)| x - y);
    println!(
        "play: {moves} moves in {played:.1} s ({:.0} moves/s); {} deliveries to spectators of {expected} ({} missed)",
        moves as f64 / played,
        latencies.len(),
        expected.saturating_sub(latencies.len() as u64)
    );
    println!(
        "move-to-spectator latency: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0)
    );
    if let Some(cpu) = cpu {
        println!(
            "{servers} CPU while playing: {cpu:.1} s in {played:.1} s ({:.0} % of one core)",
            100.0 * cpu / played
        );
    }
    if let Some(kib) = memory_kib_all(pids, "VmHWM:") {
        println!(
            "{servers} peak memory (VmHWM): {:.1} MiB",
            kib as f64 / 1024.0
        );
    }
    if (latencies.len() as u64) < expected {
        return Err(format!(
            "{} of {expected} moves never reached a spectator",
            expected - latencies.len() as u64
        ));
    }
    Ok(())
}
