//! A room's live connection (CLASSIC-R09, R13): anyone with the link watches; a seat's
//! credential plays. Every change reaches every connection of the room at once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::response::Response;
use futures_util::StreamExt;
use velha_api::{ErrorCode, MAX_LIVE_FRAME, RoomAct, RoomClientMsg, RoomServerMsg, Seat};

use super::connection::{Farewell, Outbox, READ_BUFFER, Speaks, carry, farewell_for};
use super::rooms::{act, seat_of, view};
use super::socket::HELLO_WITHIN;
use super::websocket::{Message, Upgrade, Utf8Bytes, WebSocket};
use crate::app::App;
use crate::live::{RoomLine, room_frame};
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
        to watch; later `enter` moves the connection to another room, `leave` to none), \
        RoomServerMsg from the server (first the room, then the room after every change). At \
        most 50 spectators: the 51st hears room_full. A refused hello or enter is told why, \
        then the connection closes. Spectators never play: their actions are refused.",
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

/// Waits for `hello`: the room's credential (empty to watch), or why not.
async fn hello(socket: &mut WebSocket) -> Result<String, Farewell<RoomServerMsg>> {
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
    match serde_json::from_str::<RoomClientMsg>(&t) {
        Ok(RoomClientMsg::Hello { credential }) => Ok(credential),
        Ok(_) => Err(error(ErrorCode::BadRequest, "the first message must be hello").into()),
        Err(e) => Err(error(ErrorCode::BadRequest, format!("not a message: {e}")).into()),
    }
}

