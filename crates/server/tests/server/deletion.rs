//! Deleting an account (docs/accounts.md): confirmed by the password or a fresh sign-in; a live
//! match ends as the player's abandonment, the queue and lobby are left, the group they made
//! is finalized and the others left, the paid subscription ends at the provider; the games
//! stay, under "Jogador removido", and the rankings still agree with them.

use std::time::Duration;

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::Executor;
use velha_api::{ClientMsg, EndHow, ErrorCode, RoomBoard, Scope, Seat, ServerMsg};
use velha_load::Client;

use crate::common::{Db, Server, expect};
use crate::groups::{accept, call, count, create, invite, subscribers};
use crate::payments::{Stripe, checkout, subscribe};

const REMOVED: &str = "Jogador removido";
const PASSWORD: &str = "cubo-gira-9";

async fn start(db: Db) -> Server {
    Server::start(
        db,
        &[
            "--signups-per-address-per-hour",
            "100000",
            "--pair-every-ms",
            "100",
        ],
    )
    .await
}

/// Asks to delete the account of `c`: the status and the body.
async fn delete(c: &Client, password: Option<&str>) -> (u16, Value) {
    let body = match password {
        Some(p) => json!({ "password": p }),
        None => json!({}),
    };
    call(c, Method::DELETE, "/api/me", Some(body)).await
}

/// The account of `name` as stored: (name, name key, e-mail, password hash, deleted at).
async fn stored(
    server: &Server,
    id: &str,
) -> (String, String, Option<String>, Option<String>, Option<i64>) {
    sqlx::query_as(
        "SELECT name, name_key, email, password_hash, deleted_at FROM accounts WHERE id = $1",
    )
    .bind(id)
    .fetch_one(&mut server.database().await)
    .await
    .unwrap()
}

/// The account id of the player named `name`.
async fn id_of(server: &Server, name: &str) -> String {
    sqlx::query_scalar("SELECT id FROM accounts WHERE name_key = $1")
        .bind(name)
        .fetch_one(&mut server.database().await)
        .await
        .unwrap()
}

