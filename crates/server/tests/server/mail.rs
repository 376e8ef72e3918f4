//! E-mail (docs/mail.md, ON-A01): confirming an address and choosing a new password, through a
//! real SMTP server standing in for the provider (tests/standins/smtp.py, which requires AUTH
//! and parses every message as MIME).

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use velha_api::ErrorCode;
use velha_load::Client;

use crate::common::{Db, Server, StandIn};

const PASSWORD: &str = "cubo-gira-9";

struct Mail {
    standin: StandIn,
}

impl Mail {
    async fn start() -> Mail {
        Mail {
            standin: StandIn::start("smtp.py").await,
        }
    }

    fn smtp_url(&self) -> String {
        self.standin.said["smtp_url"].as_str().unwrap().to_owned()
    }

    fn flags(&self) -> Vec<String> {
        [
            "--smtp-url",
            &self.smtp_url(),
            "--mail-from",
            "Cubo da Velha <no-reply@velha.test>",
            "--public-url",
            "https://velha.test",
            "--signups-per-address-per-hour",
            "100000",
            "--mails-per-address-per-hour",
            "100000",
        ]
        .map(String::from)
        .to_vec()
    }

    async fn server(&self, db: Db) -> Server {
        let flags = self.flags();
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        Server::start(db, &flags).await
    }

