//! A room on this device: the seats' credentials it keeps (ON-R05), and the room's live
//! connection (`connection.rs`), which brings every change as it happens (CLASSIC-R09).

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

/// A room's live connection, for the screen.
#[derive(Clone, Copy, PartialEq)]
pub struct RoomLink {
    /// The room as last heard.
    pub room: Signal<Option<RoomView>>,
    /// Where the connection stands.
    pub link: Signal<Link>,
    /// Why the server would not let this connection watch (the room is full, unknown…).
    pub refused: Signal<Option<ErrorCode>>,
}

/// What a room's connection says and makes of what it hears.
#[derive(Clone)]
struct RoomTalk {
    id: String,
    credential: Option<String>,
    room: Signal<Option<RoomView>>,
    refused: Signal<Option<ErrorCode>>,
}

impl Talk for RoomTalk {
    type Out = RoomClientMsg;
    type In = RoomServerMsg;

    fn path(&self) -> String {
        format!("/api/rooms/{}/live", self.id)
    }

    fn ping(&self) -> RoomClientMsg {
        RoomClientMsg::Ping
    }

    fn greeting(&self) -> Vec<RoomClientMsg> {
        vec![RoomClientMsg::Hello {
            credential: self.credential.clone().unwrap_or_default(),
        }]
    }

    async fn heard(&mut self, msg: RoomServerMsg) -> Heard {
        match msg {
            RoomServerMsg::Room { room } => {
                self.refused.set(None);
                self.room.set(Some(room));
                Heard::Ready
            }
            RoomServerMsg::Error { code, .. } => {
                self.refused.set(Some(code));
                Heard::Other
            }
            RoomServerMsg::Pong => Heard::Other,
        }
    }
}

/// Watches the room for as long as the calling component lives: as the seat of `credential`,
/// or as a spectator without one.
pub fn use_room_live(id: String, credential: Option<String>) -> RoomLink {
    let room = use_signal(|| None::<RoomView>);
    let refused = use_signal(|| None::<ErrorCode>);
    let connection = use_connection(RoomTalk {
        id,
        credential,
        room,
        refused,
    });
    RoomLink {
        room,
        link: connection.link,
        refused,
    }
}
