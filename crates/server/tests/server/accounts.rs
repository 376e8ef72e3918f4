//! ON-A01 … ON-A03: accounts, sessions, sign-in limits, countries and subscriptions.

use reqwest::Method;
use sqlx::Row;
use velha_api::{ErrorCode, Scope};

use crate::common::{Db, Server, limited_at_once, posted_at_once};

async fn stored(server: &Server, sql: &str) -> Vec<String> {
    sqlx::query(sql)
        .fetch_all(&mut server.database().await)
        .await
        .expect("query")
        .iter()
        .map(|r| r.get::<String, _>(0))
        .collect()
}

async fn on_a01_email_accounts_sessions_and_clear_errors(db: Db) {
    let server = Server::start(db, &["--login-failures-per-account", "3"]).await;
    let mut ana = server.client();
    let s = ana
        .sign_up("  Ana@Example.COM ", "cubo-gira-9", "Ana", "pt-BR")
        .await
        .unwrap();
    assert!(s.created);
    assert_eq!(s.account.email.as_deref(), Some("ana@example.com"));
    assert_eq!(ana.me().await.unwrap().name, "Ana");

    let mut other = server.client();
    let e = other
        .sign_up("ana@example.com", "outra-senha-1", "Bia", "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::EmailTaken);
    let e = other
        .sign_up("bia@example.com", "outra-senha-1", "ANA", "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(
        e.code,
        ErrorCode::NameTaken,
        "names are unique whatever the case"
    );
    let e = other
        .sign_up("bia@example.com", "12345678", "Bia", "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::WeakPassword);
    assert!(e.message.contains("common"), "{}", e.message);
    let e = other
        .sign_up("bia-at-example.com", "outra-senha-1", "Bia", "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadEmail);

    // Only a slow salted hash is stored, and only hashes of session tokens.
    let hashes = stored(&server, "SELECT password_hash FROM accounts").await;
    assert_eq!(hashes.len(), 1);
    assert!(hashes[0].starts_with("$argon2id$"), "{}", hashes[0]);
    assert!(!hashes[0].contains("cubo-gira-9"));
    let tokens = stored(&server, "SELECT token_hash FROM sessions").await;
    assert!(!tokens.contains(s.token.as_ref().unwrap()));

    let mut again = server.client();
    let e = again
        .log_in("ana@example.com", "errada-123")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::WrongPassword);
    let e = again
        .log_in("nobody@example.com", "errada-123")
        .await
        .unwrap_err();
    assert_eq!(
        e.code,
        ErrorCode::WrongPassword,
        "unknown e-mails look the same"
    );
    let s2 = again
        .log_in("ANA@example.com", "cubo-gira-9")
        .await
        .unwrap();
    assert!(!s2.created);
    assert_ne!(s2.token, s.token);

    // Signing out ends that session only.
    again.log_out().await.unwrap();
    assert_eq!(again.me().await.unwrap_err().code, ErrorCode::Unauthorized);
    assert_eq!(ana.me().await.unwrap().name, "Ana");
    let mut forged = server.client();
    forged.token = Some("not-a-token".into());
    assert_eq!(forged.me().await.unwrap_err().code, ErrorCode::Unauthorized);

    // Three failures lock the account for the window, even with the right password after.
    let mut attacker = server.client();
    for _ in 0..3 {
        let e = attacker
            .log_in("ana@example.com", "chute-0000")
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WrongPassword);
    }
    let e = attacker
        .log_in("ana@example.com", "cubo-gira-9")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::RateLimited);
    assert!(e.retry_after_s.is_some_and(|s| s > 0));
}
on_both!(on_a01_email_accounts_sessions_and_clear_errors);

async fn on_a01_failed_sign_ins_are_limited_per_address(db: Db) {
    let server = Server::start(db, &["--login-failures-per-address", "4"]).await;
    let mut c = server.client();
    for i in 0..4 {
        let e = c
            .log_in(&format!("p{i}@example.com"), "chute-0000")
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::WrongPassword);
    }
    let e = c.log_in("p9@example.com", "chute-0000").await.unwrap_err();
    assert_eq!(e.code, ErrorCode::RateLimited);
}
on_both!(on_a01_failed_sign_ins_are_limited_per_address);

