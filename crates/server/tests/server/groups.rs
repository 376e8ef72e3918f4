//! ON-G01, ON-G02, ON-G08, ON-G09: mini-ranking groups — their limits under concurrent
//! requests, who may do what, privacy, and finalizing without a trace.

use futures_util::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::{Executor, Row};
use velha_load::Client;

use crate::common::{Db, Server};

pub async fn start(db: Db) -> Server {
    Server::start(db, &["--signups-per-address-per-hour", "100000"]).await
}

/// Signs up subscribers with these names.
pub async fn subscribers(server: &Server, names: &[String]) -> Vec<Client> {
    let clients = join_all(names.iter().map(|n| async move {
        let mut c = server.client();
        c.sign_up(&format!("{n}@example.com"), "cubo-gira-9", n, "pt-BR")
            .await
            .unwrap_or_else(|e| panic!("sign up {n}: {e}"));
        c
    }))
    .await;
    let mut db = server.database().await;
    let list: Vec<String> = names
        .iter()
        .map(|n| format!("'{}'", n.to_lowercase()))
        .collect();
    db.execute(
        format!(
            "UPDATE accounts SET subscribed_until = 4102444800000 WHERE name_key IN ({})",
            list.join(", ")
        )
        .as_str(),
    )
    .await
    .unwrap();
    clients
}

pub async fn call(c: &Client, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    c.raw(method, path, body.as_deref()).await.unwrap()
}

pub async fn create(c: &Client, name: &str) -> String {
    let (status, g) = call(
        c,
        Method::POST,
        "/api/groups",
        Some(json!({ "name": name })),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    g["id"].as_str().unwrap().to_owned()
}

pub async fn invite(c: &Client, group: &str, name: &str) -> (u16, Value) {
    call(
        c,
        Method::POST,
        &format!("/api/groups/{group}/invitations"),
        Some(json!({ "name": name })),
    )
    .await
}

pub async fn accept(c: &Client, group: &str) -> (u16, Value) {
    call(
        c,
        Method::POST,
        &format!("/api/groups/{group}/invitation/accept"),
        None,
    )
    .await
}

pub async fn count(server: &Server, sql: &str) -> i64 {
    let mut db = server.database().await;
    sqlx::query(sql)
        .fetch_one(&mut db)
        .await
        .unwrap()
        .get::<i64, _>(0)
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i:02}")).collect()
}

async fn on_g01_one_group_each_two_at_most_and_25_participants(db: Db) {
    let server = start(db).await;
    let all = names("jog", 27);
    let players = subscribers(&server, &all).await;
    let (ana, others) = players.split_first().unwrap();
    let group = create(ana, "Família").await;
    let (status, e) = call(
        ana,
        Method::POST,
        "/api/groups",
        Some(json!({"name": "Outro"})),
    )
    .await;
    assert_eq!(
        (status, e["code"].as_str()),
        (409, Some("already_created_group"))
    );
    for (i, p) in others.iter().enumerate().take(24) {
        assert_eq!(invite(ana, &group, &all[i + 1]).await.0, 204);
        assert_eq!(accept(p, &group).await.0, 200);
    }
    let (status, e) = invite(ana, &group, &all[25]).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (409, Some("group_full")),
        "{e}"
    );
    // Two groups at most, the own included.
    let bia = &others[0];
    create(bia, "Da Bia").await;
    let caio = &others[1];
    let third = create(&others[25], "Terceiro").await;
    let (status, e) = invite(&others[25], &third, &all[1]).await;
    assert_eq!(
        (status, e["code"].as_str()),
        (409, Some("too_many_groups")),
        "{e}"
    );
    let (status, e) = call(
        caio,
        Method::POST,
        "/api/groups",
        Some(json!({"name": "Do Caio"})),
    )
    .await;
    assert_eq!(
        status, 201,
        "caio is in one group: he may make his own: {e}"
    );
    let (status, e) = call(
        &others[2],
        Method::POST,
        "/api/groups",
        Some(json!({"name": "x"})),
    )
    .await;
    assert_eq!(
        (status, e["code"].as_str()),
        (400, Some("bad_request")),
        "a name of 3 to 40"
    );
    assert_eq!(
        count(
            &server,
            &format!("SELECT COUNT(*) FROM group_members WHERE group_id = '{group}'")
        )
        .await,
        25
    );
}
on_both!(on_g01_one_group_each_two_at_most_and_25_participants);

