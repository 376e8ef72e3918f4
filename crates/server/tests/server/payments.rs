//! ON-A03's subscription bought through Stripe Billing (docs/payments.md), against the
//! stand-in of tests/standins/stripe.py: the server's calls to its API, and its webhook
//! events signed as Stripe signs them, sent on time, twice, at once, out of order and forged.

use reqwest::Method;
use serde_json::{Value, json};
use velha_api::{ErrorCode, Scope};
use velha_load::Client;

use crate::common::{Db, Server, StandIn};

const DAY: i64 = 86_400;

/// The stand-in, a child process for the length of a test.
pub struct Stripe {
    standin: StandIn,
    url: String,
    secret_key: String,
    webhook_secret: String,
    price: String,
    secrets: tempfile::TempDir,
}

impl Stripe {
    pub async fn start() -> Stripe {
        let standin = StandIn::start("stripe.py").await;
        let text = |k: &str| standin.said[k].as_str().unwrap().to_owned();
        Stripe {
            url: text("url"),
            secret_key: text("secret_key"),
            webhook_secret: text("webhook_secret"),
            price: text("price"),
            secrets: tempfile::tempdir().unwrap(),
            standin,
        }
    }

    /// The server's flags for the stand-in, with `more`.
    fn flags(&self, price: Option<&str>, more: &[&str]) -> Vec<String> {
        let key = self.secrets.path().join("key");
        let webhook = self.secrets.path().join("webhook");
        std::fs::write(&key, format!("{}\n", self.secret_key)).unwrap();
        std::fs::write(&webhook, &self.webhook_secret).unwrap();
        let mut flags: Vec<String> = [
            "--payments-provider",
            "stripe",
            "--stripe-api-url",
            &self.url,
            "--stripe-secret-key-file",
            key.to_str().unwrap(),
            "--stripe-webhook-secret-file",
            webhook.to_str().unwrap(),
            "--stripe-price",
            price.unwrap_or(&self.price),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        flags.extend(more.iter().map(|s| s.to_string()));
        flags
    }

    /// A server selling through the stand-in, which sends it its events.
    pub async fn server(&self, db: Db, more: &[&str]) -> Server {
        let flags = self.flags(None, more);
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let server = Server::start(db, &flags).await;
        let cert = server.dir.path().join("dev-cert.pem");
        self.call(
            "configure",
            json!({"webhook_url": format!("{}/api/payments/webhook", server.base),
                   "cafile": cert.to_str().unwrap()}),
        )
        .await;
        server
    }

    pub async fn call(&self, method: &str, args: Value) -> Value {
        self.standin.call(method, args).await
    }

    async fn latest_invoice(&self, subscription: &impl serde::Serialize) -> Value {
        self.call("latest_invoice", json!({"subscription": subscription}))
            .await
    }

    async fn subscription_of(&self, session: &str) -> Value {
        self.call("subscription_of", json!({"session": session}))
            .await
    }

    /// Event ids of a call made with deliver false.
    pub async fn events(&self, method: &str, mut args: Value) -> Vec<String> {
        args["deliver"] = json!(false);
        serde_json::from_value(self.call(method, args).await).unwrap()
    }

    /// Sends events; their statuses.
    pub async fn send(&self, ids: &[String], how: Value) -> Vec<u16> {
        let mut args = how;
        args["ids"] = json!(ids);
        serde_json::from_value(self.call("send", args).await).unwrap()
    }
}

/// The player's checkout: the page's address and the stand-in's session id.
pub async fn checkout(player: &Client) -> (String, String) {
    let (status, page) = player
        .raw(
            Method::POST,
            "/api/subscription/checkout",
            Some(r#"{"locale":"pt-BR"}"#),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{page}");
    let url = page["url"].as_str().unwrap().to_owned();
    let session = url.rsplit('/').next().unwrap().to_owned();
    (url, session)
}

async fn view(player: &Client) -> Value {
    let (status, v) = player
        .raw(Method::GET, "/api/subscription", None)
        .await
        .unwrap();
    assert_eq!(status, 200, "{v}");
    v
}

/// The last day of access (UTC) `s` seconds from now.
fn day_in(s: i64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(velha_server::token::now_ms() / 1000 + s)
        .unwrap();
    format!("{:04}-{:02}-{:02}", t.year(), u8::from(t.month()), t.day())
}

async fn count(server: &Server, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&mut server.database().await)
        .await
        .unwrap()
}

/// A checkout paid `ago` seconds ago by Stripe's clock: the subscription's id at the stand-in.
pub async fn subscribe(stripe: &Stripe, player: &Client, ago: i64) -> String {
    let (_, session) = checkout(player).await;
    stripe.call("advance", json!({"seconds": -ago})).await;
    stripe.call("pay", json!({"session": session})).await;
    stripe.call("advance", json!({"seconds": ago})).await;
    stripe
        .subscription_of(&session)
        .await
        .as_str()
        .unwrap()
        .to_owned()
}

async fn on_a03_a_paid_checkout_opens_online_play_and_a_renewal_extends_it(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &["--payments-grace-hours", "48"]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let before = view(&ana).await;
    assert_eq!(
        before,
        json!({"plans": [{"amount": 990, "currency": "BRL", "period": "month"}],
               "subscriber": false, "until": null, "paid_through": null, "paid": "none",
               "manageable": false})
    );
    let (status, refused) = ana
        .raw(Method::POST, "/api/subscription/portal", Some("{}"))
        .await
        .unwrap();
    assert_eq!(
        (status, refused["code"].as_str()),
        (409, Some("no_customer"))
    );

    let (url, session) = checkout(&ana).await;
    assert!(
        url.starts_with(&format!("{}/pay/cs_test_", stripe.url)),
        "{url}"
    );
    assert!(!ana.me().await.unwrap().subscriber, "opened is not paid");
    stripe.call("pay", json!({"session": session})).await;
    let paid = view(&ana).await;
    assert_eq!(
        (&paid["subscriber"], &paid["paid"], &paid["manageable"]),
        (&json!(true), &json!("renewing"), &json!(true))
    );
    // A month, and the grace for the renewal's payment.
    assert_eq!(paid["paid_through"], json!(day_in(30 * DAY)));
    assert_eq!(paid["until"], json!(day_in(30 * DAY + 2 * DAY)));
    assert!(
        ana.lobby(Scope::Mundial, 1).await.is_ok(),
        "online play opens"
    );
    let (status, again) = ana
        .raw(Method::POST, "/api/subscription/checkout", Some("{}"))
        .await
        .unwrap();
    assert_eq!(
        (status, again["code"].as_str()),
        (409, Some("conflict")),
        "no second subscription: {again}"
    );

    let sub = stripe.subscription_of(&session).await;
    stripe.call("renew", json!({"subscription": sub})).await;
    assert_eq!(view(&ana).await["until"], json!(day_in(60 * DAY + 2 * DAY)));
    let (status, portal) = ana
        .raw(Method::POST, "/api/subscription/portal", Some("{}"))
        .await
        .unwrap();
    assert_eq!(status, 200, "{portal}");
    assert!(
        portal["url"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/portal/bps_", stripe.url))
    );

    // Canceled in the portal: it lasts until the period's end, then ends.
    stripe.call("cancel", json!({"subscription": sub})).await;
    let canceled = view(&ana).await;
    assert_eq!(
        (&canceled["paid"], &canceled["subscriber"]),
        (&json!("canceled"), &json!(true))
    );
    stripe.call("resume", json!({"subscription": sub})).await;
    assert_eq!(view(&ana).await["paid"], "renewing");
    stripe.call("end", json!({"subscription": sub})).await;
    let ended = view(&ana).await;
    assert_eq!(
        (&ended["paid"], &ended["subscriber"]),
        (&json!("none"), &json!(false))
    );
    let e = ana.lobby(Scope::Mundial, 1).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::SubscribersOnly);
}
on_both!(on_a03_a_paid_checkout_opens_online_play_and_a_renewal_extends_it);

async fn on_a03_a_forged_or_stale_notice_is_refused_and_nothing_is_kept(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let (_, session) = checkout(&ana).await;
    let ids = stripe.events("pay", json!({"session": session})).await;
    for how in [
        json!({"signature": "forged"}),
        json!({"signature": "none"}),
        json!({"signature": "tampered"}),
        json!({"age": 301}),
    ] {
        let statuses = stripe.send(&ids, how.clone()).await;
        assert_eq!(statuses, [400, 400, 400], "{how}");
    }
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM payment_events").await,
        0
    );
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM paid_subscriptions").await,
        0
    );
    assert!(!ana.me().await.unwrap().subscriber);
    // Signed, but no event: told so, and nothing kept either.
    let statuses = stripe.send(&ids[..1], json!({"body": "{\"id\": 5}"})).await;
    assert_eq!(statuses, [400]);
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM payment_events").await,
        0
    );
    // The same events a little late but within Stripe's tolerance are taken.
    assert_eq!(
        stripe.send(&ids, json!({"age": 240})).await,
        [200, 200, 200]
    );
    assert!(ana.me().await.unwrap().subscriber);
    // What a sender without the secret reads.
    let (status, said) = server
        .client()
        .raw(Method::POST, "/api/payments/webhook", Some("{}"))
        .await
        .unwrap();
    assert_eq!(
        (status, said["code"].as_str(), said["message"].as_str()),
        (
            400,
            Some("bad_signature"),
            Some("no Stripe-Signature header")
        )
    );
}
on_both!(on_a03_a_forged_or_stale_notice_is_refused_and_nothing_is_kept);

