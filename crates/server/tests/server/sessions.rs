//! Where a player is signed in (docs/accounts.md): the list of sessions with the kind of
//! device and the country the proxy named, signing out one or every other, and a new password
//! that needs the current one and signs out the other sessions.

use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

use velha_api::{ClientMsg, ErrorCode, ServerMsg};
use velha_load::{Client, Live};

use crate::common::{Db, Server};

const ANDROID: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 \
                       (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) \
                      AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 \
                      Safari/604.1";

/// Signs in as `email` from a device (its User-Agent, and the country the proxy says): the
/// session's token.
async fn sign_in(c: &Client, email: &str, password: &str, agent: &str, country: &str) -> String {
    let (status, _, session) = c
        .raw_with_headers(
            Method::POST,
            "/api/sessions",
            &[("user-agent", agent), ("x-country", country)],
            Some(&json!({"email": email, "password": password}).to_string()),
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{session}");
    session["token"].as_str().unwrap().to_owned()
}

/// A request as the session of `token`: the status and the body.
async fn ask(
    c: &Client,
    token: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let bearer = format!("Bearer {token}");
    let body = body.map(|b| b.to_string());
    let (status, _, answer) = c
        .raw_with_headers(method, path, &[("authorization", &bearer)], body.as_deref())
        .await
        .unwrap();
    (status, answer)
}

/// The live connection of the session of `token`, welcomed.
async fn live_of(c: &Client, token: &str) -> Live {
    let mut signed_in = c.another();
    signed_in.token = Some(token.to_owned());
    let mut live = signed_in.live().await.unwrap();
    live.recv_until(Duration::from_secs(5), |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await
    .unwrap();
    live
}

/// The connection is told its session was signed out, and closed.
async fn signed_out(live: &mut Live) {
    let told = live
        .recv_until(Duration::from_secs(5), |m| {
            matches!(
                m,
                ServerMsg::Error {
                    code: ErrorCode::Unauthorized,
                    ..
                }
            )
        })
        .await;
    assert!(told.is_ok(), "{told:?}");
    assert!(live.closed(Duration::from_secs(5)).await.is_ok());
}

async fn on_a01_a_player_sees_where_they_are_signed_in_and_signs_out_one_or_the_others(db: Db) {
    let server = Server::start(db, &["--country-header", "X-Country"]).await;
    server.player("Ana", "pt-BR", None).await;
    server.player("Bia", "pt-BR", None).await;
    let c = server.client();
    let email = "Ana@example.com";
    let phone = sign_in(&c, email, "cubo-gira-9", ANDROID, "BR").await;
    let tablet = sign_in(&c, email, "cubo-gira-9", IPHONE, "PT").await;
    let laptop = sign_in(&c, email, "cubo-gira-9", "curl/8.5.0", "XX").await;
    let bia = sign_in(&c, "Bia@example.com", "cubo-gira-9", ANDROID, "BR").await;

    let (status, list) = ask(&c, &phone, Method::GET, "/api/me/sessions", None).await;
    assert_eq!(status, 200, "{list}");
    let list = list.as_array().unwrap().clone();
    // The sign-up's session, and the three sign-ins: Bia's is not Ana's to see.
    assert_eq!(list.len(), 4, "{list:?}");
    let find = |device: Option<&str>, country: Option<&str>| {
        list.iter()
            .filter(|s| s["device"].as_str() == device && s["country"].as_str() == country)
            .cloned()
            .collect::<Vec<_>>()
    };
    let on_phone = find(Some("Chrome · Android"), Some("BR"));
    assert_eq!(on_phone.len(), 1, "{list:?}");
    assert_eq!(on_phone[0]["this"], true);
    let on_tablet = find(Some("Safari · iPhone"), Some("PT"));
    assert_eq!((on_tablet.len(), &on_tablet[0]["this"]), (1, &json!(false)));
    assert_eq!(
        find(None, None).len(),
        2,
        "curl names no device; XX and no header name no country"
    );
    for s in &list {
        let keys: Vec<&str> = s.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, ["country", "device", "id", "seen", "since", "this"]);
        assert!(s["seen"].as_i64() >= s["since"].as_i64());
        let id = s["id"].as_str().unwrap();
        assert!(!phone.contains(id) && !tablet.contains(id) && !laptop.contains(id));
    }

    // The tablet is signed out from the phone: its token stops working at once, and its live
    // connection is told so and closed.
    let mut live = live_of(&c, &tablet).await;
    let tablet_id = on_tablet[0]["id"].as_str().unwrap();
    let path = format!("/api/me/sessions/{tablet_id}");
    assert_eq!(ask(&c, &phone, Method::DELETE, &path, None).await.0, 204);
    assert_eq!(ask(&c, &tablet, Method::GET, "/api/me", None).await.0, 401);
    signed_out(&mut live).await;
    let (status, gone) = ask(&c, &phone, Method::DELETE, &path, None).await;
    assert_eq!((status, &gone["code"]), (404, &json!("not_found")));
    // Bia cannot sign Ana out, nor see that the id is one.
    let phone_id = on_phone[0]["id"].as_str().unwrap();
    let (status, _) = ask(
        &c,
        &bia,
        Method::DELETE,
        &format!("/api/me/sessions/{phone_id}"),
        None,
    )
    .await;
    assert_eq!(status, 404);
    assert_eq!(ask(&c, &phone, Method::GET, "/api/me", None).await.0, 200);

    // Every other: the laptop and the sign-up's session; the phone and Bia go on.
    assert_eq!(
        ask(&c, &phone, Method::DELETE, "/api/me/sessions", None)
            .await
            .0,
        204
    );
    assert_eq!(ask(&c, &laptop, Method::GET, "/api/me", None).await.0, 401);
    let (_, left) = ask(&c, &phone, Method::GET, "/api/me/sessions", None).await;
    assert_eq!(left.as_array().unwrap().len(), 1);
    assert_eq!(ask(&c, &bia, Method::GET, "/api/me", None).await.0, 200);
    // Without a session: nothing to list.
    let (status, _) = c.raw(Method::GET, "/api/me/sessions", None).await.unwrap();
    assert_eq!(status, 401);
}
on_both!(on_a01_a_player_sees_where_they_are_signed_in_and_signs_out_one_or_the_others);

/// Two processes on one PostgreSQL: a session signed out through one closes its live
/// connection held by the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a01_signing_out_through_one_process_closes_the_socket_on_another() {
    let Some(db) = Db::postgres().await else {
        return;
    };
    let a = Server::start(db.clone(), &[]).await;
    let b = a.beside(db, &[]).await;
    a.player("Ana", "pt-BR", None).await;
    let on_a = a.client();
    let on_b = on_a.at(&b.base);
    let email = "Ana@example.com";
    let phone = sign_in(&on_a, email, "cubo-gira-9", ANDROID, "BR").await;
    let tablet = sign_in(&on_a, email, "cubo-gira-9", IPHONE, "BR").await;
    let mut tablet_live = live_of(&on_b, &tablet).await;
    let mut phone_live = live_of(&on_b, &phone).await;
    assert_eq!(
        ask(&on_a, &phone, Method::DELETE, "/api/me/sessions", None)
            .await
            .0,
        204
    );
    signed_out(&mut tablet_live).await;
    phone_live.send(&ClientMsg::Ping).await.unwrap();
    let pong = phone_live
        .recv_until(Duration::from_secs(5), |m| matches!(m, ServerMsg::Pong))
        .await;
    assert!(pong.is_ok(), "the phone's own connection goes on: {pong:?}");
}

