//! Web Push (docs/push.md): notices queued off the request's path — a room's a moment after
//! the change unless the player is there to see it, a group's at once — at most one per seat
//! of a room (or per account and group) every few minutes, encrypted for each device (RFC 8291,
//! `aes128gcm`) and signed with the server's VAPID key (RFC 8292). A subscription the push
//! service says is gone is deleted; one that keeps failing is deleted after [`MOST_FAILURES`].
//! The rooms' quiet days are swept for what time alone tells: the other away long enough to
//! claim the game, the room closing tomorrow. A stopping process keeps the notices it has
//! not sent in the database, and whichever process looks next sends them.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::{aead, agreement, hkdf, rand::SecureRandom, rand::SystemRandom};
use sha2::Digest;
use tokio::sync::{Notify, Semaphore, mpsc};
use velha_rules::room::{IDLE_CLOSE_MS, RoomGame};

use crate::latest_told::LatestTold;
use crate::live::Hub;
use crate::push::{
    GroupAbout, Notice, Push, Quiet, RoomAbout, RoomNotice, quiet_notices, room_notice, still_holds,
};
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
/// How often the quiet rooms are swept, and how soon after the start (catching up on what
/// passed while no process ran).
const SWEEP_EVERY: Duration = Duration::from_secs(10 * 60);
const FIRST_SWEEP: Duration = Duration::from_secs(1);
/// Rooms looked at per kind and sweep: more wait for the next.
const SWEPT_MOST: i64 = 1_000;
/// How often each process looks for the notices that stopped processes kept, and how many it
/// takes at once.
const PENDING_EVERY: Duration = Duration::from_secs(5);
const PENDING_MOST: i64 = 1_000;
/// How long a stopping process waits for the pushes on their way, once it kept the rest.
const SENDING_AT_STOP: Duration = Duration::from_secs(5);

/// A notice waiting to be sent.
struct Queued {
    notice: Notice,
    /// When its wait ends.
    due: tokio::time::Instant,
    /// Its change is noted in [`LatestTold`]: not a notice a stopped process kept, nor a
    /// sweep's, whose changes were made elsewhere or long ago.
    noted: bool,
}

/// Queues notices for the sending task.
pub struct WebPush {
    queue: mpsc::Sender<Queued>,
    /// The last change each room with a notice waiting told of.
    latest: Arc<LatestTold>,
}