async fn on_a03_the_same_notice_twenty_times_at_once_applies_once(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    for round in 0..5 {
        let player = server.player(&format!("ana{round}"), "pt-BR", None).await;
        let (_, session) = checkout(&player).await;
        let ids = stripe.events("pay", json!({"session": session})).await;
        for id in &ids {
            let statuses = stripe
                .send(
                    std::slice::from_ref(id),
                    json!({"times": 20, "at_once": true}),
                )
                .await;
            assert_eq!(statuses, vec![200; 20], "round {round}");
        }
        assert!(player.me().await.unwrap().subscriber, "round {round}");
    }
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM payment_events").await,
        15
    );
    assert_eq!(count(&server, "SELECT COUNT(*) FROM invoices").await, 5);
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM payment_customers").await,
        5
    );
}
on_both!(on_a03_the_same_notice_twenty_times_at_once_applies_once);

async fn on_a03_notices_out_of_order_end_in_the_providers_order(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    let in_order = server.player("ana", "pt-BR", None).await;
    let shuffled = server.player("bia", "pt-BR", None).await;
    let mut finals = Vec::new();
    for (player, order) in [
        (&in_order, [0, 1, 2, 3, 4, 5]),
        // The end first, then the renewal's invoice, its update, and last the first invoice.
        (&shuffled, [5, 0, 4, 3, 1, 2]),
    ] {
        let (_, session) = checkout(player).await;
        // Made in the last half minute, each later than the one before, as Stripe times them.
        stripe.call("advance", json!({"seconds": -30})).await;
        let mut ids = stripe.events("pay", json!({"session": session})).await;
        let sub = stripe.subscription_of(&session).await;
        stripe.call("advance", json!({"seconds": 10})).await;
        ids.extend(stripe.events("renew", json!({"subscription": sub})).await);
        stripe.call("advance", json!({"seconds": 10})).await;
        ids.extend(stripe.events("end", json!({"subscription": sub})).await);
        stripe.call("advance", json!({"seconds": 10})).await;
        let sent: Vec<String> = order.iter().map(|&i| ids[i].clone()).collect();
        assert_eq!(stripe.send(&sent, json!({})).await, vec![200; 6]);
        finals.push(view(player).await);
    }
    assert_eq!(finals[0], finals[1], "the same end whatever the order");
    assert_eq!(
        (&finals[1]["paid"], &finals[1]["subscriber"]),
        (&json!("none"), &json!(false))
    );
    // An update older than the end, arriving after it, did not bring either back.
    assert_eq!(
        count(
            &server,
            "SELECT COUNT(*) FROM paid_subscriptions WHERE status = 'canceled'"
        )
        .await,
        2
    );
}
on_both!(on_a03_notices_out_of_order_end_in_the_providers_order);

