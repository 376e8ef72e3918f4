//! What the payment provider's notices leave (docs/payments.md): customers, subscriptions,
//! invoices and payments taken back, each notice once, and the open checkout of each player.
//! `accounts.subscribed_until` is derived from them and the operator's grant, in the same
//! transaction as any change to either.

use sqlx::{AnyConnection, Row};
use velha_api::PaidState;

use super::{Backend, Store};
use crate::payments::{Change, Notice, SubscriptionState};

/// Statuses of a provider's subscription that keep access while its payments last.
const LIVE: [&str; 3] = ["active", "trialing", "past_due"];

/// The player's paid subscription, as the app shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaidSummary {
    /// Its state.
    pub state: PaidState,
    /// Whether the provider has a customer of the player's (the portal opens on it).
    pub manageable: bool,
    /// The end of the period paid (ms), if one was: a renewing subscription renews then.
    pub paid_through: Option<i64>,
}

/// What asking for a checkout found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// This request claimed the player's checkout (at `claimed_at`, its key): it asks the
    /// provider, then fills or releases the claim.
    Mine {
        /// The claim's time, which names it.
        claimed_at: i64,
    },
    /// An open checkout's page.
    Open(String),
    /// Another request is asking the provider right now.
    Pending,
}

/// The account's (`$1`) subscriptions the provider may still charge: (provider, id).
pub(super) const RUNNING_SUBSCRIPTIONS: &str = "SELECT provider, subscription_id FROM paid_subscriptions WHERE account_id = $1 \
     AND ended_at IS NULL AND status NOT IN ('canceled', 'incomplete_expired')";

impl Store {
    /// Applies a notice once: a notice whose id was seen changes nothing (false).
    pub async fn apply_notice(
        &self,
        provider: &str,
        notice: &Notice,
        grace_ms: i64,
        now: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let fresh = sqlx::query(
            "INSERT INTO payment_events (provider, event_id, kind, created, received_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (provider, event_id) DO NOTHING",
        )
        .bind(provider)
        .bind(&notice.id)
        .bind(&notice.kind)
        .bind(notice.created)
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if fresh {
            let mut apply = Apply {
                tx: &mut tx,
                backend: self.backend(),
                provider,
                grace_ms,
                created: notice.created,
                event: &notice.id,
            };
            apply.change(&notice.change).await?;
        }
        tx.commit().await?;
        Ok(fresh)
    }

    /// The player's paid subscription at `now`: one that lasts, or one the provider still
    /// runs even past its access (a renewal refused beyond the grace, whose card the player
    /// can still update), which a second checkout would charge beside.
    pub async fn paid_summary(&self, account: &str, now: i64) -> Result<PaidSummary, sqlx::Error> {
        let mut db = self.pool.acquire().await?;
        let rows = sqlx::query(
            "SELECT s.status, s.cancel_at_period_end, s.access_until, \
             (SELECT MAX(p.period_end) FROM invoices p WHERE p.provider = s.provider \
             AND p.subscription_id = s.subscription_id AND p.paid = 1 AND NOT EXISTS \
             (SELECT 1 FROM withdrawn_payments w WHERE w.provider = p.provider \
             AND w.payment_id = p.payment_id AND w.withdrawn = 1)) AS paid_through, \
             CASE WHEN EXISTS (SELECT 1 FROM invoices f WHERE f.provider = s.provider \
             AND f.subscription_id = s.subscription_id AND f.paid = 0 AND f.period_end > \
             COALESCE((SELECT MAX(p.period_end) FROM invoices p WHERE p.provider = s.provider \
             AND p.subscription_id = s.subscription_id AND p.paid = 1), 0)) THEN 1 ELSE 0 END \
             AS refused FROM paid_subscriptions s WHERE s.account_id = $1 \
             AND (s.access_until > $2 OR s.status IN ('active', 'trialing', 'past_due', 'unpaid', 'paused')) \
             ORDER BY COALESCE(s.access_until, 0) DESC",
        )
        .bind(account)
        .bind(now)
        .fetch_all(&mut *db)
        .await?;
        let (state, paid_through) = match rows.first() {
            None => (PaidState::None, None),
            Some(r) => {
                let status: String = r.try_get("status")?;
                let canceling: i64 = r.try_get("cancel_at_period_end")?;
                let refused: bool = r.try_get::<i64, _>("refused")? != 0;
                let state =
                    if ["past_due", "unpaid", "paused"].contains(&status.as_str()) || refused {
                        PaidState::PaymentFailed
                    } else if status == "canceled" || canceling != 0 {
                        PaidState::Canceled
                    } else {
                        PaidState::Renewing
                    };
                (state, r.try_get("paid_through")?)
            }
        };
        let manageable = sqlx::query("SELECT 1 FROM payment_customers WHERE account_id = $1")
            .bind(account)
            .fetch_optional(&mut *db)
            .await?
            .is_some();
        Ok(PaidSummary {
            state,
            manageable,
            paid_through,
        })
    }

