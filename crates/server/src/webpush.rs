//! Web Push (docs/push.md): turn notices queued off the request's path, sent a moment after
//! the move unless the player is there to see it, at most one per seat of a room every few
//! minutes, encrypted for each of the seat's devices (RFC 8291, `aes128gcm`) and signed with
//! the server's VAPID key (RFC 8292). A subscription the push service says is gone is deleted;
//! one that keeps failing is deleted after [`MOST_FAILURES`].

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::{aead, agreement, hkdf, rand::SecureRandom, rand::SystemRandom};
use sha2::Digest;
use tokio::sync::{Semaphore, mpsc};
use velha_rules::room::RoomGame;

use crate::live::Hub;
use crate::push::{Push, TurnNotice};
use crate::store::{PushTarget, Store};
use crate::token::now_ms;
use crate::vapid::Vapid;

/// Notices waiting at most; past it the newest is dropped (and counted), so no burst of moves
/// can grow the queue.
pub const QUEUE: usize = 10_000;
/// How long after a move the notice waits: a player looking at the room sees the move, and
/// is not told again.
pub const SETTLE: Duration = Duration::from_secs(2);
/// One notice per seat of a room in this long at most.
pub const QUIET_MS: i64 = 3 * 60_000;
/// Failures in a row after which a subscription is deleted.
pub const MOST_FAILURES: i64 = 20;
/// Requests to push services at once.
const SENDING: usize = 32;
/// The seats remembered for [`QUIET_MS`] at most.
const REMEMBERED: usize = 100_000;

/// Queues notices for the sending task.
pub struct WebPush {
    queue: mpsc::Sender<(TurnNotice, tokio::time::Instant)>,
    /// Notices dropped because the queue was full.
    pub dropped: Arc<AtomicU64>,
}

impl Push for WebPush {
    fn turn(&self, notice: TurnNotice) {
        let due = tokio::time::Instant::now() + SETTLE;
        if self.queue.try_send((notice, due)).is_err() {
            let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(dropped, "the push queue is full: a turn notice is dropped");
        }
    }
}

/// What the sending task needs.
pub struct Sender {
    /// Where subscriptions are.
    pub store: Store,
    /// Who is connected to which room here.
    pub hub: Arc<Hub>,
    /// The signing key.
    pub vapid: Arc<Vapid>,
    /// The contact named in the signatures.
    pub subject: String,
    /// The HTTP client (a timeout of its own, so a hanging service holds one permit only).
    pub http: reqwest::Client,
}

