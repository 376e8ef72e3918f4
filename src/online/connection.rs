//! One live connection to the server that comes back by itself, whatever it carries (the
//! match, the lobby and 2.0 on `/api/live`, a room on its own path). It says its greeting on
//! every new connection, sends what the screen asks (after it comes back, if it is down), pings
//! every 4 s, gives up on a connection silent for 10 s (a phone that lost its network or
//! changed networks may not hear of it for minutes otherwise), and tries again after 1, 2, 4,
//! then 8 s — at once when the network comes back or the page is shown again, and within half a
//! second when the server closed it to restart (a deploy). What it hears goes to its [`Talk`].

use std::future::Future;
use std::pin::pin;

use dioxus::prelude::*;
use futures_util::{FutureExt, StreamExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::platform::{self, Socket};

/// Where the connection stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Link {
    /// Opening it.
    Connecting,
    /// Open, and the server answered its greeting.
    Up,
    /// Lost at `since` (this device's milliseconds); the next try at `retry_at`.
    Down {
        /// When it was lost.
        since: f64,
        /// When it is tried again.
        retry_at: f64,
    },
    /// The server ended it for good: it no longer knows the session.
    SignedOut,
}

/// What the server's message meant to the connection.
pub enum Heard {
    /// It answered the greeting: the connection is up.
    Ready,
    /// Anything else.
    Other,
    /// It no longer knows the session: the connection ends for good.
    SignedOut,
}

/// What one kind of live connection says and makes of what it hears.
pub trait Talk: Clone + 'static {
    /// What the app sends.
    type Out: Serialize + 'static;
    /// What the server sends.
    type In: DeserializeOwned + 'static;

    /// Where it connects, under the server's origin.
    fn path(&self) -> String;

    /// The ping.
    fn ping(&self) -> Self::Out;

    /// What every new connection says first: its hello, and whatever it must renew.
    fn greeting(&self) -> Vec<Self::Out>;

    /// A new connection just said its greeting.
    fn renewing(&mut self) {}

    /// The screen sends `msg`: remember what a new connection must renew.
    fn sending(&mut self, _msg: &Self::Out) {}

    /// What the server said.
    fn heard(&mut self, msg: Self::In) -> impl Future<Output = Heard>;
}

/// A live connection, for the screens: where it stands and a way to speak.
pub struct Connection<Out: 'static> {
    /// Where the connection stands.
    pub link: Signal<Link>,
    commands: Coroutine<Out>,
}

impl<Out> Clone for Connection<Out> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Out> Copy for Connection<Out> {}

impl<Out> Connection<Out> {
    /// Sends a message (after the connection comes back, if it is down).
    pub fn send(&self, msg: Out) {
        self.commands.send(msg);
    }
}

/// The longest wait between two tries.
const MAX_WAIT_S: u32 = 8;
/// A ping this often keeps idle proxies from closing the connection, and shows a dead one.
const PING_MS: u32 = 4_000;
/// A connection that says nothing this long (not even the pong) is given up and opened again.
const SILENT_MS: f64 = 10_000.0;
/// After the server's restart close: at least this long, plus up to this much more, before
/// connecting again.
const RESTART_SPREAD_MS: (u32, u32) = (20, 480);

enum Step<Out> {
    Arrived(Option<String>),
    Command(Option<Out>),
    Ping,
}

fn json(msg: &impl Serialize) -> String {
    // The API's plain types always serialise.
    serde_json::to_string(msg).unwrap_or_default()
}

/// Opens the live connection of `talk` for as long as the calling component lives.
pub fn use_connection<T: Talk>(talk: T) -> Connection<T::Out> {
    let mut link = use_signal(|| Link::Connecting);
    let commands = use_coroutine(move |mut commands: UnboundedReceiver<T::Out>| {
        let mut talk = talk.clone();
        async move {
            let mut wait_s = 1;
            let mut lost_at: Option<f64> = None;
            // Restart closes since the server last answered the greeting: past a few, the
            // usual waits apply, so a server that keeps closing is not asked every instant.
            let mut restarts = 0u32;
            loop {
                let mut restarting = false;
                if let Some(mut socket) = Socket::open_path(&talk.path()).await {
                    for msg in talk.greeting() {
                        socket.send(&json(&msg));
                    }
                    talk.renewing();
                    let mut heard_at = platform::now_ms();
                    loop {
                        let step = {
                            let mut arrived = pin!(socket.next().fuse());
                            let mut ping = pin!(platform::sleep_ms(PING_MS).fuse());
                            futures_util::select! {
                                text = arrived => Step::Arrived(text),
                                command = commands.next() => Step::Command(command),
                                () = ping => Step::Ping,
                            }
                        };
                        match step {
                            Step::Arrived(None) => {
                                restarting = socket.restarting();
                                break;
                            }
                            Step::Arrived(Some(text)) => {
                                heard_at = platform::now_ms();
                                let Ok(msg) = serde_json::from_str::<T::In>(&text) else {
                                    continue;
                                };
                                match talk.heard(msg).await {
                                    Heard::Ready => {
                                        link.set(Link::Up);
                                        restarts = 0;
                                        wait_s = 1;
                                        lost_at = None;
                                    }
                                    Heard::Other => {}
                                    Heard::SignedOut => {
                                        link.set(Link::SignedOut);
                                        return;
                                    }
                                }
                            }
                            Step::Command(None) => return,
                            Step::Command(Some(msg)) => {
                                talk.sending(&msg);
                                socket.send(&json(&msg));
                            }
                            Step::Ping if platform::now_ms() - heard_at > SILENT_MS => break,
                            Step::Ping => socket.send(&json(&talk.ping())),
                        }
                    }
                }
                if restarting && restarts < 3 {
                    restarts += 1;
                    // A deploy: another process takes the connection now. The spread keeps
                    // every player of the process from arriving in the same instant, and the
                    // screen does not say the connection was lost unless that try fails.
                    let spread = platform::random_seed() % u64::from(RESTART_SPREAD_MS.1);
                    platform::sleep_ms(RESTART_SPREAD_MS.0 + spread as u32).await;
                    continue;
                }
                let now = platform::now_ms();
                let since = *lost_at.get_or_insert(now);
                link.set(Link::Down {
                    since,
                    retry_at: now + f64::from(wait_s) * 1000.0,
                });
                // Still down (since the first loss) while trying again.
                let back = {
                    let mut wait = pin!(platform::sleep_ms(wait_s * 1000).fuse());
                    let mut back = pin!(platform::network_back().fuse());
                    futures_util::select! {
                        () = wait => false,
                        () = back => true,
                    }
                };
                wait_s = if back {
                    1
                } else {
                    (wait_s * 2).min(MAX_WAIT_S)
                };
            }
        }
    });
    Connection { link, commands }
}
