//! A room on this device: the seats' credentials it keeps (ON-R05), and the app's one room
//! connection (`connection.rs`), which brings every change of the room showing as it happens
//! (CLASSIC-R09) and moves from room to room with the player.

use dioxus::prelude::*;
use velha_api::{ErrorCode, RoomClientMsg, RoomServerMsg, RoomView};

use super::connection::{Heard, Link, Talk, use_connection};
use crate::platform;

/// Where the device keeps its seats: (room id, credential), the latest first.
const KEY: &str = "room-seats";
/// Seats kept; the server looks up at most this many at once.
const KEPT: usize = 100;

fn seats() -> Vec<(String, String)> {
    platform::load(KEY)
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

/// The credential of this device's seat in a room, if it has one.
pub fn credential(room: &str) -> Option<String> {
    seats()
        .into_iter()
        .find(|(id, _)| id == room)
        .map(|(_, c)| c)
}

/// The credentials of every seat this device keeps, the latest first.
pub fn credentials() -> Vec<String> {
    seats().into_iter().map(|(_, c)| c).collect()
}

/// The rooms this device holds seats in, the latest first.
pub fn rooms() -> Vec<String> {
    seats().into_iter().map(|(id, _)| id).collect()
}

/// Keeps the credential of a seat just taken.
pub fn keep(room: &str, credential: &str) {
    let mut all = seats();
    all.retain(|(id, _)| id != room);
    all.insert(0, (room.to_owned(), credential.to_owned()));
    all.truncate(KEPT);
    if let Ok(text) = serde_json::to_string(&all) {
        platform::save(KEY, &text);
    }
}

/// How long the app keeps its room connection open once no room screen shows: whoever comes
/// back to a room, or opens another, within it finds the connection already there (no new
/// TLS handshake for the server, no round trips for the phone).
const LINGER_MS: u32 = 60_000;

/// The room the last room screen showed: the screen's own number, the room, the seat's
/// credential (none to watch), and whether the screen still shows.
#[derive(Clone, PartialEq)]
struct Wanted {
    screen: u64,
    id: String,
    credential: Option<String>,
    showing: bool,
}

/// Where the connection should be: the room showing, and the seat's credential; none when no
/// room screen shows.
fn place_of(wanted: Option<&Wanted>) -> Option<(String, Option<String>)> {
    wanted
        .filter(|w| w.showing)
        .map(|w| (w.id.clone(), w.credential.clone()))
}

/// The app's one room connection, which the shell holds so that it outlives the room screens:
/// every room the player opens moves it there (`enter`) rather than opening another.
#[derive(Clone, Copy)]
pub struct RoomShared {
    /// The room the last room screen showed; none before the first.
    wanted: Signal<Option<Wanted>>,
    /// Whether the shell holds the connection: from the first room screen until `LINGER_MS`
    /// after the last.
    pub open: Signal<bool>,
    /// The room as last heard.
    room: Signal<Option<RoomView>>,
    /// Where the connection stands.
    link: Signal<Link>,
    /// Why the server would not let the connection in.
    refused: Signal<Option<ErrorCode>>,
}

/// The shell's, made once in its scope.
impl Default for RoomShared {
    fn default() -> RoomShared {
        RoomShared {
            wanted: Signal::new(None),
            open: Signal::new(false),
            room: Signal::new(None),
            link: Signal::new(Link::Connecting),
            refused: Signal::new(None),
        }
    }
}

/// A room's live connection, for the screen.
#[derive(Clone, Copy, PartialEq)]
pub struct RoomLink {
    /// The room as last heard.
    pub room: Memo<Option<RoomView>>,
    /// Where the connection stands.
    pub link: Signal<Link>,
    /// Why the server would not let this connection watch (the room is full, unknown…).
    pub refused: Signal<Option<ErrorCode>>,
}

/// What the room connection says and makes of what it hears: always of the room the app wants
/// now, so a connection that comes back says hello there, whatever it was told before.
#[derive(Clone)]
struct RoomTalk {
    shared: RoomShared,
}

impl RoomTalk {
    /// The room the last room screen showed, the seat's credential (empty to watch), and
    /// whether the screen still shows.
    fn wanted(&self) -> (String, String, bool) {
        self.shared
            .wanted
            .peek()
            .as_ref()
            .map(|w| {
                let credential = w.credential.clone().unwrap_or_default();
                (w.id.clone(), credential, w.showing)
            })
            .unwrap_or_default()
    }
}

impl Talk for RoomTalk {
    type Out = RoomClientMsg;
    type In = RoomServerMsg;

    fn path(&self) -> String {
        format!("/api/rooms/{}/live", self.wanted().0)
    }

    fn ping(&self) -> RoomClientMsg {
        RoomClientMsg::Ping
    }

    fn greeting(&self) -> Vec<RoomClientMsg> {
        let (_, credential, showing) = self.wanted();
        let hello = RoomClientMsg::Hello { credential };
        // A connection that comes back while no room screen shows opens in the last room, as
        // a path must name one, and leaves it at once.
        if showing {
            vec![hello]
        } else {
            vec![hello, RoomClientMsg::Leave]
        }
    }

    fn sending(&mut self, msg: &RoomClientMsg) {
        if matches!(msg, RoomClientMsg::Enter { .. } | RoomClientMsg::Leave) {
            // What was heard of a room before is stale by the time a screen shows it again:
            // the screen waits for the room as it is now.
            self.shared.room.set(None);
            self.shared.refused.set(None);
        }
    }

    async fn heard(&mut self, msg: RoomServerMsg) -> Heard {
        match msg {
            // A room left may still send a change or two after the move to another.
            RoomServerMsg::Room { room } if room.id == self.wanted().0 => {
                self.shared.refused.set(None);
                self.shared.room.set(Some(room));
                Heard::Ready
            }
            RoomServerMsg::Room { .. } => Heard::Ready,
            // Moved between rooms faster than a person does: the server closes, and the
            // connection comes back by itself in a second with the room wanted then.
            RoomServerMsg::Error {
                code: ErrorCode::RateLimited,
                ..
            } => Heard::Other,
            RoomServerMsg::Error { code, .. } => {
                self.shared.refused.set(Some(code));
                Heard::Other
            }
            RoomServerMsg::Pong => Heard::Other,
        }
    }
}

/// The room connection itself, in the shell: opened in the room of the screen that asked for
/// it, then moved to each room a screen shows, out of rooms when none shows, and closed
/// `LINGER_MS` after that.
#[component]
pub fn RoomConnection() -> Element {
    let mut shared = use_context::<RoomShared>();
    let connection = use_connection(RoomTalk { shared });
    // Where the connection was last told to be: at first what its greeting says.
    let mut told = use_hook(|| CopyValue::new(place_of(shared.wanted.peek().as_ref())));
    // Each move, counted: a linger ends the connection only if none came since it began.
    let mut moves = use_hook(|| CopyValue::new(0u64));
    let mut close = move || {
        shared.room.set(None);
        shared.refused.set(None);
        shared.open.set(false);
    };
    use_effect(move || {
        let place = place_of((shared.wanted)().as_ref());
        if *told.peek() != place {
            moves += 1;
            connection.send(match &place {
                Some((room, credential)) => RoomClientMsg::Enter {
                    room: room.clone(),
                    credential: credential.clone().unwrap_or_default(),
                },
                None => RoomClientMsg::Leave,
            });
            told.set(place.clone());
        }
        if place.is_none() {
            let at = *moves.peek();
            spawn(async move {
                platform::sleep_ms(LINGER_MS).await;
                if *moves.peek() == at {
                    close();
                }
            });
        }
    });
    let link = connection.link;
    use_effect(move || {
        let link = link();
        shared.link.set(link);
        // Lost while no room screen shows: not worth coming back for.
        let showing = shared.wanted.peek().as_ref().is_some_and(|w| w.showing);
        if matches!(link, Link::Down { .. }) && !showing {
            close();
        }
    });
    rsx! {}
}

/// A number for each room screen, unique in the app's life.
fn next_screen() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Watches the room for as long as the calling component lives, on the app's room connection:
/// as the seat of `credential`, or as a spectator without one.
pub fn use_room_live(id: String, credential: Option<String>) -> RoomLink {
    let mut shared = use_context::<RoomShared>();
    let screen = use_hook(next_screen);
    {
        let wanted = Wanted {
            screen,
            id: id.clone(),
            credential,
            showing: true,
        };
        use_effect(move || {
            shared.wanted.set(Some(wanted.clone()));
            shared.open.set(true);
        });
    }
    use_drop(move || {
        let mine = shared
            .wanted
            .peek()
            .as_ref()
            .is_some_and(|w| w.screen == screen);
        if mine {
            shared.wanted.with_mut(|w| {
                if let Some(w) = w {
                    w.showing = false;
                }
            });
        }
    });
    let room = use_memo(move || (shared.room)().filter(|r| r.id == id));
    RoomLink {
        room,
        link: shared.link,
        refused: shared.refused,
    }
}