/// Notices this process dropped because the queue was full.
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Counts a notice the full queue refused (`what`). A full queue drops thousands a second (a
/// line each flooded the log for as long): the log says so each time the count doubles, the
/// metric counts every one.
fn dropped(what: &str) {
    metrics::counter!(crate::metrics::PUSH_DROPPED).increment(1);
    let dropped = DROPPED.fetch_add(1, Ordering::Relaxed) + 1;
    if dropped.is_power_of_two() {
        tracing::warn!(dropped, "the push queue is full: {what} dropped");
    }
}

/// Queues a notice whose change [`LatestTold`] does not hold (a kept or a swept one), counted
/// as dropped (`what`) when the queue is full.
fn queue_unnoted(
    queue: &mpsc::Sender<Queued>,
    notice: Notice,
    due: tokio::time::Instant,
    what: &str,
) {
    let noted = false;
    if queue.try_send(Queued { notice, due, noted }).is_err() {
        dropped(what);
    }
}

impl Push for WebPush {
    fn tell(&self, notice: Notice) {
        let due = tokio::time::Instant::now()
            + match notice {
                Notice::Room(_) => SETTLE,
                Notice::Group(_) => Duration::ZERO,
            };
        let queued = match &notice {
            Notice::Room(n) => {
                let (room, version) = (n.room.clone(), n.version);
                self.latest.tell(room, version, || {
                    let queued = Queued {
                        notice,
                        due,
                        noted: true,
                    };
                    self.queue.try_send(queued).is_ok()
                })
            }
            Notice::Group(_) => {
                let queued = Queued {
                    notice,
                    due,
                    noted: false,
                };
                self.queue.try_send(queued).is_ok()
            }
        };
        if !queued {
            dropped("notices are");
        }
    }
}

/// Stops the sending task at shutdown: what it has not sent is kept in the database for the
/// next process to send, so a restart (a deploy) loses no notice still in its wait.
pub struct Stopper {
    stop: Arc<Notify>,
    kept: Arc<Notify>,
    /// Read by the sweeps: a room marked swept after the sending stopped would not be told.
    stopping: Arc<AtomicBool>,
}

impl Stopper {
    /// Stops the sending, keeps what was not sent, and lets the pushes on their way finish:
    /// false if that took longer than `within`.
    pub async fn stop(self, within: Duration) -> bool {
        self.stopping.store(true, Ordering::Relaxed);
        self.stop.notify_one();
        tokio::time::timeout(within, self.kept.notified())
            .await
            .is_ok()
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
    /// Starts the sending task, and the sweeps of quiet rooms.
    pub fn start(sender: Sender) -> (WebPush, Stopper) {
        let (queue, rx) = mpsc::channel::<Queued>(QUEUE);
        let sender = Arc::new(sender);
        let stopper = Stopper {
            stop: Arc::new(Notify::new()),
            kept: Arc::new(Notify::new()),
            stopping: Arc::new(AtomicBool::new(false)),
        };
        let sweeper = (sender.clone(), queue.clone(), stopper.stopping.clone());
        tokio::spawn(async move {
            let (sender, queue, stopping) = sweeper;
            tokio::time::sleep(FIRST_SWEEP).await;
            while !stopping.load(Ordering::Relaxed) {
                if let Err(e) = sender.sweep(&queue).await {
                    tracing::error!(error = %e, "cannot sweep the quiet rooms");
                }
                tokio::time::sleep(SWEEP_EVERY).await;
            }
        });
        let (stop, kept) = (stopper.stop.clone(), stopper.kept.clone());
        let latest = Arc::new(LatestTold::default());
        tokio::spawn(sender.run(rx, queue.clone(), stop, kept, latest.clone()));
        let push = WebPush { queue, latest };
        (push, stopper)
    }
}

/// When each seat (or account and group) was last told, for [`QUIET_MS`], within
/// [`REMEMBERED`] seats.
#[derive(Default)]
struct Told(HashMap<String, i64>);

impl Told {
    /// Whether `key` may be told now (and, if so, it is remembered as told).
    fn may_tell(&mut self, key: String, now: i64) -> bool {
        if self.0.get(&key).is_some_and(|at| now - at < QUIET_MS) {
            return false;
        }
        if self.0.len() >= REMEMBERED {
            self.0.retain(|_, at| now - *at < QUIET_MS);
            // Still full: more seats told in the quiet minutes than it remembers. It forgets
            // them all rather than grow; a device may then hear twice.
            if self.0.len() >= REMEMBERED {
                self.0.clear();
            }
        }
        self.0.insert(key, now);
        true
    }
}

impl Sender {
    /// Sends what is queued, each when its wait is over, until stopped; then keeps the rest.
    /// Every [`PENDING_EVERY`] it takes what stopped processes kept.
    async fn run(
        self: Arc<Self>,
        mut rx: mpsc::Receiver<Queued>,
        queue: mpsc::Sender<Queued>,
        stop: Arc<Notify>,
        kept: Arc<Notify>,
        latest: Arc<LatestTold>,
    ) {
        let permits = Arc::new(Semaphore::new(SENDING));
        let mut told = Told::default();
        let mut look = tokio::time::interval(PENDING_EVERY);
        look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut unsent: Vec<Queued> = loop {
            let queued = tokio::select! {
                () = stop.notified() => break Vec::new(),
                _ = look.tick() => {
                    self.take_kept(&queue).await;
                    continue;
                }
                queued = rx.recv() => match queued {
                    Some(queued) => queued,
                    None => break Vec::new(),
                },
            };
            tokio::select! {
                () = stop.notified() => break vec![queued],
                () = tokio::time::sleep_until(queued.due) => {}
            }
            if let Notice::Room(n) = &queued.notice {
                let played_since = queued.noted && latest.taken(&n.room, n.version);
                if !self.still_to_tell(n, played_since).await {
                    continue;
                }
            }
            if !told.may_tell(quiet_key(&queued.notice), now_ms()) {
                continue;
            }
            // Every permit held by a hanging push service: the stop does not wait for one.
            let permit = tokio::select! {
                () = stop.notified() => break vec![queued],
                permit = permits.clone().acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => break vec![queued],
                },
            };
            let sender = self.clone();
            tokio::spawn(async move {
                sender.deliver(&queued.notice).await;
                drop(permit);
            });
        };
        while let Ok(queued) = rx.try_recv() {
            unsent.push(queued);
        }
        self.keep(&unsent).await;
        // The pushes on their way: a stopping process still sends them, for a while.
        let _ = tokio::time::timeout(SENDING_AT_STOP, permits.acquire_many(SENDING as u32)).await;
        kept.notify_one();
    }

    /// Keeps unsent notices in the database, each due when it was here.
    async fn keep(&self, unsent: &[Queued]) {
        if unsent.is_empty() {
            return;
        }
        let now = tokio::time::Instant::now();
        let kept: Vec<(i64, String)> = unsent
            .iter()
            .filter_map(|Queued { notice, due, .. }| {
                let wait = i64::try_from(due.saturating_duration_since(now).as_millis()).ok()?;
                Some((now_ms() + wait, serde_json::to_string(notice).ok()?))
            })
            .collect();
        match self.store.keep_pending(&kept).await {
            Ok(()) => tracing::info!(notices = kept.len(), "kept the unsent notices"),
            Err(e) => {
                tracing::error!(error = %e, notices = kept.len(), "cannot keep the unsent notices")
            }
        }
    }

    /// Queues the notices stopped processes kept, each with what is left of its wait.
    async fn take_kept(&self, queue: &mpsc::Sender<Queued>) {
        // No more than the queue holds now: a notice taken is one deleted from the database.
        let room = i64::try_from(queue.capacity())
            .unwrap_or(0)
            .min(PENDING_MOST);
        if room == 0 {
            return;
        }
        let taken = match self.store.take_pending(room).await {
            Ok(taken) => taken,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the kept notices");
                return;
            }
        };
        let now = now_ms();
        for (due, notice) in taken {
            let Ok(notice) = serde_json::from_str::<Notice>(&notice) else {
                tracing::error!(notice, "a kept notice does not read");
                continue;
            };
            let wait = Duration::from_millis(u64::try_from(due - now).unwrap_or(0));
            let due = tokio::time::Instant::now() + wait;
            queue_unnoted(queue, notice, due, "a kept notice is");
        }
    }

    /// Whether a room's notice is still news when its wait is over: nobody of the seat looks
    /// at the room, and what it tells still holds (a turn not played meanwhile). The room is
    /// read only for a turn not known to be `played_since` (its room told a newer change here).
    async fn still_to_tell(&self, n: &RoomNotice, played_since: bool) -> bool {
        if self
            .hub
            .seat_looking(&n.room, velha_api::Seat::from(n.seat))
            .await
        {
            return false;
        }
        if !n.about.is_a_turn() {
            return true;
        }
        if played_since {
            return false;
        }
        match self.store.room(&n.room).await {
            Ok(Some(row)) => still_holds(&row.room, n),
            // Unreadable now: told, as it was when it happened.
            _ => true,
        }
    }

    /// Tells what rooms quiet for days tell (docs/push.md). Every process sweeps; a quiet
    /// stretch is marked in the database by the one that tells it.
    async fn sweep(&self, queue: &mpsc::Sender<Queued>) -> Result<(), sqlx::Error> {
        let now = now_ms();
        let closes = i64::try_from(IDLE_CLOSE_MS).unwrap_or(i64::MAX);
        for quiet in Quiet::ALL {
            let after = i64::try_from(quiet.after_ms()).unwrap_or(i64::MAX);
            let rooms = self
                .store
                .rooms_to_sweep(quiet.name(), now - closes, now - after, SWEPT_MOST)
                .await?;
            let stretches: Vec<(&str, i64)> = rooms
                .iter()
                .map(|row| {
                    let activity = i64::try_from(row.room.last_activity_ms()).unwrap_or(0);
                    (row.id.as_str(), activity)
                })
                .collect();
            let marked: HashSet<String> = self
                .store
                .mark_swept(quiet.name(), &stretches)
                .await?
                .into_iter()
                .collect();
            for row in rooms.iter().filter(|row| marked.contains(&row.id)) {
                for (seat, about) in quiet_notices(&row.room, quiet) {
                    let notice = room_notice(&row.id, &row.room, row.version, seat, about);
                    let due = tokio::time::Instant::now();
                    queue_unnoted(queue, notice, due, "a quiet room's notice is");
                }
            }
        }
        // Stretches of rooms closed a day ago are no longer looked at.
        self.store
            .forget_sweeps(now - closes - 24 * 60 * 60 * 1000)
            .await
    }

    async fn deliver(&self, notice: &Notice) {
        let targets = match notice {
            Notice::Room(n) => self.store.push_targets(&n.room, &n.seat.to_string()).await,
            Notice::Group(n) => self.store.push_targets_of_account(&n.account).await,
        };
        let targets = match targets {
            Ok(t) => t,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the push subscriptions");
                return;
            }
        };
        // Each device at once: one hanging push service holds this delivery for one timeout,
        // not one per device.
        futures_util::future::join_all(
            targets.iter().map(|target| self.deliver_to(notice, target)),
        )
        .await;
    }

    async fn deliver_to(&self, notice: &Notice, target: &PushTarget) {
        let kept = match self.send(notice, target).await {
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

    async fn send(&self, notice: &Notice, target: &PushTarget) -> Sent {
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
            .header("Topic", topic(&topic_key(notice)))
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

/// What a notice is about, for its [`topic`]: a newer notice of the same key replaces an older
/// one on a device that is away (a seat of a room: its latest news is what matters).
fn topic_key(notice: &Notice) -> String {
    match notice {
        Notice::Room(n) => format!("room/{}/{}", n.room, n.seat),
        Notice::Group(n) => format!("group/{}/{}/{:?}", n.account, n.group, n.about),
    }
}

/// One notice per key in [`QUIET_MS`]: a seat hears of its turn once in a few minutes, but an
/// ending or a rematch asked right after a move is told too.
fn quiet_key(notice: &Notice) -> String {
    let kind = match notice {
        Notice::Room(n) => match n.about {
            RoomAbout::Turn | RoomAbout::Joined | RoomAbout::Began => "turn",
            RoomAbout::Ended(_) | RoomAbout::Resigned | RoomAbout::Absent => "ended",
            RoomAbout::Rematch => "rematch",
            RoomAbout::MayClaim => "away",
            RoomAbout::ClosesTomorrow(_) => "closing",
        },
        Notice::Group(_) => "group",
    };
    format!("{}/{kind}", topic_key(notice))
}

/// The game as a notification names it: as the app names it in each language (src/i18n.rs).
fn board_name(game: RoomGame, pt: bool) -> &'static str {
    match (game, pt) {
        (RoomGame::Classic, true) => "Jogo da Velha",
        (RoomGame::Classic, false) => "Tic-tac-toe",
        (RoomGame::Super, true) => "Super Jogo da Velha",
        (RoomGame::Super, false) => "Super Tic-tac-toe",
        (RoomGame::V2, true) => "Jogo da Velha 2.0",
        (RoomGame::V2, false) => "Tic-tac-toe 2.0",
    }
}

/// The title and body of a notice, in Portuguese or English.
fn words(notice: &Notice, pt: bool) -> (String, String) {
    match notice {
        Notice::Room(n) => {
            let (other, board) = (&n.other, board_name(n.game, pt));
            match (n.about, pt) {
                (RoomAbout::Turn, true) => {
                    ("Sua vez!".into(), format!("{other} jogou no {board}."))
                }
                (RoomAbout::Turn, false) => {
                    ("Your turn!".into(), format!("{other} moved in {board}."))
                }
                (RoomAbout::Joined, true) => (
                    "Sua vez!".into(),
                    format!("{other} entrou na sala do {board}: a partida começou."),
                ),
                (RoomAbout::Joined, false) => (
                    "Your turn!".into(),
                    format!("{other} joined the {board} room: the game has begun."),
                ),
                (RoomAbout::Began, true) => (
                    "Sua vez!".into(),
                    format!("{other} aceitou a revanche no {board}."),
                ),
                (RoomAbout::Began, false) => (
                    "Your turn!".into(),
                    format!("{other} accepted the rematch in {board}."),
                ),
                (RoomAbout::Ended(Some(false)), true) => (
                    format!("{other} venceu"),
                    format!("{other} venceu a partida do {board}."),
                ),
                (RoomAbout::Ended(Some(false)), false) => (
                    format!("{other} won"),
                    format!("{other} won the {board} game."),
                ),
                (RoomAbout::Ended(Some(true)), true) => (
                    "Você venceu!".into(),
                    format!("A partida do {board} com {other} acabou: você venceu."),
                ),
                (RoomAbout::Ended(Some(true)), false) => (
                    "You won!".into(),
                    format!("The {board} game with {other} is over: you won."),
                ),
                (RoomAbout::Ended(None), true) => (
                    "Deu velha!".into(),
                    format!("A partida do {board} com {other} terminou empatada."),
                ),
                (RoomAbout::Ended(None), false) => (
                    "A draw".into(),
                    format!("The {board} game with {other} ended in a draw."),
                ),
                (RoomAbout::Rematch, true) => (
                    "Revanche?".into(),
                    format!("{other} quer a revanche no {board}."),
                ),
                (RoomAbout::Rematch, false) => (
                    "Rematch?".into(),
                    format!("{other} asks for a rematch in {board}."),
                ),
                (RoomAbout::Resigned, true) => (
                    "Você venceu!".into(),
                    format!("{other} desistiu no {board}."),
                ),
                (RoomAbout::Resigned, false) => {
                    ("You won!".into(), format!("{other} resigned in {board}."))
                }
                (RoomAbout::Absent, true) => (
                    "Partida encerrada".into(),
                    format!("{other} encerrou a partida do {board} por sua ausência."),
                ),
                (RoomAbout::Absent, false) => (
                    "Game over".into(),
                    format!("{other} ended the {board} game because you were away."),
                ),
                (RoomAbout::MayClaim, true) => (
                    format!("{other} está ausente"),
                    format!(
                        "{other} não joga há 2 dias no {board}: você pode encerrar a partida e vencer."
                    ),
                ),
                (RoomAbout::MayClaim, false) => (
                    format!("{other} is away"),
                    format!(
                        "{other} has not played for 2 days in {board}: you may end the game and win."
                    ),
                ),
                (RoomAbout::ClosesTomorrow(true), true) => (
                    "A sala fecha amanhã".into(),
                    format!("A sala do {board} com {other} fecha amanhã se ninguém jogar."),
                ),
                (RoomAbout::ClosesTomorrow(true), false) => (
                    "The room closes tomorrow".into(),
                    format!("The {board} room with {other} closes tomorrow unless someone plays."),
                ),
                (RoomAbout::ClosesTomorrow(false), true) => (
                    "A sala fecha amanhã".into(),
                    format!(
                        "A sala do {board} com {other} fecha amanhã se ninguém começar outra partida."
                    ),
                ),
                (RoomAbout::ClosesTomorrow(false), false) => (
                    "The room closes tomorrow".into(),
                    format!(
                        "The {board} room with {other} closes tomorrow unless a new game begins."
                    ),
                ),
            }
        }
        Notice::Group(n) => {
            let (other, name) = (&n.other, &n.name);
            match (n.about, pt) {
                (GroupAbout::Invited, true) => (
                    "Convite para o Mini ranking".into(),
                    format!("{other} convidou você para o grupo {name}."),
                ),
                (GroupAbout::Invited, false) => (
                    "Mini ranking invitation".into(),
                    format!("{other} invited you to the group {name}."),
                ),
                (GroupAbout::MatchJoined, true) => (
                    "Sua partida começou!".into(),
                    format!("{other} entrou na sua partida do grupo {name}."),
                ),
                (GroupAbout::MatchJoined, false) => (
                    "Your match has begun!".into(),
                    format!("{other} joined your match in the group {name}."),
                ),
            }
        }
    }
}

/// What the notification shows, in the subscription's language, and where it opens: no move,
/// no credential.
pub fn payload(notice: &Notice, language: &str) -> String {
    let (title, body) = words(notice, !language.starts_with("en"));
    let (url, tag) = match notice {
        Notice::Room(n) => (format!("/sala/{}", n.room), format!("room-{}", n.room)),
        Notice::Group(n) => match n.about {
            GroupAbout::Invited => ("/grupos".to_owned(), format!("group-{}", n.group)),
            GroupAbout::MatchJoined => (
                format!("/grupos/{}/jogar", n.group),
                format!("group-{}", n.group),
            ),
        },
    };
    serde_json::json!({"title": title, "body": body, "url": url, "tag": tag}).to_string()
}

/// A notice replaces the one before it of the same key while the device is away: at most 32
/// characters of URL-safe base64 (RFC 8030), so a digest.
fn topic(key: &str) -> String {
    let digest = sha2::Sha256::digest(key.as_bytes());
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
    use crate::push::GroupNotice;

    #[test]
    fn classic_r09_a_notice_names_the_mover_and_the_room_and_nothing_else() {
        let notice = Notice::Room(RoomNotice {
            room: "r1".into(),
            seat: velha_rules::Player::O,
            other: "Ana".into(),
            game: RoomGame::Super,
            about: RoomAbout::Turn,
            activity: 0,
            version: 1,
        });
        let pt: serde_json::Value = serde_json::from_str(&payload(&notice, "pt-BR")).unwrap();
        assert_eq!(
            pt,
            serde_json::json!({"title": "Sua vez!", "body": "Ana jogou no Super Jogo da Velha.",
                "url": "/sala/r1", "tag": "room-r1"})
        );
        let en: serde_json::Value = serde_json::from_str(&payload(&notice, "en")).unwrap();
        assert_eq!(en["body"], "Ana moved in Super Tic-tac-toe.");
        let t = topic("room/a-room-id-that-is-long-enough-to-matter/O");
        assert_eq!(t.len(), 32);
        assert!(
            t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        );
        assert_ne!(t, topic("room/a-room-id-that-is-long-enough-to-matter/X"));
    }

    #[test]
    fn classic_r09_every_notice_reads_in_both_languages_and_leads_where_it_is_about() {
        let room = |about| {
            Notice::Room(RoomNotice {
                room: "r1".into(),
                seat: velha_rules::Player::X,
                other: "Bia".into(),
                game: RoomGame::Classic,
                about,
                activity: 0,
                version: 1,
            })
        };
        let read = |n: &Notice, l: &str| -> serde_json::Value {
            serde_json::from_str(&payload(n, l)).unwrap()
        };
        let told = read(&room(RoomAbout::MayClaim), "pt-BR");
        assert_eq!(told["title"], "Bia está ausente");
        assert_eq!(
            told["body"],
            "Bia não joga há 2 dias no Jogo da Velha: você pode encerrar a partida e vencer."
        );
        assert_eq!(told["url"], "/sala/r1");
        assert_eq!(
            read(&room(RoomAbout::ClosesTomorrow(true)), "en")["body"],
            "The Tic-tac-toe room with Bia closes tomorrow unless someone plays."
        );
        assert_eq!(
            read(&room(RoomAbout::Resigned), "pt-BR")["title"],
            "Você venceu!"
        );
        assert_eq!(
            read(&room(RoomAbout::Rematch), "en")["body"],
            "Bia asks for a rematch in Tic-tac-toe."
        );
        let group = |about| {
            Notice::Group(GroupNotice {
                account: "a1".into(),
                group: "g1".into(),
                name: "Amigos".into(),
                other: "Ana".into(),
                about,
            })
        };
        let invited = read(&group(GroupAbout::Invited), "pt-BR");
        assert_eq!(
            invited,
            serde_json::json!({"title": "Convite para o Mini ranking",
                "body": "Ana convidou você para o grupo Amigos.", "url": "/grupos", "tag": "group-g1"})
        );
        let joined = read(&group(GroupAbout::MatchJoined), "en");
        assert_eq!(joined["body"], "Ana joined your match in the group Amigos.");
        assert_eq!(joined["url"], "/grupos/g1/jogar");
        // Every kind has its own topic: an invitation never replaces the match's notice.
        assert_ne!(
            topic(&topic_key(&group(GroupAbout::Invited))),
            topic(&topic_key(&group(GroupAbout::MatchJoined)))
        );
    }

    /// CLASSIC-R09 in English: a notice names each game as the app's English does, never by
    /// its Portuguese name.
    #[test]
    fn classic_r09_english_notices_name_the_games_as_the_app_does() {
        let notice = |game, about| {
            Notice::Room(RoomNotice {
                room: "r1".into(),
                seat: velha_rules::Player::X,
                other: "Bia".into(),
                game,
                about,
                activity: 0,
                version: 1,
            })
        };
        let body = |game, about| -> String {
            let said: serde_json::Value =
                serde_json::from_str(&payload(&notice(game, about), "en-US")).unwrap();
            said["body"].as_str().unwrap().to_owned()
        };
        assert_eq!(
            body(RoomGame::Classic, RoomAbout::Turn),
            "Bia moved in Tic-tac-toe."
        );
        assert_eq!(
            body(RoomGame::Super, RoomAbout::Turn),
            "Bia moved in Super Tic-tac-toe."
        );
        assert_eq!(
            body(RoomGame::V2, RoomAbout::Turn),
            "Bia moved in Tic-tac-toe 2.0."
        );
        assert_eq!(
            body(RoomGame::V2, RoomAbout::Joined),
            "Bia joined the Tic-tac-toe 2.0 room: the game has begun."
        );
        let every = [
            RoomAbout::Turn,
            RoomAbout::Joined,
            RoomAbout::Began,
            RoomAbout::Ended(Some(false)),
            RoomAbout::Ended(Some(true)),
            RoomAbout::Ended(None),
            RoomAbout::Rematch,
            RoomAbout::Resigned,
            RoomAbout::Absent,
            RoomAbout::MayClaim,
            RoomAbout::ClosesTomorrow(true),
            RoomAbout::ClosesTomorrow(false),
        ];
        for game in [RoomGame::Classic, RoomGame::Super, RoomGame::V2] {
            for about in every {
                let said = payload(&notice(game, about), "en");
                assert!(!said.contains("Velha"), "{said}");
            }
        }
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
