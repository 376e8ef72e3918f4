//! The account forms checked on the device before anything is sent: empty, too long and
//! malformed values get their sentence at once (the server checks everything again).

use velha_api::PasswordProblem;

use super::texts::OnlineTexts;

/// The server's limits (RFC 5321's longest address; the longest password it looks at).
const MAX_EMAIL_BYTES: usize = 254;
const MAX_PASSWORD_BYTES: usize = 1024;

/// Whether the e-mail has an address's form; the sentence that says what is wrong.
pub fn email(t: &OnlineTexts, email: &str) -> Result<(), String> {
    let e = email.trim();
    if e.is_empty() {
        return Err(t.empty_email.into());
    }
    if e.len() > MAX_EMAIL_BYTES {
        return Err(t.too_long.into());
    }
    let valid = e.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty()
            && !domain.contains('@')
            && domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !e.chars().any(|c| c.is_whitespace() || c.is_control())
    });
    if valid {
        Ok(())
    } else {
        Err(t.bad_email.into())
    }
}

fn password(t: &OnlineTexts, password: &str, new: bool) -> Result<(), String> {
    if password.is_empty() {
        return Err(t.empty_password.into());
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(t.too_long.into());
    }
    if new && password.chars().count() < 8 {
        return Err(PasswordProblem::TooShort.sentence(t.pt).into());
    }
    Ok(())
}

fn name(t: &OnlineTexts, name: &str) -> Result<(), String> {
    let n = name.trim();
    if n.is_empty() {
        return Err(t.empty_name.into());
    }
    let fits = (3..=20).contains(&n.chars().count())
        && n.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if fits { Ok(()) } else { Err(t.bad_name.into()) }
}

/// The country picked, which a new account needs (ON-A02): none yet is the problem.
fn country(t: &OnlineTexts, country: Option<&str>) -> Result<(), String> {
    match country {
        Some(_) => Ok(()),
        None => Err(t.empty_country.into()),
    }
}

/// The name and country a first Google sign-in asks for: the first problem, as a sentence.
pub fn google_sign_up(t: &OnlineTexts, n: &str, c: Option<&str>) -> Result<(), String> {
    name(t, n)?;
    country(t, c)
}

/// The sign-in form: the first problem, as a sentence.
pub fn log_in(t: &OnlineTexts, e: &str, p: &str) -> Result<(), String> {
    email(t, e)?;
    password(t, p, false)
}

/// The sign-up form: the first problem, as a sentence.
pub fn sign_up(t: &OnlineTexts, e: &str, p: &str, n: &str, c: Option<&str>) -> Result<(), String> {
    name(t, n)?;
    email(t, e)?;
    password(t, p, true)?;
    country(t, c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::online::texts::ONLINE_PT as T;

    #[test]
    fn on_a01_empty_too_long_and_malformed_values_are_refused_with_a_sentence() {
        let ok = ("ana@example.com", "cubo-gira-9", "Ana_10");
        let br = Some("BR");
        assert_eq!(sign_up(&T, ok.0, ok.1, ok.2, br), Ok(()));
        assert_eq!(
            sign_up(&T, ok.0, ok.1, ok.2, None),
            Err(T.empty_country.to_string()),
            "ON-A02: no country yet"
        );
        assert_eq!(
            log_in(&T, " Ana@Example.com ", "x"),
            Ok(()),
            "any password signs in"
        );
        let long_email = format!("{}@example.com", "a".repeat(250));
        let long_password = "p".repeat(1025);
        for (e, p, n, says) in [
            ("", ok.1, ok.2, T.empty_email),
            ("   ", ok.1, ok.2, T.empty_email),
            (long_email.as_str(), ok.1, ok.2, T.too_long),
            ("ana", ok.1, ok.2, T.bad_email),
            ("ana@example", ok.1, ok.2, T.bad_email),
            ("a b@example.com", ok.1, ok.2, T.bad_email),
            ("a@b@example.com", ok.1, ok.2, T.bad_email),
            ("@example.com", ok.1, ok.2, T.bad_email),
            (ok.0, "", ok.2, T.empty_password),
            (ok.0, long_password.as_str(), ok.2, T.too_long),
            (
                ok.0,
                "curta",
                ok.2,
                PasswordProblem::TooShort.sentence(true),
            ),
            (ok.0, ok.1, "", T.empty_name),
            (ok.0, ok.1, "ab", T.bad_name),
            (ok.0, ok.1, "um nome", T.bad_name),
            (ok.0, ok.1, &"x".repeat(21), T.bad_name),
            (ok.0, ok.1, "ana\u{202e}", T.bad_name),
        ] {
            assert_eq!(
                sign_up(&T, e, p, n, br),
                Err(says.to_string()),
                "{e:?} {p:?} {n:?}"
            );
        }
        assert_eq!(google_sign_up(&T, " ", br), Err(T.empty_name.to_string()));
        assert_eq!(google_sign_up(&T, "x y", br), Err(T.bad_name.to_string()));
        assert_eq!(google_sign_up(&T, "Gui_9", br), Ok(()));
        assert_eq!(
            google_sign_up(&T, "Gui_9", None),
            Err(T.empty_country.to_string())
        );
        assert_eq!(log_in(&T, "", "x"), Err(T.empty_email.to_string()));
        assert_eq!(
            log_in(&T, "ana@example.com", ""),
            Err(T.empty_password.to_string())
        );
    }
}
