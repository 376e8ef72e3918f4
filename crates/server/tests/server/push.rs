//! Push subscriptions (docs/push.md, CLASSIC-R09's notice while the app is closed): the VAPID
//! key, and who may be told of which seats, at most 10 devices each under requests at once.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Method;
use serde_json::{Value, json};
use velha_api::{Avatar, RoomBoard};
use velha_load::Client;

use crate::common::{Db, Server};

const SERVICE: &str = "http://127.0.0.1:9";

async fn server(db: Db) -> Server {
    Server::start(
        db,
        &[
            "--push-services",
            &format!("https://fcm.googleapis.com,{SERVICE}"),
        ],
    )
    .await
}

/// A browser's subscription as `PushSubscription.toJSON()` gives it, for `credentials`.
fn device(credentials: &[&str]) -> Value {
    let mut point = vec![4u8];
    point.extend((0..64).map(|_| rand_byte()));
    let auth: Vec<u8> = (0..16).map(|_| rand_byte()).collect();
    json!({
        "endpoint": format!("{SERVICE}/push/{}", velha_server::token::random_text(12)),
        "keys": {"p256dh": URL_SAFE_NO_PAD.encode(point), "auth": URL_SAFE_NO_PAD.encode(auth)},
        "credentials": credentials,
        "language": "pt-BR",
    })
}

fn rand_byte() -> u8 {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).unwrap();
    b[0]
}

async fn subscribe(c: &Client, body: &Value) -> (u16, Value) {
    c.raw(
        Method::POST,
        "/api/push/subscriptions",
        Some(&body.to_string()),
    )
    .await
    .unwrap()
}

async fn count(server: &Server, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&mut server.database().await)
        .await
        .unwrap()
}

async fn classic_r09_only_a_seat_or_an_account_is_told_and_endpoints_go_nowhere_else(db: Db) {
    let mut server = server(db).await;
    let (status, key) = server
        .client()
        .raw(Method::GET, "/api/push/key", None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let public = URL_SAFE_NO_PAD
        .decode(key["public_key"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        (public.len(), public[0]),
        (65, 4),
        "an uncompressed P-256 point"
    );
    server.restart().await;
    let (_, again) = server
        .client()
        .raw(Method::GET, "/api/push/key", None)
        .await
        .unwrap();
    assert_eq!(
        again, key,
        "the same key after a restart: subscriptions outlive it"
    );

    let c = server.client();
    let room = c
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let body = device(&[&room.credential]);
    let (status, kept) = subscribe(&c, &body).await;
    assert_eq!((status, kept["seats"].as_u64()), (201, Some(1)), "{kept}");
    assert_eq!(
        kept.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["id", "seats"],
        "the endpoint and keys are never answered"
    );
    // The same device again (a new room joined): the same subscription, its seats replaced.
    let other = c.create_room(RoomBoard::Super, "Ana", None).await.unwrap();
    let mut more = body.clone();
    more["credentials"] = json!([room.credential, other.credential]);
    let (status, replaced) = subscribe(&c, &more).await;
    assert_eq!((status, &replaced["id"]), (201, &kept["id"]));
    assert_eq!(count(&server, "SELECT COUNT(*) FROM push_seats").await, 2);

    for (change, code) in [
        (json!({"credentials": ["x".repeat(40)]}), "forbidden"),
        (json!({"credentials": []}), "bad_request"),
        (
            json!({"endpoint": "http://169.254.169.254/latest/meta-data"}),
            "bad_request",
        ),
        (
            json!({"endpoint": "https://fcm.googleapis.com.evil.example/x"}),
            "bad_request",
        ),
        (
            json!({"keys": {"p256dh": "AAAA", "auth": URL_SAFE_NO_PAD.encode([1u8; 16])}}),
            "bad_request",
        ),
        (json!({"credentials": vec!["c"; 101]}), "bad_request"),
    ] {
        let mut bad = device(&[&room.credential]);
        for (k, v) in change.as_object().unwrap() {
            bad[k] = v.clone();
        }
        let (status, refused) = subscribe(&c, &bad).await;
        assert_eq!(refused["code"], code, "{change}: {status} {refused}");
    }
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM push_subscriptions").await,
        1
    );

    // A signed-in player needs no seat.
    let bia = server.player("bia", "pt-BR", None).await;
    let (status, _) = subscribe(&bia, &device(&[])).await;
    assert_eq!(status, 201);

    let id = kept["id"].as_str().unwrap();
    let gone = c
        .raw(
            Method::DELETE,
            &format!("/api/push/subscriptions/{id}"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(gone.0, 204);
    let again = c
        .raw(
            Method::DELETE,
            &format!("/api/push/subscriptions/{id}"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        (again.0, again.1["code"].as_str()),
        (404, Some("not_found"))
    );
    assert_eq!(count(&server, "SELECT COUNT(*) FROM push_seats").await, 0);
}
on_both!(classic_r09_only_a_seat_or_an_account_is_told_and_endpoints_go_nowhere_else);

/// Twenty new devices at once for `who` (the seat's credential, or none for the account):
/// exactly ten kept, the rest refused as too many.
async fn twenty_at_once(who: &Client, credentials: &[&str], what: &str) {
    let answers = futures_util::future::join_all((0..20).map(|_| {
        let body = device(credentials);
        async move { subscribe(who, &body).await }
    }))
    .await;
    assert_eq!(
        answers.iter().filter(|(s, _)| *s == 201).count(),
        10,
        "{what}: {answers:?}"
    );
    for (status, answer) in answers.iter().filter(|(s, _)| *s != 201) {
        assert_eq!(
            (*status, answer["code"].as_str()),
            (409, Some("too_many_subscriptions")),
            "{what}"
        );
    }
}

async fn classic_r09_twenty_devices_at_once_leave_ten_per_seat_and_account(db: Db) {
    let server = server(db).await;
    let c = server.client();
    for round in 0..10 {
        let room = c
            .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
            .await
            .unwrap();
        twenty_at_once(&c, &[&room.credential], &format!("seat, round {round}")).await;
        let player = server.player(&format!("ana{round}"), "pt-BR", None).await;
        twenty_at_once(&player, &[], &format!("account, round {round}")).await;
    }
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM push_subscriptions").await,
        200
    );
}
on_both!(classic_r09_twenty_devices_at_once_leave_ten_per_seat_and_account);