impl WebPush {
    /// Starts the sending task.
    pub fn start(sender: Sender) -> WebPush {
        let (queue, mut rx) = mpsc::channel::<(TurnNotice, tokio::time::Instant)>(QUEUE);
        let sender = Arc::new(sender);
        tokio::spawn(async move {
            let permits = Arc::new(Semaphore::new(SENDING));
            let mut last: HashMap<(String, String), i64> = HashMap::new();
            while let Some((notice, due)) = rx.recv().await {
                tokio::time::sleep_until(due).await;
                let seat = crate::view::seat_of_player(notice.seat);
                if sender.hub.rooms.seat_connected(&notice.room, seat) {
                    continue;
                }
                let now = now_ms();
                let key = (notice.room.clone(), notice.seat.to_string());
                if last.get(&key).is_some_and(|at| now - at < QUIET_MS) {
                    continue;
                }
                if last.len() >= REMEMBERED {
                    last.retain(|_, at| now - *at < QUIET_MS);
                    // Still full: more seats told in the quiet minutes than it remembers. It
                    // forgets them all rather than grow; a device may then hear twice.
                    if last.len() >= REMEMBERED {
                        last.clear();
                    }
                }
                last.insert(key, now);
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    break;
                };
                let sender = sender.clone();
                tokio::spawn(async move {
                    sender.deliver(&notice).await;
                    drop(permit);
                });
            }
        });
        WebPush {
            queue,
            dropped: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl Sender {
    async fn deliver(&self, notice: &TurnNotice) {
        let targets = match self
            .store
            .push_targets(&notice.room, &notice.seat.to_string())
            .await
        {
            Ok(t) => t,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the push subscriptions");
                return;
            }
        };
        for target in targets {
            let ok = self.send(notice, &target).await;
            let kept = match ok {
                Sent::Taken => self.store.push_sent(&target.id).await,
                Sent::Gone => self.store.delete_push(&target.id).await.map(|_| ()),
                Sent::Failed(why) => {
                    tracing::warn!(subscription = %target.id, why, "a push failed");
                    self.store.push_failed(&target.id, MOST_FAILURES).await
                }
            };
            if let Err(e) = kept {
                tracing::error!(error = %e, "cannot keep a push's outcome");
            }
        }
    }

    async fn send(&self, notice: &TurnNotice, target: &PushTarget) -> Sent {
        let payload = payload(notice, &target.language);
        let Some(body) = encrypt(&target.p256dh, &target.auth, payload.as_bytes()) else {
            return Sent::Failed("the subscription's keys do not encrypt");
        };
        let Some(authorization) =
            self.vapid
                .authorization(&target.endpoint, &self.subject, now_ms() / 1000)
        else {
            return Sent::Failed("the endpoint is no URL");
        };
        let answer = self
            .http
            .post(&target.endpoint)
            .header("Authorization", authorization)
            .header("TTL", "86400")
            .header("Urgency", "normal")
            .header("Topic", topic(&notice.room, &notice.seat.to_string()))
            .header("Content-Encoding", "aes128gcm")
            .header("Content-Type", "application/octet-stream")
            .body(body)
            .send()
            .await;
        match answer.map(|a| a.status().as_u16()) {
            Ok(200..=202) => Sent::Taken,
            Ok(404 | 410) => Sent::Gone,
            Ok(_) => Sent::Failed("the push service refused"),
            Err(_) => Sent::Failed("the push service did not answer"),
        }
    }
}

enum Sent {
    Taken,
    Gone,
    Failed(&'static str),
}

/// What the notification shows, in the subscription's language, and where it opens: no move,
/// no credential.
pub fn payload(notice: &TurnNotice, language: &str) -> String {
    let pt = !language.starts_with("en");
    let board = match (notice.game, pt) {
        (RoomGame::Classic, true) => "Jogo da Velha",
        (RoomGame::Classic, false) => "Jogo da Velha (tic-tac-toe)",
        (RoomGame::Super, true) => "Super Jogo da Velha",
        (RoomGame::Super, false) => "Super Jogo da Velha (ultimate tic-tac-toe)",
        (RoomGame::V2, _) => "Jogo da Velha 2.0",
    };
    let (title, body) = if pt {
        ("Sua vez!", format!("{} jogou no {board}.", notice.mover))
    } else {
        ("Your turn!", format!("{} moved in {board}.", notice.mover))
    };
    serde_json::json!({
        "title": title,
        "body": body,
        "url": format!("/sala/{}", notice.room),
        "tag": format!("room-{}", notice.room),
    })
    .to_string()
}

/// A notice replaces the one before it for the same seat of the room, while the device is
/// away: at most 32 characters of URL-safe base64 (RFC 8030), so a digest.
fn topic(room: &str, seat: &str) -> String {
    let digest = sha2::Sha256::digest(format!("{room}/{seat}").as_bytes());
    URL_SAFE_NO_PAD.encode(digest)[..32].to_owned()
}

struct Length(usize);

impl hkdf::KeyType for Length {
    fn len(&self) -> usize {
        self.0
    }
}

fn expand(prk: &hkdf::Prk, info: &[&[u8]], length: usize) -> Option<Vec<u8>> {
    let mut out = vec![0u8; length];
    prk.expand(info, Length(length)).ok()?.fill(&mut out).ok()?;
    Some(out)
}

/// The body of a push (RFC 8291 over RFC 8188's `aes128gcm`): one record for the browser's
/// key `p256dh` and secret `auth`, from a fresh key of ours.
pub fn encrypt(p256dh: &str, auth: &str, plain: &[u8]) -> Option<Vec<u8>> {
    let ua_public = URL_SAFE_NO_PAD.decode(p256dh.trim_end_matches('=')).ok()?;
    let auth = URL_SAFE_NO_PAD.decode(auth.trim_end_matches('=')).ok()?;
    let rng = SystemRandom::new();
    let ours = agreement::EphemeralPrivateKey::generate(&agreement::ECDH_P256, &rng).ok()?;
    let our_public = ours.compute_public_key().ok()?;
    let our_public = our_public.as_ref().to_vec();
    let shared = agreement::agree_ephemeral(
        ours,
        &agreement::UnparsedPublicKey::new(&agreement::ECDH_P256, &ua_public),
        |secret| secret.to_vec(),
    )
    .ok()?;
    // The input key: the shared secret under the browser's auth secret, bound to both keys.
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, &auth).extract(&shared);
    let ikm = expand(&prk, &[b"WebPush: info\0", &ua_public, &our_public], 32)?;
    let mut salt = [0u8; 16];
    rng.fill(&mut salt).ok()?;
    let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, &salt).extract(&ikm);
    let cek = expand(&prk, &[b"Content-Encoding: aes128gcm\0"], 16)?;
    let nonce = expand(&prk, &[b"Content-Encoding: nonce\0"], 12)?;
    let key = aead::LessSafeKey::new(aead::UnboundKey::new(&aead::AES_128_GCM, &cek).ok()?);
    // The one record, and its delimiter: the last record's is 2.
    let mut record = plain.to_vec();
    record.push(2);
    key.seal_in_place_append_tag(
        aead::Nonce::try_assume_unique_for_key(&nonce).ok()?,
        aead::Aad::empty(),
        &mut record,
    )
    .ok()?;
    // The record size the others use: a push is at most 4 096 bytes whole.
    let record_size: u32 = 4096;
    let mut body = Vec::with_capacity(16 + 4 + 1 + our_public.len() + record.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&record_size.to_be_bytes());
    body.push(u8::try_from(our_public.len()).ok()?);
    body.extend_from_slice(&our_public);
    body.extend_from_slice(&record);
    Some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_r09_a_notice_names_the_mover_and_the_room_and_nothing_else() {
        let notice = TurnNotice {
            room: "r1".into(),
            seat: velha_rules::Player::O,
            mover: "Ana".into(),
            game: RoomGame::Super,
        };
        let pt: serde_json::Value = serde_json::from_str(&payload(&notice, "pt-BR")).unwrap();
        assert_eq!(
            pt,
            serde_json::json!({"title": "Sua vez!", "body": "Ana jogou no Super Jogo da Velha.",
                "url": "/sala/r1", "tag": "room-r1"})
        );
        let en: serde_json::Value = serde_json::from_str(&payload(&notice, "en")).unwrap();
        assert_eq!(
            en["body"],
            "Ana moved in Super Jogo da Velha (ultimate tic-tac-toe)."
        );
        let t = topic("a-room-id-that-is-long-enough-to-matter", "O");
        assert_eq!(t.len(), 32);
        assert!(
            t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_ne!(t, topic("a-room-id-that-is-long-enough-to-matter", "X"));
    }

    #[test]
    fn a_body_is_one_record_after_its_header() {
        let rng = SystemRandom::new();
        let ua = agreement::EphemeralPrivateKey::generate(&agreement::ECDH_P256, &rng).unwrap();
        let p256dh = URL_SAFE_NO_PAD.encode(ua.compute_public_key().unwrap().as_ref());
        let auth = URL_SAFE_NO_PAD.encode([7u8; 16]);
        let body = encrypt(&p256dh, &auth, b"hello").unwrap();
        // salt, record size, key length, our key, then the record: the text, its delimiter
        // and the 16-byte tag.
        assert_eq!(body.len(), 16 + 4 + 1 + 65 + 5 + 1 + 16);
        assert_eq!(body[20], 65);
        assert_eq!(u32::from_be_bytes(body[16..20].try_into().unwrap()), 4096);
        assert!(encrypt("AAAA", &auth, b"x").is_none(), "no P-256 point");
    }
}
