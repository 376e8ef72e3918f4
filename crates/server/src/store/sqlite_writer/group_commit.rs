//! SQLite's group commit: the writes of a batch share one transaction, and one COMMIT (one
//! fsync) makes all of them durable. Each write runs inside a savepoint of the open batch, so an
//! error or a decline undoes only that write.

use std::sync::Arc;

use sqlx::AnyConnection;
use tokio::sync::oneshot;

/// What a batch's COMMIT said, told to every write in it.
pub(super) type Verdict = Result<(), Arc<str>>;

/// SQLite's one writing connection and the batch open on it.
pub(in crate::store) struct Batch {
    /// None once the store is closed.
    pub(in crate::store) conn: Option<AnyConnection>,
    /// A transaction is open (BEGIN IMMEDIATE ran).
    pub(in crate::store) open: bool,
    /// The last write's savepoint is kept but not yet released: the next write releases it
    /// (COMMIT ends it too).
    pub(in crate::store) unreleased: bool,
    /// A write was dropped half done: its savepoint (or the whole batch, when it was first)
    /// must be undone before anything else runs.
    pub(in crate::store) abandoned: Option<Undo>,
    /// Writes waiting for the COMMIT.
    pub(in crate::store) waiting: Vec<oneshot::Sender<Verdict>>,
}

/// How to undo one write.
#[derive(Clone, Copy)]
pub(in crate::store) enum Undo {
    /// It opened the batch: roll the whole transaction back.
    Batch,
    /// It joined an open batch: roll back to its savepoint.
    Savepoint,
}

pub(in crate::store) fn closed() -> sqlx::Error {
    sqlx::Error::PoolClosed
}

pub(in crate::store) async fn run(conn: &mut AnyConnection, sql: &str) -> Result<(), sqlx::Error> {
    sqlx::query(sql).execute(conn).await.map(drop)
}

impl Batch {
    pub(in crate::store) fn conn(&mut self) -> Result<&mut AnyConnection, sqlx::Error> {
        self.conn.as_mut().ok_or_else(closed)
    }

    /// Undoes a write dropped half done. When its savepoint cannot be undone the transaction
    /// is gone (SQLite rolls a whole transaction back on some errors): the writes waiting in
    /// it are told so, never that they were kept.
    pub(in crate::store) async fn tidy(&mut self) {
        match self.abandoned.take() {
            None => {}
            Some(Undo::Batch) => self.fail("the write was undone").await,
            Some(Undo::Savepoint) => {
                let undone = match self.conn() {
                    // Both in one hand-off: the query runs each statement of its text.
                    Ok(conn) => run(conn, "ROLLBACK TO w; RELEASE w").await.is_ok(),
                    Err(_) => false,
                };
                if !undone {
                    self.fail("an earlier write in the same transaction failed")
                        .await;
                }
            }
        }
    }

    /// Ends the transaction without keeping anything, telling the writes waiting why.
    pub(in crate::store) async fn fail(&mut self, why: &str) {
        if self.open
            && let Ok(conn) = self.conn()
        {
            let _ = run(conn, "ROLLBACK").await;
        }
        self.open = false;
        self.unreleased = false;
        let why: Arc<str> = why.into();
        for w in self.waiting.drain(..) {
            let _ = w.send(Err(why.clone()));
        }
    }

    /// Commits the batch and tells its writes; whether it committed one.
    pub(in crate::store) async fn commit(&mut self) -> bool {
        self.tidy().await;
        if !self.open {
            return false;
        }
        let verdict = match self.conn() {
            Ok(conn) => run(conn, "COMMIT").await,
            Err(e) => Err(e),
        };
        match verdict {
            Ok(()) => {
                self.open = false;
                self.unreleased = false;
                for w in self.waiting.drain(..) {
                    let _ = w.send(Ok(()));
                }
                true
            }
            Err(e) => {
                tracing::error!(error = %e, "a batch of writes failed to commit");
                self.fail(&format!("commit failed: {e}")).await;
                false
            }
        }
    }

    /// Starts the next write: how to undo it, and the statement that opens it, to be sent
    /// before anything else (if sending it fails, undoing the write finds how far it got).
    pub(in crate::store) fn begin_next(&mut self) -> (Undo, &'static str) {
        let next = match (self.open, self.unreleased) {
            (false, _) => (Undo::Batch, "BEGIN IMMEDIATE"),
            (true, false) => (Undo::Savepoint, "SAVEPOINT w"),
            // One hand-off instead of two: the last write's RELEASE goes with this opening.
            (true, true) => (Undo::Savepoint, "RELEASE w; SAVEPOINT w"),
        };
        self.open = true;
        self.unreleased = false;
        next
    }
}
