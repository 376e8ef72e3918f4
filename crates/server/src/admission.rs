//! Connections at once: in all, per client address, and per IPv6 network. Without a cap one
//! address held every file descriptor the process had (20 000 idle HTTP/2 connections that
//! answered pings, or HTTP/1.1 ones opened again as each was let go), and nobody else could
//! connect; without a cap in all, many addresses together did the same, and the process had
//! no descriptor left for its database, its e-mail or its pushes. A static file being sent
//! holds a descriptor too, so it takes a place among the connections until it is sent. A
//! refused connection is closed as soon as it is accepted, before any handshake: an accept
//! that failed for want of descriptors would leave it waiting in the kernel's queue instead.
//!
//! Behind a balancer (`--forwarded-for-header`) every connection has the balancer's address,
//! and the balancer's own limit per address applies (`limit_conn` in deploy/nginx.conf); the
//! cap in all still does.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::limits::address_key;

/// Descriptors kept for everything but client connections: the database's files and pool,
/// e-mail, pushes, Google's keys, the listener and the runtime's own.
const DESCRIPTORS_KEPT: u64 = 256;

/// The connections the process may hold at once: `configured`, or fewer when the open-files
/// limit (`descriptors`, once raised to its hard limit) would not leave the rest their share.
pub fn connection_cap(configured: usize, descriptors: Option<u64>) -> usize {
    let Some(descriptors) = descriptors else {
        return configured;
    };
    // Under 512, keeping 256 would leave clients little or nothing: the rest get half.
    let room = descriptors
        .saturating_sub(DESCRIPTORS_KEPT)
        .max(descriptors / 2);
    configured
        .min(usize::try_from(room).unwrap_or(usize::MAX))
        .max(1)
}

/// Raises the process's open-files limit towards its hard limit (as Go's runtime does: the
/// soft limit is often 1 024, a hundredth of what a game server holds), or towards enough for
/// `connections` and the rest where the hard limit is none (macOS, which then refuses more
/// than its own maximum: each refusal halves the ask), and says what it is now; `None`: no
/// limit.
#[cfg(unix)]
pub fn raise_descriptor_limit(connections: usize) -> Option<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let current = limit.current?;
    let wanted = u64::try_from(connections).unwrap_or(u64::MAX);
    let mut ask = limit
        .maximum
        .unwrap_or(wanted.saturating_add(DESCRIPTORS_KEPT));
    while ask > current {
        let raised = Rlimit {
            current: Some(ask),
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            return Some(ask);
        }
        ask /= 2;
    }
    Some(current)
}
#[cfg(not(unix))]
pub fn raise_descriptor_limit(_connections: usize) -> Option<u64> {
    None
}

/// How many places are held, in all and for each address and network that holds any. A key
/// lives only while its address holds a place, so there are never more keys than twice the
/// places held.
pub struct Admission {
    total: usize,
    shares: Option<Shares>,
    open: Mutex<Open>,
}

/// What one client may hold at once.
#[derive(Clone, Copy, Debug)]
pub struct Shares {
    /// Connections from an address: an IPv4 one, or an IPv6 /64 (one household or phone is
    /// given a whole /64); 0: no limit.
    pub address: usize,
    /// Connections from an IPv6 /48 (a site's allocation: 65 536 /64s, each an address here;
    /// but a carrier's pool gives many phones their /64s from one); 0: no limit.
    pub network: usize,
}

#[derive(Default)]
struct Open {
    total: usize,
    held: HashMap<String, usize>,
}

/// What a place is for.
#[derive(Clone, Copy)]
enum Place {
    Connection,
    /// A static file being sent on a connection.
    File,
}

/// A count a place is held under: its key in [`Open::held`], the most it may reach, and the
/// limit a refusal is counted as.
struct Count {
    key: String,
    most: usize,
    limit: &'static str,
}

/// A connection's (or a file's) place, given back when it is dropped with it.
pub struct Admitted {
    admission: Arc<Admission>,
    counts: Vec<Count>,
}

