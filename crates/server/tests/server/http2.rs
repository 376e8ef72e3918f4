//! `velha-server --http2`: the live sockets as streams of a player's HTTP/2 connection (RFC
//! 8441's extended CONNECT), as a browser opens them from a page served over HTTP/2.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use velha_api::{Avatar, ClientMsg, ErrorCode, RoomAct, RoomBoard, RoomServerMsg, Seat, ServerMsg};
use velha_load::{Client, RoomLive};

use crate::common::{Db, Server, expect, expect_refusal, signed_up_by_cookie, tls_offering};

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

/// A classic room `x` made and `o` joined: its id, X's credential, and both players' live
/// sockets.
async fn seated(x: &Client, o: &Client) -> (String, String, [RoomLive; 2]) {
    let made = x
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let id = made.room.id.clone();
    let seat = o
        .join_room(&id, "Bia", Some(Avatar::Rabisco))
        .await
        .unwrap();
    let lives = [
        x.room_live(&id, &made.credential).await.unwrap(),
        o.room_live(&id, &seat.credential).await.unwrap(),
    ];
    (id, made.credential, lives)
}

/// A classic room game between `x` and `o`, on a live socket each, that X wins on the first
/// column; both sockets see every move.
async fn game(x: &Client, o: &Client) {
    let (_, _, mut lives) = seated(x, o).await;
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

/// Over TLS a client may speak HTTP/2 only once ALPN chose it (RFC 9113 §3.3): without
/// `--http2` the server never chooses it, so a client that sends HTTP/2's preface anyway is let
/// go with no HTTP/2 answer (hyper alone would serve it); with it, a client that offered `h2`
/// gets the server's settings, and one that did not is let go the same way.
#[tokio::test]
async fn http2_is_spoken_only_where_alpn_chose_it() {
    let plain = Server::start(Db::Sqlite, &[]).await;
    let http2 = Server::start(Db::Sqlite, &["--http2"]).await;
    let both: &[&[u8]] = &[b"h2", b"http/1.1"];
    let http1: &[&[u8]] = &[b"http/1.1"];
    for (server, offered, settings) in [
        (&plain, both, false),
        (&plain, &[][..], false),
        (&http2, &[][..], false),
        (&http2, http1, false),
        (&http2, both, true),
    ] {
        let mut tls = tls_offering(server, offered).await;
        // The preface, then an empty SETTINGS frame.
        tls.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
            .await
            .unwrap();
        let mut got = [0u8; 9];
        let read = tokio::time::timeout(Duration::from_secs(5), tls.read(&mut got))
            .await
            .expect("an answer, or the connection's end");
        // A frame's type is its fourth byte: SETTINGS is 4.
        let answered = matches!(read, Ok(n) if n >= 4 && got[3] == 4);
        assert_eq!(
            answered, settings,
            "ALPN offered {offered:?}: {read:?} {got:?}"
        );
    }
    // What was refused is the preface: HTTP/1.1 on the same terms is served.
    let mut tls = tls_offering(&plain, both).await;
    tls.write_all(b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut got = [0u8; 15];
    tls.read_exact(&mut got).await.unwrap();
    assert_eq!(&got, b"HTTP/1.1 200 OK");
}

/// ON-A01 over HTTP/2, where the host is the request's `:authority` rather than a `Host`
/// header: the web app's socket signs in with the session cookie from the site's own pages
/// only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a01_over_http2_the_web_socket_signs_in_by_cookie_from_the_sites_pages_only() {
    let server = Server::start(Db::Sqlite, &["--http2"]).await;
    let (web, cookie) = signed_up_by_cookie(&server).await;
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
        // The server may read it, answer, close and end the stream (RST_STREAM NO_ERROR, which
        // fails a write still being flushed) before this send returns: its answer came first
        // either way.
        let _ = live.send(&hello).await;
        expect_refusal(&mut live, ErrorCode::Unauthorized, origin).await;
    }
    let (full, resumed) = web.handshakes();
    assert_eq!(full + resumed, 1, "one connection for the three sockets");
}

/// ON-A01 against a client that names another host: over HTTP/2 the `:authority` is the host,
/// so a `Host` header beside it naming the site its `Origin` names does not make that origin
/// this site's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a01_over_http2_a_host_header_beside_the_authority_does_not_make_an_origin_ours() {
    let server = Server::start(Db::Sqlite, &["--http2"]).await;
    let (web, cookie) = signed_up_by_cookie(&server).await;
    let mut live = web
        .over_http2()
        .live_with_headers(&[
            ("cookie", &cookie),
            ("origin", "https://evil.example"),
            ("host", "evil.example"),
        ])
        .await
        .unwrap();
    // As above: the refusal may end the stream before this send returns.
    let _ = live
        .send(&ClientMsg::Hello {
            token: String::new(),
        })
        .await;
    expect_refusal(
        &mut live,
        ErrorCode::Unauthorized,
        "a Host beside the authority",
    )
    .await;
}

/// ON-M04's rolling deploy over HTTP/2: a stopping process tells the live sockets that are
/// streams of its players' connections to connect again (1012), as it tells those that are
/// connections of their own, and exits; the move it answered is kept, and the player's next
/// socket, on a new connection, finds the room where it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_m04_over_http2_a_stopping_server_tells_every_stream_socket_to_connect_again() {
    let mut server = Server::start(Db::Sqlite, &["--http2"]).await;
    let (web, cookie) = signed_up_by_cookie(&server).await;
    let own = server.base.clone();
    let mut player = web
        .over_http2()
        .live_with_headers(&[("cookie", &cookie), ("origin", &own)])
        .await
        .unwrap();
    player
        .send(&ClientMsg::Hello {
            token: String::new(),
        })
        .await
        .unwrap();
    expect(&mut player, "welcome", |m| {
        matches!(m, ServerMsg::Welcome { .. })
    })
    .await;
    let base = server.client().over_http2();
    let (x, o) = (base.another(), base.another());
    let (id, credential, mut rooms) = seated(&x, &o).await;
    rooms[0]
        .send(&velha_api::RoomClientMsg::Act {
            act: RoomAct::Play { cell: "b2".into() },
        })
        .await
        .unwrap();
    for live in &mut rooms {
        room_at(live, 1).await;
    }

    let status = server.terminate().await;
    assert!(status.success(), "{status:?}");
    let told = [
        player.closed(Duration::from_secs(5)).await,
        rooms[0].closed(Duration::from_secs(5)).await,
        rooms[1].closed(Duration::from_secs(5)).await,
    ];
    for closed in told {
        let (code, reason) = closed.unwrap().expect("a close frame");
        assert_eq!(code, 1012, "{reason}");
        assert!(reason.contains("restarting"), "{reason}");
    }

    // X comes back as a browser does: the same client, on a connection of its own again.
    server.restart().await;
    let mut back = x.room_live(&id, &credential).await.unwrap();
    let room = room_at(&mut back, 1).await;
    assert_eq!(room.to_move, Some(Seat::O));
}
