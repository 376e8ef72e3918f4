//! Rate limits: failed sign-ins per account and per address, new accounts per address
//! (online.md ON-A01). Counted in memory: a restart forgets them, which only ever lets a
//! blocked client try again sooner.
//!
//! Each limit is a generic cell rate algorithm (GCRA, as in the `governor` crate): per key one
//! "theoretical arrival time", so a key costs the same few bytes however many events it has.
//! `governor` itself does not fit: a sign-in's attempt is given back when its password was
//! right, and the account's failures forgotten; its limiters can do neither. Keys are salted
//! SHA-256 digests of the normalised input (an attacker's 2 MB e-mail costs 16 bytes, and
//! cannot be crafted to collide), expired keys are swept on a timer, and a hard capacity
//! bounds each limiter whatever the traffic.

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
    /// Sign-ins in progress, one at a time per account.
    pub sign_in_turns: Turns,
}

/// Sign-ins in progress per account, one at a time each: each is checked against the
/// failures of every one before it. A key lives only while an attempt holds or awaits its
/// turn, so there are never more keys than attempts in progress.
#[derive(Default)]
pub struct Turns {
    accounts: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// An account's turn to have a password checked; the next attempt's once dropped.
pub struct Turn<'a> {
    // Dropped in this order: the turn is let go before the account's line is tidied.
    _held: tokio::sync::OwnedMutexGuard<()>,
    _waiting: Waiting<'a>,
}

/// An attempt waiting for or holding its account's turn: the last one to leave removes the
/// account's line, also when the attempt is dropped while it waits.
struct Waiting<'a> {
    turns: &'a Turns,
    account: String,
}

impl Turns {
    fn accounts(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Mutex<()>>>> {
        // Every change is one insert or removal: a panic cannot leave it half done.
        self.accounts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the attempts on `account` before this one.
    pub async fn turn(&self, account: &str) -> Turn<'_> {
        let line = Arc::clone(self.accounts().entry(account.to_owned()).or_default());
        // Made before the wait: dropped after the wait's own reference, however it ends.
        let waiting = Waiting {
            turns: self,
            account: account.to_owned(),
        };
        Turn {
            _held: line.lock_owned().await,
            _waiting: waiting,
        }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut accounts = self.turns.accounts();
        // Only the map's own: nobody holds or awaits this account's turn.
        if accounts
            .get(&self.account)
            .is_some_and(|line| Arc::strong_count(line) == 1)
        {
            accounts.remove(&self.account);
        }
    }
}

impl Limits {
    /// Counts a sign-in as failed before its password is checked, or refuses it when the
    /// account or the address failed too often; to be called in the account's turn
    /// ([`Turns::turn`]), so attempts on one account are checked one after another. Counted
    /// first and in turn: a check before the slow hash and a count after it let every attempt
    /// in flight at once be tried (35 to 44 of 300 against a limit of 5), and each then pushed
    /// the account's wait further, to hours. A right password gives it back
    /// ([`sign_in_right`](Self::sign_in_right)).
    pub fn try_sign_in(
        &self,
        _in_turn: &Turn<'_>,
        email: &str,
        address: &str,
        now: i64,
    ) -> Result<(), AppError> {
        self.failures_by_account.take(email, now)?;
        self.failures_by_address
            .take(address, now)
            .inspect_err(|_| self.failures_by_account.give_back(email))
    }