    /// The account's subscriptions that the provider may still charge: (provider, id).
    pub async fn running_subscriptions(
        &self,
        account: &str,
    ) -> Result<Vec<(String, String)>, sqlx::Error> {
        sqlx::query_as(RUNNING_SUBSCRIPTIONS)
            .bind(account)
            .fetch_all(&self.pool)
            .await
    }

    /// The provider's session of the player's open checkout, if one was made.
    pub async fn open_checkout(&self, account: &str) -> Result<Option<String>, sqlx::Error> {
        let session: Option<Option<String>> =
            sqlx::query_scalar("SELECT session_id FROM checkouts WHERE account_id = $1")
                .bind(account)
                .fetch_optional(&self.pool)
                .await?;
        Ok(session.flatten())
    }

    /// The provider's customer of the player's, if a checkout made one.
    pub async fn customer_of(
        &self,
        account: &str,
        provider: &str,
    ) -> Result<Option<String>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT customer_id FROM payment_customers WHERE account_id = $1 AND provider = $2",
        )
        .bind(account)
        .bind(provider)
        .fetch_optional(&self.pool)
        .await
    }

    /// Claims the player's one checkout at `now`, unless one is open (its page until
    /// `expires_at`, with a minute to spare) or being asked for (a claim younger than
    /// `stale_ms`; an older one's request died and is taken over).
    pub async fn claim_checkout(
        &self,
        account: &str,
        now: i64,
        ttl_ms: i64,
        stale_ms: i64,
    ) -> Result<Claim, sqlx::Error> {
        let mut tx = self.write().await?;
        let mut claimed = sqlx::query(
            "INSERT INTO checkouts (account_id, expires_at, created_at) VALUES ($1, $2, $3) \
             ON CONFLICT (account_id) DO NOTHING",
        )
        .bind(account)
        .bind(now + ttl_ms)
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if !claimed {
            // One statement decides, so of requests at once exactly one takes an old row.
            claimed = sqlx::query(
                "UPDATE checkouts SET session_id = NULL, url = NULL, expires_at = $2, \
                 created_at = $3 WHERE account_id = $1 AND (expires_at <= $4 \
                 OR (url IS NULL AND created_at <= $5))",
            )
            .bind(account)
            .bind(now + ttl_ms)
            .bind(now)
            .bind(now + 60_000)
            .bind(now - stale_ms)
            .execute(&mut *tx)
            .await?
            .rows_affected()
                == 1;
        }
        let claim = if claimed {
            Claim::Mine { claimed_at: now }
        } else {
            let url = checkout_url(&mut tx, account).await?;
            url.flatten().map_or(Claim::Pending, Claim::Open)
        };
        tx.commit().await?;
        Ok(claim)
    }

    /// The open checkout's page, once the request that claimed it filled it; `None` while
    /// it is being asked for, `Some(None)` if the claim is gone (the provider failed).
    pub async fn checkout_page(
        &self,
        account: &str,
    ) -> Result<Option<Option<String>>, sqlx::Error> {
        let url = checkout_url(&mut *self.pool.acquire().await?, account).await?;
        Ok(match url {
            None => Some(None),
            Some(None) => None,
            Some(Some(url)) => Some(Some(url)),
        })
    }

    /// Keeps the page the provider made for the claim; false if the claim is no longer this
    /// request's (taken over after it was thought dead, or closed by a payment).
    pub async fn fill_checkout(
        &self,
        account: &str,
        claimed_at: i64,
        session: &str,
        url: &str,
        expires_at: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let filled = sqlx::query(
            "UPDATE checkouts SET session_id = $3, url = $4, expires_at = $5 \
             WHERE account_id = $1 AND created_at = $2",
        )
        .bind(account)
        .bind(claimed_at)
        .bind(session)
        .bind(url)
        .bind(expires_at)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(filled)
    }

    /// Forgets the player's customer at the provider, which no longer has it.
    pub async fn forget_customer(&self, account: &str, provider: &str) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM payment_customers WHERE account_id = $1 AND provider = $2")
            .bind(account)
            .bind(provider)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Gives the claim up: the provider made no page.
    pub async fn release_checkout(
        &self,
        account: &str,
        claimed_at: i64,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM checkouts WHERE account_id = $1 AND created_at = $2")
            .bind(account)
            .bind(claimed_at)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Sets or ends the operator's grant of the player so named (through `until`); false if
    /// there is none. A paid subscription beside it stands: the longer of the two counts.
    pub async fn set_grant(&self, name: &str, until: Option<i64>) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let id: Option<String> = sqlx::query_scalar(
            "SELECT id FROM accounts WHERE name_key = $1 AND deleted_at IS NULL",
        )
        .bind(name.to_lowercase())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(id) = id else {
            tx.commit().await?;
            return Ok(false);
        };
        lock_account(&mut tx, self.backend(), &id).await?;
        match until {
            Some(until) => sqlx::query(
                "INSERT INTO subscription_grants (account_id, until) VALUES ($1, $2) \
                 ON CONFLICT (account_id) DO UPDATE SET until = excluded.until",
            )
            .bind(&id)
            .bind(until),
            None => sqlx::query("DELETE FROM subscription_grants WHERE account_id = $1").bind(&id),
        }
        .execute(&mut *tx)
        .await?;
        refresh_account(&mut tx, &id).await?;
        tx.commit().await?;
        Ok(true)
    }
}

