//! Cube matches played by players who come back whenever their connection drops, as the app
//! does: what the rolling-deploy test and bench play while the server processes restart one
//! after the other. A player whose move went unanswered reads the match again and sends it
//! again only if it was not committed; every move acknowledged is recorded, so the caller can
//! check that the server kept each one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use velha_api::{ClientMsg, EndHow, MatchState, MatchView, Refusal, Scope, ServerMsg};
use velha_rules::{Cube, CubeAction, Level, Player, Position, Status};

use crate::{Client, Live};

/// How long a move may go unanswered before the player reads the match again.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);
/// How long a player keeps trying to come back before the match is given up as lost.
const COME_BACK_WITHIN: Duration = Duration::from_secs(60);
/// RFC 6455's "Service Restart".
pub const RESTARTING: u16 = 1012;

/// One side of a match: the player and their connection, when they have one.
pub struct Side {
    client: Client,
    live: Option<Live>,
    /// The connection dropped at this instant and is not back yet.
    down_since: Option<Instant>,
}

impl Side {
    /// A player, not yet connected.
    pub fn new(client: Client) -> Side {
        Side {
            client,
            live: None,
            down_since: None,
        }
    }
}

/// What one match saw.
#[derive(Debug, Default)]
pub struct Played {
    /// The match.
    pub id: String,
    /// Every move acknowledged: (the ply it made, the position after it, when).
    pub acknowledged: Vec<(u32, String, Instant)>,
    /// Send to acknowledgement of each move, in microseconds (a reconnection included).
    pub latencies_us: Vec<u64>,
    /// Connections closed by the server with 1012 (it was restarting).
    pub told_to_come_back: u32,
    /// Connections lost any other way.
    pub lost: u32,
    /// Times a player heard that the other was away (ON-M04), or found them away on coming
    /// back.
    pub away_seen: u32,
    /// The longest either player was without a connection, in microseconds.
    pub longest_down_us: u64,
    /// How it ended, if it did.
    pub ending: Option<EndHow>,
    /// Why it stopped early, if it did.
    pub failure: Option<String>,
}

/// Meets the two players in a new Mundial match at `level` (both connected first, so neither
/// starts away) and plays it with random legal moves, about `think` apart, until it ends,
/// `plies` moves were made or `stop` is set.
pub async fn play(
    sides: &mut [Side; 2],
    level: Level,
    plies: u32,
    think: Duration,
    seed: u64,
    stop: &AtomicBool,
) -> Played {
    let mut played = Played::default();
    for side in sides.iter_mut().filter(|s| s.live.is_none()) {
        if let Err(why) = come_back(side, &mut played).await {
            played.failure = Some(why);
            return played;
        }
    }
    let (x, o) = (&sides[0].client, &sides[1].client);
    let met = async {
        let open = x.create(Scope::Mundial, level.number()).await?;
        o.join(&open.id).await?;
        Ok::<_, velha_api::ApiError>(open.id)
    };
    match met.await {
        Ok(id) => played.id = id,
        Err(e) => {
            played.failure = Some(format!("meeting: {e}"));
            return played;
        }
    }
    let mut cube = Cube::new(level);
    let mut ply = 0u32;
    let mut rng = seed | 1;
    while ply < plies && !stop.load(Ordering::Relaxed) {
        if !think.is_zero() {
            let spread = 0.5 + (next(&mut rng) % 1000) as f64 / 1000.0;
            tokio::time::sleep(think.mul_f64(spread)).await;
        }
        let mover = usize::from(cube.side_to_move() != Player::X);
        let actions = pick(&cube, &mut rng);
        let sent = Instant::now();
        match make_move(&mut sides[mover], &mut played, ply, &actions).await {
            Ok(Some(view)) => {
                played.latencies_us.push(sent.elapsed().as_micros() as u64);
                let Ok(next_cube) = view.position.parse::<Cube>() else {
                    played.failure = Some(format!("unreadable position {:?}", view.position));
                    return played;
                };
                cube = next_cube;
                ply = view.ply;
                played
                    .acknowledged
                    .push((ply, view.position.clone(), Instant::now()));
                if view.state != MatchState::Live {
                    played.ending = view.ending.map(|e| e.how);
                    return played;
                }
            }
            Ok(None) => return played,
            Err(why) => {
                played.failure = Some(why);
                return played;
            }
        }
    }
    played
}

/// Plays one match after another (`play`) until `stop` is set, so the two players are in a
/// match whenever it comes.
pub async fn keep_playing(
    mut sides: [Side; 2],
    level: Level,
    plies: u32,
    think: Duration,
    seed: u64,
    stop: Arc<AtomicBool>,
) -> Vec<Played> {
    let mut all = Vec::new();
    let mut seed = seed;
    while !stop.load(Ordering::Relaxed) {
        let played = play(&mut sides, level, plies, think, seed, &stop).await;
        let failed = played.failure.is_some();
        all.push(played);
        if failed {
            break;
        }
        seed = next(&mut seed);
    }
    all
}