async fn on_a04_deleting_mid_match_ends_it_as_an_abandonment_and_keeps_the_game(db: Db) {
    let server = start(db).await;
    let ana = server.player("ana", "pt-BR", Some("2099-12-31")).await;
    let bia = server.player("bia", "pt-BR", Some("2099-12-31")).await;
    let ana_id = id_of(&server, "ana").await;
    let open = ana.create(Scope::Mundial, 1).await.unwrap();
    let mut bl = bia.live().await.unwrap();
    bia.join(&open.id).await.unwrap();

    // Confirmed by the password, and only by the right one.
    let (status, e) = delete(&ana, None).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (400, Some("bad_request")),
        "{e}"
    );
    let (status, e) = delete(&ana, Some("not-the-password")).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (401, Some("wrong_password")),
        "{e}"
    );
    let (status, e) = delete(&ana, Some(&"x".repeat(5000))).await;
    assert_eq!((status, e["code"].as_str()), (400, Some("too_long")), "{e}");
    for (body, kind, code) in [
        ("{\"password\": ", "application/json", "bad_request"),
        ("{\"password\": 5}", "application/json", "bad_request"),
        (
            "password=cubo-gira-9",
            "text/plain",
            "unsupported_media_type",
        ),
    ] {
        let (status, _, e) = ana
            .raw_bytes(
                Method::DELETE,
                "/api/me",
                Some((body.as_bytes().to_vec(), kind)),
            )
            .await
            .unwrap();
        assert!(status >= 400 && e["code"] == code, "{body}: {status} {e}");
    }
    assert!(ana.me().await.is_ok(), "a refusal deletes nothing");

    let (status, e) = delete(&ana, Some(PASSWORD)).await;
    assert_eq!(status, 204, "{e}");
    let ended = expect(&mut bl, "the end of the match", |m| {
        matches!(m, ServerMsg::Ended { .. })
    })
    .await;
    let ServerMsg::Ended {
        match_id, ending, ..
    } = ended
    else {
        unreachable!()
    };
    assert_eq!(match_id, open.id);
    assert_eq!(
        (ending.winner, ending.how),
        (Some(Seat::O), EndHow::Abandonment)
    );

    // Nothing of the player signs in any more.
    let e = ana.me().await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Unauthorized);
    let mut again = server.client();
    let e = again.log_in("ana@example.com", PASSWORD).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::WrongPassword);
    let (name, key, email, hash, deleted) = stored(&server, &ana_id).await;
    assert_eq!((name.as_str(), email, hash), (REMOVED, None, None));
    assert_eq!(key, "ana", "the name stays taken through the quarantine");
    assert!(deleted.is_some());
    assert_eq!(
        count(
            &server,
            &format!("SELECT COUNT(*) FROM sessions WHERE account_id = '{ana_id}'")
        )
        .await,
        0
    );

    // The game stays, its winner right, the player's name replaced.
    let replay = bia.replay(&open.id).await.unwrap();
    assert_eq!(
        (replay.x.name.as_str(), replay.o.name.as_str()),
        (REMOVED, "bia")
    );
    let (status, page) = call(
        &bia,
        Method::GET,
        "/api/rankings?scope=mundial&level=1",
        None,
    )
    .await;
    assert_eq!(status, 200, "{page}");
    let rows = page["rows"].as_array().unwrap();
    let names: Vec<(&str, i64)> = rows
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["points"].as_i64().unwrap()))
        .collect();
    assert_eq!(names, [("bia", 3), (REMOVED, 0)], "{page}");
    let (ok, report) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{report}");

    // The e-mail is free at once; the name once the quarantine is over.
    let mut newcomer = server.client();
    let e = newcomer
        .sign_up("ana.nova@example.com", PASSWORD, "Ana", "pt-BR")
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NameTaken);
    newcomer
        .sign_up("ana@example.com", PASSWORD, "ana2", "pt-BR")
        .await
        .expect("the e-mail is free");
    server
        .database()
        .await
        .execute(
            format!(
                "UPDATE accounts SET deleted_at = deleted_at - 2592000001 WHERE id = '{ana_id}'"
            )
            .as_str(),
        )
        .await
        .unwrap();
    let mut later = server.client();
    later
        .sign_up("ana.nova@example.com", PASSWORD, "Ana", "pt-BR")
        .await
        .expect("the name is free after 30 days");
    let replay = bia.replay(&open.id).await.unwrap();
    assert_eq!(replay.x.name, REMOVED, "the new Ana is not the old one");
    let (ok, report) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{report}");
}
on_both!(on_a04_deleting_mid_match_ends_it_as_an_abandonment_and_keeps_the_game);

async fn on_a04_deleting_leaves_the_queue_withdraws_the_open_match_and_renames_the_room_seat(
    db: Db,
) {
    let server = start(db).await;
    let ana = server.player("ana", "pt-BR", Some("2099-12-31")).await;
    let bia = server.player("bia", "pt-BR", Some("2099-12-31")).await;
    let carla = server.player("carla", "pt-BR", Some("2099-12-31")).await;
    assert!(ana.queue_join().await.unwrap().queued);
    let open = bia.create(Scope::Mundial, 2).await.unwrap();
    let mut watching = carla.live().await.unwrap();
    watching
        .send(&ClientMsg::WatchLobby {
            scope: Scope::Mundial,
            level: 2,
            group: None,
        })
        .await
        .unwrap();
    expect(&mut watching, "the lobby", |m| {
        matches!(m, ServerMsg::Lobby { .. })
    })
    .await;
    let seat = bia
        .create_room(RoomBoard::Super, "Bia da Silva", None)
        .await
        .unwrap();
    carla.join_room(&seat.room.id, "Carla", None).await.unwrap();

    for c in [&ana, &bia] {
        let (status, e) = delete(c, Some(PASSWORD)).await;
        assert_eq!(status, 204, "{e}");
    }
    expect(
        &mut watching,
        "the open match withdrawn",
        |m| matches!(m, ServerMsg::LobbyClosed { id, .. } if *id == open.id),
    )
    .await;
    for table in ["v2_queue", "active_players"] {
        assert_eq!(
            count(&server, &format!("SELECT COUNT(*) FROM {table}")).await,
            0,
            "{table}"
        );
    }
    assert!(carla.lobby(Scope::Mundial, 2).await.unwrap().is_empty());
    // The room goes on for Carla, with the name Bia wrote gone from it.
    let (status, room) = call(
        &carla,
        Method::GET,
        &format!("/api/rooms/{}", seat.room.id),
        None,
    )
    .await;
    assert_eq!(status, 200, "{room}");
    assert_eq!(room["x"]["name"], REMOVED, "{room}");
    assert_eq!(room["o"]["name"], "Carla", "{room}");
    assert!(!room.to_string().contains("Silva"));
    assert_eq!(
        count(
            &server,
            "SELECT COUNT(*) FROM room_seats WHERE account_id IS NOT NULL"
        )
        .await,
        1,
        "only Carla's seat is still an account's"
    );
}
on_both!(on_a04_deleting_leaves_the_queue_withdraws_the_open_match_and_renames_the_room_seat);

