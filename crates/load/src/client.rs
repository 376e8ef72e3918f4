//! A client of the server over HTTPS and WebSocket: what the integration tests and the load
//! bench use to act as players, exactly as the app talks to the server.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::{Method, RequestBuilder};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::Uri;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

pub mod http2;
pub mod steady;
pub mod tickets;

use http2::{Carried, Duplex, Http2};
use rustls::pki_types::ServerName;

use velha_api::{
    Account, ApiError, Avatar, ClientMsg, CreateMatch, CreateRoom, ErrorCode, GoogleSignIn,
    JoinRoom, LIVE_PATH, LogIn, MatchView, OpenMatch, RoomAct, RoomAction, RoomBoard,
    RoomClientMsg, RoomSeat, RoomServerMsg, RoomStarter, RoomView, Scope, ServerMsg, Session,
    SignUp,
};

/// One player's view of the server.
#[derive(Clone)]
pub struct Client {
    base: String,
    http: reqwest::Client,
    tls: Arc<rustls::ClientConfig>,
    handshakes: Arc<tickets::Handshakes>,
    /// The player's HTTP/2 connection, when its live sockets are streams of one.
    http2: Option<Arc<Http2>>,
    /// The session token, once signed in.
    pub token: Option<String>,
}

/// What a request answered: the body, or the server's error (or a transport failure, as
/// `internal` with its message).
pub type Answer<T> = Result<T, ApiError>;

fn transport(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Internal, format!("transport: {e}"))
}

/// A request that failed on its way, with every cause: reqwest's own message alone ("error
/// sending request") does not say whether it was the address, the certificate or the network.
fn unsent(e: reqwest::Error) -> ApiError {
    transport(with_causes(&e))
}

/// An error and every cause under it (an HTTP/2 stream's write error says why only in its
/// causes).
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut why = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        why = format!("{why}: {c}");
        cause = c.source();
    }
    why
}