async fn on_a03_a_refused_renewal_lasts_the_grace_then_closes_online_play(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &["--payments-grace-hours", "72"]).await;
    // Within the grace: the period ended a day ago.
    let ana = server.player("ana", "pt-BR", None).await;
    let sub = subscribe(&stripe, &ana, 31 * DAY).await;
    stripe
        .call("renew", json!({"subscription": sub, "paid": false}))
        .await;
    let failed = view(&ana).await;
    assert_eq!(
        (&failed["paid"], &failed["subscriber"], &failed["until"]),
        (
            &json!("payment_failed"),
            &json!(true),
            &json!(day_in(2 * DAY))
        )
    );
    // A new card pays it: renewing again, a month on.
    stripe.call("pay_retry", json!({"subscription": sub})).await;
    let fixed = view(&ana).await;
    assert_eq!(
        (&fixed["paid"], &fixed["until"]),
        (&json!("renewing"), &json!(day_in(29 * DAY + 3 * DAY)))
    );

    // Past the grace: the period ended four days ago and the renewal was refused.
    let bia = server.player("bia", "pt-BR", None).await;
    let sub = subscribe(&stripe, &bia, 34 * DAY).await;
    stripe
        .call("renew", json!({"subscription": sub, "paid": false}))
        .await;
    let closed = view(&bia).await;
    assert_eq!(
        (&closed["subscriber"], &closed["paid"]),
        (&json!(false), &json!("payment_failed")),
        "closed, and still Stripe's to retry: the card is updated in the portal"
    );
    let (status, e) = bia
        .raw(Method::POST, "/api/subscription/checkout", Some("{}"))
        .await
        .unwrap();
    assert_eq!(
        (status, e["code"].as_str()),
        (409, Some("conflict")),
        "no second subscription"
    );
    let e = bia.lobby(Scope::Mundial, 1).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::SubscribersOnly);
}
on_both!(on_a03_a_refused_renewal_lasts_the_grace_then_closes_online_play);

