//! `velha-server --http2`: the live sockets as streams of a player's HTTP/2 connection (RFC
//! 8441's extended CONNECT), as a browser opens them from a page served over HTTP/2.

use std::time::Duration;

use reqwest::Method;
use velha_api::{Avatar, ClientMsg, ErrorCode, RoomAct, RoomBoard, RoomServerMsg, Seat, ServerMsg};
use velha_load::{Client, RoomLive};

use crate::common::{Db, Server, expect};

async fn room_at(live: &mut RoomLive, ply: u32) -> velha_api::RoomView {
    match live
        .recv_until(
            Duration::from_secs(5),
            |m| matches!(m, RoomServerMsg::Room { room } if room.ply == ply),
        )
        .await
        .unwrap_or_else(|e| panic!("waiting for ply {ply}: {e}"))
    {
        RoomServerMsg::Room { room } => room,
        _ => unreachable!(),
    }
}

/// A classic room game between `x` and `o`, on a live socket each, that X wins on the first
/// column; both sockets see every move.
async fn game(x: &Client, o: &Client) {
    let made = x
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let id = made.room.id.clone();
    let seat = o
        .join_room(&id, "Bia", Some(Avatar::Rabisco))
        .await
        .unwrap();
    let mut lives = [
        x.room_live(&id, &made.credential).await.unwrap(),
        o.room_live(&id, &seat.credential).await.unwrap(),
    ];
    let mut last = Vec::new();
    for (ply, cell) in ["a1", "b1", "a2", "b2", "a3"].into_iter().enumerate() {
        lives[ply % 2]
            .send(&velha_api::RoomClientMsg::Act {
                act: RoomAct::Play {
                    cell: cell.to_owned(),
                },
            })
            .await
            .unwrap();
        last.clear();
        for live in &mut lives {
            last.push(room_at(live, ply as u32 + 1).await);
        }
    }
    for room in last {
        assert_eq!(room.ending.expect("the game ended").winner, Some(Seat::X));
    }
    for live in lives {
        live.close().await;
    }
}

/// Two players play two games, each opening a socket a game: over HTTP/2 each player's
/// sockets are streams of one connection, so the two games make two TLS handshakes in all
/// (over HTTP/1.1, one a socket: four).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_players_sockets_over_http2_share_one_connection_and_one_handshake() {
    let server = Server::start(Db::Sqlite, &["--http2"]).await;
    let base = server.client().over_http2();
    let (x, o) = (base.another(), base.another());
    game(&x, &o).await;
    game(&x, &o).await;
    let (full, resumed) = base.handshakes();
    assert_eq!(full + resumed, 2);

    let base = server.client();
    let (x, o) = (base.another(), base.another());
    game(&x, &o).await;
    game(&x, &o).await;
    let (full, resumed) = base.handshakes();
    assert_eq!(full + resumed, 4);
}

/// Without `--http2` the server offers HTTP/1.1 alone, and a client that would open its
/// sockets over HTTP/2 is told so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_flag_the_server_speaks_http1_only() {
    let server = Server::start(Db::Sqlite, &[]).await;
    let c = server.client();
    let made = c
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let refused = c
        .over_http2()
        .room_live(&made.room.id, "")
        .await
        .err()
        .expect("no HTTP/2");
    assert!(refused.contains("does not speak HTTP/2"), "{refused}");
    c.room_live(&made.room.id, "").await.unwrap().close().await;
}

/// ON-A01 over HTTP/2, where the host is the request's `:authority` rather than a `Host`
/// header: the web app's socket signs in with the session cookie from the site's own pages
/// only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a01_over_http2_the_web_socket_signs_in_by_cookie_from_the_sites_pages_only() {
    let server = Server::start(Db::Sqlite, &["--http2"]).await;
    let web = server.client();
    let body = r#"{"email":"ana@example.com","password":"cubo-gira-9","name":"Ana","region":"pt-BR","cookie":true}"#;
    let (status, headers, _) = web
        .raw_with_headers(Method::POST, "/api/accounts", &[], Some(body))
        .await
        .unwrap();
    assert_eq!(status, 201);
    let cookie = headers["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let own = server.base.clone();
    let web = web.over_http2();
    let hello = ClientMsg::Hello {
        token: String::new(),
    };
    let mut live = web
        .live_with_headers(&[("cookie", &cookie), ("origin", &own)])
        .await
        .unwrap();
    live.send(&hello).await.unwrap();
    let welcome = expect(&mut live, "welcome", |_| true).await;
    assert!(
        matches!(welcome, ServerMsg::Welcome { ref name, .. } if name == "Ana"),
        "{welcome:?}"
    );
    for origin in ["https://evil.example", "http://127.0.0.1"] {
        let mut live = web
            .live_with_headers(&[("cookie", &cookie), ("origin", origin)])
            .await
            .unwrap();
        live.send(&hello).await.unwrap();
        let refused = expect(&mut live, "a refusal", |_| true).await;
        assert!(
            matches!(
                refused,
                ServerMsg::Error {
                    code: ErrorCode::Unauthorized,
                    ..
                }
            ),
            "{origin}: {refused:?}"
        );
    }
    let (full, resumed) = web.handshakes();
    assert_eq!(full + resumed, 1, "one connection for the three sockets");
}
