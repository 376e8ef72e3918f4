//! ON-M01, ON-M02: the lobby.

use velha_api::{ErrorCode, MatchState, Scope, Seat, ServerMsg};
use velha_load::{Client, Live};

use crate::common::{Db, Server, expect, expect_refusal};

const UNTIL: Option<&str> = Some("2099-12-31");

async fn on_m01_lobby_by_scope_level_and_country(db: Db) {
    let server = Server::start(db, &[]).await;
    let ana = server.player("ana", "pt-BR", UNTIL).await;
    let bia = server.player("bia", "pt-BR", UNTIL).await;
    let joe = server.player("joe", "en-US", UNTIL).await;

    let nacional = ana.create(Scope::Nacional, 1).await.unwrap();
    assert_eq!(
        (nacional.creator.as_str(), nacional.country.as_str()),
        ("ana", "BR")
    );
    assert_eq!(
        ana.create(Scope::Mundial, 2).await.unwrap_err().code,
        ErrorCode::AlreadyPlaying,
        "one open or live match at a time"
    );
    let ids = |v: Vec<velha_api::OpenMatch>| v.into_iter().map(|m| m.id).collect::<Vec<_>>();
    assert_eq!(
        ids(bia.lobby(Scope::Nacional, 1).await.unwrap()),
        vec![nacional.id.clone()]
    );
    assert!(
        joe.lobby(Scope::Nacional, 1).await.unwrap().is_empty(),
        "another country"
    );
    assert!(
        bia.lobby(Scope::Mundial, 1).await.unwrap().is_empty(),
        "another scope"
    );
    assert!(
        bia.lobby(Scope::Nacional, 2).await.unwrap().is_empty(),
        "another level"
    );
    assert_eq!(
        joe.join(&nacional.id).await.unwrap_err().code,
        ErrorCode::WrongCountry
    );
    assert_eq!(
        bia.lobby(Scope::Nacional, 3).await.unwrap_err().code,
        ErrorCode::BadRequest
    );

    // Only the creator withdraws, and a withdrawn match is gone.
    assert_eq!(
        bia.cancel(&nacional.id).await.unwrap_err().code,
        ErrorCode::NotFound
    );
    ana.cancel(&nacional.id).await.unwrap();
    assert!(bia.lobby(Scope::Nacional, 1).await.unwrap().is_empty());
    assert_eq!(
        bia.join(&nacional.id).await.unwrap_err().code,
        ErrorCode::Conflict
    );

    // Mundial: anyone joins; the creator, waiting on the WebSocket, hears at once.
    let mundial = joe.create(Scope::Mundial, 2).await.unwrap();
    let mut joe_live = joe.live().await.unwrap();
    let welcome = expect(&mut joe_live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    let ServerMsg::Welcome { name, matches } = welcome else {
        unreachable!()
    };
    assert_eq!(name, "joe");
    assert_eq!(matches.len(), 1);
    assert_eq!(matches[0].state, MatchState::Open);
    assert_eq!(
        ids(ana.lobby(Scope::Mundial, 2).await.unwrap()),
        vec![mundial.id.clone()]
    );
    assert_eq!(
        joe.join(&mundial.id).await.unwrap_err().code,
        ErrorCode::Forbidden
    );
    let view = ana.join(&mundial.id).await.unwrap();
    assert_eq!(
        (view.seat, view.state, view.level),
        (Seat::O, MatchState::Live, 2)
    );
    let started = expect(&mut joe_live, "started", |m| {
        matches!(m, ServerMsg::Started { .. })
    })
    .await;
    let ServerMsg::Started { view } = started else {
        unreachable!()
    };
    assert_eq!(view.id, mundial.id);
    assert_eq!(view.seat, Seat::X, "ON-M02: the creator is X");
    assert_eq!(view.to_move, Some(Seat::X), "ON-M02: X moves first");
    assert_eq!((view.x.as_str(), view.o.as_deref()), ("joe", Some("ana")));
    assert!(view.clock_ms.is_some_and(|ms| ms > 50_000 && ms <= 60_000));
    assert!(
        ana.lobby(Scope::Mundial, 2).await.unwrap().is_empty(),
        "no longer open"
    );
    assert_eq!(
        bia.join(&mundial.id).await.unwrap_err().code,
        ErrorCode::Conflict
    );
    assert_eq!(
        ana.create(Scope::Mundial, 1).await.unwrap_err().code,
        ErrorCode::AlreadyPlaying
    );
}
on_both!(on_m01_lobby_by_scope_level_and_country);

async fn on_m01_a_creator_who_leaves_is_no_longer_waiting(db: Db) {
    let server = Server::start(db, &["--reconnect-grace-ms", "300"]).await;
    let ana = server.player("ana", "pt-BR", UNTIL).await;
    let bia = server.player("bia", "pt-BR", UNTIL).await;
    let open = ana.create(Scope::Mundial, 1).await.unwrap();
    let live = ana.live().await.unwrap();
    live.close().await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    assert!(bia.lobby(Scope::Mundial, 1).await.unwrap().is_empty());
    assert_eq!(
        bia.join(&open.id).await.unwrap_err().code,
        ErrorCode::Conflict
    );
    assert_eq!(
        ana.get_match(&open.id).await.unwrap().state,
        MatchState::Cancelled
    );
}
on_both!(on_m01_a_creator_who_leaves_is_no_longer_waiting);

/// `who`'s live connection, welcomed, having asked to watch a lobby list.
async fn asking_to_watch(who: &Client, scope: Scope, level: u8) -> Live {
    let mut live = who.live().await.unwrap();
    expect(&mut live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    live.send(&velha_api::ClientMsg::WatchLobby {
        scope,
        level,
        group: None,
    })
    .await
    .unwrap();
    live
}

/// `who`'s live connection watching a lobby list, and the list as it first came.
async fn watch(who: &Client, scope: Scope, level: u8) -> (Live, ServerMsg) {
    let mut live = asking_to_watch(who, scope, level).await;
    let list = expect(&mut live, "the list", |m| {
        matches!(m, ServerMsg::Lobby { .. })
    })
    .await;
    (live, list)
}

fn ids(msg: &ServerMsg) -> Vec<String> {
    match msg {
        ServerMsg::Lobby { matches, .. } => matches.iter().map(|m| m.id.clone()).collect(),
        other => panic!("not a lobby list: {other:?}"),
    }
}

/// ON-M01, ON-M02: a watched lobby list changes live — opened, withdrawn, taken — and a
/// Nacional list only hears of its own country's matches; non-subscribers see nothing.
async fn on_m01_the_watched_lobby_changes_live(db: Db) {
    use velha_api::ClientMsg;
    let server = Server::start(db, &[]).await;
    let ana = server.player("ana", "pt-BR", UNTIL).await;
    let bia = server.player("bia", "pt-BR", UNTIL).await;
    let joe = server.player("joe", "en-US", UNTIL).await;
    let zoe = server.player("zoe", "pt-BR", None).await;
    let early = ana.create(Scope::Nacional, 2).await.unwrap();

    let mut watchers = Vec::new();
    for (who, scope) in [
        (&bia, Scope::Nacional),
        (&joe, Scope::Nacional),
        (&bia, Scope::Mundial),
    ] {
        watchers.push(watch(who, scope, 2).await);
    }
    assert_eq!(
        ids(&watchers[0].1),
        vec![early.id.clone()],
        "Brazil sees Ana's Nacional match"
    );
    assert!(ids(&watchers[1].1).is_empty(), "the United States does not");
    assert!(ids(&watchers[2].1).is_empty(), "nor does the Mundial list");

    let mut zoe_live = asking_to_watch(&zoe, Scope::Mundial, 2).await;
    let refused = expect(&mut zoe_live, "a refusal", |m| {
        matches!(m, ServerMsg::Error { .. })
    })
    .await;
    assert!(matches!(
        refused,
        ServerMsg::Error {
            code: ErrorCode::SubscribersOnly,
            ..
        }
    ));

    ana.cancel(&early.id).await.unwrap();
    let closed = expect(&mut watchers[0].0, "closed", |m| {
        matches!(m, ServerMsg::LobbyClosed { .. })
    })
    .await;
    assert_eq!(
        closed,
        ServerMsg::LobbyClosed {
            id: early.id.clone()
        }
    );

    let mundial = ana.create(Scope::Mundial, 2).await.unwrap();
    for (i, (live, _)) in watchers.iter_mut().enumerate().skip(2) {
        let opened = expect(live, "opened", |m| {
            matches!(m, ServerMsg::LobbyOpened { .. })
        })
        .await;
        assert_eq!(
            opened,
            ServerMsg::LobbyOpened {
                open: mundial.clone()
            },
            "watcher {i}"
        );
    }
    joe.join(&mundial.id).await.unwrap();
    let closed = expect(&mut watchers[2].0, "taken", |m| {
        matches!(m, ServerMsg::LobbyClosed { .. })
    })
    .await;
    assert_eq!(
        closed,
        ServerMsg::LobbyClosed {
            id: mundial.id.clone()
        }
    );
    // The Nacional lists heard nothing of the Mundial match: their next message is the pong.
    for (live, _) in watchers.iter_mut().take(2) {
        live.send(&ClientMsg::Ping).await.unwrap();
        let next = live.recv(std::time::Duration::from_secs(5)).await.unwrap();
        assert!(
            next == ServerMsg::Pong || matches!(next, ServerMsg::LobbyClosed { .. }),
            "{next:?}"
        );
    }
}
on_both!(on_m01_the_watched_lobby_changes_live);

/// ON-A01: the web app's WebSocket signs in with the session cookie of its upgrade request,
/// and only from the site's own pages.
async fn on_a01_the_web_socket_signs_in_by_cookie_from_the_sites_pages_only(db: Db) {
    use velha_api::ClientMsg;
    let server = Server::start(db, &[]).await;
    let (web, cookie) = crate::common::signed_up_by_cookie(&server).await;
    let own = server.base.clone();
    let mut live = web
        .live_with_headers(&[("cookie", &cookie), ("origin", &own)])
        .await
        .unwrap();
    live.send_text(r#"{"type":"hello"}"#).await.unwrap();
    let welcome = expect(&mut live, "welcome", |_| true).await;
    assert!(
        matches!(welcome, ServerMsg::Welcome { ref name, .. } if name == "Ana"),
        "{welcome:?}"
    );

    for headers in [
        vec![
            ("cookie", cookie.as_str()),
            ("origin", "https://evil.example"),
        ],
        vec![("cookie", &cookie)],
        vec![("origin", &own)],
    ] {
        let mut live = web.live_with_headers(&headers).await.unwrap();
        live.send(&ClientMsg::Hello {
            token: String::new(),
        })
        .await
        .unwrap();
        expect_refusal(&mut live, ErrorCode::Unauthorized, &format!("{headers:?}")).await;
    }
}
on_both!(on_a01_the_web_socket_signs_in_by_cookie_from_the_sites_pages_only);

/// ON-M01 against a hostile client: a level out of range is refused; a connection that
/// switches its watch hundreds of times gets an answer to each and stays usable, and only its
/// last list counts.
async fn on_m01_a_flood_of_watches_leaves_one_watch(db: Db) {
    use velha_api::ClientMsg;
    let server = Server::start(db, &[]).await;
    let ana = server.player("ana", "pt-BR", UNTIL).await;
    let bia = server.player("bia", "pt-BR", UNTIL).await;
    let mut live = bia.live().await.unwrap();
    expect(&mut live, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    live.send(&ClientMsg::WatchLobby {
        scope: Scope::Mundial,
        level: 3,
        group: None,
    })
    .await
    .unwrap();
    expect_refusal(&mut live, ErrorCode::BadRequest, "level 3").await;
    for i in 0..200u32 {
        let level = 1 + (i % 2) as u8;
        live.send(&ClientMsg::WatchLobby {
            scope: Scope::Mundial,
            level,
            group: None,
        })
        .await
        .unwrap();
    }
    for _ in 0..200 {
        expect(&mut live, "a list", |m| {
            matches!(m, ServerMsg::Lobby { .. })
        })
        .await;
    }
    // The last watch was level 2: a level-1 match is not heard of, a level-2 one is.
    let one = ana.create(Scope::Mundial, 1).await.unwrap();
    ana.cancel(&one.id).await.unwrap();
    let two = ana.create(Scope::Mundial, 2).await.unwrap();
    let heard = expect(&mut live, "opened", |m| {
        matches!(m, ServerMsg::LobbyOpened { .. })
    })
    .await;
    assert_eq!(heard, ServerMsg::LobbyOpened { open: two });
}
on_both!(on_m01_a_flood_of_watches_leaves_one_watch);

/// ON-M01: a lobby list many times longer than the server's fragments (1 KiB) arrives whole
/// and in order, its names' accents intact wherever the cuts fall.
async fn on_m01_a_long_lobby_list_arrives_whole(db: Db) {
    use velha_api::ClientMsg;
    let server = Server::start(db, &["--signups-per-address-per-hour", "100"]).await;
    let mut names = Vec::new();
    for i in 0..40 {
        let name = format!("Conceição_Araújo-{i}");
        let mut c = server.client();
        c.sign_up(
            &format!("criadora{i}@example.com"),
            "cubo-gira-9",
            &name,
            "pt-BR",
        )
        .await
        .unwrap();
        let (ok, text) = server
            .admin(&["subscription", "grant", &name, "--until", "2099-12-31"])
            .await;
        assert!(ok, "{text}");
        c.create(Scope::Mundial, 1).await.unwrap();
        names.push(name);
    }
    let watcher = server.player("bia", "pt-BR", UNTIL).await;
    let (mut live, list) = watch(&watcher, Scope::Mundial, 1).await;
    assert!(
        serde_json::to_string(&list).unwrap().len() > 3 * 1024,
        "a list longer than three fragments"
    );
    let ServerMsg::Lobby { matches, .. } = list else {
        unreachable!()
    };
    let creators: Vec<String> = matches.into_iter().map(|m| m.creator).collect();
    assert_eq!(
        creators, names,
        "every match, oldest first, each name whole"
    );
    // The connection goes on after it.
    live.send(&ClientMsg::Ping).await.unwrap();
    expect(&mut live, "the pong", |m| matches!(m, ServerMsg::Pong)).await;
}
on_both!(on_m01_a_long_lobby_list_arrives_whole);

/// What `GET /api/me/playing` answers this player.
async fn playing(c: &velha_load::Client) -> velha_api::Playing {
    let (status, body) = c
        .raw(reqwest::Method::GET, "/api/me/playing", None)
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).unwrap()
}

async fn on_m04_an_app_that_starts_again_finds_the_match_it_was_playing(db: Db) {
    let server = Server::start(db, &[]).await;
    let ana = server.player("ana", "pt-BR", UNTIL).await;
    let bia = server.player("bia", "pt-BR", UNTIL).await;
    let caio = server.player("caio", "pt-BR", None).await;
    for c in [&ana, &bia, &caio] {
        let p = playing(c).await;
        assert!(p.current.is_none() && !p.queued, "{p:?}");
    }
    let open = ana.create(Scope::Mundial, 2).await.unwrap();
    let waiting = playing(&ana).await.current.expect("her open match");
    assert_eq!(
        (waiting.id.as_str(), waiting.state),
        (open.id.as_str(), MatchState::Open)
    );
    bia.join(&open.id).await.unwrap();
    for (c, seat) in [(&ana, Seat::X), (&bia, Seat::O)] {
        let live = playing(c).await.current.expect("the live match");
        assert_eq!(
            (live.id.as_str(), live.state, live.seat, live.level),
            (open.id.as_str(), MatchState::Live, seat, 2)
        );
    }
    // Jogo da Velha 2.0's queue needs no subscription.
    caio.queue_join().await.unwrap();
    let p = playing(&caio).await;
    assert!(p.queued && p.current.is_none(), "{p:?}");
    let (status, _) = server
        .client()
        .raw(reqwest::Method::GET, "/api/me/playing", None)
        .await
        .unwrap();
    assert_eq!(status, 401);
}
on_both!(on_m04_an_app_that_starts_again_finds_the_match_it_was_playing);