async fn on_a03_a_refund_or_a_dispute_ends_access(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let sub = subscribe(&stripe, &ana, 0).await;
    let invoice = stripe.latest_invoice(&sub).await;
    stripe
        .call("refund", json!({"invoice": invoice, "amount": 100}))
        .await;
    assert!(
        ana.me().await.unwrap().subscriber,
        "a partial refund is a discount"
    );
    stripe.call("refund", json!({"invoice": invoice})).await;
    assert!(!ana.me().await.unwrap().subscriber, "refunded in full");

    let bia = server.player("bia", "pt-BR", None).await;
    let sub = subscribe(&stripe, &bia, 0).await;
    let invoice = stripe.latest_invoice(&sub).await;
    stripe.call("dispute", json!({"invoice": invoice})).await;
    assert!(!bia.me().await.unwrap().subscriber, "disputed");
    stripe
        .call("dispute", json!({"invoice": invoice, "outcome": "won"}))
        .await;
    assert!(bia.me().await.unwrap().subscriber, "the dispute won");

    // A refund told before the invoice it refunds still counts once the invoice comes.
    let caio = server.player("caio", "pt-BR", None).await;
    let (_, session) = checkout(&caio).await;
    let paid = stripe.events("pay", json!({"session": session})).await;
    let sub = stripe.subscription_of(&session).await;
    let invoice = stripe.latest_invoice(&sub).await;
    let refund = stripe.events("refund", json!({"invoice": invoice})).await;
    assert_eq!(stripe.send(&refund, json!({})).await, [200]);
    assert_eq!(stripe.send(&paid, json!({})).await, [200, 200, 200]);
    assert!(!caio.me().await.unwrap().subscriber);
}
on_both!(on_a03_a_refund_or_a_dispute_ends_access);

