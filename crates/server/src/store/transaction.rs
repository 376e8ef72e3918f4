//! A write transaction on either database: statements run on it through `&mut *write`.

use std::ops::{Deref, DerefMut};

use std::sync::Arc;

use sqlx::{AnyConnection, AnyPool, Transaction};
use tokio::sync::OwnedMutexGuard;

use super::announcer::Announcer;
use super::sqlite_writer::{Batch, Undo, Writer, closed, run};

/// One write transaction: statements run on it through `&mut *write`; `commit` keeps them
/// (returning once they are durable), `rollback` or dropping it undoes them.
pub struct Write<'s> {
    kind: Kind<'s>,
}

enum Kind<'s> {
    Postgres {
        tx: Transaction<'static, sqlx::Any>,
        announcer: Arc<Announcer>,
        /// The events recorded in it (`Store::tell`), announced once it commits.
        told: Vec<(String, String)>,
    },
    /// The batch stays locked, its connection lent to this write, until it ends.
    Sqlite {
        writer: &'s Writer,
        batch: OwnedMutexGuard<Batch>,
        conn: AnyConnection,
        undo: Undo,
    },
    Ended,
}

impl<'s> Write<'s> {
    pub(super) async fn postgres(
        pool: &AnyPool,
        announcer: &Arc<Announcer>,
    ) -> Result<Write<'s>, sqlx::Error> {
        Ok(Write {
            kind: Kind::Postgres {
                tx: pool.begin().await?,
                announcer: announcer.clone(),
                told: Vec::new(),
            },
        })
    }

    /// Events recorded in this write, to announce to the other processes once it commits
    /// (PostgreSQL; SQLite's one process delivers its own).
    pub(super) fn told(&mut self, events: &[(String, String)]) {
        if let Kind::Postgres { told, .. } = &mut self.kind {
            told.extend_from_slice(events);
        }
    }

    pub(super) async fn sqlite(writer: &'s Writer) -> Result<Write<'s>, sqlx::Error> {
        let mut batch = writer.batch.clone().lock_owned().await;
        batch.tidy().await;
        let mut conn = batch.conn.take().ok_or_else(closed)?;
        let (undo, opening) = batch.begin_next();
        if let Err(e) = run(&mut conn, opening).await {
            batch.conn = Some(conn);
            batch.abandoned = Some(undo);
            return Err(e);
        }
        Ok(Write {
            kind: Kind::Sqlite {
                writer,
                batch,
                conn,
                undo,
            },
        })
    }

    /// Keeps the write: on SQLite, once the batch it joined is committed; on PostgreSQL its
    /// events are then announced, or, when the commit failed (it may still have happened),
    /// caught up.
    pub async fn commit(mut self) -> Result<(), sqlx::Error> {
        match std::mem::replace(&mut self.kind, Kind::Ended) {
            Kind::Postgres {
                tx,
                announcer,
                told,
            } => {
                let committed = tx.commit().await;
                match committed {
                    Ok(()) => announcer.announce(&told),
                    Err(_) => announcer.unsure(&told),
                }
                committed
            }
            Kind::Sqlite {
                writer,
                mut batch,
                conn,
                undo,
            } => {
                batch.conn = Some(conn);
                // The next write (or the COMMIT) releases the savepoint: one statement fewer.
                batch.unreleased = matches!(undo, Undo::Savepoint);
                match writer.committed(batch).await {
                    Ok(()) => Ok(()),
                    Err(why) => Err(sqlx::Error::Protocol(why.to_string())),
                }
            }
            Kind::Ended => Err(closed()),
        }
    }

    /// Undoes the write. On SQLite it returns once the writes before it in its batch are
    /// committed: whatever made it give up (a row taken, a version moved on) may be theirs,
    /// and the caller reads it next from another connection.
    pub async fn rollback(mut self) -> Result<(), sqlx::Error> {
        match std::mem::replace(&mut self.kind, Kind::Ended) {
            Kind::Postgres { tx, .. } => tx.rollback().await,
            Kind::Sqlite {
                writer,
                mut batch,
                conn,
                undo,
            } => {
                batch.conn = Some(conn);
                batch.abandoned = Some(undo);
                batch.tidy().await;
                if !batch.open {
                    return Ok(());
                }
                // Their fate is theirs to hear; this write kept nothing either way.
                let _ = writer.committed(batch).await;
                Ok(())
            }
            Kind::Ended => Ok(()),
        }
    }

    /// Gives up with `error`: the write is undone (as `rollback`) and the error returned.
    pub async fn refuse<T, E: From<sqlx::Error>>(self, error: E) -> Result<T, E> {
        self.rollback().await?;
        Err(error)
    }
}

impl Drop for Write<'_> {
    fn drop(&mut self) {
        // PostgreSQL's transaction rolls itself back; SQLite's write is undone by whoever
        // takes the batch next.
        if let Kind::Sqlite {
            mut batch,
            conn,
            undo,
            ..
        } = std::mem::replace(&mut self.kind, Kind::Ended)
        {
            batch.conn = Some(conn);
            batch.abandoned = Some(undo);
        }
    }
}

impl Deref for Write<'_> {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        match &self.kind {
            Kind::Postgres { tx, .. } => tx,
            Kind::Sqlite { conn, .. } => conn,
            Kind::Ended => unreachable!("a write is used only until it ends"),
        }
    }
}

impl DerefMut for Write<'_> {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        match &mut self.kind {
            Kind::Postgres { tx, .. } => tx,
            Kind::Sqlite { conn, .. } => conn,
            Kind::Ended => unreachable!("a write is used only until it ends"),
        }
    }
}