async fn on_a01_a_new_password_needs_the_current_one_and_signs_out_the_other_sessions(db: Db) {
    let server = Server::start(db, &[]).await;
    server.player("Ana", "pt-BR", None).await;
    let c = server.client();
    let email = "Ana@example.com";
    let here = sign_in(&c, email, "cubo-gira-9", ANDROID, "BR").await;
    let there = sign_in(&c, email, "cubo-gira-9", IPHONE, "BR").await;
    let change = |current: &str, new: &str| json!({"current": current, "password": new});

    let (status, wrong) = ask(
        &c,
        &here,
        Method::POST,
        "/api/me/password",
        Some(change("not-it-at-all", "roda-o-cubo-42")),
    )
    .await;
    assert_eq!((status, &wrong["code"]), (401, &json!("wrong_password")));
    let (status, weak) = ask(
        &c,
        &here,
        Method::POST,
        "/api/me/password",
        Some(change("cubo-gira-9", "12345678")),
    )
    .await;
    assert_eq!((status, &weak["code"]), (400, &json!("weak_password")));
    let long = "x".repeat(2048);
    let (status, refused) = ask(
        &c,
        &here,
        Method::POST,
        "/api/me/password",
        Some(change(&long, "roda-o-cubo-42")),
    )
    .await;
    assert_eq!((status, &refused["code"]), (400, &json!("too_long")));
    let (status, refused) = ask(
        &c,
        &here,
        Method::POST,
        "/api/me/password",
        Some(json!({"current": "cubo-gira-9"})),
    )
    .await;
    assert_eq!((status, &refused["code"]), (400, &json!("bad_request")));
    assert_eq!(ask(&c, &there, Method::GET, "/api/me", None).await.0, 200);
    let mut here_live = live_of(&c, &here).await;
    let mut there_live = live_of(&c, &there).await;

    let (status, _) = ask(
        &c,
        &here,
        Method::POST,
        "/api/me/password",
        Some(change("cubo-gira-9", "roda-o-cubo-42")),
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(ask(&c, &here, Method::GET, "/api/me", None).await.0, 200);
    assert_eq!(ask(&c, &there, Method::GET, "/api/me", None).await.0, 401);
    signed_out(&mut there_live).await;
    // The session that changed it keeps its connection.
    here_live.send(&ClientMsg::Ping).await.unwrap();
    let pong = here_live
        .recv_until(Duration::from_secs(5), |m| matches!(m, ServerMsg::Pong))
        .await;
    assert!(pong.is_ok(), "{pong:?}");
    let mut again = c.another();
    assert!(again.log_in(email, "cubo-gira-9").await.is_err());
    assert!(again.log_in(email, "roda-o-cubo-42").await.is_ok());

    // A stolen session cannot guess the password: wrong ones count as failed sign-ins.
    let mut last = 0;
    for _ in 0..6 {
        last = ask(
            &c,
            &here,
            Method::POST,
            "/api/me/password",
            Some(change("guess-guess-guess", "roda-o-cubo-43")),
        )
        .await
        .0;
    }
    assert_eq!(
        last, 429,
        "past five wrong passwords, the next is refused unheard"
    );
}
on_both!(on_a01_a_new_password_needs_the_current_one_and_signs_out_the_other_sessions);

/// Two devices change the password at once, many rounds: one change wins whole, the other is
/// refused, and the password is the winner's.
async fn on_a01_two_new_passwords_at_once_leave_one(db: Db) {
    let server = Server::start(db, &[]).await;
    server.player("Ana", "pt-BR", None).await;
    let c = server.client();
    let email = "Ana@example.com";
    let mut password = "cubo-gira-9".to_owned();
    for round in 0..5 {
        let one = sign_in(&c, email, &password, ANDROID, "BR").await;
        let two = sign_in(&c, email, &password, IPHONE, "BR").await;
        let news = [
            format!("roda-{round}-um-cubo"),
            format!("roda-{round}-dois-cubos"),
        ];
        let answers = futures_util::future::join_all([(&one, &news[0]), (&two, &news[1])].map(
            |(token, new)| {
                let body = json!({"current": password, "password": new});
                ask(&c, token, Method::POST, "/api/me/password", Some(body))
            },
        ))
        .await;
        let won: Vec<usize> = (0..2).filter(|i| answers[*i].0 == 204).collect();
        assert_eq!(won.len(), 1, "round {round}: {answers:?}");
        let lost = 1 - won[0];
        assert!(
            [401, 409].contains(&answers[lost].0),
            "round {round}: {answers:?}"
        );
        password = news[won[0]].clone();
        assert!(
            c.another().log_in(email, &password).await.is_ok(),
            "round {round}"
        );
        assert!(
            c.another().log_in(email, &news[lost]).await.is_err(),
            "round {round}"
        );
    }
}
on_both!(on_a01_two_new_passwords_at_once_leave_one);
