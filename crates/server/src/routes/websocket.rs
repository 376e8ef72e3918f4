//! The live sockets' WebSocket, on tokio-tungstenite's own frames: the upgrade (HTTP/1.1's of
//! RFC 6455, and HTTP/2's extended CONNECT of RFC 8441) and the writing of a long message in
//! fragments. tungstenite keeps, for a connection's life, room for the longest frame it wrote
//! (its write buffer is drained, never shrunk): sent whole, a lobby's list of 200 open matches
//! (21 KiB) made every idle connection that had been sent one cost 37 KiB instead of 9
//! (docs/benchmarks.md). axum's own WebSocket can neither send fragments nor let that go.

use std::future::Future;
use std::ops::Range;

use axum::body::Bytes;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Version, header};
use axum::response::{IntoResponse, Response};
use futures_util::SinkExt;
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

pub use tokio_tungstenite::tungstenite::protocol::CloseFrame;
pub use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
pub use tokio_tungstenite::tungstenite::{Error, Message, Utf8Bytes};

/// A live connection's WebSocket.
pub type WebSocket = WebSocketStream<TokioIo<Upgraded>>;

/// The most a fragment of a long message carries: what a connection keeps room for, after the
/// longest message it was sent. Every message the app is sent in a match or a room is shorter;
/// only lists (a lobby's, a player's matches) come in fragments.
pub const FRAGMENT: usize = 1024;

/// A request to become a WebSocket, checked.
pub struct Upgrade {
    /// Over HTTP/1.1, the client's key, which the answer signs; none over HTTP/2.
    key: Option<HeaderValue>,
    on_upgrade: OnUpgrade,
    config: WebSocketConfig,
}

/// Why a request is not one to become a WebSocket: 400 and the reason, which the error bodies'
/// rewrite turns into an `ApiError` like any.
pub struct NotAnUpgrade(&'static str);

impl IntoResponse for NotAnUpgrade {
    fn into_response(self) -> Response {
        (StatusCode::BAD_REQUEST, self.0).into_response()
    }
}

fn header_is(headers: &HeaderMap, name: header::HeaderName, value: &str) -> bool {
    headers
        .get(name)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(value.as_bytes()))
}

/// Whether a comma-separated header names `token` (`Connection: keep-alive, Upgrade`).
fn header_lists(headers: &HeaderMap, name: header::HeaderName, token: &str) -> bool {
    headers.get_all(name).iter().any(|v| {
        v.as_bytes()
            .split(|&b| b == b',')
            .any(|t| t.trim_ascii().eq_ignore_ascii_case(token.as_bytes()))
    })
}

impl<S: Send + Sync> FromRequestParts<S> for Upgrade {
    type Rejection = NotAnUpgrade;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let key = if parts.version <= Version::HTTP_11 {
            if parts.method != Method::GET {
                return Err(NotAnUpgrade("a WebSocket is opened with GET"));
            }
            if !header_lists(&parts.headers, header::CONNECTION, "upgrade") {
                return Err(NotAnUpgrade("Connection must name upgrade"));
            }
            if !header_is(&parts.headers, header::UPGRADE, "websocket") {
                return Err(NotAnUpgrade("Upgrade must be websocket"));
            }
            Some(
                parts
                    .headers
                    .get(header::SEC_WEBSOCKET_KEY)
                    .ok_or(NotAnUpgrade("Sec-WebSocket-Key is missing"))?
                    .clone(),
            )
        } else {
            if parts.method != Method::CONNECT
                || parts
                    .extensions
                    .get::<hyper::ext::Protocol>()
                    .is_none_or(|p| p.as_str() != "websocket")
            {
                return Err(NotAnUpgrade(
                    "over HTTP/2 a WebSocket is opened with CONNECT and :protocol websocket",
                ));
            }
            None
        };
        if !header_is(&parts.headers, header::SEC_WEBSOCKET_VERSION, "13") {
            return Err(NotAnUpgrade("Sec-WebSocket-Version must be 13"));
        }
        let on_upgrade = parts
            .extensions
            .remove::<OnUpgrade>()
            .ok_or(NotAnUpgrade("this connection cannot become a WebSocket"))?;
        let mut config = WebSocketConfig::default();
        // Each frame goes out as it is written, so a message's fragments never gather in the
        // write buffer (tungstenite's default holds 128 KiB before writing).
        config.write_buffer_size = 0;
        Ok(Upgrade {
            key,
            on_upgrade,
            config,
        })
    }
}