async fn on_a04_deleting_a_group_creator_finalizes_her_group_and_a_member_leaves_hers(db: Db) {
    let server = start(db).await;
    let names: Vec<String> = ["ana", "bia", "carla", "davi"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let players = subscribers(&server, &names).await;
    let [ana, bia, carla, davi] = &players[..] else {
        unreachable!()
    };
    let hers = create(ana, "Grupo da Ana").await;
    for (c, n) in [(bia, "bia"), (carla, "carla")] {
        assert_eq!(invite(ana, &hers, n).await.0, 204);
        assert_eq!(accept(c, &hers).await.0, 200);
    }
    assert_eq!(invite(ana, &hers, "davi").await.0, 204);
    let davis = create(davi, "Grupo do Davi").await;
    assert_eq!(invite(davi, &davis, "ana").await.0, 204);
    assert_eq!(accept(ana, &davis).await.0, 200);
    assert_eq!(invite(davi, &davis, "bia").await.0, 204);
    assert_eq!(accept(bia, &davis).await.0, 200);

    // Two others playing in her group: it cannot be finalized, so nothing is deleted.
    let open = bia.create_in_group(&hers, 1).await.unwrap();
    carla.join(&open.id).await.unwrap();
    let (status, e) = delete(ana, Some(PASSWORD)).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (409, Some("group_match_live")),
        "{e}"
    );
    assert!(ana.me().await.is_ok());
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM group_members").await,
        6
    );
    let mut bl = bia.live().await.unwrap();
    bl.send(&ClientMsg::Leave {
        match_id: open.id.clone(),
    })
    .await
    .unwrap();
    expect(&mut bl, "the group match over", |m| {
        matches!(m, ServerMsg::Ended { .. })
    })
    .await;

    // Her own match in her group ends as her abandonment, and Bia is told so, though the
    // match goes with the group.
    let mine = ana.create_in_group(&hers, 1).await.unwrap();
    bia.join(&mine.id).await.unwrap();
    let (status, e) = delete(ana, Some(PASSWORD)).await;
    assert_eq!(status, 204, "{e}");
    let told = expect(
        &mut bl,
        "her match's end",
        |m| matches!(m, ServerMsg::Ended { match_id, .. } if *match_id == mine.id),
    )
    .await;
    let ServerMsg::Ended { ending, .. } = told else {
        unreachable!()
    };
    assert_eq!(
        (ending.winner, ending.how),
        (Some(Seat::O), EndHow::Abandonment)
    );
    let (status, _) = call(bia, Method::GET, &format!("/api/groups/{hers}"), None).await;
    assert_eq!(status, 404, "her group is finalized");
    let (status, group) = call(bia, Method::GET, &format!("/api/groups/{davis}"), None).await;
    assert_eq!(status, 200, "{group}");
    assert!(!group.to_string().contains(REMOVED), "{group}");
    for (sql, left) in [
        ("SELECT COUNT(*) FROM mini_groups", 1),
        ("SELECT COUNT(*) FROM group_members", 2),
        ("SELECT COUNT(*) FROM group_invitations", 0),
        ("SELECT COUNT(*) FROM matches WHERE group_id IS NOT NULL", 0),
    ] {
        assert_eq!(count(&server, sql).await, left, "{sql}");
    }
    let (ok, report) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{report}");
}
on_both!(on_a04_deleting_a_group_creator_finalizes_her_group_and_a_member_leaves_hers);

