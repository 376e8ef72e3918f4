//! The server against a hostile or buggy client: memory that sign-in floods cannot grow, the
//! one-match rule under racing requests, texts with control characters, weak passwords, an
//! oversized WebSocket frame, a connection that stops reading, the framework's own errors,
//! and the headers every answer carries.

use std::time::Duration;

use futures_util::future::join_all;
use reqwest::Method;
use sqlx::Row;
use velha_api::{ClientMsg, ErrorCode, PasswordProblem, Scope, ServerMsg};
use velha_load::Client;

use crate::common::{Db, Server, expect, room_live_again, send_oversized};

const UNTIL: Option<&str> = Some("2099-12-31");

/// How much the server's resident memory may grow while it refuses thousands of sign-ins with
/// distinct e-mails: the limiters' keys are 16-byte digests, so this is allocator slack.
const SIGN_IN_FLOOD_BOUND_KIB: u64 = 24 * 1024;

async fn count(server: &Server, sql: &str) -> i64 {
    sqlx::query(sql)
        .fetch_one(&mut server.database().await)
        .await
        .expect("count")
        .get::<i64, _>(0)
}

async fn on_a01_failed_sign_ins_keep_memory_bounded(db: Db) {
    // Every failure reaches the per-account limiter: the address limit is out of the way.
    let server = Server::start(db, &["--login-failures-per-address", "1000000"]).await;
    let c = server.client();
    let fail = |c: Client, email: String| async move {
        let body = serde_json::json!({"email": email, "password": "errada-123"}).to_string();
        c.raw(Method::POST, "/api/sessions", Some(&body))
            .await
            .unwrap()
    };
    for i in 0..200 {
        let (status, _) = fail(c.clone(), format!("warm-{i}@example.com")).await;
        assert_eq!(status, 401);
    }
    let before = server.resident_kib();

    // E-mails of 1.9 MB are refused before they become keys.
    let huge = "x".repeat(1_900_000);
    for i in 0..40 {
        let (status, json) = fail(c.clone(), format!("{i}{huge}@example.com")).await;
        assert_eq!((status, json["code"].as_str()), (400, Some("too_long")));
    }
    // Thousands of distinct e-mails of the longest allowed length, eight at a time.
    let padding = "p".repeat(230);
    for round in 0..500 {
        let answers =
            join_all((0..8).map(|i| fail(c.clone(), format!("{round}-{i}-{padding}@example.com"))))
                .await;
        assert!(answers.iter().all(|(s, _)| *s == 401), "{answers:?}");
    }
    let after = server.resident_kib();
    let grown = after.saturating_sub(before);
    eprintln!(
        "resident memory {before} KiB -> {after} KiB (+{grown} KiB) after 4 000 failed sign-ins and 40 of 1.9 MB"
    );
    assert!(
        grown < SIGN_IN_FLOOD_BOUND_KIB,
        "the server grew by {grown} KiB (bound {SIGN_IN_FLOOD_BOUND_KIB} KiB)"
    );
    let (status, _) = c.raw(Method::GET, "/api/health", None).await.unwrap();
    assert_eq!(status, 200);
}
on_both!(on_a01_failed_sign_ins_keep_memory_bounded);

/// The match a seat request got: Ok(match id) or the error code.
async fn seat_results<F>(requests: Vec<F>) -> Vec<Result<String, ErrorCode>>
where
    F: std::future::Future<Output = Result<String, ErrorCode>>,
{
    join_all(requests).await
}