impl Upgrade {
    /// What the read buffer starts with and reads at a time.
    pub fn read_buffer_size(mut self, bytes: usize) -> Self {
        self.config.read_buffer_size = bytes;
        self
    }

    /// The longest frame taken: a longer one ends the connection.
    pub fn max_frame_size(mut self, bytes: usize) -> Self {
        self.config.max_frame_size = Some(bytes);
        self
    }

    /// The longest message taken, whatever its fragments: a longer one ends the connection.
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.config.max_message_size = Some(bytes);
        self
    }

    /// Answers the request and, once the connection is a WebSocket, runs `serve` with it on a
    /// task of its own.
    pub fn on_upgrade<F, Fut>(self, serve: F) -> Response
    where
        F: FnOnce(WebSocket) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (on_upgrade, config) = (self.on_upgrade, self.config);
        tokio::spawn(async move {
            // A client gone before the switch leaves nothing to serve.
            if let Ok(upgraded) = on_upgrade.await {
                let socket = WebSocketStream::from_raw_socket(
                    TokioIo::new(upgraded),
                    Role::Server,
                    Some(config),
                )
                .await;
                serve(socket).await;
            }
        });
        match self.key {
            Some(key) => (
                StatusCode::SWITCHING_PROTOCOLS,
                [
                    (header::CONNECTION, HeaderValue::from_static("upgrade")),
                    (header::UPGRADE, HeaderValue::from_static("websocket")),
                    (
                        header::SEC_WEBSOCKET_ACCEPT,
                        HeaderValue::from_str(&derive_accept_key(key.as_bytes()))
                            .expect("base64 is a header value"),
                    ),
                ],
            )
                .into_response(),
            // HTTP/2's CONNECT is answered with a 200 and no body (RFC 8441, RFC 9113 8.5).
            None => StatusCode::OK.into_response(),
        }
    }
}

/// Writes `msg` and flushes it: a text longer than [`FRAGMENT`] goes out in fragments, each a
/// slice of the message's own bytes rather than a copy.
pub async fn write(socket: &mut WebSocket, msg: Message) -> Result<(), Error> {
    let text = match msg {
        Message::Text(text) if text.len() > FRAGMENT => text,
        msg => return socket.send(msg).await,
    };
    let mut opcode = OpCode::Data(Data::Text);
    let mut cut = pieces(&text).peekable();
    let bytes = Bytes::from(text.clone());
    while let Some(piece) = cut.next() {
        let last = cut.peek().is_none();
        let frame = Frame::message(bytes.slice(piece), opcode, last);
        socket.feed(Message::Frame(frame)).await?;
        opcode = OpCode::Data(Data::Continue);
    }
    socket.flush().await
}

/// Where `text` is cut into pieces of at most [`FRAGMENT`] bytes, each between two characters:
/// a browser checks each fragment's UTF-8 as it comes.
fn pieces(text: &str) -> impl Iterator<Item = Range<usize>> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start == text.len() {
            return None;
        }
        let mut end = (start + FRAGMENT).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let piece = start..end;
        start = end;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_m05_a_long_text_is_cut_between_characters_into_pieces_that_make_it_whole() {
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || velha_load::steady::next(&mut rng);
        // One, two, three and four bytes a character, at every offset against the limit.
        let alphabet = ['a', 'é', 'ç', '€', '𝄞', '"'];
        for round in 0..500 {
            let len = (next() % (4 * FRAGMENT as u64 + 8)) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let cut: Vec<&str> = pieces(&text).map(|piece| &text[piece]).collect();
            assert_eq!(cut.concat(), text, "round {round}");
            for piece in &cut {
                assert!(
                    !piece.is_empty() && piece.len() <= FRAGMENT,
                    "round {round}"
                );
            }
            // Each piece is as long as the limit allows: only the last is short by more than a
            // character.
            for piece in cut.iter().rev().skip(1) {
                assert!(piece.len() > FRAGMENT - 4, "round {round}: {}", piece.len());
            }
        }
        assert_eq!(pieces("").count(), 0);
    }
}
