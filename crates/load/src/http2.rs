//! The live sockets as streams of one HTTP/2 connection (RFC 8441's extended CONNECT), as a
//! browser opens them once the server offers it: no TCP connection, and no TLS handshake, of
//! their own. One [`Http2`] is one player's connection, opened at its first socket and again
//! whenever the server closed it.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::Empty;
use hyper::body::Bytes;
use hyper::client::conn::http2::SendRequest;
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::Mutex;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

use crate::tickets::Handshakes;

/// Whatever carries a socket's frames: its own connection, or a stream of an HTTP/2 one.
pub trait Duplex: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Duplex for T {}

/// A live socket's frames, whatever carries them.
pub type Carried = WebSocketStream<Box<dyn Duplex>>;

/// The host of `uri` as a name or an address: an IPv6 address without its brackets.
pub(crate) fn bare_host(uri: &Uri) -> Result<&str, String> {
    let host = uri.host().ok_or("no host in the address")?;
    Ok(host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host))
}

/// How long the connection, its TLS handshake and the server's first settings may take.
const OPENING: Duration = Duration::from_secs(10);

/// One player's HTTP/2 connection to the server, for its live sockets.
pub struct Http2 {
    tls: Arc<rustls::ClientConfig>,
    handshakes: Arc<Handshakes>,
    held: Mutex<Option<SendRequest<Empty<Bytes>>>>,
}

impl Http2 {
    /// A connection made with `tls`, offering HTTP/2 first as browsers do (a server that
    /// takes HTTP/1.1 is an error here, not a silent fallback), counted in `handshakes`.
    pub fn new(tls: &rustls::ClientConfig, handshakes: Arc<Handshakes>) -> Http2 {
        let mut tls = tls.clone();
        tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Http2 {
            tls: Arc::new(tls),
            handshakes,
            held: Mutex::new(None),
        }
    }

    /// The open connection to `uri`'s server, opened now if there is none.
    async fn sender(&self, uri: &Uri) -> Result<SendRequest<Empty<Bytes>>, String> {
        let mut held = self.held.lock().await;
        if let Some(send) = held.as_ref().filter(|s| !s.is_closed()) {
            return Ok(send.clone());
        }
        let send = tokio::time::timeout(OPENING, self.open(uri))
            .await
            .map_err(|_| format!("no HTTP/2 connection within {OPENING:?}"))??;
        *held = Some(send.clone());
        Ok(send)
    }

    async fn open(&self, uri: &Uri) -> Result<SendRequest<Empty<Bytes>>, String> {
        let host = bare_host(uri)?;
        let port = uri.port_u16().unwrap_or(443);
        let authority = uri.authority().ok_or("no host in the address")?;
        let tcp = TcpStream::connect((host, port))
            .await
            .map_err(|e| format!("{host}:{port}: {e}"))?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        let name = ServerName::try_from(host.to_owned()).map_err(|e| e.to_string())?;
        let tls = tokio_rustls::TlsConnector::from(self.tls.clone())
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS: {e}"))?;
        self.handshakes.count(tls.get_ref().1.handshake_kind());
        if tls.get_ref().1.alpn_protocol() != Some(b"h2") {
            return Err("the server does not speak HTTP/2".to_owned());
        }
        let (mut send, conn) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
            .handshake(TokioIo::new(tls))
            .await
            .map_err(|e| format!("HTTP/2: {e}"))?;
        // A socket may be asked for only once the server's settings said it may (until then
        // the request is refused), and they come first on the connection: once anything is
        // answered, they are in. A page has asked for itself by then.
        let health = Request::get(format!("https://{authority}/api/health"))
            .body(Empty::new())
            .map_err(|e| format!("bad request: {e}"))?;
        let mut conn = Box::pin(conn);
        let answered = tokio::select! {
            answer = send.send_request(health) => answer.map_err(|e| format!("HTTP/2: {e}"))?,
            _ = conn.as_mut() => return Err("the server closed the connection".to_owned()),
        };
        if !answered.status().is_success() || !conn.is_extended_connect_protocol_enabled() {
            return Err("the server does not take WebSockets over HTTP/2".to_owned());
        }
        tokio::spawn(conn);
        Ok(send)
    }

    /// A WebSocket at `uri` (`https://host:port/path`) with these extra request headers.
    pub async fn socket(
        &self,
        uri: &Uri,
        headers: &[(&'static str, &str)],
        config: WebSocketConfig,
    ) -> Result<Carried, String> {
        let mut send = self.sender(uri).await?;
        let mut request = Request::builder()
            .method(Method::CONNECT)
            .uri(uri)
            .extension(hyper::ext::Protocol::from_static("websocket"))
            .header("sec-websocket-version", "13");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Empty::new())
            .map_err(|e| format!("bad request: {e}"))?;
        send.ready()
            .await
            .map_err(|e| format!("HTTP/2 connection: {e}"))?;
        let mut response = send
            .send_request(request)
            .await
            .map_err(|e| format!("WebSocket: {e}"))?;
        if response.status() != StatusCode::OK {
            return Err(format!(
                "WebSocket: the server answered {}",
                response.status()
            ));
        }
        let stream = hyper::upgrade::on(&mut response)
            .await
            .map_err(|e| format!("WebSocket: {e}"))?;
        let stream: Box<dyn Duplex> = Box::new(TokioIo::new(stream));
        Ok(WebSocketStream::from_raw_socket(stream, Role::Client, Some(config)).await)
    }
}
