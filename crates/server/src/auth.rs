//! Accounts: checking what players type, passwords (argon2id), sessions and the limit on
//! failed sign-ins (online.md ON-A01, ON-A02).

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use velha_api::{Account, ErrorCode};

use crate::app::App;
use crate::dates::last_day;
use crate::error::AppError;
use crate::store::AccountRow;
use crate::token::{now_ms, token_hash};

const COMMON_PASSWORDS: &[&str] = &[
    "12345678",
    "123456789",
    "1234567890",
    "password",
    "password1",
    "senha123",
    "senha1234",
    "qwertyui",
    "qwerty123",
    "abcdefgh",
    "abc12345",
    "iloveyou",
    "11111111",
    "00000000",
    "87654321",
    "brasil10",
    "flamengo",
    "corinthians",
    "palmeiras",
    "velha123",
    "cubodavelha",
    "jogodavelha",
    "admin123",
    "welcome1",
    "sunshine",
    "princess",
    "football",
    "12341234",
];

/// Trims and lower-cases an e-mail address, refusing what cannot be one.
pub fn normalise_email(email: &str) -> Result<String, AppError> {
    let e = email.trim().to_lowercase();
    let bad = |why: &str| AppError::new(ErrorCode::BadEmail, format!("{email:?} {why}"));
    if e.len() > 254 {
        return Err(bad("is longer than 254 characters"));
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
    Ok(n.to_owned())
}

/// The country of a region setting: `pt-BR`, `en_US.UTF-8`, `zh-Hant-TW` or a bare `BR`.
pub fn country_of(region: &str) -> Result<String, AppError> {
    let base = region.trim().split(['.', '@']).next().unwrap_or("");
    let parts: Vec<&str> = base.split(['-', '_']).collect();
    let is_code = |p: &str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_alphabetic());
    let code = match parts.as_slice() {
        // Alone, `pt` is a language and `PT` a country: BCP 47 writes languages in lower case.
        [only] if is_code(only) && only.bytes().all(|b| b.is_ascii_uppercase()) => Some(*only),
        [_, rest @ ..] => rest.iter().copied().find(|p| is_code(p)),
        _ => None,
    };
    code.map(str::to_ascii_uppercase).ok_or_else(|| {
        AppError::new(
            ErrorCode::BadRegion,
            format!("{region:?} names no country; send the phone's region, like pt-BR"),
        )
    })
}

/// Refuses passwords that are short, common, one repeated character, or the e-mail or name.
pub fn check_password(password: &str, email: &str, name: &str) -> Result<(), AppError> {
    let weak = |why: &str| AppError::new(ErrorCode::WeakPassword, why.to_owned());
    let len = password.chars().count();
    if len < 8 {
        return Err(weak("the password needs at least 8 characters"));
    }
    if len > 256 {
        return Err(weak("the password may have at most 256 characters"));
    }
    let lower = password.to_lowercase();
    if COMMON_PASSWORDS.contains(&lower.as_str()) {
        return Err(weak("this password is among the most common ones"));
    }
    let mut chars = password.chars();
    let first = chars.next();
    if chars.all(|c| Some(c) == first) {
        return Err(weak("the password repeats one character"));
    }
    let local = email.split('@').next().unwrap_or("");
    for (what, part) in [("e-mail", local), ("player name", name)] {
        if part.chars().count() >= 4 && lower.contains(&part.to_lowercase()) {
            return Err(weak(&format!("the password contains the {what}")));
        }
    }
    Ok(())
}

/// What the player sees of their account.
pub fn account_view(a: &AccountRow, now: i64) -> Account {
    Account {
        name: a.name.clone(),
        country: a.country.clone(),
        email: a.email.clone(),
        google: a.google_sub.is_some(),
        subscribed_until: a.subscribed_until.map(last_day),
        subscriber: is_subscriber(a, now),
    }
}

/// Whether the subscription is active now (ON-A03).
pub fn is_subscriber(a: &AccountRow, now: i64) -> bool {
    a.subscribed_until.is_some_and(|until| now < until)
}

/// The signed-in player of a request (`Authorization: Bearer <token>`).
pub struct Player {
    /// Their account.
    pub account: AccountRow,
    /// The hash of the session token used.
    pub token_hash: String,
}

impl FromRequestParts<Arc<App>> for Player {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Player, AppError> {
        let header = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let Some(token) = header.strip_prefix("Bearer ") else {
            return Err(AppError::new(
                ErrorCode::Unauthorized,
                "sign in first: send Authorization: Bearer <token>",
            ));
        };
        let hash = token_hash(token.trim());
        match app.store.account_by_session(&hash, now_ms()).await? {
            Some(account) => Ok(Player {
                account,
                token_hash: hash,
            }),
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
        let cases = [
            ("curta", "8 characters"),
            ("12345678", "common"),
            ("Flamengo", "common"),
            ("aaaaaaaaaa", "repeats"),
            ("xxanasouzaxx", "e-mail"),
            ("meu-Jogador9", "player name"),
        ];
        for (pw, why) in cases {
            let e = check_password(pw, "anasouza@x.com", "jogador9").unwrap_err();
            assert_eq!(e.0.code, ErrorCode::WeakPassword);
            assert!(e.0.message.contains(why), "{pw}: {}", e.0.message);
        }
        assert!(check_password("cubo-gira-9", "anasouza@x.com", "jogador9").is_ok());
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
        for bad in ["", "pt", "br", "portuguese", "pt-", "123"] {
            assert_eq!(
                country_of(bad).unwrap_err().0.code,
                ErrorCode::BadRegion,
                "{bad}"
            );
        }
    }
}