    /// The messages to `to`, once at least `at_least` came (or after a while).
    async fn inbox(&self, to: &str, at_least: usize) -> Vec<Value> {
        for _ in 0..100 {
            let seen = self
                .standin
                .call("messages", json!({"to": to}))
                .await
                .as_array()
                .unwrap()
                .clone();
            if seen.len() >= at_least {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        self.standin
            .call("messages", json!({"to": to}))
            .await
            .as_array()
            .unwrap()
            .clone()
    }
}

/// The token of the link in a message: after `path#`.
fn token_in(message: &Value, path: &str) -> String {
    let text = message["text"].as_str().unwrap();
    let at = text
        .find(&format!("https://velha.test{path}#"))
        .unwrap_or_else(|| panic!("no {path} link in {text}"));
    let rest = &text[at..];
    let link = rest.split_whitespace().next().unwrap();
    assert!(
        message["html"]
            .as_str()
            .unwrap()
            .contains(&format!("href=\"{link}\"")),
        "the HTML has the same link"
    );
    link.split_once('#').unwrap().1.to_owned()
}

async fn post(c: &Client, path: &str, body: Value) -> (u16, Value) {
    c.raw(Method::POST, path, Some(&body.to_string()))
        .await
        .unwrap()
}

fn code(e: &Value) -> ErrorCode {
    serde_json::from_value(e["code"].clone()).unwrap()
}

async fn signed_up(server: &Server, name: &str, region: &str) -> (Client, String) {
    let mut c = server.client();
    let email = format!("{name}@example.com");
    c.sign_up(&email, PASSWORD, name, region).await.unwrap();
    (c, email)
}

/// A new account, its e-mail confirmed through the link it was sent.
async fn confirmed(server: &Server, mail: &Mail, name: &str) -> (Client, String) {
    let (c, email) = signed_up(server, name, "pt-BR").await;
    let sent = mail.inbox(&email, 1).await;
    let token = token_in(&sent[0], "/conta/confirmar");
    assert_eq!(
        post(&c, "/api/email/verify", json!({"token": token}))
            .await
            .0,
        200
    );
    (c, email)
}

async fn on_a01_a_new_accounts_email_is_confirmed_by_its_link_once(db: Db) {
    let mail = Mail::start().await;
    let server = mail.server(db).await;
    let (ana, email) = signed_up(&server, "ana", "pt-BR").await;
    assert!(!ana.me().await.unwrap().email_verified);
    let sent = mail.inbox(&email, 1).await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    let message = &sent[0];
    assert_eq!(message["subject"], "Confirme o seu e-mail no Cubo da Velha");
    assert_eq!(message["from"], "Cubo da Velha <no-reply@velha.test>");
    assert_eq!(message["mail_from"], "no-reply@velha.test");
    assert!(message["text"].as_str().unwrap().starts_with("Olá, ana!"));
    let token = token_in(message, "/conta/confirmar");

    // A forged token, then the right one from any device (no session), then it again.
    let anyone = server.client();
    let (status, e) = post(&anyone, "/api/email/verify", json!({"token": "made-up"})).await;
    assert_eq!((status, code(&e)), (400, ErrorCode::BadLink), "{e}");
    assert!(e["message"].as_str().unwrap().contains("not one we sent"));
    let (status, ok) = post(&anyone, "/api/email/verify", json!({"token": token})).await;
    assert_eq!((status, &ok), (200, &json!({"email": email})));
    assert!(ana.me().await.unwrap().email_verified);
    let (status, e) = post(&anyone, "/api/email/verify", json!({"token": token})).await;
    assert_eq!((status, code(&e)), (400, ErrorCode::BadLink));
    assert!(
        e["message"].as_str().unwrap().contains("used already"),
        "{e}"
    );
    // Nothing to confirm again.
    let (status, e) = post(&ana, "/api/me/email/verification", json!({})).await;
    assert_eq!((status, code(&e)), (409, ErrorCode::Conflict), "{e}");

    // An English phone's account reads English; "Reenviar" at once is one too many.
    let (bob, bob_email) = signed_up(&server, "bob", "en_US").await;
    let sent = mail.inbox(&bob_email, 1).await;
    assert_eq!(sent[0]["subject"], "Confirm your e-mail for Cubo da Velha");
    let (status, e) = post(
        &bob,
        "/api/me/email/verification",
        json!({"language": "en"}),
    )
    .await;
    assert_eq!((status, code(&e)), (429, ErrorCode::RateLimited), "{e}");
    // A link past its 24 hours says so.
    let token = token_in(&sent[0], "/conta/confirmar");
    sqlx::query("UPDATE email_tokens SET expires_at = 0")
        .execute(&mut server.database().await)
        .await
        .unwrap();
    let (status, e) = post(&anyone, "/api/email/verify", json!({"token": token})).await;
    assert_eq!((status, code(&e)), (400, ErrorCode::BadLink));
    assert!(e["message"].as_str().unwrap().contains("expired"), "{e}");
    assert!(!bob.me().await.unwrap().email_verified);
}
on_both!(on_a01_a_new_accounts_email_is_confirmed_by_its_link_once);

async fn on_a01_a_forgotten_password_is_chosen_anew_by_a_link_that_signs_out_everywhere(db: Db) {
    let mail = Mail::start().await;
    let server = mail.server(db).await;
    let (ana, email) = confirmed(&server, &mail, "ana").await;
    let mut other_device = server.client();
    other_device.log_in(&email, PASSWORD).await.unwrap();
    // An address nobody has, and Ana's: the same answer, in about the same time.
    let anyone = server.client();
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    for i in 0..20 {
        for (address, times) in [
            ("ninguem@example.com", &mut unknown),
            (email.as_str(), &mut known),
        ] {
            let t = Instant::now();
            let (status, body) = post(
                &anyone,
                "/api/password/forgot",
                json!({"email": address.to_uppercase(), "language": "pt-BR"}),
            )
            .await;
            times.push(t.elapsed().as_micros() as u64);
            assert_eq!((status, &body), (202, &Value::Null), "round {i}");
        }
    }
    known.sort_unstable();
    unknown.sort_unstable();
    eprintln!(
        "forgot-password answer, median of 20: known e-mail {} µs, unknown {} µs",
        known[10], unknown[10]
    );
    // Twenty asks for Ana's address sent her one link (one each 5 minutes), nobody else any.
    let sent = mail.inbox(&email, 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let sent_after = mail.inbox(&email, 2).await;
    assert_eq!(sent.len(), 2, "the confirmation and one link: {sent:?}");
    assert_eq!(sent_after.len(), 2);
    assert!(mail.inbox("ninguem@example.com", 1).await.is_empty());
    let message = &sent[1];
    assert_eq!(
        message["subject"],
        "Escolha uma nova senha no Cubo da Velha"
    );
    let token = token_in(message, "/conta/nova-senha");

    // A weak password is refused and leaves the link usable; a good one signs this device in
    // and every other one out.
    let (status, e) = post(
        &anyone,
        "/api/password/reset",
        json!({"token": token, "password": "12345678"}),
    )
    .await;
    assert_eq!((status, code(&e)), (400, ErrorCode::WeakPassword), "{e}");
    let (status, session) = post(
        &anyone,
        "/api/password/reset",
        json!({"token": token, "password": "nova-senha-do-cubo-7"}),
    )
    .await;
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["account"]["name"], "ana");
    assert!(session["token"].is_string());
    for signed_out in [&ana, &other_device] {
        assert_eq!(
            signed_out.me().await.unwrap_err().code,
            ErrorCode::Unauthorized
        );
    }
    let mut again = server.client();
    assert_eq!(
        again.log_in(&email, PASSWORD).await.unwrap_err().code,
        ErrorCode::WrongPassword
    );
    again.log_in(&email, "nova-senha-do-cubo-7").await.unwrap();
    let (status, e) = post(
        &anyone,
        "/api/password/reset",
        json!({"token": token, "password": "outra-senha-do-cubo-8"}),
    )
    .await;
    assert_eq!((status, code(&e)), (400, ErrorCode::BadLink));
    assert!(e["message"].as_str().unwrap().contains("used already"));

    // An address never confirmed gets no link: whoever made the account may not own it.
    let (_, unconfirmed) = signed_up(&server, "bia", "pt-BR").await;
    assert_eq!(
        post(
            &anyone,
            "/api/password/forgot",
            json!({"email": unconfirmed})
        )
        .await
        .0,
        202
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        mail.inbox(&unconfirmed, 2).await.len(),
        1,
        "the confirmation only"
    );
}
on_both!(on_a01_a_forgotten_password_is_chosen_anew_by_a_link_that_signs_out_everywhere);

async fn on_a01_ten_reset_requests_at_once_send_one_link(db: Db) {
    let mail = Mail::start().await;
    let server = mail.server(db).await;
    let anyone = server.client();
    for round in 0..5 {
        let (_, email) = confirmed(&server, &mail, &format!("jogador{round}")).await;
        let asks = (0..10).map(|_| {
            let (c, email) = (anyone.clone(), email.clone());
            async move {
                post(&c, "/api/password/forgot", json!({"email": email}))
                    .await
                    .0
            }
        });
        assert!(join_all(asks).await.iter().all(|s| *s == 202));
        let sent = mail.inbox(&email, 2).await;
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(
            mail.inbox(&email, 3).await.len(),
            2,
            "round {round}: the confirmation and one link, {sent:?}"
        );
    }
    // A mail server failing for a moment: the message is tried again and arrives.
    mail.standin.call("fail", json!({"n": 1})).await;
    let (_, email) = signed_up(&server, "late", "pt-BR").await;
    assert_eq!(mail.inbox(&email, 1).await.len(), 1);
}
on_both!(on_a01_ten_reset_requests_at_once_send_one_link);

async fn on_a01_without_smtp_nothing_is_offered_that_needs_email(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let (_, options) = c
        .raw(Method::GET, "/api/sign-in-options", None)
        .await
        .unwrap();
    assert_eq!(options["email"], false);
    let (status, e) = post(
        &c,
        "/api/password/forgot",
        json!({"email": "ana@example.com"}),
    )
    .await;
    assert_eq!((status, code(&e)), (503, ErrorCode::MailUnavailable), "{e}");
}
on_both!(on_a01_without_smtp_nothing_is_offered_that_needs_email);

async fn on_a03_subscribing_needs_a_confirmed_email_where_email_is_sent(db: Db) {
    let mail = Mail::start().await;
    let stripe = crate::payments::Stripe::start().await;
    let flags = mail.flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let server = stripe.server(db, &flags).await;
    let (ana, email) = signed_up(&server, "ana", "pt-BR").await;
    let (status, e) = post(
        &ana,
        "/api/subscription/checkout",
        json!({"locale": "pt-BR"}),
    )
    .await;
    assert_eq!((status, code(&e)), (403, ErrorCode::EmailUnverified), "{e}");
    let sent = mail.inbox(&email, 1).await;
    let token = token_in(&sent[0], "/conta/confirmar");
    assert_eq!(
        post(&ana, "/api/email/verify", json!({"token": token}))
            .await
            .0,
        200
    );
    let (url, _) = crate::payments::checkout(&ana).await;
    assert!(url.starts_with("http"), "{url}");
}
on_both!(on_a03_subscribing_needs_a_confirmed_email_where_email_is_sent);
