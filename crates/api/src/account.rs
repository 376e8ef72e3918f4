//! Accounts and sessions (online.md ON-A01, ON-A02).

use serde::{Deserialize, Serialize};

/// The phone's region setting, as the app reads it: a locale such as `pt-BR` or `en_US`, or a
/// bare country code such as `BR`. The server keeps only the country (ON-A02).
pub type Region = String;

/// Every country an account may have: the ISO 3166-1 alpha-2 codes assigned to countries and
/// territories, and `XK` (Kosovo), which ISO leaves unassigned but phones' regions and CLDR
/// use. In code order, so [`is_country`] can search it.
pub const COUNTRIES: [&str; 250] = [
    "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ",
    "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS",
    "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN",
    "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE",
    "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF",
    "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM",
    "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM",
    "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC",
    "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
    "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA",
    "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG",
    "PH", "PK", "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW",
    "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS",
    "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO",
    "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
    "VN", "VU", "WF", "WS", "XK", "YE", "YT", "ZA", "ZM", "ZW",
];

/// Whether `code` is one of [`COUNTRIES`] (exactly: two upper-case letters).
pub fn is_country(code: &str) -> bool {
    COUNTRIES.binary_search(&code).is_ok()
}

/// A country the player chose: one of [`COUNTRIES`], in any case and with spaces around;
/// `None` when it is none of them.
pub fn country_code(chosen: &str) -> Option<String> {
    let code = chosen.trim().to_ascii_uppercase();
    is_country(&code).then_some(code)
}

/// The country of a region setting: `pt-BR`, `en_US.UTF-8`, `zh-Hant-TW` or a bare `BR`
/// (one of [`COUNTRIES`]); `None` when it names none (a bare language such as `pt`, or two
/// letters no country has). The server and the app read regions alike with it.
pub fn country_of(region: &str) -> Option<String> {
    let base = region.trim().split(['.', '@']).next().unwrap_or("");
    let parts: Vec<&str> = base.split(['-', '_']).collect();
    let is_code = |p: &str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_alphabetic());
    let code = match parts.as_slice() {
        // Alone, `pt` is a language and `PT` a country: BCP 47 writes languages in lower case.
        [only] if is_code(only) && only.bytes().all(|b| b.is_ascii_uppercase()) => Some(*only),
        [_, rest @ ..] => rest.iter().copied().find(|p| is_code(p)),
        _ => None,
    };
    code.map(str::to_ascii_uppercase).filter(|c| is_country(c))
}

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
    /// The country the player picked: ISO 3166 two letters, any case (`velha_api::COUNTRIES`);
    /// without it, the region's. A pick other than the region's country is kept as the
    /// player's choice, which later changes of the region leave alone (ON-A02).
    #[serde(default)]
    pub country: Option<String>,
    /// Keep the session in an HttpOnly cookie the server sets, instead of answering its
    /// token (the web app: page scripts never see the token).
    #[serde(default)]
    pub cookie: bool,
}

/// Sign in with e-mail and password.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LogIn {
    /// The account's e-mail, any case.
    pub email: String,
    /// Its password.
    pub password: String,
    /// Keep the session in an HttpOnly cookie the server sets, instead of answering its
    /// token (the web app: page scripts never see the token).
    #[serde(default)]
    pub cookie: bool,
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
    /// The first time, the country the player picked, as in `SignUp`.
    #[serde(default)]
    pub country: Option<String>,
    /// Keep the session in an HttpOnly cookie the server sets, instead of answering its
    /// token (the web app: page scripts never see the token).
    #[serde(default)]
    pub cookie: bool,
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

/// The country the player picks on the profile (ON-A02).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CountryChange {
    /// ISO 3166 two letters, any case (`velha_api::COUNTRIES`).
    pub country: String,
}

/// What the player sees of their own account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Account {
    /// The unique player name.
    pub name: String,
    /// ISO 3166 two-letter country code, upper case.
    pub country: String,
    /// Whether the player picked the country themselves: the phone's region no longer
    /// changes it.
    #[serde(default)]
    pub country_chosen: bool,
    /// The e-mail, when the account has one.
    pub email: Option<String>,
    /// Whether the e-mail was confirmed as the player's (the link sent to it followed, or
    /// Google said so).
    #[serde(default)]
    pub email_verified: bool,
    /// Whether a Google account signs in to it.
    pub google: bool,
    /// Whether it has a password (an account made with Google may have none).
    #[serde(default)]
    pub password: bool,
    /// The last day (UTC, `YYYY-MM-DD`) of the subscription, if there is one, even if past.
    pub subscribed_until: Option<String>,
    /// Whether the subscription is active now (ON-A03).
    pub subscriber: bool,
    /// The name the moderation changed, until the player saw it said
    /// (`DELETE /api/me/rename-notice`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
}

