//! Moderation as stored (docs/moderation.md): bans, the moderation's renames, the operators'
//! audit and the players' reports.

use sqlx::{AnyConnection, Row};

use super::scoring::apply_counts;
use super::{Backend, Store};
use crate::token::new_id;

/// One operator's action, as the audit lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditRow {
    /// When, ms since the epoch.
    pub at: i64,
    /// Who did it (the operator's login name).
    pub operator: String,
    /// `ban`, `unban` or `rename`.
    pub action: String,
    /// The player's name at the time.
    pub account_name: Option<String>,
    /// The reason, or the names.
    pub detail: String,
}

/// A report, as the operators list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportRow {
    /// Its id.
    pub id: String,
    /// When, ms since the epoch.
    pub at: i64,
    /// The reporter's name now.
    pub reporter: String,
    /// The reported player's name when reported.
    pub reported: String,
    /// Whether the reported player is banned now.
    pub reported_banned: bool,
    /// Where they met: `match:ID`, `room:ID` or `ranking`.
    pub context: String,
    /// Why.
    pub reason: String,
    /// What the reporter added.
    pub note: Option<String>,
}

/// A new report.
pub struct NewReport<'a> {
    /// The reporter's account.
    pub reporter: &'a str,
    /// The reported player's account, when they have one (a room's guest has none).
    pub reported_id: Option<&'a str>,
    /// The reported player's name as the reporter saw it.
    pub reported_name: &'a str,
    /// Where they met.
    pub context: &'a str,
    /// Why.
    pub reason: &'a str,
    /// What the reporter added.
    pub note: Option<&'a str>,
}

/// Why a moderation command changed nothing.
#[derive(Debug)]
pub enum ModerationError {
    /// No player has that name.
    NoSuchPlayer,
    /// The player is already in the state asked for.
    Already,
    /// The new name belongs to another player.
    NameTaken,
    /// The database failed.
    Db(sqlx::Error),
}

impl From<sqlx::Error> for ModerationError {
    fn from(e: sqlx::Error) -> Self {
        ModerationError::Db(e)
    }
}

/// The account of a player name, locked for the change (PostgreSQL; SQLite writes one at a
/// time): its id and its name as written.
async fn locked_account(
    tx: &mut AnyConnection,
    backend: Backend,
    name: &str,
) -> Result<(String, String, Option<i64>), ModerationError> {
    let lock = match backend {
        Backend::Postgres => " FOR UPDATE",
        Backend::Sqlite => "",
    };
    let row = sqlx::query(&format!(
        "SELECT id, name, banned_at FROM accounts WHERE name_key = $1 AND deleted_at IS NULL{lock}"
    ))
    .bind(name.to_lowercase())
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(ModerationError::NoSuchPlayer)?;
    Ok((
        row.try_get("id")?,
        row.try_get("name")?,
        row.try_get("banned_at")?,
    ))
}

