//! Backups of the SQLite database (`admin backup`, `admin restore`, docs/deploy.md): one taken
//! while rooms are played and matches finish holds every write acknowledged before it began,
//! restores into a new data folder, serves, and its rankings agree with its matches; and the
//! commands refuse what would lose data, saying why.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Mutex;
use velha_api::{Avatar, EndHow, RoomAct, RoomBoard, RoomView, Seat};
use velha_load::Client;
use velha_rules::{Classic, Position};

use crate::common::{Db, Server, bin};
use crate::rankings::{DAY0, HOUR, League};

/// Acknowledged writes: room id → moves acknowledged, and the ids of finished matches.
#[derive(Default, Clone)]
struct Acked {
    room_moves: HashMap<String, i64>,
    matches: Vec<String>,
}

/// Plays one classic room for ever (rematch after each game), a legal cell each turn, until
/// `stop`; every move the server acknowledged is counted in `acked`.
async fn keep_playing(
    players: [Client; 2],
    acked: Arc<Mutex<Acked>>,
    stop: Arc<AtomicBool>,
    turn: usize,
) {
    let [ana, bia] = players;
    let made = ana
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let id = made.room.id.clone();
    let seat = bia
        .join_room(&id, "Bia", Some(Avatar::Rabisco))
        .await
        .unwrap();
    let seats = [(ana, made.credential), (bia, seat.credential)];
    let mut room: RoomView = seat.room;
    let mut pick = turn;
    while !stop.load(Ordering::Relaxed) {
        if room.ending.is_some() {
            for (client, credential) in &seats {
                room = client
                    .room_act(&id, credential, RoomAct::Rematch)
                    .await
                    .unwrap();
            }
            continue;
        }
        let position: Classic = room.position.parse().unwrap();
        let legal: Vec<_> = position.legal_actions().into_iter().collect();
        pick = pick.wrapping_mul(31).wrapping_add(7);
        let cell = legal[pick % legal.len()].to_string();
        let Some(to_move) = room.to_move else {
            unreachable!("a classic game goes on until it ends")
        };
        let (client, credential) = &seats[usize::from(to_move != room.creator_plays)];
        room = client
            .room_act(&id, credential, RoomAct::Play { cell })
            .await
            .unwrap();
        *acked.lock().await.room_moves.entry(id.clone()).or_default() += 1;
    }
}

