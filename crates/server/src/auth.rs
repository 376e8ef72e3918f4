//! Accounts: checking what players type, passwords (argon2id), sessions and the limit on
//! failed sign-ins (online.md ON-A01, ON-A02).

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::{AUTHORIZATION, COOKIE, HOST, ORIGIN};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method};
use velha_api::{Account, ErrorCode, PasswordProblem};

use crate::app::App;
use crate::dates::last_day;
use crate::error::AppError;
use crate::store::AccountRow;
use crate::text::check_text;
use crate::token::{now_ms, token_hash};

/// The longest e-mail address there is (RFC 5321's path limit) and the longest password
/// looked at: longer ones are refused before any work is done with them.
pub const MAX_EMAIL_BYTES: usize = 254;
/// See [`MAX_EMAIL_BYTES`].
pub const MAX_PASSWORD_BYTES: usize = 1024;

/// zxcvbn's score a new password needs: 3 is "safely unguessable", over 10^8 guesses.
const MIN_SCORE: zxcvbn::Score = zxcvbn::Score::Three;

/// Passwords and words common in Brazil and Portugal, which zxcvbn's English lists miss.
static COMMON_PT: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    include_str!("../data/common-passwords-pt.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
});

/// Refuses an e-mail or password too long to look at (`too_long`).
pub fn check_lengths(email: &str, password: &str) -> Result<(), AppError> {
    let too_long = |what: &str, max: usize, len: usize| {
        AppError::new(
            ErrorCode::TooLong,
            format!("the {what} may have at most {max} bytes; this one has {len}"),
        )
    };
    if email.len() > MAX_EMAIL_BYTES {
        return Err(too_long("e-mail", MAX_EMAIL_BYTES, email.len()));
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(too_long("password", MAX_PASSWORD_BYTES, password.len()));
    }
    Ok(())
}

/// Trims and lower-cases an e-mail address, refusing what cannot be one.
pub fn normalise_email(email: &str) -> Result<String, AppError> {
    check_text("the e-mail", email, ErrorCode::BadEmail)?;
    let e = email.trim().to_lowercase();
    let bad = |why: &str| AppError::new(ErrorCode::BadEmail, format!("{email:?} {why}"));
    if e.len() > MAX_EMAIL_BYTES {
        return Err(bad("is longer than 254 bytes"));
    }
    let Some((local, domain)) = e.split_once('@') else {
        return Err(bad("has no @"));
    };
    if local.is_empty() || domain.contains('@') || e.chars().any(char::is_whitespace) {
        return Err(bad("is not an e-mail address"));
    }
    if !domain.contains('.') || domain.starts_with('.') || domain.ends_with('.') {
        return Err(bad("has no valid domain after the @"));
    }
    Ok(e)
}

/// Checks a player name: 3 to 20 letters (any alphabet), digits, `_`, `-` or `.`.
pub fn check_name(name: &str) -> Result<String, AppError> {
    check_text("the name", name, ErrorCode::BadName)?;
    let n = name.trim();
    let count = n.chars().count();
    if !(3..=20).contains(&count) {
        return Err(AppError::new(
            ErrorCode::BadName,
            format!("the name must have 3 to 20 characters, {name:?} has {count}"),
        ));
    }
    if let Some(c) = n
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(AppError::new(
            ErrorCode::BadName,
            format!("names use letters, digits, _, - and . only, not {c:?}"),
        ));
    }
    if is_the_velhas(n) {
        return Err(AppError::new(
            ErrorCode::NameTaken,
            "the Velha, the computer opponent, has this name",
        ));
    }
    allowed_words("the name", n)?;
    Ok(n.to_owned())
}

/// Refuses a name (a player's, a group's, a room seat's) holding an offensive or a reserved
/// word, however it is spelt (`velha-names`).
pub fn allowed_words(what: &str, name: &str) -> Result<(), AppError> {
    match velha_names::refused(name) {
        None => Ok(()),
        Some(velha_names::Refused::Offensive) => Err(AppError::new(
            ErrorCode::OffensiveName,
            format!("{what} {name:?} holds an offensive word"),
        )),
        Some(velha_names::Refused::Reserved) => Err(AppError::new(
            ErrorCode::ReservedName,
            format!("{what} {name:?} passes for the staff, the system or the game"),
        )),
    }
}

