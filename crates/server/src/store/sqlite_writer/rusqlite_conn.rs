//! SQLite's prepared writes, run on a rusqlite connection of the writer's own that the
//! committer drives synchronously. sqlx runs each of its SQLite connections on a thread and hands it
//! every statement, so a write there costs a hand-off (two thread switches) per trip; here a
//! whole batch of writes costs one. It writes the same file as the writer's sqlx connection,
//! never at the same time: the committer holds the writer while it runs (`committer.rs`).

use std::path::Path;

use rusqlite::{Connection, ErrorCode, ffi};

use crate::store::prepared_write::{BoundWrite, Value};

/// The connection, and what it answers for each write of a batch.
pub(super) struct RusqliteConn {
    conn: Connection,
}

/// What became of one write: kept (true), declined (false), or an error.
pub(super) type Outcome = Result<bool, sqlx::Error>;

fn error(e: rusqlite::Error) -> sqlx::Error {
    sqlx::Error::Protocol(format!("SQLite: {e}"))
}

/// Someone else came first: a row this write would add is there already.
fn taken(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
    if f.code == ErrorCode::ConstraintViolation
        && matches!(
            f.extended_code,
            ffi::SQLITE_CONSTRAINT_UNIQUE | ffi::SQLITE_CONSTRAINT_PRIMARYKEY
        ))
}

/// A passive checkpoint on `conn`: it waits for nobody, and copies what no reader still
/// needs. The WAL's frames, and how many of them are in the database now.
pub(super) fn checkpoint(conn: &Connection) -> Result<(i64, i64), rusqlite::Error> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
        Ok((row.get(1)?, row.get(2)?))
    })
}

impl RusqliteConn {
    /// Opens the database file the pool writes.
    pub(super) fn open(file: &Path) -> Result<RusqliteConn, sqlx::Error> {
        let conn = Connection::open(file).map_err(error)?;
        // As the pool's connections (store/mod.rs): a kept write survives a power cut, and
        // checkpoints are the checkpointer's (`checkpointer.rs`).
        conn.execute_batch(
            "PRAGMA synchronous = FULL; PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON; \
             PRAGMA wal_autocheckpoint = 0;",
        )
        .map_err(error)?;
        Ok(RusqliteConn { conn })
    }

    /// Runs `writes` in one transaction, each in a savepoint of its own, and commits them:
    /// for each, in order, what became of it. A write that fails, declines, or breaks a unique
    /// constraint (someone else came first: declined) is undone alone; a COMMIT that fails
    /// keeps none.
    pub(super) fn run<'w>(
        &mut self,
        writes: impl IntoIterator<Item = &'w BoundWrite>,
    ) -> Vec<Outcome> {
        let writes = writes.into_iter();
        if let Err(e) = self.exec("BEGIN IMMEDIATE") {
            let why = format!("SQLite: {e}");
            return writes
                .map(|_| Err(sqlx::Error::Protocol(why.clone())))
                .collect();
        }
        let mut told = Vec::new();
        let mut broken = None;
        for write in writes {
            if let Some(why) = &broken {
                told.push(Err(sqlx::Error::Protocol(format!("not run: {why}"))));
                continue;
            }
            match self.one(write) {
                Ok(kept) => told.push(kept),
                // Its savepoint could not be undone: the transaction is no longer known.
                Err(e) => {
                    broken = Some(e.to_string());
                    told.push(Err(error(e)));
                }
            }
        }
        let ended = match broken {
            None => self.exec("COMMIT").map_err(|e| e.to_string()),
            Some(why) => Err(why),
        };
        if let Err(e) = ended {
            tracing::error!(error = %e, "a batch of writes failed to commit");
            let _ = self.exec("ROLLBACK");
            for t in &mut told {
                if matches!(t, Ok(true)) {
                    *t = Err(sqlx::Error::Protocol(format!("commit failed: {e}")));
                }
            }
        }
        told
    }

    /// A passive checkpoint: the WAL's frames, and how many of them are in the database now.
    pub(super) fn checkpoint(&self) -> Result<(i64, i64), rusqlite::Error> {
        checkpoint(&self.conn)
    }

    /// One write in its savepoint: what became of it, or why its savepoint could not be ended.
    fn one(&mut self, write: &BoundWrite) -> Result<Outcome, rusqlite::Error> {
        self.exec("SAVEPOINT w")?;
        let told = match self.statements(write) {
            Ok(done) if done == write.counted_steps().len() => {
                self.exec("RELEASE w")?;
                return Ok(Ok(true));
            }
            Ok(_) => Ok(false),
            Err(e) if taken(&e) => Ok(false),
            Err(e) => Err(error(e)),
        };
        self.exec("ROLLBACK TO w")?;
        self.exec("RELEASE w")?;
        Ok(told)
    }

    /// A statement that takes no arguments, prepared once: every write opens and ends its
    /// savepoint and every batch its transaction, and parsing those anew each time cost more
    /// than running them.
    fn exec(&self, sql: &str) -> Result<(), rusqlite::Error> {
        self.conn.prepare_cached(sql)?.execute([]).map(|_| ())
    }

    /// Runs a write's statements: how many of them changed a row.
    fn statements(&mut self, write: &BoundWrite) -> Result<usize, rusqlite::Error> {
        let mut done = 0;
        for sql in write.counted_steps() {
            let mut statement = self.conn.prepare_cached(sql)?;
            for i in 1..=statement.parameter_count() {
                // `$N` is a name to SQLite, numbered by where it first appears: bind by name.
                let n = statement
                    .parameter_name(i)
                    .and_then(|name| name.strip_prefix('$'))
                    .and_then(|n| n.parse::<usize>().ok());
                match n.and_then(|n| write.args().get(n.wrapping_sub(1))) {
                    Some(Value::Text(s)) => statement.raw_bind_parameter(i, s)?,
                    Some(Value::Int(v)) => statement.raw_bind_parameter(i, v)?,
                    Some(Value::MaybeText(s)) => statement.raw_bind_parameter(i, s)?,
                    Some(Value::MaybeInt(v)) => statement.raw_bind_parameter(i, v)?,
                    None => {
                        return Err(rusqlite::Error::InvalidParameterCount(
                            i,
                            write.args().len(),
                        ));
                    }
                }
            }
            if statement.raw_execute()? > 0 {
                done += 1;
            }
        }
        Ok(done)
    }
}