/// On PostgreSQL, takes the account's row: notices of one player apply one after the other,
/// each reading what the one before wrote. (SQLite's writes run one at a time.)
async fn lock_account(
    tx: &mut AnyConnection,
    backend: Backend,
    account: &str,
) -> Result<bool, sqlx::Error> {
    let sql = match backend {
        Backend::Postgres => "SELECT id FROM accounts WHERE id = $1 FOR UPDATE",
        Backend::Sqlite => "SELECT id FROM accounts WHERE id = $1",
    };
    Ok(sqlx::query(sql)
        .bind(account)
        .fetch_optional(&mut *tx)
        .await?
        .is_some())
}

/// The account's access: the longer of its grant and its subscriptions' access.
async fn refresh_account(tx: &mut AnyConnection, account: &str) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE accounts SET subscribed_until = (SELECT MAX(u) FROM (\
         SELECT until AS u FROM subscription_grants WHERE account_id = $1 UNION ALL \
         SELECT access_until AS u FROM paid_subscriptions WHERE account_id = $1) AS t) \
         WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind(account)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// One notice's changes, in its transaction.
struct Apply<'t, 'w> {
    tx: &'t mut super::Write<'w>,
    backend: Backend,
    provider: &'t str,
    grace_ms: i64,
    created: i64,
    event: &'t str,
}

impl Apply<'_, '_> {
    async fn change(&mut self, change: &Change) -> Result<(), sqlx::Error> {
        match change {
            Change::CheckoutCompleted {
                account,
                session,
                customer,
                subscription,
            } => {
                if !lock_account(self.tx, self.backend, account).await? {
                    return Ok(());
                }
                // Only that session's row: a claim still being asked for is another request's.
                sqlx::query("DELETE FROM checkouts WHERE account_id = $1 AND session_id = $2")
                    .bind(account)
                    .bind(session)
                    .execute(&mut **self.tx)
                    .await?;
                if let Some(customer) = customer {
                    self.keep_customer(account, customer).await?;
                }
                if let Some(subscription) = subscription {
                    self.known_subscription(subscription, account).await?;
                    self.refresh_subscription(subscription).await?;
                }
                refresh_account(self.tx, account).await
            }
            Change::CheckoutExpired { account, session } => {
                sqlx::query("DELETE FROM checkouts WHERE account_id = $1 AND session_id = $2")
                    .bind(account)
                    .bind(session)
                    .execute(&mut **self.tx)
                    .await?;
                Ok(())
            }
            Change::Subscription(state) => self.subscription(state).await,
            Change::Invoice {
                id,
                subscription,
                customer,
                account,
                period_end,
                payment,
                paid,
            } => {
                if let Some(payment) = payment {
                    self.lock_payment(payment).await?;
                }
                let Some(account) = self
                    .owner(subscription, account.as_deref(), customer.as_deref())
                    .await?
                else {
                    return Ok(());
                };
                self.known_subscription(subscription, &account).await?;
                sqlx::query(
                    "INSERT INTO invoices (provider, invoice_id, subscription_id, payment_id, \
                     period_end, paid) VALUES ($1, $2, $3, $4, $5, $6) \
                     ON CONFLICT (provider, invoice_id) DO UPDATE SET \
                     payment_id = COALESCE(excluded.payment_id, invoices.payment_id), \
                     period_end = excluded.period_end, \
                     paid = CASE WHEN invoices.paid = 1 THEN 1 ELSE excluded.paid END",
                )
                .bind(self.provider)
                .bind(id)
                .bind(subscription)
                .bind(payment.as_deref())
                .bind(period_end * 1000)
                .bind(i64::from(*paid))
                .execute(&mut **self.tx)
                .await?;
                self.refresh_subscription(subscription).await?;
                refresh_account(self.tx, &account).await
            }
            Change::Withdrawn {
                payment,
                reason,
                withdrawn,
            } => {
                self.lock_payment(payment).await?;
                let touched = sqlx::query(
                    "SELECT DISTINCT s.subscription_id, s.account_id FROM invoices i \
                     JOIN paid_subscriptions s ON s.provider = i.provider \
                     AND s.subscription_id = i.subscription_id \
                     WHERE i.provider = $1 AND i.payment_id = $2 ORDER BY s.account_id",
                )
                .bind(self.provider)
                .bind(payment)
                .fetch_all(&mut **self.tx)
                .await?
                .iter()
                .map(|r| Ok((r.try_get("subscription_id")?, r.try_get("account_id")?)))
                .collect::<Result<Vec<(String, String)>, sqlx::Error>>()?;
                for (_, account) in &touched {
                    lock_account(self.tx, self.backend, account).await?;
                }
                // Kept even for a payment no invoice names yet: its invoice may come after.
                sqlx::query(
                    "INSERT INTO withdrawn_payments (provider, payment_id, reason, withdrawn, \
                     state_at) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (provider, payment_id, reason) DO UPDATE SET \
                     withdrawn = excluded.withdrawn, state_at = excluded.state_at \
                     WHERE withdrawn_payments.state_at <= excluded.state_at",
                )
                .bind(self.provider)
                .bind(payment)
                .bind(reason.as_str())
                .bind(i64::from(*withdrawn))
                .bind(self.created)
                .execute(&mut **self.tx)
                .await?;
                for (subscription, account) in &touched {
                    self.refresh_subscription(subscription).await?;
                    refresh_account(self.tx, account).await?;
                }
                Ok(())
            }
            Change::Other => Ok(()),
        }
    }

