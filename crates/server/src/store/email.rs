//! The links sent by e-mail (docs/mail.md): confirming an address and choosing a new password.
//! Only a token's hash is kept; a link works once and for a while; how many may be sent to an
//! account in a window is counted under the account's row lock, so requests at once cannot
//! pass the limit.

use sqlx::Row;

use super::Store;
use crate::mail::{RESET_MS, VERIFY_MS};

/// The purposes of a link, as stored.
const VERIFY: &str = "verify";
const RESET: &str = "reset";

/// Confirmation links an account may be sent: one a minute, five a day.
const VERIFY_GAP_MS: i64 = 60_000;
const VERIFY_PER_DAY: i64 = 5;
/// New-password links: one each 5 minutes, five a day.
const RESET_GAP_MS: i64 = 5 * 60_000;
const RESET_PER_DAY: i64 = 5;
const DAY_MS: i64 = 24 * 3_600_000;

/// Why a link does not work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkProblem {
    /// No link of ours has this token (or it is of the other purpose).
    Unknown,
    /// Its time passed.
    Expired,
    /// It worked once already.
    Used,
    /// It confirms an address the account no longer has.
    Stale,
}

/// A new-password link, read before the new password is hashed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResetLink {
    /// Its account.
    pub account_id: String,
    /// The account's name and e-mail, which the new password must not contain.
    pub name: String,
    /// The address it was sent to.
    pub email: String,
}

