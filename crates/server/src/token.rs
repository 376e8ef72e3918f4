//! Random ids and secrets, and the server's clock.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// `bytes` random bytes from the operating system, URL-safe base64 without padding.
pub fn random_text(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The OS generator failing means the machine cannot make secrets at all: stop.
    getrandom::fill(&mut buf).expect("the operating system's random generator failed");
    URL_SAFE_NO_PAD.encode(buf)
}

/// A new id for an account or a match (96 random bits: unguessable, short in URLs).
pub fn new_id() -> String {
    random_text(12)
}

/// A new session token (256 random bits).
pub fn new_token() -> String {
    random_text(32)
}

/// What the database keeps of a token: its SHA-256, so a stolen database opens no session.
pub fn token_hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// Milliseconds from `now` until `t` (both ms since the epoch), 0 once `t` has passed.
pub fn ms_until(t: i64, now: i64) -> u64 {
    u64::try_from(t - now).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_distinct_and_hashed() {
        let a = new_token();
        let b = new_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
        assert_eq!(new_id().len(), 16);
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), token_hash(&b));
        assert_eq!(token_hash("abc"), token_hash("abc"));
    }
}