async fn on_a04_deleting_ends_the_paid_subscription_at_the_provider(db: Db) {
    let stripe = Stripe::start().await;
    let server = stripe.server(db, &[]).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let ana_id = id_of(&server, "ana").await;
    let subscription = subscribe(&stripe, &ana, 0).await;
    assert!(ana.me().await.unwrap().subscriber);

    // The provider down: nothing is deleted.
    stripe.call("outage", json!({"down": true})).await;
    let (status, e) = delete(&ana, Some(PASSWORD)).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (503, Some("payments_unavailable")),
        "{e}"
    );
    assert!(ana.me().await.unwrap().subscriber);
    stripe.call("outage", json!({"down": false})).await;

    let (status, e) = delete(&ana, Some(PASSWORD)).await;
    assert_eq!(status, 204, "{e}");
    assert_eq!(
        stripe.call("cancelled", json!({})).await,
        json!([subscription])
    );
    // The provider's notice of the end arrives and is kept for the accounts.
    let mut ended = 0;
    for _ in 0..50 {
        ended = count(
            &server,
            &format!(
                "SELECT COUNT(*) FROM paid_subscriptions WHERE account_id = '{ana_id}' \
                 AND status = 'canceled'"
            ),
        )
        .await;
        if ended == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ended, 1);
    for table in ["payment_customers", "checkouts", "subscription_grants"] {
        assert_eq!(
            count(&server, &format!("SELECT COUNT(*) FROM {table}")).await,
            0,
            "{table}"
        );
    }

    // A checkout page left open is closed at the provider: nothing can be paid on it.
    let bia = server.player("bia", "pt-BR", None).await;
    let (_, open) = checkout(&bia).await;
    let (status, e) = delete(&bia, Some(PASSWORD)).await;
    assert_eq!(status, 204, "{e}");
    assert_eq!(
        stripe.call("expired_by_server", json!({})).await,
        json!([open])
    );
    // One paid a moment before the deletion, whose notices arrive only after it: the server
    // ends the subscription it never kept.
    let carla = server.player("carla", "pt-BR", None).await;
    let (_, paid) = checkout(&carla).await;
    let held = stripe.events("pay", json!({"session": paid})).await;
    let (status, e) = delete(&carla, Some(PASSWORD)).await;
    assert_eq!(status, 204, "{e}");
    assert_eq!(
        stripe.call("expired_by_server", json!({})).await,
        json!([open]),
        "a paid page is not expired"
    );
    let statuses = stripe.send(&held, json!({})).await;
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let late = stripe
        .call("subscription_of", json!({"session": paid}))
        .await;
    assert_eq!(
        stripe.call("cancelled", json!({})).await,
        json!([subscription, late])
    );
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM payment_customers").await,
        0
    );
    assert_eq!(
        count(
            &server,
            "SELECT COUNT(*) FROM accounts WHERE deleted_at IS NOT NULL \
             AND subscribed_until IS NOT NULL"
        )
        .await,
        0,
        "a deleted account's access is not filled in again by later notices"
    );
}
on_both!(on_a04_deleting_ends_the_paid_subscription_at_the_provider);

async fn on_a04_an_account_without_a_password_confirms_with_a_fresh_sign_in(db: Db) {
    let server = start(db).await;
    let ana = server.player("ana", "pt-BR", None).await;
    let ana_id = id_of(&server, "ana").await;
    let mut conn = server.database().await;
    // As a Google account has it: no password.
    conn.execute(
        format!(
            "UPDATE accounts SET password_hash = NULL, google_sub = 'g-ana' WHERE id = '{ana_id}'"
        )
        .as_str(),
    )
    .await
    .unwrap();
    conn.execute(
        format!(
            "UPDATE sessions SET created_at = created_at - 660000 WHERE account_id = '{ana_id}'"
        )
        .as_str(),
    )
    .await
    .unwrap();
    let (status, e) = delete(&ana, Some("anything")).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (403, Some("sign_in_again")),
        "{e}"
    );
    conn.execute(
        format!(
            "UPDATE sessions SET created_at = created_at + 660000 WHERE account_id = '{ana_id}'"
        )
        .as_str(),
    )
    .await
    .unwrap();
    let (status, e) = delete(&ana, None).await;
    assert_eq!(status, 204, "{e}");
    let (google,): (Option<String>,) =
        sqlx::query_as("SELECT google_sub FROM accounts WHERE id = $1")
            .bind(&ana_id)
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(google, None, "the Google account may make a new one");
}
on_both!(on_a04_an_account_without_a_password_confirms_with_a_fresh_sign_in);

