//! Where a move's time goes (`--trace-moves FILE`): for every move a live connection carries,
//! one line with the wall-clock microseconds at which the server read it, began and ended its
//! commit, and had queued the news for every connection. The load bench (`velha-load
//! --trace-moves`) joins these with its own send and receive times by the move's key, so the
//! tail of a move's latency can be split into its stages. The clock is the wall clock, which
//! two processes on one machine read alike.
//!
//! Off by default; when on, a move costs a few clock reads and one line handed to a thread of
//! its own through a bounded queue: a full queue drops the line (counted on the last line)
//! rather than slowing the move down.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

/// Lines waiting for the writer: a second of a busy server's moves.
const QUEUE: usize = 16_384;

/// A stage of a move, in the order it happens.
#[derive(Clone, Copy)]
pub enum Stage {
    /// Its commit was asked for.
    CommitStart,
    /// Its commit answered.
    CommitEnd,
    /// Its news is queued for every connection of this process that hears it.
    Told,
}

/// One move's times, microseconds since the epoch (0: the stage did not happen).
#[derive(Clone, Copy, Default)]
struct Stamps {
    read: u64,
    commit_start: u64,
    commit_end: u64,
    told: u64,
}

tokio::task_local! {
    /// The stamps of the move the current connection is answering, while tracing is on.
    static STAMPS: RefCell<Stamps>;
}

/// Now, in microseconds since the epoch.
pub fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// Notes that `stage` of the move being answered happened now; nothing when no move is traced.
pub fn stamp(stage: Stage) {
    let _ = STAMPS.try_with(|s| {
        let mut s = s.borrow_mut();
        let now = now_us();
        match stage {
            Stage::CommitStart => s.commit_start = now,
            Stage::CommitEnd => s.commit_end = now,
            Stage::Told => s.told = now,
        }
    });
}

/// The trace file's writer.
pub struct MoveTrace {
    lines: mpsc::SyncSender<String>,
    dropped: Arc<AtomicU64>,
}

impl MoveTrace {
    /// Starts writing lines to `path` (created, or emptied).
    pub fn create(path: &Path) -> Result<MoveTrace, String> {
        let file = File::create(path)
            .map_err(|e| format!("cannot create the move trace {}: {e}", path.display()))?;
        let (lines, queued) = mpsc::sync_channel::<String>(QUEUE);
        let dropped = Arc::new(AtomicU64::new(0));
        let lost = dropped.clone();
        std::thread::Builder::new()
            .name("move-trace".into())
            .spawn(move || write_lines(BufWriter::new(file), &queued, &lost))
            .map_err(|e| format!("cannot start the move trace's writer: {e}"))?;
        Ok(MoveTrace { lines, dropped })
    }

    /// Answers a move with `answer`, stamping its stages, then writes its line under the key
    /// `key` finds in the answer (`room ROOM PLY` or `match MATCH PLY`: the move's place as
    /// both sides name it; none for a move refused).
    pub async fn traced<T>(
        trace: Option<&MoveTrace>,
        answer: impl Future<Output = T>,
        key: impl FnOnce(&T) -> Option<String>,
    ) -> T {
        let Some(trace) = trace else {
            return answer.await;
        };
        let stamps = RefCell::new(Stamps {
            read: now_us(),
            ..Stamps::default()
        });
        let (answered, stamps) = STAMPS
            .scope(stamps, async {
                let answered = answer.await;
                (answered, STAMPS.with(|s| *s.borrow()))
            })
            .await;
        if let Some(key) = key(&answered)
            && stamps.commit_end != 0
        {
            let line = format!(
                "{key} {} {} {} {}\n",
                stamps.read, stamps.commit_start, stamps.commit_end, stamps.told
            );
            if trace.lines.try_send(line).is_err() {
                trace.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
        answered
    }
}

/// The writer's thread: flushes whenever the queue runs dry, so the file is never more than a
/// moment behind, noting then how many lines were dropped so far if that changed.
fn write_lines(mut out: BufWriter<File>, queued: &mpsc::Receiver<String>, dropped: &AtomicU64) {
    let mut told = 0;
    loop {
        let line = match queued.try_recv() {
            Ok(line) => line,
            Err(mpsc::TryRecvError::Empty) => {
                let now = dropped.load(Ordering::Relaxed);
                if now != told {
                    told = now;
                    let _ = writeln!(out, "dropped {now}");
                }
                if out.flush().is_err() {
                    return;
                }
                match queued.recv() {
                    Ok(line) => line,
                    Err(_) => return,
                }
            }
            Err(mpsc::TryRecvError::Disconnected) => return,
        };
        if out.write_all(line.as_bytes()).is_err() {
            return;
        }
    }
}
