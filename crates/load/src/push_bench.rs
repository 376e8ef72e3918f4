//! The push bench (docs/push.md): how many notices the server's sender delivers per second,
//! and whether a push service that never answers slows a move. The bench is the push service
//! (a plain HTTP sink on loopback that takes each push, or holds it unanswered); N classic
//! rooms with a device subscribed for each seat; then, twice, X's first move in N rooms at
//! once (each move's latency, over HTTPS as the app sends it, and when each notice reached the
//! sink). First all at once, for the notices per second the sender holds; then at a steady
//! pace for some seconds, so that later moves are made while the notices of earlier ones are
//! being sent: once with the sink answering, once with it hanging (the moves after the first
//! notices were due are the ones compared).
//!
//! `…/release/velha-load --push-rooms 1000`

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures_util::future::join_all;
use reqwest::Method;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};
use velha_api::{Avatar, RoomAct, RoomBoard};
use velha_load::Client;

use crate::percentile;

/// The stand-in push service: when each push arrived, and whether it answers now.
pub struct Sink {
    /// Its origin, for the server's `--push-services`.
    pub url: String,
    arrivals: Arc<Mutex<Vec<Instant>>>,
    hanging: Arc<AtomicBool>,
    released: Arc<Notify>,
    held: Arc<AtomicU64>,
}

