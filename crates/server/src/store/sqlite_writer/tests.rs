//! The group commit and the committer, on a SQLite file.

use std::time::Duration;

use crate::store::Store;
use crate::store::prepared_write::{PreparedWrite, Value};

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
async fn holding<'s>(store: &'s Store, k: &str) -> crate::store::Write<'s> {
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
    writer
        .line
        .batches
        .load(std::sync::atomic::Ordering::Relaxed)
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

static INSERT_TWO: PreparedWrite = PreparedWrite::new(&[
    "INSERT INTO t (k) VALUES ($1) RETURNING k",
    "INSERT INTO t (k) VALUES ($2) RETURNING k",
]);

/// A prepared write inserting `k` then `k2`: whether it was kept.
async fn insert_two(store: &Store, k: &str, k2: &str) -> Result<bool, sqlx::Error> {
    let args = vec![Value::Text(k.to_owned()), Value::Text(k2.to_owned())];
    store.run_prepared(INSERT_TWO.bind(args, None)).await
}

#[tokio::test]
async fn prepared_writes_share_commits_and_keep_or_undo_only_themselves() {
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
                    5 => {
                        static BROKEN: PreparedWrite = PreparedWrite::new(&[
                            "INSERT INTO t (k) VALUES ($1) RETURNING k",
                            "INSERT INTO nowhere (k) VALUES ($2) RETURNING k",
                        ]);
                        let args = vec![Value::Text(a), Value::Text(b)];
                        store.run_prepared(BROKEN.bind(args, None)).await.is_err()
                    }
                    // Declined with nothing changed.
                    4 => {
                        static NOTHING: PreparedWrite =
                            PreparedWrite::new(&["UPDATE t SET k = $1 WHERE k = $2 RETURNING k"]);
                        let args = vec![Value::Text(a), Value::Text("nowhere".into())];
                        !store.run_prepared(NOTHING.bind(args, None)).await.unwrap()
                    }
                    0 => insert_two(&store, &a, &b).await.unwrap() && kept(&store, &b).await,
                    // The second insert finds its row there: someone else came first.
                    1 => !insert_two(&store, &a, "dup").await.unwrap(),
                    // Declined: the second step finds nothing to do, after the first ran.
                    2 => {
                        static HALF: PreparedWrite = PreparedWrite::new(&[
                            "INSERT INTO t (k) VALUES ($1) RETURNING k",
                            "UPDATE t SET k = $2 WHERE k = 'nowhere' RETURNING k",
                        ]);
                        let args = vec![Value::Text(a), Value::Text(b)];
                        !store.run_prepared(HALF.bind(args, None)).await.unwrap()
                    }
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

static UPDATE_HOT: PreparedWrite =
    PreparedWrite::new(&["UPDATE hot SET v = $1 WHERE id = $2 RETURNING id"]);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_starts_over_under_a_steady_stream_of_writes() {
    let (dir, store) = store().await;
    sqlx::query("CREATE TABLE hot (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        .execute(&store.pool)
        .await
        .unwrap();
    let rows: i64 = 64;
    for id in 0..rows {
        sqlx::query("INSERT INTO hot (id, v) VALUES ($1, '')")
            .bind(id)
            .execute(&store.pool)
            .await
            .unwrap();
    }
    let wal = dir.path().join("w.db-wal");
    let started_over = || {
        // The WAL header's checkpoint sequence: one more each time the WAL starts over.
        use std::io::Read;
        let mut header = [0; 16];
        std::fs::File::open(&wal)
            .and_then(|mut f| f.read_exact(&mut header))
            .unwrap();
        u32::from_be_bytes(header[12..16].try_into().unwrap())
    };
    let before = started_over();
    // Writers that never pause for three seconds (fifteen of the checkpointer's turns), each
    // changing pages of its own: about a frame a write, and a batch always waiting while the
    // checkpointer copies.
    let until = std::time::Instant::now() + Duration::from_secs(3);
    let tasks: Vec<_> = (0..16)
        .map(|w: i64| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut writes = 0;
                while std::time::Instant::now() < until {
                    let args = vec![
                        Value::Text(format!("{writes:03000}")),
                        Value::Int((w * 4 + writes % 4) % rows),
                    ];
                    assert!(
                        store
                            .run_prepared(UPDATE_HOT.bind(args, None))
                            .await
                            .unwrap()
                    );
                    writes += 1;
                }
                writes
            })
        })
        .collect();
    let mut writes = 0;
    for t in tasks {
        writes += t.await.unwrap();
    }
    // Left to the checkpointer alone, the WAL never started over (it held every write); now
    // it does whenever it has reached 256 frames at one of the checkpointer's turns.
    let times = started_over() - before;
    assert!(
        times >= 3,
        "the WAL started over {times} times in 3 s of {writes} writes"
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
    insert_two(&store, "a", "b").await.unwrap();
    let wal = dir.path().join("w.db-wal");
    assert!(wal.exists());
    store.close().await;
    // SQLite removes the WAL when its last connection closes: the committer's too.
    assert!(!wal.exists(), "a connection to the database is still open");
}

#[tokio::test]
async fn a_closed_store_refuses_writes() {
    let (_dir, store) = store().await;
    insert(&store, "t", "a").await.unwrap();
    store.close().await;
    assert!(insert(&store, "t", "b").await.is_err());
    let prepared = tokio::time::timeout(Duration::from_secs(10), insert_two(&store, "c", "d"));
    assert!(prepared.await.expect("answered").is_err());
}
