//! What the player reads about the moderation: names it refuses, a suspended account, a name
//! it changed, and reporting another player (`POST /api/reports`).

use velha_api::{ErrorCode, MAX_REPORT_NOTE, ReportReason};

use super::client::Problem;
use super::texts::{OnlineTexts, sentence};

/// The moderation's words in one language.
pub struct ModerationTexts {
    pub offensive_name: &'static str,
    pub reserved_name: &'static str,
    /// The suspension, with the reason the operator gave when there is one.
    pub banned: fn(Option<&str>) -> String,
    /// The old name and the new one.
    pub renamed: fn(&str, &str) -> String,
    pub got_it: &'static str,
    pub report: &'static str,
    pub reported: &'static str,
    /// The reported player's name: the dialog's title, and the rows' button's label.
    pub report_who: fn(&str) -> String,
    pub reason: &'static str,
    /// Each reason, in the order of [`ReportReason::ALL`].
    pub reasons: [&'static str; 4],
    pub note: &'static str,
    /// The most characters a note may have.
    pub note_hint: fn(usize) -> String,
    pub send: &'static str,
    pub cancel: &'static str,
    pub choose_reason: &'static str,
    pub sent: &'static str,
    pub already: &'static str,
    pub not_found: &'static str,
    pub forbidden: &'static str,
}

/// Brazilian Portuguese.
pub static MODERATION_PT: ModerationTexts = ModerationTexts {
    offensive_name: "Esse nome não é permitido: tem uma palavra ofensiva.",
    reserved_name: "Esse nome é reservado. Escolha outro.",
    banned: |reason| match reason {
        Some(reason) => format!("Esta conta foi suspensa pela moderação. Motivo: {reason}"),
        None => "Esta conta foi suspensa pela moderação.".into(),
    },
    renamed: |old, new| format!("A moderação mudou seu nome de «{old}» para «{new}»."),
    got_it: "Entendi",
    report: "Denunciar",
    reported: "Denunciado",
    report_who: |name| format!("Denunciar {name}"),
    reason: "Motivo",
    reasons: ["Nome ofensivo", "Trapaça", "Comportamento", "Outro"],
    note: "Observação (opcional)",
    note_hint: |n| format!("Até {n} caracteres."),
    send: "Enviar",
    cancel: "Cancelar",
    choose_reason: "Escolha o motivo da denúncia.",
    sent: "Denúncia enviada. Obrigado.",
    already: "Você já denunciou este jogador aqui.",
    not_found: "Não encontramos o que você quer denunciar: a partida, a sala ou o jogador não existe mais.",
    forbidden: "Não é possível denunciar este jogador aqui.",
};

/// English.
pub static MODERATION_EN: ModerationTexts = ModerationTexts {
    offensive_name: "This name is not allowed: it has an offensive word.",
    reserved_name: "This name is reserved. Choose another.",
    banned: |reason| match reason {
        Some(reason) => format!("This account was suspended by the moderators. Reason: {reason}"),
        None => "This account was suspended by the moderators.".into(),
    },
    renamed: |old, new| format!("The moderators changed your name from “{old}” to “{new}”."),
    got_it: "Got it",
    report: "Report",
    reported: "Reported",
    report_who: |name| format!("Report {name}"),
    reason: "Reason",
    reasons: ["Offensive name", "Cheating", "Behaviour", "Other"],
    note: "Note (optional)",
    note_hint: |n| format!("Up to {n} characters."),
    send: "Send",
    cancel: "Cancel",
    choose_reason: "Choose why you report this player.",
    sent: "Report sent. Thank you.",
    already: "You already reported this player here.",
    not_found: "What you report was not found: the match, the room or the player no longer exists.",
    forbidden: "This player cannot be reported here.",
};

/// The moderation's texts in the app's language.
pub fn moderation_texts(pt: bool) -> &'static ModerationTexts {
    if pt { &MODERATION_PT } else { &MODERATION_EN }
}

/// What the server puts before the operator's reason in a suspension's message.
const SUSPENDED: &str = "this account is suspended: ";

/// The moderation's refusals of a name or of signing in, if this is one.
pub fn moderation_sentence(m: &ModerationTexts, problem: &Problem) -> Option<String> {
    let Problem::Refused(error) = problem else {
        return None;
    };
    match error.code {
        ErrorCode::OffensiveName => Some(m.offensive_name.into()),
        ErrorCode::ReservedName => Some(m.reserved_name.into()),
        ErrorCode::Banned => {
            // The reason is the operator's own words: said as typed, in whatever language.
            let reason = error
                .message
                .strip_prefix(SUSPENDED)
                .unwrap_or(&error.message);
            let reason = reason.trim();
            let ends = reason.ends_with(['.', '!', '?', '…']);
            let reason = (!reason.is_empty()).then(|| {
                if ends {
                    reason.to_owned()
                } else {
                    format!("{reason}.")
                }
            });
            Some((m.banned)(reason.as_deref()))
        }
        _ => None,
    }
}

