//! What a text a player sends may contain: no control characters (a NUL breaks PostgreSQL's
//! text columns, a newline forges log lines), no invisible formatting (bidirectional
//! overrides and zero-width characters make one name look like another), no noncharacters.
//! Invalid UTF-8 never gets this far: the JSON parser refuses it.

use velha_api::ErrorCode;

use crate::error::AppError;

/// Whether a player may never send `c` in a text.
fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}' | '\u{FDD0}'..='\u{FDEF}' | '\u{E0000}'..='\u{E007F}')
        || (c as u32) & 0xFFFE == 0xFFFE
}

/// Refuses a text with a character no player types, naming it: `what` says which field
/// ("the name"), `code` what the refusal is.
pub fn check_text(what: &str, text: &str, code: ErrorCode) -> Result<(), AppError> {
    match text.chars().find(|&c| forbidden(c)) {
        None => Ok(()),
        Some(c) => Err(AppError::new(
            code,
            format!(
                "{what} contains U+{:04X}, a control or invisible character it cannot have",
                c as u32
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_invisible_characters_are_named() {
        for (text, shown) in [
            ("ana\0", "U+0000"),
            ("a\nb", "U+000A"),
            ("\u{7f}", "U+007F"),
            ("ab\u{202E}c", "U+202E"),
            ("a\u{200B}b", "U+200B"),
            ("\u{FEFF}ana", "U+FEFF"),
            ("x\u{FFFF}", "U+FFFF"),
            ("x\u{1FFFE}", "U+1FFFE"),
            ("tag\u{E0041}", "U+E0041"),
        ] {
            let e = check_text("the name", text, ErrorCode::BadName).unwrap_err();
            assert_eq!(e.0.code, ErrorCode::BadName);
            assert!(e.0.message.contains(shown), "{text:?}: {}", e.0.message);
        }
        for fine in [
            "João",
            "Vó Quelônia",
            "ana.souza@exemplo.com.br",
            "張偉",
            "emoji 🎲",
            "pt-BR",
        ] {
            assert!(
                check_text("the name", fine, ErrorCode::BadName).is_ok(),
                "{fine}"
            );
        }
    }
}
