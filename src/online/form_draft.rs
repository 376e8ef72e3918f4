//! What a guest has typed in the sign-in and sign-up forms, kept so that a reload, the back
//! button or an app the phone closed brings the form back as it was: on the web for the tab's
//! life (sessionStorage), in the app until the player is in (a file). Never the password: it
//! would outlive the form in storage anyone with the device can read.

use crate::platform;

const KEY: &str = "account-draft";
/// The text's first line; another version's draft reads as none.
const VERSION: &str = "draft 1";

/// The forms' fields but the password.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FormDraft {
    /// The sign-up form rather than the sign-in one.
    pub signing_up: bool,
    pub email: String,
    pub name: String,
    /// The country chosen, or proposed by the device's region.
    pub country: Option<String>,
}

impl FormDraft {
    /// The draft kept for this visit, if any.
    pub fn kept() -> Option<Self> {
        Self::from_text(&platform::load_draft(KEY)?)
    }

    /// Keeps it for this visit; an untouched form keeps nothing.
    pub fn keep(&self) {
        if self.email.is_empty() && self.name.is_empty() && !self.signing_up {
            platform::forget_draft(KEY);
        } else {
            platform::save_draft(KEY, &self.text());
        }
    }

    /// Forgets the draft: the player is in.
    pub fn forget() {
        platform::forget_draft(KEY);
    }

    fn text(&self) -> String {
        // A field is one line: a pasted line break would shift the fields after it.
        let line = |s: &str| s.replace(['\n', '\r'], " ");
        format!(
            "{VERSION}\n{}\n{}\n{}\n{}",
            if self.signing_up {
                "sign-up"
            } else {
                "sign-in"
            },
            line(&self.email),
            line(&self.name),
            self.country.as_deref().map(line).unwrap_or_default(),
        )
    }

    fn from_text(text: &str) -> Option<Self> {
        let mut lines = text.split('\n');
        if lines.next()? != VERSION {
            return None;
        }
        let signing_up = match lines.next()? {
            "sign-up" => true,
            "sign-in" => false,
            _ => return None,
        };
        let (email, name, country) = (lines.next()?, lines.next()?, lines.next()?);
        if lines.next().is_some() {
            return None;
        }
        Some(Self {
            signing_up,
            // The fields' own limits: a draft never holds what the form could not.
            email: email.chars().take(254).collect(),
            name: name.chars().take(40).collect(),
            country: velha_api::country_of(country),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a01_a_draft_reads_back_as_written_and_a_line_break_cannot_shift_its_fields() {
        let draft = FormDraft {
            signing_up: true,
            email: "ana@example.com".into(),
            name: "Ana\nda Silva".into(),
            country: Some("PT".into()),
        };
        let back = FormDraft::from_text(&draft.text()).expect("a draft reads back");
        assert_eq!(back.email, "ana@example.com");
        assert_eq!(back.name, "Ana da Silva");
        assert_eq!(back.country.as_deref(), Some("PT"));
        assert!(back.signing_up);
        let sign_in = FormDraft {
            email: "b@c.d".into(),
            ..FormDraft::default()
        };
        assert_eq!(FormDraft::from_text(&sign_in.text()), Some(sign_in));
    }

    #[test]
    fn on_a01_damaged_or_foreign_text_is_no_draft() {
        for text in [
            "",
            "draft 2\nsign-up\na@b.c\nAna\nBR",
            "draft 1\nsomething\na@b.c\nAna\nBR",
            "draft 1\nsign-up\na@b.c\nAna",
            "draft 1\nsign-up\na@b.c\nAna\nBR\nextra",
        ] {
            assert_eq!(FormDraft::from_text(text), None, "{text:?}");
        }
        let odd = FormDraft::from_text(&format!(
            "draft 1\nsign-up\n{}\n{}\nZZ",
            "e".repeat(1000),
            "n".repeat(1000)
        ))
        .expect("long fields are cut, not refused");
        assert_eq!((odd.email.len(), odd.name.len()), (254, 40));
        assert_eq!(odd.country, None, "a country code that is none");
    }
}
