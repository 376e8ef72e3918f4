//! Push subscriptions (docs/push.md): a device's endpoint and keys, the seats it is told of
//! and its account; at most [`MOST_PER_HOLDER`] per seat and per account, counted under the
//! rows' locks so requests at once cannot pass it.

use sqlx::Row;

use super::rooms::{ROOM_COLUMNS, room_from};
use super::{RoomRow, Store};

/// The most subscriptions (devices) one seat or one account is told on.
pub const MOST_PER_HOLDER: i64 = 10;

/// A subscription to keep.
#[derive(Clone, Debug)]
pub struct NewPush<'a> {
    /// A fresh id, kept only if the endpoint is new.
    pub id: &'a str,
    /// The push service's endpoint.
    pub endpoint: &'a str,
    /// The browser's key and secret, base64url.
    pub p256dh: &'a str,
    /// The browser's authentication secret, base64url.
    pub auth: &'a str,
    /// The notices' language.
    pub language: &'a str,
    /// The signed-in account, if any.
    pub account: Option<&'a str>,
    /// The hashes of the seats' credentials, sorted and without repeats.
    pub seats: &'a [String],
    /// Now, ms.
    pub now: i64,
}

/// A device to tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PushTarget {
    /// The subscription's id.
    pub id: String,
    /// Where to post.
    pub endpoint: String,
    /// The browser's key, base64url.
    pub p256dh: String,
    /// The browser's secret, base64url.
    pub auth: String,
    /// The notices' language.
    pub language: String,
}

/// Why a subscription was not kept.
#[derive(Debug)]
pub enum PushError {
    /// A credential holds no seat (a spectator's, or made up).
    UnknownSeat,
    /// A seat or the account is told on as many devices as it may be.
    TooMany,
    /// The database failed.
    Db(sqlx::Error),
}

impl From<sqlx::Error> for PushError {
    fn from(e: sqlx::Error) -> PushError {
        PushError::Db(e)
    }
}

fn target(r: &sqlx::any::AnyRow) -> Result<PushTarget, sqlx::Error> {
    Ok(PushTarget {
        id: r.try_get("id")?,
        endpoint: r.try_get("endpoint")?,
        p256dh: r.try_get("p256dh")?,
        auth: r.try_get("auth")?,
        language: r.try_get("language")?,
    })
}

impl Store {
    /// A secret the server keeps in the database: made by the first process that asks (as
    /// `fresh`), then read back by every other one on this database.
    pub async fn secret(&self, name: &str, fresh: String) -> Result<String, sqlx::Error> {
        let mut tx = self.write().await?;
        // The update that changes nothing makes the statement answer the stored value whether
        // this insert or an earlier one made it.
        let row = sqlx::query(
            "INSERT INTO secrets (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = secrets.value RETURNING value",
        )
        .bind(name)
        .bind(fresh)
        .fetch_one(&mut *tx)
        .await?;
        let secret = row.try_get("value")?;
        tx.commit().await?;
        Ok(secret)
    }