impl Sink {
    /// Listens on loopback.
    pub async fn start() -> Result<Sink, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let url = format!(
            "http://{}",
            listener.local_addr().map_err(|e| e.to_string())?
        );
        let sink = Sink {
            url,
            arrivals: Arc::default(),
            hanging: Arc::default(),
            released: Arc::default(),
            held: Arc::default(),
        };
        let (arrivals, hanging, released, held) = (
            sink.arrivals.clone(),
            sink.hanging.clone(),
            sink.released.clone(),
            sink.held.clone(),
        );
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (arrivals, hanging, released, held) = (
                    arrivals.clone(),
                    hanging.clone(),
                    released.clone(),
                    held.clone(),
                );
                tokio::spawn(async move {
                    let mut stream = BufReader::new(stream);
                    // HTTP/1.1 with keep-alive: a request's head, its body by length, an answer.
                    loop {
                        let mut length = 0usize;
                        let mut line = String::new();
                        loop {
                            line.clear();
                            match stream.read_line(&mut line).await {
                                Ok(0) | Err(_) => return,
                                Ok(_) => {}
                            }
                            if line == "\r\n" {
                                break;
                            }
                            if let Some((name, value)) = line.split_once(':')
                                && name.eq_ignore_ascii_case("content-length")
                            {
                                length = value.trim().parse().unwrap_or(0);
                            }
                        }
                        let mut body = vec![0u8; length];
                        if stream.read_exact(&mut body).await.is_err() {
                            return;
                        }
                        if hanging.load(Ordering::SeqCst) {
                            held.fetch_add(1, Ordering::SeqCst);
                            released.notified().await;
                            return;
                        }
                        arrivals.lock().unwrap().push(Instant::now());
                        let answer = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n";
                        if stream.get_mut().write_all(answer.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Ok(sink)
    }

    fn taken(&self) -> usize {
        self.arrivals.lock().unwrap().len()
    }

    fn hang(&self, on: bool) {
        self.hanging.store(on, Ordering::SeqCst);
        if !on {
            self.released.notify_waiters();
        }
    }
}

/// A room ready for X's first move: its id and X's credential.
struct Ready {
    id: String,
    x: String,
}

/// A device's subscription as a browser gives it: an endpoint on the sink, a fresh P-256 key
/// (the server encrypts for it) and a secret.
fn device(sink: &Sink, credential: &str, n: usize) -> serde_json::Value {
    let rng = ring::rand::SystemRandom::new();
    let key = ring::agreement::EphemeralPrivateKey::generate(&ring::agreement::ECDH_P256, &rng)
        .expect("a P-256 key");
    let public = key.compute_public_key().expect("its public key");
    serde_json::json!({
        "endpoint": format!("{}/push/{n}", sink.url),
        "keys": {"p256dh": URL_SAFE_NO_PAD.encode(public.as_ref()), "auth": URL_SAFE_NO_PAD.encode([n as u8; 16])},
        "credentials": [credential],
        "language": "pt-BR",
    })
}

async fn make_rooms(
    base: &Client,
    sink: &Sink,
    n: usize,
    from: usize,
) -> Result<Vec<Ready>, String> {
    let gate = Arc::new(Semaphore::new(32));
    let made = join_all((0..n).map(|i| {
        let (base, gate) = (base.another(), gate.clone());
        let (x_device, o_device) = (2 * (from + i), 2 * (from + i) + 1);
        async move {
            let _permit = gate.acquire().await;
            let made = base
                .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
                .await
                .map_err(|e| e.to_string())?;
            let joined = base
                .join_room(&made.room.id, "Bia", Some(Avatar::Rabisco))
                .await
                .map_err(|e| e.to_string())?;
            for body in [
                device(sink, &made.credential, x_device),
                device(sink, &joined.credential, o_device),
            ] {
                let (status, answer) = base
                    .raw(
                        Method::POST,
                        "/api/push/subscriptions",
                        Some(&body.to_string()),
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                if status != 201 {
                    return Err(format!("subscribing: {status} {answer}"));
                }
            }
            Ok(Ready {
                id: made.room.id,
                x: made.credential,
            })
        }
    }))
    .await;
    made.into_iter().collect()
}

/// X's first move in the rooms at `per_second` (each its own request), and the latencies (µs,
/// sorted) of the moves made once `after` had passed.
async fn paced_moves(
    base: &Client,
    rooms: &[Ready],
    per_second: u32,
    after: Duration,
) -> Result<Vec<u64>, String> {
    let start = Instant::now();
    let timed = join_all(rooms.iter().enumerate().map(|(i, r)| {
        let base = base.another();
        let at = start + Duration::from_secs_f64(i as f64 / f64::from(per_second));
        async move {
            tokio::time::sleep_until(at.into()).await;
            let t = Instant::now();
            base.room_act(&r.id, &r.x, RoomAct::Play { cell: "a1".into() })
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>((at.duration_since(start), t.elapsed().as_micros() as u64))
        }
    }))
    .await;
    let mut all = Vec::new();
    for one in timed {
        let (when, us) = one?;
        if when >= after {
            all.push(us);
        }
    }
    all.sort_unstable();
    Ok(all)
}

/// X's first move in every room at once (32 in flight): each move's latency (µs), sorted.
async fn first_moves(base: &Client, rooms: &[Ready]) -> Result<Vec<u64>, String> {
    let gate = Arc::new(Semaphore::new(32));
    let timed = join_all(rooms.iter().map(|r| {
        let (base, gate) = (base.another(), gate.clone());
        async move {
            let _permit = gate.acquire().await;
            let t = Instant::now();
            base.room_act(&r.id, &r.x, RoomAct::Play { cell: "a1".into() })
                .await
                .map_err(|e| e.to_string())?;
            Ok::<u64, String>(t.elapsed().as_micros() as u64)
        }
    }))
    .await;
    let mut all: Vec<u64> = timed.into_iter().collect::<Result<_, _>>()?;
    all.sort_unstable();
    Ok(all)
}

async fn settle(sink: &Sink, wanted: usize, patience: Duration) {
    let until = Instant::now() + patience;
    while sink.taken() < wanted && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn line(what: &str, sorted: &[u64]) {
    println!(
        "{what:<44} p50 {:>7.2} ms  p90 {:>7.2} ms  p99 {:>7.2} ms  max {:>7.2} ms",
        percentile(sorted, 0.5),
        percentile(sorted, 0.9),
        percentile(sorted, 0.99),
        percentile(sorted, 1.0),
    );
}

/// Runs the bench against the server at `base`, which sends to `sink`.
pub async fn run(base: &Client, sink: &Sink, rooms: usize) -> Result<(), String> {
    println!("velha-load push: {rooms} rooms for each of three rounds, a device per seat");
    let t = Instant::now();
    let burst = make_rooms(base, sink, rooms, 0).await?;
    let answering = make_rooms(base, sink, rooms, rooms).await?;
    let hanging = make_rooms(base, sink, rooms, 2 * rooms).await?;
    // Each join gave X a first turn: a notice per room.
    settle(sink, 3 * rooms, Duration::from_secs(120)).await;
    println!(
        "set up in {:.1} s; {} join notices taken",
        t.elapsed().as_secs_f64(),
        sink.taken()
    );

    // All at once: O of each room is told of X's move.
    let before = sink.taken();
    let sent = Instant::now();
    let moves = first_moves(base, &burst).await?;
    let moved = sent.elapsed();
    settle(sink, before + rooms, Duration::from_secs(120)).await;
    let arrivals: Vec<Instant> = sink.arrivals.lock().unwrap()[before..].to_vec();
    line("move, all at once", &moves);
    if let (Some(first), Some(last)) = (arrivals.first(), arrivals.last()) {
        let spread = last.duration_since(*first).as_secs_f64().max(1e-3);
        let behind = last.duration_since(sent + moved).as_secs_f64();
        println!(
            "notices: {} of {rooms} taken; the first {:.2} s after the first move (2 s of it the wait for a look), \
             the last {behind:.2} s after the last move; {:.0} notices/s from the first to the last{}",
            arrivals.len(),
            first.duration_since(sent).as_secs_f64(),
            (arrivals.len().saturating_sub(1)) as f64 / spread,
            if behind < 2.5 {
                " (the sender kept pace with the moves: it holds at least this)"
            } else {
                " (the sender fell behind the moves: this is what it holds)"
            },
        );
    }

    // At a pace, the moves after the first 2.5 s made while earlier notices are sent.
    let pace = u32::try_from(rooms / 5).unwrap_or(u32::MAX).max(1);
    let overlap = Duration::from_millis(2500);
    let moves = paced_moves(base, &answering, pace, overlap).await?;
    line(
        &format!("move at {pace}/s, the push service answering"),
        &moves,
    );
    sink.hang(true);
    let moves = paced_moves(base, &hanging, pace, overlap).await?;
    line(
        &format!("move at {pace}/s, the push service hanging"),
        &moves,
    );
    println!(
        "pushes held unanswered meanwhile: {} (the sender's 32 at once, each given up after 10 s)",
        sink.held.load(Ordering::SeqCst)
    );
    sink.hang(false);
    Ok(())
}