async fn on_a03_an_operators_grant_and_a_paid_plan_never_fight(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &["--payments-grace-hours", "0"]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    subscribe(&stripe, &ana, 0).await;
    let paid_until = json!(day_in(30 * DAY));
    assert_eq!(view(&ana).await["until"], paid_until);
    let (ok, said) = server
        .admin(&["subscription", "grant", "ana", "--until", "2099-12-31"])
        .await;
    assert!(ok, "{said}");
    assert_eq!(view(&ana).await["until"], "2099-12-31", "the longer counts");
    let (ok, said) = server.admin(&["subscription", "revoke", "ana"]).await;
    assert!(ok, "{said}");
    assert!(said.contains("a paid subscription lasts through"), "{said}");
    let back = view(&ana).await;
    assert_eq!(
        (&back["until"], &back["paid"], &back["subscriber"]),
        (&paid_until, &json!("renewing"), &json!(true)),
        "revoking the grant leaves what was paid"
    );
    // A grant shorter than the paid period changes nothing; the paid end changes not it.
    let tomorrow = day_in(DAY);
    server
        .admin(&["subscription", "grant", "ana", "--until", &tomorrow])
        .await;
    assert_eq!(view(&ana).await["until"], paid_until);
    let bia = server.player("bia", "pt-BR", Some("2099-12-31")).await;
    let granted = view(&bia).await;
    assert_eq!(
        (&granted["subscriber"], &granted["paid"], &granted["until"]),
        (&json!(true), &json!("none"), &json!("2099-12-31"))
    );
    // Several at once: each one named is granted, and an unknown name is said and fails.
    let carla = server.player("carla", "pt-BR", None).await;
    let (ok, said) = server
        .admin(&[
            "subscription",
            "grant",
            "carla",
            "nobody-here",
            "bia",
            "--until",
            "2098-01-31",
        ])
        .await;
    assert!(!ok, "{said}");
    assert!(
        said.contains("no player is named \"nobody-here\""),
        "{said}"
    );
    assert_eq!(view(&carla).await["until"], "2098-01-31");
    assert_eq!(view(&bia).await["until"], "2098-01-31");
}
on_both!(on_a03_an_operators_grant_and_a_paid_plan_never_fight);

async fn on_a03_ten_checkouts_asked_at_once_open_one_session(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    let mut opened = 0;
    for round in 0..5 {
        let player = server.player(&format!("ana{round}"), "pt-BR", None).await;
        let urls = futures_util::future::join_all((0..10).map(|_| checkout(&player))).await;
        opened += 1;
        assert!(
            urls.iter().all(|u| u == &urls[0]),
            "round {round}: {urls:?}"
        );
        assert_eq!(
            stripe.call("opened_checkouts", json!({})).await,
            json!(opened),
            "round {round}"
        );
        // Once that page has closed unpaid, the next ask opens another.
        stripe.call("expire", json!({"session": urls[0].1})).await;
        let (_, next) = checkout(&player).await;
        assert_ne!(next, urls[0].1, "round {round}");
        opened += 1;
    }
    assert_eq!(count(&server, "SELECT COUNT(*) FROM checkouts").await, 5);
}
on_both!(on_a03_ten_checkouts_asked_at_once_open_one_session);

async fn on_a03_without_a_provider_nothing_is_on_sale_and_its_failures_are_said(db: Db) {
    let server = Server::start(db.clone(), &[]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    assert_eq!(view(&ana).await["plans"], json!([]));
    for path in ["/api/subscription/checkout", "/api/subscription/portal"] {
        let (status, e) = ana.raw(Method::POST, path, Some("{}")).await.unwrap();
        assert_eq!(
            (status, e["code"].as_str()),
            (503, Some("payments_unavailable"))
        );
    }
    let (status, _) = server
        .client()
        .raw(Method::GET, "/api/subscription", None)
        .await
        .unwrap();
    assert_eq!(status, 401);

    // A provider that refuses (a price it does not sell): said, and the claim given back so
    // the next ask tries again rather than waiting on it.
    let stripe = Stripe::start().await;
    let flags = stripe.flags(Some("price_gone"), &[]);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let server = Server::start(db, &flags).await;
    let bia = server.player("bia", "pt-BR", None).await;
    for _ in 0..2 {
        let (status, e) = bia
            .raw(Method::POST, "/api/subscription/checkout", Some("{}"))
            .await
            .unwrap();
        assert_eq!(
            (status, e["code"].as_str()),
            (503, Some("payments_unavailable"))
        );
    }
    assert_eq!(count(&server, "SELECT COUNT(*) FROM checkouts").await, 0);
}
on_both!(on_a03_without_a_provider_nothing_is_on_sale_and_its_failures_are_said);

async fn on_a03_a_player_cannot_make_the_server_spend_the_providers_rate_limit(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    subscribe(&stripe, &ana, 0).await;
    let asks = futures_util::future::join_all(
        (0..40).map(|_| ana.raw(Method::POST, "/api/subscription/portal", Some("{}"))),
    )
    .await;
    let statuses: Vec<u16> = asks.iter().map(|a| a.as_ref().unwrap().0).collect();
    // The checkout took one of the hour's 30 pages.
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        29,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 429).count(),
        11,
        "{statuses:?}"
    );
}
on_both!(on_a03_a_player_cannot_make_the_server_spend_the_providers_rate_limit);

