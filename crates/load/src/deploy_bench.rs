//! The rolling-deploy bench (`--rolling-deploy`): cube matches at people's pace on several
//! processes behind nginx, while each process in turn is stopped with SIGTERM and started
//! again on the same port, as a deploy does. Players come back whenever their connection
//! drops (`velha_load::steady`). It prints the moves made before, during and after the deploy,
//! how long moves took, how long players were without a connection, and it fails unless every
//! acknowledged move is stored and no match ended on time or by abandonment.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use velha_api::EndHow;
use velha_load::Client;
use velha_load::steady::{self, Played, Side};
use velha_rules::Level;

use crate::{Args, Started, percentile, setup_player};

/// One process's restart: how long it took to stop, and to serve again.
struct Restart {
    stop_took: Duration,
    clean: bool,
    back_after: Duration,
}

pub async fn run(args: &Args, mut started: Started) -> Result<(), String> {
    let n = args.matches;
    let level = Level::from_number(args.level).ok_or("--level is 1 or 2")?;
    println!(
        "velha-load: rolling deploy of {} processes behind nginx, {n} cube matches at a time (a new one when one ends), think {} ms, {} s",
        started.children.len(),
        args.think_ms,
        args.seconds
    );
    let base = started.base.clone();
    let gate = Arc::new(Semaphore::new(64));
    let tasks: Vec<_> = (0..2 * n)
        .map(|i| {
            let (base, gate) = (base.clone(), gate.clone());
            tokio::spawn(async move {
                let _permit = gate.acquire().await;
                setup_player(&base, format!("player{i}")).await
            })
        })
        .collect();
    let mut players = Vec::with_capacity(2 * n);
    for t in tasks {
        players.push(t.await.map_err(|e| e.to_string())??);
    }
    let names: Vec<String> = (0..2 * n).map(|i| format!("player{i}")).collect();
    started.grant(&names).await?;
    let mut sides = players.into_iter();
    let mut matches = Vec::with_capacity(n);
    while let (Some(x), Some(o)) = (sides.next(), sides.next()) {
        matches.push((x, o));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let think = Duration::from_millis(args.think_ms);
    let t0 = Instant::now();
    let games: Vec<_> = matches
        .iter()
        .enumerate()
        .map(|(i, (x, o))| {
            tokio::spawn(steady::keep_playing(
                [Side::new(x.clone()), Side::new(o.clone())],
                level,
                args.moves,
                think,
                0x9E37_79B9_7F4A_7C15 ^ (i as u64 * 7919),
                stop.clone(),
            ))
        })
        .collect();

    // Before, each process in turn, after: the same stretch of play each.
    let stretch = Duration::from_secs(args.seconds) / (started.children.len() as u32 + 2);
    // nginx sends nothing to a process it saw fail for `fail_timeout` (2 s, deploy/nginx.conf):
    // the next process may stop only once the last one takes requests again.
    if stretch < Duration::from_secs(3) {
        return Err(format!(
            "--seconds {}: at least {} for a stretch of 3 s before, between and after the restarts",
            args.seconds,
            3 * (started.children.len() + 2)
        ));
    }
    tokio::time::sleep(stretch).await;
    let deploy_from = t0.elapsed();
    let mut restarts = Vec::new();
    for i in 0..started.children.len() {
        restarts.push(restart(args, &mut started, i).await?);
        tokio::time::sleep(stretch).await;
    }
    let deploy_to = t0.elapsed();
    tokio::time::sleep(stretch).await;
    stop.store(true, Ordering::Relaxed);
    let mut played = Vec::with_capacity(n);
    let mut owners = Vec::with_capacity(n);
    for (g, (x, _)) in games.into_iter().zip(&matches) {
        for p in g.await.map_err(|e| e.to_string())? {
            played.push(p);
            owners.push(x.clone());
        }
    }
    let total = t0.elapsed();
    let problems = check(&played, &owners).await;
    report(&played, &restarts, t0, (deploy_from, deploy_to, total));
    started.stop().await;
    if problems.is_empty() {
        println!(
            "checked: every acknowledged move is stored; no match ended on time or by abandonment"
        );
        Ok(())
    } else {
        for p in &problems {
            eprintln!("{p}");
        }
        Err(format!("{} matches went wrong", problems.len()))
    }
}

/// SIGTERM to process `i`, its exit awaited, then the same process started again.
async fn restart(args: &Args, started: &mut Started, i: usize) -> Result<Restart, String> {
    let t = Instant::now();
    let child = &mut started.children[i];
    let pid = child.id().ok_or("the process already exited")?;
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .map_err(|_| format!("process {} did not stop within 60 s", i + 1))?
        .map_err(|e| e.to_string())?;
    let stop_took = t.elapsed();
    started.respawn(args, i).await?;
    Ok(Restart {
        stop_took,
        clean: status.success(),
        back_after: t.elapsed(),
    })
}

/// What the server stored of each match against what its players were told.
async fn check(played: &[Played], players: &[Client]) -> Vec<String> {
    let mut problems = Vec::new();
    for (p, x) in played.iter().zip(players) {
        if let Some(why) = &p.failure {
            problems.push(format!("match {}: {why}", p.id));
        }
        if matches!(
            p.ending,
            Some(EndHow::Time | EndHow::Abandonment | EndHow::Absent)
        ) {
            problems.push(format!("match {} ended by {:?}", p.id, p.ending));
        }
        let Some((ply, position)) = p.acknowledged.last().map(|(ply, pos, _)| (*ply, pos)) else {
            continue;
        };
        match x.get_match(&p.id).await {
            Ok(view) if view.ply == ply && view.position == *position => {}
            Ok(view) => problems.push(format!(
                "match {}: acknowledged ply {ply} {position:?}, stored ply {} {:?}",
                p.id, view.ply, view.position
            )),
            Err(e) => problems.push(format!("match {}: cannot read it: {e}", p.id)),
        }
    }
    problems
}

fn report(
    played: &[Played],
    restarts: &[Restart],
    t0: Instant,
    (from, to, total): (Duration, Duration, Duration),
) {
    for (i, r) in restarts.iter().enumerate() {
        println!(
            "process {}: stopped in {:.2} s ({}), serving again after {:.2} s",
            i + 1,
            r.stop_took.as_secs_f64(),
            if r.clean {
                "exit 0"
            } else {
                "NOT a clean exit"
            },
            r.back_after.as_secs_f64()
        );
    }
    let mut all = Vec::new();
    let mut during = Vec::new();
    let (mut before_n, mut during_n, mut after_n) = (0u64, 0u64, 0u64);
    for p in played {
        for ((_, _, at), us) in p.acknowledged.iter().zip(&p.latencies_us) {
            let when = at.duration_since(t0);
            all.push(*us);
            if when < from {
                before_n += 1;
            } else if when <= to {
                during_n += 1;
                during.push(*us);
            } else {
                after_n += 1;
            }
        }
    }
    all.sort_unstable();
    during.sort_unstable();
    let rate = |n: u64, d: Duration| n as f64 / d.as_secs_f64().max(1e-9);
    println!(
        "moves: {before_n} before ({:.0}/s), {during_n} during the deploy ({:.0}/s), {after_n} after ({:.0}/s)",
        rate(before_n, from),
        rate(during_n, to - from),
        rate(after_n, total - to)
    );
    for (what, v) in [("all moves", &all), ("during the deploy", &during)] {
        println!(
            "send to acknowledgement, {what}: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            percentile(v, 0.5),
            percentile(v, 0.99),
            percentile(v, 1.0)
        );
    }
    let told: u32 = played.iter().map(|p| p.told_to_come_back).sum();
    let lost: u32 = played.iter().map(|p| p.lost).sum();
    let longest = played.iter().map(|p| p.longest_down_us).max().unwrap_or(0);
    let away: u32 = played.iter().map(|p| p.away_seen).sum();
    println!(
        "connections: {told} told to come back (1012), {lost} lost otherwise; the longest a player was without one: {:.1} ms; an opponent seen away {away} times",
        longest as f64 / 1000.0
    );
    let mut endings: Vec<(String, usize)> = Vec::new();
    for p in played {
        let how = p
            .ending
            .map_or("still live".to_owned(), |h| format!("{h:?}"));
        match endings.iter_mut().find(|(h, _)| *h == how) {
            Some((_, n)) => *n += 1,
            None => endings.push((how, 1)),
        }
    }
    println!("matches: {endings:?}");
}
