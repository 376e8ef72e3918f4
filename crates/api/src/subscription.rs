//! Buying the subscription (ON-A03): the plan on sale, the player's standing, and the
//! provider's pages the app opens (checkout, the customer portal).

use serde::{Deserialize, Serialize};

/// How often a plan is charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Period {
    /// Every month.
    Month,
    /// Every year.
    Year,
}

/// A plan on sale, as configured on the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Plan {
    /// The price per period in the currency's minor unit (990 is R$ 9,90).
    pub amount: u64,
    /// ISO 4217, upper case: `BRL`.
    pub currency: String,
    /// How often it is charged.
    pub period: Period,
}

/// Where the player's paid subscription stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PaidState {
    /// Never paid, or ended (refunded, disputed, canceled and past its end).
    None,
    /// Paid and renewing at the period's end.
    Renewing,
    /// Paid and canceled: lasts until `until`, then ends.
    Canceled,
    /// The last renewal's payment was refused: it lasts until `until` (the grace) unless the
    /// card is updated.
    PaymentFailed,
}

/// `GET /api/subscription`: what is on sale, and the player's subscription.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SubscriptionView {
    /// The plans on sale; empty when the server sells none (no provider configured).
    pub plans: Vec<Plan>,
    /// Whether online play is open to the player now, paid or granted.
    pub subscriber: bool,
    /// The last day (UTC, `YYYY-MM-DD`) online play is open, paid or granted, if ever.
    pub until: Option<String>,
    /// The last day (UTC, `YYYY-MM-DD`) of the period paid, if one was: a renewing
    /// subscription renews the day after; `until` may be later by the grace or a grant.
    #[serde(default)]
    pub paid_through: Option<String>,
    /// The paid subscription's state.
    pub paid: PaidState,
    /// Whether the player has a customer account at the provider, so the portal can open.
    pub manageable: bool,
}

/// A provider's page to open: the checkout or the customer portal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProviderPage {
    /// The page's address, to open in the browser.
    pub url: String,
}

/// Where the provider's pages send the player back to: the app's own addresses. The server
/// adds the rest (the checkout session's id).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PageRequest {
    /// The app's language for the provider's page: `pt-BR` or `en`.
    #[serde(default)]
    pub locale: Option<String>,
}
