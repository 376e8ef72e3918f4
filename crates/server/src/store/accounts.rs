//! Accounts and their sessions.

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::Store;
use crate::devices::Device;

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    /// Random id.
    pub id: String,
    /// Player name as chosen.
    pub name: String,
    /// Normalised e-mail, if any.
    pub email: Option<String>,
    /// Argon2id PHC string, if the account has a password.
    pub password_hash: Option<String>,
    /// Google's subject id, if linked.
    pub google_sub: Option<String>,
    /// Two-letter country code.
    pub country: String,
    /// Whether the player picked the country: the phone's region no longer changes it.
    pub country_chosen: bool,
    /// End of the subscription (exclusive), ms since the epoch.
    pub subscribed_until: Option<i64>,
    /// When the e-mail was confirmed as the player's, ms since the epoch.
    pub email_verified_at: Option<i64>,
    /// Why the moderation banned the player, while they are.
    pub ban_reason: Option<String>,
    /// The name the moderation replaced, until the player saw the notice.
    pub renamed_from: Option<String>,
}

/// A session as the player is shown it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    /// Its token's hash.
    pub token_hash: String,
    /// When it was opened, ms.
    pub created_at: i64,
    /// When it was last used, ms (written at most every ten minutes).
    pub seen_at: i64,
    /// The kind of device it was opened on.
    pub device: Option<String>,
    /// The country it was opened from.
    pub country: Option<String>,
}

/// Where a new country comes from (ON-A02).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountryFrom {
    /// The player picked it.
    Picked,
    /// The phone's region changed.
    Region,
}

/// Why an account could not be stored.
#[derive(Debug)]
pub enum InsertError {
    /// The e-mail is used by another account.
    EmailTaken,
    /// The name is used by another player.
    NameTaken,
    /// The Google account is linked to another account.
    GoogleTaken,
    /// The database failed.
    Db(sqlx::Error),
}

impl From<sqlx::Error> for InsertError {
    fn from(e: sqlx::Error) -> Self {
        InsertError::Db(e)
    }
}

/// How long a deleted player's name stays taken: nobody passes for them while the people who
/// played them still remember it.
pub const NAME_QUARANTINE_MS: i64 = 30 * 24 * 60 * 60 * 1000;

/// What a freed name's key becomes on its deleted account, before the id: names cannot have
/// a `:`, so no name's key is ever one of these.
const FREED_KEY: &str = "removed:";

pub(super) const ACCOUNT_COLUMNS: &str = "id, name, email, password_hash, google_sub, country, \
     country_chosen, subscribed_until, email_verified_at, ban_reason, renamed_from FROM accounts";

pub(super) fn account_from(row: &AnyRow) -> Result<AccountRow, sqlx::Error> {
    Ok(AccountRow {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        email: row.try_get("email")?,
        password_hash: row.try_get("password_hash")?,
        google_sub: row.try_get("google_sub")?,
        country: row.try_get("country")?,
        country_chosen: row.try_get::<i64, _>("country_chosen")? != 0,
        subscribed_until: row.try_get("subscribed_until")?,
        email_verified_at: row.try_get("email_verified_at")?,
        ban_reason: row.try_get("ban_reason")?,
        renamed_from: row.try_get("renamed_from")?,
    })
}

impl Store {
    /// Stores a new account.
    pub async fn insert_account(&self, a: &AccountRow, now: i64) -> Result<(), InsertError> {
        let mut tx = self.write().await?;
        // A deleted player's name is free once its quarantine is over: the first to ask for
        // it takes the key off the deleted row.
        free_name_keys(&mut tx, now - NAME_QUARANTINE_MS, Some(&a.name)).await?;
        let result = sqlx::query(
            "INSERT INTO accounts (id, name, name_key, email, password_hash, google_sub, \
             country, country_chosen, subscribed_until, email_verified_at, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(&a.id)
        .bind(&a.name)
        .bind(a.name.to_lowercase())
        .bind(&a.email)
        .bind(&a.password_hash)
        .bind(&a.google_sub)
        .bind(&a.country)
        .bind(i64::from(a.country_chosen))
        .bind(a.subscribed_until)
        .bind(a.email_verified_at)
        .bind(now)
        .execute(&mut *tx)
        .await;
        match result {
            Ok(_) => Ok(tx.commit().await?),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                // SQLite names the column, PostgreSQL the constraint: both contain it.
                let text = format!("{} {}", e.message(), e.constraint().unwrap_or(""));
                let taken = if text.contains("email") {
                    InsertError::EmailTaken
                } else if text.contains("google_sub") {
                    InsertError::GoogleTaken
                } else {
                    InsertError::NameTaken
                };
                tx.refuse(taken).await
            }
            Err(e) => Err(InsertError::Db(e)),
        }
    }

