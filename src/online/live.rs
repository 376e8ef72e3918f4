//! The live connection while the online screens are open: it says hello (the session cookie
//! on the web, the token on native), keeps the lobby list watched, sends moves, and comes back
//! by itself after a dropped connection, waiting longer each time (1, 2, 4, 8 s).

use std::pin::pin;

use dioxus::prelude::*;
use futures_util::{FutureExt, StreamExt};
use velha_api::{ClientMsg, ErrorCode, MatchState, ServerMsg};

use super::live_state::LiveState;
use super::membership::{Membership, remember, use_membership};
use crate::platform::{self, Socket};

/// Where the connection stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Link {
    /// Opening it.
    Connecting,
    /// Open and signed in.
    Up,
    /// Lost at `since` (this device's milliseconds); the next try at `retry_at`.
    Down {
        /// When it was lost.
        since: f64,
        /// When it is tried again.
        retry_at: f64,
    },
    /// The server no longer knows the session.
    SignedOut,
}

/// The live connection, for the screens: what it said, where it stands, and a way to speak.
#[derive(Clone, Copy)]
pub struct Live {
    /// What the server said so far.
    pub state: Signal<LiveState>,
    /// Where the connection stands.
    pub link: Signal<Link>,
    commands: Coroutine<ClientMsg>,
}

/// One connection is the same connection (components take it as a property).
impl PartialEq for Live {
    fn eq(&self, other: &Live) -> bool {
        self.state == other.state && self.link == other.link
    }
}

impl Live {
    /// Sends a message (after the connection comes back, if it is down).
    pub fn send(&self, msg: ClientMsg) {
        self.commands.send(msg);
    }
}

/// The longest wait between two tries.
const MAX_WAIT_S: u32 = 8;
/// A ping this often keeps idle proxies from closing the connection, and shows a dead one: a
/// connection that says nothing for `SILENT_MS` is given up and opened again (a phone that
/// lost its network may not hear of it for minutes otherwise).
const PING_MS: u32 = 4_000;
/// See [`PING_MS`].
const SILENT_MS: f64 = 10_000.0;

enum Step {
    Arrived(Option<String>),
    Command(Option<ClientMsg>),
    Ping,
}

fn json(msg: &ClientMsg) -> String {
    // These plain types always serialise.
    serde_json::to_string(msg).unwrap_or_default()
}

/// The live connection of a screen for signed-in players: when the server no longer knows the
/// session, the device is signed out.
pub fn use_member_live() -> Live {
    let live = use_live();
    let mut membership = use_membership();
    use_effect(move || {
        if (live.link)() == Link::SignedOut {
            remember(false);
            membership.set(Membership::Guest);
        }
    });
    live
}

/// Opens the live connection for as long as the calling component lives.
pub fn use_live() -> Live {
    let mut state = use_signal(LiveState::default);
    let mut link = use_signal(|| Link::Connecting);
    let commands = use_coroutine(
        move |mut commands: UnboundedReceiver<ClientMsg>| async move {
            let mut wait_s = 1;
            // The lobby watch to renew on every new connection.
            let mut watching: Option<ClientMsg> = None;
            let mut lost_at: Option<f64> = None;
            loop {
                if let Some(mut socket) = Socket::open().await {
                    let token = platform::session_token().unwrap_or_default();
                    socket.send(&json(&ClientMsg::Hello { token }));
                    if let Some(watch) = &watching {
                        socket.send(&json(watch));
                    }
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
                            Step::Arrived(None) => break,
                            Step::Arrived(Some(text)) => {
                                heard_at = platform::now_ms();
                                let Ok(msg) = serde_json::from_str::<ServerMsg>(&text) else {
                                    continue;
                                };
                                match msg {
                                    ServerMsg::Error {
                                        code: ErrorCode::Unauthorized,
                                        ..
                                    } => {
                                        link.set(Link::SignedOut);
                                        return;
                                    }
                                    ServerMsg::Welcome { .. } => {
                                        link.set(Link::Up);
                                        wait_s = 1;
                                        lost_at = None;
                                    }
                                    _ => {}
                                }
                                let was_live = state.peek().game.as_ref().and_then(|g| {
                                    (g.view.state == MatchState::Live).then(|| g.view.id.clone())
                                });
                                let now = platform::now_ms();
                                state.with_mut(|s| s.apply(msg, now));
                                // A match that ended while this device was away is no longer
                                // in the welcome: its result is asked for, to show how it ended.
                                if let Some(id) = was_live
                                    && state.peek().game.is_none()
                                    && let Ok(view) = super::client::get_match(&id).await
                                {
                                    let now = platform::now_ms();
                                    state.with_mut(|s| s.apply(ServerMsg::Started { view }, now));
                                }
                            }
                            Step::Command(None) => return,
                            Step::Command(Some(command)) => {
                                match command {
                                    ClientMsg::WatchLobby { .. } => {
                                        watching = Some(command.clone())
                                    }
                                    ClientMsg::UnwatchLobby => watching = None,
                                    _ => {}
                                }
                                socket.send(&json(&command));
                            }
                            Step::Ping if platform::now_ms() - heard_at > SILENT_MS => break,
                            Step::Ping => socket.send(&json(&ClientMsg::Ping)),
                        }
                    }
                }
                let now = platform::now_ms();
                let since = *lost_at.get_or_insert(now);
                link.set(Link::Down {
                    since,
                    retry_at: now + f64::from(wait_s) * 1000.0,
                });
                // Still down (since the first loss) while trying again.
                platform::sleep_ms(wait_s * 1000).await;
                wait_s = (wait_s * 2).min(MAX_WAIT_S);
            }
        },
    );
    Live {
        state,
        link,
        commands,
    }
}
