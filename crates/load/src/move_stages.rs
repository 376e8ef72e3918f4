//! Where each move's time went (`--trace-moves`): the bench's own send and receive times of
//! every move, joined by the move's key (`room ROOM PLY`, `match MATCH PLY`) with the stages
//! the servers wrote to their trace files (velha-server's `move_trace.rs`: read, commit start
//! and end, told). Both sides read the wall clock of the one machine they run on.
//!
//! Printed: every stage's percentiles, a histogram of the whole latency, for the slowest
//! hundredth of moves which stage took most of their time, and the tail over the run: a
//! start-up herd or a stall shows in one tenth of it, a saturated machine in all of them.

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
    /// When it was sent.
    sent: u64,
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
        sent: sent.sent,
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
    eprintln!("{}", slowest(&joined.iter().collect::<Vec<_>>()));
    over_time(&joined);
    Ok(())
}

/// One tenth of the run: when it began (ms from the first move sent), and its moves.
struct Part<'a> {
    from_ms: f64,
    moves: Vec<&'a Joined>,
}

/// The moves in ten parts of equal length, by when they were sent.
fn tenths(joined: &[Joined]) -> Vec<Part<'_>> {
    let first = joined.iter().map(|j| j.sent).min().unwrap_or(0);
    let last = joined.iter().map(|j| j.sent).max().unwrap_or(0);
    let length = (last - first + 1).div_ceil(10);
    let mut parts: Vec<Part> = (0..10)
        .map(|i| Part {
            from_ms: (i * length) as f64 / 1000.0,
            moves: Vec::new(),
        })
        .collect();
    for j in joined {
        parts[((j.sent - first) / length) as usize].moves.push(j);
    }
    parts
}

/// The tail in each tenth of the run, and the stage its slowest moves waited in.
fn over_time(joined: &[Joined]) {
    eprintln!("from (ms)   moves      p50      p99      max   (ms)  the slowest hundredth");
    for part in tenths(joined) {
        eprintln!("{}", tenth_row(&part));
    }
}

/// One tenth's line. A tenth in which no move was sent says so: the whole run stalled.
fn tenth_row(part: &Part) -> String {
    let mut totals: Vec<u64> = part.moves.iter().map(|j| j.total).collect();
    if totals.is_empty() {
        return format!("{:>9.0}{:>8}   no move was sent", part.from_ms, 0);
    }
    totals.sort_unstable();
    format!(
        "{:>9.0}{:>8}{:>9.2}{:>9.2}{:>9.2}   {}",
        part.from_ms,
        totals.len(),
        pct(&totals, 0.5),
        pct(&totals, 0.99),
        pct(&totals, 1.0),
        top_stage(&tail(&part.moves))
    )
}

/// The slowest hundredth of `moves` (at least one), slowest first.
fn tail<'a>(moves: &[&'a Joined]) -> Vec<&'a Joined> {
    let mut by_total = moves.to_vec();
    by_total.sort_unstable_by_key(|j| std::cmp::Reverse(j.total));
    by_total.truncate(moves.len().div_ceil(100));
    by_total
}

/// The share of `tail`'s time each stage took.
fn shares(tail: &[&Joined]) -> [f64; 5] {
    let whole = tail.iter().map(|j| j.total).sum::<u64>().max(1) as f64;
    std::array::from_fn(|i| tail.iter().map(|j| j.stages[i]).sum::<u64>() as f64 / whole)
}

/// The stage that took most of `tail`'s time, and its share.
fn top_stage(tail: &[&Joined]) -> String {
    let shares = shares(tail);
    let (i, share) = shares
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap_or((0, &0.0));
    format!("{} {:.0}%", STAGES[i], 100.0 * share)
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
fn slowest(moves: &[&Joined]) -> String {
    let tail = tail(moves);
    let shares: Vec<String> = STAGES
        .iter()
        .zip(shares(&tail))
        .map(|(name, share)| format!("{name} {:.0}%", 100.0 * share))
        .collect();
    format!(
        "the slowest {} moves' time: {}",
        tail.len(),
        shares.join(", ")
    )
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

    /// A move sent at `sent` ms whose stages took `stages` ms.
    fn moved(sent: u64, stages: [u64; 5]) -> Joined {
        let stages = stages.map(|ms| ms * 1000);
        Joined {
            sent: sent * 1000,
            stages,
            total: stages.iter().sum(),
        }
    }

    #[test]
    fn the_tail_over_the_run_shows_which_tenth_stalled_and_where() {
        // 1 000 moves over a second, each 6 ms, 2 of them in the commit; 20 of those sent in
        // its seventh tenth waited 40 ms on their way to the other player.
        let joined: Vec<Joined> = (0..1000u64)
            .map(|i| {
                let to_other = if (600..620).contains(&i) { 40 } else { 1 };
                moved(i, [1, 1, 2, 1, to_other])
            })
            .collect();
        let parts = tenths(&joined);
        assert_eq!(parts.len(), 10);
        assert_eq!(parts.iter().map(|p| p.moves.len()).sum::<usize>(), 1000);
        assert!(parts.iter().all(|p| p.moves.len() == 100));
        assert!(
            (parts[6].from_ms - 600.0).abs() < 1.0,
            "{}",
            parts[6].from_ms
        );
        assert!(tenth_row(&parts[6]).ends_with("   to the other 89%"));
        assert!(tenth_row(&parts[5]).ends_with("   commit 33%"));
        let all: Vec<&Joined> = joined.iter().collect();
        assert_eq!(tail(&all).len(), 10);
        assert!(tail(&all).iter().all(|j| j.total == 45_000));
        assert!(slowest(&all).starts_with("the slowest 10 moves' time: to the server 2%"));
        // The last move sent falls in the last tenth, not past it; the tenths between, with
        // no move sent, say so.
        let two = [moved(0, [1; 5]), moved(9, [1; 5])];
        let parts = tenths(&two);
        assert_eq!(parts[9].moves.len(), 1);
        assert!(tenth_row(&parts[4]).ends_with("0   no move was sent"));
    }
}
