//! A room's live connection (CLASSIC-R09, R13): anyone with the link watches; a seat's
//! credential plays. Every change reaches every connection of the room at once.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;
use futures_util::StreamExt;
use velha_api::{ErrorCode, MAX_LIVE_FRAME, RoomClientMsg, RoomServerMsg, Seat};

use super::connection::{Farewell, Outbox, READ_BUFFER, Speaks, carry, farewell_for};
use super::rooms::{act, seat_of, view};
use super::socket::HELLO_WITHIN;
use super::websocket::{Message, Upgrade, Utf8Bytes, WebSocket};
use crate::app::App;
use crate::live::{RoomWatch, room_frame};
use crate::move_trace::MoveTrace;
use crate::token::now_ms;

/// A room, live.
#[utoipa::path(
    get,
    path = "/api/rooms/{id}/live",
    tag = "rooms",
    params(("id" = String, Path, description = "The room id, from the link")),
    description = "Upgrades to a WebSocket carrying one JSON message per text frame: \
        RoomClientMsg from the app (first `hello`, with a seat's credential to play or empty \
        to watch), RoomServerMsg from the server (first the room, then the room after every \
        change). At most 50 spectators: the 51st hears room_full and the connection closes. \
        Spectators never play: their actions are refused.",
    responses(
        (status = 101, description = "Switching to the WebSocket"),
        (status = 400, description = "Not a WebSocket request"),
    )
)]
pub async fn live(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    upgrade: Upgrade,
) -> Response {
    upgrade
        .read_buffer_size(READ_BUFFER)
        .max_frame_size(MAX_LIVE_FRAME)
        .max_message_size(MAX_LIVE_FRAME)
        .on_upgrade(move |socket| session(app, id, Box::new(socket)))
}

fn text(msg: &RoomServerMsg) -> Message {
    Message::Text(room_frame(msg))
}

fn error(code: ErrorCode, message: impl Into<String>) -> RoomServerMsg {
    RoomServerMsg::Error {
        code,
        message: message.into(),
    }
}

/// Waits for `hello`: the seat its credential proves, `None` to watch, or why not.
async fn hello(
    app: &App,
    id: &str,
    socket: &mut WebSocket,
) -> Result<Option<Seat>, Farewell<RoomServerMsg>> {
    let first = tokio::time::timeout(HELLO_WITHIN, socket.next())
        .await
        .map_err(|_| error(ErrorCode::BadRequest, "say hello first"))?;
    if let Some(Err(e)) = &first
        && let Some(frame) = farewell_for(e)
    {
        return Err(Farewell::Close(frame));
    }
    let Some(Ok(Message::Text(t))) = first else {
        return Err(error(ErrorCode::BadRequest, "the first message must be hello").into());
    };
    let credential = match serde_json::from_str::<RoomClientMsg>(&t) {
        Ok(RoomClientMsg::Hello { credential }) => credential,
        Ok(_) => {
            return Err(error(ErrorCode::BadRequest, "the first message must be hello").into());
        }
        Err(e) => return Err(error(ErrorCode::BadRequest, format!("not a message: {e}")).into()),
    };
    let internal = |e: crate::error::AppError| {
        tracing::error!(error = ?e, "storage failed");
        error(ErrorCode::Internal, "storage failed")
    };
    if app
        .store
        .room(id)
        .await
        .map_err(|e| internal(e.into()))?
        .is_none()
    {
        return Err(error(ErrorCode::NotFound, "no room has this link").into());
    }
    match seat_of(app, id, &credential).await.map_err(internal)? {
        None if !credential.is_empty() => Err(error(
            ErrorCode::Unauthorized,
            "this credential holds no seat in this room; say hello without one to watch",
        )
        .into()),
        seat => Ok(seat),
    }
}

/// Sends the room as it is now to everyone watching it (the number watching changed), or to
/// the one connection `only` (its first view).
async fn send_room(app: &App, id: &str, only: Option<u64>) {
    if let Ok(Some((row, watching))) = app.hub.watched_room(id).await {
        let room = view(&row, None, watching, now_ms());
        match only {
            None => app.hub.room_changed(room, row.version).await,
            Some(watch) => app.hub.rooms.greet(watch, &room, row.version),
        }
    }
}

