//! ON-A05: a player downloads everything the server holds about them. Every table of the
//! schema is read by a section of the export or named as holding nobody's data; a player who
//! did everything gets every table's rows of theirs, counted here by queries of its own, and
//! nothing of anybody else.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::Value;
use sqlx::Executor;
use velha_api::{ClientMsg, RoomAct, RoomBoard, Scope, ServerMsg};
use velha_load::Client;
use velha_server::store::{NOBODYS, SECTIONS, Store};

use crate::common::{Db, Server, expect};
use crate::groups::{accept, create, invite, subscribers};

/// The export of `c`: the status, its headers, and the file.
async fn export(c: &Client) -> (u16, reqwest::header::HeaderMap, Value) {
    c.raw_bytes(Method::GET, "/api/me/export", None)
        .await
        .unwrap()
}

async fn on_a05_every_table_is_exported_or_named_as_nobodys(db: Db) {
    let server = Server::start(db, &[]).await;
    let store = Store::open(&server.database_url()).await.unwrap();
    let tables: BTreeSet<String> = store.table_names().await.unwrap().into_iter().collect();
    let exported: BTreeSet<String> = SECTIONS
        .iter()
        .flat_map(|s| s.tables.iter().map(|t| t.to_string()))
        .collect();
    let nobodys: BTreeSet<String> = NOBODYS.iter().map(|(t, _)| t.to_string()).collect();
    let unclassified: Vec<_> = tables
        .iter()
        .filter(|t| !exported.contains(*t) && !nobodys.contains(*t))
        .collect();
    assert!(
        unclassified.is_empty(),
        "tables neither exported nor named in NOBODYS (store/export.rs): {unclassified:?}"
    );
    let stale: Vec<_> = exported
        .union(&nobodys)
        .filter(|t| !tables.contains(*t))
        .collect();
    assert!(stale.is_empty(), "named but not in the schema: {stale:?}");
    assert!(
        exported.is_disjoint(&nobodys),
        "a table both exported and nobody's"
    );
}
on_both!(on_a05_every_table_is_exported_or_named_as_nobodys);