impl Client {
    /// A client of `base` (`https://host:port`, or `http://` for a server behind a balancer)
    /// trusting the certificate in `root_pem`.
    pub fn new(base: &str, root_pem: &[u8]) -> Result<Client, String> {
        let mut roots = rustls::RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(root_pem) {
            let cert = cert.map_err(|e| format!("bad certificate: {e}"))?;
            roots
                .add(cert)
                .map_err(|e| format!("bad certificate: {e}"))?;
        }
        // Browsers on hardware with AES instructions offer AES-128-GCM first, and the server
        // takes the client's choice; rustls's own order (AES-256 and SHA-384 first) would
        // make every handshake measured here costlier than a player's.
        let mut provider = rustls::crypto::ring::default_provider();
        provider
            .cipher_suites
            .sort_by_key(|s| s.suite() != rustls::CipherSuite::TLS13_AES_128_GCM_SHA256);
        let provider = Arc::new(provider);
        let mut tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        tls.resumption = rustls::client::Resumption::store(tickets::Tickets::new());
        let http = reqwest::Client::builder()
            .use_preconfigured_tls(tls.clone())
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Client {
            base: base.trim_end_matches('/').to_owned(),
            http,
            tls: Arc::new(tls),
            handshakes: Arc::default(),
            http2: None,
            token: None,
        })
    }

    /// The same player (signed in or not) talking to another address of the same server:
    /// another of its processes, or the load balancer in front of them.
    pub fn at(&self, base: &str) -> Client {
        Client {
            base: base.trim_end_matches('/').to_owned(),
            http2: self.own_http2(),
            ..self.clone()
        }
    }

    /// A connection of its own for another player, or this player at another address.
    fn own_http2(&self) -> Option<Arc<Http2>> {
        self.http2
            .as_ref()
            .map(|_| Arc::new(Http2::new(&self.tls, self.handshakes.clone())))
    }

    /// The same player, whose live sockets are streams of an HTTP/2 connection of its own
    /// (RFC 8441), opened at its first socket and kept for the next, as a browser does once
    /// the server offers it; over HTTPS only.
    pub fn over_http2(&self) -> Client {
        Client {
            http2: Some(Arc::new(Http2::new(&self.tls, self.handshakes.clone()))),
            ..self.clone()
        }
    }

    /// The live connections' TLS handshakes of this client and its clones: (full, resumed).
    pub fn handshakes(&self) -> (u64, u64) {
        self.handshakes.so_far()
    }

    /// Another player on the same connection pool, not signed in.
    pub fn another(&self) -> Client {
        Client {
            token: None,
            http2: self.own_http2(),
            ..self.clone()
        }
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let r = self.http.request(method, format!("{}{path}", self.base));
        match &self.token {
            Some(t) => r.bearer_auth(t),
            None => r,
        }
    }

    async fn answer<T: DeserializeOwned>(r: RequestBuilder) -> Answer<T> {
        let response = r.send().await.map_err(unsent)?;
        let ok = response.status().is_success();
        let bytes = response.bytes().await.map_err(unsent)?;
        if ok {
            serde_json::from_slice(&bytes).map_err(transport)
        } else {
            Err(serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                transport(format!(
                    "not an ApiError: {}",
                    String::from_utf8_lossy(&bytes)
                ))
            }))
        }
    }

    async fn empty(r: RequestBuilder) -> Answer<()> {
        let response = r.send().await.map_err(unsent)?;
        if response.status().is_success() {
            Ok(())
        } else {
            let bytes = response.bytes().await.map_err(unsent)?;
            Err(serde_json::from_slice(&bytes).map_err(transport)?)
        }
    }

    /// Any request: the status and the body as JSON (`null` when empty or not JSON).
    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        body: Option<&str>,
    ) -> Result<(u16, serde_json::Value), String> {
        let body = body.map(|b| (b.as_bytes().to_vec(), "application/json"));
        let (status, _, json) = self.raw_bytes(method, path, body).await?;
        Ok((status, json))
    }

    /// Any request with any body bytes and content type: the status, the headers, and the
    /// body as JSON (`null` when empty or not JSON).
    pub async fn raw_bytes(
        &self,
        method: Method,
        path: &str,
        body: Option<(Vec<u8>, &str)>,
    ) -> Result<(u16, reqwest::header::HeaderMap, serde_json::Value), String> {
        Self::raw_answer(self.request(method, path), body).await
    }

    async fn raw_answer(
        mut r: RequestBuilder,
        body: Option<(Vec<u8>, &str)>,
    ) -> Result<(u16, reqwest::header::HeaderMap, serde_json::Value), String> {
        if let Some((bytes, content_type)) = body {
            r = r
                .header(reqwest::header::CONTENT_TYPE, content_type)
                .body(bytes);
        }
        let response = r.send().await.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(|e| e.to_string())?;
        Ok((
            status,
            headers,
            serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
        ))
    }

    /// Any request with these extra headers (a browser's `Cookie`, `Origin`,
    /// `Sec-Fetch-Site`…) and a JSON body: the status, the headers and the body as JSON.
    pub async fn raw_with_headers(
        &self,
        method: Method,
        path: &str,
        headers: &[(&'static str, &str)],
        body: Option<&str>,
    ) -> Result<(u16, reqwest::header::HeaderMap, serde_json::Value), String> {
        let mut r = self.request(method, path);
        for (name, value) in headers {
            r = r.header(*name, *value);
        }
        let body = body.map(|b| (b.as_bytes().to_vec(), "application/json"));
        Self::raw_answer(r, body).await
    }

    /// A GET that accepts `encodings` (as in `Accept-Encoding`): the status, the headers and
    /// the body's bytes exactly as sent.
    pub async fn get_encoded(
        &self,
        path: &str,
        encodings: &str,
    ) -> Result<(u16, reqwest::header::HeaderMap, Vec<u8>), String> {
        let response = self
            .request(Method::GET, path)
            .header(reqwest::header::ACCEPT_ENCODING, encodings)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(|e| e.to_string())?;
        Ok((status, headers, bytes.to_vec()))
    }

    fn keep(&mut self, s: Answer<Session>) -> Answer<Session> {
        if let Ok(s) = &s {
            self.token = s.token.clone();
        }
        s
    }

    async fn post<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Answer<T> {
        Self::answer(self.request(Method::POST, path).json(body)).await
    }

    /// Makes an account and keeps its session.
    pub async fn sign_up(
        &mut self,
        email: &str,
        password: &str,
        name: &str,
        region: &str,
    ) -> Answer<Session> {
        let body = SignUp {
            email: email.into(),
            password: password.into(),
            name: name.into(),
            region: region.into(),
            country: None,
            cookie: false,
        };
        let s = self.post("/api/accounts", &body).await;
        self.keep(s)
    }

    /// Signs in and keeps the session.
    pub async fn log_in(&mut self, email: &str, password: &str) -> Answer<Session> {
        let body = LogIn {
            email: email.into(),
            password: password.into(),
            cookie: false,
        };
        let s = self.post("/api/sessions", &body).await;
        self.keep(s)
    }

    /// Signs in with a Google ID token and keeps the session.
    pub async fn google(
        &mut self,
        id_token: &str,
        name: Option<&str>,
        region: &str,
    ) -> Answer<Session> {
        let body = GoogleSignIn {
            id_token: id_token.into(),
            name: name.map(Into::into),
            region: region.into(),
            country: None,
            cookie: false,
        };
        let s = self.post("/api/sessions/google", &body).await;
        self.keep(s)
    }

    /// Signs out.
    pub async fn log_out(&self) -> Answer<()> {
        Self::empty(self.request(Method::DELETE, "/api/sessions/current")).await
    }

    /// The player's account.
    pub async fn me(&self) -> Answer<Account> {
        Self::answer(self.request(Method::GET, "/api/me")).await
    }

    /// Joins 2.0's competitive queue (ON-V01).
    pub async fn queue_join(&self) -> Answer<velha_api::QueueStatus> {
        Self::answer(self.request(Method::POST, "/api/competitive/queue")).await
    }

    /// The player's place in the queue and their rating.
    pub async fn queue_status(&self) -> Answer<velha_api::QueueStatus> {
        Self::answer(self.request(Method::GET, "/api/competitive/queue")).await
    }

    /// Leaves the queue.
    pub async fn queue_leave(&self) -> Answer<()> {
        Self::empty(self.request(Method::DELETE, "/api/competitive/queue")).await
    }

    /// The first page of the rating leaderboard, with the player's own line.
    pub async fn leaderboard(&self) -> Answer<velha_api::Leaderboard> {
        Self::answer(self.request(Method::GET, "/api/competitive/leaderboard")).await
    }

    /// Open matches of a scope and level.
    pub async fn lobby(&self, scope: Scope, level: u8) -> Answer<Vec<OpenMatch>> {
        let path = format!("/api/lobby?scope={}&level={level}", scope.as_str());
        Self::answer(self.request(Method::GET, &path)).await
    }

    /// Creates a match and waits as X.
    pub async fn create(&self, scope: Scope, level: u8) -> Answer<OpenMatch> {
        let body = CreateMatch {
            scope,
            level,
            group: None,
        };
        self.post("/api/lobby", &body).await
    }

    /// Creates a match of a mini-ranking group and waits as X.
    pub async fn create_in_group(&self, group: &str, level: u8) -> Answer<OpenMatch> {
        let body = CreateMatch {
            scope: Scope::Mundial,
            level,
            group: Some(group.to_owned()),
        };
        self.post("/api/lobby", &body).await
    }

    /// Makes an invitation room and sits as X; X begins its first game.
    pub async fn create_room(
        &self,
        board: RoomBoard,
        name: &str,
        avatar: Option<Avatar>,
    ) -> Answer<RoomSeat> {
        self.create_room_begun_by(board, name, avatar, RoomStarter::X)
            .await
    }

    /// Makes an invitation room, sits as X, and says who begins its first game.
    pub async fn create_room_begun_by(
        &self,
        board: RoomBoard,
        name: &str,
        avatar: Option<Avatar>,
        starter: RoomStarter,
    ) -> Answer<RoomSeat> {
        let body = CreateRoom {
            board,
            name: name.to_owned(),
            avatar,
            starter,
        };
        self.post("/api/rooms", &body).await
    }

    /// Takes a room's free seat (O).
    pub async fn join_room(
        &self,
        room: &str,
        name: &str,
        avatar: Option<Avatar>,
    ) -> Answer<RoomSeat> {
        let body = JoinRoom {
            name: name.to_owned(),
            avatar,
        };
        self.post(&format!("/api/rooms/{room}/join"), &body).await
    }

    /// A room as anyone with its link sees it.
    pub async fn room(&self, room: &str) -> Answer<RoomView> {
        Self::answer(self.request(Method::GET, &format!("/api/rooms/{room}"))).await
    }

    /// A seated player's action in a room.
    pub async fn room_act(&self, room: &str, credential: &str, act: RoomAct) -> Answer<RoomView> {
        let body = RoomAction {
            credential: credential.to_owned(),
            act,
        };
        self.post(&format!("/api/rooms/{room}/act"), &body).await
    }

    /// Starts a match against the server's Velha in a group, playing X.
    pub async fn play_velha(&self, group: &str, level: u8) -> Answer<MatchView> {
        let body = velha_api::PlayVelha { level };
        self.post(&format!("/api/groups/{group}/velha"), &body)
            .await
    }

    /// Withdraws one's open match.
    pub async fn cancel(&self, id: &str) -> Answer<()> {
        Self::empty(self.request(Method::DELETE, &format!("/api/lobby/{id}"))).await
    }

    /// Joins an open match as O.
    pub async fn join(&self, id: &str) -> Answer<MatchView> {
        Self::answer(self.request(Method::POST, &format!("/api/lobby/{id}/join"))).await
    }

    /// A finished game move by move (ON-P01): `id` is a match's id or `<room>/<game>`.
    pub async fn replay(&self, id: &str) -> Answer<velha_api::Replay> {
        Self::answer(self.request(Method::GET, &format!("/api/replays/{id}"))).await
    }

    /// One of the player's matches.
    pub async fn get_match(&self, id: &str) -> Answer<MatchView> {
        Self::answer(self.request(Method::GET, &format!("/api/matches/{id}"))).await
    }

    /// Opens the live WebSocket and says hello; the welcome is the first message to read.
    pub async fn live(&self) -> Result<Live, String> {
        self.hello(self.live_without_hello().await?).await
    }

    /// Says hello on `live` with this client's session.
    async fn hello(&self, mut live: Live) -> Result<Live, String> {
        let token = self.token.clone().unwrap_or_default();
        live.send(&ClientMsg::Hello { token }).await?;
        Ok(live)
    }

    /// Opens the live WebSocket without saying `hello`.
    pub async fn live_without_hello(&self) -> Result<Live, String> {
        self.live_with_headers(&[]).await
    }

    /// Opens the live WebSocket with these extra headers on the upgrade request (a
    /// browser's `Cookie` and `Origin`), without saying `hello`.
    pub async fn live_with_headers(
        &self,
        headers: &[(&'static str, &str)],
    ) -> Result<Live, String> {
        self.socket(LIVE_PATH, headers).await
    }

    /// Opens the live WebSocket over a socket whose buffers hold `bytes` each, and says
    /// hello: a client that can stop reading, and stall the server's writes soon after (tests
    /// of what the server does then).
    pub async fn live_with_small_buffers(&self, bytes: u32) -> Result<Live, String> {
        self.hello(self.socket_buffered(LIVE_PATH, &[], Some(bytes)).await?)
            .await
    }

    /// Opens a room's live connection and says hello with a seat's credential (empty to
    /// watch); the room is the first message to read.
    pub async fn room_live(&self, room: &str, credential: &str) -> Result<RoomLive, String> {
        let mut live = self.room_live_without_hello(room).await?;
        live.send(&RoomClientMsg::Hello {
            credential: credential.to_owned(),
        })
        .await?;
        Ok(live)
    }

    /// Opens a room's live connection and says nothing (tests of what a client may send).
    pub async fn room_live_without_hello(&self, room: &str) -> Result<RoomLive, String> {
        self.socket(&format!("/api/rooms/{room}/live"), &[]).await
    }

    async fn socket<Out, In>(
        &self,
        path: &str,
        headers: &[(&'static str, &str)],
    ) -> Result<Socket<Out, In>, String> {
        self.socket_buffered(path, headers, None).await
    }

    /// `socket`, its TCP buffers of `buffers` bytes each when given (the system's otherwise).
    async fn socket_buffered<Out, In>(
        &self,
        path: &str,
        headers: &[(&'static str, &str)],
        buffers: Option<u32>,
    ) -> Result<Socket<Out, In>, String> {
        // tungstenite zeroes its whole read buffer before every read: at its 128 KiB default
        // that was a quarter of this client's CPU, taken from the server it measures. The
        // server's messages are small; a larger one is still read whole, in more reads.
        let config = WebSocketConfig::default().read_buffer_size(4 * 1024);
        if let (Some(http2), None) = (&self.http2, buffers) {
            let uri: Uri = format!("{}{path}", self.base)
                .parse()
                .map_err(|e| format!("bad address: {e}"))?;
            return Ok(Socket::new(http2.socket(&uri, headers, config).await?));
        }
        let url = format!(
            "{}{path}",
            self.base
                .replacen("https://", "wss://", 1)
                .replacen("http://", "ws://", 1)
        );
        let mut request = url.into_client_request().map_err(|e| e.to_string())?;
        for (name, value) in headers {
            let value = value
                .parse()
                .map_err(|_| format!("bad header value {value:?}"))?;
            request.headers_mut().insert(*name, value);
        }
        let uri = request.uri().clone();
        // TCP_NODELAY, as browsers set it: a small frame goes out at once, not after an ACK.
        let tcp = connect_tcp(&uri, buffers).await?;
        let stream: Box<dyn Duplex> = if uri.scheme_str() == Some("wss") {
            let host = http2::bare_host(&uri)?;
            let name = ServerName::try_from(host.to_owned()).map_err(|e| e.to_string())?;
            let tls = tokio_rustls::TlsConnector::from(self.tls.clone())
                .connect(name, tcp)
                .await
                .map_err(|e| format!("WebSocket: TLS: {e}"))?;
            self.handshakes.count(tls.get_ref().1.handshake_kind());
            Box::new(tls)
        } else {
            Box::new(tcp)
        };
        let (ws, _) = tokio_tungstenite::client_async_with_config(request, stream, Some(config))
            .await
            .map_err(|e| format!("WebSocket: {e}"))?;
        Ok(Socket::new(ws))
    }
}

/// A TCP connection to `uri`'s host, its send and receive buffers of `buffers` bytes each
/// when given.
async fn connect_tcp(uri: &Uri, buffers: Option<u32>) -> Result<TcpStream, String> {
    let host = http2::bare_host(uri)?;
    let port = uri
        .port_u16()
        .unwrap_or(if uri.scheme_str() == Some("wss") {
            443
        } else {
            80
        });
    let address = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| format!("{host}: {e}"))?
        .next()
        .ok_or_else(|| format!("{host}: no address"))?;
    let socket = if address.is_ipv4() {
        tokio::net::TcpSocket::new_v4()
    } else {
        tokio::net::TcpSocket::new_v6()
    }
    .map_err(|e| e.to_string())?;
    if let Some(bytes) = buffers {
        socket
            .set_send_buffer_size(bytes)
            .map_err(|e| e.to_string())?;
        socket
            .set_recv_buffer_size(bytes)
            .map_err(|e| e.to_string())?;
    }
    socket.set_nodelay(true).map_err(|e| e.to_string())?;
    socket
        .connect(address)
        .await
        .map_err(|e| format!("{address}: {e}"))
}

/// An open WebSocket that sends `Out` and receives `In`, one JSON message a text frame.
pub struct Socket<Out, In> {
    ws: Carried,
    /// The code of the server's close frame, once one arrived.
    closed_with: Option<u16>,
    kinds: std::marker::PhantomData<fn(Out) -> In>,
}

/// The live connection of matches.
pub type Live = Socket<ClientMsg, ServerMsg>;
/// A room's live connection.
pub type RoomLive = Socket<RoomClientMsg, RoomServerMsg>;

impl<Out, In> Socket<Out, In> {
    fn new(ws: Carried) -> Socket<Out, In> {
        Socket {
            ws,
            closed_with: None,
            kinds: std::marker::PhantomData,
        }
    }
}

impl<Out: Serialize, In: DeserializeOwned> Socket<Out, In> {
    /// Sends a message.
    pub async fn send(&mut self, msg: &Out) -> Result<(), String> {
        let text = serde_json::to_string(msg).map_err(|e| e.to_string())?;
        self.send_text(&text).await
    }

    /// Sends `msg` `count` times, flushed once: a flood that costs the client a write per
    /// batch rather than per frame, so it is the server that does the work being measured.
    pub async fn send_repeated(&mut self, msg: &Out, count: usize) -> Result<(), String> {
        let text = Utf8Bytes::from(serde_json::to_string(msg).map_err(|e| e.to_string())?);
        for _ in 0..count {
            self.ws
                .feed(Message::Text(text.clone()))
                .await
                .map_err(|e| format!("send: {}", with_causes(&e)))?;
        }
        self.ws
            .flush()
            .await
            .map_err(|e| format!("send: {}", with_causes(&e)))
    }

    /// Sends any text frame.
    pub async fn send_text(&mut self, text: &str) -> Result<(), String> {
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|e| format!("send: {}", with_causes(&e)))
    }

    /// The next server message within `within`.
    pub async fn recv(&mut self, within: Duration) -> Result<In, String> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .map_err(|_| format!("no message within {within:?}"))?;
            match frame {
                Some(Ok(Message::Text(t))) => {
                    return serde_json::from_str(&t).map_err(|e| format!("bad message {t}: {e}"));
                }
                Some(Ok(Message::Close(frame))) => {
                    self.closed_with = frame.map(|f| u16::from(f.code));
                    return Err("closed".to_owned());
                }
                None => return Err("closed".to_owned()),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(format!("receive: {}", with_causes(&e))),
            }
        }
    }

    /// Reads until a message `wanted` accepts, within `within`; the others are skipped.
    pub async fn recv_until(
        &mut self,
        within: Duration,
        wanted: impl Fn(&In) -> bool,
    ) -> Result<In, String> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let msg = self.recv(left).await?;
            if wanted(&msg) {
                return Ok(msg);
            }
        }
    }

    /// Reads until the server closes the connection, within `within`: the close frame's code
    /// and reason, or None when it closed without one.
    pub async fn closed(&mut self, within: Duration) -> Result<Option<(u16, String)>, String> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.ws.next())
                .await
                .map_err(|_| format!("still open after {within:?}"))?;
            match frame {
                Some(Ok(Message::Close(frame))) => {
                    return Ok(frame.map(|f| (u16::from(f.code), f.reason.to_string())));
                }
                Some(Ok(_)) => continue,
                None | Some(Err(_)) => return Ok(None),
            }
        }
    }

    /// The code of the close frame the server sent, once `recv` met it.
    pub fn close_code(&self) -> Option<u16> {
        self.closed_with
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}