impl Admission {
    /// At most `total` connections at once, and each client its `shares`; `None`: behind a
    /// balancer, the total only.
    pub fn new(total: usize, shares: Option<Shares>) -> Arc<Admission> {
        Arc::new(Admission {
            total,
            shares,
            open: Mutex::new(Open::default()),
        })
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Open> {
        // Every change is made whole under the lock: a panic cannot leave it half done.
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The counts a `place` for `peer` is held under; connections and files are counted
    /// apart, each against its own share.
    fn counts(&self, place: Place, peer: IpAddr) -> Vec<Count> {
        let Some(shares) = self.shares else {
            return Vec::new();
        };
        let (what, from_address, from_network) = match place {
            Place::Connection => (
                "connections",
                "connections from an address",
                "connections from a network",
            ),
            Place::File => ("files", "files from an address", "files from a network"),
        };
        let mut counts = Vec::with_capacity(2);
        if shares.address > 0 {
            counts.push(Count {
                key: format!("{what} {}", address_key(peer)),
                most: shares.address,
                limit: from_address,
            });
        }
        if let IpAddr::V6(v6) = peer
            && v6.to_ipv4_mapped().is_none()
            && shares.network > 0
        {
            let s = v6.segments();
            counts.push(Count {
                key: format!("{what} {:x}:{:x}:{:x}::/48", s[0], s[1], s[2]),
                most: shares.network,
                limit: from_network,
            });
        }
        counts
    }

    /// A place for a connection from `peer`; `None` when the server, its address or its
    /// network holds its most already.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<Admitted> {
        self.take(self.counts(Place::Connection, peer), "connections in all")
    }

    /// A place for a file being sent to `peer`: it holds a descriptor beside its connection's,
    /// so the cap in all bounds descriptors and not only connections. Each client has a share
    /// of files as of connections (32 streams an HTTP/2 connection would otherwise let one
    /// address hold 32 files a connection), apart from its connections', so that a client at
    /// its share of connections still gets its files. `None` when none is left.
    pub fn admit_file(self: &Arc<Self>, peer: Option<IpAddr>) -> Option<Admitted> {
        let counts = peer
            .map(|peer| self.counts(Place::File, peer))
            .unwrap_or_default();
        self.take(counts, "files in all")
    }

    /// A place held under `counts`, unless the total (refused as `total_limit`) or one of them
    /// is at its most.
    fn take(self: &Arc<Self>, counts: Vec<Count>, total_limit: &'static str) -> Option<Admitted> {
        let mut open = self.open();
        let refused = if open.total >= self.total {
            Some(total_limit)
        } else {
            counts
                .iter()
                .find(|c| open.held.get(&c.key).is_some_and(|held| *held >= c.most))
                .map(|c| c.limit)
        };
        if let Some(limit) = refused {
            metrics::counter!(crate::metrics::RATE_LIMITED, "limit" => limit).increment(1);
            return None;
        }
        open.total += 1;
        for c in &counts {
            *open.held.entry(c.key.clone()).or_insert(0) += 1;
        }
        Some(Admitted {
            admission: Arc::clone(self),
            counts,
        })
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self.admission.open();
        open.total -= 1;
        for c in &self.counts {
            if let Some(held) = open.held.get_mut(&c.key) {
                *held -= 1;
                if *held == 0 {
                    open.held.remove(&c.key);
                }
            }
        }
    }
}

/// Takes a place for each static file being sent, kept by its body until the last byte is
/// out or the client is gone: a file open is a descriptor. With none left the answer is 503
/// at once rather than a wait, which clients that read slowly would make everyone's.
pub async fn file_places(
    State(admission): State<Arc<Admission>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    let Some(place) = admission.admit_file(peer) else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "2")],
            "the server is full: try again in a moment",
        )
            .into_response();
    };
    next.run(request).await.map(|body| {
        Body::new(Holding {
            body,
            _place: place,
        })
    })
}