async fn on_a01_the_failed_sign_ins_limit_holds_under_concurrent_guesses(db: Db) {
    // Production's slow hash, so that the guesses of a round are all in flight at once, and
    // each round from an address of its own behind the proxy.
    let server = Server::start(
        db,
        &[
            "--argon2-memory-kib",
            "19456",
            "--forwarded-for-header",
            "x-forwarded-for",
        ],
    )
    .await;
    for round in 0..4 {
        let email = format!("alvo{round}@example.com");
        let body = serde_json::json!({ "email": email, "password": "chute-0000" }).to_string();
        let address = format!("198.51.100.{round}");
        let answers = posted_at_once(&server, "/api/sessions", &address, vec![body; 40]).await;
        let statuses: Vec<u16> = answers.iter().map(|(s, _, _)| *s).collect();
        // The account's 5 failures a window (the default), whatever was in flight.
        assert_eq!(
            statuses.iter().filter(|s| **s == 401).count(),
            5,
            "{statuses:?}"
        );
        for (status, _, refusal) in answers.iter().filter(|(s, _, _)| *s != 401) {
            assert_eq!(*status, 429, "{refusal}");
            assert_eq!(refusal["code"], "rate_limited", "{refusal}");
            // One more guess each fifth of the 15-minute window: the guesses refused did not
            // push the wait further.
            let wait = refusal["retry_after_s"].as_u64().unwrap();
            assert!(wait <= 180, "{wait} s");
        }
    }
}
on_both!(on_a01_the_failed_sign_ins_limit_holds_under_concurrent_guesses);

