//! Rate limits: failed sign-ins per account and per address, new accounts per address
//! (online.md ON-A01). Counted in memory: a restart forgets them, which only ever lets a
//! blocked client try again sooner.
//!
//! Each limit is a generic cell rate algorithm (GCRA, as in the `governor` crate): per key one
//! "theoretical arrival time", so a key costs the same few bytes however many events it has.
//! `governor` itself does not fit: a sign-in must be refused when the account's *failures*
//! are used up, which needs looking at a key without spending from it, and forgetting a key
//! on success; its limiters can do neither. Keys are salted SHA-256 digests of the normalised
//! input (an attacker's 2 MB e-mail costs 16 bytes, and cannot be crafted to collide), expired
//! keys are swept on a timer, and a hard capacity bounds each limiter whatever the traffic.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName};
use sha2::{Digest, Sha256};
use velha_api::ErrorCode;

use crate::app::App;
use crate::error::AppError;

type Key = [u8; 16];

/// At most `limit` events per key in a window: a burst of `limit`, then one more each
/// `window / limit` (GCRA).
pub struct Window {
    interval_ms: i64,
    tolerance_ms: i64,
    capacity: usize,
    what: &'static str,
    salt: [u8; 16],
    arrivals: Mutex<HashMap<Key, i64>>,
}

impl Window {
    /// At most `limit` events per key in `window_ms`, at most `capacity` keys remembered;
    /// `what` names the events in the refusal.
    pub fn new(window_ms: i64, limit: usize, capacity: usize, what: &'static str) -> Window {
        let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
        let interval_ms = (window_ms / limit).max(1);
        let mut salt = [0u8; 16];
        // Without randomness the salt stays zero: keys are still digests, only predictable.
        let _ = getrandom::fill(&mut salt);
        Window {
            interval_ms,
            tolerance_ms: window_ms - interval_ms,
            capacity: capacity.max(1),
            what,
            salt,
            arrivals: Mutex::new(HashMap::new()),
        }
    }

    fn key(&self, input: &str) -> Key {
        let digest = Sha256::new()
            .chain_update(self.salt)
            .chain_update(input.as_bytes())
            .finalize();
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        key
    }

    fn arrivals(&self) -> std::sync::MutexGuard<'_, HashMap<Key, i64>> {
        self.arrivals.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Refuses when the key used up its events; says how long to wait.
    pub fn check(&self, key: &str, now: i64) -> Result<(), AppError> {
        let tat = self.arrivals().get(&self.key(key)).copied();
        self.refusal(tat, now)
    }

    /// Counts an event if the key has one left, and refuses it otherwise, under one lock: a
    /// check and a later add let every request that raced between them through.
    pub fn take(&self, key: &str, now: i64) -> Result<(), AppError> {
        let key = self.key(key);
        let mut map = self.arrivals();
        self.refusal(map.get(&key).copied(), now)?;
        self.insert(&mut map, key, now);
        Ok(())
    }

    /// Gives back an event [`take`](Self::take) counted for something that did not happen.
    pub fn give_back(&self, key: &str) {
        let key = self.key(key);
        if let Some(tat) = self.arrivals().get_mut(&key) {
            *tat -= self.interval_ms;
        }
    }

    fn refusal(&self, tat: Option<i64>, now: i64) -> Result<(), AppError> {
        let Some(tat) = tat else {
            return Ok(());
        };
        let early_ms = tat - self.tolerance_ms - now;
        if early_ms <= 0 {
            return Ok(());
        }
        let wait_s = (early_ms + 999) / 1000;
        metrics::counter!(crate::metrics::RATE_LIMITED, "limit" => self.what).increment(1);
        let mut e = AppError::new(
            ErrorCode::RateLimited,
            format!("{}; try again in {wait_s} s", self.what),
        );
        e.0.retry_after_s = Some(wait_s as u64);
        Err(e)
    }

    /// Counts an event.
    pub fn add(&self, key: &str, now: i64) {
        let key = self.key(key);
        let mut map = self.arrivals();
        self.insert(&mut map, key, now);
    }

    fn insert(&self, map: &mut HashMap<Key, i64>, key: Key, now: i64) {
        let known = map.get(&key).copied();
        let tat = known.unwrap_or(now).max(now) + self.interval_ms;
        if known.is_none() && map.len() >= self.capacity {
            map.retain(|_, t| *t > now);
            if map.len() >= self.capacity {
                // Full of live keys: forget the one closest to expiring among a handful (keys
                // are digests, so their order in the map is as good as random).
                if let Some(victim) = map
                    .iter()
                    .take(64)
                    .min_by_key(|(_, t)| **t)
                    .map(|(k, _)| *k)
                {
                    map.remove(&victim);
                }
            }
        }
        map.insert(key, tat);
    }