    async fn account_where(
        &self,
        column: &str,
        value: &str,
    ) -> Result<Option<AccountRow>, sqlx::Error> {
        let sql = format!("SELECT {ACCOUNT_COLUMNS} WHERE {column} = $1 AND deleted_at IS NULL");
        let row = sqlx::query(&sql)
            .bind(value)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(account_from).transpose()
    }

    /// The account with this normalised e-mail.
    pub async fn account_by_email(&self, email: &str) -> Result<Option<AccountRow>, sqlx::Error> {
        self.account_where("email", email).await
    }

    /// The account linked to this Google subject.
    pub async fn account_by_google(&self, sub: &str) -> Result<Option<AccountRow>, sqlx::Error> {
        self.account_where("google_sub", sub).await
    }

    /// The account with this id.
    pub async fn account_by_id(&self, id: &str) -> Result<Option<AccountRow>, sqlx::Error> {
        self.account_where("id", id).await
    }

    /// The account with this player name, whatever its case.
    pub async fn account_by_name(&self, name: &str) -> Result<Option<AccountRow>, sqlx::Error> {
        self.account_where("name_key", &name.to_lowercase()).await
    }

    /// Links a Google subject to an existing account.
    pub async fn link_google(&self, id: &str, sub: &str) -> Result<(), InsertError> {
        let mut tx = self.write().await?;
        let result = sqlx::query("UPDATE accounts SET google_sub = $1 WHERE id = $2")
            .bind(sub)
            .bind(id)
            .execute(&mut *tx)
            .await;
        match result {
            Ok(_) => Ok(tx.commit().await?),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                tx.refuse(InsertError::GoogleTaken).await
            }
            Err(e) => Err(InsertError::Db(e)),
        }
    }

    /// Sets the account's country: the one the player picked (`Picked`), which the region
    /// never changes after, or the phone region's, unless the player picked one (even in a
    /// request that raced this one); whether it was set.
    pub async fn set_country(
        &self,
        id: &str,
        country: &str,
        from: CountryFrom,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let sql = match from {
            CountryFrom::Picked => {
                "UPDATE accounts SET country = $1, country_chosen = 1 WHERE id = $2"
            }
            CountryFrom::Region => {
                "UPDATE accounts SET country = $1 WHERE id = $2 AND country_chosen = 0"
            }
        };
        let set = sqlx::query(sql)
            .bind(country)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if set.rows_affected() == 0 {
            tx.commit().await?;
            return Ok(false);
        }
        // The national rankings follow the player to the new country, and so do the counts of
        // players per points.
        let standings = sqlx::query(
            "SELECT level, country, neg_points FROM standings WHERE account_id = $1 AND country <> $2",
        )
        .bind(id)
        .bind(country)
        .fetch_all(&mut *tx)
        .await?;
        let mut changes = Vec::with_capacity(standings.len() * 2);
        for r in &standings {
            let (level, neg_points): (i64, i64) = (r.try_get("level")?, r.try_get("neg_points")?);
            changes.push(((level, r.try_get("country")?), neg_points, -1));
            changes.push(((level, country.to_owned()), neg_points, 1));
        }
        sqlx::query("UPDATE standings SET country = $1 WHERE account_id = $2")
            .bind(country)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        super::scoring::apply_counts(&mut tx, changes).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Stores a session by the hash of its token, with the kind of device and the country it
    /// was opened from (and forgets the account's expired ones, so the table holds only
    /// sessions that can still be used); none for a banned account: the ban's reason.
    pub async fn insert_session(
        &self,
        token_hash: &str,
        account_id: &str,
        (now, expires_at): (i64, i64),
        device: &Device,
    ) -> Result<Option<String>, sqlx::Error> {
        let mut tx = self.write().await?;
        // Under the account's row lock: a ban committing meanwhile (which ends every session
        // in its transaction) is seen here, so no session outlives it.
        let lock = match self.backend() {
            super::Backend::Postgres => " FOR SHARE",
            super::Backend::Sqlite => "",
        };
        let ban: Option<Option<String>> = sqlx::query_scalar(&format!(
            "SELECT ban_reason FROM accounts WHERE id = $1{lock}"
        ))
        .bind(account_id)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(Some(reason)) = ban {
            tx.rollback().await?;
            return Ok(Some(reason));
        }
        sqlx::query(
            "INSERT INTO sessions (token_hash, account_id, created_at, expires_at, seen_at, \
             device, country) VALUES ($1, $2, $3, $4, $3, $5, $6)",
        )
        .bind(token_hash)
        .bind(account_id)
        .bind(now)
        .bind(expires_at)
        .bind(device.kind.as_deref())
        .bind(device.country.as_deref())
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM sessions WHERE account_id = $1 AND expires_at <= $2")
            .bind(account_id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(None)
    }

    /// The account's unexpired sessions, the last used first.
    pub async fn sessions_of(
        &self,
        account_id: &str,
        now: i64,
    ) -> Result<Vec<SessionRow>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT token_hash, created_at, COALESCE(seen_at, created_at) AS seen_at, device, \
             country FROM sessions WHERE account_id = $1 AND expires_at > $2 \
             ORDER BY seen_at DESC, created_at DESC",
        )
        .bind(account_id)
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(SessionRow {
                    token_hash: r.try_get("token_hash")?,
                    created_at: r.try_get("created_at")?,
                    seen_at: r.try_get("seen_at")?,
                    device: r.try_get("device")?,
                    country: r.try_get("country")?,
                })
            })
            .collect()
    }

    /// A session was used at `now`.
    pub async fn session_seen(&self, token_hash: &str, now: i64) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("UPDATE sessions SET seen_at = $1 WHERE token_hash = $2")
            .bind(now)
            .bind(token_hash)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Ends every session of the account but `kept`: how many there were.
    pub async fn end_sessions_but(&self, account_id: &str, kept: &str) -> Result<u64, sqlx::Error> {
        let mut tx = self.write().await?;
        let gone = sqlx::query("DELETE FROM sessions WHERE account_id = $1 AND token_hash <> $2")
            .bind(account_id)
            .bind(kept)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(gone)
    }

    /// Sets the account's password if its hash is still `was` (a change at once with another
    /// keeps one of them whole): every other session ends, and every new-password link with
    /// the old password. False if the password changed meanwhile.
    pub async fn change_password(
        &self,
        account_id: &str,
        (was, password_hash): (&str, &str),
        keep_session: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let changed = sqlx::query(
            "UPDATE accounts SET password_hash = $1 WHERE id = $2 AND password_hash = $3",
        )
        .bind(password_hash)
        .bind(account_id)
        .bind(was)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !changed {
            tx.rollback().await?;
            return Ok(false);
        }
        sqlx::query("DELETE FROM sessions WHERE account_id = $1 AND token_hash <> $2")
            .bind(account_id)
            .bind(keep_session)
            .execute(&mut *tx)
            .await?;
        super::email::forget_reset_links(&mut tx, account_id, now).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// The account of an unexpired session.
    pub async fn account_by_session(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<AccountRow>, sqlx::Error> {
        let sql = format!(
            "SELECT {ACCOUNT_COLUMNS} WHERE id = (SELECT account_id FROM sessions \
             WHERE token_hash = $1 AND expires_at > $2) AND deleted_at IS NULL \
             AND banned_at IS NULL"
        );
        let row = sqlx::query(&sql)
            .bind(token_hash)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(account_from).transpose()
    }

    /// Ends a session.
    pub async fn delete_session(&self, token_hash: &str) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Frees the names of players deleted before `before`, the quarantine over: the hourly
    /// sweep, so that no deleted player's name stays kept longer than it says.
    pub async fn free_names(&self, before: i64) -> Result<u64, sqlx::Error> {
        let mut tx = self.write().await?;
        let freed = free_name_keys(&mut tx, before, None).await?;
        tx.commit().await?;
        Ok(freed)
    }
}

/// Frees the names of players deleted at `before` or earlier (of `name` alone, when given):
/// the key moves off the deleted row. Both the hourly sweep and a sign-up asking for a name.
pub(super) async fn free_name_keys(
    tx: &mut AnyConnection,
    before: i64,
    name: Option<&str>,
) -> Result<u64, sqlx::Error> {
    // The literal prefix lets both databases use the partial index of 0020.
    let freed_key = FREED_KEY;
    let only = if name.is_some() {
        " AND name_key = $2"
    } else {
        ""
    };
    let sql = format!(
        "UPDATE accounts SET name_key = '{freed_key}' || id WHERE deleted_at IS NOT NULL \
         AND name_key NOT LIKE '{freed_key}%' AND deleted_at <= $1{only}"
    );
    let mut query = sqlx::query(&sql).bind(before);
    if let Some(name) = name {
        query = query.bind(name.to_lowercase());
    }
    Ok(query.execute(&mut *tx).await?.rows_affected())
}
