//! Write transactions. PostgreSQL gives each its own. SQLite has one writer and one fsync per
//! commit, so its writes share a transaction (group commit): each runs in turn on one
//! connection, inside a savepoint of the open batch, and waits for the batch's COMMIT before it
//! returns; one COMMIT makes durable every write that ran while the last one was syncing. An
//! error or a decline undoes only that write's savepoint.
//!
//! Each statement sent to SQLite through sqlx is a hand-off to the connection's thread and
//! back, and the writer is one at a time, so what a write does while it holds the writer bounds
//! how many writes a second the server takes. A kept savepoint is released by the statement
//! that opens the next write. The writes the server makes most (a room's) are given `Whole` to
//! the committer, which runs every one queued in one batch on a connection it drives itself
//! (`direct.rs`): one hand-off for the batch, not several per write.

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar};

use sqlx::{AnyConnection, AnyPool, Transaction};
use tokio::sync::{Mutex, OwnedMutexGuard, oneshot};

use super::direct::{self, Direct};

/// What a batch's COMMIT said, told to every write in it.
type Verdict = Result<(), Arc<str>>;

/// SQLite's one writing connection and the batch open on it.
struct Batch {
    /// None once the store is closed.
    conn: Option<AnyConnection>,
    /// A transaction is open (BEGIN IMMEDIATE ran).
    open: bool,
    /// The last write's savepoint is kept but not yet released: the next write releases it
    /// (COMMIT ends it too).
    unreleased: bool,
    /// A write was dropped half done: its savepoint (or the whole batch, when it was first)
    /// must be undone before anything else runs.
    abandoned: Option<Undo>,
    /// Writes waiting for the COMMIT.
    waiting: Vec<oneshot::Sender<Verdict>>,
}

/// How to undo one write.
#[derive(Clone, Copy)]
enum Undo {
    /// It opened the batch: roll the whole transaction back.
    Batch,
    /// It joined an open batch: roll back to its savepoint.
    Savepoint,
}

/// SQLite's group-commit writer.
pub(super) struct Writer {
    batch: Arc<Mutex<Batch>>,
    /// What the committer is asked to do.
    line: Arc<Line>,
    /// Ends when the committer's thread has let go of its connection.
    stopped: std::sync::Mutex<Option<oneshot::Receiver<()>>>,
}

/// Between the writes and the committer's thread.
struct Line {
    asked: std::sync::Mutex<Asked>,
    /// Wakes the committer, asleep while nothing is asked.
    ready: Condvar,
    /// Batches committed so far.
    batches: AtomicU64,
}

#[derive(Default)]
struct Asked {
    /// Writes given whole, for the committer to run. Each caller waits for its answer, so
    /// there are never more than callers.
    queue: Vec<Queued>,
    /// A write waits in the batch for its COMMIT.
    commit: bool,
    /// The committer waits for `ready`: whoever asks something must wake it.
    asleep: bool,
    /// The writer is closed or gone: the committer stops, and writes are refused.
    closed: bool,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Writer")
    }
}

fn closed() -> sqlx::Error {
    sqlx::Error::PoolClosed
}

async fn run(conn: &mut AnyConnection, sql: &str) -> Result<(), sqlx::Error> {
    sqlx::query(sql).execute(conn).await.map(drop)
}

impl Batch {
    fn conn(&mut self) -> Result<&mut AnyConnection, sqlx::Error> {
        self.conn.as_mut().ok_or_else(closed)
    }

