//! Moderation (docs/moderation.md): names with offensive or reserved words refused wherever a
//! name is chosen; bans that end a player's sessions and connections at once and keep them
//! out of the lobby and the rankings while their past results stay for the others; renames the
//! player is told of; the audit; reports from where players met, limited and checked.

use std::time::Duration;

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use velha_api::{ErrorCode, ServerMsg};
use velha_load::Client;

use crate::common::{Db, Server, expect};
use crate::groups::call;
use crate::live::{meet, moved};

/// Signs up `name`: the refusal's code, if refused.
async fn sign_up(server: &Server, name: &str) -> Option<ErrorCode> {
    let email = format!(
        "{}@example.com",
        name.to_lowercase().replace(['.', '_'], "")
    );
    server
        .client()
        .sign_up(&email, "cubo-gira-9", name, "pt-BR")
        .await
        .err()
        .map(|e| e.code)
}

async fn moderation_names_with_offensive_or_reserved_words_are_refused(db: Db) {
    let server = Server::start(db, &["--signups-per-address-per-hour", "1000"]).await;
    for (name, code) in [
        ("Caralh0", ErrorCode::OffensiveName),
        ("P.u.t.4", ErrorCode::OffensiveName),
        ("xXfuckXx", ErrorCode::OffensiveName),
        ("Adm1n", ErrorCode::ReservedName),
        ("Moderador_", ErrorCode::ReservedName),
    ] {
        assert_eq!(sign_up(&server, name).await, Some(code), "{name}");
    }
    // Names that only look like one of the words are anyone's.
    for name in ["Cassio", "Computador", "Scunthorpe", "Paulo_Picasso"] {
        assert_eq!(sign_up(&server, name).await, None, "{name}");
    }
    let cassio = server.player("Cássio", "pt-BR", Some("2099-12-31")).await;
    let (status, e) = call(
        &cassio,
        Method::POST,
        "/api/groups",
        Some(json!({ "name": "Os Viado" })),
    )
    .await;
    assert_eq!(
        (status, e["code"].as_str()),
        (400, Some("offensive_name")),
        "{e}"
    );
    for (path, body) in [
        (
            "/api/rooms",
            json!({"board": "classic", "name": "Bucet4", "avatar": "nino"}),
        ),
        (
            "/api/rooms",
            json!({"board": "super", "name": "suporte.oficial"}),
        ),
    ] {
        let (status, e) = call(&server.client(), Method::POST, path, Some(body)).await;
        assert_eq!(status, 400, "{e}");
        assert!(
            matches!(e["code"].as_str(), Some("offensive_name" | "reserved_name")),
            "{e}"
        );
    }
    let (status, room) = call(
        &server.client(),
        Method::POST,
        "/api/rooms",
        Some(json!({"board": "classic", "name": "Ana", "avatar": "nino"})),
    )
    .await;
    assert_eq!(status, 201, "{room}");
    let join = format!("/api/rooms/{}/join", room["room"]["id"].as_str().unwrap());
    let (status, e) = call(
        &server.client(),
        Method::POST,
        &join,
        Some(json!({"name": "Merdinha", "avatar": "quelonia"})),
    )
    .await;
    assert_eq!(
        (status, e["code"].as_str()),
        (400, Some("offensive_name")),
        "{e}"
    );
    // The moderation's own renames are checked the same way.
    let (ok, said) = server
        .admin(&["player", "rename", "Cassio", "Fdp_99"])
        .await;
    assert!(!ok && said.contains("offensive"), "{said}");
}
on_both!(moderation_names_with_offensive_or_reserved_words_are_refused);

/// The standing of `name` in the world ranking of level 1, as `viewer` reads it.
async fn standing(viewer: &Client, name: &str) -> Option<Value> {
    let (status, page) = call(
        viewer,
        Method::GET,
        "/api/rankings?scope=mundial&level=1",
        None,
    )
    .await;
    assert_eq!(status, 200, "{page}");
    page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .cloned()
}