async fn on_a01_new_accounts_are_limited_per_address(db: Db) {
    let server = Server::start(db, &["--signups-per-address-per-hour", "2"]).await;
    let mut c = server.client();
    for name in ["ana", "bia"] {
        c.sign_up(&format!("{name}@example.com"), "cubo-gira-9", name, "pt-BR")
            .await
            .unwrap();
    }
    let e = c
        .sign_up("caio@example.com", "cubo-gira-9", "caio", "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::RateLimited);
    assert!(e.message.contains("new accounts"), "{}", e.message);
    assert!(
        c.log_in("ana@example.com", "cubo-gira-9").await.is_ok(),
        "signing in still works"
    );
}
on_both!(on_a01_new_accounts_are_limited_per_address);

async fn on_a01_malformed_requests_get_clear_errors(db: Db) {
    let server = Server::start(db, &[]).await;
    let c = server.client();
    let big = format!(r#"{{"email":"{}","password":"x"}}"#, "x".repeat(3_000_000));
    let cases: [(&str, Option<&str>, u16, &str); 4] = [
        ("/api/accounts", Some("{not json"), 400, "bad_request"),
        ("/api/accounts", Some(r#"{"email": 3}"#), 400, "bad_request"),
        (
            "/api/accounts",
            Some(r#"{"email":"a@b.com","password":"cubo-gira-9","name":"ab","region":"pt-BR"}"#),
            400,
            "bad_name",
        ),
        (
            "/api/accounts",
            Some(r#"{"email":"a@b.com","password":"cubo-gira-9","name":"abc","region":"xx"}"#),
            400,
            "bad_region",
        ),
    ];
    for (path, body, status, code) in cases {
        let (got, json) = c.raw(Method::POST, path, body).await.unwrap();
        assert_eq!(
            got,
            status,
            "{path} {:?}",
            body.map(|b| &b[..b.len().min(60)])
        );
        assert_eq!(json["code"], code, "{json}");
        assert!(json["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let (status, json) = c.raw(Method::GET, "/api/nothing/here", None).await.unwrap();
    assert_eq!((status, json["code"].as_str()), (404, Some("not_found")));
    // Its own client: the server closes a connection whose body it refused unread. Closing
    // with unread bytes resets the connection, and a reset can beat the answer to the client
    // (TCP's doing, rare): that attempt is made again, the answer must come.
    let mut answered = Err(String::new());
    for _ in 0..5 {
        answered = server
            .client()
            .raw(Method::POST, "/api/sessions", Some(&big))
            .await;
        if answered.is_ok() {
            break;
        }
    }
    let (status, json) = answered.expect("the server answers a body too large");
    assert_eq!((status, json["code"].as_str()), (413, Some("too_large")));
    let (status, _) = c.raw(Method::GET, "/api/health", None).await.unwrap();
    assert_eq!(status, 200, "still serving");
}
on_both!(on_a01_malformed_requests_get_clear_errors);

async fn on_a02_country_from_the_region_and_its_changes(db: Db) {
    let server = Server::start(db, &[]).await;
    let mut c = server.client();
    let s = c
        .sign_up("joe@example.com", "cubo-gira-9", "joe_1", "en_US.UTF-8")
        .await
        .unwrap();
    assert_eq!(s.account.country, "US");
    let (status, json) = c
        .raw(Method::PUT, "/api/me/region", Some(r#"{"region":"pt-PT"}"#))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(json["country"], "PT");
    assert_eq!(c.me().await.unwrap().country, "PT");
    let (status, json) = c
        .raw(
            Method::PUT,
            "/api/me/region",
            Some(r#"{"region":"nowhere"}"#),
        )
        .await
        .unwrap();
    assert_eq!((status, json["code"].as_str()), (400, Some("bad_region")));
    assert_eq!(
        c.me().await.unwrap().country,
        "PT",
        "a refused change changes nothing"
    );
}
on_both!(on_a02_country_from_the_region_and_its_changes);

/// A sign-up's body, as JSON, with `extra` fields added (ON-A02's `country`).
fn sign_up_body(name: &str, region: &str, extra: serde_json::Value) -> String {
    let mut body = serde_json::json!({
        "email": format!("{name}@example.com"), "password": "cubo-gira-9",
        "name": name, "region": region,
    });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body.to_string()
}

/// Signs up with a raw body; the client keeps the session. The status and the answer.
async fn raw_sign_up(c: &mut velha_load::Client, body: &str) -> (u16, serde_json::Value) {
    let (status, json) = c
        .raw(Method::POST, "/api/accounts", Some(body))
        .await
        .unwrap();
    if let Some(token) = json["token"].as_str() {
        c.token = Some(token.into());
    }
    (status, json)
}

async fn on_a02_a_region_naming_no_country_signs_up_with_the_country_picked(db: Db) {
    let server = Server::start(db, &[]).await;
    // A browser that says only "pt": a language, no country.
    let (status, json) = raw_sign_up(
        &mut server.client(),
        &sign_up_body("nina", "pt", serde_json::json!({})),
    )
    .await;
    assert_eq!((status, json["code"].as_str()), (400, Some("bad_region")));
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .contains("country the player picks"),
        "{json}"
    );
    let mut nina = server.client();
    let (status, json) = raw_sign_up(
        &mut nina,
        &sign_up_body("nina", "pt", serde_json::json!({"country": "BR"})),
    )
    .await;
    assert_eq!(status, 201, "{json}");
    assert_eq!(json["account"]["country"], "BR");
    assert_eq!(json["account"]["country_chosen"], true);
    assert_eq!(nina.me().await.unwrap().country, "BR");
    // Any case is the same country; keeping the region's proposal is not a choice of one's own.
    let (status, json) = raw_sign_up(
        &mut server.client(),
        &sign_up_body("lia", "pt-BR", serde_json::json!({"country": " br "})),
    )
    .await;
    assert_eq!(status, 201, "{json}");
    assert_eq!(json["account"]["country"], "BR");
    assert_eq!(json["account"]["country_chosen"], false);
    // An old app sends no country: the region's, as before.
    let (status, json) = raw_sign_up(
        &mut server.client(),
        &sign_up_body("rui", "pt-PT", serde_json::json!({})),
    )
    .await;
    assert_eq!(status, 201, "{json}");
    assert_eq!(json["account"]["country"], "PT");
}
on_both!(on_a02_a_region_naming_no_country_signs_up_with_the_country_picked);

async fn on_a02_a_country_that_is_none_is_refused_with_a_clear_error(db: Db) {
    let server = Server::start(db, &[]).await;
    for bad in ["ZZ", "BRA", "Brasil", "", "B\u{0}R"] {
        let (status, json) = raw_sign_up(
            &mut server.client(),
            &sign_up_body("nina", "pt-BR", serde_json::json!({"country": bad})),
        )
        .await;
        assert_eq!(
            (status, json["code"].as_str()),
            (400, Some("bad_country")),
            "{bad:?}"
        );
        let message = json["message"].as_str().unwrap();
        assert!(
            message.contains("not a country") || message.contains("U+0000"),
            "{message}"
        );
    }
    let (status, json) = raw_sign_up(
        &mut server.client(),
        &sign_up_body("nina", "pt-BR", serde_json::json!({"country": 55})),
    )
    .await;
    assert_eq!((status, json["code"].as_str()), (400, Some("bad_request")));
    assert_eq!(stored(&server, "SELECT name FROM accounts").await.len(), 0);

    let nina = server.player("nina", "pt-BR", None).await;
    for (body, code) in [
        (r#"{"country":"XX"}"#, "bad_country"),
        (r#"{"country":"pt-BR"}"#, "bad_country"),
        (r#"{"region":"pt-PT"}"#, "bad_request"),
    ] {
        let (status, json) = nina
            .raw(Method::PUT, "/api/me/country", Some(body))
            .await
            .unwrap();
        assert_eq!((status, json["code"].as_str()), (400, Some(code)), "{body}");
    }
    let me = nina.me().await.unwrap();
    assert_eq!(
        (me.country.as_str(), me.country_chosen),
        ("BR", false),
        "nothing changed"
    );
    let (status, json) = server
        .client()
        .raw(Method::PUT, "/api/me/country", Some(r#"{"country":"PT"}"#))
        .await
        .unwrap();
    assert_eq!((status, json["code"].as_str()), (401, Some("unauthorized")));
}
on_both!(on_a02_a_country_that_is_none_is_refused_with_a_clear_error);

async fn on_a02_changing_the_country_moves_the_national_standing(db: Db) {
    use crate::rankings::{DAY0, HOUR, League};
    use velha_api::{EndHow, Seat};
    let l = League::new(db, &[("joe", "en-US"), ("ana", "pt-BR")]).await;
    l.play("joe", "ana", 1, Seat::X, EndHow::Line, DAY0 + HOUR)
        .await;
    let names = |rows: Vec<velha_api::RankingRow>| {
        rows.into_iter()
            .map(|r| (r.name, r.country))
            .collect::<Vec<_>>()
    };
    let us = l.whole("joe", "scope=nacional&level=1", 50).await;
    assert_eq!(names(us), [("joe".into(), "US".into())]);
    // A Brazilian with an English browser picks Brazil on the profile.
    let (status, json) = l.players["joe"]
        .raw(Method::PUT, "/api/me/country", Some(r#"{"country":"BR"}"#))
        .await
        .unwrap();
    assert_eq!(status, 200, "{json}");
    assert_eq!(
        (json["country"].as_str(), json["country_chosen"].as_bool()),
        (Some("BR"), Some(true))
    );
    let br = l.whole("joe", "scope=nacional&level=1", 50).await;
    assert_eq!(
        names(br),
        [("joe".into(), "BR".into()), ("ana".into(), "BR".into())]
    );
    assert!(
        l.whole("ana", "scope=nacional&level=1&country=US", 50)
            .await
            .is_empty()
    );
    let (ok, report) = l.server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "the counts of players per points moved too: {report}");
}
on_both!(on_a02_changing_the_country_moves_the_national_standing);

async fn on_a02_country_changes_at_once_keep_the_national_counts_true(db: Db) {
    use crate::rankings::{DAY0, HOUR, League};
    use velha_api::{EndHow, Seat};
    let l = League::new(db, &[("joe", "en-US"), ("ana", "pt-BR")]).await;
    l.play("joe", "ana", 1, Seat::X, EndHow::Line, DAY0 + HOUR)
        .await;
    l.play("ana", "joe", 2, Seat::X, EndHow::Line, DAY0 + 2 * HOUR)
        .await;
    let joe = &l.players["joe"];
    let countries = ["BR", "PT", "US", "AR", "GB"];
    for round in 0..10 {
        // Picks and region refreshes of one player at once, as two devices and a retrying
        // network send them: each moves both standings and the counts, or nothing.
        let answers = futures_util::future::join_all((0..12).map(|i| {
            let c = countries[(round + i) % countries.len()];
            let (path, body) = if i % 3 == 0 {
                ("/api/me/region", format!(r#"{{"region":"en-{c}"}}"#))
            } else {
                ("/api/me/country", format!(r#"{{"country":"{c}"}}"#))
            };
            async move { joe.raw(Method::PUT, path, Some(&body)).await.unwrap() }
        }))
        .await;
        for (status, json) in &answers {
            assert_eq!(*status, 200, "round {round}: {json}");
        }
        let (ok, report) = l.server.admin(&["rankings", "rebuild", "--check"]).await;
        assert!(ok, "round {round}: the counts drifted: {report}");
        let me = joe.me().await.unwrap();
        let standings = stored(
            &l.server,
            "SELECT DISTINCT s.country FROM standings s JOIN accounts a ON a.id = s.account_id \
             WHERE a.name = 'joe'",
        )
        .await;
        assert_eq!(
            standings,
            std::slice::from_ref(&me.country),
            "round {round}"
        );
        for level in [1, 2] {
            let national = l
                .whole("joe", &format!("scope=nacional&level={level}"), 50)
                .await;
            assert!(
                national
                    .iter()
                    .any(|r| r.name == "joe" && r.country == me.country),
                "round {round}, level {level}: joe in {}'s ranking",
                me.country
            );
        }
    }
}
on_both!(on_a02_country_changes_at_once_keep_the_national_counts_true);

async fn on_a02_the_region_no_longer_changes_a_country_picked_by_hand(db: Db) {
    let server = Server::start(db, &[]).await;
    let region = |region: &str| format!(r#"{{"region":"{region}"}}"#);
    let country = |c: &str| format!(r#"{{"country":"{c}"}}"#);
    let joe = server.player("joe", "en-US", None).await;
    // Until the player picks, the country follows the phone's region.
    let (_, json) = joe
        .raw(Method::PUT, "/api/me/region", Some(&region("en-GB")))
        .await
        .unwrap();
    assert_eq!(
        (json["country"].as_str(), json["country_chosen"].as_bool()),
        (Some("GB"), Some(false))
    );
    let (status, _) = joe
        .raw(Method::PUT, "/api/me/country", Some(&country("br")))
        .await
        .unwrap();
    assert_eq!(status, 200);
    let (status, json) = joe
        .raw(Method::PUT, "/api/me/region", Some(&region("en-US")))
        .await
        .unwrap();
    assert_eq!(
        status, 200,
        "the app's refresh is answered, and changes nothing"
    );
    assert_eq!(
        (json["country"].as_str(), json["country_chosen"].as_bool()),
        (Some("BR"), Some(true))
    );
    let me = joe.me().await.unwrap();
    assert_eq!((me.country.as_str(), me.country_chosen), ("BR", true));
    // Picking again is still the player's to do.
    let (_, json) = joe
        .raw(Method::PUT, "/api/me/country", Some(&country("PT")))
        .await
        .unwrap();
    assert_eq!(json["country"], "PT");

    // A country picked at sign-up other than the region's is kept the same way.
    let mut bia = server.client();
    raw_sign_up(
        &mut bia,
        &sign_up_body("bia", "en-US", serde_json::json!({"country": "BR"})),
    )
    .await;
    bia.raw(Method::PUT, "/api/me/region", Some(&region("en-US")))
        .await
        .unwrap();
    assert_eq!(bia.me().await.unwrap().country, "BR");
    let countries = stored(
        &server,
        "SELECT name || ':' || country || ':' || country_chosen FROM accounts ORDER BY name",
    )
    .await;
    assert_eq!(countries, ["bia:BR:1", "joe:PT:1"]);
}
on_both!(on_a02_the_region_no_longer_changes_a_country_picked_by_hand);

async fn on_a03_online_cube_play_is_for_subscribers(db: Db) {
    let server = Server::start(db, &[]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let bia = server.player("bia", "pt-BR", Some("2099-12-31")).await;
    assert!(!ana.me().await.unwrap().subscriber);
    let me = bia.me().await.unwrap();
    assert!(me.subscriber);
    assert_eq!(me.subscribed_until.as_deref(), Some("2099-12-31"));

    let e = ana.lobby(Scope::Mundial, 1).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::SubscribersOnly);
    assert_eq!(e.message, "online cube play is for subscribers only");
    assert_eq!(
        ana.create(Scope::Mundial, 1).await.unwrap_err().code,
        ErrorCode::SubscribersOnly
    );
    let open = bia.create(Scope::Mundial, 1).await.unwrap();
    assert_eq!(
        ana.join(&open.id).await.unwrap_err().code,
        ErrorCode::SubscribersOnly
    );

    let (ok, text) = server.admin(&["subscription", "show", "BIA"]).await;
    assert!(ok && text.contains("through 2099-12-31"), "{text}");
    let (ok, text) = server.admin(&["subscription", "revoke", "bia"]).await;
    assert!(ok, "{text}");
    assert_eq!(
        bia.lobby(Scope::Mundial, 1).await.unwrap_err().code,
        ErrorCode::SubscribersOnly
    );
    let (ok, text) = server
        .admin(&["subscription", "grant", "ana", "--until", "2099-01-01"])
        .await;
    assert!(ok, "{text}");
    assert!(ana.lobby(Scope::Mundial, 1).await.is_ok());

    for (args, why) in [
        (
            &["subscription", "grant", "zé", "--until", "2099-01-01"][..],
            "no player",
        ),
        (
            &["subscription", "grant", "ana", "--until", "2001-01-01"][..],
            "already past",
        ),
        (
            &["subscription", "grant", "ana", "--until", "amanhã"][..],
            "not a date",
        ),
    ] {
        let (ok, text) = server.admin(args).await;
        assert!(!ok && text.contains(why), "{args:?}: {text}");
    }
}
on_both!(on_a03_online_cube_play_is_for_subscribers);

/// The web app's session (ON-A01): an HttpOnly, Secure, SameSite=Strict cookie, never a token
/// page scripts could read; requests that change anything by the cookie alone must come from
/// the site's own pages.
async fn on_a01_the_web_session_is_an_http_only_cookie(db: Db) {
    let server = Server::start(db, &[]).await;
    let web = server.client();
    let body = r#"{"email":"ana@example.com","password":"cubo-gira-9","name":"Ana","region":"pt-BR","cookie":true}"#;
    let (status, headers, json) = web
        .raw_with_headers(Method::POST, "/api/accounts", &[], Some(body))
        .await
        .unwrap();
    assert_eq!(status, 201, "{json}");
    assert!(json.get("token").is_none(), "no token in the body: {json}");
    assert_eq!(json["account"]["name"], "Ana");
    let set = headers["set-cookie"].to_str().unwrap().to_owned();
    for part in [
        "__Host-velha-session=",
        "HttpOnly",
        "Secure",
        "SameSite=Strict",
        "Path=/",
    ] {
        assert!(set.contains(part), "{set}");
    }
    let cookie = set.split(';').next().unwrap().to_owned();
    let (status, _, json) = web
        .raw_with_headers(Method::GET, "/api/me", &[("cookie", &cookie)], None)
        .await
        .unwrap();
    assert_eq!((status, json["name"].as_str()), (200, Some("Ana")));

    let host = server.base.trim_start_matches("https://").to_owned();
    let region = Some(r#"{"region":"pt-PT"}"#);
    let foreign = "https://evil.example";
    for (headers, why) in [
        (
            vec![("cookie", cookie.as_str())],
            "no sign of where it came from",
        ),
        (
            vec![("cookie", &cookie), ("sec-fetch-site", "cross-site")],
            "another site",
        ),
        (
            vec![("cookie", &cookie), ("sec-fetch-site", "same-site")],
            "a sibling site",
        ),
        (
            vec![("cookie", &cookie), ("origin", foreign)],
            "another origin",
        ),
    ] {
        let (status, _, json) = web
            .raw_with_headers(Method::PUT, "/api/me/region", &headers, region)
            .await
            .unwrap();
        assert_eq!(
            (status, json["code"].as_str()),
            (403, Some("forbidden")),
            "{why}"
        );
    }
    let own = format!("https://{host}");
    for headers in [
        vec![
            ("cookie", cookie.as_str()),
            ("sec-fetch-site", "same-origin"),
        ],
        vec![("cookie", &cookie), ("origin", &own)],
    ] {
        let (status, _, json) = web
            .raw_with_headers(Method::PUT, "/api/me/region", &headers, region)
            .await
            .unwrap();
        assert_eq!(
            (status, json["country"].as_str()),
            (200, Some("PT")),
            "{json}"
        );
    }

    // Signing out forgets the session and tells the browser to drop the cookie.
    let (status, headers, _) = web
        .raw_with_headers(
            Method::DELETE,
            "/api/sessions/current",
            &[("cookie", &cookie), ("sec-fetch-site", "same-origin")],
            None,
        )
        .await
        .unwrap();
    assert_eq!(status, 204);
    assert!(
        headers["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    let (status, _, json) = web
        .raw_with_headers(Method::GET, "/api/me", &[("cookie", &cookie)], None)
        .await
        .unwrap();
    assert_eq!((status, json["code"].as_str()), (401, Some("unauthorized")));

    // Signing in again by cookie; the native app's bearer sessions are unchanged.
    let body = r#"{"email":"ana@example.com","password":"cubo-gira-9","cookie":true}"#;
    let (status, headers, json) = web
        .raw_with_headers(Method::POST, "/api/sessions", &[], Some(body))
        .await
        .unwrap();
    assert_eq!(status, 200, "{json}");
    assert!(json.get("token").is_none() && headers.contains_key("set-cookie"));
    let mut native = server.client();
    let session = native
        .log_in("ana@example.com", "cubo-gira-9")
        .await
        .unwrap();
    assert!(session.token.is_some());
    assert_eq!(native.me().await.unwrap().country, "PT");
}
on_both!(on_a01_the_web_session_is_an_http_only_cookie);

/// ON-A01: names and e-mails stay unique when many sign-ups race for them: in each round six
/// sign-ups with one name and six with one e-mail go at once; exactly one of each is made, the
/// others are refused with the reason, and the database holds one account per name and e-mail.
async fn on_a01_one_account_per_name_and_email_under_concurrent_sign_ups(db: Db) {
    let server = Server::start(db, &["--signups-per-address-per-hour", "100000"]).await;
    for round in 0..10 {
        let name = format!("Disputa{round}");
        let email = format!("disputa{round}@example.com");
        let same_name = (0..6).map(|i| {
            let mut c = server.client();
            let (name, email) = (name.clone(), format!("n{round}x{i}@example.com"));
            async move { c.sign_up(&email, "cubo-gira-9", &name, "pt-BR").await }
        });
        // The same address written differently: the server compares it normalised.
        let same_email = (0..6).map(|i| {
            let mut c = server.client();
            let email = if i % 2 == 0 {
                email.clone()
            } else {
                email.to_uppercase()
            };
            let name = format!("E{round}x{i}");
            async move { c.sign_up(&email, "cubo-gira-9", &name, "pt-BR").await }
        });
        let (by_name, by_email) = futures_util::future::join(
            futures_util::future::join_all(same_name),
            futures_util::future::join_all(same_email),
        )
        .await;
        for (answers, refusal) in [
            (by_name, ErrorCode::NameTaken),
            (by_email, ErrorCode::EmailTaken),
        ] {
            assert_eq!(
                answers.iter().filter(|a| a.is_ok()).count(),
                1,
                "round {round}"
            );
            for a in answers.iter().filter_map(|a| a.as_ref().err()) {
                assert_eq!(a.code, refusal, "round {round}: {}", a.message);
            }
        }
    }
    let names = stored(
        &server,
        "SELECT name FROM accounts WHERE name LIKE 'Disputa%'",
    )
    .await;
    assert_eq!(names.len(), 10);
    let emails = stored(
        &server,
        "SELECT email FROM accounts WHERE email LIKE 'disputa%'",
    )
    .await;
    assert_eq!(emails.len(), 10);
}
on_both!(on_a01_one_account_per_name_and_email_under_concurrent_sign_ups);

async fn on_a01_the_new_accounts_limit_holds_under_concurrent_sign_ups(db: Db) {
    // Behind a proxy the address is the header's: each round is a new address.
    let server = Server::start(
        db,
        &[
            "--signups-per-address-per-hour",
            "5",
            "--forwarded-for-header",
            "x-forwarded-for",
        ],
    )
    .await;
    for round in 0..10 {
        let bodies = (0..20)
            .map(|i| {
                serde_json::json!({
                    "email": format!("r{round}n{i}@example.com"),
                    "password": "cubo-gira-9",
                    "name": format!("R{round}n{i}"),
                    "region": "pt-BR",
                })
                .to_string()
            })
            .collect();
        let address = format!("198.51.100.{round}");
        limited_at_once(&server, "/api/accounts", &address, bodies, 5).await;
    }
    let made = stored(&server, "SELECT name FROM accounts WHERE name LIKE 'R%n%'").await;
    assert_eq!(made.len(), 50);
}
on_both!(on_a01_the_new_accounts_limit_holds_under_concurrent_sign_ups);
