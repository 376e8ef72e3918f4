//! HTTPS connections on rustls's unbuffered API, holding no buffer while they wait.
//!
//! rustls's buffered connection (what tokio-rustls drives) sizes its read buffer to 4 KiB before
//! every read and keeps it for the connection's life: a third of what an idle WebSocket cost.
//! Here the bytes between the socket and rustls live in buffers of our own, which are given back
//! as soon as they are empty and the connection waits.

use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use rustls::ServerConfig;
use rustls::server::UnbufferedServerConnection;
use rustls::unbuffered::{ConnectionState, EncodeError, EncryptError, InsufficientSizeError};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

use crate::admission::{Admission, Admitted};

/// How long a client has to finish its handshake before the connection is dropped.
const HANDSHAKE_WITHIN: Duration = Duration::from_secs(10);

/// Bytes asked of the socket per read: a full TLS record's worth, so a large body comes in
/// a record per read.
const READ_CHUNK: usize = 16 * 1024 + 512;

/// The most received bytes held for rustls at once: a handshake message (rustls refuses those
/// over 64 KiB) and the record being read behind it. rustls takes every whole record it is
/// given, so only a message still arriving waits here.
const INCOMING_LIMIT: usize = 64 * 1024 + READ_CHUNK;

/// How long a record (or a handshake message), once it begins to arrive, may take to arrive
/// whole: a phone on a bad network sends 16 KiB in far less.
const UNFINISHED_WITHIN: Duration = Duration::from_secs(30);

/// The application bytes a client has the opening deadline to send: as many as hyper_util
/// reads to tell HTTP/1 from HTTP/2 (the HTTP/2 preface's length), with no limit of its own;
/// hyper's limit for a request's head takes over from there over HTTP/1 (over HTTP/2 its
/// pings do, app.rs's `timed`).
const OPENING_BYTES: usize = 24;

/// How an HTTP/2 connection opens (RFC 9113 §3.4). Over TLS a client may speak HTTP/2 only
/// once ALPN chose it (§3.3); hyper_util would take the preface whatever ALPN said, so a server
/// without `--http2` would still give any client an HTTP/2 connection.
const H2_PREFACE: &[u8; OPENING_BYTES] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Application bytes taken per write: one TLS record's payload.
const WRITE_CHUNK: usize = 16 * 1024;

/// Encrypted bytes a writer may leave waiting for the socket before its writes wait too.
const OUTGOING_LIMIT: usize = 64 * 1024;

/// Makes the TLS connection on each accepted TCP connection (`axum_server`'s accept step).
#[derive(Clone)]
pub struct TlsAcceptor {
    config: Arc<ServerConfig>,
    deadlines: Deadlines,
    /// Connections at once, in all and per address.
    admission: Arc<Admission>,
}

impl TlsAcceptor {
    /// An acceptor for this configuration, whose clients must send their first request's
    /// opening bytes within `opening_within` of their handshake, and may hold as many
    /// connections at once as `admission` lets them.
    pub fn new(
        config: Arc<ServerConfig>,
        opening_within: Duration,
        admission: Arc<Admission>,
    ) -> Self {
        Self {
            config,
            deadlines: Deadlines {
                unfinished_within: UNFINISHED_WITHIN,
                opening_within,
            },
            admission,
        }
    }
}

/// How long a client may keep the connection waiting once it is made.
#[derive(Clone, Copy)]
pub struct Deadlines {
    /// For a record (or handshake message) that began to arrive to arrive whole.
    pub unfinished_within: Duration,
    /// For the first `OPENING_BYTES` of application data after the handshake.
    pub opening_within: Duration,
}

impl<S: Send + 'static> axum_server::accept::Accept<TcpStream, S> for TlsAcceptor {
    type Stream = TlsStream;
    type Service = S;
    type Future = Pin<Box<dyn Future<Output = io::Result<(TlsStream, S)>> + Send>>;

    fn accept(&self, tcp: TcpStream, service: S) -> Self::Future {
        let config = Arc::clone(&self.config);
        let deadlines = self.deadlines;
        // Before the handshake, which is what costs: a refused connection is closed at once.
        let admitted = tcp.peer_addr().and_then(|peer| {
            self.admission.admit(peer.ip()).ok_or_else(|| {
                io::Error::new(io::ErrorKind::ConnectionRefused, "too many connections")
            })
        });
        Box::pin(async move {
            let admitted = admitted?;
            // A move is one small frame: without TCP_NODELAY it waits for the peer's delayed
            // ACK (about 40 ms on Linux) whenever one is outstanding.
            tcp.set_nodelay(true)?;
            let mut stream =
                tokio::time::timeout(HANDSHAKE_WITHIN, TlsStream::accept(tcp, config, deadlines))
                    .await
                    .map_err(|_| {
                        io::Error::new(io::ErrorKind::TimedOut, "the TLS handshake took too long")
                    })??;
            stream.admitted = Some(admitted);
            Ok((stream, service))
        })
    }
}

