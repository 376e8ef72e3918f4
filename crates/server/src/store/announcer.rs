//! Tells the other processes of events once the change that recorded them has committed
//! (PostgreSQL only): NOTIFY from a connection of its own, in batches, without waiting for the
//! disk.
//!
//! A transaction that notifies holds a lock on the whole database from its NOTIFY to the end of
//! its commit, WAL flush included, so that notifications arrive in commit order. When every
//! move notified in its own transaction, moves committed one after another behind that lock:
//! up to 27 waited on it at once with two processes at 500 to 650 moves a second, and the moves'
//! p99 was 40 to 250 ms (`bash scripts/bench-cluster.sh`). The event itself is recorded
//! durably with its change; the notification is only a wake-up. What a lost wake-up would
//! hide is read back from the table: after a process is given up or leaves (`Store::bury`),
//! after this queue overflowed, and after a commit whose outcome is unknown, every process is
//! told to catch up ([`CATCH_UP`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::PgConnection;
use tokio::sync::mpsc;

use super::events::{CHANNEL, note};
use crate::token::now_ms;

/// Events waiting for their notification; past it, the newest are dropped and a catch-up
/// covers them.
const QUEUE: usize = 8192;
/// The most notifications sent in one statement.
const BATCH: usize = 256;
/// A notification that says "read back the events recorded since this time (ms)".
pub const CATCH_UP: &str = "catch-up:";

/// The queue of notifications, and the task that sends them (started by the first event).
#[derive(Debug)]
pub(super) struct Announcer {
    url: String,
    queue: Mutex<Option<Queue>>,
    /// When the oldest dropped notification's event was recorded, until a catch-up is sent.
    dropped_since: Mutex<Option<i64>>,
}

#[derive(Debug)]
struct Queue {
    /// An empty note only wakes the task, to send a catch-up.
    sender: mpsc::Sender<String>,
    task: tokio::task::JoinHandle<()>,
}

impl Announcer {
    pub(super) fn new(url: &str) -> Announcer {
        Announcer {
            url: url.to_owned(),
            queue: Mutex::new(None),
            dropped_since: Mutex::new(None),
        }
    }

    /// Queues the notifications of committed events (id, payload).
    pub(super) fn announce(self: &Arc<Self>, events: &[(String, String)]) {
        for (id, payload) in events {
            self.queue_note(note(id, payload), id);
        }
    }

    /// Events whose commit may or may not have happened (the connection was lost while it
    /// committed): a catch-up reads back whichever were kept.
    pub(super) fn unsure(self: &Arc<Self>, events: &[(String, String)]) {
        if let Some((id, _)) = events.first() {
            self.dropped(id);
            self.queue_note(String::new(), id);
        }
    }

    fn queue_note(self: &Arc<Self>, note: String, id: &str) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        // A task that ended (it panicked) is started again.
        if queue.as_ref().is_none_or(|q| q.sender.is_closed()) {
            let (sender, receiver) = mpsc::channel(QUEUE);
            let task = tokio::spawn(self.clone().send_all(receiver));
            *queue = Some(Queue { sender, task });
        }
        let Some(q) = queue.as_ref() else { return };
        if q.sender.try_send(note).is_err() {
            drop(queue);
            self.dropped(id);
        }
    }

    /// Asks for a catch-up of everything recorded since the event `id` was.
    fn dropped(&self, id: &str) {
        let at = crate::token::time_of(id).unwrap_or_else(now_ms);
        let mut dropped = self.dropped_since.lock().unwrap_or_else(|e| e.into_inner());
        *dropped = Some(dropped.map_or(at, |d| d.min(at)));
    }

    /// Sends what is queued, waiting `within` at most; what is not sent by then is covered by
    /// the catch-up the process's burial sends.
    pub(super) async fn flush(&self, within: Duration) {
        let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(Queue { sender, task }) = queue {
            drop(sender);
            if tokio::time::timeout(within, task).await.is_err() {
                tracing::warn!("stopped before notifying the other processes of every event");
            }
        }
    }

    /// Sends the queued notifications for as long as the process runs, a batch per statement,
    /// on a connection opened again whenever it is lost (a batch is sent again whole: the
    /// listeners skip an event they already had).
    async fn send_all(self: Arc<Self>, mut receiver: mpsc::Receiver<String>) {
        let mut conn: Option<PgConnection> = None;
        let mut batch: Vec<String> = Vec::with_capacity(BATCH);
        loop {
            if batch.is_empty() {
                match receiver.recv().await {
                    Some(first) => batch.push(first),
                    None => return,
                }
                while batch.len() < BATCH {
                    match receiver.try_recv() {
                        Ok(more) => batch.push(more),
                        Err(_) => break,
                    }
                }
            }
            // Taken: whatever is dropped from now on asks for a catch-up of its own.
            let dropped = self
                .dropped_since
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take();
            batch.retain(|n| !n.is_empty());
            if let Some(since) = dropped {
                batch.push(format!("{CATCH_UP}{since}"));
            }
            if batch.is_empty() {
                continue;
            }
            let sent = match conn.as_mut() {
                Some(c) => notify(c, &batch).await,
                None => match open(&self.url).await {
                    Ok(c) => notify(conn.insert(c), &batch).await,
                    Err(e) => Err(e),
                },
            };
            match sent {
                Ok(()) => batch.clear(),
                Err(e) => {
                    if let Some(since) = dropped {
                        batch.pop();
                        let mut again =
                            self.dropped_since.lock().unwrap_or_else(|e| e.into_inner());
                        *again = Some(again.map_or(since, |d| d.min(since)));
                    }
                    tracing::warn!(error = %e, "cannot notify the other processes; retrying");
                    conn = None;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
    }
}

/// A connection whose commits do not wait for the disk: it writes nothing that must last.
async fn open(url: &str) -> Result<PgConnection, sqlx::Error> {
    let mut conn = PgConnection::connect(url).await?;
    sqlx::query("SET synchronous_commit = off")
        .execute(&mut conn)
        .await?;
    Ok(conn)
}

/// The notifications of `notes`, in order, in one transaction.
async fn notify(conn: &mut PgConnection, notes: &[String]) -> Result<(), sqlx::Error> {
    sqlx::query(
        "SELECT pg_notify($1, n) FROM unnest($2::text[]) WITH ORDINALITY AS u(n, i) ORDER BY i",
    )
    .bind(CHANNEL)
    .bind(notes)
    .execute(conn)
    .await
    .map(|_| ())
}