/// The computer opponent's names: nobody takes them, so no ranking seems to hold her (ON-K05).
fn is_the_velhas(name: &str) -> bool {
    let plain: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    matches!(plain.as_str(), "velha" | "avelha")
}

/// The country of a region setting (`velha_api::country_of`), refusing what names none.
pub fn country_of(region: &str) -> Result<String, AppError> {
    check_text("the region", region, ErrorCode::BadRegion)?;
    velha_api::country_of(region).ok_or_else(|| {
        AppError::new(
            ErrorCode::BadRegion,
            format!(
                "{region:?} names no country; send the phone's region, like pt-BR, or the \
                 country the player picks"
            ),
        )
    })
}

/// A country the player picked (`velha_api::country_code`), refusing what is none.
pub fn picked_country(picked: &str) -> Result<String, AppError> {
    check_text("the country", picked, ErrorCode::BadCountry)?;
    velha_api::country_code(picked).ok_or_else(|| {
        AppError::new(
            ErrorCode::BadCountry,
            format!("{picked:?} is not a country: send its ISO 3166 two letters, like BR"),
        )
    })
}

/// A new account's country: the one picked, else the region's (ON-A02); and whether it is the
/// player's own choice — a pick other than what the region proposed — that later changes of
/// the region leave alone.
pub fn new_account_country(region: &str, picked: Option<&str>) -> Result<(String, bool), AppError> {
    match picked {
        Some(picked) => {
            let country = picked_country(picked)?;
            let proposed = velha_api::country_of(region);
            let chosen = proposed.as_deref() != Some(country.as_str());
            Ok((country, chosen))
        }
        None => Ok((country_of(region)?, false)),
    }
}

fn weak(problem: PasswordProblem) -> AppError {
    let mut e = AppError::new(ErrorCode::WeakPassword, problem.sentence(false));
    e.0.password_problem = Some(problem);
    e
}

/// Refuses passwords that are short, common, contain the e-mail or name, or that zxcvbn
/// guesses quickly (keyboard rows, dates, repeats, a word and a digit…), saying why.
pub fn check_password(password: &str, email: &str, name: &str) -> Result<(), AppError> {
    if password.chars().count() < 8 {
        return Err(weak(PasswordProblem::TooShort));
    }
    let lower = password.to_lowercase();
    if COMMON_PT.contains(&lower.as_str()) {
        return Err(weak(PasswordProblem::Common));
    }
    let local = email.split('@').next().unwrap_or("");
    for part in [local, name] {
        if part.chars().count() >= 4 && lower.contains(&part.to_lowercase()) {
            return Err(weak(PasswordProblem::Personal));
        }
    }
    // Past a few dozen characters a password is strong anyway, and zxcvbn's matching grows
    // faster than the length.
    let head: String = password.chars().take(64).collect();
    let mut inputs: Vec<&str> = vec![local, name];
    inputs.extend(COMMON_PT.iter().copied());
    let estimate = zxcvbn::zxcvbn(&head, &inputs);
    if estimate.score() >= MIN_SCORE {
        return Ok(());
    }
    use zxcvbn::feedback::Warning as W;
    let warning = estimate.feedback().and_then(|f| f.warning());
    let problem = match warning {
        Some(W::ThisIsATop10Password | W::ThisIsATop100Password | W::ThisIsACommonPassword)
        | Some(W::ThisIsSimilarToACommonlyUsedPassword) => PasswordProblem::Common,
        Some(
            W::StraightRowsOfKeysAreEasyToGuess
            | W::ShortKeyboardPatternsAreEasyToGuess
            | W::SequencesLikeAbcAreEasyToGuess,
        ) => PasswordProblem::Pattern,
        Some(
            W::RepeatsLikeAaaAreEasyToGuess | W::RepeatsLikeAbcAbcAreOnlySlightlyHarderToGuess,
        ) => PasswordProblem::Repeats,
        Some(W::RecentYearsAreEasyToGuess | W::DatesAreOftenEasyToGuess) => PasswordProblem::Date,
        Some(
            W::AWordByItselfIsEasyToGuess
            | W::NamesAndSurnamesByThemselvesAreEasyToGuess
            | W::CommonNamesAndSurnamesAreEasyToGuess,
        ) => PasswordProblem::Words,
        None if estimate
            .sequence()
            .iter()
            .any(|m| COMMON_PT.contains(&m.token.to_lowercase().as_str())) =>
        {
            PasswordProblem::Words
        }
        None => PasswordProblem::Guessable,
    };
    Err(weak(problem))
}

