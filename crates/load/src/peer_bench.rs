//! The peer workload (`--peer-matches N --concurrency C`): the same game boardgame.io's load
//! harness plays (`../shared/peers/bgio`), on a classic invitation room — create, join, both
//! players on a room WebSocket, X:a1 O:b1 X:a2 O:b2 X:a3 (X wins), each move sent once the
//! mover's own connection shows its turn. Players keep their room connection for their next
//! match and move it to the new room (`enter`), as the app does; or (`--sockets-per-match`)
//! open and close it with each match, as the peers' harnesses do. Move latency is from sending a move
//! to the other player's connection showing it. Prints the harness's two JSON lines, so
//! `scripts/bench-peers.sh` reads both servers' figures the same way.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;
use velha_api::{Avatar, RoomAct, RoomBoard, RoomClientMsg, RoomServerMsg, RoomView, Seat};
use velha_load::{Client, RoomLive};

use crate::move_stages::{self, Sent, now_us};
use crate::{MachineTime, cpu_seconds_all, memory_kib_all, percentile};

/// The fixed game: X wins on the first column.
const GAME: [(Seat, &str); 5] = [
    (Seat::X, "a1"),
    (Seat::O, "b1"),
    (Seat::X, "a2"),
    (Seat::O, "b2"),
    (Seat::X, "a3"),
];

/// How long any one wait in a match may take before that match counts as failed.
const STEP: Duration = Duration::from_secs(30);

/// The room as `live` next shows it, once `wanted` holds.
async fn room_at(
    live: &mut RoomLive,
    wanted: impl Fn(&RoomView) -> bool,
) -> Result<RoomView, String> {
    match live
        .recv_until(
            STEP,
            |m| matches!(m, RoomServerMsg::Room { room } if wanted(room)),
        )
        .await?
    {
        RoomServerMsg::Room { room } => Ok(room),
        _ => unreachable!(),
    }
}

/// Player `who`'s room connection in room `id`, having shown the room ready for X's first
/// move: the one it kept from its last match, moved here, or (at its first match) a new one.
async fn in_room<'a>(
    player: &Client,
    kept: &'a mut Option<RoomLive>,
    id: &str,
    credential: &str,
) -> Result<&'a mut RoomLive, String> {
    let live = match kept {
        Some(live) => {
            live.send(&RoomClientMsg::Enter {
                room: id.to_owned(),
                credential: credential.to_owned(),
            })
            .await?;
            live
        }
        None => kept.insert(player.room_live(id, credential).await?),
    };
    room_at(live, |r| r.id == id && r.to_move == Some(Seat::X)).await?;
    Ok(live)
}

/// One whole match: the latencies of its five moves, in microseconds, and when each was sent
/// and seen. Each player plays on the room connection `lives` keeps for them from match to
/// match, as the app keeps one for every room it opens; a connection that failed is dropped,
/// and the next match opens another.
async fn one_match(
    players: &[Client; 2],
    lives: &mut [Option<RoomLive>; 2],
) -> Result<(Vec<u64>, Vec<Sent>), String> {
    let played = play_match(players, lives).await;
    if played.is_err() {
        *lives = [None, None];
    }
    played
}

async fn play_match(
    players: &[Client; 2],
    lives: &mut [Option<RoomLive>; 2],
) -> Result<(Vec<u64>, Vec<Sent>), String> {
    let made = players[0]
        .create_room(RoomBoard::Classic, "X", Some(Avatar::Nino))
        .await
        .map_err(|e| e.to_string())?;
    let id = made.room.id.clone();
    let seat = players[1]
        .join_room(&id, "O", Some(Avatar::Rabisco))
        .await
        .map_err(|e| e.to_string())?;
    let [kept_x, kept_o] = lives;
    let x = in_room(&players[0], kept_x, &id, &made.credential).await?;
    let o = in_room(&players[1], kept_o, &id, &seat.credential).await?;
    let mut latencies = Vec::with_capacity(GAME.len());
    let mut stamps = Vec::with_capacity(GAME.len());
    let mut last = Vec::new();
    for (ply, (by, cell)) in GAME.iter().enumerate() {
        let (mover, other) = match by {
            Seat::X => (&mut *x, &mut *o),
            Seat::O => (&mut *o, &mut *x),
        };
        let sent = Instant::now();
        let sent_us = now_us();
        mover
            .send(&RoomClientMsg::Act {
                act: RoomAct::Play {
                    cell: (*cell).to_owned(),
                },
            })
            .await?;
        let want = ply as u32 + 1;
        // The other player's connection shows the move: the latency; then the mover's.
        let seen = room_at(other, |r| r.id == id && r.ply == want).await?;
        latencies.push(sent.elapsed().as_micros() as u64);
        stamps.push(Sent {
            key: format!("room {id} {want}"),
            sent: sent_us,
            seen: now_us(),
        });
        last = vec![seen, room_at(mover, |r| r.id == id && r.ply == want).await?];
    }
    // Both connections show X's line.
    for end in last {
        if end.ending.and_then(|e| e.winner) != Some(Seat::X) {
            return Err(format!("the game ended {:?}", end.ending));
        }
    }
    Ok((latencies, stamps))
}