/// Each table's rows of the player whose id is `$1`, counted apart from the export's own
/// queries: (section, table, count query).
const ORACLE: &[(&str, &str)] = &[
    ("account", "SELECT COUNT(*) FROM accounts WHERE id = $1"),
    (
        "sessions",
        "SELECT COUNT(*) FROM sessions WHERE account_id = $1",
    ),
    (
        "email_links",
        "SELECT COUNT(*) FROM email_tokens WHERE account_id = $1",
    ),
    (
        "matches",
        "SELECT COUNT(*) FROM matches WHERE x_id = $1 OR o_id = $1",
    ),
    (
        "moves",
        "SELECT COUNT(*) FROM moves WHERE match_id IN \
         (SELECT id FROM matches WHERE x_id = $1 OR o_id = $1)",
    ),
    (
        "playing_now",
        "SELECT COUNT(*) FROM active_players WHERE account_id = $1",
    ),
    (
        "standings",
        "SELECT COUNT(*) FROM standings WHERE account_id = $1",
    ),
    (
        "rating_2_0",
        "SELECT COUNT(*) FROM v2_ratings WHERE account_id = $1",
    ),
    (
        "queue_2_0",
        "SELECT COUNT(*) FROM v2_queue WHERE account_id = $1",
    ),
    (
        "group_created",
        "SELECT COUNT(*) FROM mini_groups WHERE creator_id = $1",
    ),
    (
        "groups",
        "SELECT COUNT(*) FROM group_members WHERE account_id = $1",
    ),
    (
        "group_invitations",
        "SELECT COUNT(*) FROM group_invitations WHERE account_id = $1",
    ),
    (
        "rooms",
        "SELECT COUNT(*) FROM room_seats WHERE account_id = $1",
    ),
    (
        "room_moves",
        "SELECT COUNT(*) FROM room_moves WHERE room_id IN \
         (SELECT room_id FROM room_seats WHERE account_id = $1)",
    ),
    (
        "subscription_grant",
        "SELECT COUNT(*) FROM subscription_grants WHERE account_id = $1",
    ),
    (
        "payment_customers",
        "SELECT COUNT(*) FROM payment_customers WHERE account_id = $1",
    ),
    (
        "paid_subscriptions",
        "SELECT COUNT(*) FROM paid_subscriptions WHERE account_id = $1",
    ),
    (
        "invoices",
        "SELECT COUNT(*) FROM invoices WHERE subscription_id IN \
         (SELECT subscription_id FROM paid_subscriptions WHERE account_id = $1)",
    ),
    (
        "payments_taken_back",
        "SELECT COUNT(*) FROM withdrawn_payments WHERE payment_id IN \
         (SELECT payment_id FROM invoices WHERE subscription_id IN \
         (SELECT subscription_id FROM paid_subscriptions WHERE account_id = $1))",
    ),
    (
        "checkout",
        "SELECT COUNT(*) FROM checkouts WHERE account_id = $1",
    ),
    (
        "push_subscriptions",
        "SELECT COUNT(*) FROM push_subscriptions WHERE account_id = $1 OR (account_id IS NULL \
         AND id IN (SELECT subscription_id FROM push_seats WHERE credential_hash IN \
         (SELECT credential_hash FROM room_seats WHERE account_id = $1)))",
    ),
    (
        "push_seats",
        "SELECT COUNT(*) FROM push_seats WHERE credential_hash IN \
         (SELECT credential_hash FROM room_seats WHERE account_id = $1)",
    ),
    (
        "reports_made",
        "SELECT COUNT(*) FROM reports WHERE reporter_id = $1",
    ),
    (
        "reports_about_you",
        "SELECT COUNT(*) FROM reports WHERE reported_id = $1",
    ),
    (
        "moderation",
        "SELECT COUNT(*) FROM admin_actions WHERE account_id = $1",
    ),
    (
        "connected_through",
        "SELECT COUNT(*) FROM presence WHERE account_id = $1",
    ),
];