/// What the player sees of their account.
pub fn account_view(a: &AccountRow, now: i64) -> Account {
    Account {
        name: a.name.clone(),
        country: a.country.clone(),
        country_chosen: a.country_chosen,
        email: a.email.clone(),
        email_verified: a.email_verified_at.is_some(),
        google: a.google_sub.is_some(),
        password: a.password_hash.is_some(),
        subscribed_until: a.subscribed_until.map(last_day),
        subscriber: is_subscriber(a, now),
        renamed_from: a.renamed_from.clone(),
    }
}

/// Whether the subscription is active now (ON-A03).
pub fn is_subscriber(a: &AccountRow, now: i64) -> bool {
    a.subscribed_until.is_some_and(|until| now < until)
}

/// The web app's session cookie. `__Host-`: only this host, over HTTPS, for every path, so
/// no other site or subdomain can set or read it.
pub const SESSION_COOKIE: &str = "__Host-velha-session";

/// The `Set-Cookie` value that keeps a session for `max_age_s` seconds: out of reach of page
/// scripts (HttpOnly) and never sent with another site's requests (SameSite=Strict).
pub fn session_cookie(token: &str, max_age_s: i64) -> HeaderValue {
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={token}; Path=/; Max-Age={max_age_s}; HttpOnly; Secure; SameSite=Strict"
    ))
    .expect("tokens are URL-safe base64")
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn expired_session_cookie() -> HeaderValue {
    HeaderValue::from_static(
        "__Host-velha-session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict",
    )
}

/// The session token of the request's cookie, if it has one.
pub fn cookie_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(SESSION_COOKIE)?.strip_prefix('='))
        .filter(|token| !token.is_empty())
}

/// Whether a request comes from a page of this site: the browser says so (`Sec-Fetch-Site`),
/// or its `Origin` names the host it was sent to. Requests without either are not trusted.
pub fn same_origin(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        return site == "same-origin";
    }
    let (Some(origin), Some(host)) = (headers.get(ORIGIN), headers.get(HOST)) else {
        return false;
    };
    let (Ok(origin), Ok(host)) = (origin.to_str(), host.to_str()) else {
        return false;
    };
    origin.strip_prefix("https://") == Some(host)
}

/// The signed-in player of a request: `Authorization: Bearer <token>` (the native app, other
/// programs), or the session cookie (the web app). A request that changes anything and is
/// signed in only by the cookie must come from this site's own pages, so another site cannot
/// make a player's browser act for them.
pub struct Player {
    /// Their account.
    pub account: AccountRow,
    /// The hash of the session token used.
    pub token_hash: String,
}

/// A session was used now: what the player's list of sessions says of when each was last
/// used, written off the request's path at most every ten minutes.
pub fn session_used(app: &App, token_hash: &str) {
    let now = now_ms();
    if app.sessions_seen.due(token_hash, now) {
        let (store, hash) = (app.store.clone(), token_hash.to_owned());
        tokio::spawn(async move {
            if let Err(e) = store.session_seen(&hash, now).await {
                tracing::warn!(error = %e, "cannot write a session's last use");
            }
        });
    }
}

/// A signed-in player when the request proves one; a guest otherwise (a stale cookie too).
impl axum::extract::OptionalFromRequestParts<Arc<App>> for Player {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        app: &Arc<App>,
    ) -> Result<Option<Player>, AppError> {
        match <Player as FromRequestParts<Arc<App>>>::from_request_parts(parts, app).await {
            Ok(player) => Ok(Some(player)),
            Err(e) if e.status() == axum::http::StatusCode::INTERNAL_SERVER_ERROR => Err(e),
            Err(_) => Ok(None),
        }
    }
}

