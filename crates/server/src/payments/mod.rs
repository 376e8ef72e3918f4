//! Selling the subscription (ON-A03) through a payment provider (docs/payments.md): the
//! provider's checkout and customer portal, and its signed notices of what happened, read
//! into one provider-neutral [`Notice`] the store applies.

pub mod stripe;

use axum::http::HeaderMap;
use futures_util::future::BoxFuture;
use velha_api::Plan;

/// The player's language on the provider's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Locale {
    /// Brazilian Portuguese.
    Pt,
    /// English.
    En,
}

impl Locale {
    /// From the app's `pt-BR` / `en…`; Portuguese unless English is asked for, as the app.
    pub fn of(asked: Option<&str>) -> Locale {
        match asked {
            Some(l) if l.to_ascii_lowercase().starts_with("en") => Locale::En,
            _ => Locale::Pt,
        }
    }
}

/// A checkout to open for a player.
#[derive(Clone, Debug)]
pub struct Order<'a> {
    /// Our account id: it comes back in the provider's notices.
    pub account: &'a str,
    /// The player's e-mail, to fill in the provider's form, if the account has one.
    pub email: Option<&'a str>,
    /// The provider's customer made by an earlier checkout, reused.
    pub customer: Option<&'a str>,
    /// Where the provider sends the browser after paying (`{SESSION}` is replaced by the
    /// session's id) and after backing out.
    pub success_url: String,
    /// Where a checkout backed out of returns.
    pub cancel_url: String,
    /// The pages' language.
    pub locale: Locale,
    /// When the page stops taking payment (seconds since the epoch).
    pub expires_at: i64,
    /// The same key for a retry of the same checkout: the provider makes it once.
    pub idempotency_key: String,
}

/// A page of the provider's to open in the browser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The provider's id of the session.
    pub id: String,
    /// Its address.
    pub url: String,
    /// When it stops taking payment (seconds since the epoch), for a checkout.
    pub expires_at: i64,
}

/// Why the provider could not be used; the player reads only that payments are unavailable,
/// the log the provider's own words.
#[derive(Debug)]
pub struct ProviderError {
    /// The provider's words, for the log.
    pub message: String,
    /// The customer given is gone at the provider (erased, or another account's key): the
    /// checkout is asked again without it.
    pub missing_customer: bool,
    /// What the request named is gone at the provider (a subscription already ended and
    /// purged): asking to end it again is done.
    pub missing: bool,
    /// The provider refused the request as not applying to the thing's state (a checkout
    /// that is no longer open cannot be expired).
    pub wrong_state: bool,
}

impl ProviderError {
    /// A failure of no particular kind.
    pub fn new(message: String) -> ProviderError {
        ProviderError {
            message,
            missing_customer: false,
            missing: false,
            wrong_state: false,
        }
    }
}

impl std::fmt::Display for ProviderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a notice was refused before anything in it was used.
#[derive(Debug, PartialEq, Eq)]
pub enum NoticeError {
    /// No signature, a wrong one, or one too old or too new: nobody but the provider sent it
    /// just now.
    Signature(&'static str),
    /// Signed, but not a notice this server can read.
    Malformed(String),
}

/// The state of a provider's subscription, as its notice's object gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubscriptionState {
    /// The provider's id.
    pub id: String,
    /// The provider's customer.
    pub customer: Option<String>,
    /// Our account id, from the metadata the checkout wrote.
    pub account: Option<String>,
    /// The provider's status word: active, trialing, past_due, unpaid, canceled, …
    pub status: String,
    /// Canceled by the player: it ends at the period's end.
    pub cancel_at_period_end: bool,
    /// When it ended, if it did (seconds since the epoch).
    pub ended_at: Option<i64>,
}

/// Why a payment was taken back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Withdrawal {
    /// Refunded in full.
    Refund,
    /// Disputed by the card holder: `false` once the dispute is won.
    Dispute,
}

impl Withdrawal {
    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Withdrawal::Refund => "refund",
            Withdrawal::Dispute => "dispute",
        }
    }
}

/// What a notice changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A checkout was paid: the customer and subscription it made are the account's.
    CheckoutCompleted {
        /// Our account id (the checkout's reference).
        account: String,
        /// The session.
        session: String,
        /// The customer it made or used.
        customer: Option<String>,
        /// The subscription it made.
        subscription: Option<String>,
    },
    /// A checkout's page closed unpaid: the player may open a new one.
    CheckoutExpired {
        /// Our account id.
        account: String,
        /// The session.
        session: String,
    },
    /// The subscription as it now is.
    Subscription(SubscriptionState),
    /// An invoice of a subscription was paid, or its payment refused.
    Invoice {
        /// The provider's id.
        id: String,
        /// Its subscription.
        subscription: String,
        /// Its customer.
        customer: Option<String>,
        /// Our account id, from the subscription's metadata, when the notice carries it.
        account: Option<String>,
        /// The end of the period it pays for (seconds since the epoch).
        period_end: i64,
        /// The payment's id, which refunds and disputes name.
        payment: Option<String>,
        /// Paid (true) or its payment refused.
        paid: bool,
    },
    /// A payment taken back, or given back (a dispute won: `withdrawn` false).
    Withdrawn {
        /// The payment's id, as the invoice names it.
        payment: String,
        /// Why.
        reason: Withdrawal,
        /// Taken back or given back.
        withdrawn: bool,
    },
    /// Nothing this server keeps.
    Other,
}

/// One notice from the provider, its signature checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The provider's id of the notice: the same notice sent again has the same.
    pub id: String,
    /// The provider's word for what happened.
    pub kind: String,
    /// When the provider made it (seconds since the epoch): the order notices apply in.
    pub created: i64,
    /// What it changes.
    pub change: Change,
}

/// A payment provider. Implemented for Stripe Billing; docs/payments.md designs Mercado Pago
/// and the phone stores' billing behind the same calls.
pub trait Provider: Send + Sync {
    /// Its name as stored beside its ids.
    fn name(&self) -> &'static str;
    /// Opens a checkout for the configured plan.
    fn checkout<'a>(&'a self, order: Order<'a>) -> BoxFuture<'a, Result<Page, ProviderError>>;
    /// Opens the customer portal (cancel, change the card), returning to `return_url`.
    fn portal<'a>(
        &'a self,
        customer: &'a str,
        return_url: &'a str,
        locale: Locale,
    ) -> BoxFuture<'a, Result<Page, ProviderError>>;
    /// Ends a subscription now, without a refund (its account is being deleted); one already
    /// ended is no error. The provider's notice of the end follows as for any other.
    fn cancel<'a>(&'a self, subscription: &'a str) -> BoxFuture<'a, Result<(), ProviderError>>;
    /// Closes an open checkout page, so nothing can be paid on it; one paid, expired or
    /// unknown is no error.
    fn expire_checkout<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), ProviderError>>;
    /// Checks a notice's signature (at `now`, seconds) and only then reads it.
    fn notice(&self, headers: &HeaderMap, body: &[u8], now: i64) -> Result<Notice, NoticeError>;
}

/// Payments as configured.
pub struct Payments {
    /// The provider.
    pub provider: Box<dyn Provider>,
    /// What is on sale.
    pub plans: Vec<Plan>,
    /// How long access outlasts the paid period, in milliseconds: a renewal's payment may
    /// take the provider's retries.
    pub grace_ms: i64,
    /// The app's address the provider's pages return to; without it, the request's host.
    pub public_url: Option<String>,
}