/// A body holding its file's place.
struct Holding {
    body: Body,
    _place: Admitted,
}

impl http_body::Body for Holding {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The plain-HTTP acceptor (behind a balancer that ends TLS): the cap in all, and
/// TCP_NODELAY, since a move is one small frame that would otherwise wait for the peer's
/// delayed ACK (about 40 ms on Linux) whenever one is outstanding.
#[derive(Clone)]
pub struct PlainAcceptor {
    /// The connections at once: the total only, every one being the balancer's.
    pub admission: Arc<Admission>,
}

impl<S: Send + 'static> axum_server::accept::Accept<TcpStream, S> for PlainAcceptor {
    type Stream = Counted;
    type Service = S;
    type Future = std::future::Ready<io::Result<(Counted, S)>>;

    fn accept(&self, tcp: TcpStream, service: S) -> Self::Future {
        let place = tcp
            .peer_addr()
            .and_then(|peer| {
                self.admission.admit(peer.ip()).ok_or_else(|| {
                    io::Error::new(io::ErrorKind::ConnectionRefused, "too many connections")
                })
            })
            .and_then(|place| {
                tcp.set_nodelay(true)?;
                Ok(place)
            });
        std::future::ready(place.map(|place| (Counted { tcp, _place: place }, service)))
    }
}

/// A plain connection holding its place.
pub struct Counted {
    tcp: TcpStream,
    _place: Admitted,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(address: usize, network: usize) -> Option<Shares> {
        Some(Shares { address, network })
    }

    #[test]
    fn an_address_holds_at_most_its_share_and_gets_places_back() {
        let a = Admission::new(1000, shares(2, 0));
        let ana: IpAddr = "203.0.113.9".parse().unwrap();
        let first = a.admit(ana).unwrap();
        let _second = a.admit(ana).unwrap();
        assert!(a.admit(ana).is_none());
        // Another address, and the same phone's /64 under another IPv6 address, count apart
        // and together as they should.
        assert!(a.admit("203.0.113.10".parse().unwrap()).is_some());
        let _v6 = a.admit("2001:db8::1".parse().unwrap()).unwrap();
        let _v6b = a.admit("2001:db8::2".parse().unwrap()).unwrap();
        assert!(a.admit("2001:db8::ffff".parse().unwrap()).is_none());
        drop(first);
        assert!(a.admit(ana).is_some());
    }

    #[test]
    fn a_network_of_many_addresses_holds_at_most_its_shares() {
        let a = Admission::new(100_000, shares(2, 32));
        // Every /64 of one /48 with its own share, until the /48 holds its own.
        let site = |n: u16| IpAddr::from([0x2001, 0xdb8, 7, n, 0, 0, 0, 1]);
        let held: Vec<_> = (0..1000).filter_map(|n| a.admit(site(n))).collect();
        assert_eq!(held.len(), 32);
        // Another /48 is another network; IPv4 addresses have no network.
        assert!(
            a.admit(IpAddr::from([0x2001, 0xdb8, 8, 0, 0, 0, 0, 1]))
                .is_some()
        );
        let v4: Vec<_> = (0..100)
            .filter_map(|n| a.admit(IpAddr::from([198, 51, 100, n])))
            .collect();
        assert_eq!(v4.len(), 100);
        drop(held);
        assert!(a.admit(site(999)).is_some(), "the places come back");
    }

    #[test]
    fn a_network_without_a_share_of_its_own_holds_what_its_addresses_do() {
        let a = Admission::new(100_000, shares(2, 0));
        let site = |n: u16| IpAddr::from([0x2001, 0xdb8, 7, n, 0, 0, 0, 1]);
        let held: Vec<_> = (0..1000)
            .flat_map(|n| [site(n); 3])
            .filter_map(|ip| a.admit(ip))
            .collect();
        assert_eq!(
            held.len(),
            2000,
            "two for each /64, none refused for its /48"
        );
    }

