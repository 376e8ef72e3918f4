//! ON-A01 with Google: ID tokens verified against the configured JWKS (served here by the
//! test with its own keys, made with `openssl genpkey` for these tests only).

use std::sync::{Arc, Mutex};

use axum::routing::get;
use futures_util::future::join_all;
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use reqwest::Method;
use serde_json::json;
use velha_api::ErrorCode;

use crate::common::{Db, Server};

const KEY1: &str = include_str!("../fixtures/google-test-key1.pem");
const KEY2: &str = include_str!("../fixtures/google-test-key2.pem");
const JWKS1: &str = include_str!("../fixtures/google-test-jwks1.json");
const JWKS2: &str = include_str!("../fixtures/google-test-jwks2.json");
const CLIENT_ID: &str = "velha-test.apps.googleusercontent.com";

/// Serves the current key set; returns its URL and the handle to swap it.
async fn jwks_server() -> (String, Arc<Mutex<&'static str>>) {
    let current = Arc::new(Mutex::new(JWKS1));
    let shared = current.clone();
    let app = axum::Router::new().route(
        "/certs",
        get(move || {
            let body = *shared.lock().unwrap();
            async move { ([("cache-control", "public, max-age=3600")], body) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/certs", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, current)
}

fn token(key: &str, kid: &str, claims: serde_json::Value) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(kid.to_owned());
    encode(
        &header,
        &claims,
        &EncodingKey::from_rsa_pem(key.as_bytes()).unwrap(),
    )
    .unwrap()
}

fn claims(
    sub: &str,
    email: &str,
    change: impl FnOnce(&mut serde_json::Value),
) -> serde_json::Value {
    let now = velha_server::token::now_ms() / 1000;
    let mut c = json!({
        "iss": "https://accounts.google.com",
        "aud": CLIENT_ID,
        "sub": sub,
        "email": email,
        "email_verified": true,
        "iat": now,
        "exp": now + 3600,
    });
    change(&mut c);
    c
}

async fn on_a01_google_id_tokens_are_verified(db: Db) {
    let (url, keys) = jwks_server().await;
    let server = Server::start(
        db,
        &["--google-client-id", CLIENT_ID, "--google-jwks-url", &url],
    )
    .await;
    let good = token(KEY1, "test-key-1", claims("g-1", "gui@gmail.com", |_| {}));

    let mut gui = server.client();
    let e = gui.google(&good, None, "pt-BR").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::NameRequired);
    let s = gui.google(&good, Some("Gui"), "pt-BR").await.unwrap();
    assert!(s.created);
    assert!(s.account.google);
    assert_eq!(s.account.email.as_deref(), Some("gui@gmail.com"));
    let s = server.client().google(&good, None, "pt-BR").await.unwrap();
    assert!(
        !s.created,
        "the same Google account signs in to the same account"
    );
    assert_eq!(s.account.name, "Gui");

    let refused = [
        (
            "audience",
            token(
                KEY1,
                "test-key-1",
                claims("g-2", "x@gmail.com", |c| c["aud"] = json!("someone-else")),
            ),
        ),
        (
            "issuer",
            token(
                KEY1,
                "test-key-1",
                claims("g-2", "x@gmail.com", |c| {
                    c["iss"] = json!("https://evil.example")
                }),
            ),
        ),
        (
            "expired",
            token(
                KEY1,
                "test-key-1",
                claims("g-2", "x@gmail.com", |c| c["exp"] = json!(1_000_000_000)),
            ),
        ),
        (
            "signature",
            token(KEY2, "test-key-1", claims("g-2", "x@gmail.com", |_| {})),
        ),
        (
            "unknown key",
            token(KEY2, "test-key-9", claims("g-2", "x@gmail.com", |_| {})),
        ),
        ("garbage", "not.a.token".to_owned()),
    ];
    for (why, t) in refused {
        let e = server
            .client()
            .google(&t, Some("Xis"), "pt-BR")
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::BadGoogleToken, "{why}: {e}");
    }
    let hs = {
        let header = Header::new(Algorithm::HS256);
        encode(
            &header,
            &claims("g-2", "x@gmail.com", |_| {}),
            &EncodingKey::from_secret(b"k"),
        )
        .unwrap()
    };
    assert_eq!(
        server
            .client()
            .google(&hs, Some("Xis"), "pt-BR")
            .await
            .unwrap_err()
            .code,
        ErrorCode::BadGoogleToken
    );

    // Google rotates its keys: a token with the new key id makes the server fetch again.
    *keys.lock().unwrap() = JWKS2;
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let rotated = token(KEY2, "test-key-2", claims("g-3", "rui@gmail.com", |_| {}));
    let s = server
        .client()
        .google(&rotated, Some("Rui"), "pt-PT")
        .await
        .unwrap();
    assert_eq!(
        (s.account.name.as_str(), s.account.country.as_str()),
        ("Rui", "PT")
    );

    // A password account with the same e-mail is not taken over by whoever signs in with
    // Google; its owner links Google while signed in, and then either way works.
    let mut ana = server.client();
    ana.sign_up("ana@gmail.com", "cubo-gira-9", "Ana", "pt-BR")
        .await
        .unwrap();
    let google_ana = token(KEY2, "test-key-2", claims("g-4", "ana@gmail.com", |_| {}));
    let e = server
        .client()
        .google(&google_ana, Some("Ana2"), "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::EmailTaken);
    let body = serde_json::json!({ "id_token": google_ana }).to_string();
    let (status, json) = ana
        .raw(Method::PUT, "/api/me/google", Some(&body))
        .await
        .unwrap();
    assert_eq!(
        (status, json["google"].as_bool()),
        (200, Some(true)),
        "{json}"
    );
    let s = server
        .client()
        .google(&google_ana, None, "pt-BR")
        .await
        .unwrap();
    assert_eq!((s.account.name.as_str(), s.created), ("Ana", false));
    let (status, json) = server
        .client()
        .raw(Method::PUT, "/api/me/google", Some(&body))
        .await
        .unwrap();
    assert_eq!((status, json["code"].as_str()), (401, Some("unauthorized")));
    let mut bob = server.client();
    bob.sign_up("bob@example.com", "cubo-gira-9", "Bob", "pt-BR")
        .await
        .unwrap();
    let (status, json) = bob
        .raw(Method::PUT, "/api/me/google", Some(&body))
        .await
        .unwrap();
    assert_eq!(
        (status, json["code"].as_str()),
        (409, Some("conflict")),
        "one Google account, one player"
    );
    let unverified = token(
        KEY2,
        "test-key-2",
        claims("g-5", "bia@gmail.com", |c| {
            c["email_verified"] = json!(false)
        }),
    );
    let s = server
        .client()
        .google(&unverified, Some("Bia"), "pt-BR")
        .await
        .unwrap();
    assert_eq!(s.account.email, None, "an unverified e-mail is not kept");
}
on_both!(on_a01_google_id_tokens_are_verified);

/// A Google sign-in with a raw body: the status and the answer.
async fn google_raw(server: &Server, body: serde_json::Value) -> (u16, serde_json::Value) {
    server
        .client()
        .raw(
            Method::POST,
            "/api/sessions/google",
            Some(&body.to_string()),
        )
        .await
        .unwrap()
}

async fn on_a02_a_new_google_account_takes_the_country_picked(db: Db) {
    let (url, _keys) = jwks_server().await;
    let server = Server::start(
        db,
        &["--google-client-id", CLIENT_ID, "--google-jwks-url", &url],
    )
    .await;
    let nina = token(
        KEY1,
        "test-key-1",
        claims("g-nina", "nina@gmail.com", |_| {}),
    );
    // A browser that says only "pt": the app first learns the account is new…
    let (status, json) = google_raw(&server, json!({"id_token": nina, "region": "pt"})).await;
    assert_eq!(
        (status, json["code"].as_str()),
        (400, Some("name_required"))
    );
    // …then sends the name with the country the player picked.
    let new = |country: serde_json::Value| json!({"id_token": nina, "region": "pt", "name": "Nina", "country": country});
    let (status, json) = google_raw(&server, new(json!(null))).await;
    assert_eq!(
        (status, json["code"].as_str()),
        (400, Some("bad_region")),
        "{json}"
    );
    let (status, json) = google_raw(&server, new(json!("ZZ"))).await;
    assert_eq!(
        (status, json["code"].as_str()),
        (400, Some("bad_country")),
        "{json}"
    );
    let (status, json) = google_raw(&server, new(json!("BR"))).await;
    assert_eq!(status, 200, "{json}");
    assert_eq!(json["created"], true);
    assert_eq!(json["account"]["country"], "BR");
    assert_eq!(json["account"]["country_chosen"], true);
    // Signing in again needs no country, though the region still names none.
    let (status, json) = google_raw(&server, json!({"id_token": nina, "region": "pt"})).await;
    assert_eq!(status, 200, "{json}");
    assert_eq!(
        (json["created"].as_bool(), json["account"]["name"].as_str()),
        (Some(false), Some("Nina"))
    );
}
on_both!(on_a02_a_new_google_account_takes_the_country_picked);

async fn on_a01_google_sign_in_off_without_a_client_id(db: Db) {
    let server = Server::start(db, &[]).await;
    let e = server
        .client()
        .google("x.y.z", Some("Gui"), "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::GoogleUnavailable);
}
on_both!(on_a01_google_sign_in_off_without_a_client_id);

const DESKTOP_ID: &str = "velha-desktop-test.apps.googleusercontent.com";

/// The app learns from the server how to sign in with Google; tokens of the desktop client
/// are accepted beside the web's, tokens of any other client are not; and the web app's
/// Content-Security-Policy lets exactly the configured script's origin in.
async fn on_a01_google_sign_in_options_desktop_client_and_policy(db: Db) {
    let (url, _) = jwks_server().await;
    let server = Server::start(
        db,
        &[
            "--google-client-id",
            CLIENT_ID,
            "--google-desktop-client-id",
            DESKTOP_ID,
            "--google-desktop-client-secret",
            "not-secret",
            "--google-jwks-url",
            &url,
            "--google-script-url",
            "https://gis.example:8443/gsi/client",
            "--google-authorization-url",
            "https://auth.example/authorize",
            "--google-token-url",
            "https://auth.example/token",
        ],
    )
    .await;
    let c = server.client();
    let (status, options) = c
        .raw(Method::GET, "/api/sign-in-options", None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let options: velha_api::SignInOptions = serde_json::from_value(options).unwrap();
    let google = options.google.expect("Google is configured");
    assert_eq!(google.client_id, CLIENT_ID);
    assert_eq!(google.script_url, "https://gis.example:8443/gsi/client");
    let desktop = google.desktop.expect("the desktop client is configured");
    assert_eq!(desktop.client_id, DESKTOP_ID);
    assert_eq!(desktop.client_secret.as_deref(), Some("not-secret"));
    assert_eq!(desktop.authorization_url, "https://auth.example/authorize");
    assert_eq!(desktop.token_url, "https://auth.example/token");

    let mut dani = server.client();
    let desktop_token = token(
        KEY1,
        "test-key-1",
        claims("g-desk", "dani@gmail.com", |c| c["aud"] = json!(DESKTOP_ID)),
    );
    let s = dani
        .google(&desktop_token, Some("Dani"), "pt-BR")
        .await
        .unwrap();
    assert!(s.created);
    let stranger = token(
        KEY1,
        "test-key-1",
        claims("g-other", "o@gmail.com", |c| {
            c["aud"] = json!("someone-else.apps.googleusercontent.com")
        }),
    );
    let e = server
        .client()
        .google(&stranger, Some("Outro"), "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadGoogleToken);

    let (_, headers, _) = c.raw_bytes(Method::GET, "/", None).await.unwrap();
    let csp = headers["content-security-policy"].to_str().unwrap();
    for needed in [
        "script-src 'self' 'wasm-unsafe-eval' https://gis.example:8443;",
        "style-src 'self' https://gis.example:8443;",
        "connect-src 'self' https://gis.example:8443;",
        "frame-src https://gis.example:8443;",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(needed), "{needed} not in {csp}");
    }
    assert!(!csp.contains("auth.example"), "{csp}");
}
on_both!(on_a01_google_sign_in_options_desktop_client_and_policy);

/// Without Google, the options say so and the policy names no other origin.
async fn on_a01_no_google_options_without_a_client_id(db: Db) {
    let server = Server::start(db, &["--google-desktop-client-id", DESKTOP_ID]).await;
    let c = server.client();
    let (status, options) = c
        .raw(Method::GET, "/api/sign-in-options", None)
        .await
        .unwrap();
    assert_eq!((status, options), (200, json!({"email": false})));
    let (_, headers, _) = c.raw_bytes(Method::GET, "/", None).await.unwrap();
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(
        !csp.contains("frame-src") && !csp.contains("https://"),
        "{csp}"
    );
}
on_both!(on_a01_no_google_options_without_a_client_id);

/// ON-A01: a Google account's first sign-in sent many times at once (taps, devices) makes one
/// account, and every request signs in to it; round after round.
async fn on_a01_one_account_for_concurrent_first_google_sign_ins(db: Db) {
    let (url, _) = jwks_server().await;
    let server = Server::start(
        db,
        &["--google-client-id", CLIENT_ID, "--google-jwks-url", &url],
    )
    .await;
    for round in 0..10 {
        let sub = format!("g-race-{round}");
        let good = token(
            KEY1,
            "test-key-1",
            claims(&sub, &format!("race{round}@gmail.com"), |_| {}),
        );
        let answers = join_all((0..8).map(|i| {
            let mut c = server.client();
            let good = good.clone();
            async move {
                c.google(&good, Some(&format!("Race{round}x{i}")), "pt-BR")
                    .await
            }
        }))
        .await;
        let sessions: Vec<_> = answers
            .into_iter()
            .map(|a| a.expect("every racer is signed in"))
            .collect();
        assert_eq!(
            sessions.iter().filter(|s| s.created).count(),
            1,
            "round {round}: one account made"
        );
        let name = &sessions[0].account.name;
        assert!(
            sessions.iter().all(|s| &s.account.name == name),
            "round {round}"
        );
    }
}
on_both!(on_a01_one_account_for_concurrent_first_google_sign_ins);