/// Forty invited players accept at once a group with 24 participants: exactly one gets in,
/// the rest are told it is full; round after round.
async fn on_g01_forty_concurrent_accepts_at_24_participants_let_exactly_one_in(db: Db) {
    let server = start(db).await;
    for round in 0..3 {
        let inside = names(&format!("r{round}in"), 24);
        let racers = names(&format!("r{round}race"), 40);
        let members = subscribers(&server, &inside).await;
        let racing = subscribers(&server, &racers).await;
        let group = create(&members[0], &format!("Rodada {round}")).await;
        for (name, p) in inside.iter().zip(&members).skip(1) {
            assert_eq!(invite(&members[0], &group, name).await.0, 204);
            assert_eq!(accept(p, &group).await.0, 200);
        }
        for name in &racers {
            assert_eq!(invite(&members[0], &group, name).await.0, 204);
        }
        let answers = join_all(racing.iter().map(|p| accept(p, &group))).await;
        let ok = answers.iter().filter(|(s, _)| *s == 200).count();
        assert_eq!(ok, 1, "round {round}: {answers:?}");
        for (status, e) in answers.iter().filter(|(s, _)| *s != 200) {
            assert_eq!(
                (*status, e["code"].as_str()),
                (409, Some("group_full")),
                "{e}"
            );
        }
        assert_eq!(
            count(
                &server,
                &format!("SELECT COUNT(*) FROM group_members WHERE group_id = '{group}'")
            )
            .await,
            25,
            "round {round}"
        );
    }
}
on_both!(on_g01_forty_concurrent_accepts_at_24_participants_let_exactly_one_in);

/// A player invited to five groups accepts all five and makes a group of their own, all at
/// once: they end in exactly two groups; round after round.
async fn on_g01_concurrent_accepts_and_a_create_keep_a_player_in_two_groups(db: Db) {
    let server = start(db).await;
    for round in 0..5 {
        let hosts = names(&format!("h{round}x"), 5);
        let hosts_c = subscribers(&server, &hosts).await;
        let racer_name = format!("racer{round}");
        let racer = subscribers(&server, std::slice::from_ref(&racer_name))
            .await
            .remove(0);
        let mut groups = Vec::new();
        for (i, h) in hosts_c.iter().enumerate() {
            let g = create(h, &format!("Grupo {round}{i}")).await;
            assert_eq!(invite(h, &g, &racer_name).await.0, 204);
            groups.push(g);
        }
        let accepts = join_all(groups.iter().map(|g| accept(&racer, g)));
        let own = call(
            &racer,
            Method::POST,
            "/api/groups",
            Some(json!({"name": "Meu grupo"})),
        );
        let (answers, own) = futures_util::future::join(accepts, own).await;
        let joined = answers.iter().filter(|(s, _)| *s == 200).count() + usize::from(own.0 == 201);
        assert_eq!(joined, 2, "round {round}: {answers:?} {own:?}");
        for (status, e) in answers.iter().filter(|(s, _)| *s != 200) {
            assert_eq!(
                (*status, e["code"].as_str()),
                (409, Some("too_many_groups")),
                "{e}"
            );
        }
        let racer_id = format!(
            "(SELECT id FROM accounts WHERE name_key = '{}')",
            racer_name.to_lowercase()
        );
        assert_eq!(
            count(
                &server,
                &format!("SELECT COUNT(*) FROM group_members WHERE account_id = {racer_id}")
            )
            .await,
            2
        );
    }
}
on_both!(on_g01_concurrent_accepts_and_a_create_keep_a_player_in_two_groups);

async fn on_g02_only_the_invitee_accepts_only_the_creator_invites_and_removes_nobody(db: Db) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia", "caio"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let (ana, bia, caio) = (&p[0], &p[1], &p[2]);
    let group = create(ana, "Família").await;
    assert_eq!(invite(ana, &group, "bia").await.0, 204);
    assert_eq!(invite(ana, &group, "bia").await.0, 204, "again is fine");
    // Nobody else accepts bia's invitation.
    assert_eq!(accept(caio, &group).await.0, 404);
    let (status, e) = invite(ana, &group, "ninguem").await;
    assert_eq!(
        (status, e["code"].as_str()),
        (404, Some("not_found")),
        "unknown name"
    );
    assert_eq!(accept(bia, &group).await.0, 200);
    let (status, e) = invite(ana, &group, "bia").await;
    assert_eq!(
        (status, e["code"].as_str()),
        (409, Some("conflict")),
        "already in"
    );
    let (status, _) = invite(bia, &group, "caio").await;
    assert_eq!(status, 403, "only the creator invites");
    assert_eq!(invite(ana, &group, "caio").await.0, 204);
    let (status, _) = call(
        caio,
        Method::POST,
        &format!("/api/groups/{group}/invitation/decline"),
        None,
    )
    .await;
    assert_eq!(status, 204);
    assert_eq!(accept(caio, &group).await.0, 404, "declined is gone");
    // The creator removes nobody and does not leave; a participant leaves.
    let (status, _) = call(
        ana,
        Method::DELETE,
        &format!("/api/groups/{group}/members/me"),
        None,
    )
    .await;
    assert_eq!(status, 403);
    let (status, _) = call(
        bia,
        Method::DELETE,
        &format!("/api/groups/{group}/members/me"),
        None,
    )
    .await;
    assert_eq!(status, 204);
    let (_, g) = call(ana, Method::GET, &format!("/api/groups/{group}"), None).await;
    assert_eq!(g["members"], json!(["ana"]));
    // Subscribers only.
    let mut eva = server.client();
    eva.sign_up("eva@example.com", "cubo-gira-9", "eva", "pt-BR")
        .await
        .unwrap();
    let (status, e) = call(
        &eva,
        Method::POST,
        "/api/groups",
        Some(json!({"name": "Da Eva"})),
    )
    .await;
    assert_eq!(
        (status, e["code"].as_str()),
        (403, Some("subscribers_only"))
    );
}
on_both!(on_g02_only_the_invitee_accepts_only_the_creator_invites_and_removes_nobody);

