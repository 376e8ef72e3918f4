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

/// A fair coin from the operating system's generator: a room's toss for who begins
/// (SUPER-R05).
pub fn coin() -> bool {
    let mut byte = [0u8; 1];
    getrandom::fill(&mut byte).expect("the operating system's random generator failed");
    byte[0] & 1 == 1
}

/// A new id for an account or a match (96 random bits: unguessable, short in URLs).
pub fn new_id() -> String {
    random_text(12)
}

/// A new id that sorts after the ids made before it: its creation time in milliseconds (10
/// characters of lowercase base32, which sorts the same under any collation), then 96 random
/// bits. Rows keyed by such ids, and every index that leads with one, gain new entries at
/// their end, so the writes of rooms made about the same time share pages instead of each
/// touching a page of its own anywhere in the index.
pub fn new_ordered_id(now_ms: i64) -> String {
    let mut id = time_prefix(now_ms);
    id.push_str(&new_id());
    id
}

/// The lowercase base32 digits of ordered ids and credentials: they sort as their values.
const DIGITS: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// How long the time that leads ordered ids and seat credentials is.
const TIME_PREFIX: usize = 10;

/// `now_ms` as `TIME_PREFIX` base32 digits.
fn time_prefix(now_ms: i64) -> String {
    let t = u64::try_from(now_ms).unwrap_or(0);
    (0..TIME_PREFIX)
        .rev()
        .map(|i| char::from(DIGITS[((t >> (5 * i)) & 31) as usize]))
        .collect()
}

/// The time (ms since the epoch) an ordered id was made at; none for another id.
pub fn time_of(ordered_id: &str) -> Option<i64> {
    // The time, then `new_id`'s 12 random bytes in unpadded base64.
    const ORDERED_ID_LEN: usize = TIME_PREFIX + 16;
    if ordered_id.len() != ORDERED_ID_LEN {
        return None;
    }
    let prefix = ordered_id.get(..TIME_PREFIX)?;
    let t = prefix.bytes().try_fold(0u64, |t, b| {
        let digit = DIGITS.iter().position(|d| *d == b)?;
        Some(t << 5 | digit as u64)
    })?;
    i64::try_from(t).ok()
}

/// A new room seat's credential: its time (as an ordered id's), then 256 random bits.
pub fn new_seat_credential(now_ms: i64) -> String {
    let mut credential = time_prefix(now_ms);
    credential.push_str(&new_token());
    credential
}

/// What the database keeps of a seat's credential: its hash, led by the credential's time
/// when it has one (`new_seat_credential`'s), so that the index of seats by credential gains
/// new entries at its end like the rooms' ids. Keyed by the hash alone, each new seat wrote a
/// page of its own somewhere in that index: half of SQLite's writes per room played. A
/// credential issued before it had a time keeps its plain hash.
pub fn seat_key(credential: &str) -> String {
    let timed = credential.len() == TIME_PREFIX + TOKEN_LEN
        && credential.as_bytes()[..TIME_PREFIX]
            .iter()
            .all(|b| DIGITS.contains(b));
    let hash = token_hash(credential);
    if timed {
        format!("{}{hash}", &credential[..TIME_PREFIX])
    } else {
        hash
    }
}

/// A new session token (256 random bits).
pub fn new_token() -> String {
    random_text(TOKEN_BYTES)
}

/// A token's random bytes, and how many characters of base64 (unpadded) carry them.
const TOKEN_BYTES: usize = 32;
const TOKEN_LEN: usize = (TOKEN_BYTES * 4).div_ceil(3);

/// What the database keeps of a token: its SHA-256, so a stolen database opens no session.
pub fn token_hash(token: &str) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // Every room act and live hello hashes a credential: one string, not one per byte.
    let mut hex = String::with_capacity(64);
    for b in Sha256::digest(token.as_bytes()) {
        hex.push(DIGITS[usize::from(b >> 4)].into());
        hex.push(DIGITS[usize::from(b & 15)].into());
    }
    hex
}

/// The id a player sees of a session (to sign it out): made from its token's hash, so neither
/// the token nor the hash is ever shown, and nothing more is stored.
pub fn session_id(token_hash: &str) -> String {
    let digest = Sha256::digest(format!("session id {token_hash}").as_bytes());
    URL_SAFE_NO_PAD.encode(&digest[..12])
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
    fn an_ordered_id_says_when_it_was_made() {
        for t in [0, 1, 1_800_000_000_123, (1 << 50) - 1] {
            assert_eq!(time_of(&new_ordered_id(t)), Some(t));
        }
        assert_eq!(time_of("short"), None);
        assert_eq!(time_of(&new_id()), None, "an id of another kind");
        let mut foreign = new_ordered_id(5);
        foreign.replace_range(..1, "I");
        assert_eq!(time_of(&foreign), None, "not its digits");
    }

    #[test]
    fn a_tokens_hash_is_its_sha256_in_lower_case_hex_as_the_database_keeps_it() {
        // FIPS 180-2's example: a change of form would sign every player out.
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            token_hash(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn tokens_are_long_distinct_and_hashed() {
        let a = new_token();
        let b = new_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 43);
        assert_eq!(new_id().len(), 16);
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), token_hash(&b));
        assert_eq!(new_ordered_id(0).len(), 26);
    }

    #[test]
    fn ordered_ids_sort_by_their_time_and_keep_96_random_bits() {
        let times = [
            0,
            1,
            31,
            32,
            1_000,
            1_764_000_000_000,
            1_764_000_000_001,
            (1 << 50) - 1,
        ];
        let ids: Vec<String> = times.iter().map(|&t| new_ordered_id(t)).collect();
        for pair in ids.windows(2) {
            assert!(pair[0] < pair[1], "{pair:?}");
        }
        assert!(ids.iter().all(|id| velha_api::is_link_id(id)));
        let (a, b) = (new_ordered_id(7), new_ordered_id(7));
        assert_eq!(a[..10], b[..10]);
        assert_ne!(a[10..], b[10..]);
        assert_eq!(a[10..].len(), 16);
        assert_eq!(token_hash("abc"), token_hash("abc"));
    }

    #[test]
    fn seat_keys_sort_by_their_credentials_time_and_keep_credentials_made_before_them() {
        let times = [0, 1, 32, 1_764_000_000_000, 1_764_000_000_001];
        let credentials: Vec<String> = times.iter().map(|&t| new_seat_credential(t)).collect();
        let keys: Vec<String> = credentials.iter().map(|c| seat_key(c)).collect();
        for pair in keys.windows(2) {
            assert!(pair[0] < pair[1], "{pair:?}");
        }
        for (c, k) in credentials.iter().zip(&keys) {
            assert_eq!(c.len(), 53);
            assert_eq!(k[..10], c[..10]);
            assert_eq!(
                k[10..],
                token_hash(c),
                "the rest is the whole credential's hash"
            );
        }
        let (a, b) = (new_seat_credential(7), new_seat_credential(7));
        assert_ne!(seat_key(&a), seat_key(&b));
        // A credential of the old kind, or anything else sent as one, keys by its hash.
        let old = new_token();
        assert_eq!(seat_key(&old), token_hash(&old));
        let upper = credentials[3].to_uppercase();
        assert_eq!(seat_key(&upper), token_hash(&upper));
        assert_eq!(seat_key("é"), token_hash("é"));
    }
}
