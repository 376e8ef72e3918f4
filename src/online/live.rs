//! The live connection while the online screens are open (`connection.rs`): it says hello
//! (the session cookie on the web, the token on native), keeps the lobby list watched, sends
//! moves, and feeds what it hears to the screens' one reducer (`live_state.rs`).

use dioxus::prelude::*;
use velha_api::{ClientMsg, ErrorCode, LIVE_PATH, MatchState, ServerMsg};

pub use super::connection::Link;
use super::connection::{Connection, Heard, Talk, use_connection};
use super::live_state::LiveState;
use super::membership::{Membership, remember, use_membership};
use crate::platform;

/// The live connection, for the screens: what it said, where it stands, and a way to speak.
#[derive(Clone, Copy)]
pub struct Live {
    /// What the server said so far.
    pub state: Signal<LiveState>,
    /// Where the connection stands.
    pub link: Signal<Link>,
    connection: Connection<ClientMsg>,
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
        self.connection.send(msg);
    }
}

/// What the match connection says and makes of what it hears.
#[derive(Clone)]
struct MatchTalk {
    state: Signal<LiveState>,
    /// The lobby watch to renew on every new connection.
    watching: Option<ClientMsg>,
    /// The last move sent and not yet answered: a connection closed under it (a server
    /// restarting for a deploy reads no more) sends it again after its hello.
    unanswered: Option<ClientMsg>,
    /// Whether `unanswered` was sent again: its refusal then only means that the first one
    /// was committed or the match ended, which the welcome already showed.
    resent: bool,
}

impl MatchTalk {
    /// Whether `msg` answers the move left unanswered.
    fn answers_unanswered(&self, msg: &ServerMsg) -> bool {
        let Some(ClientMsg::Play {
            match_id: sent,
            ply: sent_ply,
            ..
        }) = &self.unanswered
        else {
            return false;
        };
        match msg {
            ServerMsg::Moved { match_id, ply, .. } => match_id == sent && ply > sent_ply,
            ServerMsg::Refused { match_id, .. } | ServerMsg::Ended { match_id, .. } => {
                match_id == sent
            }
            _ => false,
        }
    }
}

impl Talk for MatchTalk {
    type Out = ClientMsg;
    type In = ServerMsg;

    fn path(&self) -> String {
        LIVE_PATH.to_owned()
    }

    fn ping(&self) -> ClientMsg {
        ClientMsg::Ping
    }

    fn greeting(&self) -> Vec<ClientMsg> {
        let token = platform::session_token().unwrap_or_default();
        let mut hello = vec![ClientMsg::Hello { token }];
        hello.extend(self.watching.clone());
        hello.extend(self.unanswered.clone());
        hello
    }

    fn renewing(&mut self) {
        self.resent = self.unanswered.is_some();
    }

    fn sending(&mut self, msg: &ClientMsg) {
        match msg {
            ClientMsg::WatchLobby { .. } => self.watching = Some(msg.clone()),
            ClientMsg::UnwatchLobby => self.watching = None,
            ClientMsg::Play { .. } => {
                self.unanswered = Some(msg.clone());
                self.resent = false;
            }
            _ => {}
        }
    }

    async fn heard(&mut self, msg: ServerMsg) -> Heard {
        if self.answers_unanswered(&msg) {
            let resent = std::mem::take(&mut self.resent);
            self.unanswered = None;
            // A move sent again is refused when the first one was committed (stale) or the
            // match ended meanwhile: the welcome already showed the match as it is.
            if resent && matches!(msg, ServerMsg::Refused { .. }) {
                return Heard::Other;
            }
        }
        let heard = match msg {
            ServerMsg::Error {
                code: ErrorCode::Unauthorized,
                ..
            } => return Heard::SignedOut,
            ServerMsg::Welcome { .. } => Heard::Ready,
            _ => Heard::Other,
        };
        let was_live = self
            .state
            .peek()
            .game
            .as_ref()
            .and_then(|g| (g.view.state == MatchState::Live).then(|| g.view.id.clone()));
        let now = platform::now_ms();
        self.state.with_mut(|s| s.apply(msg, now));
        // A match that ended while this device was away is no longer in the welcome: its
        // result is asked for, to show how it ended.
        if let Some(id) = was_live
            && self.state.peek().game.is_none()
            && let Ok(view) = super::client::get_match(&id).await
        {
            let now = platform::now_ms();
            self.state
                .with_mut(|s| s.apply(ServerMsg::Started { view }, now));
        }
        heard
    }
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
    let state = use_signal(LiveState::default);
    let connection = use_connection(MatchTalk {
        state,
        watching: None,
        unanswered: None,
        resent: false,
    });
    Live {
        state,
        link: connection.link,
        connection,
    }
}