    /// Undoes a write dropped half done. When its savepoint cannot be undone the transaction
    /// is gone (SQLite rolls a whole transaction back on some errors): the writes waiting in
    /// it are told so, never that they were kept.
    async fn tidy(&mut self) {
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
    async fn fail(&mut self, why: &str) {
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
    async fn commit(&mut self) -> bool {
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
    fn begin_next(&mut self) -> (Undo, &'static str) {
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

impl Line {
    fn asked(&self) -> std::sync::MutexGuard<'_, Asked> {
        // Every change to it is one assignment or push: a panic cannot leave it half changed.
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Asks the committer for something (`ask` says what), waking it if it sleeps.
    fn ask(&self, ask: impl FnOnce(&mut Asked)) {
        let mut asked = self.asked();
        ask(&mut asked);
        if std::mem::take(&mut asked.asleep) {
            self.ready.notify_one();
        }
    }

    /// The writes queued once something is asked (they may be none when only a commit is);
    /// None once the writer is closed.
    fn next(&self) -> Option<Vec<Queued>> {
        let mut asked = self.asked();
        loop {
            if asked.closed {
                return None;
            }
            if !asked.queue.is_empty() || asked.commit {
                asked.commit = false;
                return Some(std::mem::take(&mut asked.queue));
            }
            asked.asleep = true;
            asked = self
                .ready
                .wait(asked)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// The committer: a thread of its own that commits the writer connection's batches and runs
/// the writes given whole on its direct connection. A task on the async runtime waited in
/// the runtime's queue behind the connections' tasks before each batch, and handed every
/// batch to a blocking thread and back: about a third of a millisecond of every batch, while
/// the writes in the next one waited (`velha-load --peer-matches`).
struct Committer {
    batch: Arc<Mutex<Batch>>,
    line: Arc<Line>,
    /// The sqlx connection's futures are driven here, off the runtime's threads.
    runtime: tokio::runtime::Handle,
    /// None once it could not be opened again.
    direct: Option<Direct>,
    /// The database's file, to open the direct connection again should it be lost.
    file: PathBuf,
    /// Dropped last, once the direct connection is closed: `Writer::close` waits for it.
    _stopped: oneshot::Sender<()>,
}

impl Committer {
    fn serve(mut self) {
        let held = self.batch.clone();
        while let Some(queued) = self.line.next() {
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
                    let n = self.line.batches.fetch_add(1, Ordering::Relaxed) + 1;
                    tracing::trace!(writes, batches = n, "committed a batch of writes");
                }
            }
            if !queued.is_empty() {
                let told = self.run_direct(&queued);
                // Let the writer go before waking the writes.
                drop(batch);
                for (q, told) in queued.into_iter().zip(told) {
                    let _ = q.answer.send(told);
                }
            }
        }
    }

    /// Runs writes given whole as one batch on the direct connection: what became of each.
    fn run_direct(&mut self, queued: &[Queued]) -> Vec<direct::Told> {
        let lost = || queued.iter().map(|_| Err(closed())).collect();
        if self.direct.is_none() {
            self.direct = Direct::open(&self.file)
                .inspect_err(|e| tracing::error!(error = %e, "cannot open SQLite again"))
                .ok();
        }
        let Some(direct) = self.direct.as_mut() else {
            return lost();
        };
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            direct.run(queued.iter().map(|q| &q.whole))
        }));
        match ran {
            Ok(told) => {
                let n = self.line.batches.fetch_add(1, Ordering::Relaxed) + 1;
                tracing::trace!(writes = queued.len(), batches = n, "ran a batch of writes");
                told
            }
            // Dropping the connection rolls back what it held; the next batch opens another.
            Err(_) => {
                tracing::error!("a batch of writes given whole was lost");
                self.direct = None;
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
        let direct = Direct::open(&file)?;
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
        let (stop, stopped) = oneshot::channel();
        let committer = Committer {
            batch: batch.clone(),
            line: line.clone(),
            runtime: tokio::runtime::Handle::current(),
            direct: Some(direct),
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
        }))
    }

    /// Has the committer run `whole` in the next batch: whether it was kept (once committed)
    /// or declined (once the writes before it are committed, as `Write::rollback`).
    pub(super) async fn submit(&self, whole: Whole) -> Result<bool, sqlx::Error> {
        let (answer, answered) = oneshot::channel();
        // A closed writer drops the write unqueued, and with it the answer: refused.
        self.line.ask(|asked| {
            if !asked.closed {
                asked.queue.push(Queued { whole, answer });
            }
        });
        answered.await.unwrap_or_else(|_| Err(closed()))
    }

    /// Lets go of the batch and waits for its COMMIT.
    async fn committed(&self, mut batch: OwnedMutexGuard<Batch>) -> Verdict {
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

/// A write given whole: statements run in order, each given the `args` it names (`$1`…),
/// kept only when together they return `expect` rows (give each a `RETURNING` to count the rows
/// it changed). One that breaks a unique constraint is declined: someone else came first.
pub struct Whole {
    /// Its statements, in order.
    pub statements: &'static [&'static str],
    /// Their arguments.
    pub args: Vec<Value>,
    /// The rows they return when the write is to be kept.
    pub expect: usize,
    /// On PostgreSQL, instead: the same write as one statement, chained by `WITH`, which is a
    /// transaction of its own and one round trip to the database where `statements` take one
    /// each plus BEGIN and COMMIT. It returns a row when the write is kept. Only its first
    /// step may find nothing to do; every later one works on the rows the one before returned,
    /// so it is kept whole or not at all.
    pub postgres: Option<&'static str>,
}

/// An argument of a `Whole` write.
pub enum Value {
    /// Text.
    Text(String),
    /// An integer.
    Int(i64),
    /// Text or NULL.
    MaybeText(Option<String>),
    /// An integer or NULL.
    MaybeInt(Option<i64>),
}

/// A write queued for the committer, and who waits for its answer.
struct Queued {
    whole: Whole,
    answer: oneshot::Sender<Result<bool, sqlx::Error>>,
}

fn bound<'q>(
    sql: &'q str,
    args: &'q [Value],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    args.iter().fold(sqlx::query(sql), |q, arg| match arg {
        Value::Text(s) => q.bind(s.as_str()),
        Value::Int(i) => q.bind(*i),
        Value::MaybeText(s) => q.bind(s.as_deref()),
        Value::MaybeInt(i) => q.bind(*i),
    })
}

/// The highest `$N` a statement names.
fn highest_argument(sql: &str) -> usize {
    sql.split('$')
        .skip(1)
        .filter_map(|after| {
            let digits = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            after[..digits].parse().ok()
        })
        .max()
        .unwrap_or(0)
}

impl Whole {
    /// Runs it on PostgreSQL, in a transaction of its own; whether it was kept.
    pub(super) async fn run_alone(self, pool: &AnyPool) -> Result<bool, sqlx::Error> {
        if let Some(sql) = self.postgres {
            let args = &self.args[..highest_argument(sql).min(self.args.len())];
            return match bound(sql, args).fetch_all(pool).await {
                Ok(rows) => Ok(!rows.is_empty()),
                Err(sqlx::Error::Database(d)) if d.is_unique_violation() => Ok(false),
                Err(e) => Err(e),
            };
        }
        let mut tx = pool.begin().await?;
        let mut returned = 0;
        for s in self.statements {
            // PostgreSQL keeps each statement prepared with as many arguments as it was first
            // given: give each the same number every time, the ones it names.
            let args = &self.args[..highest_argument(s).min(self.args.len())];
            match bound(s, args).fetch_all(&mut *tx).await {
                Ok(rows) => returned += rows.len(),
                Err(sqlx::Error::Database(d)) if d.is_unique_violation() => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        if returned != self.expect {
            tx.rollback().await?;
            return Ok(false);
        }
        tx.commit().await?;
        Ok(true)
    }
}

/// One write transaction: statements run on it through `&mut *write`; `commit` keeps them
/// (returning once they are durable), `rollback` or dropping it undoes them.
pub struct Write<'s> {
    kind: Kind<'s>,
}

enum Kind<'s> {
    Postgres(Transaction<'static, sqlx::Any>),
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
    pub(super) async fn postgres(pool: &AnyPool) -> Result<Write<'s>, sqlx::Error> {
        Ok(Write {
            kind: Kind::Postgres(pool.begin().await?),
        })
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

    /// Keeps the write: on SQLite, once the batch it joined is committed.
    pub async fn commit(mut self) -> Result<(), sqlx::Error> {
        match std::mem::replace(&mut self.kind, Kind::Ended) {
            Kind::Postgres(tx) => tx.commit().await,
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
            Kind::Postgres(tx) => tx.rollback().await,
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
            Kind::Postgres(tx) => tx,
            Kind::Sqlite { conn, .. } => conn,
            Kind::Ended => unreachable!("a write is used only until it ends"),
        }
    }
}

impl DerefMut for Write<'_> {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        match &mut self.kind {
            Kind::Postgres(tx) => tx,
            Kind::Sqlite { conn, .. } => conn,
            Kind::Ended => unreachable!("a write is used only until it ends"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::store::{Store, Value, Whole};

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("w.db").display());
        let store = Store::open(&url).await.unwrap();
        for sql in [
            "CREATE TABLE t (k TEXT PRIMARY KEY)",
            "CREATE TABLE c (k TEXT REFERENCES t (k) DEFERRABLE INITIALLY DEFERRED)",
        ] {
            sqlx::query(sql).execute(&store.pool).await.unwrap();
        }
        (dir, store)
    }