async fn moderation_a_ban_ends_sessions_and_connections_and_keeps_the_player_out(db: Db) {
    let server = Server::start(db, &["--move-time-ms", "30000"]).await;
    let (x, mut xl, o, mut ol, id) = meet(&server, 1).await;
    for (ply, (mover, cell)) in [(0, "a1"), (1, "c3"), (0, "a2"), (1, "c2"), (0, "a3")]
        .into_iter()
        .enumerate()
    {
        let (a, b) = if mover == 0 {
            (&mut xl, &mut ol)
        } else {
            (&mut ol, &mut xl)
        };
        moved(a, b, &id, ply as u32, &[cell]).await;
    }
    assert!(standing(&x, "olivia").await.is_some());
    // Both on 2.0's rating list too, she ahead of him.
    let mut db = server.database().await;
    for (name, rating) in [("olivia", 1200), ("xavier", 1100)] {
        sqlx::query(
            "INSERT INTO v2_ratings (account_id, rating, games, wins, draws, losses, updated_at) \
             SELECT id, $2, 1, 1, 0, 0, 1 FROM accounts WHERE name_key = $1",
        )
        .bind(name)
        .bind(rating)
        .execute(&mut db)
        .await
        .unwrap();
    }
    let open = o.create(velha_api::Scope::Mundial, 1).await.unwrap();
    let (ok, said) = server
        .admin(&[
            "player",
            "ban",
            "olivia",
            "--reason",
            "linguagem ofensiva",
            "--by",
            "mod1",
        ])
        .await;
    assert!(ok, "{said}");

    // Her connection hears it and is closed within the sweeper's second.
    let said = expect(&mut ol, "signed out", |m| {
        matches!(
            m,
            ServerMsg::Error {
                code: ErrorCode::Unauthorized,
                ..
            }
        )
    })
    .await;
    assert!(matches!(said, ServerMsg::Error { .. }));
    assert!(ol.closed(Duration::from_secs(5)).await.is_ok());
    // Her session is gone, she cannot sign in again, and she is told why.
    assert_eq!(o.me().await.unwrap_err().code, ErrorCode::Unauthorized);
    let mut again = server.client();
    let refused = again
        .log_in("olivia@example.com", "cubo-gira-9")
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Banned);
    assert!(
        refused.message.contains("linguagem ofensiva"),
        "{refused:?}"
    );
    // Her open match left the lobby, and she left the rankings; his win stays.
    let mut lobby_empty = false;
    for _ in 0..50 {
        if x.lobby(velha_api::Scope::Mundial, 1)
            .await
            .unwrap()
            .iter()
            .all(|m| m.id != open.id)
        {
            lobby_empty = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(lobby_empty, "her open match is still offered");
    assert!(standing(&x, "olivia").await.is_none());
    let list = x.leaderboard().await.unwrap();
    assert!(list.rows.iter().all(|r| r.name != "olivia"), "{list:?}");
    assert_eq!(
        list.me.map(|r| r.position),
        Some(1),
        "nobody banned counts ahead"
    );
    let xavier = standing(&x, "xavier").await.expect("his standing");
    assert_eq!(xavier["wins"], 1);
    assert_eq!(xavier["rank"], 1);
    assert_eq!(x.replay(&id).await.unwrap().moves.len(), 5);
    let (ok, said) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{said}");

    // Lifted: she signs in again and her standing is back.
    let (ok, said) = server
        .admin(&["player", "unban", "olivia", "--by", "mod1"])
        .await;
    assert!(ok, "{said}");
    again
        .log_in("olivia@example.com", "cubo-gira-9")
        .await
        .unwrap();
    assert_eq!(standing(&x, "olivia").await.unwrap()["losses"], 1);
    let (ok, said) = server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{said}");
    let (ok, audit) = server.admin(&["audit"]).await;
    assert!(ok, "{audit}");
    let lines: Vec<&str> = audit.lines().filter(|l| l.contains(" UTC  ")).collect();
    assert!(
        lines[0].contains("mod1  unban olivia") && lines[1].contains("mod1  ban olivia"),
        "{audit}"
    );
    assert!(lines[1].ends_with("linguagem ofensiva"), "{audit}");
    // Bans and unbans of what is not there say so.
    let (ok, said) = server.admin(&["player", "unban", "olivia"]).await;
    assert!(!ok && said.contains("is not banned"), "{said}");
    let (ok, said) = server
        .admin(&["player", "ban", "nobody", "--reason", "x"])
        .await;
    assert!(!ok && said.contains("no player is named"), "{said}");
    let (ok, said) = server
        .admin(&["player", "ban", "xavier", "--reason", " "])
        .await;
    assert!(!ok && said.contains("reason"), "{said}");
}
on_both!(moderation_a_ban_ends_sessions_and_connections_and_keeps_the_player_out);

async fn moderation_a_ban_racing_sign_ins_leaves_no_session(db: Db) {
    let server = Server::start(db, &["--login-failures-per-account", "1000"]).await;
    let _bia = server.player("bia", "pt-BR", None).await;
    let mut db = server.database().await;
    for round in 0..5 {
        let sign_ins = (0..12).map(|_| {
            let mut c = server.client();
            async move {
                c.log_in("bia@example.com", "cubo-gira-9")
                    .await
                    .err()
                    .map(|e| e.code)
            }
        });
        let ban = server.admin(&["player", "ban", "bia", "--reason", "teste"]);
        let (answers, (ok, said)) = tokio::join!(join_all(sign_ins), ban);
        assert!(ok, "{said}");
        for a in &answers {
            assert!(matches!(a, None | Some(ErrorCode::Banned)), "{a:?}");
        }
        let sessions: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sessions s JOIN accounts a ON a.id = s.account_id \
             WHERE a.name_key = 'bia'",
        )
        .fetch_one(&mut db)
        .await
        .unwrap();
        assert_eq!(sessions, 0, "round {round}: a session outlived the ban");
        let (ok, said) = server.admin(&["player", "unban", "bia"]).await;
        assert!(ok, "{said}");
    }
}
on_both!(moderation_a_ban_racing_sign_ins_leaves_no_session);