    /// Keeps a device's subscription (or replaces the keys and seats of the one with its
    /// endpoint): its id.
    pub async fn save_push(&self, new: &NewPush<'_>) -> Result<String, PushError> {
        let mut tx = self.write().await?;
        // Each seat's row, then the account's, in one order for every request: requests for
        // one seat apply one after the other, each counting what the one before kept. (SQLite's
        // writes run one at a time.)
        let lock = self.lock_suffix();
        for seat in new.seats {
            let found = sqlx::query(&format!(
                "SELECT credential_hash FROM room_seats WHERE credential_hash = $1{lock}"
            ))
            .bind(seat)
            .fetch_optional(&mut *tx)
            .await?;
            if found.is_none() {
                return tx.refuse(PushError::UnknownSeat).await;
            }
        }
        if let Some(account) = new.account {
            sqlx::query(&format!("SELECT id FROM accounts WHERE id = $1{lock}"))
                .bind(account)
                .fetch_optional(&mut *tx)
                .await?;
        }
        let id: String = sqlx::query_scalar(
            "INSERT INTO push_subscriptions (id, kind, endpoint, p256dh, auth, language, \
             account_id, created_at) VALUES ($1, 'webpush', $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (kind, endpoint) DO UPDATE SET p256dh = excluded.p256dh, \
             auth = excluded.auth, language = excluded.language, \
             account_id = excluded.account_id, \
             failures = 0 RETURNING id",
        )
        .bind(new.id)
        .bind(new.endpoint)
        .bind(new.p256dh)
        .bind(new.auth)
        .bind(new.language)
        .bind(new.account)
        .bind(new.now)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM push_seats WHERE subscription_id = $1")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        for seat in new.seats {
            sqlx::query(
                "INSERT INTO push_seats (subscription_id, credential_hash) VALUES ($1, $2)",
            )
            .bind(&id)
            .bind(seat)
            .execute(&mut *tx)
            .await?;
            let told: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM push_seats WHERE credential_hash = $1")
                    .bind(seat)
                    .fetch_one(&mut *tx)
                    .await?;
            if told > MOST_PER_HOLDER {
                return tx.refuse(PushError::TooMany).await;
            }
        }
        if let Some(account) = new.account {
            let told: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM push_subscriptions WHERE account_id = $1")
                    .bind(account)
                    .fetch_one(&mut *tx)
                    .await?;
            if told > MOST_PER_HOLDER {
                return tx.refuse(PushError::TooMany).await;
            }
        }
        tx.commit().await?;
        Ok(id)
    }

    /// Ends a subscription; false if there is none by that id.
    pub async fn delete_push(&self, id: &str) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let gone = sqlx::query("DELETE FROM push_subscriptions WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(gone)
    }

    /// The devices of a room's seat: those of its credential, and of the account it was taken
    /// by.
    pub async fn push_targets(
        &self,
        room: &str,
        seat: &str,
    ) -> Result<Vec<PushTarget>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT DISTINCT p.id, p.endpoint, p.p256dh, p.auth, p.language \
             FROM room_seats s JOIN push_subscriptions p ON p.id IN \
             (SELECT subscription_id FROM push_seats WHERE credential_hash = s.credential_hash) \
             OR (s.account_id IS NOT NULL AND p.account_id = s.account_id) \
             WHERE s.room_id = $1 AND s.seat = $2",
        )
        .bind(room)
        .bind(seat)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(target).collect()
    }

    /// The devices an account is told on: those subscribed while signed in to it.
    pub async fn push_targets_of_account(
        &self,
        account: &str,
    ) -> Result<Vec<PushTarget>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT id, endpoint, p256dh, auth, language FROM push_subscriptions \
             WHERE account_id = $1",
        )
        .bind(account)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(target).collect()
    }

    /// Rooms whose last activity is in `(from, to]`, that a device is subscribed to tell of
    /// (through a seat's credential or the account that took it), and that no sweep for
    /// `about` looked at in this quiet stretch yet: the quietest first, at most `most`.
    pub async fn rooms_to_sweep(
        &self,
        about: &str,
        from: i64,
        to: i64,
        most: i64,
    ) -> Result<Vec<RoomRow>, sqlx::Error> {
        let sql = format!(
            "SELECT {ROOM_COLUMNS} FROM rooms r WHERE r.last_activity > $1 AND \
             r.last_activity <= $2 AND NOT EXISTS (SELECT 1 FROM push_sweeps w WHERE \
             w.room_id = r.id AND w.about = $3 AND w.activity = r.last_activity) \
             AND EXISTS (SELECT 1 FROM room_seats s WHERE s.room_id = r.id AND \
             (EXISTS (SELECT 1 FROM push_seats t WHERE t.credential_hash = s.credential_hash) \
             OR EXISTS (SELECT 1 FROM push_subscriptions p WHERE s.account_id IS NOT NULL \
             AND p.account_id = s.account_id))) \
             ORDER BY r.last_activity LIMIT $4"
        );
        let rows = sqlx::query(&sql)
            .bind(from)
            .bind(to)
            .bind(about)
            .bind(most)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(room_from).collect()
    }

    /// Marks rooms' quiet stretches (room, last activity) swept for `about`, in one write:
    /// the rooms this call marked (and so tells), not those another process marked first.
    pub async fn mark_swept(
        &self,
        about: &str,
        stretches: &[(&str, i64)],
    ) -> Result<Vec<String>, sqlx::Error> {
        if stretches.is_empty() {
            return Ok(Vec::new());
        }
        let values: Vec<String> = (0..stretches.len())
            .map(|i| format!("(${}, $1, ${})", 2 * i + 2, 2 * i + 3))
            .collect();
        let sql = format!(
            "INSERT INTO push_sweeps (room_id, about, activity) VALUES {} \
             ON CONFLICT DO NOTHING RETURNING room_id",
            values.join(", ")
        );
        let mut query = sqlx::query_scalar::<_, String>(&sql).bind(about);
        for (room, activity) in stretches {
            query = query.bind(*room).bind(*activity);
        }
        let mut tx = self.write().await?;
        let made = query.fetch_all(&mut *tx).await?;
        tx.commit().await?;
        Ok(made)
    }

    /// Forgets the sweeps of stretches that ended before `before` (the rooms have closed).
    pub async fn forget_sweeps(&self, before: i64) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM push_sweeps WHERE activity < $1")
            .bind(before)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// A push taken: the failures in a row start again.
    pub async fn push_sent(&self, id: &str) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("UPDATE push_subscriptions SET failures = 0 WHERE id = $1 AND failures <> 0")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// A push failed: counted, and the subscription deleted at `most` in a row.
    pub async fn push_failed(&self, id: &str, most: i64) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("UPDATE push_subscriptions SET failures = failures + 1 WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM push_subscriptions WHERE id = $1 AND failures >= $2")
            .bind(id)
            .bind(most)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Keeps the notices a stopping process has not sent: (when due, ms; the notice as JSON).
    pub async fn keep_pending(&self, pending: &[(i64, String)]) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        for (due, notice) in pending {
            sqlx::query("INSERT INTO push_pending (id, due_at, notice) VALUES ($1, $2, $3)")
                .bind(crate::token::random_text(16))
                .bind(*due)
                .bind(notice)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await
    }

    /// Takes (and deletes) at most `most` kept notices, the soonest due first: each is taken
    /// by one process however many ask at once. Whether any is kept is read first, so the
    /// many calls that find none write nothing.
    pub async fn take_pending(&self, most: i64) -> Result<Vec<(i64, String)>, sqlx::Error> {
        let any = sqlx::query("SELECT 1 AS one FROM push_pending LIMIT 1")
            .fetch_optional(&self.pool)
            .await?;
        if any.is_none() {
            return Ok(Vec::new());
        }
        let mut tx = self.write().await?;
        let rows = sqlx::query(
            "DELETE FROM push_pending WHERE id IN \
             (SELECT id FROM push_pending ORDER BY due_at LIMIT $1) RETURNING due_at, notice",
        )
        .bind(most)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        rows.iter()
            .map(|r| Ok((r.try_get("due_at")?, r.try_get("notice")?)))
            .collect()
    }
}