    async fn insert(store: &Store, table: &str, k: &str) -> Result<(), sqlx::Error> {
        let mut w = store.write().await?;
        let sql = format!("INSERT INTO {table} (k) VALUES ($1)");
        sqlx::query(&sql).bind(k).execute(&mut *w).await?;
        w.commit().await
    }

    /// Read from another connection than the writer's: what is committed.
    async fn kept(store: &Store, k: &str) -> bool {
        sqlx::query("SELECT k FROM t WHERE k = $1")
            .bind(k)
            .fetch_optional(&store.pool)
            .await
            .unwrap()
            .is_some()
    }

    /// A write that inserted `k` and holds the writer until it ends.
    async fn holding<'s>(store: &'s Store, k: &str) -> super::Write<'s> {
        let mut write = store.write().await.unwrap();
        sqlx::query("INSERT INTO t (k) VALUES ($1)")
            .bind(k)
            .execute(&mut *write)
            .await
            .unwrap();
        write
    }

    fn batches(store: &Store) -> u64 {
        let writer = &store.sqlite.as_ref().unwrap().writer;
        writer.line.batches.load(super::Ordering::Relaxed)
    }

    /// Lets spawned writes reach the writer's queue.
    async fn settle() {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    #[tokio::test]
    async fn writes_queued_during_a_commit_share_the_next_one_and_each_is_kept_when_told() {
        let (_dir, store) = store().await;
        let first = holding(&store, "first").await;
        let before = batches(&store);
        let queued: Vec<_> = (0..20)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let k = format!("k{i}");
                    insert(&store, "t", &k).await.unwrap();
                    kept(&store, &k).await
                })
            })
            .collect();
        settle().await;
        first.commit().await.unwrap();
        for q in queued {
            assert!(
                q.await.unwrap(),
                "a write told it was kept is readable at once"
            );
        }
        assert!(kept(&store, "first").await);
        let commits = batches(&store) - before;
        assert!(
            (1..=10).contains(&commits),
            "21 writes in {commits} commits"
        );
    }

    #[tokio::test]
    async fn a_failed_or_undone_write_takes_nothing_else_in_its_batch_with_it() {
        let (_dir, store) = store().await;
        insert(&store, "t", "dup").await.unwrap();
        let tasks: Vec<_> = (0..60)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    match i % 3 {
                        // A statement error drops the write half done.
                        0 => insert(&store, "t", "dup").await.is_err(),
                        1 => insert(&store, "t", &format!("k{i}")).await.is_ok(),
                        _ => {
                            let mut w = store.write().await.unwrap();
                            sqlx::query("INSERT INTO t (k) VALUES ($1)")
                                .bind(format!("k{i}"))
                                .execute(&mut *w)
                                .await
                                .unwrap();
                            w.rollback().await.is_ok()
                        }
                    }
                })
            })
            .collect();
        for t in tasks {
            assert!(t.await.unwrap());
        }
        for i in 0..60 {
            assert_eq!(kept(&store, &format!("k{i}")).await, i % 3 == 1, "k{i}");
        }
    }

    /// A write given whole inserting `k` then `k2`, kept when they return `expect` rows.
    async fn insert_whole(
        store: &Store,
        k: &str,
        k2: &str,
        expect: usize,
    ) -> Result<bool, sqlx::Error> {
        store
            .write_whole(Whole {
                statements: &[
                    "INSERT INTO t (k) VALUES ($1) RETURNING k",
                    "INSERT INTO t (k) VALUES ($2) RETURNING k",
                ],
                args: vec![Value::Text(k.to_owned()), Value::Text(k2.to_owned())],
                expect,
                postgres: None,
            })
            .await
    }

    #[tokio::test]
    async fn writes_given_whole_share_commits_and_keep_or_undo_only_themselves() {
        let (_dir, store) = store().await;
        insert(&store, "t", "dup").await.unwrap();
        let first = holding(&store, "first").await;
        let before = batches(&store);
        let tasks: Vec<_> = (0..120)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let (a, b) = (format!("a{i}"), format!("b{i}"));
                    match i % 6 {
                        // An error after the first insert ran.
                        5 => store
                            .write_whole(Whole {
                                statements: &[
                                    "INSERT INTO t (k) VALUES ($1) RETURNING k",
                                    "INSERT INTO nowhere (k) VALUES ($2) RETURNING k",
                                ],
                                args: vec![Value::Text(a), Value::Text(b)],
                                expect: 2,
                                postgres: None,
                            })
                            .await
                            .is_err(),
                        // Declined with nothing changed.
                        4 => !store
                            .write_whole(Whole {
                                statements: &["UPDATE t SET k = $1 WHERE k = $2 RETURNING k"],
                                args: vec![Value::Text(a), Value::Text("nowhere".into())],
                                expect: 1,
                                postgres: None,
                            })
                            .await
                            .unwrap(),
                        0 => {
                            insert_whole(&store, &a, &b, 2).await.unwrap() && kept(&store, &b).await
                        }
                        // The second insert finds its row there: someone else came first.
                        1 => !insert_whole(&store, &a, "dup", 2).await.unwrap(),
                        // Declined: not the rows it expects.
                        2 => !insert_whole(&store, &a, &b, 3).await.unwrap(),
                        // A write of the other kind between them.
                        _ => insert(&store, "t", &a).await.is_ok(),
                    }
                })
            })
            .collect();
        settle().await;
        first.commit().await.unwrap();
        for t in tasks {
            assert!(t.await.unwrap());
        }
        for i in 0..120 {
            let (a, b) = (format!("a{i}"), format!("b{i}"));
            assert_eq!(kept(&store, &a).await, i % 6 == 0 || i % 6 == 3, "{a}");
            assert_eq!(kept(&store, &b).await, i % 6 == 0, "{b}");
        }
        let commits = batches(&store) - before;
        assert!(
            (1..=20).contains(&commits),
            "121 writes in {commits} commits"
        );
    }

    #[tokio::test]
    async fn a_write_refused_over_an_uncommitted_row_answers_once_that_row_is_kept() {
        let (_dir, store) = store().await;
        let first = holding(&store, "k").await;
        let racer = {
            let store = store.clone();
            tokio::spawn(async move {
                let mut w = store.write().await.unwrap();
                let taken = sqlx::query("INSERT INTO t (k) VALUES ('k')")
                    .execute(&mut *w)
                    .await
                    .is_err();
                let refused: Result<(), sqlx::Error> = w.refuse(sqlx::Error::RowNotFound).await;
                assert!(taken && refused.is_err());
                // Whoever hears "taken" finds the row that took it.
                kept(&store, "k").await
            })
        };
        settle().await;
        first.commit().await.unwrap();
        assert!(racer.await.unwrap());
    }

    #[tokio::test]
    async fn a_batch_that_cannot_commit_tells_every_write_in_it_and_the_next_one_works() {
        let (_dir, store) = store().await;
        let first = holding(&store, "a").await;
        let spawn = |table: &'static str, k: &'static str| {
            let store = store.clone();
            tokio::spawn(async move { insert(&store, table, k).await })
        };
        // The deferred foreign key fails only at COMMIT, taking the batch with it.
        let dangling = spawn("c", "nowhere");
        let innocent = spawn("t", "b");
        settle().await;
        assert!(first.commit().await.is_err());
        assert!(dangling.await.unwrap().is_err());
        assert!(innocent.await.unwrap().is_err());
        assert!(!kept(&store, "a").await && !kept(&store, "b").await);
        insert(&store, "t", "c").await.unwrap();
        assert!(kept(&store, "c").await);
    }

    #[tokio::test]
    async fn a_store_dropped_unclosed_lets_its_writer_go() {
        let (_dir, store) = store().await;
        insert(&store, "t", "a").await.unwrap();
        let writer = std::sync::Arc::downgrade(&store.sqlite.as_ref().unwrap().writer);
        drop(store);
        settle().await;
        assert!(writer.upgrade().is_none(), "the committer let it go");
    }

    #[tokio::test]
    async fn a_closed_store_has_let_go_of_its_database_when_close_returns() {
        let (dir, store) = store().await;
        insert_whole(&store, "a", "b", 2).await.unwrap();
        let wal = dir.path().join("w.db-wal");
        assert!(wal.exists());
        store.close().await;
        // SQLite removes the WAL when its last connection closes: the committer's too.
        assert!(!wal.exists(), "a connection to the database is still open");
    }

    #[test]
    fn the_highest_argument_named_counts_every_digit() {
        let sql = "INSERT INTO s (a, b) VALUES ($5, 'O', $12, $3) RETURNING a";
        assert_eq!(super::highest_argument(sql), 12);
        assert_eq!(super::highest_argument("SELECT 1"), 0);
    }

    #[tokio::test]
    async fn a_closed_store_refuses_writes() {
        let (_dir, store) = store().await;
        insert(&store, "t", "a").await.unwrap();
        store.close().await;
        assert!(insert(&store, "t", "b").await.is_err());
        let whole =
            tokio::time::timeout(Duration::from_secs(10), insert_whole(&store, "c", "d", 2));
        assert!(whole.await.expect("answered").is_err());
    }
}