async fn moderation_a_rename_is_told_to_the_player_once(db: Db) {
    let server = Server::start(db, &[]).await;
    let bia = server.player("bia", "pt-BR", None).await;
    let _caio = server.player("caio", "pt-BR", None).await;
    let (ok, said) = server.admin(&["player", "rename", "bia", "caio"]).await;
    assert!(!ok && said.contains("another player"), "{said}");
    let (ok, said) = server.admin(&["player", "rename", "bia", "Beatriz"]).await;
    assert!(ok, "{said}");
    let me = bia.me().await.unwrap();
    assert_eq!(
        (me.name.as_str(), me.renamed_from.as_deref()),
        ("Beatriz", Some("bia"))
    );
    let (status, _) = call(&bia, Method::DELETE, "/api/me/rename-notice", None).await;
    assert_eq!(status, 204);
    assert_eq!(bia.me().await.unwrap().renamed_from, None);
    // The new name is hers, the old one free.
    assert_eq!(
        sign_up(&server, "Beatriz").await,
        Some(ErrorCode::NameTaken)
    );
    let other = server
        .client()
        .sign_up("outra.bia@example.com", "cubo-gira-9", "bia", "pt-BR")
        .await;
    assert!(other.is_ok(), "{other:?}");
    let (ok, audit) = server.admin(&["audit"]).await;
    assert!(
        audit.contains("UTC  ") && audit.contains("rename bia  bia → Beatriz"),
        "{ok} {audit}"
    );
}
on_both!(moderation_a_rename_is_told_to_the_player_once);

async fn report(c: &Client, body: Value) -> (u16, Value) {
    call(c, Method::POST, "/api/reports", Some(body)).await
}