/// A server's TLS connection over TCP.
pub struct TlsStream {
    tcp: TcpStream,
    conn: UnbufferedServerConnection,
    /// Received bytes rustls has not taken yet: part of a record.
    incoming: Vec<u8>,
    /// Decrypted bytes not read yet, from `plain_read` on.
    plain: Vec<u8>,
    plain_read: usize,
    /// Encrypted bytes not written to the socket yet, from `outgoing_sent` on.
    outgoing: Vec<u8>,
    outgoing_sent: usize,
    /// The client said close_notify: what it sent has all been received.
    peer_closed: bool,
    /// Our close_notify is made.
    close_queued: bool,
    /// rustls refused what the client sent: nothing more is read or written.
    broken: bool,
    /// When the record (or handshake message) now arriving must be whole; only while one is.
    unfinished: Option<Pin<Box<Sleep>>>,
    unfinished_within: Duration,
    /// When the first `OPENING_BYTES` must have been read; gone once they are.
    opening: Option<Pin<Box<Sleep>>>,
    /// Application bytes read so far, counted up to `OPENING_BYTES`.
    opened: usize,
    /// ALPN chose HTTP/2.
    h2: bool,
    /// The bytes read so far open HTTP/2.
    like_h2: bool,
    /// Its place among the connections, given back when it is dropped.
    admitted: Option<Admitted>,
}

/// What to hand rustls once it can take application data.
#[derive(Clone, Copy)]
enum Give<'a> {
    Nothing,
    Data(&'a [u8]),
    CloseNotify,
}

/// Where rustls stands once it has taken every whole record it was given.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Stand {
    /// It can encrypt application data (a partial record may be waiting for its end).
    Writable,
    /// Its handshake needs more from the client.
    Blocked,
    /// Both sides said close_notify.
    Closed,
}

impl TlsStream {
    /// Takes the client's handshake on `tcp`; afterwards the client keeps to `deadlines`.
    pub async fn accept(
        tcp: TcpStream,
        config: Arc<ServerConfig>,
        deadlines: Deadlines,
    ) -> io::Result<TlsStream> {
        let conn = UnbufferedServerConnection::new(config).map_err(invalid)?;
        let mut stream = TlsStream {
            tcp,
            conn,
            incoming: Vec::new(),
            plain: Vec::new(),
            plain_read: 0,
            outgoing: Vec::new(),
            outgoing_sent: 0,
            peer_closed: false,
            close_queued: false,
            broken: false,
            unfinished: None,
            unfinished_within: deadlines.unfinished_within,
            opening: None,
            opened: 0,
            h2: false,
            like_h2: true,
            admitted: None,
        };
        poll_fn(|cx| stream.poll_handshake(cx)).await?;
        stream.h2 = stream.conn.alpn_protocol() == Some(b"h2");
        stream.opening = Some(Box::pin(tokio::time::sleep(deadlines.opening_within)));
        Ok(stream)
    }

