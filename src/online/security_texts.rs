//! What the player reads about their password and the places they are signed in
//! (docs/accounts.md).

use velha_api::ErrorCode;

use crate::i18n::counted;
use crate::online::client::Problem;

/// The account security screen's words in one language.
pub struct SecurityTexts {
    pub title: &'static str,
    /// A guest's: the screen is a signed-in player's.
    pub sign_in_first: &'static str,
    pub open: &'static str,
    pub sessions_title: &'static str,
    pub this_device: &'static str,
    pub unknown_device: &'static str,
    /// When it signed in and was last used, from how long ago each was.
    pub when: fn(since: &str, seen: &str) -> String,
    pub end: &'static str,
    pub end_others: &'static str,
    pub ended_others: &'static str,
    pub password_title: &'static str,
    pub current: &'static str,
    pub new_password: &'static str,
    pub change: &'static str,
    pub changed: &'static str,
    pub wrong_current: &'static str,
    pub no_password: &'static str,
    pub now: &'static str,
    /// How long ago, in minutes, hours or days ("há 5 minutos").
    pub ago: fn(u32, Unit) -> String,
}

/// The unit of a time ago.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Minutes,
    Hours,
    Days,
}

/// Brazilian Portuguese.
pub static SECURITY_PT: SecurityTexts = SecurityTexts {
    title: "Senha e aparelhos",
    sign_in_first: "Entre na sua conta para ver seus aparelhos e trocar a senha.",
    open: "Senha e aparelhos",
    sessions_title: "Onde você está conectado",
    this_device: "Este aparelho",
    unknown_device: "Aparelho desconhecido",
    when: |since, seen| format!("Entrou {since} · usado {seen}"),
    end: "Desconectar",
    end_others: "Desconectar todos os outros",
    ended_others: "Os outros aparelhos saíram da sua conta.",
    password_title: "Trocar a senha",
    current: "Senha atual",
    new_password: "Nova senha",
    change: "Trocar a senha",
    changed: "Senha trocada. Os outros aparelhos conectados à sua conta saíram dela.",
    wrong_current: "A senha atual não é esta.",
    no_password: "Você entra com o Google: esta conta não tem senha para trocar.",
    now: "agora",
    ago: |n, unit| {
        let (one, many) = match unit {
            Unit::Minutes => ("minuto", "minutos"),
            Unit::Hours => ("hora", "horas"),
            Unit::Days => ("dia", "dias"),
        };
        format!("há {}", counted(n, one, many))
    },
};

/// English.
pub static SECURITY_EN: SecurityTexts = SecurityTexts {
    title: "Password and devices",
    sign_in_first: "Sign in to see your devices and change the password.",
    open: "Password and devices",
    sessions_title: "Where you are signed in",
    this_device: "This device",
    unknown_device: "Unknown device",
    when: |since, seen| format!("Signed in {since} · used {seen}"),
    end: "Sign out",
    end_others: "Sign out every other device",
    ended_others: "Every other device was signed out of your account.",
    password_title: "Change the password",
    current: "Current password",
    new_password: "New password",
    change: "Change the password",
    changed: "Password changed. Every other device signed in to your account was signed out.",
    wrong_current: "That is not the current password.",
    no_password: "You sign in with Google: this account has no password to change.",
    now: "just now",
    ago: |n, unit| {
        let (one, many) = match unit {
            Unit::Minutes => ("minute", "minutes"),
            Unit::Hours => ("hour", "hours"),
            Unit::Days => ("day", "days"),
        };
        format!("{} ago", counted(n, one, many))
    },
};

/// The security texts in the app's language.
pub fn security_texts(pt: bool) -> &'static SecurityTexts {
    if pt { &SECURITY_PT } else { &SECURITY_EN }
}

/// How long before `now` the moment `at` was (both ms), in the largest whole unit.
pub fn ago(t: &SecurityTexts, at: i64, now: i64) -> String {
    let minutes = (now - at).max(0) / 60_000;
    let (n, unit) = match minutes {
        0 => return t.now.to_owned(),
        1..=59 => (minutes, Unit::Minutes),
        60..=1439 => (minutes / 60, Unit::Hours),
        _ => (minutes / 1440, Unit::Days),
    };
    (t.ago)(u32::try_from(n).unwrap_or(u32::MAX), unit)
}

/// The screen's own refusals, if this is one.
pub fn security_sentence(t: &SecurityTexts, problem: &Problem) -> Option<String> {
    match problem {
        Problem::Refused(e) if e.code == ErrorCode::WrongPassword => Some(t.wrong_current.into()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a01_a_session_is_told_how_long_ago_in_words() {
        const MIN: i64 = 60_000;
        let pt = &SECURITY_PT;
        assert_eq!(ago(pt, 0, 30_000), "agora");
        assert_eq!(ago(pt, 0, MIN), "há 1 minuto");
        assert_eq!(ago(pt, 0, 59 * MIN), "há 59 minutos");
        assert_eq!(ago(pt, 0, 60 * MIN), "há 1 hora");
        assert_eq!(ago(pt, 0, 2 * 1440 * MIN + 5), "há 2 dias");
        assert_eq!(ago(&SECURITY_EN, 0, 3 * 60 * MIN), "3 hours ago");
        assert_eq!(
            ago(&SECURITY_EN, 10, 0),
            "just now",
            "a clock behind the server's"
        );
    }
}