async fn moderation_reports_come_from_where_players_met_and_are_limited(db: Db) {
    let server = Server::start(
        db,
        &[
            "--move-time-ms",
            "30000",
            "--signups-per-address-per-hour",
            "1000",
        ],
    )
    .await;
    let (x, mut xl, o, mut ol, id) = meet(&server, 1).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    let about_match = json!({"about": {"kind": "match", "id": id}, "reason": "behaviour"});
    let (status, e) = report(&x, about_match.clone()).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (403, Some("forbidden")),
        "not over yet: {e}"
    );
    for (ply, cell) in [(1, "c3"), (2, "a2"), (3, "c2"), (4, "a3")] {
        let (a, b) = if ply % 2 == 0 {
            (&mut xl, &mut ol)
        } else {
            (&mut ol, &mut xl)
        };
        moved(a, b, &id, ply, &[cell]).await;
    }
    assert_eq!(report(&x, about_match.clone()).await.0, 204);
    let (status, e) = report(&x, about_match.clone()).await;
    assert_eq!((status, e["code"].as_str()), (409, Some("conflict")), "{e}");
    let stranger = server.player("zeca", "pt-BR", None).await;
    assert_eq!(report(&stranger, about_match).await.0, 404);

    // A room where the reporter holds a seat: the other seat is reported, guest or not.
    let ana = server.player("ana", "pt-BR", None).await;
    let (_, made) = call(
        &ana,
        Method::POST,
        "/api/rooms",
        Some(json!({"board": "classic", "name": "Ana", "avatar": "nino"})),
    )
    .await;
    let room = made["room"]["id"].as_str().unwrap().to_owned();
    let credential = made["credential"].as_str().unwrap().to_owned();
    let about_room = |credential: &str| json!({"about": {"kind": "room", "id": room, "credential": credential}, "reason": "name"});
    let (status, e) = report(&ana, about_room(&credential)).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (403, Some("forbidden")),
        "free seat: {e}"
    );
    let (status, _) = call(
        &server.client(),
        Method::POST,
        &format!("/api/rooms/{room}/join"),
        Some(json!({"name": "Bebel", "avatar": "quelonia"})),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(report(&ana, about_room("not-a-credential")).await.0, 404);
    assert_eq!(report(&ana, about_room(&credential)).await.0, 204);

    // A ranking row, with a note; not oneself.
    let ranking = |name: &str, note: Option<&str>| json!({"about": {"kind": "ranking", "name": name}, "reason": "cheating", "note": note});
    assert_eq!(
        report(&ana, ranking("xavier", Some("  joga rápido demais  ")))
            .await
            .0,
        204
    );
    assert_eq!(report(&ana, ranking("ana", None)).await.0, 403);
    assert_eq!(report(&ana, ranking("ninguem", None)).await.0, 404);
    // Hostile bodies: refused with what was wrong.
    for body in [
        ranking("olivia", Some(&"x".repeat(501))),
        ranking("olivia", Some("a\u{202e}b")),
        json!({"about": {"kind": "galaxy"}, "reason": "name"}),
        json!({"about": {"kind": "ranking", "name": "olivia"}, "reason": "boredom"}),
        json!({"about": {"kind": "ranking", "name": "oli\u{0}via"}, "reason": "name"}),
    ] {
        let (status, e) = report(&ana, body.clone()).await;
        assert!(matches!(status, 400 | 422), "{body}: {status} {e}");
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
    }
    assert_eq!(
        report(&server.client(), ranking("olivia", None)).await.0,
        401
    );

    let (ok, list) = server.admin(&["reports"]).await;
    assert!(ok, "{list}");
    // (PostgreSQL's notices go to the same output.)
    let lines: Vec<&str> = list.lines().filter(|l| l.contains(" UTC  ")).collect();
    assert_eq!(lines.len(), 3, "{list}");
    assert!(
        lines[0].contains("ana reported xavier for cheating (ranking): \"joga rápido demais\""),
        "{list}"
    );
    assert!(
        lines[1].contains(&format!("ana reported Bebel for name (room:{room})")),
        "{list}"
    );
    assert!(
        lines[2].contains(&format!(
            "xavier reported olivia for behaviour (match:{id})"
        )),
        "{list}"
    );

    // Only a player some ranking shows is reported from one.
    let (status, e) = report(&ana, ranking("zeca", None)).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (404, Some("not_found")),
        "{e}"
    );
    // Ten an hour: the eleventh waits, whoever it is about.
    let mut names = Vec::new();
    let mut db = server.database().await;
    for i in 0..10 {
        let name = format!("alvo{i}");
        server.player(&name, "pt-BR", None).await;
        // A 2.0 rating puts them in a ranking.
        sqlx::query(
            "INSERT INTO v2_ratings (account_id, rating, games, wins, draws, losses, updated_at) \
             SELECT id, 1000, 1, 1, 0, 0, 1 FROM accounts WHERE name_key = $1",
        )
        .bind(&name)
        .execute(&mut db)
        .await
        .unwrap();
        names.push(name);
    }
    let answers = join_all(names.iter().map(|n| report(&o, ranking(n, None)))).await;
    assert!(answers.iter().all(|(s, _)| *s == 204), "{answers:?}");
    let (status, e) = report(&o, ranking("xavier", None)).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (429, Some("rate_limited")),
        "{e}"
    );
}
on_both!(moderation_reports_come_from_where_players_met_and_are_limited);