    fn poll_handshake(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            let stand = self.process(Give::Nothing)?;
            ready!(self.poll_send(cx))?;
            // Not at the first `Writable`: a TLS 1.3 server may write once its own Finished is
            // out, before the client's has arrived.
            if !self.conn.is_handshaking() {
                return Poll::Ready(Ok(()));
            }
            if stand == Stand::Closed || self.peer_closed {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the client closed the connection during the TLS handshake",
                )));
            }
            if ready!(self.poll_receive(cx))? == 0 {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the connection ended during the TLS handshake",
                )));
            }
        }
    }

    /// Lets rustls take every whole record received, keeping what they hold (decrypted data,
    /// records to send), and hands it `give` once it can take application data.
    fn process(&mut self, give: Give<'_>) -> io::Result<Stand> {
        if self.broken {
            return Err(invalid("the TLS connection failed"));
        }
        loop {
            let status = self.conn.process_tls_records(&mut self.incoming);
            let discard = status.discard;
            let state = match status.state {
                Ok(state) => state,
                Err(error) => {
                    self.discard(discard);
                    return Err(self.fail(error));
                }
            };
            let stand = match state {
                ConnectionState::ReadTraffic(mut traffic) => {
                    while let Some(record) = traffic.next_record() {
                        match record {
                            Ok(record) => self.plain.extend_from_slice(record.payload),
                            Err(error) => {
                                self.broken = true;
                                return Err(invalid(error));
                            }
                        }
                    }
                    None
                }
                ConnectionState::EncodeTlsData(mut data) => {
                    append(&mut self.outgoing, 512, |out| {
                        data.encode(out).map_err(Refused::from)
                    })?;
                    None
                }
                // The records stay in `outgoing` until the socket takes them, before anything
                // waits on the client.
                ConnectionState::TransmitTlsData(sent) => {
                    sent.done();
                    None
                }
                ConnectionState::BlockedHandshake => Some(Stand::Blocked),
                ConnectionState::WriteTraffic(mut traffic) => {
                    match give {
                        Give::Nothing => {}
                        Give::Data(data) => append(&mut self.outgoing, data.len() + 64, |out| {
                            traffic.encrypt(data, out).map_err(Refused::from)
                        })?,
                        Give::CloseNotify => append(&mut self.outgoing, 64, |out| {
                            traffic.queue_close_notify(out).map_err(Refused::from)
                        })?,
                    }
                    Some(Stand::Writable)
                }
                ConnectionState::PeerClosed => {
                    self.peer_closed = true;
                    None
                }
                ConnectionState::Closed => Some(Stand::Closed),
                // Early data is off (the configuration's default), so none is ever offered.
                _ => return Err(invalid("an unexpected TLS state")),
            };
            self.discard(discard);
            if let Some(stand) = stand {
                return Ok(stand);
            }
        }
    }

    fn discard(&mut self, taken: usize) {
        if taken > 0 {
            self.incoming.drain(..taken);
            // A record came whole: the next one has its own time.
            self.unfinished = None;
        }
    }

    /// The error, after sending the alert rustls made for it: the client learns why (a
    /// protocol version it lacks, say) rather than seeing the connection drop.
    fn fail(&mut self, error: rustls::Error) -> io::Error {
        self.broken = true;
        // Once: the queued alert comes out first, and a second call would read the bad bytes
        // again and make a second fatal alert (which rustls asserts never happens).
        let status = self.conn.process_tls_records(&mut self.incoming);
        if let Ok(ConnectionState::EncodeTlsData(mut data)) = status.state {
            let _ = append(&mut self.outgoing, 64, |out| {
                data.encode(out).map_err(Refused::from)
            });
        }
        // One try, without waiting: the connection is over either way.
        if let Some(alert) = self.outgoing.get(self.outgoing_sent..) {
            let _ = self.tcp.try_write(alert);
        }
        self.outgoing = Vec::new();
        self.outgoing_sent = 0;
        self.incoming = Vec::new();
        invalid(error)
    }

    /// Reads what the socket has for rustls: the count, 0 at its end.
    fn poll_receive(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        if self.incoming.len() >= INCOMING_LIMIT {
            return Poll::Ready(Err(invalid("a TLS message too large to take")));
        }
        loop {
            if self.tcp.poll_read_ready(cx).is_pending() {
                return self.wait_for_more(cx);
            }
            // Exactly: `reserve` may double what is held, and the read fills all the room.
            self.incoming.reserve_exact(READ_CHUNK);
            // `poll_read`, not `try_read_buf`: a read that leaves room unfilled has drained the
            // socket, and only `poll_read` then forgets the readiness. With `try_read_buf`
            // every record cost a second read that found nothing: half the server's receive
            // calls over HTTPS (`perf trace -s` during `velha-load --peer-matches --http2`).
            match tokio_util::io::poll_read_buf(Pin::new(&mut self.tcp), cx, &mut self.incoming) {
                Poll::Ready(read) => return Poll::Ready(read),
                // The readiness was stale: the next turn waits for another.
                Poll::Pending => continue,
            }
        }
    }

    /// While the socket has nothing, the connection keeps only what it holds, and a record
    /// begun has a deadline: a client that starts one and never ends it would hold the
    /// connection and what it sent forever.
    fn wait_for_more(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        if self.incoming.is_empty() {
            self.incoming = Vec::new();
            self.unfinished = None;
            return Poll::Pending;
        }
        // Down to what it holds, unless the room left is small (each shrink is a copy).
        if self.incoming.capacity() - self.incoming.len() > 4096 {
            self.incoming.shrink_to_fit();
        }
        let within = self.unfinished_within;
        let deadline = self
            .unfinished
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(within)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "a TLS record did not arrive whole in time",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Writes what waits in `outgoing` to the socket, and gives the buffer back once empty.
    fn poll_send(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some(left) = self
            .outgoing
            .get(self.outgoing_sent..)
            .filter(|l| !l.is_empty())
        {
            let n = ready!(Pin::new(&mut self.tcp).poll_write(cx, left))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.outgoing_sent += n;
        }
        self.outgoing = Vec::new();
        self.outgoing_sent = 0;
        Poll::Ready(Ok(()))
    }

    /// Pending, unless the client let its opening deadline pass.
    fn poll_opening(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self
            .opening
            .as_mut()
            .map(|deadline| deadline.as_mut().poll(cx))
        {
            Some(Poll::Ready(())) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no request came in time",
            ))),
            _ => Poll::Pending,
        }
    }

    fn unsent(&self) -> usize {
        self.outgoing.len() - self.outgoing_sent
    }

    /// Bytes this connection holds in its own buffers (0 while it waits with nothing pending).
    #[cfg(test)]
    fn held_bytes(&self) -> usize {
        self.incoming.capacity() + self.plain.capacity() + self.outgoing.capacity()
    }
}