async fn on_m02_one_match_per_player_under_concurrent_requests(db: Db) {
    // Creators stay in the lobby however long the rounds take.
    let server = Server::start(db, &["--reconnect-grace-ms", "600000"]).await;
    let racer = server.player("racer", "pt-BR", UNTIL).await;
    let mut racer_live = racer.live().await.unwrap();
    expect(&mut racer_live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    let mut creators = Vec::new();
    for i in 0..10 {
        creators.push(server.player(&format!("host{i}"), "pt-BR", UNTIL).await);
    }
    let active = "SELECT COUNT(*) FROM matches m JOIN accounts a ON a.id = m.x_id OR a.id = m.o_id \
                  WHERE a.name = 'racer' AND m.state IN ('open', 'live')";

    // Frees the racer from the match it got, whichever kind.
    async fn release(racer: &Client, live: &mut velha_load::Live, id: &str) {
        let view = racer.get_match(id).await.unwrap();
        if view.state == velha_api::MatchState::Open {
            racer.cancel(id).await.unwrap();
        } else {
            live.send(&ClientMsg::Leave {
                match_id: id.to_owned(),
            })
            .await
            .unwrap();
            expect(live, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
        }
    }

    for round in 0..20 {
        // Ten creates at once.
        let creates = (0..10)
            .map(|_| {
                let r = racer.clone();
                async move {
                    r.create(Scope::Mundial, 1)
                        .await
                        .map(|m| m.id)
                        .map_err(|e| e.code)
                }
            })
            .collect();
        let got = seat_results(creates).await;
        let wins: Vec<&String> = got.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(wins.len(), 1, "round {round}, creates: {got:?}");
        assert!(
            got.iter()
                .all(|r| r.is_ok() || r == &Err(ErrorCode::AlreadyPlaying)),
            "{got:?}"
        );
        assert_eq!(count(&server, active).await, 1);
        release(&racer, &mut racer_live, wins[0]).await;

        // Ten joins at once, into ten different matches.
        let mut open = Vec::new();
        for host in &creators {
            open.push(host.create(Scope::Mundial, 1).await.unwrap().id);
        }
        let joins = open
            .iter()
            .map(|id| {
                let r = racer.clone();
                let id = id.clone();
                async move { r.join(&id).await.map(|m| m.id).map_err(|e| e.code) }
            })
            .collect();
        let got = seat_results(joins).await;
        let wins: Vec<String> = got.iter().filter_map(|r| r.clone().ok()).collect();
        assert_eq!(wins.len(), 1, "round {round}, joins: {got:?}");
        assert!(
            got.iter()
                .all(|r| r.is_ok() || r == &Err(ErrorCode::AlreadyPlaying)),
            "{got:?}"
        );
        assert_eq!(count(&server, active).await, 1);
        release(&racer, &mut racer_live, &wins[0]).await;
        for (host, id) in creators.iter().zip(&open) {
            if *id != wins[0] {
                host.cancel(id).await.unwrap();
            }
        }

        // Five creates and five joins at once.
        let mut open = Vec::new();
        for host in &creators[..5] {
            open.push(host.create(Scope::Mundial, 2).await.unwrap().id);
        }
        let mut mixed: Vec<std::pin::Pin<Box<dyn std::future::Future<Output = _> + Send>>> =
            Vec::new();
        for id in &open {
            let r = racer.clone();
            let id = id.clone();
            mixed.push(Box::pin(async move {
                r.join(&id).await.map(|m| m.id).map_err(|e| e.code)
            }));
            let r = racer.clone();
            mixed.push(Box::pin(async move {
                r.create(Scope::Nacional, 2)
                    .await
                    .map(|m| m.id)
                    .map_err(|e| e.code)
            }));
        }
        let got = seat_results(mixed).await;
        let wins: Vec<String> = got.iter().filter_map(|r| r.clone().ok()).collect();
        assert_eq!(wins.len(), 1, "round {round}, mixed: {got:?}");
        assert_eq!(count(&server, active).await, 1);
        release(&racer, &mut racer_live, &wins[0]).await;
        for (host, id) in creators.iter().zip(&open) {
            if *id != wins[0] {
                host.cancel(id).await.unwrap();
            }
        }
        assert_eq!(count(&server, active).await, 0, "round {round}: freed");
    }
    // The rule also holds between requests: free again, one create succeeds.
    racer.create(Scope::Mundial, 1).await.unwrap();
    assert_eq!(
        racer.create(Scope::Mundial, 2).await.unwrap_err().code,
        ErrorCode::AlreadyPlaying
    );
}
on_both!(on_m02_one_match_per_player_under_concurrent_requests);

async fn on_a01_control_characters_and_invalid_unicode_are_refused(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let sign_up = |email: &str, name: &str, region: &str| {
        serde_json::json!({"email": email, "password": "cubo-gira-9", "name": name, "region": region})
            .to_string()
    };
    let cases = [
        (
            sign_up("ana\u{0}@example.com", "ana", "pt-BR"),
            "bad_email",
            "U+0000",
        ),
        (
            sign_up("ana@exam\u{7}ple.com", "ana", "pt-BR"),
            "bad_email",
            "U+0007",
        ),
        (
            sign_up("ana@example.com", "an\u{202E}a", "pt-BR"),
            "bad_name",
            "U+202E",
        ),
        (
            sign_up("ana@example.com", "a\u{200B}na", "pt-BR"),
            "bad_name",
            "U+200B",
        ),
        (
            sign_up("ana@example.com", "ana", "pt-BR\u{0}"),
            "bad_region",
            "U+0000",
        ),
    ];
    for (body, code, shown) in &cases {
        let (status, json) = c
            .raw(Method::POST, "/api/accounts", Some(body))
            .await
            .unwrap();
        assert_eq!(
            (status, json["code"].as_str()),
            (400, Some(*code)),
            "{body:?}"
        );
        assert!(json["message"].as_str().unwrap().contains(shown), "{json}");
    }
    let sign_in = r#"{"email":"ana\u0000@example.com","password":"cubo-gira-9"}"#;
    let (status, json) = c
        .raw(Method::POST, "/api/sessions", Some(sign_in))
        .await
        .unwrap();
    assert_eq!((status, json["code"].as_str()), (400, Some("bad_email")));
    // Invalid UTF-8, and a lone surrogate escape: the JSON parser refuses both.
    let mut bytes = br#"{"email":"ana@example.com","password":"cubo-gira-9","name":"an"#.to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(br#"a","region":"pt-BR"}"#);
    let lone = sign_up("ana@example.com", "an\\ud800a", "pt-BR").replace("\\\\ud800", "\\ud800");
    for body in [bytes, lone.into_bytes()] {
        let (status, _, json) = c
            .raw_bytes(
                Method::POST,
                "/api/accounts",
                Some((body, "application/json")),
            )
            .await
            .unwrap();
        assert_eq!(
            (status, json["code"].as_str()),
            (400, Some("bad_request")),
            "{json}"
        );
    }
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM accounts").await,
        0,
        "nothing stored"
    );
    // The same player with clean text is welcome, and their country change is checked too.
    let mut ana = server.client();
    ana.sign_up("ana@example.com", "cubo-gira-9", "Ana", "pt-BR")
        .await
        .unwrap();
    let (status, json) = ana
        .raw(
            Method::PUT,
            "/api/me/region",
            Some(r#"{"region":"pt-\u0000BR"}"#),
        )
        .await
        .unwrap();
    assert_eq!((status, json["code"].as_str()), (400, Some("bad_region")));
    assert_eq!(ana.me().await.unwrap().country, "BR");
}
on_both!(on_a01_control_characters_and_invalid_unicode_are_refused);

async fn on_a01_common_and_guessable_passwords_are_refused_with_a_reason(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    for (password, problem) in [
        ("qwertyuiop", PasswordProblem::Common),
        ("1q2w3e4r", PasswordProblem::Common),
        ("Aa123456", PasswordProblem::Common),
        ("123mudar", PasswordProblem::Common),
        ("password123", PasswordProblem::Common),
        ("flamengo2019", PasswordProblem::Words),
        ("asdfghjkl;", PasswordProblem::Pattern),
        ("25/12/1990", PasswordProblem::Date),
        ("curta1", PasswordProblem::TooShort),
    ] {
        let e = c
            .another()
            .sign_up("bia@example.com", password, "Bia", "pt-BR")
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WeakPassword, "{password}");
        assert_eq!(
            e.password_problem,
            Some(problem),
            "{password}: {}",
            e.message
        );
        assert_eq!(e.message, problem.sentence(false));
        assert!(!problem.sentence(true).is_empty());
    }
    let (status, json) = c
        .raw(
            Method::POST,
            "/api/accounts",
            Some(
                &serde_json::json!({"email": "bia@example.com", "password": "x".repeat(1025),
                    "name": "Bia", "region": "pt-BR"})
                .to_string(),
            ),
        )
        .await
        .unwrap();
    assert_eq!((status, json["code"].as_str()), (400, Some("too_long")));
    c.another()
        .sign_up(
            "bia@example.com",
            "tartaruga voadora de sapato",
            "Bia",
            "pt-BR",
        )
        .await
        .unwrap();
}
on_both!(on_a01_common_and_guessable_passwords_are_refused_with_a_reason);

async fn on_m05_an_oversized_frame_is_closed_with_1009(db: Db) {
    let server = Server::start(db, &[]).await;
    let (x, mut x_live, _o, mut o_live, id) = crate::live::meet(&server, 1).await;
    let mut x_other = x.live().await.unwrap();
    expect(&mut x_other, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    let (code, reason) = send_oversized(&mut x_other).await;
    assert_eq!(code, 1009);
    assert!(reason.contains("16384"), "{reason}");
    // The player's other connection and match go on: X moves and O hears it.
    x_live
        .send(&ClientMsg::Play {
            match_id: id.clone(),
            ply: 0,
            actions: vec!["a1".to_owned()],
        })
        .await
        .unwrap();
    expect(&mut o_live, "the move", |m| {
        matches!(m, ServerMsg::Moved { .. })
    })
    .await;
    // Before hello, too.
    let mut fresh = x.live_without_hello().await.unwrap();
    assert_eq!(send_oversized(&mut fresh).await.0, 1009);
}
on_both!(on_m05_an_oversized_frame_is_closed_with_1009);

/// A frame many times the server's read buffer (256 bytes) but within the limit arrives whole
/// through as many reads, and is answered; so does a small one after it.
async fn on_m05_a_frame_near_the_limit_is_read_whole_and_answered(db: Db) {
    let server = Server::start(db, &[]).await;
    let ana = server.player("ana", "BR", UNTIL).await;
    let mut live = ana.live().await.unwrap();
    expect(&mut live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    let near = format!(
        r#"{{"type":"ping","pad":"{}"}}"#,
        "x".repeat(velha_api::MAX_LIVE_FRAME - 64)
    );
    assert!(near.len() <= velha_api::MAX_LIVE_FRAME);
    live.send_text(&near).await.unwrap();
    expect(&mut live, "the pong of the large ping", |m| {
        matches!(m, ServerMsg::Pong)
    })
    .await;
    live.send(&ClientMsg::Ping).await.unwrap();
    expect(&mut live, "the pong of the small one", |m| {
        matches!(m, ServerMsg::Pong)
    })
    .await;
}
on_both!(on_m05_a_frame_near_the_limit_is_read_whole_and_answered);

/// Upgrades that are not quite WebSocket ones — an old version, no key, another method, a
/// protocol other than websocket — each get a 400 naming what is wrong and never a socket; a
/// proper one right after is taken.
async fn on_m05_a_malformed_upgrade_is_refused_with_its_reason(db: Db) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::start(db, &[]).await;
    let answer = |request: String| {
        let server = &server;
        async move {
            let mut tls = crate::common::tls_offering(server, &[b"http/1.1"]).await;
            tls.write_all(request.as_bytes()).await.unwrap();
            let mut head = vec![0u8; 4096];
            let n = tokio::time::timeout(Duration::from_secs(5), tls.read(&mut head))
                .await
                .expect("an answer")
                .unwrap();
            String::from_utf8_lossy(&head[..n]).into_owned()
        }
    };
    let request = |method: &str, path: &str, upgrade: &str, version: &str, key: bool| {
        let key = if key {
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        } else {
            ""
        };
        format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\n\
             Upgrade: {upgrade}\r\nSec-WebSocket-Version: {version}\r\n{key}\r\n"
        )
    };
    for path in ["/api/live", "/api/rooms/abc/live"] {
        for (bad, why) in [
            (
                request("GET", path, "websocket", "8", true),
                "Sec-WebSocket-Version",
            ),
            (
                request("GET", path, "websocket", "13", false),
                "Sec-WebSocket-Key",
            ),
            (request("GET", path, "h2c", "13", true), "Upgrade"),
        ] {
            let head = answer(bad).await;
            assert!(head.starts_with("HTTP/1.1 400"), "{path} {why}: {head}");
            assert!(head.contains(why), "{path}: the reason names {why}: {head}");
        }
        let head = answer(request("GET", path, "websocket", "13", true)).await;
        assert!(
            head.starts_with("HTTP/1.1 101") && head.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
            "{path}: a proper upgrade is taken, its key signed: {head}"
        );
    }
}
on_both!(on_m05_a_malformed_upgrade_is_refused_with_its_reason);

/// A client that stops reading while the server still has things to tell it: the server's
/// write waits at most its send timeout (10 s), then lets the connection go, rather than hold
/// it, its task and its buffers for good.
async fn on_m05_a_connection_that_stops_reading_is_let_go(db: Db) {
    let server = Server::start(db, &[]).await;
    let ana = server.player("ana", "BR", UNTIL).await;
    let mut live = ana.live_with_small_buffers(4096).await.unwrap();
    expect(&mut live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    // Pings, never reading the pongs: once they fill the buffers the server's write waits, it
    // stops reading, and these sends wait too, until the server lets go. Those buffers are the
    // kernel's, autotuned: a server's send buffer on loopback grows to `tcp_wmem`'s largest
    // (4 MiB here, some 80 000 pongs), so on a busy machine filling them takes a while. The
    // budget is for that; a server that never let go would hold the flood for good. The lower
    // bound below holds however long filling takes: the send timeout only starts once they are full.
    let started = std::time::Instant::now();
    let mut sent = 0u64;
    let flood = tokio::time::timeout(Duration::from_secs(240), async {
        while live.send_repeated(&ClientMsg::Ping, 64).await.is_ok() {
            sent += 64;
        }
    })
    .await;
    assert!(
        flood.is_ok(),
        "the server held a connection that stopped reading: {sent} pings in {:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() >= Duration::from_secs(9),
        "let go after {:?} and {sent} pings: sooner than its send timeout",
        started.elapsed()
    );
    // Nothing else was held up meanwhile.
    let mut again = ana.live().await.unwrap();
    expect(&mut again, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
}
on_both!(on_m05_a_connection_that_stops_reading_is_let_go);

/// Clients that connect and send no request, half a request's head, or nothing after their
/// last answer are let go once the server's 30 s for a head pass, rather than hold a
/// connection (and what they sent) for good.
#[tokio::test]
async fn a_request_head_that_never_comes_is_let_go() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::start(Db::Sqlite, &[]).await;
    let silent = crate::common::tls_offering(&server, &[]).await;
    let mut halfway = crate::common::tls_offering(&server, &[]).await;
    halfway
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    halfway.flush().await.unwrap();
    let mut kept_alive = crate::common::tls_offering(&server, &[]).await;
    kept_alive
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    kept_alive.flush().await.unwrap();
    let started = std::time::Instant::now();
    let waits = [silent, halfway, kept_alive].into_iter().enumerate().map(
        |(i, mut connection)| async move {
            let mut got = Vec::new();
            // Its end: a close without close_notify reads as an error, which is fine.
            let _ = tokio::time::timeout(Duration::from_secs(60), connection.read_to_end(&mut got))
                .await
                .unwrap_or_else(|_| panic!("the server still holds connection {i} after 60 s"));
            got
        },
    );
    let answers = join_all(waits).await;
    assert!(answers[0].is_empty() && answers[1].is_empty());
    assert!(
        answers[2].starts_with(b"HTTP/1.1 200"),
        "the kept-alive one had its answer first"
    );
    assert!(
        started.elapsed() >= Duration::from_secs(25),
        "{:?}",
        started.elapsed()
    );
}

async fn api_document_framework_errors_are_api_errors(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    for (method, path) in [
        (Method::PUT, "/api/health"),
        (Method::PATCH, "/api/me"),
        (Method::GET, "/api/accounts"),
        (Method::DELETE, "/api/lobby"),
    ] {
        let (status, headers, json) = c.raw_bytes(method.clone(), path, None).await.unwrap();
        assert_eq!(status, 405, "{method} {path}");
        assert_eq!(
            json["code"], "method_not_allowed",
            "{method} {path}: {json}"
        );
        assert!(headers.contains_key("allow"), "{method} {path}");
    }
    let body = br#"{"email":"a@b.com","password":"x"}"#.to_vec();
    let (status, _, json) = c
        .raw_bytes(Method::POST, "/api/sessions", Some((body, "text/plain")))
        .await
        .unwrap();
    assert_eq!(
        (status, json["code"].as_str()),
        (415, Some("unsupported_media_type"))
    );
    // Not a WebSocket request at the WebSocket's path.
    let (status, _, json) = c.raw_bytes(Method::GET, "/api/live", None).await.unwrap();
    assert!(status >= 400 && json["code"].is_string(), "{status} {json}");

    // A request slower than the server allows: hashing a password with 64 MiB takes longer
    // than 20 ms.
    let slow = Server::start(
        server.fresh_db().await,
        &["--request-timeout-ms", "20", "--argon2-memory-kib", "65536"],
    )
    .await;
    let e = slow
        .client()
        .sign_up("lenta@example.com", "cubo-gira-9", "Lenta", "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
}
on_both!(api_document_framework_errors_are_api_errors);

/// An error request: method, path, extra headers, body with its content type; and the status
/// and code it must answer.
type ErrorCase = (
    Method,
    &'static str,
    Vec<(&'static str, &'static str)>,
    Option<(Vec<u8>, &'static str)>,
    u16,
    ErrorCode,
);

/// Sends each case accepting gzip, then brotli, as every browser does: the answer must decode
/// as its `Content-Encoding` says into an `ApiError` of the case's code, in words.
async fn decodes_under_gzip_and_brotli(server: &Server, cases: &[ErrorCase]) {
    use std::io::Read;
    let http = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&server.cert).unwrap())
        .build()
        .unwrap();
    for (method, path, headers, body, status, code) in cases {
        for accepts in ["gzip", "br"] {
            let case = format!("{method} {path} {headers:?} accepting {accepts}");
            let mut r = http
                .request(method.clone(), format!("{}{path}", server.base))
                .header("accept-encoding", accepts);
            for (name, value) in headers {
                r = r.header(*name, *value);
            }
            if let Some((bytes, content_type)) = body {
                r = r.header("content-type", *content_type).body(bytes.clone());
            }
            let answer = r.send().await.unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!(answer.status().as_u16(), *status, "{case}");
            let h = answer.headers().clone();
            let bytes = answer.bytes().await.unwrap();
            let encoding = h.get("content-encoding").map(|v| v.to_str().unwrap());
            let mut plain = Vec::new();
            match encoding {
                None => plain.extend_from_slice(&bytes),
                Some("gzip") => {
                    flate2::read::GzDecoder::new(&bytes[..])
                        .read_to_end(&mut plain)
                        .unwrap_or_else(|e| panic!("{case}: not gzip ({e}): {bytes:?}"));
                }
                Some("br") => {
                    brotli::Decompressor::new(&bytes[..], 4096)
                        .read_to_end(&mut plain)
                        .unwrap_or_else(|e| panic!("{case}: not brotli ({e}): {bytes:?}"));
                }
                Some(other) => panic!("{case}: {other}, which was not accepted"),
            }
            if encoding.is_some() {
                assert_eq!(encoding, Some(accepts), "{case}");
                let vary = h["vary"].to_str().unwrap().to_lowercase();
                assert!(vary.contains("accept-encoding"), "{case}: vary {vary}");
            }
            let e: velha_api::ApiError = serde_json::from_slice(&plain).unwrap_or_else(|e| {
                panic!(
                    "{case}: not an ApiError ({e}): {}",
                    String::from_utf8_lossy(&plain)
                )
            });
            assert_eq!(e.code, *code, "{case}: {}", e.message);
            assert!(
                !e.message.is_empty()
                    && e.message
                        .chars()
                        .all(|c| !c.is_control() && c != char::REPLACEMENT_CHARACTER),
                "{case}: {:?}",
                e.message
            );
            assert_eq!(h["content-type"], "application/json", "{case}");
            assert_eq!(h["cache-control"], "no-store", "{case}");
            assert_eq!(h["x-content-type-options"], "nosniff", "{case}");
            assert!(h.contains_key("content-security-policy"), "{case}");
        }
    }
}

/// The errors the framework answers in its own words (rewritten into `ApiError`s), the JSON
/// rejections, the web files' and the timeout's reach a browser, which accepts gzip and
/// brotli, as readable `ApiError`s.
async fn framework_errors_decode_under_gzip_and_brotli(db: Db) {
    let server = Server::start(db, &[]).await;
    let json = "application/json";
    let sign_in = br#"{"email":"a@b.com","password":"cubo-gira-9"}"#.to_vec();
    // Over the framework's 2 MB body limit.
    let too_big = format!(r#"{{"email":"{}","password":"x"}}"#, "x".repeat(2_100_000));
    let cases: Vec<ErrorCase> = vec![
        // Not WebSocket requests at the WebSocket paths.
        (
            Method::GET,
            "/api/live",
            vec![],
            None,
            400,
            ErrorCode::BadRequest,
        ),
        (
            Method::GET,
            "/api/rooms/abc/live",
            vec![],
            None,
            400,
            ErrorCode::BadRequest,
        ),
        // A path parameter that is not UTF-8.
        (
            Method::GET,
            "/api/rooms/%FF/live",
            vec![],
            None,
            400,
            ErrorCode::BadRequest,
        ),
        (
            Method::PUT,
            "/api/health",
            vec![],
            None,
            405,
            ErrorCode::MethodNotAllowed,
        ),
        (
            Method::POST,
            "/api/sessions",
            vec![],
            Some((sign_in, "text/plain")),
            415,
            ErrorCode::UnsupportedMediaType,
        ),
        (
            Method::POST,
            "/api/sessions",
            vec![],
            Some((br#"{"email":"#.to_vec(), json)),
            400,
            ErrorCode::BadRequest,
        ),
        (
            Method::POST,
            "/api/sessions",
            vec![],
            Some((br#"{"email":"a@b.com"}"#.to_vec(), json)),
            400,
            ErrorCode::BadRequest,
        ),
        (
            Method::POST,
            "/api/sessions",
            vec![],
            Some((too_big.into_bytes(), json)),
            413,
            ErrorCode::TooLarge,
        ),
        (
            Method::GET,
            "/api/nowhere",
            vec![],
            None,
            404,
            ErrorCode::NotFound,
        ),
        (
            Method::GET,
            "/nowhere",
            vec![],
            None,
            404,
            ErrorCode::NotFound,
        ),
    ];
    decodes_under_gzip_and_brotli(&server, &cases).await;

    // The web build's files: a range past a precompressed file's end, a method files refuse.
    let web = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(web.path().join(name), bytes).unwrap();
    write("index.html", b"<!doctype html><title>t</title>");
    write("app-0123456789ab.js", b"plain script");
    write("app-0123456789ab.js.br", b"brotli script");
    write("app-0123456789ab.js.gz", b"gzip script");
    let root = web.path().to_str().unwrap().to_owned();
    let site = Server::start(server.fresh_db().await, &["--web-root", &root]).await;
    let cases: Vec<ErrorCase> = vec![
        (
            Method::GET,
            "/app-0123456789ab.js",
            vec![("range", "bytes=100-200")],
            None,
            416,
            ErrorCode::BadRequest,
        ),
        (
            Method::POST,
            "/",
            vec![],
            None,
            405,
            ErrorCode::MethodNotAllowed,
        ),
    ];
    decodes_under_gzip_and_brotli(&site, &cases).await;

    // The timeout's own answer: hashing a password with 64 MiB takes longer than 20 ms.
    let slow = Server::start(
        server.fresh_db().await,
        &["--request-timeout-ms", "20", "--argon2-memory-kib", "65536"],
    )
    .await;
    let sign_up = serde_json::json!({"email": "lenta@example.com", "password": "cubo-gira-9",
        "name": "Lenta", "region": "pt-BR"})
    .to_string();
    let cases: Vec<ErrorCase> = vec![(
        Method::POST,
        "/api/accounts",
        vec![],
        Some((sign_up.into_bytes(), json)),
        408,
        ErrorCode::Timeout,
    )];
    decodes_under_gzip_and_brotli(&slow, &cases).await;
}
on_both!(framework_errors_decode_under_gzip_and_brotli);

async fn on_a01_answers_carry_cache_and_browser_protections(db: Db) {
    let web = tempfile::tempdir().unwrap();
    std::fs::write(
        web.path().join("index.html"),
        "<!doctype html><title>t</title>",
    )
    .unwrap();
    let root = web.path().to_str().unwrap().to_owned();
    let server = Server::start(db.clone(), &["--web-root", &root]).await;
    let c = server.client();
    let body = serde_json::json!({"email": "ana@example.com", "password": "cubo-gira-9",
        "name": "Ana", "region": "pt-BR"})
    .to_string();
    let (status, headers, _) = c
        .raw_bytes(
            Method::POST,
            "/api/accounts",
            Some((body.into_bytes(), "application/json")),
        )
        .await
        .unwrap();
    assert_eq!(status, 201);
    assert_eq!(
        headers["cache-control"], "no-store",
        "a token is in this answer"
    );
    let body = r#"{"email":"ana@example.com","password":"cubo-gira-9"}"#;
    let (status, headers, _) = c
        .raw_bytes(
            Method::POST,
            "/api/sessions",
            Some((body.as_bytes().to_vec(), "application/json")),
        )
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(headers["cache-control"], "no-store");
    for path in ["/", "/index.html", "/sala/abc"] {
        let (status, headers, _) = c.raw_bytes(Method::GET, path, None).await.unwrap();
        assert_eq!(status, 200, "{path}");
        let csp = headers["content-security-policy"].to_str().unwrap();
        for needed in [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval'",
            "object-src 'none'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(needed), "{path}: {csp}");
        }
        assert!(!csp.contains("'unsafe-eval'"), "{csp}");
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert!(headers.contains_key("referrer-policy"));
        assert!(
            !headers.contains_key("strict-transport-security"),
            "no HSTS with a development certificate"
        );
    }
    // With a certificate of its own (here the development one, given as a real one), HSTS.
    let cert = server.dir.path().join("dev-cert.pem");
    let key = server.dir.path().join("dev-key.pem");
    let real = Server::start(
        server.fresh_db().await,
        &[
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    )
    .await;
    let real_client = Client::new(&real.base, &std::fs::read(&cert).unwrap()).unwrap();
    let (_, headers, _) = real_client
        .raw_bytes(Method::GET, "/api/health", None)
        .await
        .unwrap();
    assert!(
        headers["strict-transport-security"]
            .to_str()
            .unwrap()
            .starts_with("max-age="),
        "{headers:?}"
    );
}
on_both!(on_a01_answers_carry_cache_and_browser_protections);

/// The web build's files go out as the build compressed them, hashed names cached for a
/// year, the rest asked again every time; the API's JSON is compressed on the fly.
async fn web_files_are_precompressed_and_cached_by_their_names(db: Db) {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), b"not for the web").unwrap();
    let site = outside.path().join("site");
    std::fs::create_dir(&site).unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(site.join(name), bytes).unwrap();
    write("index.html", b"<!doctype html><title>t</title>");
    write("index.html.br", b"index-as-brotli");
    write("app-0123456789ab.js", b"plain script");
    write("app-0123456789ab.js.br", b"brotli script");
    write("app-0123456789ab.js.gz", b"gzip script");
    let root = site.to_str().unwrap().to_owned();
    let server = Server::start(db, &["--web-root", &root]).await;
    let c = server.client();
    for (accepts, encoding, body) in [
        ("br, gzip", Some("br"), "brotli script"),
        ("gzip", Some("gzip"), "gzip script"),
        ("identity", None, "plain script"),
    ] {
        let (status, headers, bytes) = c
            .get_encoded("/app-0123456789ab.js", accepts)
            .await
            .unwrap();
        assert_eq!(status, 200, "{accepts}");
        assert_eq!(
            headers.get("content-encoding").map(|v| v.to_str().unwrap()),
            encoding,
            "{accepts}"
        );
        assert_eq!(bytes, body.as_bytes(), "{accepts}");
        assert_eq!(
            headers["cache-control"], "public, max-age=31536000, immutable",
            "a hashed name never changes content"
        );
    }
    for path in ["/", "/index.html", "/sala/abc"] {
        let (status, headers, bytes) = c.get_encoded(path, "br").await.unwrap();
        assert_eq!(status, 200, "{path}");
        assert_eq!(
            headers["cache-control"], "no-cache",
            "{path}: a new build shows at once"
        );
        assert_eq!(bytes, b"index-as-brotli", "{path}");
    }
    let (status, headers, bytes) = c.get_encoded("/api/openapi.json", "gzip").await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(headers["content-encoding"], "gzip");
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "a gzip stream");
    let (_, headers, _) = c
        .get_encoded("/app-missing-0123456789ab.js", "br")
        .await
        .unwrap();
    assert_ne!(
        headers["cache-control"], "public, max-age=31536000, immutable",
        "a miss is never kept"
    );
    // A hostile path, encoded so no client library tidies it away, never leaves the folder.
    for path in [
        "/%2e%2e/secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e%2fsecret.txt.br",
    ] {
        let (_, _, bytes) = c.get_encoded(path, "br, gzip").await.unwrap();
        assert_ne!(bytes, b"not for the web", "{path}");
    }
}
on_both!(web_files_are_precompressed_and_cached_by_their_names);

async fn on_m05_a_player_holds_a_bounded_number_of_connections(db: Db) {
    let server = Server::start(db, &[]).await;
    let ana = server.player("ana", "pt-BR", UNTIL).await;
    let max = velha_server::live::MAX_CONNECTIONS_PER_PLAYER;
    let mut conns = Vec::new();
    for _ in 0..max {
        let mut live = ana.live().await.unwrap();
        expect(&mut live, "welcome", |m| {
            matches!(m, ServerMsg::Welcome { .. })
        })
        .await;
        conns.push(live);
    }
    let mut newest = ana.live().await.unwrap();
    expect(&mut newest, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    let told = expect(&mut conns[0], "the reason", |m| {
        matches!(m, ServerMsg::Error { .. })
    })
    .await;
    let ServerMsg::Error { code, message } = told else {
        unreachable!()
    };
    assert_eq!(code, ErrorCode::Conflict);
    assert!(message.contains("oldest"), "{message}");
    conns[0].closed(Duration::from_secs(5)).await.unwrap();
    for live in conns[1..].iter_mut().chain([&mut newest]) {
        live.send(&ClientMsg::Ping).await.unwrap();
        expect(live, "pong", |m| matches!(m, ServerMsg::Pong)).await;
    }
}
on_both!(on_m05_a_player_holds_a_bounded_number_of_connections);

/// A classic room's id, made by `c` (whose pool then keeps a connection open).
async fn a_room(c: &Client) -> String {
    c.create_room(
        velha_api::RoomBoard::Classic,
        "Ana",
        Some(velha_api::Avatar::Nino),
    )
    .await
    .unwrap()
    .room
    .id
}

/// One address cannot take every connection (and file descriptor) the server has: past
/// `--connections-per-address` a new connection is closed before its handshake, and a place
/// comes back when one of the address's connections ends.
#[tokio::test]
async fn an_address_holds_at_most_its_connections_at_once() {
    let server = Server::start(Db::Sqlite, &["--connections-per-address", "5"]).await;
    let c = server.client();
    // Its requests keep one connection open in the client's pool.
    let room = a_room(&c).await;
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(c.room_live(&room, "").await.unwrap());
    }
    assert!(
        c.room_live(&room, "").await.is_err(),
        "a sixth connection from the same address"
    );
    held.pop().unwrap().close().await;
    assert!(
        room_live_again(&c, &room).await,
        "the place of the closed one comes back"
    );
    let (status, _) = c.raw(Method::GET, "/api/health", None).await.unwrap();
    assert_eq!(status, 200, "the pooled connection still serves");
}

/// The connections an address may hold, opened all at once: never one more than its share,
/// round after round (a new server each round, so every place is free).
#[tokio::test]
async fn an_address_holds_at_most_its_connections_when_they_come_at_once() {
    for round in 0..5 {
        let server = Server::start(Db::Sqlite, &["--connections-per-address", "5"]).await;
        let c = server.client();
        // Its request keeps one of the five in the client's pool.
        let room = a_room(&c).await;
        let opened = join_all((0..20).map(|_| c.room_live(&room, ""))).await;
        let held = opened.iter().filter(|o| o.is_ok()).count();
        assert_eq!(held, 4, "round {round}");
    }
}

/// Many addresses together cannot take every file descriptor either: past `--max-connections`
/// a new connection is closed as soon as it is accepted, over TLS and over plain HTTP behind a
/// balancer (whose one address holds them all), when they all come at once, round after round.
#[tokio::test]
async fn the_server_holds_at_most_its_connections_in_all_when_they_come_at_once() {
    let tls: &[&str] = &["--connections-per-address", "0", "--max-connections", "5"];
    let plain: &[&str] = &[
        "--plain-http",
        "--forwarded-for-header",
        "x-forwarded-for",
        "--max-connections",
        "5",
    ];
    for (round, flags) in [tls, plain, tls, plain].into_iter().enumerate() {
        let server = Server::start(Db::Sqlite, flags).await;
        let c = server.client();
        // Its request keeps one of the five in the client's pool.
        let room = a_room(&c).await;
        let mut opened = join_all((0..20).map(|_| c.room_live(&room, ""))).await;
        let held = opened.iter().filter(|o| o.is_ok()).count();
        assert_eq!(held, 4, "round {round}, {flags:?}");
        // A place comes back when a connection ends.
        let one = opened.iter().position(Result::is_ok).unwrap();
        opened.swap_remove(one).unwrap().close().await;
        assert!(room_live_again(&c, &room).await, "round {round}");
    }
}

/// What `status_of` says of a connection the server closed before its handshake.
const NO_CONNECTION: &str = "no connection";

/// The status of `GET path` on a connection of its own, read to its end.
async fn status_of(server: &Server, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut tls) = crate::common::try_tls_offering(server, &[]).await else {
        return NO_CONNECTION.to_owned();
    };
    let request = format!("GET {path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n");
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tls.read_to_end(&mut answer).await;
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or("no answer")
        .to_owned()
}

/// A static file being sent holds a descriptor beside its connection's: it takes a place
/// among `--max-connections` until its last byte is out, so that slow downloads cannot take
/// the descriptors the cap leaves to the database; with no place left a file is a 503 at
/// once, not a wait, and the places come back when the download ends.
#[tokio::test]
async fn a_file_being_sent_takes_a_place_among_the_connections() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let web = tempfile::tempdir().unwrap();
    std::fs::write(
        web.path().join("index.html"),
        "<!doctype html><title>t</title>",
    )
    .unwrap();
    // Far more than the sockets' buffers hold: its sending waits for its reader.
    std::fs::write(web.path().join("big.bin"), vec![7u8; 64 << 20]).unwrap();
    let root = web.path().to_str().unwrap().to_owned();
    let server = Server::start(Db::Sqlite, &["--web-root", &root, "--max-connections", "3"]).await;
    assert_eq!(status_of(&server, "/index.html").await, "HTTP/1.1 200 OK");
    // A slow reader: its connection and its file take two of the three places.
    let mut slow = crate::common::tls_offering(&server, &[]).await;
    slow.write_all(b"GET /big.bin HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut head = [0u8; 12];
    slow.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // The third is the next connection's, and its file finds none. The first request's
    // connection may hold its place a moment after its answer was read (on a busy machine):
    // until the server lets it go, a new connection is one past the cap, closed at once.
    let mut refused = status_of(&server, "/index.html").await;
    for _ in 0..50 {
        if refused != NO_CONNECTION {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        refused = status_of(&server, "/index.html").await;
    }
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    drop(slow);
    let mut answered = refused;
    for _ in 0..50 {
        answered = status_of(&server, "/index.html").await;
        if answered == "HTTP/1.1 200 OK" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        answered, "HTTP/1.1 200 OK",
        "the slow reader's places came back"
    );
}