    async fn subscription(&mut self, s: &SubscriptionState) -> Result<(), sqlx::Error> {
        let Some(account) = self
            .owner(&s.id, s.account.as_deref(), s.customer.as_deref())
            .await?
        else {
            return Ok(());
        };
        if let Some(customer) = &s.customer {
            self.keep_customer(&account, customer).await?;
        }
        // The state is the object's, replacing the row's only when this notice is not older
        // than the one that wrote it. Times are whole seconds: at the same second the state
        // further on its way wins (incomplete, then live, then ended), as a subscription
        // never goes back.
        sqlx::query(
            "INSERT INTO paid_subscriptions (provider, subscription_id, account_id, status, \
             cancel_at_period_end, ended_at, state_at, state_event) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (provider, subscription_id) DO UPDATE SET status = excluded.status, \
             cancel_at_period_end = excluded.cancel_at_period_end, ended_at = excluded.ended_at, \
             state_at = excluded.state_at, state_event = excluded.state_event \
             WHERE paid_subscriptions.state_at < excluded.state_at \
             OR (paid_subscriptions.state_at = excluded.state_at \
             AND CASE excluded.status WHEN 'incomplete' THEN 0 WHEN 'canceled' THEN 2 \
             WHEN 'incomplete_expired' THEN 2 ELSE 1 END >= CASE paid_subscriptions.status \
             WHEN 'incomplete' THEN 0 WHEN 'canceled' THEN 2 WHEN 'incomplete_expired' THEN 2 \
             ELSE 1 END)",
        )
        .bind(self.provider)
        .bind(&s.id)
        .bind(&account)
        .bind(&s.status)
        .bind(i64::from(s.cancel_at_period_end))
        .bind(s.ended_at.map(|t| t * 1000))
        .bind(self.created)
        .bind(self.event)
        .execute(&mut **self.tx)
        .await?;
        self.refresh_subscription(&s.id).await?;
        refresh_account(self.tx, &account).await
    }

