//! Backups of the SQLite database (`admin backup`, `admin restore`).
//!
//! A backup is taken while the server serves, with SQLite's online backup API in one step: the
//! copy is one snapshot, holding every write committed before it began and none after, while
//! the server goes on writing beside it (WAL). It is written under another name and renamed
//! once whole and synced, so a file with the backup's name is always a complete backup.
//!
//! A restore puts a backup in place of a stopped server's database. It checks the backup first
//! (SQLite's `quick_check`, and that its schema is this server's, not a newer one), refuses
//! while a server is still seen on the database, and never deletes: the database it replaces
//! is renamed beside it, with its write-ahead log.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use crate::store::latest_migration;

/// How recently a server must have been seen on a database (its heartbeat, every second) for
/// a restore to refuse to replace it.
const SEEN_RECENTLY_MS: i64 = 10_000;

/// How long a copy waits for a database another process holds locked.
const BUSY_FOR: Duration = Duration::from_secs(10);

/// The SQLite file a `sqlite:` database URL names; none for PostgreSQL.
pub fn sqlite_file(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("sqlite:")?;
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let path = rest.split('?').next().unwrap_or(rest);
    (!path.is_empty()).then(|| PathBuf::from(path))
}

/// What a database holds, for the operator's report.
struct Contents {
    accounts: i64,
    matches: i64,
    moves: i64,
    rooms: i64,
    room_moves: i64,
}

impl std::fmt::Display for Contents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} accounts, {} matches and their {} moves, {} rooms and their {} moves",
            self.accounts, self.matches, self.moves, self.rooms, self.room_moves
        )
    }
}

fn contents(db: &Connection) -> rusqlite::Result<Contents> {
    let count =
        |table: &str| db.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0));
    Ok(Contents {
        accounts: count("accounts")?,
        matches: count("matches")?,
        moves: count("moves")?,
        rooms: count("rooms")?,
        room_moves: count("room_moves")?,
    })
}

/// The same path with `suffix` added to its file name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// Syncs a file, and the folder that names it, to disk.
fn sync(path: &Path) -> std::io::Result<()> {
    File::open(path)?.sync_all()?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(folder)?.sync_all()
}

