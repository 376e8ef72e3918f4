//! Where each move's time went (`--trace-moves`): the bench's own send and receive times of
//! every move, joined by the move's key (`room ROOM PLY`, `match MATCH PLY`) with the stages
//! the servers wrote to their trace files (velha-server's `move_trace.rs`: read, commit start
//! and end, told). Both sides read the wall clock of the one machine they run on.
//!
//! Printed: every stage's percentiles, a histogram of the whole latency, and for the slowest
//! hundredth of moves which stage took most of their time.

use std::collections::HashMap;
use std::path::Path;

/// Now, in microseconds since the epoch: the clock the server's trace is written in.
pub fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// One move as the bench saw it, microseconds since the epoch.
pub struct Sent {
    pub key: String,
    /// When the mover's frame was written.
    pub sent: u64,
    /// When the other player's connection had it.
    pub seen: u64,
}

/// The stages of a move, in microseconds, in the order they happen.
const STAGES: [&str; 5] = [
    "to the server",
    "read and rules",
    "commit",
    "tell",
    "to the other",
];

/// One move's stages, joined.
struct Joined {
    stages: [u64; 5],
    total: u64,
}

fn join(sent: &Sent, server: [u64; 4]) -> Option<Joined> {
    let [read, commit_start, commit_end, told] = server;
    let marks = [sent.sent, read, commit_start, commit_end, told, sent.seen];
    if marks.contains(&0) {
        return None;
    }
    // A clock read on another core may be a few microseconds behind: a stage is never
    // negative.
    let mut stages = [0; 5];
    for (i, stage) in stages.iter_mut().enumerate() {
        *stage = marks[i + 1].saturating_sub(marks[i]);
    }
    Some(Joined {
        stages,
        total: sent.seen.saturating_sub(sent.sent),
    })
}

/// Reads the servers' trace files: each move's server stamps by key, and how many lines the
/// servers dropped.
fn read_traces(files: &[impl AsRef<Path>]) -> Result<(HashMap<String, [u64; 4]>, u64), String> {
    let mut moves = HashMap::new();
    let mut dropped = 0;
    for file in files {
        let file = file.as_ref();
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read the move trace {}: {e}", file.display()))?;
        let mut last_dropped = 0;
        for line in text.lines() {
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["dropped", n] => last_dropped = n.parse().unwrap_or(0),
                [kind, id, ply, rest @ ..] if rest.len() == 4 => {
                    let mut stamps = [0u64; 4];
                    for (s, w) in stamps.iter_mut().zip(rest) {
                        *s = w.parse().unwrap_or(0);
                    }
                    moves.insert(format!("{kind} {id} {ply}"), stamps);
                }
                _ => return Err(format!("{}: a line not understood: {line}", file.display())),
            }
        }
        dropped += last_dropped;
    }
    Ok((moves, dropped))
}

fn pct(sorted: &[u64], p: f64) -> f64 {
    crate::percentile(sorted, p)
}

/// Prints the stages of `sent`'s moves, from the servers' `files`, on standard error; nothing
/// when no trace was asked for.
pub async fn report(sent: &[Sent], files: &[impl AsRef<Path>]) -> Result<(), String> {
    if files.is_empty() {
        return Ok(());
    }
    // The servers' trace writers flush as soon as nothing is waiting.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let (server, dropped) = read_traces(files)?;
    let joined: Vec<Joined> = sent
        .iter()
        .filter_map(|s| join(s, *server.get(&s.key)?))
        .collect();
    eprintln!(
        "move stages: {} of {} moves joined with the servers' traces ({dropped} trace lines dropped)",
        joined.len(),
        sent.len()
    );
    if joined.is_empty() {
        return Ok(());
    }
    eprintln!(
        "{:16}{:>9}{:>9}{:>9}{:>9}{:>9}   (ms)",
        "stage", "p50", "p90", "p99", "p99.9", "max"
    );
    let mut columns: Vec<(&str, Vec<u64>)> = STAGES
        .iter()
        .enumerate()
        .map(|(i, name)| (*name, joined.iter().map(|j| j.stages[i]).collect()))
        .collect();
    columns.push(("whole move", joined.iter().map(|j| j.total).collect()));
    for (name, values) in &mut columns {
        values.sort_unstable();
        eprintln!(
            "{name:16}{:>9.2}{:>9.2}{:>9.2}{:>9.2}{:>9.2}",
            pct(values, 0.5),
            pct(values, 0.9),
            pct(values, 0.99),
            pct(values, 0.999),
            pct(values, 1.0)
        );
    }
    histogram(&columns[STAGES.len()].1);
    slowest(&joined);
    Ok(())
}

/// The whole latency's histogram, in buckets that double from a quarter of a millisecond.
fn histogram(sorted_totals: &[u64]) {
    let mut bounds = vec![250u64];
    while *bounds.last().unwrap_or(&0) < sorted_totals.last().copied().unwrap_or(0) {
        let next = bounds.last().unwrap_or(&250) * 2;
        bounds.push(next);
    }
    let n = sorted_totals.len() as f64;
    let mut from = 0u64;
    let mut at = 0usize;
    eprintln!("whole move, ms        moves   share  cumulative");
    for bound in bounds {
        let count = sorted_totals[at..].partition_point(|&t| t < bound);
        at += count;
        if count > 0 {
            eprintln!(
                "{:>6.2} – {:<7.2}{count:>11}{:>7.2}%{:>10.2}%",
                from as f64 / 1000.0,
                bound as f64 / 1000.0,
                100.0 * count as f64 / n,
                100.0 * at as f64 / n
            );
        }
        from = bound;
    }
}

/// For the slowest hundredth of moves: the share of their time each stage took.
fn slowest(joined: &[Joined]) {
    let mut by_total: Vec<&Joined> = joined.iter().collect();
    by_total.sort_unstable_by_key(|j| std::cmp::Reverse(j.total));
    let tail = &by_total[..by_total.len().div_ceil(100)];
    let whole: u64 = tail.iter().map(|j| j.total).sum::<u64>().max(1);
    let shares: Vec<String> = STAGES
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let spent: u64 = tail.iter().map(|j| j.stages[i]).sum();
            format!("{name} {:.0}%", 100.0 * spent as f64 / whole as f64)
        })
        .collect();
    eprintln!(
        "the slowest {} moves' time: {}",
        tail.len(),
        shares.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_add_up_to_the_whole_move_and_lines_join_by_key() {
        let dir = std::env::temp_dir().join(format!("move-stages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("moves.trace");
        std::fs::write(
            &file,
            "room r1 1 1100 1150 1900 1950\ndropped 2\nroom r1 2 5000 5010 5020 5030\n",
        )
        .unwrap();
        let (server, dropped) = read_traces(&[&file]).unwrap();
        assert_eq!(dropped, 2);
        let sent = Sent {
            key: "room r1 1".into(),
            sent: 1000,
            seen: 2000,
        };
        let j = join(&sent, server["room r1 1"]).unwrap();
        assert_eq!(j.stages, [100, 50, 750, 50, 50]);
        assert_eq!(j.stages.iter().sum::<u64>(), j.total);
        assert!(!server.contains_key("room r1 3"));
        std::fs::write(&file, "room r1 1 garbage\n").unwrap();
        assert!(read_traces(&[&file]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
