//! ON-G03 … ON-G05, ON-G07, ON-G09: a group's matches — when they start, where they score,
//! the server's Velha, the table, and finalizing with them.

use reqwest::Method;
use serde_json::{Value, json};
use sqlx::Connection;
use velha_api::{EndHow, ErrorCode, MatchGame, MatchState, MatchView, Scope, Seat, ServerMsg};
use velha_load::{Client, Live};
use velha_rules::{Cube, CubeAction, Position};
use velha_server::store::{MatchRow, Store};

use crate::common::{Db, Server, expect};
use crate::groups::{accept, call, count, invite, start, subscribers};
use crate::live::moved;

async fn welcomed(c: &Client) -> Live {
    let mut live = c.live().await.unwrap();
    expect(&mut live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    live
}

async fn group(c: &Client, id: &str) -> Value {
    let (status, g) = call(c, Method::GET, &format!("/api/groups/{id}"), None).await;
    assert_eq!(status, 200, "{g}");
    g
}

/// The table as (name, points, matches, matches against the Velha), best first.
async fn table(c: &Client, id: &str) -> Vec<(String, u64, u64, u64)> {
    group(c, id).await["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["points"].as_u64().unwrap(),
                r["matches"].as_u64().unwrap(),
                r["velha_matches"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn code(e: &Value) -> ErrorCode {
    serde_json::from_value(e["code"].clone()).unwrap()
}

/// A group of `names` (the first creates it, the others accept) and its id.
async fn made(players: &[Client], names: &[String], with_velha: bool) -> String {
    let (status, g) = call(
        &players[0],
        Method::POST,
        "/api/groups",
        Some(json!({ "name": "Turma", "with_velha": with_velha })),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_owned();
    for (p, name) in players.iter().zip(names).skip(1) {
        assert_eq!(invite(&players[0], &id, name).await.0, 204);
        assert_eq!(accept(p, &id).await.0, 200);
    }
    id
}

async fn on_g03_group_matches_start_at_two_participants_and_stay_in_the_group(db: Db) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia", "caio"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let g = made(&p[..1], &all[..1], true).await;
    for (path, body) in [
        (
            "/api/lobby",
            json!({ "scope": "mundial", "level": 1, "group": g }),
        ),
        (
            &format!("/api/groups/{g}/velha") as &str,
            json!({ "level": 1 }),
        ),
    ] {
        let (status, e) = call(&p[0], Method::POST, path, Some(body)).await;
        assert_eq!(
            (status, code(&e)),
            (409, ErrorCode::GroupNotStarted),
            "{path}: {e}"
        );
    }
    assert_eq!(invite(&p[0], &g, "bia").await.0, 204);
    assert_eq!(accept(&p[1], &g).await.0, 200);

    // Nobody outside the group sees its list or its matches, or makes one (ON-G08).
    let list = format!("/api/lobby?scope=mundial&level=1&group={g}");
    let (status, _) = call(&p[2], Method::GET, &list, None).await;
    assert_eq!(status, 404);
    let (status, _) = call(
        &p[2],
        Method::POST,
        "/api/lobby",
        Some(json!({ "scope": "mundial", "level": 1, "group": g })),
    )
    .await;
    assert_eq!(status, 404);
    let mut caio = welcomed(&p[2]).await;
    refused_watch(&mut caio, &g).await;

    // Bia watches the group's list and sees Ana's match come; the Mundial list never has it.
    let mut bia = welcomed(&p[1]).await;
    bia.send(&velha_api::ClientMsg::WatchLobby {
        scope: Scope::Mundial,
        level: 1,
        group: Some(g.clone()),
    })
    .await
    .unwrap();
    expect(
        &mut bia,
        "the group's list",
        |m| matches!(m, ServerMsg::Lobby { group: Some(_), matches, .. } if matches.is_empty()),
    )
    .await;
    let mut ana = welcomed(&p[0]).await;
    let open = p[0].create_in_group(&g, 1).await.unwrap();
    assert_eq!(open.group.as_deref(), Some(g.as_str()));
    expect(
        &mut bia,
        "the match in the group's list",
        |m| matches!(m, ServerMsg::LobbyOpened { open: o } if o.id == open.id),
    )
    .await;
    assert!(p[2].lobby(Scope::Mundial, 1).await.unwrap().is_empty());
    assert!(p[1].lobby(Scope::Mundial, 1).await.unwrap().is_empty());
    let (status, _) = call(
        &p[2],
        Method::POST,
        &format!("/api/lobby/{}/join", open.id),
        None,
    )
    .await;
    assert_eq!(status, 404, "an outsider cannot join a group's match");

    let view = p[1].join(&open.id).await.unwrap();
    assert_eq!(view.group.as_deref(), Some(g.as_str()));
    for live in [&mut ana, &mut bia] {
        expect(live, "started", |m| matches!(m, ServerMsg::Started { .. })).await;
    }
    let id = open.id;
    moved(&mut ana, &mut bia, &id, 0, &["a1"]).await;
    moved(&mut bia, &mut ana, &id, 1, &["S+", "c3"]).await;
    moved(&mut ana, &mut bia, &id, 2, &["a2"]).await;
    moved(&mut bia, &mut ana, &id, 3, &["c2"]).await;
    moved(&mut ana, &mut bia, &id, 4, &["a3"]).await;
    let ended = expect(&mut bia, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
    assert!(
        matches!(
            ended,
            ServerMsg::Ended {
                scored: Some(true),
                ..
            }
        ),
        "{ended:?}"
    );
    // ON-G04: win 3, loss 1, in the group only — no world standing for either.
    let expected = vec![("ana".to_owned(), 3, 1, 0), ("bia".to_owned(), 1, 1, 0)];
    assert_eq!(table(&p[0], &g).await, expected);
    assert_eq!(table(&p[1], &g).await, expected);
    assert_eq!(count(&server, "SELECT COUNT(*) FROM standings").await, 0);
    let (status, me) = call(&p[0], Method::GET, "/api/rankings/me?level=1", None).await;
    assert_eq!(status, 200, "{me}");
    assert!(me["world"].is_null(), "{me}");
}
on_both!(on_g03_group_matches_start_at_two_participants_and_stay_in_the_group);

/// Plays a match between `x` and `o` straight into the store, won by `winner`, ended `at`.
async fn played(store: &Store, ids: (&str, &str), group: Option<&str>, winner: Seat, at: i64) {
    let id = velha_server::token::new_id();
    let row = MatchRow {
        game: MatchGame::Cube,
        ratings: None,
        away: [None, None],
        id: id.clone(),
        scope: Scope::Mundial,
        level: 1,
        x_id: ids.0.to_owned(),
        x_name: String::new(),
        x_country: "BR".into(),
        o_id: None,
        o_name: None,
        state: MatchState::Open,
        position: String::new(),
        ply: 0,
        deadline: None,
        winner: None,
        ending: None,
        created_at: at - 60_000,
        scored: None,
        group: group.map(Into::into),
        velha: false,
    };
    store.insert_open_match(&row).await.unwrap();
    store
        .join_match(&id, ids.1, "BR", at - 50_000, at)
        .await
        .unwrap();
    assert!(
        store
            .end_match(&id, Some(winner), EndHow::Line, at, &[])
            .await
            .unwrap()
    );
}

async fn on_g04_two_scored_matches_a_day_per_pair_counted_apart_from_the_world(db: Db) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let g = made(&p, &all, false).await;
    let store = Store::open(&server.database_url()).await.unwrap();
    let id = |name: &str| {
        let store = store.clone();
        let name = name.to_owned();
        async move { store.account_by_name(&name).await.unwrap().unwrap().id }
    };
    let (ana, bia) = (id("ana").await, id("bia").await);
    // One UTC day: two world matches, then three in the group (the world's two do not use up
    // the group's), then the next day one more in the group.
    let day = 1_790_000_000_000 - 1_790_000_000_000 % 86_400_000;
    played(&store, (&ana, &bia), None, Seat::X, day + 1_000).await;
    played(&store, (&bia, &ana), None, Seat::X, day + 2_000).await;
    for (i, winner) in [Seat::X, Seat::O, Seat::X].into_iter().enumerate() {
        played(
            &store,
            (&ana, &bia),
            Some(&g),
            winner,
            day + 10_000 + i as i64,
        )
        .await;
    }
    let flags = count(
        &server,
        &format!("SELECT COUNT(*) FROM matches WHERE group_id = '{g}' AND scored = 0"),
    )
    .await;
    assert_eq!(flags, 1, "the third group match of the day scores nothing");
    // Scored: ana won, bia won → 3 + 1 each; the third (ana's win) played but not scored.
    assert_eq!(
        table(&p[0], &g).await,
        vec![("ana".into(), 4, 3, 0), ("bia".into(), 4, 3, 0)]
    );
    played(&store, (&bia, &ana), Some(&g), Seat::X, day + 86_400_000).await;
    assert_eq!(
        table(&p[1], &g).await,
        vec![("bia".into(), 7, 4, 0), ("ana".into(), 5, 4, 0)]
    );
    // The world standings hold only the two world matches: 4 points each.
    assert_eq!(
        count(
            &server,
            "SELECT COUNT(*) FROM standings WHERE neg_points = -4"
        )
        .await,
        2
    );
    let rebuilt = store.rebuild_rankings(false).await.unwrap();
    assert_eq!(
        (
            rebuilt.matches,
            rebuilt.flags.len(),
            rebuilt.standings.len()
        ),
        (2, 0, 0)
    );
}
on_both!(on_g04_two_scored_matches_a_day_per_pair_counted_apart_from_the_world);

/// X's action for this position: a tap when one is legal, a turn otherwise.
fn an_action(cube: &Cube, n: usize) -> CubeAction {
    let legal: Vec<CubeAction> = cube.legal_actions().collect();
    let taps: Vec<CubeAction> = legal
        .iter()
        .copied()
        .filter(|a| matches!(a, CubeAction::Tap(_)))
        .collect();
    let from = if taps.is_empty() { &legal } else { &taps };
    from[n % from.len()]
}

/// Ana, in a group with Bia and the Velha, connected, starts a level-1 match against her:
/// the server, both players, the group, Ana's connection and the match.
async fn ana_against_the_velha(db: Db) -> (Server, Vec<Client>, String, Live, MatchView) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let g = made(&p, &all, true).await;
    let live = welcomed(&p[0]).await;
    let view = p[0].play_velha(&g, 1).await.unwrap();
    (server, p, g, live, view)
}

async fn on_g05_the_servers_velha_plays_live_and_scores_only_in_the_group(db: Db) {
    let (server, p, g, mut live, view) = ana_against_the_velha(db).await;
    assert!(view.velha);
    assert_eq!(
        (view.seat, view.o.as_deref(), view.to_move),
        (Seat::X, Some("Velha"), Some(Seat::X))
    );
    let (status, e) = call(
        &p[1],
        Method::POST,
        &format!("/api/groups/{g}/velha"),
        Some(json!({ "level": 3 })),
    )
    .await;
    assert_eq!((status, code(&e)), (400, ErrorCode::BadRequest), "{e}");
    let (status, e) = call(
        &p[0],
        Method::POST,
        &format!("/api/groups/{g}/velha"),
        Some(json!({ "level": 1 })),
    )
    .await;
    assert_eq!((status, code(&e)), (409, ErrorCode::AlreadyPlaying), "{e}");

    // Ana plays whatever comes first; the Velha answers every turn with legal actions (each
    // is checked against the rules here too), until the game ends or Ana gives up.
    let mut cube: Cube = view.position.parse().unwrap();
    let mut seen = vec![view.position.clone()];
    let mut ply = 0;
    let ending = loop {
        if ply >= 40 {
            live.send(&velha_api::ClientMsg::Leave {
                match_id: view.id.clone(),
            })
            .await
            .unwrap();
        } else if cube.status() == velha_rules::Status::Ongoing(velha_rules::Player::X) {
            let action = an_action(&cube, ply as usize);
            live.send(&velha_api::ClientMsg::Play {
                match_id: view.id.clone(),
                ply,
                actions: vec![action.to_string()],
            })
            .await
            .unwrap();
        }
        match expect(&mut live, "a move or the end", |m| {
            matches!(
                m,
                ServerMsg::Moved { .. } | ServerMsg::Ended { .. } | ServerMsg::Refused { .. }
            )
        })
        .await
        {
            ServerMsg::Moved {
                ply: now,
                by,
                actions,
                position,
                ..
            } => {
                for a in &actions {
                    cube.play(a.parse().unwrap()).expect("a legal action");
                }
                assert_eq!(cube.to_string(), position, "{by:?} {actions:?}");
                seen.push(position);
                ply = now;
            }
            ServerMsg::Ended { ending, scored, .. } => {
                assert_eq!(scored, Some(true), "against the Velha every match scores");
                break ending;
            }
            other => panic!("{other:?}"),
        }
    };
    assert!(ply >= 2, "she played");
    // Her memory of the game, as any process reads it back: every position before the last,
    // from the start.
    let store = Store::open(&server.database_url()).await.unwrap();
    let remembered = store.positions_of(&view.id, &seen[0]).await.unwrap();
    assert_eq!(remembered, seen[..seen.len() - 1]);
    store.close().await;
    // Win 3, loss 0 (and a loss puts her below Bia, who lost nothing).
    let expected = if ending.winner == Some(Seat::X) {
        vec![("ana".into(), 3, 0, 1), ("bia".into(), 0, 0, 0)]
    } else {
        vec![("bia".into(), 0, 0, 0), ("ana".into(), 0, 0, 1)]
    };
    assert_eq!(table(&p[1], &g).await, expected, "{ending:?}");
    // Her wins for the player: 3 each, with no daily limit.
    let store = Store::open(&server.database_url()).await.unwrap();
    let bia = store.account_by_name("bia").await.unwrap().unwrap();
    for _ in 0..3 {
        let row = velha_match(&bia.id, &g);
        store
            .insert_velha_match(&row, row.created_at)
            .await
            .unwrap();
        assert!(
            store
                .end_match(
                    &row.id,
                    Some(Seat::X),
                    EndHow::Line,
                    row.created_at + 1,
                    &[]
                )
                .await
                .unwrap()
        );
    }
    assert_eq!(table(&p[1], &g).await[0], ("bia".into(), 9, 0, 3),);
    assert_eq!(count(&server, "SELECT COUNT(*) FROM standings").await, 0);

    // A group without her has no such match.
    let names: Vec<String> = ["caio", "dani"].map(String::from).to_vec();
    let q = subscribers(&server, &names).await;
    let other = made(&q, &names, false).await;
    let (status, e) = call(
        &q[0],
        Method::POST,
        &format!("/api/groups/{other}/velha"),
        Some(json!({ "level": 1 })),
    )
    .await;
    assert_eq!((status, code(&e)), (403, ErrorCode::Forbidden), "{e}");
}
on_both!(on_g05_the_servers_velha_plays_live_and_scores_only_in_the_group);

/// ON-G05: the Velha's move failing to be written for a moment (here a trigger refuses her
/// rows, as a full disk or a restarting database would) is tried again a second later, not
/// left for the sweeper's 15 s.
async fn on_g05_the_velha_tries_her_turn_again_after_the_database_failed(db: Db) {
    // On PostgreSQL a sequence, which no rollback takes back, counts her failed tries.
    let (failing, healed, tries): (&[&str], &str, Option<&str>) = match db {
        Db::Sqlite => (
            &[
                "CREATE TRIGGER velha_fails BEFORE INSERT ON moves WHEN NEW.seat = 'O' \
             BEGIN SELECT RAISE(ABORT, 'the disk is full for a moment'); END",
            ],
            "DROP TRIGGER velha_fails",
            None,
        ),
        Db::Postgres(_) => (
            &[
                "CREATE SEQUENCE velha_tries",
                "CREATE FUNCTION velha_fails() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
             IF NEW.seat = 'O' THEN PERFORM nextval('velha_tries'); \
             RAISE EXCEPTION 'the disk is full for a moment'; END IF; \
             RETURN NEW; END $$",
                "CREATE TRIGGER velha_fails BEFORE INSERT ON moves \
             FOR EACH ROW EXECUTE FUNCTION velha_fails()",
            ],
            "DROP TRIGGER velha_fails ON moves",
            Some("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM velha_tries"),
        ),
    };
    let (server, p, _, mut live, view) = ana_against_the_velha(db).await;
    let mut database = server.database().await;
    for sql in failing {
        sqlx::query(sql).execute(&mut database).await.unwrap();
    }
    let cube: Cube = view.position.parse().unwrap();
    let first = an_action(&cube, 0).to_string();
    live.send(&velha_api::ClientMsg::Play {
        match_id: view.id.clone(),
        ply: 0,
        actions: vec![first.clone()],
    })
    .await
    .unwrap();
    let ana = expect(&mut live, "Ana's move", |m| {
        matches!(m, ServerMsg::Moved { .. })
    })
    .await;
    assert!(
        matches!(
            &ana,
            ServerMsg::Moved {
                ply: 1,
                by: Seat::X,
                ..
            }
        ),
        "{ana:?}"
    );
    // Her first tries fail: her turn waits, the match still live.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let waiting = p[0].get_match(&view.id).await.unwrap();
    assert_eq!(
        (waiting.ply, waiting.to_move, waiting.state),
        (1, Some(Seat::O), MatchState::Live)
    );
    if let Some(tries) = tries {
        let failed: i64 = sqlx::query_scalar(tries)
            .fetch_one(&mut database)
            .await
            .unwrap();
        assert!(failed >= 1, "she has not tried yet");
    }
    sqlx::query(healed).execute(&mut database).await.unwrap();
    // Well before the sweeper would look (15 s after her turn began), she has played.
    let hers = live
        .recv_until(std::time::Duration::from_secs(8), |m| {
            matches!(m, ServerMsg::Moved { .. } | ServerMsg::Ended { .. })
        })
        .await
        .unwrap_or_else(|e| panic!("the Velha did not try again: {e}"));
    let ServerMsg::Moved {
        ply, by, actions, ..
    } = hers
    else {
        panic!("{hers:?}");
    };
    assert_eq!((ply, by), (2, Seat::O));
    let mut after = cube;
    after.play(first.parse().unwrap()).unwrap();
    for a in &actions {
        after.play(a.parse().unwrap()).expect("her action is legal");
    }
    // Stored as played (her next turn may follow already, after a free turn).
    let store = Store::open(&server.database_url()).await.unwrap();
    let stored = store.moves_of(&view.id).await.unwrap();
    store.close().await;
    let first_two: Vec<_> = stored.into_iter().take(2).collect();
    assert_eq!(
        first_two,
        [(1, Seat::X, first), (2, Seat::O, actions.join(" "))]
    );
}
on_both!(on_g05_the_velha_tries_her_turn_again_after_the_database_failed);

/// ON-G05: a turn of the Velha left waiting (its process gone) is found by whose turn the
/// position says, at any ply: after her own free turn she is to move again at an even ply.
async fn on_g05_a_velha_turn_left_waiting_is_found_whoever_made_the_last_ply(db: Db) {
    let dir = tempfile::tempdir().unwrap();
    let url = match &db {
        Db::Sqlite => format!("sqlite://{}?mode=rwc", dir.path().join("w.db").display()),
        Db::Postgres(url) => url.clone(),
    };
    let store = Store::open(&url).await.unwrap();
    let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
    let start = Cube::new(velha_rules::Level::Two);
    let played = |cube: &Cube, action: CubeAction| {
        let mut next = *cube;
        next.play(action).unwrap();
        next
    };
    let tapped = |cube: &Cube| {
        let tap = cube
            .legal_actions()
            .find(|a| matches!(a, CubeAction::Tap(_)));
        played(cube, tap.unwrap())
    };
    let x_tapped = tapped(&start);
    // A free turn (S or B): her turn goes on.
    let her_free_turn = x_tapped
        .legal_actions()
        .map(|a| played(&x_tapped, a))
        .find(|next| next.side_to_move() == velha_rules::Player::O)
        .unwrap();
    let she_tapped = tapped(&her_free_turn);
    assert_eq!(she_tapped.side_to_move(), velha_rules::Player::X);
    let (old, since, recent) = (1_000, 10_000, 20_000);
    // (id, position, ply, deadline, state, against the Velha)
    let stored = [
        ("her-turn", x_tapped, 1, old, "live", 1),
        ("after-her-free-turn", her_free_turn, 2, old, "live", 1),
        ("x-to-move", she_tapped, 3, old, "live", 1),
        ("recent", x_tapped, 1, recent, "live", 1),
        ("over", x_tapped, 1, old, "over", 1),
        ("two-people", x_tapped, 1, old, "live", 0),
    ];
    for (n, (id, position, ply, deadline, state, velha)) in stored.iter().enumerate() {
        sqlx::query(
            "INSERT INTO accounts (id, name, name_key, country, created_at) \
             VALUES ($1, $1, $1, 'BR', 0)",
        )
        .bind(format!("p{n}"))
        .execute(&mut conn)
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO matches (id, scope, level, x_id, x_country, state, position, ply, \
             deadline, created_at, started_at, against_velha) \
             VALUES ($1, 'mundial', 2, $2, 'BR', $3, $4, $5, $6, 0, 0, $7)",
        )
        .bind(*id)
        .bind(format!("p{n}"))
        .bind(*state)
        .bind(position.to_string())
        .bind(*ply)
        .bind(*deadline)
        .bind(*velha)
        .execute(&mut conn)
        .await
        .unwrap();
    }
    let mut waiting = store.velha_waiting(since).await.unwrap();
    waiting.sort();
    assert_eq!(
        waiting,
        [
            ("after-her-free-turn".to_owned(), 2),
            ("her-turn".to_owned(), 1)
        ]
    );
    store.close().await;
}
on_both!(on_g05_a_velha_turn_left_waiting_is_found_whoever_made_the_last_ply);

fn velha_match(player: &str, group: &str) -> MatchRow {
    let now = velha_server::token::now_ms();
    MatchRow {
        game: MatchGame::Cube,
        ratings: None,
        away: [None, None],
        id: velha_server::token::new_id(),
        scope: Scope::Mundial,
        level: 1,
        x_id: player.to_owned(),
        x_name: String::new(),
        x_country: "BR".into(),
        o_id: None,
        o_name: None,
        state: MatchState::Live,
        position: Cube::new(velha_rules::Level::One).to_string(),
        ply: 0,
        deadline: Some(now + 60_000),
        winner: None,
        ending: None,
        created_at: now,
        scored: None,
        group: Some(group.to_owned()),
        velha: true,
    }
}

async fn on_g09_finalizing_waits_for_a_live_match_then_deletes_every_match_of_the_group(db: Db) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia", "caio"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let g = made(&p, &all, true).await;
    let mut ana = welcomed(&p[0]).await;
    let mut bia = welcomed(&p[1]).await;
    // A finished match with its moves, one live, and one waiting in the group's list.
    let view = p[0].play_velha(&g, 1).await.unwrap();
    moved_by_ana(&mut ana, &view.id).await;
    ana.send(&velha_api::ClientMsg::Leave {
        match_id: view.id.clone(),
    })
    .await
    .unwrap();
    expect(&mut ana, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
    let open = p[0].create_in_group(&g, 2).await.unwrap();
    p[1].join(&open.id).await.unwrap();
    expect(&mut bia, "started", |m| {
        matches!(m, ServerMsg::Started { .. })
    })
    .await;
    let waiting = p[2].create_in_group(&g, 1).await.unwrap();
    let finalize = format!("/api/groups/{g}");
    let (status, e) = call(&p[0], Method::DELETE, &finalize, None).await;
    assert_eq!((status, code(&e)), (409, ErrorCode::GroupMatchLive), "{e}");
    assert_eq!(table(&p[2], &g).await.len(), 3, "nothing was deleted");
    bia.send(&velha_api::ClientMsg::Leave {
        match_id: open.id.clone(),
    })
    .await
    .unwrap();
    expect(&mut bia, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
    let (status, e) = call(&p[0], Method::DELETE, &finalize, None).await;
    assert_eq!(status, 204, "{e}");
    let matches = format!("SELECT id FROM matches WHERE group_id = '{g}'");
    assert_eq!(
        count(&server, &format!("SELECT COUNT(*) FROM ({matches}) AS m")).await,
        0
    );
    assert_eq!(
        count(
            &server,
            &format!(
                "SELECT COUNT(*) FROM moves WHERE match_id IN ('{}', '{}')",
                view.id, open.id
            )
        )
        .await,
        0
    );
    // Caio's waiting match went with it: he is free to play again.
    assert_eq!(
        count(
            &server,
            &format!(
                "SELECT COUNT(*) FROM active_players WHERE match_id = '{}'",
                waiting.id
            )
        )
        .await,
        0
    );
    p[2].create(Scope::Mundial, 1).await.unwrap();
}
on_both!(on_g09_finalizing_waits_for_a_live_match_then_deletes_every_match_of_the_group);

/// Ana's first move against the Velha, and the Velha's answer.
async fn moved_by_ana(ana: &mut Live, id: &str) {
    ana.send(&velha_api::ClientMsg::Play {
        match_id: id.to_owned(),
        ply: 0,
        actions: vec!["b2".into()],
    })
    .await
    .unwrap();
    expect(ana, "the Velha's answer", |m| {
        matches!(m, ServerMsg::Moved { by: Seat::O, .. })
    })
    .await;
}

async fn on_g05_one_match_against_the_velha_at_a_time_under_concurrent_requests(db: Db) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let g = made(&p, &all, true).await;
    let mut live = welcomed(&p[0]).await;
    for round in 0..5 {
        // Ten at once, with a group match of hers in the lobby racing them half the rounds.
        let velha = (0..10).map(|_| p[0].play_velha(&g, 1 + (round % 2) as u8));
        let (started, open) = tokio::join!(futures_util::future::join_all(velha), async {
            if round % 2 == 0 {
                Some(p[0].create_in_group(&g, 1).await)
            } else {
                None
            }
        });
        let ids: Vec<String> = started
            .into_iter()
            .filter_map(Result::ok)
            .map(|v| v.id)
            .chain(open.into_iter().filter_map(Result::ok).map(|o| o.id))
            .collect();
        assert_eq!(ids.len(), 1, "round {round}: {ids:?}");
        let active = count(
            &server,
            "SELECT COUNT(*) FROM matches WHERE state IN ('open', 'live')",
        )
        .await;
        assert_eq!(active, 1, "round {round}");
        // Done with it: leave the live one, withdraw the open one.
        if p[0].cancel(&ids[0]).await.is_err() {
            live.send(&velha_api::ClientMsg::Leave {
                match_id: ids[0].clone(),
            })
            .await
            .unwrap();
            expect(&mut live, "ended", |m| matches!(m, ServerMsg::Ended { .. })).await;
        }
    }
}
on_both!(on_g05_one_match_against_the_velha_at_a_time_under_concurrent_requests);

async fn on_g09_finalizing_races_every_way_a_group_match_starts(db: Db) {
    let server = start(db).await;
    for round in 0..9 {
        let all: Vec<String> = ["a", "b", "c", "d", "e"]
            .map(|p| format!("r{round}{p}"))
            .to_vec();
        let p = subscribers(&server, &all).await;
        let g = made(&p, &all, true).await;
        let waiting = p[1].create_in_group(&g, 1).await.unwrap();
        // The creator finalizes while one participant joins the waiting match, one starts a
        // match against the Velha and one opens another.
        let finalize = format!("/api/groups/{g}");
        let velha = format!("/api/groups/{g}/velha");
        let open = json!({ "scope": "mundial", "level": 1, "group": g });
        let join = format!("/api/lobby/{}/join", waiting.id);
        let (finalized, joined, against_velha, opened) = tokio::join!(
            call(&p[0], Method::DELETE, &finalize, None),
            call(&p[2], Method::POST, &join, None),
            call(&p[3], Method::POST, &velha, Some(json!({ "level": 1 }))),
            call(&p[4], Method::POST, "/api/lobby", Some(open)),
        );
        let answers = [&finalized, &joined, &against_velha, &opened];
        for (status, body) in answers {
            assert!(
                [200, 201, 204, 404, 409].contains(status),
                "round {round}: {status} {body}"
            );
        }
        let in_group = |sql: &str| format!("{sql} WHERE group_id = '{g}'");
        let matches = count(&server, &in_group("SELECT COUNT(*) FROM matches")).await;
        let members = count(&server, &in_group("SELECT COUNT(*) FROM group_members")).await;
        let players = all
            .iter()
            .map(|n| format!("'{}'", n.to_lowercase()))
            .collect::<Vec<_>>()
            .join(", ");
        let playing = count(
            &server,
            &format!(
                "SELECT COUNT(*) FROM active_players a JOIN accounts p ON p.id = a.account_id \
                 WHERE LOWER(p.name) IN ({players})"
            ),
        )
        .await;
        if finalized.0 == 204 {
            // Nothing of the group is left, and nobody is held in a match of it.
            assert_eq!(
                (matches, members, playing),
                (0, 0, 0),
                "round {round}: {answers:?}"
            );
            assert_ne!(joined.0, 200, "round {round}: {joined:?}");
            assert_ne!(against_velha.0, 201, "round {round}: {against_velha:?}");
            let (status, _) = call(&p[1], Method::GET, &finalize, None).await;
            assert_eq!(status, 404, "round {round}");
        } else {
            // A match went live first: the group and everything of it stays.
            assert_eq!(
                (finalized.0, code(&finalized.1)),
                (409, ErrorCode::GroupMatchLive),
                "round {round}: {answers:?}"
            );
            assert!(
                joined.0 == 200 || against_velha.0 == 201,
                "round {round}: {answers:?}"
            );
            assert_eq!(members, 5, "round {round}");
            let live = [joined.0 == 200, against_velha.0 == 201];
            let kept = 1 + i64::from(opened.0 == 201) + i64::from(live[1]);
            assert_eq!(matches, kept, "round {round}: {answers:?}");
            let held = 1 + i64::from(live[0]) + i64::from(live[1]) + i64::from(opened.0 == 201);
            assert_eq!(playing, held, "round {round}: {answers:?}");
        }
    }
}
on_both!(on_g09_finalizing_races_every_way_a_group_match_starts);

/// Everything a connection hears until the answer to a ping sent now.
async fn heard_until_pong(live: &mut Live) -> Vec<ServerMsg> {
    live.send(&velha_api::ClientMsg::Ping).await.unwrap();
    let mut heard = Vec::new();
    loop {
        let msg = live.recv(std::time::Duration::from_secs(5)).await.unwrap();
        if msg == ServerMsg::Pong {
            return heard;
        }
        heard.push(msg);
    }
}

/// Asks to watch a group's list and is refused as a stranger is (ON-G08).
async fn refused_watch(live: &mut Live, group: &str) {
    live.send(&velha_api::ClientMsg::WatchLobby {
        scope: Scope::Mundial,
        level: 1,
        group: Some(group.to_owned()),
    })
    .await
    .unwrap();
    let refused = expect(live, "a refusal", |m| matches!(m, ServerMsg::Error { .. })).await;
    assert!(
        matches!(
            refused,
            ServerMsg::Error {
                code: ErrorCode::NotFound,
                ..
            }
        ),
        "{refused:?}"
    );
}

async fn watching(c: &Client, group: &str) -> Live {
    let mut live = welcomed(c).await;
    live.send(&velha_api::ClientMsg::WatchLobby {
        scope: Scope::Mundial,
        level: 1,
        group: Some(group.to_owned()),
    })
    .await
    .unwrap();
    expect(&mut live, "the group's list", |m| {
        matches!(m, ServerMsg::Lobby { .. })
    })
    .await;
    live
}

async fn on_g08_a_lobby_watch_ends_when_its_watcher_leaves_the_group(db: Db) {
    let server = start(db).await;
    let all: Vec<String> = ["ana", "bia", "caio", "dani"].map(String::from).to_vec();
    let p = subscribers(&server, &all).await;
    let g = made(&p, &all[..3], false).await;
    let mut bia = watching(&p[1], &g).await;
    let mut caio = watching(&p[2], &g).await;
    let gone = ServerMsg::GroupChanged {
        group: g.clone(),
        member: false,
        finalized: false,
    };
    let changed = ServerMsg::GroupChanged {
        group: g.clone(),
        member: true,
        finalized: false,
    };
    let finalized = ServerMsg::GroupChanged {
        group: g.clone(),
        member: false,
        finalized: true,
    };
    let (status, e) = call(
        &p[1],
        Method::DELETE,
        &format!("/api/groups/{g}/members/me"),
        None,
    )
    .await;
    assert_eq!(status, 204, "{e}");
    assert_eq!(
        heard_until_pong(&mut bia).await,
        std::slice::from_ref(&gone)
    );
    assert_eq!(
        heard_until_pong(&mut caio).await,
        std::slice::from_ref(&changed)
    );
    let open = p[0].create_in_group(&g, 1).await.unwrap();
    let opened = ServerMsg::LobbyOpened { open };
    assert_eq!(heard_until_pong(&mut caio).await, [opened]);
    assert_eq!(
        heard_until_pong(&mut bia).await,
        [],
        "she left: she hears nothing of it"
    );
    // Asking to watch it again is refused like any stranger's.
    refused_watch(&mut bia, &g).await;
    // An invitation reaches the invitee and the participants; finalizing ends every watch.
    assert_eq!(invite(&p[0], &g, "dani").await.0, 204);
    assert_eq!(heard_until_pong(&mut caio).await, [changed]);
    let mut dani = welcomed(&p[3]).await;
    let (status, e) = call(&p[0], Method::DELETE, &format!("/api/groups/{g}"), None).await;
    assert_eq!(status, 204, "{e}");
    let closed = heard_until_pong(&mut caio).await;
    assert!(
        closed.ends_with(std::slice::from_ref(&finalized)),
        "{closed:?}"
    );
    assert_eq!(heard_until_pong(&mut dani).await, [finalized]);
    p[2].create_in_group(&g, 1).await.unwrap_err();
    assert_eq!(heard_until_pong(&mut caio).await, []);
}
on_both!(on_g08_a_lobby_watch_ends_when_its_watcher_leaves_the_group);
