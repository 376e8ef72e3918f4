//! The one error body every failed request answers.

use serde::{Deserialize, Serialize};

/// What went wrong, for programs; the app picks its own words from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request itself is malformed (bad JSON, a missing field, a value out of range).
    BadRequest,
    /// The request body is larger than the server takes.
    TooLarge,
    /// The e-mail address is not one.
    BadEmail,
    /// Another account uses this e-mail.
    EmailTaken,
    /// The player name is empty, too long or uses characters names cannot have.
    BadName,
    /// Another player has this name.
    NameTaken,
    /// The password is too short, too common or too like the e-mail or name.
    WeakPassword,
    /// E-mail or password wrong.
    WrongPassword,
    /// The region names no country.
    BadRegion,
    /// A new Google account needs a player name.
    NameRequired,
    /// The Google ID token was refused.
    BadGoogleToken,
    /// Google sign-in is not configured on this server.
    GoogleUnavailable,
    /// No session, or an expired one.
    Unauthorized,
    /// Too many failed sign-ins; try again later.
    RateLimited,
    /// Online cube play is for subscribers only (ON-A03).
    SubscribersOnly,
    /// Nacional matches are only between players of one country (ON-M01).
    WrongCountry,
    /// No such thing, or not yours to see.
    NotFound,
    /// It exists, but this player may not do that to it.
    Forbidden,
    /// The state changed: the match was taken, cancelled or already started.
    Conflict,
    /// The player already has an open or live match.
    AlreadyPlaying,
    /// Something failed inside the server; nothing was changed.
    Internal,
}

/// The body of every error answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApiError {
    /// What went wrong.
    pub code: ErrorCode,
    /// The same in English words, for logs and developers.
    pub message: String,
    /// For `rate_limited`: seconds until another try is allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
}

impl ApiError {
    /// An error without a retry time.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            retry_after_s: None,
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

impl std::error::Error for ApiError {}