    /// Forgets a key's events.
    pub fn clear(&self, key: &str) {
        let key = self.key(key);
        self.arrivals().remove(&key);
    }

    /// Forgets every key whose events are all older than the window.
    pub fn sweep(&self, now: i64) {
        let mut map = self.arrivals();
        map.retain(|_, t| *t > now);
        if map.capacity() > 2 * map.len().max(1024) {
            map.shrink_to_fit();
        }
    }
}

/// Every limit the server keeps.
pub struct Limits {
    /// Behind a reverse proxy: the header where it writes the client's address.
    pub forwarded_for: Option<HeaderName>,
    /// Failed sign-ins per e-mail.
    pub failures_by_account: Window,
    /// Failed sign-ins per client address.
    pub failures_by_address: Window,
    /// New accounts per client address.
    pub signups_by_address: Window,
    /// New invitation rooms per client address.
    pub rooms_by_address: Window,
    /// Payment provider pages (checkouts, portals) per account: each is a call to the
    /// provider, whose rate limit is the whole server's.
    pub provider_pages_by_account: Window,
    /// E-mails asked for (a new-password link, a confirmation again) per client address.
    pub mail_by_address: Window,
    /// Exports of a player's data per account: each reads everything they ever played.
    pub exports_by_account: Window,
    /// Reports of other players per account: one player cannot bury the operators in them.
    pub reports_by_account: Window,
}

impl Limits {
    /// Refuses a sign-in when the account or the address failed too often.
    pub fn check_sign_in(&self, email: &str, address: &str, now: i64) -> Result<(), AppError> {
        self.failures_by_account.check(email, now)?;
        self.failures_by_address.check(address, now)
    }

    /// Counts a failed sign-in.
    pub fn failed_sign_in(&self, email: &str, address: &str, now: i64) {
        self.failures_by_account.add(email, now);
        self.failures_by_address.add(address, now);
    }

    /// Forgets every key whose window has passed.
    pub fn sweep(&self, now: i64) {
        self.failures_by_account.sweep(now);
        self.failures_by_address.sweep(now);
        self.signups_by_address.sweep(now);
        self.rooms_by_address.sweep(now);
        self.provider_pages_by_account.sweep(now);
        self.mail_by_address.sweep(now);
        self.exports_by_account.sweep(now);
    }
}

/// The client's address: the TCP peer, or behind a reverse proxy the last entry of the header
/// it writes (the entries before it come from the client and prove nothing).
pub fn client_address(peer: IpAddr, headers: &HeaderMap, header: Option<&HeaderName>) -> IpAddr {
    header
        .and_then(|h| headers.get(h))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .map(str::trim)
        .and_then(|last| last.parse::<IpAddr>().ok())
        .unwrap_or(peer)
}

/// What an address counts as: an IPv4 address itself, an IPv6 address its /64 (one household
/// or phone is given a whole /64, and could otherwise take a new key for every request).
pub fn address_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                let net = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
                format!("{net}/64")
            }
        },
    }
}

/// The address a request counts against (see [`address_key`]).
pub struct ClientAddress(pub String);