/// The peer workload's shape.
pub struct PeerArgs {
    /// Games played in all.
    pub matches: usize,
    /// Games in flight at once.
    pub concurrency: usize,
    /// Each player's room connection opened for each game and closed after it.
    pub sockets_per_match: bool,
}

/// Runs the games, `concurrency` at a time, against the server at `base` (processes `pids`,
/// none when it does not run here: its CPU and peak memory are then printed as null); with the
/// servers' move `traces`, prints where the moves' time went.
pub async fn run(
    base: &Client,
    pids: &[u32],
    args: &PeerArgs,
    traces: &[std::path::PathBuf],
) -> Result<(), String> {
    let PeerArgs {
        matches,
        concurrency,
        sockets_per_match,
    } = *args;
    let cpu_before = cpu_seconds_all(pids);
    let whole_before = MachineTime::now();
    let queue = Arc::new(Mutex::new(0..matches));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency.max(1))
        .map(|_| {
            // Two players play each match of this worker in turn, each on a room connection
            // of their own, opened at their first match and kept for the next (over HTTP/2,
            // a stream of the one connection they keep).
            let (players, queue) = ([base.another(), base.another()], queue.clone());
            tokio::spawn(async move {
                let mut done = (Vec::new(), 0usize, Vec::new(), Vec::new());
                let mut lives = [None, None];
                while queue.lock().await.next().is_some() {
                    let played = one_match(&players, &mut lives).await;
                    if sockets_per_match {
                        for live in lives.iter_mut().filter_map(Option::take) {
                            live.close().await;
                        }
                    }
                    match played {
                        Ok((l, s)) => {
                            done.0.extend(l);
                            done.1 += 1;
                            done.3.extend(s);
                        }
                        Err(e) => done.2.push(e),
                    }
                }
                done
            })
        })
        .collect();
    let (mut latencies, mut completed, mut failures) = (Vec::new(), 0, Vec::new());
    let mut sent = Vec::new();
    for w in workers {
        let (l, c, f, s) = w.await.map_err(|e| e.to_string())?;
        latencies.extend(l);
        completed += c;
        failures.extend(f);
        sent.extend(s);
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds_all(pids).zip(cpu_before).map(|(a, b)| a - b);
    latencies.sort_unstable();
    if let Some(first) = failures.first() {
        eprintln!(
            "velha-load: {} matches failed; the first: {first}",
            failures.len()
        );
    }
    println!(
        "{{\"matches\":{matches},\"concurrency\":{concurrency},\"seconds\":{seconds:.3},\
         \"matches_per_s\":{:.2},\"moves_per_s\":{:.1},\"move_latency_ms\":{{\"p50\":{:.2},\
         \"p99\":{:.2},\"max\":{:.2}}},\"errors\":{},\"completed\":{completed}}}",
        completed as f64 / seconds,
        latencies.len() as f64 / seconds,
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0),
        matches - completed
    );
    let peak = memory_kib_all(pids, "VmHWM:");
    println!(
        "{{\"server_peak_rss_mb\":{},\"server_cpu_s\":{}}}",
        peak.map_or("null".into(), |kib| format!("{:.1}", kib as f64 / 1024.0)),
        cpu.map_or("null".into(), |s| format!("{s:.2}"))
    );
    if let Some((now, before)) = MachineTime::now().zip(whole_before) {
        eprintln!("the whole machine while playing: {}", now.since(before));
    }
    let (full, resumed) = base.handshakes();
    if full + resumed > 0 {
        eprintln!(
            "the live connections' TLS handshakes: {resumed} of {} resumed",
            full + resumed
        );
    }
    move_stages::report(&sent, traces).await?;
    if completed < matches {
        return Err(format!(
            "{} of {matches} matches failed",
            matches - completed
        ));
    }
    Ok(())
}
