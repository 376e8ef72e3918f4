//! TLS 1.3 tickets for as many players as the load client plays at once, and a count of the
//! handshakes that used one.
//!
//! A player's device keeps the ticket of its first connection to the server and resumes every
//! later one with it; rustls's default store keeps 8 tickets a server for the whole client,
//! so with 100 players connecting at once, 92 of them made a full handshake (a certificate
//! signed by the server and checked here) that no player makes. A ticket is used once, and
//! every connection brings a new one, so the store holds about as many as players connect at
//! once; [`PER_SERVER`] bounds it whatever a server sends.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustls::client::{
    ClientSessionMemoryCache, ClientSessionStore, Tls12ClientSessionValue, Tls13ClientSessionValue,
};
use rustls::pki_types::ServerName;
use rustls::{HandshakeKind, NamedGroup};

/// Tickets kept for one server: more than any bench connects at once.
const PER_SERVER: usize = 4096;
/// Servers remembered, by name: a server's port is not part of it, so the processes of one
/// host share their tickets (one another's are refused, and counted as full handshakes).
const SERVERS: usize = 16;

/// The tickets, and for the rest (key-exchange hints, TLS 1.2 sessions) rustls's own store.
pub struct Tickets {
    rest: ClientSessionMemoryCache,
    tls13: Mutex<HashMap<ServerName<'static>, VecDeque<Tls13ClientSessionValue>>>,
}

impl Tickets {
    /// An empty store.
    pub fn new() -> Arc<Tickets> {
        Arc::new(Tickets {
            rest: ClientSessionMemoryCache::new(SERVERS),
            tls13: Mutex::new(HashMap::new()),
        })
    }
}

/// Says how many it holds, never the tickets (session secrets) themselves.
impl std::fmt::Debug for Tickets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let all = self.tls13.lock().unwrap_or_else(|e| e.into_inner());
        let held: usize = all.values().map(VecDeque::len).sum();
        write!(f, "Tickets {{ servers: {}, tickets: {held} }}", all.len())
    }
}

impl ClientSessionStore for Tickets {
    fn set_kx_hint(&self, server: ServerName<'static>, group: NamedGroup) {
        self.rest.set_kx_hint(server, group);
    }

    fn kx_hint(&self, server: &ServerName<'_>) -> Option<NamedGroup> {
        self.rest.kx_hint(server)
    }

    fn set_tls12_session(&self, server: ServerName<'static>, value: Tls12ClientSessionValue) {
        self.rest.set_tls12_session(server, value);
    }

    fn tls12_session(&self, server: &ServerName<'_>) -> Option<Tls12ClientSessionValue> {
        self.rest.tls12_session(server)
    }

    fn remove_tls12_session(&self, server: &ServerName<'static>) {
        self.rest.remove_tls12_session(server);
    }

    fn insert_tls13_ticket(&self, server: ServerName<'static>, value: Tls13ClientSessionValue) {
        let mut all = self.tls13.lock().unwrap_or_else(|e| e.into_inner());
        if !all.contains_key(&server) && all.len() >= SERVERS {
            all.clear();
        }
        let kept = all.entry(server).or_default();
        if kept.len() >= PER_SERVER {
            kept.pop_front();
        }
        kept.push_back(value);
    }

    fn take_tls13_ticket(&self, server: &ServerName<'static>) -> Option<Tls13ClientSessionValue> {
        let mut all = self.tls13.lock().unwrap_or_else(|e| e.into_inner());
        // The newest: a server that remembers a bounded number of sessions is likelier to
        // still hold it than the oldest.
        all.get_mut(server)?.pop_back()
    }
}

/// A client's WebSocket TLS handshakes, shared by its clones.
#[derive(Debug, Default)]
pub struct Handshakes {
    full: AtomicU64,
    resumed: AtomicU64,
}

impl Handshakes {
    /// Counts one.
    pub(crate) fn count(&self, kind: Option<HandshakeKind>) {
        match kind {
            Some(HandshakeKind::Resumed) => &self.resumed,
            Some(_) => &self.full,
            None => return,
        }
        .fetch_add(1, Ordering::Relaxed);
    }

    /// The handshakes so far: (full, resumed).
    pub fn so_far(&self) -> (u64, u64) {
        (
            self.full.load(Ordering::Relaxed),
            self.resumed.load(Ordering::Relaxed),
        )
    }
}