async fn on_a03_notices_of_one_second_end_further_on_whatever_their_order(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    for round in 0..3 {
        let player = server.player(&format!("ana{round}"), "pt-BR", None).await;
        let (_, session) = checkout(&player).await;
        // Made incomplete, its invoice paid, then active: one second, told backwards.
        let mut ids = stripe
            .events("pay", json!({"session": session, "confirmed_later": true}))
            .await;
        ids.reverse();
        assert_eq!(stripe.send(&ids, json!({})).await, [200; 4]);
        let seen = view(&player).await;
        assert_eq!(
            (&seen["subscriber"], &seen["paid"]),
            (&json!(true), &json!("renewing")),
            "round {round}"
        );
    }
}
on_both!(on_a03_notices_of_one_second_end_further_on_whatever_their_order);

async fn on_a03_an_inquiry_takes_nothing_and_a_won_dispute_undoes_no_refund(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let sub = subscribe(&stripe, &ana, 0).await;
    let invoice = stripe.latest_invoice(&sub).await;
    stripe
        .call("dispute", json!({"invoice": invoice, "inquiry": true}))
        .await;
    assert!(
        ana.me().await.unwrap().subscriber,
        "an inquiry takes no money"
    );
    stripe
        .call(
            "dispute",
            json!({"invoice": invoice, "inquiry": true, "outcome": "closed"}),
        )
        .await;
    assert!(ana.me().await.unwrap().subscriber);
    // Refunded, then a dispute on the same payment won: the refund still stands.
    stripe.call("refund", json!({"invoice": invoice})).await;
    stripe
        .call("dispute", json!({"invoice": invoice, "outcome": "won"}))
        .await;
    assert!(!ana.me().await.unwrap().subscriber);
}
on_both!(on_a03_an_inquiry_takes_nothing_and_a_won_dispute_undoes_no_refund);

async fn on_a03_a_refund_told_with_its_invoice_at_once_still_counts(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    for round in 0..8 {
        let player = server.player(&format!("ana{round}"), "pt-BR", None).await;
        let (_, session) = checkout(&player).await;
        let paid = stripe.events("pay", json!({"session": session})).await;
        assert_eq!(stripe.send(&paid[..2], json!({})).await, [200, 200]);
        let sub = stripe.subscription_of(&session).await;
        let invoice = stripe.latest_invoice(&sub).await;
        let refund = stripe.events("refund", json!({"invoice": invoice})).await;
        let both = [paid[2].clone(), refund[0].clone()];
        assert_eq!(
            stripe.send(&both, json!({"together": true})).await,
            [200, 200]
        );
        assert!(!player.me().await.unwrap().subscriber, "round {round}");
    }
}
on_both!(on_a03_a_refund_told_with_its_invoice_at_once_still_counts);

async fn on_a03_a_customer_erased_at_the_provider_does_not_lock_the_player_out(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let (_, first) = checkout(&ana).await;
    stripe.call("pay", json!({"session": first})).await;
    let sub = stripe.subscription_of(&first).await;
    stripe.call("end", json!({"subscription": sub})).await;
    let customer = stripe
        .call("customer_of_session", json!({"session": first}))
        .await;
    stripe
        .call("erase_customer", json!({"customer": customer}))
        .await;
    let (_, second) = checkout(&ana).await;
    let made = stripe.call("session", json!({"session": second})).await;
    assert_eq!(
        (&made["customer"], &made["customer_email"]),
        (&Value::Null, &json!("ana@example.com")),
        "asked again without the erased customer"
    );
    stripe.call("pay", json!({"session": second})).await;
    assert!(ana.me().await.unwrap().subscriber);
}
on_both!(on_a03_a_customer_erased_at_the_provider_does_not_lock_the_player_out);
