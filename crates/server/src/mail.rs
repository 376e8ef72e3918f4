//! E-mail to players (docs/mail.md): the link that confirms an address and the link that
//! chooses a new password, in the player's language, as plain text and HTML, sent over SMTP
//! (lettre, rustls) by a task of its own from a bounded queue, each message tried again after
//! a temporary failure. Without `--smtp-url` the server sends nothing and says so.

use std::sync::Arc;
use std::time::Duration;

use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use tokio::sync::{Semaphore, mpsc};

use crate::store::Store;
use crate::token::{new_token, now_ms, token_hash};

/// Messages waiting at most; past it a request to send one is refused as unavailable.
pub const QUEUE: usize = 1_000;
/// Sends to the SMTP server at once.
const SENDING: usize = 4;
/// Tries of one message; the waits between them grow fourfold from [`FIRST_WAIT`].
const TRIES: u32 = 4;
const FIRST_WAIT: Duration = Duration::from_secs(2);
/// How long a confirmation link works.
pub const VERIFY_MS: i64 = 24 * 3_600_000;
/// How long a new-password link works.
pub const RESET_MS: i64 = 30 * 60_000;

/// A message's language: Brazilian Portuguese unless English was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// `pt-BR`.
    Pt,
    /// `en`.
    En,
}

impl Language {
    /// From a locale or a language tag the app sends (`en-US`, `pt_BR`, `en`).
    pub fn of(tag: Option<&str>) -> Language {
        match tag {
            Some(t) if t.to_ascii_lowercase().starts_with("en") => Language::En,
            _ => Language::Pt,
        }
    }
}

/// What the sending task is asked to do.
pub enum Job {
    /// A message ready to go.
    Send(Letter),
    /// "Esqueci a senha" for this address: looked up here, off the request's path, so the
    /// request's answer is the same, and as quick, whether an account has it or not.
    Reset {
        /// The normalised address.
        email: String,
        /// The message's language.
        language: Language,
    },
}

/// One message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Letter {
    /// The recipient's address.
    pub to: String,
    /// The subject line.
    pub subject: String,
    /// The plain-text body.
    pub text: String,
    /// The HTML body.
    pub html: String,
}

/// The queue to the sending task, and what the links are made of.
pub struct Mailer {
    queue: mpsc::Sender<Job>,
    /// The app's public address the links open (`--public-url`).
    pub base: String,
}

/// What the sending task holds.
struct Sender {
    smtp: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    store: Store,
    base: String,
}

impl Mailer {
    /// Starts the sending task for the SMTP server at `url` (`smtps://user:pass@host:465`,
    /// `smtp://user:pass@host:587?tls=required`, or `smtp://host:port` on a trusted network).
    pub fn start(url: &str, from: &str, base: &str, store: Store) -> Result<Mailer, String> {
        let smtp = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| format!("--smtp-url: {e}"))?
            .timeout(Some(Duration::from_secs(20)))
            .build();
        let from: Mailbox = from
            .parse()
            .map_err(|e| format!("--mail-from {from:?}: {e}"))?;
        let base = base.trim_end_matches('/').to_owned();
        let (queue, mut jobs) = mpsc::channel::<Job>(QUEUE);
        let sender = Arc::new(Sender {
            smtp,
            from,
            store,
            base: base.clone(),
        });
        tokio::spawn(async move {
            let permits = Arc::new(Semaphore::new(SENDING));
            while let Some(job) = jobs.recv().await {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                let sender = sender.clone();
                tokio::spawn(async move {
                    sender.run(job).await;
                    metrics::gauge!(crate::metrics::MAIL_QUEUE).decrement(1.0);
                    drop(permit);
                });
            }
        });
        Ok(Mailer { queue, base })
    }

    /// Queues a job; false when the queue is full (the caller says e-mail is unavailable).
    pub fn queue(&self, job: Job) -> bool {
        // Counted before it is queued, so its sending never counts it out first.
        metrics::gauge!(crate::metrics::MAIL_QUEUE).increment(1.0);
        let queued = self.queue.try_send(job).is_ok();
        if !queued {
            metrics::gauge!(crate::metrics::MAIL_QUEUE).decrement(1.0);
        }
        if !queued {
            tracing::warn!("the mail queue is full: a message is not sent");
        }
        queued
    }

    /// A fresh confirmation link for `name` at `email`: the letter and the token's hash.
    pub fn verify_letter(&self, name: &str, email: &str, language: Language) -> (Letter, String) {
        let token = new_token();
        let link = format!("{}/conta/confirmar#{token}", self.base);
        (
            verify_letter(name, email, &link, language),
            token_hash(&token),
        )
    }
}

impl Sender {
    async fn run(&self, job: Job) {
        let letter = match job {
            Job::Send(letter) => letter,
            Job::Reset { email, language } => {
                let token = new_token();
                match self
                    .store
                    .reset_token(&email, &token_hash(&token), now_ms())
                    .await
                {
                    Ok(Some(name)) => {
                        let link = format!("{}/conta/nova-senha#{token}", self.base);
                        reset_letter(&name, &email, &link, language)
                    }
                    // No account, an address not confirmed, or a link sent moments ago.
                    Ok(None) => return,
                    Err(e) => {
                        tracing::error!(error = %e, "cannot make a new-password link");
                        return;
                    }
                }
            }
        };
        self.send(&letter).await;
    }