/// How a reason reads in the report dialog.
pub fn reason_name(m: &ModerationTexts, reason: ReportReason) -> &'static str {
    let i = ReportReason::ALL
        .iter()
        .position(|r| *r == reason)
        .unwrap_or(ReportReason::ALL.len() - 1);
    m.reasons[i]
}

/// The note as it is sent: none when blank; line breaks and other control characters (which
/// the server refuses) become spaces. Too long: the sentence that says so.
pub fn report_note(o: &OnlineTexts, note: &str) -> Result<Option<String>, String> {
    let note: String = note
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let note = note.trim();
    if note.chars().count() > MAX_REPORT_NOTE {
        return Err(o.too_long.into());
    }
    Ok((!note.is_empty()).then(|| note.to_owned()))
}

/// A refusal of a report, as the player reads it (a report made before is not a refusal: the
/// dialog says so as it says a report sent).
pub fn report_sentence(m: &ModerationTexts, o: &OnlineTexts, problem: &Problem) -> String {
    match problem {
        Problem::Refused(error) if error.code == ErrorCode::NotFound => m.not_found.into(),
        Problem::Refused(error) if error.code == ErrorCode::Forbidden => m.forbidden.into(),
        _ => sentence(o, problem),
    }
}

#[cfg(test)]
mod tests {
    use velha_api::ApiError;

    use super::*;
    use crate::online::texts::checks::{all_distinct, refused};
    use crate::online::texts::{ONLINE_EN, ONLINE_PT};

    fn banned(message: &str) -> Problem {
        Problem::Refused(ApiError::new(ErrorCode::Banned, message))
    }

    /// A name the moderation refuses is told as such wherever a name is chosen, apart from the
    /// name rules' own sentences, in both languages.
    #[test]
    fn offensive_and_reserved_names_are_sentences_of_their_own() {
        use ErrorCode::*;
        for o in [&ONLINE_PT, &ONLINE_EN] {
            let said = [OffensiveName, ReservedName, BadName, NameTaken]
                .iter()
                .map(|c| sentence(o, &refused(*c)))
                .collect();
            all_distinct(said);
        }
        assert_eq!(
            sentence(&ONLINE_PT, &refused(ErrorCode::OffensiveName)),
            "Esse nome não é permitido: tem uma palavra ofensiva."
        );
        assert_eq!(
            sentence(&ONLINE_EN, &refused(ErrorCode::ReservedName)),
            "This name is reserved. Choose another."
        );
    }

    /// A suspended account's sign-in says so with the operator's reason, without the server's
    /// English around it.
    #[test]
    fn a_suspension_is_told_with_its_reason() {
        assert_eq!(
            sentence(
                &ONLINE_PT,
                &banned("this account is suspended: linguagem ofensiva")
            ),
            "Esta conta foi suspensa pela moderação. Motivo: linguagem ofensiva."
        );
        assert_eq!(
            sentence(&ONLINE_EN, &banned("this account is suspended: spam!")),
            "This account was suspended by the moderators. Reason: spam!"
        );
        assert_eq!(
            sentence(&ONLINE_PT, &banned("trapaça")),
            "Esta conta foi suspensa pela moderação. Motivo: trapaça."
        );
        assert_eq!(
            sentence(&ONLINE_PT, &banned("this account is suspended: ")),
            "Esta conta foi suspensa pela moderação."
        );
    }

    /// Every refusal a report can meet is a sentence; the reasons read in the dialog's order.
    #[test]
    fn report_refusals_and_reasons_read_right() {
        use ErrorCode::*;
        for (m, o) in [(&MODERATION_PT, &ONLINE_PT), (&MODERATION_EN, &ONLINE_EN)] {
            let mut said: Vec<String> = [NotFound, Forbidden, BadRequest, Unauthorized]
                .iter()
                .map(|c| report_sentence(m, o, &refused(*c)))
                .collect();
            said.push(m.sent.into());
            said.push(m.already.into());
            all_distinct(said);
        }
        let names = ReportReason::ALL.map(|r| reason_name(&MODERATION_PT, r));
        assert_eq!(
            names,
            ["Nome ofensivo", "Trapaça", "Comportamento", "Outro"]
        );
        assert_eq!(
            (MODERATION_PT.renamed)("Velho", "Jogador7"),
            "A moderação mudou seu nome de «Velho» para «Jogador7»."
        );
    }

    #[test]
    fn a_note_is_sent_on_one_line_and_within_the_limit() {
        let o = &ONLINE_PT;
        assert_eq!(report_note(o, "  \n "), Ok(None));
        assert_eq!(
            report_note(o, "xingou\nmuito\t"),
            Ok(Some("xingou muito".into()))
        );
        let longest = "é".repeat(MAX_REPORT_NOTE);
        assert_eq!(report_note(o, &longest), Ok(Some(longest.clone())));
        assert_eq!(
            report_note(o, &format!("{longest}x")),
            Err(o.too_long.to_owned())
        );
    }
}