/// Ten deletions of one account at once, from its sessions on several devices: one deletes
/// it, every other is refused, and the account is deleted once.
async fn on_a04_ten_deletions_at_once_delete_once(db: Db) {
    let mut server = start(db).await;
    let ana = server.player("ana", "pt-BR", Some("2099-12-31")).await;
    let bia = server.player("bia", "pt-BR", Some("2099-12-31")).await;
    let open = ana.create(Scope::Mundial, 1).await.unwrap();
    bia.join(&open.id).await.unwrap();
    for round in 0..3 {
        let mut devices = Vec::new();
        for _ in 0..10 {
            let mut c = server.client();
            let email = if round == 0 {
                "ana@example.com".to_owned()
            } else {
                format!("ana{round}@example.com")
            };
            c.log_in(&email, PASSWORD).await.unwrap();
            devices.push(c);
        }
        let answers = join_all(devices.iter().map(|c| delete(c, Some(PASSWORD)))).await;
        let deleted = answers.iter().filter(|(s, _)| *s == 204).count();
        assert_eq!(deleted, 1, "round {round}: {answers:?}");
        for (status, e) in &answers {
            assert!(
                *status == 204 || (*status == 401 && e["code"] == "unauthorized"),
                "round {round}: {status} {e}"
            );
        }
        let next = format!("ana{}", round + 1);
        server
            .client()
            .sign_up(&format!("{next}@example.com"), PASSWORD, &next, "pt-BR")
            .await
            .unwrap();
    }
    assert_eq!(
        count(
            &server,
            "SELECT COUNT(*) FROM accounts WHERE deleted_at IS NOT NULL"
        )
        .await,
        3
    );
    let replay = bia.replay(&open.id).await.unwrap();
    assert_eq!(replay.winner, Some(Seat::O));
    let (status, _) = delete(&bia, Some(PASSWORD)).await;
    assert_eq!(status, 204);
    let (ok, report) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{report}");

    // Thirty days on, the hourly sweep (its first round as the server starts) frees every
    // deleted player's name, asked for or not.
    server
        .database()
        .await
        .execute("UPDATE accounts SET deleted_at = deleted_at - 2592000001 WHERE name_key <> 'bia'")
        .await
        .unwrap();
    server.restart().await;
    let mut freed = 0;
    for _ in 0..50 {
        freed = count(
            &server,
            "SELECT COUNT(*) FROM accounts WHERE name_key LIKE 'removed:%'",
        )
        .await;
        if freed == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        freed, 3,
        "ana, ana1 and ana2 freed; bia's quarantine goes on"
    );
    server
        .client()
        .sign_up("nova@example.com", PASSWORD, "ANA1", "pt-BR")
        .await
        .expect("a freed name is anybody's");
}
on_both!(on_a04_ten_deletions_at_once_delete_once);

/// A stolen session cannot guess the password to delete the account: wrong passwords count as
/// failed sign-ins, and past the limit even the right one waits.
async fn on_a04_wrong_passwords_are_limited_as_failed_sign_ins(db: Db) {
    let server = start(db).await;
    let ana = server.player("ana", "pt-BR", None).await;
    for _ in 0..5 {
        let (status, e) = delete(&ana, Some("not-her-password")).await;
        assert_eq!(
            (status, e["code"].as_str()),
            (401, Some("wrong_password")),
            "{e}"
        );
    }
    let (status, e) = delete(&ana, Some(PASSWORD)).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (429, Some("rate_limited")),
        "{e}"
    );
    assert!(ana.me().await.is_ok(), "nothing was deleted");
}
on_both!(on_a04_wrong_passwords_are_limited_as_failed_sign_ins);