async fn on_g08_only_participants_see_a_group(db: Db) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia", "caio"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let group = create(&p[0], "Segredo").await;
    assert_eq!(invite(&p[0], &group, "bia").await.0, 204);
    let (_, unknown) = call(&p[2], Method::GET, "/api/groups/no-such-group", None).await;
    for outsider in [&p[1], &p[2]] {
        // Invited or not, not yet a participant: the same answer as for no group at all.
        for (method, path) in [
            (Method::GET, format!("/api/groups/{group}")),
            (Method::DELETE, format!("/api/groups/{group}")),
            (Method::DELETE, format!("/api/groups/{group}/members/me")),
        ] {
            let (status, e) = call(outsider, method, &path, None).await;
            assert_eq!((status, &e), (404, &unknown), "{path}");
        }
        let (status, e) = invite(outsider, &group, "caio").await;
        assert_eq!((status, &e), (404, &unknown));
    }
    let (_, mine) = call(&p[1], Method::GET, "/api/groups", None).await;
    assert_eq!(mine["groups"], json!([]));
    assert_eq!(
        mine["invitations"][0]["name"], "Segredo",
        "the invitee sees the invitation"
    );
    assert_eq!(accept(&p[1], &group).await.0, 200);
    let (status, g) = call(&p[1], Method::GET, &format!("/api/groups/{group}"), None).await;
    assert_eq!((status, g["members"].clone()), (200, json!(["ana", "bia"])));
    assert_eq!(
        g["invited"],
        json!([]),
        "only the creator sees who is invited"
    );
}
on_both!(on_g08_only_participants_see_a_group);

async fn on_g09_finalizing_deletes_the_group_and_all_of_it(db: Db) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia", "caio"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let group = create(&p[0], "Temporada").await;
    assert_eq!(invite(&p[0], &group, "bia").await.0, 204);
    assert_eq!(accept(&p[1], &group).await.0, 200);
    assert_eq!(invite(&p[0], &group, "caio").await.0, 204);
    let (status, _) = call(&p[1], Method::DELETE, &format!("/api/groups/{group}"), None).await;
    assert_eq!(status, 403, "only the creator finalizes");
    let (status, _) = call(&p[0], Method::DELETE, &format!("/api/groups/{group}"), None).await;
    assert_eq!(status, 204);
    for table in [
        "mini_groups WHERE id",
        "group_members WHERE group_id",
        "group_invitations WHERE group_id",
    ] {
        assert_eq!(
            count(
                &server,
                &format!("SELECT COUNT(*) FROM {table} = '{group}'")
            )
            .await,
            0,
            "{table}"
        );
    }
    for c in &p {
        let (_, mine) = call(c, Method::GET, "/api/groups", None).await;
        assert_eq!(
            (mine["groups"].clone(), mine["invitations"].clone()),
            (json!([]), json!([]))
        );
    }
    // The creator may make a new one.
    create(&p[0], "Temporada 2").await;
}
on_both!(on_g09_finalizing_deletes_the_group_and_all_of_it);

async fn on_g01_a_group_name_has_3_to_40_characters_and_no_control_characters(db: Db) {
    let server = start(db).await;
    let p = subscribers(&server, &["ana".to_owned()]).await;
    let long = "é".repeat(41);
    for (name, why) in [
        ("ab", "too short"),
        ("  ab  ", "too short once trimmed"),
        (long.as_str(), "too long"),
        ("Turma\u{7}", "a control character"),
        ("Tur\nma", "a line break"),
    ] {
        let (status, e) = call(
            &p[0],
            Method::POST,
            "/api/groups",
            Some(json!({ "name": name })),
        )
        .await;
        assert_eq!(status, 400, "{why}: {e}");
        assert!(!e["message"].as_str().unwrap().is_empty());
    }
    assert_eq!(count(&server, "SELECT COUNT(*) FROM mini_groups").await, 0);
    let forty = "é".repeat(40);
    let (status, g) = call(
        &p[0],
        Method::POST,
        "/api/groups",
        Some(json!({ "name": format!(" {forty} ") })),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    assert_eq!(g["name"], json!(forty), "kept trimmed");
}
on_both!(on_g01_a_group_name_has_3_to_40_characters_and_no_control_characters);