/// A new session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Session {
    /// The bearer token: `Authorization: Bearer <token>` on HTTP, `hello` on the WebSocket.
    /// Absent when the session was asked for as a cookie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// The account signed in.
    pub account: Account,
    /// Whether this sign-in made the account.
    pub created: bool,
}

/// The ways of signing in this server offers besides e-mail and password.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignInOptions {
    /// Google sign-in, when the server is configured for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub google: Option<GoogleOptions>,
    /// Whether the server sends e-mail: "Esqueci a senha" and confirming the e-mail need it.
    #[serde(default)]
    pub email: bool,
}

/// `POST /api/password/forgot`: send a link to choose a new password to this e-mail, if an
/// account has it (the answer is the same either way).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ForgotPassword {
    /// Any case.
    pub email: String,
    /// The message's language: `pt-BR` (the default) or `en`.
    #[serde(default)]
    pub language: Option<String>,
}

/// `POST /api/password/reset`: the link's token and the new password; every session of the
/// account ends, and this device is signed in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ResetPassword {
    /// The token of the link.
    pub token: String,
    /// The new password, checked as a new account's is.
    pub password: String,
    /// Keep the new session in the cookie (the web app), as [`SignUp::cookie`].
    #[serde(default)]
    pub cookie: bool,
}

/// `POST /api/me/password`: the password now and the new one; every other session of the
/// account ends, this one goes on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChangePassword {
    /// The password the account has now.
    pub current: String,
    /// The new password, checked as a new account's is.
    pub password: String,
}

/// The name a deleted account's games show for it (ON-A04): player names have no space, so no
/// living player has it. The app shows it in the player's language.
pub const REMOVED_PLAYER: &str = "Jogador removido";

/// `DELETE /api/me`: what confirms deleting the account. An account with a password gives it;
/// one that signs in with Google only confirms by having signed in in the last 10 minutes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeleteAccount {
    /// The account's password.
    #[serde(default)]
    pub password: Option<String>,
}

/// One place the account is signed in (`GET /api/me/sessions`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignedIn {
    /// Its id, to sign it out (`DELETE /api/me/sessions/{id}`); not the session's token.
    pub id: String,
    /// When it signed in, ms since 1970.
    pub since: i64,
    /// When it was last used, ms since 1970, to within ten minutes.
    pub seen: i64,
    /// The kind of device, as its browser or the app told ("Chrome · Android"), when known.
    pub device: Option<String>,
    /// The country it signed in from (ISO 3166 two letters), when the server is told it.
    pub country: Option<String>,
    /// Whether it is the session that asked.
    pub this: bool,
}

/// `POST /api/email/verify`: the token of the link sent to confirm an e-mail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerifyEmail {
    /// The token of the link.
    pub token: String,
}

/// The e-mail a link confirmed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EmailVerified {
    /// The address, now confirmed.
    pub email: String,
}

/// `POST /api/me/email/verification`: send the confirmation link again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ResendVerification {
    /// The message's language: `pt-BR` (the default) or `en`.
    #[serde(default)]
    pub language: Option<String>,
}

/// How the app signs in with Google: on the web with the Google Identity Services button, on
/// the desktop through the system browser (authorization code with PKCE, loopback redirect).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GoogleOptions {
    /// The web client id the button asks ID tokens for.
    pub client_id: String,
    /// The Google Identity Services script.
    pub script_url: String,
    /// The desktop client, when the server accepts its tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub desktop: Option<GoogleDesktop>,
}

/// The desktop client of Google sign-in (an installed app: its "secret" is public).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GoogleDesktop {
    /// The desktop client id.
    pub client_id: String,
    /// What Google's token endpoint asks of installed apps besides the PKCE verifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Where the player approves the sign-in.
    pub authorization_url: String,
    /// Where the app trades the code for an ID token.
    pub token_url: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a02_the_countries_are_in_code_order_and_only_real_ones_count() {
        assert!(COUNTRIES.windows(2).all(|w| w[0] < w[1]));
        assert!(COUNTRIES.iter().all(|c| c.len() == 2));
        assert_eq!(country_code(" br "), Some("BR".into()));
        for bad in ["", "ZZ", "BRA", "B", "xk-"] {
            assert_eq!(country_code(bad), None, "{bad}");
        }
        assert_eq!(country_of("en-ZZ"), None, "two letters no country has");
        assert_eq!(country_of("sq-XK"), Some("XK".into()));
        assert_eq!(country_of("pt"), None);
    }
}