impl AsyncRead for TlsStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.plain_read < this.plain.len() {
                let left = &this.plain[this.plain_read..];
                let n = left.len().min(buf.remaining());
                if this.opened < OPENING_BYTES && !this.h2 {
                    let upto = (this.opened + n).min(OPENING_BYTES);
                    this.like_h2 &= left[..upto - this.opened] == H2_PREFACE[this.opened..upto];
                    if this.like_h2 && upto == OPENING_BYTES {
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            "HTTP/2 without ALPN having chosen it",
                        )));
                    }
                }
                buf.put_slice(&left[..n]);
                this.plain_read += n;
                this.opened = (this.opened + n).min(OPENING_BYTES);
                if this.opened == OPENING_BYTES {
                    this.opening = None;
                }
                if this.plain_read == this.plain.len() {
                    this.plain = Vec::new();
                    this.plain_read = 0;
                }
                return Poll::Ready(Ok(()));
            }
            // Nothing is sent from here, not even records rustls makes while reading (an alert
            // refusing a renegotiation): they wait in `outgoing` for the next write. Writing to
            // the socket here would register this reader's waker as the socket's writer's, and
            // a writer waiting for room would never be woken.
            let stand = this.process(Give::Nothing)?;
            if !this.plain.is_empty() {
                continue;
            }
            if this.peer_closed || stand == Stand::Closed {
                return Poll::Ready(Ok(()));
            }
            let received = match this.poll_receive(cx) {
                Poll::Ready(received) => received?,
                Poll::Pending => return this.poll_opening(cx),
            };
            if received == 0 {
                // As rustls's own reader: an end without close_notify may be a cut, not the
                // end of what the client sent.
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the client closed the connection without a TLS close_notify",
                )));
            }
        }
    }
}