/// Copies the whole of `from` into a new file at `to`, in one step of the online backup, and
/// leaves it a single file (no write-ahead log) that passes `quick_check`.
fn copy(from: &Connection, to: &Path) -> Result<Contents, String> {
    let mut copy =
        Connection::open(to).map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    {
        let backup = Backup::new(from, &mut copy).map_err(|e| format!("the copy failed: {e}"))?;
        // Every page in one step: one read of the database, so one snapshot of it.
        let waited = Instant::now();
        loop {
            match backup
                .step(-1)
                .map_err(|e| format!("the copy failed: {e}"))?
            {
                StepResult::Done => break,
                StepResult::More => {}
                _ if waited.elapsed() > BUSY_FOR => {
                    return Err("the database stayed locked; try again".into());
                }
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
    copy.pragma_update(None, "journal_mode", "DELETE")
        .map_err(|e| format!("cannot finish the copy: {e}"))?;
    check(&copy).map_err(|e| format!("the copy does not check out: {e}"))?;
    let held = contents(&copy).map_err(|e| format!("cannot read the copy: {e}"))?;
    copy.close()
        .map_err(|(_, e)| format!("cannot close the copy: {e}"))?;
    Ok(held)
}

/// SQLite's own check of a database's structure.
fn check(db: &Connection) -> Result<(), String> {
    let verdict: String = db
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    if verdict == "ok" {
        Ok(())
    } else {
        Err(verdict)
    }
}

/// Backs the database at `database` up to the new file `to`, while the server serves.
pub fn backup(database: &Path, to: &Path) -> Result<String, String> {
    if to.exists() {
        return Err(format!(
            "{} exists: a backup never overwrites a file; choose a new name",
            to.display()
        ));
    }
    if !database.exists() {
        return Err(format!("there is no database at {}", database.display()));
    }
    let started = Instant::now();
    let source = Connection::open_with_flags(
        database,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .and_then(|c| c.busy_timeout(BUSY_FOR).map(|()| c))
    .map_err(|e| format!("cannot open {}: {e}", database.display()))?;
    let partial = with_suffix(to, ".partial");
    // A leftover of a backup that died on the way is no backup: it is this one's to replace.
    let _ = std::fs::remove_file(&partial);
    let held = copy(&source, &partial).inspect_err(|_| {
        let _ = std::fs::remove_file(&partial);
    })?;
    sync(&partial)
        .and_then(|()| std::fs::rename(&partial, to))
        .and_then(|()| sync(to))
        .map_err(|e| format!("cannot put the backup at {}: {e}", to.display()))?;
    let bytes = std::fs::metadata(to).map(|m| m.len()).unwrap_or(0);
    Ok(format!(
        "backed up {} to {} in {} ms: {bytes} bytes; {held}",
        database.display(),
        to.display(),
        started.elapsed().as_millis()
    ))
}

/// Puts the backup `from` in place of the database at `database`, whose server is stopped;
/// an existing database is replaced only with `replace`, and kept beside it.
pub fn restore(database: &Path, from: &Path, replace: bool, now_ms: i64) -> Result<String, String> {
    let backup = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open {}: {e}", from.display()))?;
    check(&backup)
        .map_err(|e| format!("{} is not a sound SQLite database: {e}", from.display()))?;
    let version: i64 = backup
        .query_row("SELECT MAX(version) FROM _sqlx_migrations", [], |r| {
            r.get(0)
        })
        .map_err(|_| format!("{} is not a backup of this server", from.display()))?;
    if version > latest_migration() {
        return Err(format!(
            "{} was made by a newer version of the server (schema {version}, this one knows \
             {}): restore it with that version",
            from.display(),
            latest_migration()
        ));
    }
    contents(&backup).map_err(|_| format!("{} is not a backup of this server", from.display()))?;
    let kept = if database.exists() {
        if !replace {
            return Err(format!(
                "{} exists: pass --replace to put the backup in its place (the database it \
                 replaces is kept beside it)",
                database.display()
            ));
        }
        let seen = last_seen(database)?;
        if let Some(ago) = seen
            .map(|t| now_ms - t)
            .filter(|ago| *ago < SEEN_RECENTLY_MS)
        {
            return Err(format!(
                "a server was seen on {} {} s ago: stop it, then restore",
                database.display(),
                ago.max(0) / 1000
            ));
        }
        Some(with_suffix(database, &format!(".replaced-{now_ms}")))
    } else {
        None
    };
    let restoring = with_suffix(database, ".restoring");
    let _ = std::fs::remove_file(&restoring);
    let held = copy(&backup, &restoring).inspect_err(|_| {
        let _ = std::fs::remove_file(&restoring);
    })?;
    sync(&restoring).map_err(|e| format!("cannot sync {}: {e}", restoring.display()))?;
    if let Some(kept) = &kept {
        // The log goes with its database: left behind, SQLite would apply it to the backup.
        for part in ["", "-wal", "-shm"] {
            let old = with_suffix(database, part);
            if old.exists() {
                std::fs::rename(&old, with_suffix(kept, part))
                    .map_err(|e| format!("cannot move {} aside: {e}", old.display()))?;
            }
        }
    }
    std::fs::rename(&restoring, database)
        .and_then(|()| sync(database))
        .map_err(|e| format!("cannot put the backup at {}: {e}", database.display()))?;
    let mut report = format!(
        "restored {} to {}: {held}",
        from.display(),
        database.display()
    );
    if let Some(kept) = kept {
        report.push_str(&format!("; the database it replaced is {}", kept.display()));
    }
    Ok(report)
}

/// When a server was last seen on the database (its heartbeat), if ever.
fn last_seen(database: &Path) -> Result<Option<i64>, String> {
    let db = Connection::open_with_flags(database, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("cannot open {}: {e}", database.display()))?;
    db.query_row("SELECT MAX(seen_at) FROM processes", [], |r| r.get(0))
        .or_else(|e| match e {
            // A database no server has run on yet.
            rusqlite::Error::SqliteFailure(..) => Ok(None),
            e => Err(e),
        })
        .map_err(|e| format!("cannot read {}: {e}", database.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_url_names_its_sqlite_file() {
        assert_eq!(
            sqlite_file("sqlite:///var/velha/velha.db?mode=rwc"),
            Some(PathBuf::from("/var/velha/velha.db"))
        );
        assert_eq!(
            sqlite_file("sqlite:velha.db"),
            Some(PathBuf::from("velha.db"))
        );
        assert_eq!(sqlite_file("postgres://velha@db/velha"), None);
        assert_eq!(sqlite_file("sqlite://"), None);
    }
}