/// The seat `credential` proves in room `id`, `None` to watch, or why not.
async fn seat_in(app: &App, id: &str, credential: &str) -> Result<Option<Seat>, RoomServerMsg> {
    // Its code says whether asking again may help (`internal`) or not (`damaged_record`).
    let failed = |e: crate::error::AppError| {
        tracing::error!(error = ?e, "storage failed");
        e.to_room_msg()
    };
    if app
        .store
        .room(id)
        .await
        .map_err(|e| failed(e.into()))?
        .is_none()
    {
        return Err(error(ErrorCode::NotFound, "no room has this link"));
    }
    match seat_of(app, id, credential).await.map_err(failed)? {
        None if !credential.is_empty() => Err(error(
            ErrorCode::Unauthorized,
            "this credential holds no seat in this room; without one, the connection watches",
        )),
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

/// Where a room connection is: the room, its seat there (none to watch), and its number in
/// the room's list.
struct Place {
    id: String,
    seat: Option<Seat>,
    watch: u64,
}

/// Puts the connection (`line`) in room `id` as `seat`, and sends it the room; or says why
/// the room has no place for it.
async fn enter(
    app: &App,
    id: String,
    seat: Option<Seat>,
    line: &RoomLine,
) -> Result<Place, RoomServerMsg> {
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
    let watch = placed
        .then(|| app.hub.rooms.watch(&id, seat, line))
        .flatten();
    let Some(watch) = watch else {
        if placed && spectating {
            Box::pin(app.hub.unspectate(&id)).await;
        }
        return Err(match seat {
            None => error(ErrorCode::RoomFull, "the room has 50 spectators; try later"),
            Some(_) => error(ErrorCode::Conflict, "too many connections for this seat"),
        });
    };
    // A spectator changes the number watching, which everyone (this connection included)
    // hears; a player's connection changes nothing the others see, so it alone hears the room.
    if let Some(seat) = seat {
        Box::pin(app.hub.seat_presence(&id, seat, true)).await;
    }
    Box::pin(send_room(app, &id, (!spectating).then_some(watch))).await;
    Ok(Place { id, seat, watch })
}

/// The connection leaves its room: the seat is no longer looking (its turns are pushed), a
/// spectator's place is given back and the others hear one fewer watch.
async fn leave(app: &App, place: Place) {
    app.hub.rooms.unwatch(&place.id, place.watch);
    if let Some(seat) = place.seat {
        Box::pin(app.hub.seat_presence(&place.id, seat, false)).await;
    } else {
        Box::pin(app.hub.unspectate(&place.id)).await;
        Box::pin(send_room(app, &place.id, None)).await;
    }
}

async fn session(app: Arc<App>, id: String, mut socket: Box<WebSocket>) {
    // A stop waits for the connection and for what it writes as it ends (`socket.rs`).
    let _working = app.hub.drain.working();
    // Boxed, as every step that reads the store, and so is a refusal: an idle
    // connection's task keeps room for whatever its future holds across an await, for the
    // connection's whole life (`connection.rs`).
    let (line, rx) = RoomLine::new();
    let entered = match Box::pin(hello(&mut socket)).await {
        Ok(credential) => match Box::pin(seat_in(&app, &id, &credential)).await {
            Ok(seat) => Box::pin(enter(&app, id, seat, &line)).await,
            Err(refused) => Err(refused),
        },
        Err(farewell) => {
            Box::pin(farewell.tell(&mut socket, text)).await;
            return;
        }
    };
    let place = match entered {
        Ok(place) => place,
        Err(refused) => {
            Box::pin(Farewell::Say(refused).tell(&mut socket, text)).await;
            return;
        }
    };
    let outbox = Outbox {
        rx,
        tx: line.tx.clone(),
        close: line.close.clone(),
        drain: app.hub.drain.clone(),
    };
    let mut speaker = RoomSpeaker {
        app: &app,
        place: Some(place),
        line,
        moves_free_at: Instant::now(),
    };
    carry(socket, outbox, app.silence, &mut speaker).await;
    let Some(place) = speaker.place else {
        return;
    };
    // A process stopping for a deploy keeps its seats and places while they come back on
    // another (`Hub::hand_over` gives up what is left): a seat is not told away, nor pushed
    // its turn, for a restart.
    if app.hub.drain.is_on() && app.store.backend() == crate::store::Backend::Postgres {
        app.hub.rooms.unwatch(&place.id, place.watch);
        return;
    }
    leave(&app, place).await;
}

/// A spectator's moves between rooms (`enter`, `leave`) a connection may make at once; then
/// one more each `MOVE_EVERY`. Such a move tells the rooms' watchers (up to 66 frames each),
/// which a connection could otherwise ask for as fast as it writes; the app moves at a
/// person's pace. A seat's move tells nobody else, and costs about what two actions do.
const MOVES_AT_ONCE: u32 = 10;
const MOVE_EVERY: Duration = Duration::from_secs(1);

fn too_fast() -> RoomServerMsg {
    error(
        ErrorCode::RateLimited,
        "this connection moved between rooms too often; wait a second",
    )
}

/// What a room's connection says: its frames are encoded once for every connection of the room
/// (`live/rooms.rs`).
struct RoomSpeaker<'a> {
    app: &'a App,
    /// The room it is in, if any: a refused `enter` leaves it in none.
    place: Option<Place>,
    line: RoomLine,
    /// When its moves between rooms are all spent again (a generic cell rate algorithm's
    /// theoretical arrival time).
    moves_free_at: Instant,
}

impl RoomSpeaker<'_> {
    /// Counts a move between rooms that tells others (one to or from a spectator's place):
    /// false when it must wait.
    fn paced(&mut self, watching_next: bool) -> bool {
        let watching_now = self.place.as_ref().is_some_and(|p| p.seat.is_none());
        if !watching_now && !watching_next {
            return true;
        }
        let now = Instant::now();
        let at = self.moves_free_at.max(now);
        if at - now > MOVE_EVERY * (MOVES_AT_ONCE - 1) {
            return false;
        }
        self.moves_free_at = at + MOVE_EVERY;
        true
    }

    /// `enter`: out of the room it is in, into `room`; or why not, and then the connection
    /// closes, as after a refused hello: the app's comes back by itself (after 1, 2, 4, then
    /// 8 s) and says hello to the room it wants then.
    async fn enter(&mut self, room: String, credential: &str) -> Option<RoomServerMsg> {
        let refused = self.entered(room, credential).await;
        if refused.is_some() {
            // After what it was told, which is already in its outbox (`connection.rs`).
            self.line.close.notify_one();
        }
        refused
    }

    async fn entered(&mut self, room: String, credential: &str) -> Option<RoomServerMsg> {
        if !self.paced(credential.is_empty()) {
            return Some(too_fast());
        }
        if let Some(place) = self.place.take() {
            leave(self.app, place).await;
        }
        let seat = match seat_in(self.app, &room, credential).await {
            Ok(seat) => seat,
            Err(refused) => return Some(refused),
        };
        match enter(self.app, room, seat, &self.line).await {
            Ok(place) => {
                self.place = Some(place);
                None
            }
            Err(refused) => Some(refused),
        }
    }

    async fn act(&self, what: &RoomAct) -> Option<RoomServerMsg> {
        let Some(Place { id, seat, .. }) = &self.place else {
            return Some(error(
                ErrorCode::BadRequest,
                "this connection is in no room; enter one first",
            ));
        };
        let Some(you) = *seat else {
            return Some(error(
                ErrorCode::Forbidden,
                "spectators watch; only the room's two players play",
            ));
        };
        // Done: the room's change reaches this connection with everyone's.
        MoveTrace::traced(
            self.app.move_trace.as_ref(),
            act(self.app, id, you, what),
            |acted| {
                let (row, _) = acted.as_ref().ok()?;
                Some(format!("room {} {}", row.id, row.ply))
            },
        )
        .await
        .err()
        .map(|e| e.to_room_msg())
    }
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
            Ok(RoomClientMsg::Hello { .. }) => Some(error(
                ErrorCode::BadRequest,
                "already said hello; enter moves the connection to another room",
            )),
            Ok(RoomClientMsg::Ping) => Some(RoomServerMsg::Pong),
            Ok(RoomClientMsg::Enter { room, credential }) => self.enter(room, &credential).await,
            Ok(RoomClientMsg::Leave) if !self.paced(false) => {
                self.line.close.notify_one();
                Some(too_fast())
            }
            Ok(RoomClientMsg::Leave) => {
                if let Some(place) = self.place.take() {
                    leave(self.app, place).await;
                }
                None
            }
            Ok(RoomClientMsg::Act { act: what }) => self.act(&what).await,
        };
        answer.map(|a| room_frame(&a))
    }
}
