//! Storage: one set of migrations and queries for SQLite and PostgreSQL through sqlx's `Any`
//! driver (portable SQL, `$1` placeholders, integer millisecond times).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Executor};
use velha_api::Seat;

mod accounts;
mod announcer;
mod competitive;
mod email;
mod erase;
mod events;
mod export;
mod groups;
mod matches;
mod moderation;
mod payments;
mod prepared_write;
mod presence;
mod push;
mod rankings;
mod room_cache;
mod rooms;
mod scoring;
mod service_counts;
mod sqlite_writer;
mod transaction;

pub use accounts::{AccountRow, CountryFrom, InsertError, NAME_QUARANTINE_MS, SessionRow};
pub use announcer::CATCH_UP;
pub use competitive::{Waiting, pairs};
pub use email::{LinkProblem, ResetLink};
pub use erase::{Abandoned, EraseError, Erased};
pub use events::CHANNEL;
pub use export::{NOBODYS, SECTIONS, Section};
pub use groups::{Finalized, GroupError, GroupRow, InvitationRow, TableLine};
pub use matches::{LobbyList, MatchRow, MoveCommit, SeatError, VELHA_NAME, overdue_matches_sql};
pub use moderation::{AuditRow, ModerationError, NewReport, ReportRow};
pub use payments::{Claim, PaidSummary};
use prepared_write::BoundWrite;
pub use presence::SeatChange;
pub use push::{MOST_PER_HOLDER, NewPush, PushError, PushTarget};
pub use rankings::{After, Rebuild, Standing, Tally};
use room_cache::RoomCache;
pub use rooms::{RoomRow, RoomSave, row_after_join};
use sqlite_writer::Writer;
pub use transaction::Write;

/// Which database is behind the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

/// The database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    backend: Backend,
    /// What SQLite, served by this one process, has besides: None on PostgreSQL.
    sqlite: Option<Arc<SqliteOnly>>,
    /// PostgreSQL's notifications of committed events (it never starts on SQLite).
    announcer: Arc<announcer::Announcer>,
}

/// SQLite's one writing connection, which commits writes in batches (`sqlite_writer`; a
/// connection that found the write lock taken would sleep in steps of up to 100 ms), and its
/// rooms, kept (`room_cache.rs`).
#[derive(Debug)]
struct SqliteOnly {
    writer: Arc<Writer>,
    rooms: RoomCache,
}

/// Every migration of `crates/server/migrations`, oldest first: (version, description, SQL on
/// SQLite, SQL on PostgreSQL).
const MIGRATIONS: &[(i64, &str, &str, &str)] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// How a migration's SQL asks to run outside a transaction (sqlx's own convention), as
/// PostgreSQL's `CREATE INDEX CONCURRENTLY` must.
const NO_TRANSACTION: &str = "-- no-transaction";

/// A PostgreSQL connection unused this long is checked (a round trip) before the pool hands it
/// out. sqlx checks every connection as it takes it back, and closes one that fails: one
/// taken back more recently answered then, and one a restarted database has closed since fails
/// a single request before it is closed (docs/deploy.md). sqlx's default, a check every time,
/// was a round trip more on each query, two on a move's path. A SQLite connection is a file in
/// this process: never stale.
pub const IDLE_BEFORE_CHECK: Duration = Duration::from_secs(1);

/// The newest migration this version knows: a database past it was written by a newer one.
pub fn latest_migration() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

fn migrator(backend: Backend) -> Migrator {
    let migrations = MIGRATIONS
        .iter()
        .map(|&(version, description, sqlite, postgres)| {
            let sql = match backend {
                Backend::Sqlite => sqlite,
                Backend::Postgres => postgres,
            };
            Migration::new(
                version,
                Cow::Borrowed(description),
                MigrationType::Simple,
                Cow::Borrowed(sql),
                sql.starts_with(NO_TRANSACTION),
            )
        })
        .collect();
    Migrator {
        migrations: Cow::Owned(migrations),
        // A newer version's migrations, applied while this one still serves in a rolling
        // deploy, do not stop it from restarting: `schema_floor` says whether it may.
        ignore_missing: true,
        ..Migrator::DEFAULT
    }
}