impl FromRequestParts<Arc<App>> for Player {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Player, AppError> {
        let bearer = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let token = match (bearer, cookie_token(&parts.headers)) {
            (Some(token), _) => token,
            (None, Some(token)) => {
                let safe = matches!(parts.method, Method::GET | Method::HEAD);
                if !safe && !same_origin(&parts.headers) {
                    return Err(AppError::new(
                        ErrorCode::Forbidden,
                        "a request signed in by the session cookie must come from this site's pages",
                    ));
                }
                token
            }
            (None, None) => {
                return Err(AppError::new(
                    ErrorCode::Unauthorized,
                    "sign in first: send Authorization: Bearer <token>",
                ));
            }
        };
        let hash = token_hash(token.trim());
        let now = now_ms();
        match app.store.account_by_session(&hash, now).await? {
            Some(account) => {
                session_used(app, &hash);
                Ok(Player {
                    account,
                    token_hash: hash,
                })
            }
            None => Err(AppError::new(
                ErrorCode::Unauthorized,
                "the session is unknown or expired; sign in again",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a01_emails_are_normalised_and_checked() {
        assert_eq!(
            normalise_email("  Ana.Souza@Exemplo.COM.br ").unwrap(),
            "ana.souza@exemplo.com.br"
        );
        for bad in [
            "",
            "ana",
            "ana@",
            "@x.com",
            "ana@x",
            "a b@x.com",
            "a@b@c.com",
            "a@.com",
        ] {
            let e = normalise_email(bad).unwrap_err();
            assert_eq!(e.0.code, ErrorCode::BadEmail, "{bad:?}");
        }
    }

    #[test]
    fn on_a01_weak_passwords_are_refused_with_the_reason() {
        use PasswordProblem::*;
        let cases = [
            ("curta", TooShort),
            ("12345678", Common),
            ("Flamengo", Common),
            ("123mudar", Common),
            ("xxanasouzaxx", Personal),
            ("meu-Jogador9", Personal),
            ("qwertyuiop", Common),
            ("asdfghjkl;", Pattern),
            ("aaaaaaaaaa", Repeats),
            ("abcabcabcabc", Repeats),
            ("14/07/1985", Date),
            ("joaosilva", Words),
            ("1q2w3e4r", Common),
            ("Aa123456", Common),
            ("password123", Common),
            ("senha2024", Words),
            ("flamengo1980", Words),
        ];
        for (pw, why) in cases {
            let e = check_password(pw, "anasouza@x.com", "jogador9").unwrap_err();
            assert_eq!(e.0.code, ErrorCode::WeakPassword, "{pw}");
            assert_eq!(e.0.password_problem, Some(why), "{pw}: {}", e.0.message);
            assert_eq!(e.0.message, why.sentence(false));
        }
        for strong in ["cubo-gira-9", "tartaruga voadora de sapato", "Xw7#pq!Lm2z"] {
            assert!(
                check_password(strong, "anasouza@x.com", "jogador9").is_ok(),
                "{strong}"
            );
        }
    }

    #[test]
    fn on_a01_over_long_emails_and_passwords_are_refused_before_anything() {
        let e = check_lengths(&"a".repeat(255), "x").unwrap_err();
        assert_eq!(e.0.code, ErrorCode::TooLong);
        assert!(e.0.message.contains("254"), "{}", e.0.message);
        let e = check_lengths("a@b.com", &"x".repeat(1025)).unwrap_err();
        assert_eq!(e.0.code, ErrorCode::TooLong);
        assert!(check_lengths(&"a".repeat(254), &"x".repeat(1024)).is_ok());
    }

    #[test]
    fn control_characters_are_refused_in_every_text() {
        let e = normalise_email("ana\0@example.com").unwrap_err();
        assert_eq!(e.0.code, ErrorCode::BadEmail);
        assert!(e.0.message.contains("U+0000"), "{}", e.0.message);
        assert_eq!(
            check_name("ana\u{202e}lia").unwrap_err().0.code,
            ErrorCode::BadName
        );
        assert_eq!(
            country_of("pt-BR\u{7}").unwrap_err().0.code,
            ErrorCode::BadRegion
        );
    }

    #[test]
    fn on_a02_names_and_countries() {
        assert_eq!(check_name(" João_10 ").unwrap(), "João_10");
        assert_eq!(check_name("ab").unwrap_err().0.code, ErrorCode::BadName);
        assert_eq!(check_name("a b c").unwrap_err().0.code, ErrorCode::BadName);
        assert_eq!(
            check_name(&"x".repeat(21)).unwrap_err().0.code,
            ErrorCode::BadName
        );
        for (region, country) in [
            ("pt-BR", "BR"),
            ("en_US.UTF-8", "US"),
            ("zh-Hant-TW", "TW"),
            ("BR", "BR"),
            ("pt-br", "BR"),
            ("es-419-AR", "AR"),
        ] {
            assert_eq!(country_of(region).unwrap(), country, "{region}");
        }
        for bad in ["", "pt", "br", "portuguese", "pt-", "123", "en-ZZ"] {
            assert_eq!(
                country_of(bad).unwrap_err().0.code,
                ErrorCode::BadRegion,
                "{bad}"
            );
        }
        let country = |region, picked| new_account_country(region, picked);
        assert_eq!(country("pt", Some(" br")).unwrap(), ("BR".into(), true));
        assert_eq!(country("en-US", Some("BR")).unwrap(), ("BR".into(), true));
        assert_eq!(
            country("pt-BR", Some("BR")).unwrap(),
            ("BR".into(), false),
            "the region's own country, kept, is not a choice"
        );
        assert_eq!(country("pt-PT", None).unwrap(), ("PT".into(), false));
        assert_eq!(
            country("pt", None).unwrap_err().0.code,
            ErrorCode::BadRegion
        );
        for bad in ["ZZ", "BRA", "", "Brasil"] {
            assert_eq!(
                country("pt-BR", Some(bad)).unwrap_err().0.code,
                ErrorCode::BadCountry,
                "{bad}"
            );
        }
    }

    #[test]
    fn the_session_cookie_is_found_among_others_and_only_by_its_name() {
        let mut headers = HeaderMap::new();
        headers.append(
            COOKIE,
            HeaderValue::from_static("a=1; __Host-velha-session=tok; b=2"),
        );
        assert_eq!(cookie_token(&headers), Some("tok"));
        for other in [
            "velha-session=x",
            "__Host-velha-session=",
            "__Host-velha-sessionx=y",
            "",
        ] {
            let mut headers = HeaderMap::new();
            headers.append(COOKIE, HeaderValue::from_str(other).unwrap());
            assert_eq!(cookie_token(&headers), None, "{other:?}");
        }
        let set = session_cookie("tok", 60);
        let set = set.to_str().unwrap();
        for part in [
            "HttpOnly",
            "Secure",
            "SameSite=Strict",
            "Path=/",
            "Max-Age=60",
        ] {
            assert!(set.contains(part), "{set}");
        }
    }

    #[test]
    fn same_origin_needs_the_browser_to_say_so() {
        let with = |pairs: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.insert(*k, HeaderValue::from_static(v));
            }
            same_origin(&h)
        };
        assert!(with(&[("sec-fetch-site", "same-origin")]));
        assert!(!with(&[
            ("sec-fetch-site", "cross-site"),
            ("origin", "https://a.b"),
            ("host", "a.b")
        ]));
        assert!(!with(&[("sec-fetch-site", "same-site")]));
        assert!(with(&[
            ("origin", "https://a.b:8443"),
            ("host", "a.b:8443")
        ]));
        assert!(!with(&[
            ("origin", "https://evil.example"),
            ("host", "a.b")
        ]));
        assert!(!with(&[("origin", "http://a.b"), ("host", "a.b")]));
        assert!(!with(&[("host", "a.b")]));
        assert!(!with(&[]));
    }
}