async fn session(app: Arc<App>, id: String, mut socket: Box<WebSocket>) {
    // A stop waits for the connection and for what it writes as it ends (`socket.rs`).
    let _working = app.hub.drain.working();
    // Boxed, as every step that reads the store, and so is a refusal: an idle
    // connection's task keeps room for whatever its future holds across an await, for the
    // connection's whole life (`connection.rs`).
    let seat = match Box::pin(hello(&app, &id, &mut socket))
        .await
        .map_err(Box::new)
    {
        Ok(seat) => seat,
        Err(farewell) => {
            Box::pin((*farewell).tell(&mut socket, text)).await;
            return;
        }
    };
    let spectating = seat.is_none();
    // A spectator's place is counted across processes (CLASSIC-R13's 50).
    let placed = if spectating {
        Box::pin(app.hub.spectate(&id)).await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "could not count a room's spectators");
            false
        })
    } else {
        true
    };
    let watch = placed.then(|| app.hub.rooms.watch(&id, seat)).flatten();
    let Some(watch) = watch else {
        if placed && spectating {
            Box::pin(app.hub.unspectate(&id)).await;
        }
        let full = match seat {
            None => error(ErrorCode::RoomFull, "the room has 50 spectators; try later"),
            Some(_) => error(ErrorCode::Conflict, "too many connections for this seat"),
        };
        Box::pin(Farewell::Say(full).tell(&mut socket, text)).await;
        return;
    };
    let watch_id = watch.id;
    // A spectator changes the number watching, which everyone (this connection included)
    // hears; a player's connection changes nothing the others see, so it alone hears the room.
    if let Some(seat) = seat {
        Box::pin(app.hub.seat_presence(&id, seat, true)).await;
    }
    Box::pin(send_room(&app, &id, (!spectating).then_some(watch_id))).await;
    serve(&app, &id, seat, socket, watch).await;
    app.hub.rooms.unwatch(&id, watch_id);
    // A process stopping for a deploy keeps its seats and places while they come back on
    // another (`Hub::hand_over` gives up what is left): a seat is not told away, nor pushed
    // its turn, for a restart.
    if app.hub.drain.is_on() && app.store.backend() == crate::store::Backend::Postgres {
        return;
    }
    if let Some(seat) = seat {
        Box::pin(app.hub.seat_presence(&id, seat, false)).await;
    }
    if spectating {
        Box::pin(app.hub.unspectate(&id)).await;
        Box::pin(send_room(&app, &id, None)).await;
    }
}

/// What a room's connection says: its frames are encoded once for every connection of the room
/// (`live/rooms.rs`).
struct RoomSpeaker<'a> {
    app: &'a App,
    id: &'a str,
    seat: Option<Seat>,
}

impl Speaks for RoomSpeaker<'_> {
    type Out = Utf8Bytes;

    const KIND: &'static str = "room";

    fn frame(out: &Utf8Bytes) -> Utf8Bytes {
        out.clone()
    }

    fn bad_request(why: String) -> Utf8Bytes {
        room_frame(&error(ErrorCode::BadRequest, why))
    }

    async fn answer(&mut self, t: Utf8Bytes) -> Option<Utf8Bytes> {
        let answer = match serde_json::from_str::<RoomClientMsg>(&t) {
            Err(e) => Some(error(ErrorCode::BadRequest, format!("not a message: {e}"))),
            Ok(RoomClientMsg::Hello { .. }) => {
                Some(error(ErrorCode::BadRequest, "already said hello"))
            }
            Ok(RoomClientMsg::Ping) => Some(RoomServerMsg::Pong),
            Ok(RoomClientMsg::Act { act: what }) => match self.seat {
                None => Some(error(
                    ErrorCode::Forbidden,
                    "spectators watch; only the room's two players play",
                )),
                // Done: the room's change reaches this connection with everyone's.
                Some(you) => MoveTrace::traced(
                    self.app.move_trace.as_ref(),
                    act(self.app, self.id, you, &what),
                    |acted| {
                        let (row, _) = acted.as_ref().ok()?;
                        Some(format!("room {} {}", row.id, row.ply))
                    },
                )
                .await
                .err()
                .map(|e| e.to_room_msg()),
            },
        };
        answer.map(|a| room_frame(&a))
    }
}

/// Carries the connection (`connection.rs`) until either side ends it.
async fn serve(app: &App, id: &str, seat: Option<Seat>, socket: Box<WebSocket>, watch: RoomWatch) {
    let RoomWatch { rx, tx, close, .. } = watch;
    let outbox = Outbox {
        rx,
        tx,
        close,
        drain: app.hub.drain.clone(),
    };
    carry(socket, outbox, app.silence, RoomSpeaker { app, id, seat }).await;
}