/// Sends the move of ply `ply` until it is acknowledged, coming back as often as needed: the
/// match after it, or None when the match ended otherwise (then `played.ending` says how).
async fn make_move(
    side: &mut Side,
    played: &mut Played,
    ply: u32,
    actions: &[String],
) -> Result<Option<MatchView>, String> {
    let began = Instant::now();
    loop {
        if began.elapsed() > COME_BACK_WITHIN {
            return Err(format!("ply {ply}: no answer within {COME_BACK_WITHIN:?}"));
        }
        if side.live.is_none() {
            let view = come_back(side, played).await?.ok_or("the match is gone")?;
            if view.ply > ply {
                // Committed before the connection dropped, acknowledged by the match itself.
                return Ok(Some(view));
            }
            if view.state != MatchState::Live {
                played.ending = view.ending.map(|e| e.how);
                return Ok(None);
            }
        }
        let Some(live) = side.live.as_mut() else {
            continue;
        };
        let msg = ClientMsg::Play {
            match_id: played.id.clone(),
            ply,
            actions: actions.to_vec(),
        };
        if live.send(&msg).await.is_err() {
            dropped(side, played);
            continue;
        }
        let id = played.id.clone();
        let away = std::sync::atomic::AtomicU32::new(0);
        let answer = live
            .recv_until(ANSWER_WITHIN, |m| match m {
                ServerMsg::Moved {
                    match_id, ply: p, ..
                } => *match_id == id && *p > ply,
                ServerMsg::Refused { match_id, .. } | ServerMsg::Ended { match_id, .. } => {
                    *match_id == id
                }
                ServerMsg::Away { match_id, .. } => {
                    away.fetch_add(u32::from(*match_id == id), Ordering::Relaxed);
                    false
                }
                _ => false,
            })
            .await;
        played.away_seen += away.into_inner();
        match answer {
            Ok(ServerMsg::Moved { .. } | ServerMsg::Ended { .. })
            | Ok(ServerMsg::Refused {
                refusal: Refusal::Stale { .. },
                ..
            }) => {
                // The match as stored says what the answer meant, ended or not; when it
                // cannot be read now, coming back reads it.
                match side.client.get_match(&played.id).await {
                    Ok(view) => return Ok(Some(view)),
                    Err(_) => dropped(side, played),
                }
            }
            Ok(other) => return Err(format!("ply {ply} {actions:?} refused: {other:?}")),
            Err(_) => dropped(side, played),
        }
    }
}

/// The connection is gone (or unanswering): counted by why, then dropped.
fn dropped(side: &mut Side, played: &mut Played) {
    if let Some(live) = side.live.take() {
        if live.close_code() == Some(RESTARTING) {
            played.told_to_come_back += 1;
        } else {
            played.lost += 1;
        }
    }
    side.down_since.get_or_insert_with(Instant::now);
}

/// The match as stored; none before there is one.
async fn read_match(client: &Client, id: &str) -> Result<Option<MatchView>, velha_api::ApiError> {
    if id.is_empty() {
        return Ok(None);
    }
    client.get_match(id).await.map(Some)
}

/// Connects (again: through the balancer, which picks a process) and reads the match.
async fn come_back(side: &mut Side, played: &mut Played) -> Result<Option<MatchView>, String> {
    let began = Instant::now();
    let mut wait = Duration::from_millis(20);
    loop {
        if let Ok(mut live) = side.client.live().await
            && live
                .recv_until(ANSWER_WITHIN, |m| matches!(m, ServerMsg::Welcome { .. }))
                .await
                .is_ok()
            && let Ok(view) = read_match(&side.client, &played.id).await
        {
            played.away_seen += u32::from(view.as_ref().is_some_and(|v| !v.away.is_empty()));
            if let Some(since) = side.down_since.take() {
                played.longest_down_us = played
                    .longest_down_us
                    .max(since.elapsed().as_micros() as u64);
            }
            side.live = Some(live);
            return Ok(view);
        }
        if began.elapsed() > COME_BACK_WITHIN {
            return Err(format!("could not come back within {COME_BACK_WITHIN:?}"));
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(1));
    }
}

/// The next of a xorshift sequence.
pub fn next(rng: &mut u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng
}

/// A random legal move of the side to move: one or two actions (a turn, then a mark).
pub fn pick(cube: &Cube, rng: &mut u64) -> Vec<String> {
    let mut next_cube = *cube;
    let me = cube.side_to_move();
    let mut actions = Vec::new();
    while next_cube.status() == Status::Ongoing(me) && actions.len() < 2 {
        let legal: Vec<CubeAction> = next_cube.legal_actions().collect();
        let a = legal[(next(rng) % legal.len() as u64) as usize];
        if next_cube.play(a).is_err() {
            break;
        }
        actions.push(a.to_string());
    }
    actions
}