async fn audit(
    tx: &mut AnyConnection,
    (at, operator): (i64, &str),
    action: &str,
    account: Option<(&str, &str)>,
    detail: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO admin_actions (id, at, operator, action, account_id, account_name, detail) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(new_id())
    .bind(at)
    .bind(operator)
    .bind(action)
    .bind(account.map(|a| a.0))
    .bind(account.map(|a| a.1))
    .bind(detail)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

impl Store {
    /// Bans the player `name` at `now`: their sessions end, they leave 2.0's queue and the
    /// rankings (their standings and the counts of players per points), all in one
    /// transaction with its line in the audit. Their open matches, connections and live
    /// matches are the serving processes' to end (`Hub::ban_found`). Their id.
    pub async fn ban(
        &self,
        name: &str,
        reason: &str,
        (now, operator): (i64, &str),
    ) -> Result<String, ModerationError> {
        let mut tx = self.write().await?;
        let (id, name, banned_at) = locked_account(&mut tx, self.backend(), name).await?;
        if banned_at.is_some() {
            return tx.refuse(ModerationError::Already).await;
        }
        sqlx::query("UPDATE accounts SET banned_at = $1, ban_reason = $2 WHERE id = $3")
            .bind(now)
            .bind(reason)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        for sql in [
            "DELETE FROM sessions WHERE account_id = $1",
            "DELETE FROM v2_queue WHERE account_id = $1",
        ] {
            sqlx::query(sql).bind(&id).execute(&mut *tx).await?;
        }
        let standings = sqlx::query(
            "DELETE FROM standings WHERE account_id = $1 RETURNING level, country, neg_points",
        )
        .bind(&id)
        .fetch_all(&mut *tx)
        .await?;
        let mut changes = Vec::with_capacity(standings.len());
        for r in &standings {
            changes.push((
                (r.try_get("level")?, r.try_get("country")?),
                r.try_get("neg_points")?,
                -1,
            ));
        }
        apply_counts(&mut tx, changes).await?;
        audit(&mut tx, (now, operator), "ban", Some((&id, &name)), reason).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Lifts the ban of the player `name`; the caller rebuilds the rankings, which gives them
    /// back their standings from their matches.
    pub async fn unban(
        &self,
        name: &str,
        (now, operator): (i64, &str),
    ) -> Result<(), ModerationError> {
        let mut tx = self.write().await?;
        let (id, name, banned_at) = locked_account(&mut tx, self.backend(), name).await?;
        if banned_at.is_none() {
            return tx.refuse(ModerationError::Already).await;
        }
        sqlx::query("UPDATE accounts SET banned_at = NULL, ban_reason = NULL WHERE id = $1")
            .bind(&id)
            .execute(&mut *tx)
            .await?;
        audit(&mut tx, (now, operator), "unban", Some((&id, &name)), "").await?;
        tx.commit().await?;
        Ok(())
    }

    /// Renames the player `name` to `new` (already checked as a name), keeping the old name
    /// for the notice the player sees next.
    pub async fn moderation_rename(
        &self,
        name: &str,
        new: &str,
        (now, operator): (i64, &str),
    ) -> Result<(), ModerationError> {
        let mut tx = self.write().await?;
        let (id, old, _) = locked_account(&mut tx, self.backend(), name).await?;
        if old == new {
            return tx.refuse(ModerationError::Already).await;
        }
        // A deleted player's name whose quarantine is over is free, as for a sign-up.
        super::accounts::free_name_keys(&mut tx, now - super::NAME_QUARANTINE_MS, Some(new))
            .await?;
        let renamed = sqlx::query(
            "UPDATE accounts SET name = $1, name_key = $2, \
             renamed_from = COALESCE(renamed_from, $3) WHERE id = $4",
        )
        .bind(new)
        .bind(new.to_lowercase())
        .bind(&old)
        .bind(&id)
        .execute(&mut *tx)
        .await;
        match renamed {
            Ok(_) => {}
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                return tx.refuse(ModerationError::NameTaken).await;
            }
            Err(e) => return Err(e.into()),
        }
        audit(
            &mut tx,
            (now, operator),
            "rename",
            Some((&id, &old)),
            &format!("{old} → {new}"),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The player saw that the moderation renamed them.
    pub async fn clear_rename_notice(&self, account: &str) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("UPDATE accounts SET renamed_from = NULL WHERE id = $1")
            .bind(account)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// The players banned after `after` (and still banned), with the time of each ban.
    pub async fn banned_after(&self, after: i64) -> Result<Vec<(String, i64)>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT id, banned_at FROM accounts WHERE banned_at IS NOT NULL AND banned_at > $1",
        )
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("id")?, r.try_get("banned_at")?)))
            .collect()
    }

    /// The audit, newest first, at most `limit` lines.
    pub async fn audit(&self, limit: i64) -> Result<Vec<AuditRow>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT at, operator, action, account_name, detail FROM admin_actions \
             ORDER BY at DESC, id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(AuditRow {
                    at: r.try_get("at")?,
                    operator: r.try_get("operator")?,
                    action: r.try_get("action")?,
                    account_name: r.try_get("account_name")?,
                    detail: r.try_get("detail")?,
                })
            })
            .collect()
    }

    /// Files a report; false when this reporter already reported this player here.
    pub async fn report(&self, r: &NewReport<'_>, now: i64) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let filed = sqlx::query(
            "INSERT INTO reports (id, at, reporter_id, reported_id, reported_name, context, \
             reason, note) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT DO NOTHING",
        )
        .bind(new_id())
        .bind(now)
        .bind(r.reporter)
        .bind(r.reported_id)
        .bind(r.reported_name)
        .bind(r.context)
        .bind(r.reason)
        .bind(r.note)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(filed)
    }

    /// The account holding a room's seat, if one does (a guest's seat has none).
    pub async fn room_seat_account(
        &self,
        room: &str,
        seat: velha_api::Seat,
    ) -> Result<Option<String>, sqlx::Error> {
        Ok(sqlx::query_scalar::<_, Option<String>>(
            "SELECT account_id FROM room_seats WHERE room_id = $1 AND seat = $2",
        )
        .bind(room)
        .bind(super::seat_str(seat))
        .fetch_optional(&self.pool)
        .await?
        .flatten())
    }

    /// Whether the account has a row in a ranking: a cube standing or a 2.0 rating.
    pub async fn in_rankings(&self, account: &str) -> Result<bool, sqlx::Error> {
        let found = sqlx::query(
            "SELECT 1 FROM standings WHERE account_id = $1 \
             UNION ALL SELECT 1 FROM v2_ratings WHERE account_id = $1",
        )
        .bind(account)
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }

    /// Writes a line of the audit for an operator's action outside moderation (a
    /// subscription granted, the rankings rebuilt).
    pub async fn audit_action(
        &self,
        (now, operator): (i64, &str),
        action: &str,
        account: Option<(&str, &str)>,
        detail: &str,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        audit(&mut tx, (now, operator), action, account, detail).await?;
        tx.commit().await
    }

    /// The reports, newest first, at most `limit`.
    pub async fn reports(&self, limit: i64) -> Result<Vec<ReportRow>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT r.id, r.at, a.name AS reporter, r.reported_name, r.context, r.reason, \
             r.note, CASE WHEN b.banned_at IS NULL THEN 0 ELSE 1 END AS banned \
             FROM reports r JOIN accounts a ON a.id = r.reporter_id \
             LEFT JOIN accounts b ON b.id = r.reported_id \
             ORDER BY r.at DESC, r.id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(ReportRow {
                    id: r.try_get("id")?,
                    at: r.try_get("at")?,
                    reporter: r.try_get("reporter")?,
                    reported: r.try_get("reported_name")?,
                    reported_banned: r.try_get::<i64, _>("banned")? != 0,
                    context: r.try_get("context")?,
                    reason: r.try_get("reason")?,
                    note: r.try_get("note")?,
                })
            })
            .collect()
    }
}
