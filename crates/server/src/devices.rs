//! What a player is shown of where a session was opened: the kind of device in a few words,
//! made from the User-Agent (which is never kept), and the country a trusted proxy names
//! (the address is never kept either).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::extract::FromRequestParts;
use axum::http::header::USER_AGENT;
use axum::http::request::Parts;

use crate::app::App;

/// The kind of device and the country of a request that opens a session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Device {
    /// "Chrome · Android", "App · Linux"…, when the User-Agent tells.
    pub kind: Option<String>,
    /// ISO 3166 two letters, from the header `--country-header` names.
    pub country: Option<String>,
}

impl FromRequestParts<Arc<App>> for Device {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Device, Infallible> {
        let header = |name| parts.headers.get(name).and_then(|v| v.to_str().ok());
        Ok(Device {
            kind: header(&USER_AGENT).and_then(kind_of),
            country: app
                .country_header
                .as_ref()
                .and_then(header)
                .and_then(country_of),
        })
    }
}

/// How often a session's last use is written at most.
pub const SEEN_EVERY_MS: i64 = 10 * 60_000;
/// Sessions remembered as written lately, at most.
const SEEN_KEPT: usize = 50_000;

/// The sessions whose last use this process wrote lately, by their tokens' hashes: a use is
/// written at most every [`SEEN_EVERY_MS`]. Full, the memory starts over (a few sessions are
/// then written again early), so no number of sessions grows it.
#[derive(Default)]
pub struct Seen(Mutex<HashMap<String, i64>>);

impl Seen {
    /// Whether the session's use at `now` is to be written; if so it counts as written.
    pub fn due(&self, token_hash: &str, now: i64) -> bool {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if seen
            .get(token_hash)
            .is_some_and(|at| now - at < SEEN_EVERY_MS)
        {
            return false;
        }
        if seen.len() >= SEEN_KEPT {
            seen.retain(|_, at| now - *at < SEEN_EVERY_MS);
            if seen.len() >= SEEN_KEPT {
                seen.clear();
            }
        }
        seen.insert(token_hash.to_owned(), now);
        true
    }
}

/// A country code as proxies write it, if it names a country ("XX", "T1" — unknown, Tor —
/// and anything not two letters do not).
fn country_of(value: &str) -> Option<String> {
    let code = value.trim().to_ascii_uppercase();
    velha_api::is_country(&code).then_some(code)
}

/// The kind of device a User-Agent names: the browser (or the app) and the system.
pub fn kind_of(agent: &str) -> Option<String> {
    let system = [
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("CrOS", "ChromeOS"),
        ("Windows", "Windows"),
        ("Macintosh", "Mac"),
        ("Mac OS X", "Mac"),
        ("Linux", "Linux"),
    ]
    .into_iter()
    .find(|(mark, _)| agent.contains(mark))
    .map(|(_, name)| name);
    // Order matters: Edge, Opera and Samsung's browser also say Chrome, and Chrome says Safari.
    let program = [
        ("CuboDaVelha/", "App"),
        ("Edg", "Edge"),
        ("OPR/", "Opera"),
        ("SamsungBrowser/", "Samsung Internet"),
        ("Firefox/", "Firefox"),
        ("FxiOS/", "Firefox"),
        ("CriOS/", "Chrome"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    .into_iter()
    .find(|(mark, _)| agent.contains(mark))
    .map(|(_, name)| name);
    match (program, system) {
        (Some(p), Some(s)) => Some(format!("{p} · {s}")),
        (Some(one), None) | (None, Some(one)) => Some(one.to_owned()),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a01_a_device_is_named_in_a_few_words_and_a_country_only_when_it_is_one() {
        for (agent, kind) in [
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) \
                 Chrome/131.0.0.0 Mobile Safari/537.36",
                Some("Chrome · Android"),
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 \
                 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
                Some("Safari · iPhone"),
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) \
                 Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                Some("Edge · Windows"),
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
                Some("Firefox · Linux"),
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) \
                 SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36",
                Some("Samsung Internet · Android"),
            ),
            ("CuboDaVelha/0.1.0 (Linux)", Some("App · Linux")),
            ("curl/8.5.0", None),
            ("", None),
        ] {
            assert_eq!(kind_of(agent).as_deref(), kind, "{agent}");
        }
        assert_eq!(country_of(" br").as_deref(), Some("BR"));
        let seen = Seen::default();
        assert!(seen.due("a", 0));
        assert!(!seen.due("a", SEEN_EVERY_MS - 1));
        assert!(seen.due("a", SEEN_EVERY_MS));
        assert!(seen.due("b", 1));
        for unknown in ["XX", "T1", "", "BRA", "<script>"] {
            assert_eq!(country_of(unknown), None, "{unknown}");
        }
    }
}
