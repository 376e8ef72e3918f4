//! The committer: a thread of its own that commits the writer connection's batches and runs
//! the prepared writes queued for it on its own connection (`rusqlite_conn.rs`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar};

use tokio::sync::{Mutex, oneshot};

use super::group_commit::{Batch, closed};
use super::rusqlite_conn::{Outcome, RusqliteConn};
use crate::store::prepared_write::BoundWrite;

/// Between the writes and the committer's thread.
pub(super) struct Line {
    pub(super) asked: std::sync::Mutex<Asked>,
    /// Wakes the committer, asleep while nothing is asked.
    pub(super) ready: Condvar,
    /// Batches committed so far.
    pub(super) batches: AtomicU64,
}

#[derive(Default)]
pub(super) struct Asked {
    /// Prepared writes, for the committer to run. Each caller waits for its answer, so
    /// there are never more than callers.
    pub(super) queue: Vec<Queued>,
    /// A write waits in the batch for its COMMIT.
    pub(super) commit: bool,
    /// The WAL is long: copy what is left of it before the next batch (`checkpointer.rs`).
    pub(super) checkpoint: bool,
    /// The committer waits for `ready`: whoever asks something must wake it.
    pub(super) asleep: bool,
    /// The writer is closed or gone: the committer stops, and writes are refused.
    pub(super) closed: bool,
}

impl Line {
    pub(super) fn asked(&self) -> std::sync::MutexGuard<'_, Asked> {
        // Every change to it is one assignment or push: a panic cannot leave it half changed.
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Asks the committer for something (`ask` says what), waking it if it sleeps.
    pub(super) fn ask(&self, ask: impl FnOnce(&mut Asked)) {
        let mut asked = self.asked();
        ask(&mut asked);
        if std::mem::take(&mut asked.asleep) {
            self.ready.notify_one();
        }
    }

    /// The writes queued once something is asked (they may be none when only a commit or a
    /// checkpoint is), and whether a checkpoint is; None once the writer is closed.
    pub(super) fn next(&self) -> Option<(Vec<Queued>, bool)> {
        let mut asked = self.asked();
        loop {
            if asked.closed {
                return None;
            }
            if !asked.queue.is_empty() || asked.commit || asked.checkpoint {
                asked.commit = false;
                let checkpoint = std::mem::take(&mut asked.checkpoint);
                return Some((std::mem::take(&mut asked.queue), checkpoint));
            }
            asked.asleep = true;
            asked = self
                .ready
                .wait(asked)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// A write queued for the committer, and who waits for its answer.
pub(super) struct Queued {
    pub(super) write: BoundWrite,
    pub(super) answer: oneshot::Sender<Outcome>,
}

/// The committer: a thread of its own that commits the writer connection's batches and runs
/// the prepared writes on its own connection. A task on the async runtime waited in
/// the runtime's queue behind the connections' tasks before each batch, and handed every
/// batch to a blocking thread and back: about a third of a millisecond of every batch, while
/// the writes in the next one waited (`velha-load --peer-matches`).
pub(super) struct Committer {
    pub(super) batch: Arc<Mutex<Batch>>,
    pub(super) line: Arc<Line>,
    /// The sqlx connection's futures are driven here, off the runtime's threads.
    pub(super) runtime: tokio::runtime::Handle,
    /// None once it could not be opened again.
    pub(super) conn: Option<RusqliteConn>,
    /// The database's file, to open its connection again should it be lost.
    pub(super) file: PathBuf,
    /// Dropped last, once its connection is closed: `Writer::close` waits for it.
    pub(super) _stopped: oneshot::Sender<()>,
}

impl Committer {
    pub(super) fn serve(mut self) {
        let held = self.batch.clone();
        while let Some((queued, checkpoint)) = self.line.next() {
            let mut batch = held.blocking_lock();
            if batch.conn.is_none() {
                for q in queued {
                    let _ = q.answer.send(Err(closed()));
                }
                continue;
            }
            // One connection writes the file at a time: what the writer's holds open is
            // committed before the queued writes run.
            if batch.open || batch.abandoned.is_some() {
                let writes = batch.waiting.len();
                if self.runtime.block_on(batch.commit()) {
                    metrics::histogram!(crate::metrics::BATCH_WRITES).record(writes as f64);
                    let n = self.line.batches.fetch_add(1, Ordering::Relaxed) + 1;
                    tracing::trace!(writes, batches = n, "committed a batch of writes");
                }
            }
            // Here, and only here, no write transaction is open on either connection: one
            // that began before the checkpoint would append to the WAL where the next write
            // should start it over.
            if checkpoint {
                self.finish_checkpoint();
            }
            if !queued.is_empty() {
                let outcomes = self.run_prepared(&queued);
                // Let the writer go before waking the writes.
                drop(batch);
                for (q, outcome) in queued.into_iter().zip(outcomes) {
                    let _ = q.answer.send(outcome);
                }
            }
        }
    }

    /// Copies what the checkpointer could not, so that the whole WAL is in the database and
    /// the next write starts it over. Under a steady stream of writes the checkpointer never
    /// catches up with the newest frames, SQLite never starts the WAL over, and it grew by the
    /// whole run's writes (371 MB in 9 s of the peer bench), each commit's sync on an ever
    /// longer file.
    fn finish_checkpoint(&self) {
        let Some(conn) = self.conn.as_ref() else {
            return;
        };
        match conn.checkpoint() {
            Ok((wal, copied)) => {
                tracing::trace!(
                    wal,
                    copied,
                    whole = wal == copied,
                    "checkpointed between batches"
                );
            }
            Err(e) => tracing::warn!(error = %e, "a checkpoint between batches failed"),
        }
    }

    /// Runs prepared writes as one batch on its own connection: what became of each.
    fn run_prepared(&mut self, queued: &[Queued]) -> Vec<Outcome> {
        let lost = || queued.iter().map(|_| Err(closed())).collect();
        if self.conn.is_none() {
            self.conn = RusqliteConn::open(&self.file)
                .inspect_err(|e| tracing::error!(error = %e, "cannot open SQLite again"))
                .ok();
        }
        let Some(conn) = self.conn.as_mut() else {
            return lost();
        };
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            conn.run(queued.iter().map(|q| &q.write))
        }));
        match ran {
            Ok(told) => {
                metrics::histogram!(crate::metrics::BATCH_WRITES).record(queued.len() as f64);
                let n = self.line.batches.fetch_add(1, Ordering::Relaxed) + 1;
                tracing::trace!(writes = queued.len(), batches = n, "ran a batch of writes");
                told
            }
            // Dropping the connection rolls back what it held; the next batch opens another.
            Err(_) => {
                tracing::error!("a batch of prepared writes was lost");
                self.conn = None;
                lost()
            }
        }
    }
}

impl Drop for Committer {
    /// Whether it stops or panics, no write is left waiting for it.
    fn drop(&mut self) {
        let queued = {
            let mut asked = self.line.asked();
            asked.closed = true;
            std::mem::take(&mut asked.queue)
        };
        for q in queued {
            let _ = q.answer.send(Err(closed()));
        }
    }
}
