//! Accounts and sessions (online.md ON-A01, ON-A02).

use serde::{Deserialize, Serialize};

/// The phone's region setting, as the app reads it: a locale such as `pt-BR` or `en_US`, or a
/// bare country code such as `BR`. The server keeps only the country (ON-A02).
pub type Region = String;

/// A new account with e-mail and password.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignUp {
    /// Any case; kept trimmed and lower-cased.
    #[cfg_attr(feature = "openapi", schema(min_length = 3, max_length = 254))]
    pub email: String,
    /// At least 8 characters, not a common password, not the e-mail or the name.
    #[cfg_attr(feature = "openapi", schema(min_length = 8, max_length = 256))]
    pub password: String,
    /// The unique player name: 3 to 20 letters, digits, `_`, `-` or `.`; unique without regard
    /// to case.
    #[cfg_attr(feature = "openapi", schema(min_length = 3, max_length = 20))]
    pub name: String,
    /// The phone's region setting.
    pub region: Region,
}

/// Sign in with e-mail and password.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LogIn {
    /// The account's e-mail, any case.
    pub email: String,
    /// Its password.
    pub password: String,
}

/// Sign in (or up) with a Google ID token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GoogleSignIn {
    /// The ID token Google's sign-in gave the app.
    pub id_token: String,
    /// The player name, needed only the first time (else `name_required`).
    #[serde(default)]
    pub name: Option<String>,
    /// The phone's region setting.
    pub region: Region,
}

/// A Google account to link to the signed-in account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GoogleLink {
    /// The ID token Google's sign-in gave the app.
    pub id_token: String,
}

/// A change of the phone's region.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RegionChange {
    /// The phone's region setting.
    pub region: Region,
}

/// What the player sees of their own account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Account {
    /// The unique player name.
    pub name: String,
    /// ISO 3166 two-letter country code, upper case.
    pub country: String,
    /// The e-mail, when the account has one.
    pub email: Option<String>,
    /// Whether a Google account signs in to it.
    pub google: bool,
    /// The last day (UTC, `YYYY-MM-DD`) of the subscription, if there is one, even if past.
    pub subscribed_until: Option<String>,
    /// Whether the subscription is active now (ON-A03).
    pub subscriber: bool,
}

/// A new session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Session {
    /// The bearer token: `Authorization: Bearer <token>` on HTTP, `hello` on the WebSocket.
    pub token: String,
    /// The account signed in.
    pub account: Account,
    /// Whether this sign-in made the account.
    pub created: bool,
}
