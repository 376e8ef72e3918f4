//! SQLite's checkpoints, off the commit path. By default the connection whose commit takes the
//! WAL past 1 000 pages copies them into the database file and syncs it inside that commit,
//! so every few hundred batches one batch of moves waited for a whole checkpoint. Here every
//! connection leaves checkpoints alone (`wal_autocheckpoint = 0`) and a thread of its own runs
//! a passive one a few times a second: it copies what no reader still needs, beside the
//! writes, never holding them up. The writer starts the WAL over once all of it is copied,
//! which under a steady stream of writes never happens by itself: once the WAL is long, the
//! committer copies the few frames written since before its next batch, with no write
//! transaction open (`committer.rs`).

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use rusqlite::Connection;

use super::committer::Line;
use super::rusqlite_conn::checkpoint;

/// How often the WAL is copied into the database: small enough that a checkpoint has a few
/// hundred pages to copy, not thousands.
const EVERY: Duration = Duration::from_millis(200);

/// The WAL's length, in frames (pages of 4 KiB), from which the committer finishes a
/// checkpoint: its few last frames then take a millisecond or two of the commit path, a few
/// times a second at the most under the peer bench's writes.
/// (The tests' WAL is long sooner, so that they write less.)
const LONG: i64 = if cfg!(test) { 256 } else { 4096 };

/// Stops the checkpoints when dropped.
pub(super) struct Checkpointer {
    stop: Arc<(Mutex<bool>, Condvar)>,
}

impl Checkpointer {
    /// Starts checkpointing the database in `file`, asking `line`'s committer to finish
    /// when the WAL is long.
    pub(super) fn start(file: &Path, line: Arc<Line>) -> Result<Checkpointer, sqlx::Error> {
        let conn = Connection::open(file).map_err(|e| sqlx::Error::Protocol(e.to_string()))?;
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let stopped = stop.clone();
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || checkpoints(&conn, &stopped, &line))
            .map_err(sqlx::Error::Io)?;
        Ok(Checkpointer { stop })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        let (stopped, wake) = &*self.stop;
        *stopped
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        wake.notify_one();
    }
}

fn checkpoints(conn: &Connection, stop: &(Mutex<bool>, Condvar), line: &Line) {
    let (stopped, wake) = stop;
    let mut asleep = stopped
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // The WAL's length at the last turn: after it starts over it keeps its old length until
    // the next write, and a quiet server need not be asked again and again.
    let mut last = 0;
    loop {
        asleep = wake
            .wait_timeout(asleep, EVERY)
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0;
        if *asleep {
            return;
        }
        // A passive checkpoint waits for nobody: what a reader still needs is copied next time.
        match checkpoint(conn) {
            Ok((wal, copied)) => {
                tracing::trace!(wal, copied, "checkpointed the WAL");
                if wal >= LONG && wal != last {
                    line.ask(|asked| asked.checkpoint = true);
                }
                last = wal;
            }
            Err(e) => tracing::warn!(error = %e, "a checkpoint failed; the next one tries again"),
        }
    }
}
