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
    /// A field is longer than the server takes (an e-mail over 254 bytes, a password over
    /// 1 KiB); refused before any work is done with it.
    TooLong,
    /// The e-mail address is not one.
    BadEmail,
    /// Another account uses this e-mail.
    EmailTaken,
    /// The player name is empty, too long or uses characters names cannot have.
    BadName,
    /// Another player has this name.
    NameTaken,
    /// The name holds an offensive word (in Portuguese or English, however spelt).
    OffensiveName,
    /// The name passes for the staff, the system or the game itself.
    ReservedName,
    /// The account is suspended by the moderation; the message gives the reason.
    Banned,
    /// The password is too short, too common or too like the e-mail or name.
    WeakPassword,
    /// E-mail or password wrong.
    WrongPassword,
    /// The region names no country (and no country was picked).
    BadRegion,
    /// The country picked is not one of `COUNTRIES` (ISO 3166 two letters).
    BadCountry,
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
    /// The player already created a group (ON-G01).
    AlreadyCreatedGroup,
    /// The player already takes part in 2 groups (ON-G01).
    TooManyGroups,
    /// The group already has 25 participants (ON-G01).
    GroupFull,
    /// The group has only its creator: its matches start at 2 participants (ON-G03).
    GroupNotStarted,
    /// A match of the group is being played: it cannot be finalized until it ends (ON-G09).
    GroupMatchLive,
    /// The room's seats and its 50 places for spectators are taken (CLASSIC-R13).
    RoomFull,
    /// The room closed after 7 days without a move (CLASSIC-R12).
    RoomClosed,
    /// The other player took that character (CLASSIC-R08).
    AvatarTaken,
    /// It is the other player's turn.
    NotYourTurn,
    /// The move breaks the game's rules; the message says how.
    IllegalMove,
    /// The other player has not been away 2 days yet, or it is the claimant's own turn
    /// (CLASSIC-R12).
    NotAbsentYet,
    /// The device holds 10 push subscriptions for this seat or account already.
    TooManySubscriptions,
    /// Payments are not configured on this server, or the provider did not answer; nothing
    /// was charged.
    PaymentsUnavailable,
    /// The player has never paid, so there is no subscription to manage at the provider.
    NoCustomer,
    /// A payment provider's notice whose signature is missing, wrong or too old.
    BadSignature,
    /// A link sent by e-mail that is no link of ours, has expired or was used already; the
    /// message says which.
    BadLink,
    /// The account's e-mail must be confirmed first (the link sent to it).
    EmailUnverified,
    /// The server sends no e-mail (no SMTP configured): nothing can be sent to the player.
    MailUnavailable,
    /// A fresh sign-in is asked first: deleting an account that has no password takes a
    /// session made in the last 10 minutes.
    SignInAgain,
    /// This method is not served at this path.
    MethodNotAllowed,
    /// The request body is not JSON (the Content-Type says otherwise).
    UnsupportedMediaType,
    /// The request took longer than the server allows and was abandoned; what it had already
    /// done may stand, so check before repeating it.
    Timeout,
    /// Something failed inside the server; nothing was changed. Often passing (the database
    /// out of reach for a moment): asking again later may succeed.
    Internal,
    /// A stored record no longer reads by the rules (a replay whose moves do not replay, a
    /// value no version writes). Asking again will not help.
    DamagedRecord,
    /// The server cannot serve players yet: its database does not answer or is behind this
    /// version (readiness, `/api/ready`).
    NotReady,
    /// A code this build does not know, from a newer server. The server never sends it (so
    /// it cannot be written, and the API's document leaves it out); the app reads it as the
    /// server failing, rather than the whole answer as no answer.
    #[serde(other, skip_serializing)]
    Unrecognized,
}

/// Why a password was refused (`weak_password`), for the app to explain in the player's
/// language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PasswordProblem {
    /// Fewer than 8 characters.
    TooShort,
    /// Among the passwords people use most.
    Common,
    /// Contains the player's name or e-mail.
    Personal,
    /// A row of keys or a run like `abcd` / `1234`.
    Pattern,
    /// Repeated characters or a repeated chunk.
    Repeats,
    /// A date or a year.
    Date,
    /// Common words or names with little else.
    Words,
    /// Otherwise quick to guess.
    Guessable,
}

impl PasswordProblem {
    /// The reason as a sentence, in Portuguese (`pt`) or English.
    pub fn sentence(self, pt: bool) -> &'static str {
        use PasswordProblem::*;
        match (self, pt) {
            (TooShort, true) => "A senha precisa ter pelo menos 8 caracteres.",
            (TooShort, false) => "The password needs at least 8 characters.",
            (Common, true) => "Essa senha está entre as mais usadas: escolha outra.",
            (Common, false) => "This password is among the most common ones: pick another.",
            (Personal, true) => "A senha não pode conter seu nome nem seu e-mail.",
            (Personal, false) => "The password must not contain your name or e-mail.",
            (Pattern, true) => {
                "Sequências de teclas ou de letras e números são fáceis de adivinhar."
            }
            (Pattern, false) => "Rows of keys and runs like abcd or 1234 are easy to guess.",
            (Repeats, true) => "Repetições como \"aaa\" ou \"abcabc\" são fáceis de adivinhar.",
            (Repeats, false) => "Repeats like \"aaa\" or \"abcabc\" are easy to guess.",
            (Date, true) => "Datas e anos são fáceis de adivinhar.",
            (Date, false) => "Dates and years are easy to guess.",
            (Words, true) => {
                "Palavras e nomes comuns são fáceis de adivinhar: junte palavras incomuns."
            }
            (Words, false) => "Common words and names are easy to guess: combine uncommon words.",
            (Guessable, true) => "Essa senha é fácil de adivinhar: use uma frase ou mais palavras.",
            (Guessable, false) => "This password is easy to guess: use a phrase or more words.",
        }
    }
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
    /// For `weak_password`: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_problem: Option<PasswordProblem>,
}

impl ApiError {
    /// An error without a retry time.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            retry_after_s: None,
            password_problem: None,
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

impl std::error::Error for ApiError {}