    /// The account a subscription's notice is for, its row taken: the one stored with the
    /// subscription, else the checkout's metadata, else the customer's. None when the
    /// subscription is not one of ours.
    async fn owner(
        &mut self,
        subscription: &str,
        hint: Option<&str>,
        customer: Option<&str>,
    ) -> Result<Option<String>, sqlx::Error> {
        let stored: Option<String> = sqlx::query_scalar(
            "SELECT account_id FROM paid_subscriptions WHERE provider = $1 AND subscription_id = $2",
        )
        .bind(self.provider)
        .bind(subscription)
        .fetch_optional(&mut **self.tx)
        .await?;
        let by_customer = match (&stored, hint, customer) {
            (None, None, Some(customer)) => sqlx::query_scalar(
                "SELECT account_id FROM payment_customers WHERE provider = $1 AND customer_id = $2",
            )
            .bind(self.provider)
            .bind(customer)
            .fetch_optional(&mut **self.tx)
            .await?,
            _ => None,
        };
        let Some(account) = stored.or(hint.map(str::to_owned)).or(by_customer) else {
            tracing::info!(
                subscription,
                "a payment notice of a subscription that is not ours"
            );
            return Ok(None);
        };
        Ok(lock_account(self.tx, self.backend, &account)
            .await?
            .then_some(account))
    }

    /// On PostgreSQL, takes the payment's lock, before any account's: a refund and the invoice
    /// it refunds, told at once, apply one after the other, so the later sees the earlier.
    /// (SQLite's writes run one at a time.)
    async fn lock_payment(&mut self, payment: &str) -> Result<(), sqlx::Error> {
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))")
                .bind(format!("{}:{payment}", self.provider))
                .execute(&mut **self.tx)
                .await?;
        }
        Ok(())
    }

    /// Keeps the provider's customer of a player's, unless the account was deleted: its notices
    /// still arrive (the end of the subscription the deletion asked for), its customer is not
    /// kept again.
    async fn keep_customer(&mut self, account: &str, customer: &str) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO payment_customers (account_id, provider, customer_id) \
             SELECT $1, $2, $3 WHERE EXISTS \
             (SELECT 1 FROM accounts WHERE id = $1 AND deleted_at IS NULL) \
             ON CONFLICT DO NOTHING",
        )
        .bind(account)
        .bind(self.provider)
        .bind(customer)
        .execute(&mut **self.tx)
        .await?;
        Ok(())
    }

    /// A row for a subscription an invoice or a checkout names before any notice of its
    /// own: live, and older than any notice, so its first one replaces it.
    async fn known_subscription(
        &mut self,
        subscription: &str,
        account: &str,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO paid_subscriptions (provider, subscription_id, account_id, status, \
             cancel_at_period_end, ended_at, state_at, state_event) \
             VALUES ($1, $2, $3, 'active', 0, NULL, -1, '') \
             ON CONFLICT (provider, subscription_id) DO NOTHING",
        )
        .bind(self.provider)
        .bind(subscription)
        .bind(account)
        .execute(&mut **self.tx)
        .await?;
        Ok(())
    }

    /// The subscription's access from its rows: the latest period paid and not taken back,
    /// plus the grace while it lives, cut at its end once canceled.
    async fn refresh_subscription(&mut self, subscription: &str) -> Result<(), sqlx::Error> {
        let row = sqlx::query(
            "SELECT s.status, s.ended_at, (SELECT MAX(i.period_end) FROM invoices i \
             WHERE i.provider = s.provider AND i.subscription_id = s.subscription_id \
             AND i.paid = 1 AND NOT EXISTS (SELECT 1 FROM withdrawn_payments w \
             WHERE w.provider = i.provider AND w.payment_id = i.payment_id \
             AND w.withdrawn = 1)) AS paid_until FROM paid_subscriptions s \
             WHERE s.provider = $1 AND s.subscription_id = $2",
        )
        .bind(self.provider)
        .bind(subscription)
        .fetch_optional(&mut **self.tx)
        .await?;
        let Some(row) = row else { return Ok(()) };
        let status: String = row.try_get("status")?;
        let ended_at: Option<i64> = row.try_get("ended_at")?;
        let paid_until: Option<i64> = row.try_get("paid_until")?;
        let access = paid_until.and_then(|paid| {
            let with_grace = paid + self.grace_ms;
            if LIVE.contains(&status.as_str()) {
                Some(with_grace)
            } else if status == "canceled" {
                Some(ended_at.map_or(paid, |end| with_grace.min(end)))
            } else {
                None
            }
        });
        sqlx::query(
            "UPDATE paid_subscriptions SET access_until = $3 WHERE provider = $1 AND subscription_id = $2",
        )
        .bind(self.provider)
        .bind(subscription)
        .bind(access)
        .execute(&mut **self.tx)
        .await?;
        Ok(())
    }
}

/// The account's checkout: none when it has none, `Some(None)` while its page is asked for.
async fn checkout_url(
    conn: &mut AnyConnection,
    account: &str,
) -> Result<Option<Option<String>>, sqlx::Error> {
    sqlx::query_scalar("SELECT url FROM checkouts WHERE account_id = $1")
        .bind(account)
        .fetch_optional(conn)
        .await
}
