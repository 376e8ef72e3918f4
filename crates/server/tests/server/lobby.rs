//! ON-M01, ON-M02: the lobby.

use velha_api::{ErrorCode, MatchState, Scope, Seat, ServerMsg};

use crate::common::{Db, Server, expect};

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