    #[test]
    fn files_being_sent_take_places_in_all_and_give_them_back() {
        let a = Admission::new(3, shares(1, 0));
        let connection = a.admit("203.0.113.9".parse().unwrap()).unwrap();
        let files: Vec<_> = (0..5).filter_map(|_| a.admit_file(None)).collect();
        assert_eq!(
            files.len(),
            2,
            "one connection and two files fill three places"
        );
        assert!(a.admit("203.0.113.10".parse().unwrap()).is_none());
        drop(files);
        assert!(a.admit("203.0.113.10".parse().unwrap()).is_some());
        drop(connection);
        assert_eq!(a.open().total, 0);
    }

    #[test]
    fn a_client_holds_at_most_its_share_of_files_apart_from_its_connections() {
        let a = Admission::new(1000, shares(2, 0));
        let ana: IpAddr = "2001:db8::1".parse().unwrap();
        let connections: Vec<_> = (0..5).filter_map(|_| a.admit(ana)).collect();
        assert_eq!(connections.len(), 2);
        let files: Vec<_> = (0..5).filter_map(|_| a.admit_file(Some(ana))).collect();
        assert_eq!(files.len(), 2, "its files have a share of their own");
        assert!(
            a.admit_file(Some("2001:db8:0:1::1".parse().unwrap()))
                .is_some()
        );
        // No address share, a network share still.
        let a = Admission::new(1000, shares(0, 3));
        let held: Vec<_> = (0..10u16)
            .filter_map(|n| a.admit(IpAddr::from([0x2001, 0xdb8, 0, n, 0, 0, 0, 1])))
            .collect();
        assert_eq!(held.len(), 3);
    }

    #[test]
    fn the_server_holds_at_most_its_connections_in_all() {
        for per_address in [shares(4, 8), None] {
            let a = Admission::new(10, per_address);
            let held: Vec<_> = (0..=255)
                .filter_map(|n| a.admit(IpAddr::from([198, 51, 100, n])))
                .collect();
            assert_eq!(held.len(), 10, "{per_address:?}");
            assert!(a.admit("2001:db8::1".parse().unwrap()).is_none());
            drop(held);
            assert!(a.admit("2001:db8::1".parse().unwrap()).is_some());
        }
        // Behind a balancer one address holds them all.
        let a = Admission::new(10, None);
        let balancer: IpAddr = "10.0.0.1".parse().unwrap();
        let held: Vec<_> = (0..20).filter_map(|_| a.admit(balancer)).collect();
        assert_eq!(held.len(), 10);
    }

    #[test]
    fn whatever_held_nothing_is_forgotten() {
        let a = Admission::new(1000, shares(4, 16));
        let places: Vec<_> = (0..100)
            .map(|i| a.admit(IpAddr::from([198, 51, 100, i])).unwrap())
            .chain((0..100).map(|i| {
                a.admit(IpAddr::from([0x2001, 0xdb8, i, 1, 0, 0, 0, 1]))
                    .unwrap()
            }))
            .collect();
        assert_eq!(
            a.open().held.len(),
            300,
            "100 addresses, 100 /64s and their 100 /48s"
        );
        drop(places);
        let open = a.open();
        assert!(open.held.is_empty());
        assert_eq!(open.total, 0);
    }

    #[test]
    fn the_cap_in_all_leaves_descriptors_for_the_rest() {
        assert_eq!(connection_cap(50_000, Some(20_000)), 19_744);
        assert_eq!(connection_cap(50_000, Some(1_048_576)), 50_000);
        assert_eq!(connection_cap(50_000, Some(1_024)), 768);
        assert_eq!(
            connection_cap(50_000, Some(300)),
            150,
            "a small limit keeps half"
        );
        assert_eq!(connection_cap(50_000, None), 50_000);
        assert_eq!(connection_cap(50_000, Some(0)), 1);
    }
}
