//! A room on this device: the seats' credentials it keeps (ON-R05), and the room's live
//! connection, which brings every change as it happens (CLASSIC-R09) and comes back by itself
//! after a dropped connection, waiting longer each time (1, 2, 4, 8 s).

use std::pin::pin;

use dioxus::prelude::*;
use futures_util::FutureExt;
use velha_api::{ErrorCode, RoomClientMsg, RoomServerMsg, RoomView};

use crate::platform::{self, Socket};

/// Where the device keeps its seats: (room id, credential), the latest first.
const KEY: &str = "room-seats";
/// Seats kept; the server looks up at most this many at once.
const KEPT: usize = 100;
/// A ping this often keeps idle proxies from closing the connection, and a connection that
/// says nothing for `SILENT_MS` (not even the pong) is given up and opened again: a phone that
/// changed networks keeps a socket that no longer reaches the server.
const PING_MS: u32 = 4_000;
/// See [`PING_MS`].
const SILENT_MS: f64 = 10_000.0;
/// The longest wait between two tries.
const MAX_WAIT_S: u32 = 8;

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

/// A room's live connection, for the screen.
#[derive(Clone, Copy, PartialEq)]
pub struct RoomLink {
    /// The room as last heard.
    pub room: Signal<Option<RoomView>>,
    /// Whether the connection is open.
    pub up: Signal<bool>,
    /// Why the server would not let this connection watch (the room is full, unknown…).
    pub refused: Signal<Option<ErrorCode>>,
}

enum Step {
    Arrived(Option<String>),
    Ping,
}

/// Watches the room for as long as the calling component lives: as the seat of `credential`,
/// or as a spectator without one.
pub fn use_room_live(id: String, credential: Option<String>) -> RoomLink {
    let mut room = use_signal(|| None::<RoomView>);
    let mut up = use_signal(|| false);
    let mut refused = use_signal(|| None::<ErrorCode>);
    use_future(move || {
        let (id, credential) = (id.clone(), credential.clone());
        async move {
            let path = format!("/api/rooms/{id}/live");
            let hello = RoomClientMsg::Hello {
                credential: credential.unwrap_or_default(),
            };
            let hello = serde_json::to_string(&hello).unwrap_or_default();
            let ping = serde_json::to_string(&RoomClientMsg::Ping).unwrap_or_default();
            let mut wait_s = 1;
            loop {
                if let Some(mut socket) = Socket::open_path(&path).await {
                    socket.send(&hello);
                    up.set(true);
                    let mut heard_at = platform::now_ms();
                    loop {
                        let step = {
                            let mut arrived = pin!(socket.next().fuse());
                            let mut tick = pin!(platform::sleep_ms(PING_MS).fuse());
                            futures_util::select! {
                                text = arrived => Step::Arrived(text),
                                () = tick => Step::Ping,
                            }
                        };
                        match step {
                            Step::Ping if platform::now_ms() - heard_at > SILENT_MS => break,
                            Step::Ping => socket.send(&ping),
                            Step::Arrived(None) => break,
                            Step::Arrived(Some(text)) => {
                                heard_at = platform::now_ms();
                                match serde_json::from_str::<RoomServerMsg>(&text) {
                                    Ok(RoomServerMsg::Room { room: r }) => {
                                        wait_s = 1;
                                        refused.set(None);
                                        room.set(Some(r));
                                    }
                                    Ok(RoomServerMsg::Error { code, .. }) => {
                                        refused.set(Some(code));
                                    }
                                    Ok(RoomServerMsg::Pong) | Err(_) => {}
                                }
                            }
                        }
                    }
                    up.set(false);
                }
                platform::sleep_ms(wait_s * 1000).await;
                wait_s = (wait_s * 2).min(MAX_WAIT_S);
            }
        }
    });
    RoomLink { room, up, refused }
}