impl AsyncWrite for TlsStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if data.is_empty() {
            return Poll::Ready(Ok(0));
        }
        if this.unsent() >= OUTGOING_LIMIT {
            ready!(this.poll_send(cx))?;
        }
        let taken = &data[..data.len().min(WRITE_CHUNK)];
        if this.process(Give::Data(taken))? != Stand::Writable {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the TLS connection no longer takes data",
            )));
        }
        // Sent now when the socket takes it; what it does not take waits for the next write or
        // the flush.
        if let Poll::Ready(Err(e)) = this.poll_send(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(taken.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_send(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.close_queued {
            this.close_queued = true;
            this.process(Give::CloseNotify)?;
        }
        ready!(this.poll_send(cx))?;
        match ready!(Pin::new(&mut this.tcp).poll_shutdown(cx)) {
            Err(e) if e.kind() != io::ErrorKind::NotConnected => Poll::Ready(Err(e)),
            _ => Poll::Ready(Ok(())),
        }
    }
}

/// Why rustls did not write into the room it was given.
enum Refused {
    NeedsRoom(usize),
    Failed(String),
}

impl From<EncodeError> for Refused {
    fn from(e: EncodeError) -> Self {
        match e {
            EncodeError::InsufficientSize(InsufficientSizeError { required_size }) => {
                Refused::NeedsRoom(required_size)
            }
            other => Refused::Failed(other.to_string()),
        }
    }
}

impl From<EncryptError> for Refused {
    fn from(e: EncryptError) -> Self {
        match e {
            EncryptError::InsufficientSize(InsufficientSizeError { required_size }) => {
                Refused::NeedsRoom(required_size)
            }
            other => Refused::Failed(other.to_string()),
        }
    }
}

/// Lets `write` put its bytes at the end of `out`, with `room` to start with and what it asks
/// for if that is short.
fn append(
    out: &mut Vec<u8>,
    room: usize,
    mut write: impl FnMut(&mut [u8]) -> Result<usize, Refused>,
) -> io::Result<()> {
    let start = out.len();
    let mut room = room;
    loop {
        out.resize(start + room, 0);
        match write(&mut out[start..]) {
            Ok(n) => {
                out.truncate(start + n);
                return Ok(());
            }
            Err(Refused::NeedsRoom(needed)) if needed > room => room = needed,
            Err(Refused::NeedsRoom(_)) => {
                out.truncate(start);
                return Err(invalid("rustls asked for room it already had"));
            }
            Err(Refused::Failed(why)) => {
                out.truncate(start);
                return Err(invalid(why));
            }
        }
    }
}

fn invalid(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    const LONG: Deadlines = Deadlines {
        unfinished_within: UNFINISHED_WITHIN,
        opening_within: Duration::from_secs(60),
    };

    struct Pair {
        server: TlsStream,
        client: tokio_rustls::client::TlsStream<TcpStream>,
    }

    fn configs() -> (Arc<ServerConfig>, Arc<rustls::ClientConfig>) {
        configs_for(rustls::DEFAULT_VERSIONS)
    }

    /// A server's configuration as `tls::server_config` makes it, and a client's trusting it
    /// that offers these versions.
    fn configs_for(
        client_versions: &[&'static rustls::SupportedProtocolVersion],
    ) -> (Arc<ServerConfig>, Arc<rustls::ClientConfig>) {
        let dir = tempfile::tempdir().unwrap();
        let files = crate::tls::cert_files(None, None, dir.path()).unwrap();
        let server = crate::tls::server_config(&files, false).unwrap();
        let cert = CertificateDer::from_pem_file(&files.cert).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        roots.add(cert).unwrap();
        let client = rustls::ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(client_versions)
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        (server, Arc::new(client))
    }

    async fn pair_with(
        client_config: Arc<rustls::ClientConfig>,
        server: Arc<ServerConfig>,
    ) -> Pair {
        pair_within(client_config, server, LONG).await
    }

    /// A listener whose first connection is taken by `TlsStream::accept`.
    async fn accepting(
        server: Arc<ServerConfig>,
        deadlines: Deadlines,
    ) -> (
        std::net::SocketAddr,
        tokio::task::JoinHandle<io::Result<TlsStream>>,
    ) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepting = tokio::spawn(async move {
            let (tcp, _) = listener.accept().await.unwrap();
            TlsStream::accept(tcp, server, deadlines).await
        });
        (addr, accepting)
    }

    async fn pair_within(
        client_config: Arc<rustls::ClientConfig>,
        server: Arc<ServerConfig>,
        deadlines: Deadlines,
    ) -> Pair {
        let (addr, accepting) = accepting(server, deadlines).await;
        let tcp = TcpStream::connect(addr).await.unwrap();
        let client = tokio_rustls::TlsConnector::from(client_config)
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .expect("the client's handshake");
        let server = accepting.await.unwrap().expect("the server's handshake");
        Pair { server, client }
    }

    async fn pair() -> Pair {
        let (server, client) = configs();
        pair_with(client, server).await
    }

    /// Whether a read on `server` waits, polled once.
    async fn read_waits(server: &mut TlsStream) -> bool {
        let mut buf = [0u8; 64];
        poll_fn(|cx| {
            let mut read = ReadBuf::new(&mut buf);
            Poll::Ready(Pin::new(&mut *server).poll_read(cx, &mut read).is_pending())
        })
        .await
    }

    #[tokio::test]
    async fn a_large_exchange_arrives_whole_both_ways_through_small_reads() {
        let Pair { mut server, client } = pair().await;
        // Sizes that straddle records: 3 MiB in writes of up to 40 KiB.
        let sent: Vec<u8> = (0..3 * 1024 * 1024u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        let echo = tokio::spawn(async move {
            let mut buf = [0u8; 1000];
            let mut total = 0;
            loop {
                let n = server.read(&mut buf[..(total % 997) + 3]).await.unwrap();
                if n == 0 {
                    break;
                }
                total += n;
                server.write_all(&buf[..n]).await.unwrap();
            }
            server.shutdown().await.unwrap();
            total
        });
        let (mut reading, mut writing) = tokio::io::split(client);
        let to_send = sent.clone();
        let writer = tokio::spawn(async move {
            let mut at = 0;
            let mut step = 1;
            while at < to_send.len() {
                let end = (at + step).min(to_send.len());
                writing.write_all(&to_send[at..end]).await.unwrap();
                at = end;
                step = (step * 7 + 13) % (40 * 1024) + 1;
            }
            writing.shutdown().await.unwrap();
        });
        let mut received = Vec::new();
        reading
            .read_to_end(&mut received)
            .await
            .expect("a clean end");
        writer.await.unwrap();
        assert_eq!(echo.await.unwrap(), sent.len());
        assert!(received == sent, "the echo differs from what was sent");
    }

    #[tokio::test]
    async fn a_waiting_connection_holds_no_buffer() {
        let Pair {
            mut server,
            mut client,
        } = pair().await;
        assert!(read_waits(&mut server).await);
        assert_eq!(server.held_bytes(), 0, "after the handshake");
        let request = vec![7u8; 20_000];
        client.write_all(&request).await.unwrap();
        client.flush().await.unwrap();
        let mut got = vec![0u8; request.len()];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(got, request);
        server.write_all(&[9u8; 50_000]).await.unwrap();
        server.flush().await.unwrap();
        let mut answer = vec![0u8; 50_000];
        client.read_exact(&mut answer).await.unwrap();
        assert!(read_waits(&mut server).await);
        assert_eq!(server.held_bytes(), 0, "after an exchange, waiting");
        client.write_all(b"ping").await.unwrap();
        client.flush().await.unwrap();
        let mut small = [0u8; 4];
        server.read_exact(&mut small).await.unwrap();
        assert_eq!(&small, b"ping");
        assert!(read_waits(&mut server).await);
        assert_eq!(server.held_bytes(), 0, "after a small frame");
    }

    #[tokio::test]
    async fn close_notify_ends_the_stream_each_way() {
        let Pair {
            mut server,
            mut client,
        } = pair().await;
        client.write_all(b"last words").await.unwrap();
        client.shutdown().await.unwrap();
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.expect("a clean end");
        assert_eq!(got, b"last words");
        server.write_all(b"goodbye").await.unwrap();
        server.shutdown().await.unwrap();
        let mut answer = Vec::new();
        client
            .read_to_end(&mut answer)
            .await
            .expect("the server's close_notify, not a cut");
        assert_eq!(answer, b"goodbye");
    }

    #[tokio::test]
    async fn an_end_without_close_notify_is_not_taken_for_the_end_of_the_data() {
        let Pair { mut server, client } = pair().await;
        let (mut tcp, _) = client.into_inner();
        tcp.shutdown().await.unwrap();
        let mut got = Vec::new();
        let error = server.read_to_end(&mut got).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }

    #[tokio::test]
    async fn a_clients_key_update_is_answered_and_the_exchange_goes_on() {
        let Pair {
            mut server,
            mut client,
        } = pair().await;
        for round in 0..3u8 {
            client.get_mut().1.refresh_traffic_keys().unwrap();
            client.write_all(&[round; 100]).await.unwrap();
            client.flush().await.unwrap();
            let mut got = [0u8; 100];
            server.read_exact(&mut got).await.unwrap();
            assert_eq!(got, [round; 100]);
            server.write_all(&[round + 1; 100]).await.unwrap();
            server.flush().await.unwrap();
            let mut answer = [0u8; 100];
            client.read_exact(&mut answer).await.unwrap();
            assert_eq!(answer, [round + 1; 100]);
        }
    }

    #[tokio::test]
    async fn a_writer_waiting_for_room_is_woken_while_the_reader_works() {
        let Pair { server, mut client } = pair().await;
        let (mut reader, mut writer) = tokio::io::split(server);
        let answer = vec![5u8; 4 * 1024 * 1024];
        let expected = answer.len();
        // More than the sockets hold while the client does not read: the writer waits for room.
        let writing = tokio::spawn(async move {
            writer.write_all(&answer).await.unwrap();
            writer.flush().await.unwrap();
        });
        let reading = tokio::spawn(async move {
            let mut buf = [0u8; 256];
            while reader.read(&mut buf).await.unwrap() > 0 {}
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        // A record for the reader while the writer waits for room: it must not take the
        // writer's wake-up.
        client.get_mut().1.refresh_traffic_keys().unwrap();
        client.write_all(b"still here").await.unwrap();
        client.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut got = vec![0u8; expected];
        tokio::time::timeout(Duration::from_secs(20), client.read_exact(&mut got))
            .await
            .expect("the whole answer, not a writer left asleep")
            .unwrap();
        writing.await.unwrap();
        reading.abort();
    }

    /// What the server's handshake makes of these bytes: its error, and what the client got.
    async fn raw_accept(bytes: &[u8]) -> (io::Error, Vec<u8>) {
        let (server, _) = configs();
        let (addr, accepting) = accepting(server, LONG).await;
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        tcp.write_all(bytes).await.unwrap();
        let Err(error) = accepting
            .await
            .expect("the handshake fails without a panic")
        else {
            panic!("the handshake succeeded");
        };
        let mut answer = Vec::new();
        tcp.read_to_end(&mut answer).await.unwrap();
        (error, answer)
    }

    #[tokio::test]
    async fn plain_http_on_the_tls_port_is_answered_with_an_alert() {
        let (error, answer) = raw_accept(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert_eq!(answer.first(), Some(&0x15), "an alert record: {answer:?}");
        assert_eq!(answer.len(), 7, "one alert: {answer:?}");
    }

    #[tokio::test]
    async fn a_forged_record_after_the_handshake_ends_the_connection_cleanly() {
        let Pair {
            mut server,
            mut client,
        } = pair().await;
        let mut forged = vec![0x17, 0x03, 0x03, 0x00, 0x20];
        forged.extend_from_slice(&[0xAB; 0x20]);
        client.get_mut().0.write_all(&forged).await.unwrap();
        let mut buf = [0u8; 16];
        let error = server.read(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            server.read(&mut buf).await.unwrap_err().kind(),
            io::ErrorKind::InvalidData,
            "and stays failed"
        );
        assert!(server.write_all(b"x").await.is_err());
        assert_eq!(server.held_bytes(), 0);
    }

    /// The TLS bytes of `data` as the client would send them.
    fn sealed(client: &mut tokio_rustls::client::TlsStream<TcpStream>, data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let conn = client.get_mut().1;
        conn.writer().write_all(data).unwrap();
        let mut bytes = Vec::new();
        while conn.wants_write() {
            conn.write_tls(&mut bytes).unwrap();
        }
        bytes
    }

    #[tokio::test]
    async fn a_record_that_never_ends_is_let_go_and_a_slow_stream_is_not() {
        let within = Duration::from_secs(3);
        let (config, client_config) = configs();
        let deadlines = Deadlines {
            unfinished_within: within,
            opening_within: Duration::from_secs(60),
        };
        let Pair {
            mut server,
            mut client,
        } = pair_within(client_config, config, deadlines).await;
        // Four records, each sent in two halves a second apart: the buffer is never empty
        // for longer than the limit, but a record ends every second.
        let records: Vec<Vec<u8>> = (0..4u8).map(|i| sealed(&mut client, &[i; 1000])).collect();
        let reading = tokio::spawn(async move {
            let mut got = vec![0u8; 4000];
            server.read_exact(&mut got).await.map(|_| (server, got))
        });
        let mut pending: &[u8] = &[];
        for record in &records {
            let half = record.len() / 2;
            let mut chunk = pending.to_vec();
            chunk.extend_from_slice(&record[..half]);
            client.get_mut().0.write_all(&chunk).await.unwrap();
            tokio::time::sleep(Duration::from_secs(1)).await;
            pending = &record[half..];
        }
        client.get_mut().0.write_all(pending).await.unwrap();
        let (mut server, got) = reading.await.unwrap().expect("a slow stream is read whole");
        assert_eq!(got[..1000], [0u8; 1000]);
        assert_eq!(got[3000..], [3u8; 1000]);
        // Half a record, and nothing more.
        let last = sealed(&mut client, b"never whole");
        client.get_mut().0.write_all(&last[..5]).await.unwrap();
        let started = tokio::time::Instant::now();
        let mut buf = [0u8; 16];
        let error = server.read(&mut buf).await.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= within - Duration::from_millis(100));
    }

    #[tokio::test]
    async fn a_client_silent_after_its_handshake_is_let_go_and_one_that_opened_is_not() {
        let deadlines = Deadlines {
            unfinished_within: UNFINISHED_WITHIN,
            opening_within: Duration::from_secs(1),
        };
        let (config, client_config) = configs();
        // Its client stays connected, and sends nothing.
        let Pair {
            server: mut silent,
            client: _quiet,
        } = pair_within(Arc::clone(&client_config), Arc::clone(&config), deadlines).await;
        let Pair {
            server: mut opened,
            client: mut opener,
        } = pair_within(client_config, config, deadlines).await;
        // The first bytes in time; then the server waits in a read through a pause longer
        // than the opening deadline.
        let first = b"GET / HTTP/1.1\r\nHost: local";
        assert!(first.len() > OPENING_BYTES);
        opener.write_all(first).await.unwrap();
        opener.flush().await.unwrap();
        let mut got = vec![0u8; first.len()];
        opened.read_exact(&mut got).await.unwrap();
        let waiting = tokio::spawn(async move {
            let mut rest = [0u8; 8];
            opened.read_exact(&mut rest).await.map(|_| rest)
        });
        let mut buf = [0u8; 64];
        let error = tokio::time::timeout(Duration::from_secs(10), silent.read(&mut buf))
            .await
            .expect("the silent client let go")
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        opener.write_all(b"host\r\n\r\n").await.unwrap();
        opener.flush().await.unwrap();
        let rest = waiting.await.unwrap().expect("no deadline once opened");
        assert_eq!(&rest, b"host\r\n\r\n");
    }

    #[tokio::test]
    async fn a_client_with_nothing_in_common_is_told_so_by_an_alert() {
        // A ClientHello of SSL 3.0 offering one suite rustls lacks, with no extensions.
        let mut hello = vec![0x03, 0x00];
        hello.extend_from_slice(&[0u8; 32]);
        hello.extend_from_slice(&[0x00, 0x00, 0x02, 0x00, 0x2f, 0x01, 0x00]);
        let mut handshake = vec![0x01, 0x00, 0x00, hello.len() as u8];
        handshake.extend_from_slice(&hello);
        let mut record = vec![0x16, 0x03, 0x00, 0x00, handshake.len() as u8];
        record.extend_from_slice(&handshake);
        let (error, answer) = raw_accept(&record).await;
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert_eq!(answer.first(), Some(&0x15), "an alert record: {answer:?}");
        assert_eq!(
            answer.get(5..7),
            Some(&[2u8, 40][..]),
            "fatal handshake_failure"
        );
    }

    #[tokio::test]
    async fn a_second_connection_resumes_and_tls_1_2_is_served() {
        let (server, client) = configs();
        let Pair {
            server: mut first,
            client: mut first_client,
        } = pair_with(Arc::clone(&client), Arc::clone(&server)).await;
        // TLS 1.3's ticket comes after the handshake: reading the first answer takes it.
        first.write_all(b"1").await.unwrap();
        first.flush().await.unwrap();
        let mut one = [0u8; 1];
        first_client.read_exact(&mut one).await.unwrap();
        let again = pair_with(Arc::clone(&client), Arc::clone(&server)).await;
        assert_eq!(
            again.client.get_ref().1.handshake_kind(),
            Some(rustls::HandshakeKind::Resumed)
        );

        let (server, client) = configs_for(&[&rustls::version::TLS12]);
        let Pair {
            mut server,
            mut client,
        } = pair_with(client, server).await;
        assert_eq!(
            client.get_ref().1.protocol_version(),
            Some(rustls::ProtocolVersion::TLSv1_2)
        );
        client.write_all(b"hello").await.unwrap();
        client.flush().await.unwrap();
        let mut got = [0u8; 5];
        server.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"hello");
    }
}