/// Which session migrates a PostgreSQL database (`pg_try_advisory_lock`'s key). Not sqlx's
/// own key: a version before this one, restarting meanwhile, waits in `pg_advisory_lock` on
/// sqlx's key and would block an index build under it; apart, it waits only on its own kind,
/// which builds nothing (it has no migration left to apply in a rolling deploy).
const MIGRATING: i64 = 0x7665_6c68_615f_6d69;

/// Runs PostgreSQL's migrations once among the processes starting together. sqlx's own lock
/// waits in `pg_advisory_lock`, inside a statement: a `CREATE INDEX CONCURRENTLY` run by the
/// process holding it waits for that statement to end, and PostgreSQL cancels one of the two
/// ("deadlock detected"; the index is left invalid when it is the build). Here a process
/// waiting asks again every 100 ms, each time a statement that ends at once.
async fn migrate_postgres(pool: &AnyPool) -> Result<(), sqlx::Error> {
    let mut conn = pool.acquire().await?;
    let mut waited = 0u32;
    while !sqlx::query_scalar::<_, bool>("SELECT pg_try_advisory_lock($1)")
        .bind(MIGRATING)
        .fetch_one(&mut *conn)
        .await?
    {
        if waited.is_multiple_of(100) {
            tracing::info!("waiting for another process's migrations");
        }
        waited += 1;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut migrator = migrator(Backend::Postgres);
    migrator.set_locking(false);
    let ran = migrator.run_direct(&mut *conn).await;
    let unlocked = sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(MIGRATING)
        .execute(&mut *conn)
        .await;
    if unlocked.is_err() {
        // The lock is the session's: closing it lets the next process go.
        conn.close_on_drop();
    }
    ran?;
    unlocked?;
    Ok(())
}

/// Refuses a database a newer version changed in a way this one cannot serve on (its
/// `schema_floor` is past this version's newest migration).
async fn check_floor(pool: &AnyPool, backend: Backend) -> Result<(), sqlx::Error> {
    let exists = match backend {
        Backend::Sqlite => {
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_floor'"
        }
        Backend::Postgres => {
            "SELECT COUNT(*) FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_name = 'schema_floor'"
        }
    };
    if sqlx::query_scalar::<_, i64>(exists).fetch_one(pool).await? == 0 {
        return Ok(());
    }
    let oldest: i64 = sqlx::query_scalar("SELECT oldest_reader FROM schema_floor")
        .fetch_one(pool)
        .await?;
    if oldest > latest_migration() {
        return Err(sqlx::Error::Configuration(
            format!(
                "a newer version changed this database so that versions before its migration \
                 {oldest} cannot serve on it (this one knows up to {}): run the newer version",
                latest_migration()
            )
            .into(),
        ));
    }
    Ok(())
}

pub(crate) fn seat_str(seat: Seat) -> &'static str {
    match seat {
        Seat::X => "X",
        Seat::O => "O",
    }
}

fn seat_from(s: &str) -> Option<Seat> {
    match s {
        "X" => Some(Seat::X),
        "O" => Some(Seat::O),
        _ => None,
    }
}

/// A stored value no version of the server writes: the record is damaged, which asking again
/// will not mend (unlike a database out of reach).
#[derive(Debug)]
pub struct Damaged(String);

impl std::fmt::Display for Damaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Damaged {}

fn corrupt(what: &str, value: &str) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(Damaged(format!(
        "stored {what} {value:?} is not valid"
    ))))
}