/// What the provider and the push service would have written for `who` (their notices and
/// subscriptions come from outside services this test does not start), beside what the API
/// wrote.
async fn outside_rows(server: &Server, who: &str, id: &str, credential_hash: &str) {
    let mut db = server.database().await;
    for sql in [
        format!(
            "INSERT INTO email_tokens VALUES ('tok-{who}', '{id}', 'verify', '{who}@example.com', 1, 2, NULL)"
        ),
        format!("INSERT INTO payment_customers VALUES ('{id}', 'stripe', 'cus_{who}')"),
        format!(
            "INSERT INTO paid_subscriptions VALUES ('stripe', 'sub_{who}', '{id}', 'active', 0, NULL, 1, 'evt_{who}', 9)"
        ),
        format!(
            "INSERT INTO invoices VALUES ('stripe', 'in_{who}', 'sub_{who}', 'pi_{who}', 9, 1)"
        ),
        format!("INSERT INTO withdrawn_payments VALUES ('stripe', 'pi_{who}', 'refund', 1, 2)"),
        format!("INSERT INTO checkouts VALUES ('{id}', 'cs_{who}', 'https://pay/{who}', 9, 1)"),
        format!(
            "INSERT INTO push_subscriptions (id, kind, endpoint, p256dh, auth, language, account_id, created_at) \
             VALUES ('ps-{who}', 'web', 'https://push/{who}', 'key-{who}', 'auth-{who}', 'pt-BR', '{id}', 1)"
        ),
        format!(
            "INSERT INTO push_subscriptions (id, kind, endpoint, p256dh, auth, language, account_id, created_at) \
             VALUES ('ps-seat-{who}', 'web', 'https://push/seat-{who}', 'key2-{who}', 'auth2-{who}', 'pt-BR', NULL, 1)"
        ),
        format!("INSERT INTO push_seats VALUES ('ps-seat-{who}', '{credential_hash}')"),
        format!("INSERT INTO presence VALUES ('{id}', 'process-{who}') ON CONFLICT DO NOTHING"),
        format!("INSERT INTO v2_ratings VALUES ('{id}', 1016, 1, 1, 0, 0, 1)"),
        // Queued for 2.0 beside an open cube match, which the API refuses: alone in the
        // queue, and not connected, she is never paired.
        format!("INSERT INTO v2_queue VALUES ('{id}', 1016, 1)"),
        // A report they made, one made of them, and a rename by the moderation.
        format!(
            "INSERT INTO reports (id, at, reporter_id, reported_id, reported_name, context, reason) \
             VALUES ('rep-{who}', 1, '{id}', NULL, 'Bia', 'ranking', 'name')"
        ),
        format!(
            "INSERT INTO reports (id, at, reporter_id, reported_id, reported_name, context, reason) \
             VALUES ('rep-of-{who}', 2, '{id}', '{id}', '{who}', 'room:x', 'other')"
        ),
        format!(
            "INSERT INTO admin_actions (id, at, operator, action, account_id, account_name, detail) \
             VALUES ('adm-{who}', 1, 'operator', 'rename', '{id}', '{who}', 'old → {who}')"
        ),
    ] {
        db.execute(sql.as_str())
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

async fn on_a05_the_export_holds_every_tables_rows_of_the_player_and_nobody_elses(db: Db) {
    let server = Server::start(
        db,
        // The 2.0 queue is left alone for the test's length: Ana, queued beside her open
        // match, would be taken off it.
        &[
            "--signups-per-address-per-hour",
            "1000",
            "--pair-every-ms",
            "60000",
        ],
    )
    .await;
    let names: Vec<String> = ["ana", "bia", "carla", "davi"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let players = subscribers(&server, &names).await;
    let [ana, bia, carla, davi] = &players[..] else {
        unreachable!()
    };
    let mut ids = Vec::new();
    for n in &names {
        let id: String = sqlx::query_scalar("SELECT id FROM accounts WHERE name_key = $1")
            .bind(n)
            .fetch_one(&mut server.database().await)
            .await
            .unwrap();
        ids.push(id);
    }
    for n in ["ana", "bia"] {
        let (ok, text) = server
            .admin(&["subscription", "grant", n, "--until", "2099-12-31"])
            .await;
        assert!(ok, "{text}");
    }
    // A second session of Ana's.
    let mut phone = server.client();
    phone
        .log_in("ana@example.com", "cubo-gira-9")
        .await
        .unwrap();

    // A finished match between Ana and Bia, one between the two others, and Ana's open one.
    let mut played = Vec::new();
    for (x, o) in [(ana, bia), (carla, davi)] {
        let open = x.create(Scope::Mundial, 1).await.unwrap();
        let mut xl = x.live().await.unwrap();
        o.join(&open.id).await.unwrap();
        xl.send(&ClientMsg::Play {
            match_id: open.id.clone(),
            ply: 0,
            actions: vec!["a1".into()],
        })
        .await
        .unwrap();
        expect(&mut xl, "the move", |m| {
            matches!(m, ServerMsg::Moved { .. })
        })
        .await;
        xl.send(&ClientMsg::Leave {
            match_id: open.id.clone(),
        })
        .await
        .unwrap();
        expect(&mut xl, "the end", |m| matches!(m, ServerMsg::Ended { .. })).await;
        played.push(open.id);
    }
    ana.create(Scope::Mundial, 2).await.unwrap();

    // Groups: Ana's with Bia in it, Bia's with Ana invited, Carla's apart.
    let anas = create(ana, "Grupo da Ana").await;
    assert_eq!(invite(ana, &anas, "bia").await.0, 204);
    assert_eq!(accept(bia, &anas).await.0, 200);
    let bias = create(bia, "Grupo da Bia").await;
    assert_eq!(invite(bia, &bias, "ana").await.0, 204);
    create(carla, "Grupo da Carla").await;

    // A room of Ana's that Bia joined, with a move each, and one of Carla's and Davi's.
    let mut credentials = Vec::new();
    for (x, o, xn, on) in [(ana, bia, "Ana", "Bia"), (carla, davi, "Carla", "Davi")] {
        let seat = x.create_room(RoomBoard::Super, xn, None).await.unwrap();
        let guest = o.join_room(&seat.room.id, on, None).await.unwrap();
        x.room_act(
            &seat.room.id,
            &seat.credential,
            RoomAct::Play { cell: "e5".into() },
        )
        .await
        .unwrap();
        credentials.push((seat.credential, guest.credential));
    }
    let hash = |c: &str| velha_server::token::seat_key(c);
    outside_rows(&server, "ana", &ids[0], &hash(&credentials[0].0)).await;
    outside_rows(&server, "bia", &ids[1], &hash(&credentials[0].1)).await;

    let (status, headers, file) = export(ana).await;
    assert_eq!(status, 200, "{file}");
    let disposition = headers["content-disposition"].to_str().unwrap();
    assert!(
        disposition.starts_with("attachment; filename=\"cubo-da-velha-"),
        "{disposition}"
    );
    assert_eq!(file["format"], 1);
    let sections = file["sections"].as_object().unwrap();
    assert_eq!(sections.len(), SECTIONS.len());
    let mut db = server.database().await;
    for (section, sql) in ORACLE {
        let expected: i64 = sqlx::query_scalar(sql)
            .bind(&ids[0])
            .fetch_one(&mut db)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        let rows = sections[*section].as_array().unwrap().len() as i64;
        assert_eq!(rows, expected, "{section}");
        assert!(rows > 0, "Ana did everything, {section} included");
    }
    assert_eq!(
        ORACLE.len(),
        SECTIONS.len(),
        "every section is counted apart"
    );
    assert_eq!(sections["account"][0]["name"], "ana");
    assert_eq!(sections["account"][0]["has_password"], 1);
    assert_eq!(sections["matches"][0]["opponent"], "bia");
    assert_eq!(
        sections["rooms"][0]["room"]["seats"][0]["name"], "Ana",
        "{file}"
    );

    // Nobody else's: no other account's id, e-mail or rows; no secret of hers either.
    let text = file.to_string();
    for (i, id) in ids.iter().enumerate().skip(1) {
        assert!(!text.contains(id.as_str()), "{}'s id", names[i]);
    }
    for other in [
        "bia@example.com",
        "carla",
        "Carla",
        "davi",
        "cus_bia",
        "sub_bia",
        "ps-bia",
        "tok-ana",
        "auth-ana",
        "key-ana",
        "$argon2",
        "Grupo da Carla",
        &played[1],
    ] {
        assert!(!text.contains(other), "{other} is in Ana's export");
    }
    let sessions: Vec<String> = sqlx::query_scalar("SELECT token_hash FROM sessions")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert!(sessions.iter().all(|h| !text.contains(h.as_str())));

    // Three an hour.
    for _ in 0..2 {
        assert_eq!(export(ana).await.0, 200);
    }
    let (status, _, e) = export(ana).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (429, Some("rate_limited")),
        "{e}"
    );
    assert_eq!(export(bia).await.0, 200, "the limit is per account");
    // Ten at once from Carla's: three files, seven refusals.
    let answers = futures_util::future::join_all((0..10).map(|_| export(carla))).await;
    let mut statuses: Vec<u16> = answers.iter().map(|(s, _, _)| *s).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    let (status, _, _) = export(&server.client()).await;
    assert_eq!(status, 401);
}
on_both!(on_a05_the_export_holds_every_tables_rows_of_the_player_and_nobody_elses);
