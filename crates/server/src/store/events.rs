//! The events the server processes tell each other (docs/deploy.md): recorded in the
//! transaction of the change that made them and notified on PostgreSQL's channel once it
//! committed (`announcer.rs`); a late process reads the ones it missed from the table.

use sqlx::Row;

use super::prepared_write::Value;
use super::{Backend, Store, Write};
use crate::token::now_ms;

/// PostgreSQL's channel for the processes' events.
pub const CHANNEL: &str = "velha_events";
/// The largest event NOTIFY carries itself (PostgreSQL allows a little under 8000 bytes);
/// a larger one is read from the `events` table by its id.
pub const NOTIFY_INLINE: usize = 7000;

/// Records an event (arguments `$1`…`$3`: `event_args`).
pub(super) const RECORD_EVENT: &str =
    "INSERT INTO events (id, at, payload) VALUES ($1, $2, $3) RETURNING id";

/// The arguments of `RECORD_EVENT`, `$1`…`$3`.
pub(super) fn event_args(id: &str, payload: &str) -> [Value; 3] {
    [
        Value::Text(id.to_owned()),
        Value::Int(now_ms()),
        Value::Text(payload.to_owned()),
    ]
}

/// What NOTIFY carries of an event: the event itself, or only its id when too large.
pub(super) fn note(id: &str, payload: &str) -> String {
    if payload.len() <= NOTIFY_INLINE {
        format!("{id}\n{payload}")
    } else {
        id.to_owned()
    }
}

impl Store {
    /// Records events (id, payload) in the transaction that made them, on PostgreSQL, which
    /// announces them once it commits (`Write::commit`). SQLite has one process, which
    /// delivers its events itself.
    pub(crate) async fn tell(
        &self,
        tx: &mut Write<'_>,
        events: &[(String, String)],
    ) -> Result<(), sqlx::Error> {
        if self.backend != Backend::Postgres {
            return Ok(());
        }
        for (id, payload) in events {
            let args = event_args(id, payload);
            super::prepared_write::bound(RECORD_EVENT, &args)
                .execute(&mut **tx)
                .await?;
        }
        tx.told(events);
        Ok(())
    }

    /// Tells the other processes of events that change nothing stored.
    pub async fn publish(&self, events: &[(String, String)]) -> Result<(), sqlx::Error> {
        if self.backend != Backend::Postgres || events.is_empty() {
            return Ok(());
        }
        let mut tx = self.write().await?;
        self.tell(&mut tx, events).await?;
        tx.commit().await
    }

    /// One event, by id (one too large for NOTIFY).
    pub async fn event(&self, id: &str) -> Result<Option<String>, sqlx::Error> {
        let row = sqlx::query("SELECT payload FROM events WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| r.try_get("payload")).transpose()
    }

    /// The events recorded since `at` (ms), oldest first: (id, payload).
    pub async fn events_since(&self, at: i64) -> Result<Vec<(String, String)>, sqlx::Error> {
        let rows = sqlx::query("SELECT id, payload FROM events WHERE at >= $1 ORDER BY at, id")
            .bind(at)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("payload")?)))
            .collect()
    }

    /// Forgets the events recorded before `at`.
    pub async fn prune_events(&self, at: i64) -> Result<u64, sqlx::Error> {
        let mut tx = self.write().await?;
        let done = sqlx::query("DELETE FROM events WHERE at < $1")
            .bind(at)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }
}