impl FromRequestParts<Arc<App>> for ClientAddress {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, AppError> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip())
            .ok_or_else(|| AppError::new(ErrorCode::Internal, "no peer address"))?;
        Ok(ClientAddress(address_key(client_address(
            peer,
            &parts.headers,
            app.limits.forwarded_for.as_ref(),
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_is_the_peer_or_what_the_proxy_wrote_last() {
        let peer: IpAddr = "10.0.0.5".parse().unwrap();
        let header = HeaderName::from_static("x-forwarded-for");
        let mut headers = HeaderMap::new();
        let addr = |headers: &HeaderMap, header| client_address(peer, headers, header).to_string();
        assert_eq!(addr(&headers, Some(&header)), "10.0.0.5");
        headers.insert(&header, "1.2.3.4, 203.0.113.9".parse().unwrap());
        assert_eq!(addr(&headers, None), "10.0.0.5", "not configured");
        assert_eq!(addr(&headers, Some(&header)), "203.0.113.9");
        headers.insert(&header, "not an address".parse().unwrap());
        assert_eq!(addr(&headers, Some(&header)), "10.0.0.5");
    }

    #[test]
    fn on_a01_an_ipv6_client_counts_as_its_slash_64() {
        let key = |s: &str| address_key(s.parse().unwrap());
        assert_eq!(key("203.0.113.9"), "203.0.113.9");
        assert_eq!(key("::ffff:203.0.113.9"), "203.0.113.9");
        assert_eq!(key("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
        assert_eq!(key("2001:db8:1:2:ffff:1:2:3"), key("2001:db8:1:2::9"));
        assert_ne!(key("2001:db8:1:3::1"), key("2001:db8:1:2::1"));
    }

    fn limits() -> Limits {
        Limits {
            forwarded_for: None,
            failures_by_account: Window::new(
                60_000,
                3,
                1000,
                "too many failed sign-ins for this account",
            ),
            failures_by_address: Window::new(
                60_000,
                5,
                1000,
                "too many failed sign-ins from this address",
            ),
            signups_by_address: Window::new(
                60_000,
                2,
                1000,
                "too many new accounts from this address",
            ),
            rooms_by_address: Window::new(60_000, 2, 1000, "too many new rooms"),
            provider_pages_by_account: Window::new(60_000, 2, 1000, "too many payment pages"),
            mail_by_address: Window::new(60_000, 2, 1000, "too many e-mails"),
            exports_by_account: Window::new(60_000, 2, 1000, "too many exports"),
            reports_by_account: Window::new(60_000, 2, 1000, "too many reports"),
        }
    }

    #[test]
    fn on_a01_failed_sign_ins_are_limited_per_account_and_address() {
        let l = limits();
        for t in 0..3 {
            l.check_sign_in("ana@x.com", "1.1.1.1", t).unwrap();
            l.failed_sign_in("ana@x.com", "1.1.1.1", t);
        }
        let e = l.check_sign_in("ana@x.com", "2.2.2.2", 10).unwrap_err();
        assert_eq!(e.0.code, ErrorCode::RateLimited);
        // Three at once used the burst; the next one is due a third of the window after the
        // first.
        assert_eq!(e.0.retry_after_s, Some(20));
        assert!(e.0.message.contains("this account"), "{}", e.0.message);
        l.check_sign_in("bia@x.com", "1.1.1.1", 10).unwrap();
        l.failed_sign_in("bia@x.com", "1.1.1.1", 10);
        l.failed_sign_in("caio@x.com", "1.1.1.1", 10);
        let e = l.check_sign_in("dani@x.com", "1.1.1.1", 11).unwrap_err();
        assert!(e.0.message.contains("this address"), "{}", e.0.message);
        assert!(l.check_sign_in("dani@x.com", "3.3.3.3", 11).is_ok());
        assert!(l.check_sign_in("ana@x.com", "2.2.2.2", 19_999).is_err());
        assert!(
            l.check_sign_in("ana@x.com", "2.2.2.2", 20_002).is_ok(),
            "one more each third of the window"
        );
        l.failed_sign_in("ana@x.com", "2.2.2.2", 20_002);
        assert!(l.check_sign_in("ana@x.com", "2.2.2.2", 20_003).is_err());
        l.failures_by_account.clear("bia@x.com");
        assert!(l.failures_by_account.check("bia@x.com", 12).is_ok());
    }

    #[test]
    fn on_a01_new_accounts_are_limited_per_address() {
        let l = limits();
        for t in 0..2 {
            l.signups_by_address.check("1.1.1.1", t).unwrap();
            l.signups_by_address.add("1.1.1.1", t);
        }
        assert!(l.signups_by_address.check("1.1.1.1", 5).is_err());
        assert!(l.signups_by_address.check("2.2.2.2", 5).is_ok());
    }

    #[test]
    fn on_a01_taking_an_event_checks_and_counts_it_at_once() {
        let w = Window::new(60_000, 2, 100, "rooms");
        w.take("1.1.1.1", 0).unwrap();
        w.take("1.1.1.1", 1).unwrap();
        let e = w.take("1.1.1.1", 2).unwrap_err();
        assert_eq!(e.0.code, ErrorCode::RateLimited);
        // What was refused counted nothing, and what did not happen is given back.
        w.give_back("1.1.1.1");
        w.take("1.1.1.1", 3).unwrap();
        assert!(w.take("1.1.1.1", 4).is_err());
        assert!(w.take("2.2.2.2", 4).is_ok());
    }

    impl Window {
        fn len(&self) -> usize {
            self.arrivals().len()
        }
    }

    #[test]
    fn on_a01_limiter_memory_is_bounded_and_swept_on_time() {
        let w = Window::new(60_000, 5, 100, "failures");
        // A thousand distinct keys, each long: the limiter keeps at most its capacity.
        for i in 0..1000 {
            w.add(&format!("{i}{}", "x".repeat(10_000)), i);
        }
        assert_eq!(w.len(), 100);
        // A key under attack survives the flood of fresh ones: eviction takes keys nearest
        // to expiring, and this one is far from it.
        let w = Window::new(60_000, 5, 100, "failures");
        for t in 0..5 {
            w.add("victim", t);
        }
        for i in 0..1000 {
            w.add(&format!("other-{i}"), 10 + i);
        }
        assert!(w.check("victim", 2000).is_err(), "still limited");
        // Once every event is older than the window, a sweep forgets them all.
        w.sweep(2_000_000);
        assert_eq!(w.len(), 0);
    }
}
