//! SQLite's writer. PostgreSQL gives each write transaction its own connection. SQLite has
//! one writer and one fsync per commit, so its writes share a transaction (group commit,
//! `group_commit.rs`): each runs in turn on one connection, inside a savepoint of the open
//! batch, and waits for the batch's COMMIT before it returns; one COMMIT makes durable every
//! write that ran while the last one was syncing.
//!
//! Each statement sent to SQLite through sqlx is a hand-off to the connection's thread and
//! back, and the writer is one at a time, so what a write does while it holds the writer bounds
//! how many writes a second the server takes. A kept savepoint is released by the statement
//! that opens the next write. The prepared writes (`prepared_write.rs`: a move, a room's
//! change) are queued for the committer (`committer.rs`), which runs every one queued in one
//! batch on a connection it drives itself (`rusqlite_conn.rs`): one hand-off for the batch,
//! not several per write.

mod checkpointer;
mod committer;
mod group_commit;
mod rusqlite_conn;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Condvar};

use sqlx::AnyPool;
use tokio::sync::{Mutex, OwnedMutexGuard, oneshot};

use checkpointer::Checkpointer;
use committer::{Asked, Committer, Line, Queued};
use group_commit::Verdict;
pub(super) use group_commit::{Batch, Undo, closed, run};
use rusqlite_conn::RusqliteConn;

use super::prepared_write::BoundWrite;

/// SQLite's group-commit writer.
pub(super) struct Writer {
    pub(super) batch: Arc<Mutex<Batch>>,
    /// What the committer is asked to do.
    line: Arc<Line>,
    /// Ends when the committer's thread has let go of its connection.
    stopped: std::sync::Mutex<Option<oneshot::Receiver<()>>>,
    /// The WAL's checkpoints, stopped with the writer.
    _checkpoints: Checkpointer,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Writer")
    }
}

impl Writer {
    /// The writer on a connection of its own, and its committer.
    pub(super) async fn start(pool: &AnyPool) -> Result<Arc<Writer>, sqlx::Error> {
        let file: String =
            sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                .fetch_one(pool)
                .await?;
        if file.is_empty() {
            return Err(sqlx::Error::Configuration(
                "SQLite needs a file: a database in memory is one per connection".into(),
            ));
        }
        let file = PathBuf::from(file);
        let own = RusqliteConn::open(&file)?;
        let conn = pool.acquire().await?.detach();
        let batch = Arc::new(Mutex::new(Batch {
            conn: Some(conn),
            open: false,
            unreleased: false,
            abandoned: None,
            waiting: Vec::new(),
        }));
        let line = Arc::new(Line {
            asked: std::sync::Mutex::new(Asked::default()),
            ready: Condvar::new(),
            batches: AtomicU64::new(0),
        });
        let checkpoints = Checkpointer::start(&file, line.clone())?;
        let (stop, stopped) = oneshot::channel();
        let committer = Committer {
            batch: batch.clone(),
            line: line.clone(),
            runtime: tokio::runtime::Handle::current(),
            conn: Some(own),
            file,
            _stopped: stop,
        };
        std::thread::Builder::new()
            .name("sqlite-commit".into())
            .spawn(move || committer.serve())
            .map_err(sqlx::Error::Io)?;
        Ok(Arc::new(Writer {
            batch,
            line,
            stopped: std::sync::Mutex::new(Some(stopped)),
            _checkpoints: checkpoints,
        }))
    }

    /// Has the committer run `write` in the next batch: whether it was kept (once committed)
    /// or declined (once the writes before it are committed, as `Write::rollback`).
    pub(super) async fn submit(&self, write: BoundWrite) -> Result<bool, sqlx::Error> {
        let (answer, answered) = oneshot::channel();
        // A closed writer drops the write unqueued, and with it the answer: refused.
        self.line.ask(|asked| {
            if !asked.closed {
                asked.queue.push(Queued { write, answer });
            }
        });
        answered.await.unwrap_or_else(|_| Err(closed()))
    }

    /// Lets go of the batch and waits for its COMMIT.
    pub(super) async fn committed(&self, mut batch: OwnedMutexGuard<Batch>) -> Verdict {
        let (tell, told) = oneshot::channel();
        batch.waiting.push(tell);
        drop(batch);
        self.line.ask(|asked| asked.commit = true);
        told.await
            .unwrap_or_else(|_| Err("the store is closed".into()))
    }

    /// Commits what is pending, closes the connection, and waits for the committer to let go
    /// of its own.
    pub(super) async fn close(&self) {
        let mut batch = self.batch.lock().await;
        batch.commit().await;
        if let Some(conn) = batch.conn.take() {
            let _ = sqlx::Connection::close(conn).await;
        }
        drop(batch);
        self.line.ask(|asked| asked.closed = true);
        let stopped = self
            .stopped
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(stopped) = stopped {
            let _ = stopped.await;
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.line.ask(|asked| asked.closed = true);
    }
}