    async fn send(&self, letter: &Letter) {
        let Ok(to) = letter.to.parse::<Mailbox>() else {
            tracing::error!("an address that is no mailbox: no message");
            return;
        };
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&letter.subject)
            .multipart(MultiPart::alternative_plain_html(
                letter.text.clone(),
                letter.html.clone(),
            ));
        let message = match message {
            Ok(m) => m,
            Err(e) => {
                tracing::error!(error = %e, "cannot make a message");
                return;
            }
        };
        let mut wait = FIRST_WAIT;
        for attempt in 1..=TRIES {
            match self.smtp.send(message.clone()).await {
                Ok(_) => return,
                // A permanent refusal (5xx: a wrong password, no such mailbox) will not change.
                Err(e) if e.is_permanent() => {
                    tracing::error!(error = %e, "the mail server refused a message");
                    return;
                }
                Err(e) if attempt < TRIES => {
                    tracing::warn!(error = %e, attempt, "a message will be tried again");
                    tokio::time::sleep(wait).await;
                    wait *= 4;
                }
                Err(e) => tracing::error!(error = %e, "a message could not be sent"),
            }
        }
    }
}

/// The text escaped for HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The HTML of a message: its paragraphs, the link as a button-like anchor after the first.
fn html(paragraphs: &[String], link: &str, label: &str) -> String {
    let mut out = String::from(
        "<!doctype html><html><body style=\"font-family:sans-serif;line-height:1.5;max-width:32em\">",
    );
    for (i, p) in paragraphs.iter().enumerate() {
        out.push_str(&format!("<p>{}</p>", escape(p)));
        if i == 0 {
            out.push_str(&format!(
                "<p><a href=\"{}\" style=\"display:inline-block;padding:.6em 1.2em;background:#3b6cf6;color:#fff;border-radius:.4em;text-decoration:none\">{}</a></p>",
                escape(link),
                escape(label)
            ));
        }
    }
    out.push_str("</body></html>");
    out
}

/// The message that confirms `email` as `name`'s.
pub fn verify_letter(name: &str, email: &str, link: &str, language: Language) -> Letter {
    let (subject, hello, ask, label, ignore) = match language {
        Language::Pt => (
            "Confirme o seu e-mail no Cubo da Velha",
            format!("Olá, {name}!"),
            "Para confirmar que este e-mail é seu, abra o link abaixo. Ele vale por 24 horas.",
            "Confirmar o e-mail",
            "Se você não criou uma conta no Cubo da Velha, ignore esta mensagem.",
        ),
        Language::En => (
            "Confirm your e-mail for Cubo da Velha",
            format!("Hello, {name}!"),
            "To confirm this e-mail is yours, open the link below. It works for 24 hours.",
            "Confirm the e-mail",
            "If you did not make an account on Cubo da Velha, ignore this message.",
        ),
    };
    Letter {
        to: email.to_owned(),
        subject: subject.to_owned(),
        text: format!("{hello}\n\n{ask}\n\n{link}\n\n{ignore}\n"),
        html: html(&[format!("{hello} {ask}"), ignore.to_owned()], link, label),
    }
}

/// The message with the link that chooses a new password for `name`.
pub fn reset_letter(name: &str, email: &str, link: &str, language: Language) -> Letter {
    let (subject, asked, after, label, ignore) = match language {
        Language::Pt => (
            "Escolha uma nova senha no Cubo da Velha",
            format!(
                "Pediram uma nova senha para a conta {name}. Para escolhê-la, abra o link abaixo. Ele vale por 30 minutos e uma só vez."
            ),
            "Com a nova senha, todos os aparelhos conectados à conta saem dela.",
            "Escolher a nova senha",
            "Se não foi você quem pediu, ignore esta mensagem: a sua senha continua a mesma.",
        ),
        Language::En => (
            "Choose a new password for Cubo da Velha",
            format!(
                "A new password was asked for the account {name}. To choose it, open the link below. It works for 30 minutes, once."
            ),
            "With the new password, every device signed in to the account is signed out.",
            "Choose the new password",
            "If you did not ask, ignore this message: your password stays the same.",
        ),
    };
    Letter {
        to: email.to_owned(),
        subject: subject.to_owned(),
        text: format!("{asked}\n\n{link}\n\n{after}\n\n{ignore}\n"),
        html: html(&[asked, after.to_owned(), ignore.to_owned()], link, label),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_reads_in_the_players_language_and_escapes_the_name_in_html() {
        let pt = verify_letter(
            "<Ana>",
            "ana@example.com",
            "https://x/conta/confirmar#t",
            Language::of(Some("pt-BR")),
        );
        assert_eq!(pt.subject, "Confirme o seu e-mail no Cubo da Velha");
        assert!(pt.text.starts_with("Olá, <Ana>!"));
        assert!(pt.text.contains("\nhttps://x/conta/confirmar#t\n"));
        assert!(pt.html.contains("Olá, &lt;Ana&gt;!"), "{}", pt.html);
        assert!(!pt.html.contains("<Ana>"));
        assert!(pt.html.contains("href=\"https://x/conta/confirmar#t\""));
        let en = reset_letter(
            "Ana",
            "ana@example.com",
            "https://x/l",
            Language::of(Some("en_US")),
        );
        assert_eq!(en.subject, "Choose a new password for Cubo da Velha");
        assert!(en.text.contains("30 minutes"));
        assert_eq!(Language::of(None), Language::Pt);
    }
}