async fn backups_a_backup_under_load_restores_every_acknowledged_write() {
    let names = ["ana", "bia", "caio", "duda"];
    let players: Vec<(&str, &str)> = names.iter().map(|n| (*n, "pt-BR")).collect();
    let league = Arc::new(League::new(Db::Sqlite, &players).await);
    let acked = Arc::new(Mutex::new(Acked::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut load = Vec::new();
    for turn in 0..6 {
        let clients = [league.server.client(), league.server.client()];
        load.push(tokio::spawn(keep_playing(
            clients,
            acked.clone(),
            stop.clone(),
            turn,
        )));
    }
    {
        let (league, acked, stop) = (league.clone(), acked.clone(), stop.clone());
        load.push(tokio::spawn(async move {
            let mut at = DAY0;
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                at += HOUR;
                n += 1;
                let (x, o) = (names[n % 4], names[(n + 1 + n / 4 % 3) % 4]);
                let winner = if n.is_multiple_of(3) {
                    Seat::O
                } else {
                    Seat::X
                };
                let id = league
                    .play(x, o, 1 + (n % 2) as u8, winner, EndHow::Line, at)
                    .await;
                acked.lock().await.matches.push(id);
            }
        }));
    }
    // The backup begins once the load is well under way (rooms played and matches finished:
    // in a fast build 60 room moves may come before the first match ends); what was
    // acknowledged by then must be in it.
    let warm = async {
        loop {
            let acked = acked.lock().await;
            if acked.room_moves.values().sum::<i64>() >= 60 && !acked.matches.is_empty() {
                break;
            }
            drop(acked);
            assert!(
                !load.iter().any(|t| t.is_finished()),
                "a player stopped early"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), warm)
        .await
        .expect("60 moves and a finished match within a minute");
    let before = acked.lock().await.clone();
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("velha-backup.db");
    let (ok, said) = league
        .server
        .admin(&["backup", "--to", file.to_str().unwrap()])
        .await;
    assert!(ok, "{said}");
    assert!(said.starts_with("backed up "), "{said}");
    // The load goes on a moment longer: writes the backup must not be hurt by, nor hold.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    let after = acked.lock().await.room_moves.values().sum::<i64>();
    assert!(
        after > before.room_moves.values().sum::<i64>(),
        "the load went on"
    );

    let restored_dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(bin())
        .arg("--data-dir")
        .arg(restored_dir.path())
        .args(["admin", "restore", "--from", file.to_str().unwrap()])
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let restored = Server::start_in(restored_dir, Db::Sqlite, &[]).await;
    let mut db = restored.database().await;
    for (room, moves) in &before.room_moves {
        let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM room_moves WHERE room_id = $1")
            .bind(room)
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert!(stored >= *moves, "room {room}: {stored} of {moves} moves");
    }
    for id in &before.matches {
        let state: String = sqlx::query_scalar("SELECT state FROM matches WHERE id = $1")
            .bind(id)
            .fetch_one(&mut db)
            .await
            .unwrap_or_else(|e| panic!("match {id} is not in the backup: {e}"));
        assert_eq!(state, "over", "match {id}");
    }
    assert!(
        !before.matches.is_empty(),
        "matches finished before the backup"
    );
    let (ok, said) = restored.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(
        ok,
        "the restored rankings agree with the restored matches: {said}"
    );
    // The restored server serves the rooms it holds.
    let any_room = before.room_moves.keys().next().unwrap();
    let (status, _) = restored
        .client()
        .raw(
            reqwest::Method::GET,
            &format!("/api/rooms/{any_room}"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn backups_a_backup_under_load_restores_every_acknowledged_write_sqlite() {
    backups_a_backup_under_load_restores_every_acknowledged_write().await;
}

/// `admin` in a data folder, on SQLite; whether it succeeded, and what it printed.
fn admin_in(folder: &std::path::Path, args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(bin())
        .arg("--data-dir")
        .arg(folder)
        .arg("admin")
        .args(args)
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backups_the_commands_refuse_what_would_lose_data_and_say_why() {
    let mut server = Server::start(Db::Sqlite, &[]).await;
    server.player("ana", "pt-BR", None).await;
    let here = server.dir.path().to_owned();
    let here = here.as_path();
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("b.db");
    let file_arg = file.to_str().unwrap();
    let (ok, said) = admin_in(here, &["backup", "--to", file_arg]);
    assert!(ok, "{said}");
    let (ok, said) = admin_in(here, &["backup", "--to", "/no/such/folder/b.db"]);
    assert!(!ok && said.contains("no folder /no/such/folder"), "{said}");
    // Never over an existing file, a backup or not.
    let earlier = std::fs::read(&file).unwrap();
    let (ok, said) = admin_in(here, &["backup", "--to", file_arg]);
    assert!(!ok && said.contains("never overwrites"), "{said}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        earlier,
        "the earlier backup is intact"
    );

    // Not over a database that is there, unless asked; never while a server is seen on it.
    let (ok, said) = admin_in(here, &["restore", "--from", file_arg]);
    assert!(!ok && said.contains("--replace"), "{said}");
    let (ok, said) = admin_in(here, &["restore", "--from", file_arg, "--replace"]);
    assert!(!ok && said.contains("stop it"), "{said}");

    // Not from a file that is no backup of this server: garbage, a cut copy, another database.
    let elsewhere = tempfile::tempdir().unwrap();
    let garbage = folder.path().join("garbage.db");
    std::fs::write(&garbage, b"not a database at all, just words").unwrap();
    let cut = folder.path().join("cut.db");
    std::fs::write(&cut, &earlier[..earlier.len() / 2]).unwrap();
    let other = folder.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE notes (text TEXT)")
        .unwrap();
    for bad in [&garbage, &cut, &other, &folder.path().join("missing.db")] {
        let (ok, said) = admin_in(
            elsewhere.path(),
            &["restore", "--from", bad.to_str().unwrap()],
        );
        assert!(!ok, "{}: {said}", bad.display());
        assert!(
            said.contains(bad.to_str().unwrap()),
            "names the file: {said}"
        );
        assert!(
            !elsewhere.path().join("velha.db").exists(),
            "nothing was put in place"
        );
    }

    // A player signs up after the backup, and the server is killed. Once its heartbeat is
    // old, the backup takes the database's place, and the database it replaced, with the
    // write the backup does not hold, is kept beside it.
    server.player("bia", "pt-BR", None).await;
    server.kill9().await;
    let now = velha_server::token::now_ms();
    rusqlite::Connection::open(here.join("velha.db"))
        .unwrap()
        .execute("UPDATE processes SET seen_at = ?1", [now - 60_000])
        .unwrap();
    let (ok, said) = admin_in(here, &["restore", "--from", file_arg, "--replace"]);
    assert!(ok, "{said}");
    let names = |db: &std::path::Path| -> Vec<String> {
        let db = rusqlite::Connection::open(db).unwrap();
        let mut query = db
            .prepare("SELECT name FROM accounts ORDER BY name")
            .unwrap();
        query
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let kept: Vec<_> = std::fs::read_dir(here)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("velha.db.replaced-"))
        .collect();
    let kept_db = kept
        .iter()
        .find(|n| !["-wal", "-shm", "-journal"].iter().any(|c| n.ends_with(c)))
        .unwrap_or_else(|| panic!("the replaced database is kept: {kept:?}"));
    assert_eq!(names(&here.join(kept_db)), ["ana", "bia"]);
    assert_eq!(names(&here.join("velha.db")), ["ana"]);
    // A restored server starts on it and finds the rankings whole.
    server.start_again().await;
    let (ok, said) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{said}");
    // The heartbeats the backup holds are its server's, not one running here: restoring it
    // again at once is not refused as if a server ran.
    drop(server);
    let again = tempfile::tempdir().unwrap();
    assert!(admin_in(again.path(), &["restore", "--from", file_arg]).0);
    let (ok, said) = admin_in(again.path(), &["restore", "--from", file_arg, "--replace"]);
    assert!(ok, "{said}");
}

async fn backups_on_postgresql_point_to_pg_dump(db: Db) {
    let server = Server::start(db, &[]).await;
    let folder = tempfile::tempdir().unwrap();
    let never = folder.path().join("never.db");
    let (ok, said) = server
        .admin(&["backup", "--to", never.to_str().unwrap()])
        .await;
    assert!(!ok && said.contains("pg_dump"), "{said}");
    assert!(!never.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backups_on_postgresql_point_to_pg_dump_postgres() {
    if let Some(db) = Db::postgres().await {
        backups_on_postgresql_point_to_pg_dump(db).await;
    }
}