    /// The attempt [`try_sign_in`](Self::try_sign_in) counted was not a failure: the password
    /// was right, or it was never checked.
    pub fn sign_in_right(&self, email: &str, address: &str) {
        self.failures_by_account.give_back(email);
        self.failures_by_address.give_back(address);
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
        self.reports_by_account.sweep(now);
    }
}

/// The client's address: the TCP peer, or behind a reverse proxy the last entry of the header
/// it writes (the entries before it come from the client and prove nothing).
pub fn client_address(peer: IpAddr, headers: &HeaderMap, header: Option<&HeaderName>) -> IpAddr {
    // The proxy's own line is the last: a client can send lines of its own before it, which
    // proxies that append a line (HAProxy's `option forwardfor`) keep.
    header
        .and_then(|h| headers.get_all(h).iter().next_back())
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
        // A line the client sent, then the proxy's own.
        headers.insert(&header, "198.51.100.7".parse().unwrap());
        headers.append(&header, "1.2.3.4, 203.0.113.10".parse().unwrap());
        assert_eq!(addr(&headers, Some(&header)), "203.0.113.10");
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
            sign_in_turns: Turns::default(),
        }
    }

    /// A sign-in attempt in its account's turn, as the routes make it.
    async fn attempt(l: &Limits, email: &str, address: &str, now: i64) -> Result<(), AppError> {
        let turn = l.sign_in_turns.turn(email).await;
        l.try_sign_in(&turn, email, address, now)
    }

    #[tokio::test]
    async fn on_a01_failed_sign_ins_are_limited_per_account_and_address() {
        let l = limits();
        for t in 0..3 {
            attempt(&l, "ana@x.com", "1.1.1.1", t).await.unwrap();
        }
        let e = attempt(&l, "ana@x.com", "2.2.2.2", 10).await.unwrap_err();
        assert_eq!(e.0.code, ErrorCode::RateLimited);
        // Three at once used the burst; the next one is due a third of the window after the
        // first.
        assert_eq!(e.0.retry_after_s, Some(20));
        assert!(e.0.message.contains("this account"), "{}", e.0.message);
        attempt(&l, "bia@x.com", "1.1.1.1", 10).await.unwrap();
        attempt(&l, "caio@x.com", "1.1.1.1", 10).await.unwrap();
        let e = attempt(&l, "dani@x.com", "1.1.1.1", 11).await.unwrap_err();
        assert!(e.0.message.contains("this address"), "{}", e.0.message);
        // The address refused it, so it did not count for the account either.
        for t in 11..14 {
            attempt(&l, "dani@x.com", "3.3.3.3", t).await.unwrap();
        }
        assert!(attempt(&l, "ana@x.com", "2.2.2.2", 19_999).await.is_err());
        assert!(
            attempt(&l, "ana@x.com", "2.2.2.2", 20_002).await.is_ok(),
            "one more each third of the window"
        );
        // Refused attempts never pushed the wait further.
        let e = attempt(&l, "ana@x.com", "2.2.2.2", 20_003)
            .await
            .unwrap_err();
        assert_eq!(e.0.retry_after_s, Some(20));
    }

    #[tokio::test]
    async fn on_a01_a_right_password_is_not_a_failure() {
        let l = limits();
        for t in 0..20 {
            attempt(&l, "ana@x.com", "1.1.1.1", t).await.unwrap();
            l.sign_in_right("ana@x.com", "1.1.1.1");
        }
        for t in 20..23 {
            attempt(&l, "ana@x.com", "1.1.1.1", t).await.unwrap();
        }
        assert!(attempt(&l, "ana@x.com", "1.1.1.1", 23).await.is_err());
    }

    #[test]
    fn on_a01_a_sweep_forgets_every_limits_old_keys() {
        let l = limits();
        let windows = [
            &l.failures_by_account,
            &l.failures_by_address,
            &l.signups_by_address,
            &l.rooms_by_address,
            &l.provider_pages_by_account,
            &l.mail_by_address,
            &l.exports_by_account,
            &l.reports_by_account,
        ];
        for w in windows {
            w.take("1.1.1.1", 0).unwrap();
        }
        l.sweep(10_000_000);
        for w in windows {
            assert_eq!(w.len(), 0, "{}", w.what);
        }
    }

    #[tokio::test]
    async fn on_a01_an_accounts_sign_ins_take_turns_and_leave_nothing_behind() {
        let l = limits();
        let first = l.sign_in_turns.turn("ana@x.com").await;
        // Another account's attempt does not wait for Ana's.
        let bia = l.sign_in_turns.turn("bia@x.com").await;
        drop(bia);
        let wait = std::time::Duration::from_millis(50);
        let next = tokio::time::timeout(wait, l.sign_in_turns.turn("ana@x.com")).await;
        assert!(next.is_err(), "Ana's next attempt waits for the first");
        drop(first);
        let second = l.sign_in_turns.turn("ana@x.com").await;
        assert_eq!(l.sign_in_turns.accounts().len(), 1);
        drop(second);
        assert!(l.sign_in_turns.accounts().is_empty());
        // An attempt whose request ends while it waits (its turn may have come meanwhile)
        // leaves nothing behind either.
        let first = l.sign_in_turns.turn("ana@x.com").await;
        let mut waiting = Box::pin(l.sign_in_turns.turn("ana@x.com"));
        assert!(futures_util::FutureExt::now_or_never(&mut waiting).is_none());
        drop(first);
        drop(waiting);
        assert!(l.sign_in_turns.accounts().is_empty());
    }

    #[test]
    fn on_a01_new_accounts_are_limited_per_address() {
        let l = limits();
        for t in 0..2 {
            l.signups_by_address.take("1.1.1.1", t).unwrap();
        }
        assert!(l.signups_by_address.take("1.1.1.1", 5).is_err());
        assert!(l.signups_by_address.take("2.2.2.2", 5).is_ok());
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
            w.take(&format!("{i}{}", "x".repeat(10_000)), i).unwrap();
        }
        assert_eq!(w.len(), 100);
        // A key under attack survives the flood of fresh ones: eviction takes keys nearest
        // to expiring, and this one is far from it.
        let w = Window::new(60_000, 5, 100, "failures");
        for t in 0..5 {
            w.take("victim", t).unwrap();
        }
        for i in 0..1000 {
            w.take(&format!("other-{i}"), 10 + i).unwrap();
        }
        assert!(w.take("victim", 2000).is_err(), "still limited");
        // Once every event is older than the window, a sweep forgets them all.
        w.sweep(2_000_000);
        assert_eq!(w.len(), 0);
    }
}
