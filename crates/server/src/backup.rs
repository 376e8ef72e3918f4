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
    // A table an older schema does not have yet holds nothing.
    let count = |table: &str| -> rusqlite::Result<i64> {
        let exists: bool = db.query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [table],
            |r| r.get(0),
        )?;
        if !exists {
            return Ok(0);
        }
        db.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
    };
    Ok(Contents {
        accounts: count("accounts")?,
        matches: count("matches")?,
        moves: count("moves")?,
        rooms: count("rooms")?,
        room_moves: count("room_moves")?,
    })
}

/// The files of one SQLite database besides the database itself: a write-ahead log, its
/// index, a rollback journal. Left beside another database, SQLite would apply them to it.
const COMPANIONS: [&str; 3] = ["-wal", "-shm", "-journal"];

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
    if let Some(folder) = to
        .parent()
        .filter(|f| !f.as_os_str().is_empty() && !f.is_dir())
    {
        return Err(format!("there is no folder {}", folder.display()));
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
    // A name of this backup's own, so two backups to one name never write one file.
    let partial = with_suffix(to, &format!(".partial-{}", std::process::id()));
    let held = copy(&source, &partial).and_then(|held| {
        sync(&partial).map_err(|e| format!("cannot sync {}: {e}", partial.display()))?;
        // A link, unlike a rename, never replaces a file that appeared meanwhile.
        std::fs::hard_link(&partial, to).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => format!(
                "{} exists: a backup never overwrites a file; choose a new name",
                to.display()
            ),
            _ => format!("cannot put the backup at {}: {e}", to.display()),
        })?;
        sync(to).map_err(|e| format!("cannot sync {}: {e}", to.display()))?;
        Ok(held)
    });
    let _ = std::fs::remove_file(&partial);
    let held = held?;
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
    // The database as the server opens it: through a link, the file the link names.
    let database = database
        .canonicalize()
        .unwrap_or_else(|_| database.to_owned());
    let there: Vec<PathBuf> = std::iter::once(String::new())
        .chain(COMPANIONS.map(String::from))
        .map(|part| with_suffix(&database, &part))
        .filter(|path| path.exists())
        .collect();
    let kept = with_suffix(&database, &format!(".replaced-{now_ms}"));
    if !there.is_empty() {
        if !replace {
            return Err(format!(
                "{} exists: pass --replace to put the backup in its place (the database it \
                 replaces is kept beside it)",
                there[0].display()
            ));
        }
        let seen = match database.exists() {
            true => last_seen(&database)?,
            false => None,
        };
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
    }
    let restoring = with_suffix(&database, &format!(".restoring-{}", std::process::id()));
    let held = copy(&backup, &restoring)
        .and_then(|held| {
            // The heartbeats in the backup are of the server it was taken from, not of one
            // running here; the server starting on it writes its own.
            let copy = Connection::open(&restoring)
                .map_err(|e| format!("cannot open {}: {e}", restoring.display()))?;
            copy.execute("DELETE FROM processes", [])
                .map_err(|e| format!("cannot prepare {}: {e}", restoring.display()))?;
            drop(copy);
            sync(&restoring).map_err(|e| format!("cannot sync {}: {e}", restoring.display()))?;
            Ok(held)
        })
        .and_then(|held| put_in_place(&database, &restoring, &there, &kept).map(|()| held));
    let _ = std::fs::remove_file(&restoring);
    let mut report = format!(
        "restored {} to {}: {}",
        from.display(),
        database.display(),
        held?
    );
    if !there.is_empty() {
        report.push_str(&format!(
            "; what it replaced is kept as {}*",
            kept.display()
        ));
    }
    Ok(report)
}

/// Puts the file `restoring` at `database`, keeping the files `there` of the database it
/// replaces under `kept`. At every moment the database's name holds a whole database: the old
/// one, its log first folded into it, until one rename puts the restored one in its place.
fn put_in_place(
    database: &Path,
    restoring: &Path,
    there: &[PathBuf],
    kept: &Path,
) -> Result<(), String> {
    if database.exists() {
        let old = Connection::open(database)
            .and_then(|c| c.busy_timeout(BUSY_FOR).map(|()| c))
            .map_err(|e| format!("cannot open {}: {e}", database.display()))?;
        old.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(|e| format!("cannot fold {}'s log into it: {e}", database.display()))?;
        drop(old);
        std::fs::hard_link(database, kept).map_err(|e| {
            format!(
                "cannot keep {} as {}: {e}",
                database.display(),
                kept.display()
            )
        })?;
    }
    let database_name = database.file_name().unwrap_or_default().to_os_string();
    for path in there {
        let name = path.file_name().unwrap_or_default().to_os_string();
        if name == database_name {
            continue;
        }
        let part = name.to_string_lossy()[database_name.len()..].to_owned();
        if path.exists() {
            std::fs::rename(path, with_suffix(kept, &part))
                .map_err(|e| format!("cannot move {} aside: {e}", path.display()))?;
        }
    }
    std::fs::rename(restoring, database)
        .and_then(|()| sync(database))
        .map_err(|e| format!("cannot put the backup at {}: {e}", database.display()))
}

/// When a server was last seen on the database (its heartbeat), if ever; an error when that
/// cannot be told, which refuses the restore.
fn last_seen(database: &Path) -> Result<Option<i64>, String> {
    let cannot = |e: rusqlite::Error| {
        format!(
            "cannot tell whether a server runs on {}: {e}",
            database.display()
        )
    };
    let db = Connection::open_with_flags(database, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.busy_timeout(BUSY_FOR).map(|()| c))
        .map_err(cannot)?;
    let has_processes: bool = db
        .query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'processes'",
            [],
            |r| r.get(0),
        )
        .map_err(cannot)?;
    if !has_processes {
        return Ok(None);
    }
    db.query_row("SELECT MAX(seen_at) FROM processes", [], |r| r.get(0))
        .map_err(cannot)
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
