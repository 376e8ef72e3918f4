//! Connections at once per client address, over the server's own TLS. Without a cap one
//! address held every file descriptor the process had (20 000 idle HTTP/2 connections that
//! answered pings, or HTTP/1.1 ones opened again as each was let go), and nobody else could
//! connect. Behind a balancer (`--forwarded-for-header`) every connection has the balancer's
//! address, and the balancer's own limit applies (`limit_conn` in deploy/nginx.conf). It
//! bounds what one address takes, not what many take: an IPv6 /48 is 65 536 addresses here.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use crate::limits::address_key;

/// How many connections each address holds now. A key lives only while its address holds a
/// connection, so there are never more keys than open connections.
pub struct Admission {
    most: usize,
    open: Mutex<HashMap<String, usize>>,
}

/// A connection's place, given back when it is dropped with the connection.
pub struct Admitted {
    admission: Arc<Admission>,
    key: String,
}

impl Admission {
    /// At most `most` connections at once from one address (an IPv6 one counts as its /64).
    pub fn new(most: usize) -> Arc<Admission> {
        Arc::new(Admission {
            most,
            open: Mutex::new(HashMap::new()),
        })
    }

    fn open(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // Every change is one insert or removal: a panic cannot leave it half done.
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A place for a connection from `peer`; `None` when that address holds its most already.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<Admitted> {
        let key = address_key(peer);
        let mut open = self.open();
        let held = open.entry(key.clone()).or_insert(0);
        if *held >= self.most {
            metrics::counter!(crate::metrics::RATE_LIMITED, "limit" => "connections from an address")
                .increment(1);
            return None;
        }
        *held += 1;
        Some(Admitted {
            admission: Arc::clone(self),
            key,
        })
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self.admission.open();
        if let Some(held) = open.get_mut(&self.key) {
            *held -= 1;
            if *held == 0 {
                open.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_share_and_gets_places_back() {
        let a = Admission::new(2);
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
    fn an_address_that_holds_nothing_is_forgotten() {
        let a = Admission::new(4);
        let places: Vec<_> = (0..100)
            .map(|i| a.admit(IpAddr::from([198, 51, 100, i])).unwrap())
            .collect();
        assert_eq!(a.open().len(), 100);
        drop(places);
        assert!(a.open().is_empty());
    }
}
