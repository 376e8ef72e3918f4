//! Rate limits: failed sign-ins per account and per address, new accounts per address
//! (online.md ON-A01). Counted in memory: a restart forgets them, which only ever lets a
//! blocked client try again sooner.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName};
use velha_api::ErrorCode;

use crate::app::App;
use crate::error::AppError;

/// Keys whose events in a sliding window are limited.
pub struct Window {
    window_ms: i64,
    limit: usize,
    what: &'static str,
    events: Mutex<HashMap<String, VecDeque<i64>>>,
}

impl Window {
    /// At most `limit` events per key in `window_ms`; `what` names them in the refusal.
    pub fn new(window_ms: i64, limit: usize, what: &'static str) -> Window {
        Window {
            window_ms,
            limit,
            what,
            events: Mutex::new(HashMap::new()),
        }
    }

    /// Refuses when the key used up its events; says how long to wait.
    pub fn check(&self, key: &str, now: i64) -> Result<(), AppError> {
        let mut map = self.events.lock().unwrap_or_else(|e| e.into_inner());
        let Some(times) = map.get_mut(key) else {
            return Ok(());
        };
        while times.front().is_some_and(|t| now - t >= self.window_ms) {
            times.pop_front();
        }
        if times.len() < self.limit {
            return Ok(());
        }
        let oldest = times.front().copied().unwrap_or(now);
        let wait_s = ((oldest + self.window_ms - now).max(1000) + 999) / 1000;
        let mut e = AppError::new(
            ErrorCode::RateLimited,
            format!("{}; try again in {wait_s} s", self.what),
        );
        e.0.retry_after_s = Some(wait_s as u64);
        Err(e)
    }

    /// Counts an event.
    pub fn add(&self, key: &str, now: i64) {
        let mut map = self.events.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > 100_000 {
            let window = self.window_ms;
            map.retain(|_, times| times.back().is_some_and(|t| now - t < window));
        }
        map.entry(key.to_owned()).or_default().push_back(now);
    }

    /// Forgets a key's events.
    pub fn clear(&self, key: &str) {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
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
}

/// The client's address: the TCP peer, or behind a reverse proxy the last entry of the header
/// it writes (the entries before it come from the client and prove nothing).
pub fn client_address(peer: IpAddr, headers: &HeaderMap, header: Option<&HeaderName>) -> String {
    header
        .and_then(|h| headers.get(h))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .map(str::trim)
        .and_then(|last| last.parse::<IpAddr>().ok())
        .unwrap_or(peer)
        .to_string()
}

/// The address a request counts against.
pub struct ClientAddress(pub String);

impl FromRequestParts<Arc<App>> for ClientAddress {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, AppError> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip())
            .ok_or_else(|| AppError::new(ErrorCode::Internal, "no peer address"))?;
        Ok(ClientAddress(client_address(
            peer,
            &parts.headers,
            app.limits.forwarded_for.as_ref(),
        )))
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
        assert_eq!(client_address(peer, &headers, Some(&header)), "10.0.0.5");
        headers.insert(&header, "1.2.3.4, 203.0.113.9".parse().unwrap());
        assert_eq!(
            client_address(peer, &headers, None),
            "10.0.0.5",
            "not configured"
        );
        assert_eq!(client_address(peer, &headers, Some(&header)), "203.0.113.9");
        headers.insert(&header, "not an address".parse().unwrap());
        assert_eq!(client_address(peer, &headers, Some(&header)), "10.0.0.5");
    }

    fn limits() -> Limits {
        Limits {
            forwarded_for: None,
            failures_by_account: Window::new(
                60_000,
                3,
                "too many failed sign-ins for this account",
            ),
            failures_by_address: Window::new(
                60_000,
                5,
                "too many failed sign-ins from this address",
            ),
            signups_by_address: Window::new(60_000, 2, "too many new accounts from this address"),
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
        assert_eq!(e.0.retry_after_s, Some(60));
        assert!(e.0.message.contains("this account"), "{}", e.0.message);
        l.check_sign_in("bia@x.com", "1.1.1.1", 10).unwrap();
        l.failed_sign_in("bia@x.com", "1.1.1.1", 10);
        l.failed_sign_in("caio@x.com", "1.1.1.1", 10);
        let e = l.check_sign_in("dani@x.com", "1.1.1.1", 11).unwrap_err();
        assert!(e.0.message.contains("this address"), "{}", e.0.message);
        assert!(l.check_sign_in("dani@x.com", "3.3.3.3", 11).is_ok());
        assert!(
            l.check_sign_in("ana@x.com", "2.2.2.2", 60_001).is_ok(),
            "window slides"
        );
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
}