impl Store {
    /// Connects (creating a SQLite file if needed) and brings the schema up to date.
    pub async fn open(url: &str) -> Result<Store, sqlx::Error> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            return Err(sqlx::Error::Configuration(
                format!("DATABASE_URL must start with postgres:// or sqlite:, not {url:?}").into(),
            ));
        };
        let options = AnyPoolOptions::new()
            .max_connections(match backend {
                // One writer at a time either way; more connections only wait on the lock.
                Backend::Sqlite => 4,
                Backend::Postgres => 16,
            })
            // Checked only after a while unused (below); SQLite's never.
            .test_before_acquire(false)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // WAL lets readers run beside the writer; FULL sync keeps a
                        // committed move through a power cut, not only a crash.
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        conn.execute("PRAGMA synchronous = FULL").await?;
                        conn.execute("PRAGMA busy_timeout = 10000").await?;
                        conn.execute("PRAGMA foreign_keys = ON").await?;
                        // A commit never waits for a checkpoint: sqlite_writer/checkpointer.rs.
                        conn.execute("PRAGMA wal_autocheckpoint = 0").await?;
                    }
                    Ok(())
                })
            });
        let options = match backend {
            Backend::Sqlite => options,
            Backend::Postgres => options
                // sqlx's reaper, which closes connections idle or old past these, puts the
                // others back unchecked and so restarts their idle time: a connection unused
                // for minutes would be handed out unchecked just after. Its few connections
                // stay open instead.
                .idle_timeout(None)
                .max_lifetime(None)
                .before_acquire(|conn, meta| {
                    Box::pin(async move {
                        if meta.idle_for >= IDLE_BEFORE_CHECK {
                            sqlx::Connection::ping(conn).await?;
                        }
                        Ok(true)
                    })
                }),
        };
        let pool = options.connect(url).await?;
        check_floor(&pool, backend).await?;
        match backend {
            Backend::Sqlite => migrator(backend).run(&pool).await?,
            Backend::Postgres => migrate_postgres(&pool).await?,
        }
        let sqlite = match backend {
            Backend::Sqlite => Some(Arc::new(SqliteOnly {
                writer: Writer::start(&pool).await?,
                rooms: RoomCache::default(),
            })),
            Backend::Postgres => None,
        };
        let announcer = Arc::new(announcer::Announcer::new(url));
        Ok(Store {
            pool,
            backend,
            sqlite,
            announcer,
        })
    }

    /// The newest migration the database holds.
    pub async fn schema_version(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar::<_, i64>("SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations")
            .fetch_one(&self.pool)
            .await
    }

    /// A write transaction (SQLite's joins the writer's batch).
    async fn write(&self) -> Result<Write<'_>, sqlx::Error> {
        match &self.sqlite {
            Some(sqlite) => Write::sqlite(&sqlite.writer).await,
            None => Write::postgres(&self.pool, &self.announcer).await,
        }
    }

    /// A prepared write (the writes the server makes most: a move, a room's change), in one
    /// hand-off to SQLite's committer or one statement to PostgreSQL: whether it was kept.
    async fn run_prepared(&self, write: BoundWrite) -> Result<bool, sqlx::Error> {
        match &self.sqlite {
            Some(sqlite) => sqlite.writer.submit(write).await,
            None => {
                let told = write.told().cloned();
                let kept = write
                    .run_chained(&self.pool)
                    .await
                    .inspect_err(|_| self.announcer.unsure(told.as_slice()))?;
                if kept {
                    self.announcer.announce(told.as_slice());
                }
                Ok(kept)
            }
        }
    }

    /// SQLite's kept rooms (none on PostgreSQL, whose processes share rooms).
    fn room_cache(&self) -> Option<&RoomCache> {
        self.sqlite.as_ref().map(|s| &s.rooms)
    }

    /// What a `SELECT` ends with to lock its rows for the rest of the transaction
    /// (PostgreSQL; SQLite's writes run one at a time).
    pub(super) fn lock_suffix(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        }
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Closes every connection.
    pub async fn close(&self) {
        self.announcer.flush(Duration::from_secs(2)).await;
        if let Some(sqlite) = &self.sqlite {
            sqlite.writer.close().await;
        }
        self.pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::MIGRATIONS;

    #[test]
    fn every_file_of_the_migrations_folder_is_applied_in_order() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations");
        let mut versions = std::collections::BTreeSet::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let file = entry.unwrap().path();
            if file.extension().is_none_or(|e| e != "sql") {
                continue;
            }
            let name = file.file_name().unwrap().to_str().unwrap();
            let version: i64 = name[..4].parse().unwrap();
            versions.insert(version);
            let &(_, _, sqlite, postgres) = MIGRATIONS
                .iter()
                .find(|m| m.0 == version)
                .unwrap_or_else(|| panic!("{name} is not applied"));
            let text = std::fs::read_to_string(&file).unwrap();
            if name.ends_with(".sqlite.sql") {
                assert_eq!(sqlite, text, "{name}");
            } else if name.ends_with(".postgres.sql") {
                assert_eq!(postgres, text, "{name}");
            } else {
                assert_eq!((sqlite, postgres), (&*text, &*text), "{name}");
            }
        }
        assert_eq!(MIGRATIONS.len(), versions.len());
        assert!(MIGRATIONS.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