impl Store {
    /// Keeps a confirmation link for the account's `email`, unless one was sent in the last
    /// minute or five in the last day: whether it was kept.
    pub async fn verify_token(
        &self,
        account: &str,
        email: &str,
        token_hash: &str,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query(&format!(
            "SELECT id FROM accounts WHERE id = $1{}",
            self.lock_suffix()
        ))
        .bind(account)
        .fetch_optional(&mut *tx)
        .await?;
        let (last, today) = sent(&mut tx, account, VERIFY, now).await?;
        if last.is_some_and(|at| now - at < VERIFY_GAP_MS) || today >= VERIFY_PER_DAY {
            tx.rollback().await?;
            return Ok(false);
        }
        insert(
            &mut tx,
            token_hash,
            account,
            VERIFY,
            email,
            now,
            now + VERIFY_MS,
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Keeps a new-password link for the account with this confirmed e-mail: its name, or
    /// None when no account has it confirmed, or a link went to it in the last 5 minutes
    /// (or five in the last day).
    pub async fn reset_token(
        &self,
        email: &str,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<String>, sqlx::Error> {
        let mut tx = self.write().await?;
        let row = sqlx::query(&format!(
            "SELECT id, name FROM accounts WHERE email = $1 AND email_verified_at IS NOT NULL \
             AND password_hash IS NOT NULL{}",
            self.lock_suffix()
        ))
        .bind(email)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(None);
        };
        let (id, name): (String, String) = (row.try_get("id")?, row.try_get("name")?);
        let (last, today) = sent(&mut tx, &id, RESET, now).await?;
        if last.is_some_and(|at| now - at < RESET_GAP_MS) || today >= RESET_PER_DAY {
            tx.rollback().await?;
            return Ok(None);
        }
        insert(&mut tx, token_hash, &id, RESET, email, now, now + RESET_MS).await?;
        tx.commit().await?;
        Ok(Some(name))
    }

    /// Follows a confirmation link: the address it confirmed.
    pub async fn confirm_email(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Result<String, LinkProblem>, sqlx::Error> {
        let mut tx = self.write().await?;
        let link = match take(&mut tx, token_hash, VERIFY, now).await? {
            Ok(link) => link,
            Err(problem) => {
                tx.rollback().await?;
                return Ok(Err(problem));
            }
        };
        let (account, email) = link;
        let confirmed = sqlx::query(
            "UPDATE accounts SET email_verified_at = COALESCE(email_verified_at, $1) \
             WHERE id = $2 AND email = $3",
        )
        .bind(now)
        .bind(&account)
        .bind(&email)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if confirmed == 0 {
            tx.rollback().await?;
            return Ok(Err(LinkProblem::Stale));
        }
        tx.commit().await?;
        Ok(Ok(email))
    }

    /// Reads a new-password link without using it (the new password is checked and hashed
    /// before [`Store::reset_password`] uses it).
    pub async fn reset_link(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Result<ResetLink, LinkProblem>, sqlx::Error> {
        let row = sqlx::query(
            "SELECT t.account_id, t.email, t.expires_at, t.used_at, a.name FROM email_tokens t \
             JOIN accounts a ON a.id = t.account_id WHERE t.token_hash = $1 AND t.purpose = $2",
        )
        .bind(token_hash)
        .bind(RESET)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(Err(LinkProblem::Unknown));
        };
        if let Some(problem) = unusable(&row, now)? {
            return Ok(Err(problem));
        }
        Ok(Ok(ResetLink {
            account_id: row.try_get("account_id")?,
            name: row.try_get("name")?,
            email: row.try_get("email")?,
        }))
    }

    /// Uses a new-password link: the account's password becomes `password_hash` and every
    /// session of the account ends, in one transaction; the account's id.
    pub async fn reset_password(
        &self,
        token_hash: &str,
        password_hash: &str,
        now: i64,
    ) -> Result<Result<String, LinkProblem>, sqlx::Error> {
        let mut tx = self.write().await?;
        let (account, _) = match take(&mut tx, token_hash, RESET, now).await? {
            Ok(link) => link,
            Err(problem) => {
                tx.rollback().await?;
                return Ok(Err(problem));
            }
        };
        sqlx::query("UPDATE accounts SET password_hash = $1 WHERE id = $2")
            .bind(password_hash)
            .bind(&account)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM sessions WHERE account_id = $1")
            .bind(&account)
            .execute(&mut *tx)
            .await?;
        forget_reset_links(&mut tx, &account, now).await?;
        tx.commit().await?;
        Ok(Ok(account))
    }
}

/// Every new-password link of the account dies with the old password.
pub(super) async fn forget_reset_links(
    tx: &mut super::Write<'_>,
    account: &str,
    now: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE email_tokens SET used_at = $1 WHERE account_id = $2 AND purpose = $3 \
         AND used_at IS NULL",
    )
    .bind(now)
    .bind(account)
    .bind(RESET)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// When the last link of `purpose` went to the account, and how many in the last day.
async fn sent(
    tx: &mut super::Write<'_>,
    account: &str,
    purpose: &str,
    now: i64,
) -> Result<(Option<i64>, i64), sqlx::Error> {
    let row = sqlx::query(
        "SELECT MAX(created_at) AS last, COUNT(*) AS today FROM email_tokens \
         WHERE account_id = $1 AND purpose = $2 AND created_at > $3",
    )
    .bind(account)
    .bind(purpose)
    .bind(now - DAY_MS)
    .fetch_one(&mut **tx)
    .await?;
    Ok((row.try_get("last")?, row.try_get("today")?))
}

async fn insert(
    tx: &mut super::Write<'_>,
    token_hash: &str,
    account: &str,
    purpose: &str,
    email: &str,
    now: i64,
    expires: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO email_tokens (token_hash, account_id, purpose, email, created_at, \
         expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(token_hash)
    .bind(account)
    .bind(purpose)
    .bind(email)
    .bind(now)
    .bind(expires)
    .execute(&mut **tx)
    .await?;
    // Links of a day ago have all expired: nothing needs them.
    sqlx::query("DELETE FROM email_tokens WHERE account_id = $1 AND created_at < $2")
        .bind(account)
        .bind(now - 2 * DAY_MS)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Why a stored link no longer works, if it does not.
fn unusable(row: &sqlx::any::AnyRow, now: i64) -> Result<Option<LinkProblem>, sqlx::Error> {
    let used: Option<i64> = row.try_get("used_at")?;
    let expires: i64 = row.try_get("expires_at")?;
    Ok(if used.is_some() {
        Some(LinkProblem::Used)
    } else if now >= expires {
        Some(LinkProblem::Expired)
    } else {
        None
    })
}

/// Uses a link once: its account and address. The update that marks it used is conditional,
/// so of two requests at once with one link exactly one gets it.
async fn take(
    tx: &mut super::Write<'_>,
    token_hash: &str,
    purpose: &str,
    now: i64,
) -> Result<Result<(String, String), LinkProblem>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT account_id, email, expires_at, used_at FROM email_tokens \
         WHERE token_hash = $1 AND purpose = $2",
    )
    .bind(token_hash)
    .bind(purpose)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else {
        return Ok(Err(LinkProblem::Unknown));
    };
    if let Some(problem) = unusable(&row, now)? {
        return Ok(Err(problem));
    }
    let took = sqlx::query(
        "UPDATE email_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL",
    )
    .bind(now)
    .bind(token_hash)
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if took == 0 {
        return Ok(Err(LinkProblem::Used));
    }
    Ok(Ok((row.try_get("account_id")?, row.try_get("email")?)))
}
