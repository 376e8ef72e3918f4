//! Invitation rooms (ON-R01 … ON-R05, CLASSIC-R08 … R13): free and without an account. The
//! link holds the room's id; a seat is proved by the credential the device keeps. Anyone with
//! the link watches live; only the two seats play.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use velha_api::{
    CreateRoom, Ending, ErrorCode, JoinRoom, RoomAct, RoomAction, RoomBoard, RoomLookup,
    RoomPlayer, RoomSeat, RoomStarter, RoomView, Seat,
};
use velha_rules::room::{
    ABSENCE_MS, ABSENT_ACTION, IDLE_CLOSE_MS, Joined, RESIGN_ACTION, Room, RoomError,
};
use velha_rules::{Player as Side, Status};

use crate::app::App;
use crate::auth::Player;
use crate::error::{AppError, AppResult, Json};
use crate::limits::ClientAddress;
use crate::live::RoomNews;
use crate::move_trace::{self, Stage};
use crate::push;
use crate::store::{RoomRow, RoomSave, row_after_join};
use crate::text::check_text;
use crate::token::{coin, new_ordered_id, new_seat_credential, now_ms, seat_key};

/// A room read again this many times when other changes keep coming first.
const TRIES: usize = 8;
/// The header a seat's credential travels in when reading a room.
pub const CREDENTIAL_HEADER: &str = "x-room-credential";
/// Credentials a device may look up at once.
const MAX_LOOKUP: usize = 100;

/// The rules' refusal as the API's.
fn refused(e: RoomError) -> AppError {
    AppError::new(ErrorCode::from(&e), e.to_string())
}

fn no_room() -> AppError {
    AppError::new(ErrorCode::NotFound, "no room has this link")
}

fn ms(t: i64) -> u64 {
    u64::try_from(t).unwrap_or(0)
}

/// A pair kept by seat (the creator's, the guest's), in the order of the symbols they play.
fn by_symbol<T>(creator_plays: Side, [creator, guest]: [T; 2]) -> [T; 2] {
    match creator_plays {
        Side::X => [creator, guest],
        Side::O => [guest, creator],
    }
}

/// The room as the holder of seat `you` (the creator's X, the guest's O) sees it at `now`,
/// with `spectators` watching: in the symbols of the game on the table (V2-R08).
pub fn view(row: &RoomRow, you: Option<Seat>, spectators: u32, now: i64) -> RoomView {
    let r = &row.room;
    let player = |symbol: Side| r.playing(symbol).map(RoomPlayer::from);
    let status = r.board().status();
    let playing = r.seat(Side::O).is_some() && r.ending().is_none();
    let idle = ms(now).saturating_sub(r.last_activity_ms());
    let score = r.series().score();
    let creator_plays = r.plays(Side::X);
    let [x_wins, o_wins] = by_symbol(creator_plays, [score.wins, score.losses]);
    RoomView {
        id: row.id.clone(),
        board: r.game().into(),
        x: player(Side::X).unwrap_or(RoomPlayer {
            name: String::new(),
            avatar: None,
        }),
        o: player(Side::O),
        creator_plays: Seat::from(creator_plays),
        starter: Seat::from(r.series().starter_of(r.game_on_table())),
        you: you.map(|s| Seat::from(r.plays(Side::from(s)))),
        position: r.board().to_string(),
        ply: u32::try_from(row.ply).unwrap_or(0),
        to_move: match status {
            Status::Ongoing(p) if playing => Some(Seat::from(p)),
            _ => None,
        },
        ending: r.ending().map(Ending::from),
        rematch: by_symbol(creator_plays, r.rematch_asked()),
        series: [x_wins, o_wins, score.draws],
        games: r.series().games_played(),
        spectators,
        idle_ms: idle,
        claim_in_ms: playing.then(|| (ABSENCE_MS + 1).saturating_sub(idle)),
        closes_in_ms: IDLE_CLOSE_MS.saturating_sub(idle),
        closed: r.is_closed(ms(now)),
    }
}

pub(crate) async fn read(app: &App, id: &str) -> AppResult<RoomRow> {
    app.store.room(id).await?.ok_or_else(no_room)
}

/// The room and how many watch it.
async fn read_watched(app: &App, id: &str) -> AppResult<(RoomRow, u32)> {
    app.hub.watched_room(id).await?.ok_or_else(no_room)
}

/// The news of a change about to be saved: the room as everyone watching it will see it.
fn news(app: &App, row: &RoomRow, watching: u32, now: i64) -> RoomNews {
    app.hub
        .room_news(view(row, None, watching, now), row.version)
}

/// Hands the push sender what a change tells the seats (CLASSIC-R09, docs/push.md): the
/// turn, a rematch asked, a resignation, an absence claimed.
fn tell_seats(app: &App, before: &Room, row: &RoomRow) {
    for (seat, about) in push::room_notices(before, &row.room) {
        app.push.tell(push::room_notice(
            &row.id,
            &row.room,
            row.version,
            seat,
            about,
        ));
    }
}

/// Carries out the action of seat `you`, reading the room again when another change came
/// first; the room after it, and how many watch it.
pub async fn act(app: &App, id: &str, you: Seat, act: &RoomAct) -> AppResult<(RoomRow, u32)> {
    for _ in 0..TRIES {
        let now = now_ms();
        let (before, watching) = read_watched(app, id).await?;
        let mut after = before.room.clone();
        let at = ms(now);
        // Recorded by the symbol it was made with, which the replay checks turns by.
        let by = Seat::from(before.room.plays(Side::from(you)));
        let (action, new_game) = match act {
            RoomAct::Play { cell } => {
                after
                    .play(Side::from(you), cell.trim(), at)
                    .map_err(refused)?;
                (Some(cell.trim().to_owned()), false)
            }
            RoomAct::Resign => {
                after.resign(Side::from(you), at).map_err(refused)?;
                (Some(RESIGN_ACTION.to_owned()), false)
            }
            RoomAct::ClaimAbsence => {
                after.claim_absence(Side::from(you), at).map_err(refused)?;
                (Some(ABSENT_ACTION.to_owned()), false)
            }
            RoomAct::Rematch => (None, after.rematch(Side::from(you), at).map_err(refused)?),
        };
        let mut save = RoomSave {
            before: &before,
            after: &after,
            action: action.as_deref().map(|a| (by, a)),
            new_game,
            now,
            told: None,
        };
        let news = news(app, &save.row_after(), watching, now);
        save.told = news.record();
        move_trace::stamp(Stage::CommitStart);
        let saved = app.store.save_room(&save).await?;
        move_trace::stamp(Stage::CommitEnd);
        if let Some(row) = saved {
            app.hub.room_saved(news).await;
            move_trace::stamp(Stage::Told);
            tell_seats(app, &before.room, &row);
            return Ok((row, watching));
        }
    }
    Err(AppError::new(
        ErrorCode::Conflict,
        "the room keeps changing; try again",
    ))
}

/// Rooms as their seat sees them, now.
async fn seated_views(app: &App, rooms: &[(RoomRow, Seat)]) -> Vec<RoomView> {
    let now = now_ms();
    let ids: Vec<&str> = rooms.iter().map(|(row, _)| row.id.as_str()).collect();
    let watching = app.hub.spectators_of(&ids).await;
    rooms
        .iter()
        .zip(watching)
        .map(|((row, you), watching)| view(row, Some(*you), watching, now))
        .collect()
}

/// The seat a credential proves in a room, if any.
pub async fn seat_of(app: &App, id: &str, credential: &str) -> AppResult<Option<Seat>> {
    if credential.is_empty() || credential.len() > 128 {
        return Ok(None);
    }
    Ok(app.store.room_seat(id, &seat_key(credential)).await?)
}

/// Makes a room; its creator sits as X (CLASSIC-R08). Super's first game may be O's, or the
/// coin's, which the server tosses (SUPER-R05). Signed in, it is listed under the account too
/// (ON-R05).
#[utoipa::path(
    post,
    path = "/api/rooms",
    tag = "rooms",
    request_body = CreateRoom,
    responses(
        (status = 201, description = "The room and the creator's credential", body = RoomSeat),
        (status = 400, description = "A bad name (bad_name; offensive_name or reserved_name for a word it holds), a missing or needless character, a starter other than X off the Super board", body = velha_api::ApiError),
        (status = 429, description = "Too many new rooms from this address", body = velha_api::ApiError),
    )
)]
pub async fn create(
    State(app): State<Arc<App>>,
    ClientAddress(address): ClientAddress,
    player: Option<Player>,
    Json(body): Json<CreateRoom>,
) -> AppResult<(StatusCode, Json<RoomSeat>)> {
    // A seat's name is shown to the other player and every spectator: invisible characters
    // would let a player look like someone else, or like nobody.
    check_text("the name", &body.name, ErrorCode::BadName)?;
    crate::auth::allowed_words("the name", body.name.trim())?;
    let now = now_ms();
    let starter = match body.starter {
        RoomStarter::X => Side::X,
        RoomStarter::O => Side::O,
        // Drawn here, never by the app: neither player can pick the toss they claim was made.
        RoomStarter::CoinToss if body.board == RoomBoard::Super => {
            if coin() {
                Side::O
            } else {
                Side::X
            }
        }
        RoomStarter::CoinToss => return Err(refused(RoomError::StarterFixed)),
    };
    let room = Room::create(
        body.board.into(),
        &body.name,
        body.avatar.map(Into::into),
        starter,
        ms(now),
    )
    .map_err(refused)?;
    app.limits.rooms_by_address.take(&address, now)?;
    let id = new_ordered_id(now);
    let credential = new_seat_credential(now);
    let board_name = match body.board {
        RoomBoard::Classic => "classic",
        RoomBoard::Super => "super",
        RoomBoard::V2 => "v2",
    };
    let row = app
        .store
        .create_room(
            &id,
            board_name,
            &room,
            &seat_key(&credential),
            player.as_ref().map(|p| p.account.id.as_str()),
            now,
        )
        .await
        .inspect_err(|_| app.limits.rooms_by_address.give_back(&address))?;
    Ok((
        StatusCode::CREATED,
        Json(RoomSeat {
            room: view(&row, Some(Seat::X), 0, now),
            credential,
        }),
    ))
}

/// A room as anyone with its link sees it; with a seat's credential in X-Room-Credential,
/// `you` names the seat.
#[utoipa::path(
    get,
    path = "/api/rooms/{id}",
    tag = "rooms",
    params(("id" = String, Path, description = "The room id, from the link")),
    responses(
        (status = 200, body = RoomView),
        (status = 404, body = velha_api::ApiError),
    )
)]
pub async fn get(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> AppResult<Json<RoomView>> {
    let (row, watching) = read_watched(&app, &id).await?;
    let credential = headers
        .get(CREDENTIAL_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let you = seat_of(&app, &id, credential).await?;
    Ok(Json(view(&row, you, watching, now_ms())))
}

/// Takes the free seat, O (CLASSIC-R08); once both are taken the link only watches.
#[utoipa::path(
    post,
    path = "/api/rooms/{id}/join",
    tag = "rooms",
    params(("id" = String, Path, description = "The room id, from the link")),
    request_body = JoinRoom,
    responses(
        (status = 201, description = "Seated as O, with the seat's credential", body = RoomSeat),
        (status = 400, body = velha_api::ApiError),
        (status = 404, body = velha_api::ApiError),
        (status = 409, description = "Both seats taken (watch instead), avatar_taken, room_closed", body = velha_api::ApiError),
    )
)]
pub async fn join(
    State(app): State<Arc<App>>,
    player: Option<Player>,
    Path(id): Path<String>,
    Json(body): Json<JoinRoom>,
) -> AppResult<(StatusCode, Json<RoomSeat>)> {
    check_text("the name", &body.name, ErrorCode::BadName)?;
    crate::auth::allowed_words("the name", body.name.trim())?;
    let credential = new_seat_credential(now_ms());
    let hash = seat_key(&credential);
    for _ in 0..TRIES {
        let now = now_ms();
        let (before, watching) = read_watched(&app, &id).await?;
        let mut after = before.room.clone();
        match after
            .join(&body.name, body.avatar.map(Into::into), ms(now))
            .map_err(refused)?
        {
            Joined::Spectator => {
                return Err(AppError::new(
                    ErrorCode::Conflict,
                    "both seats are taken: open the room to watch",
                ));
            }
            Joined::Player(_) => {}
        }
        let account = player.as_ref().map(|p| p.account.id.as_str());
        let news = news(&app, &row_after_join(&before, &after), watching, now);
        if let Some(row) = app
            .store
            .take_room_seat(&before, &after, &hash, account, now, news.record())
            .await?
        {
            app.hub.room_saved(news).await;
            tell_seats(&app, &before.room, &row);
            return Ok((
                StatusCode::CREATED,
                Json(RoomSeat {
                    room: view(&row, Some(Seat::O), watching, now),
                    credential,
                }),
            ));
        }
    }
    Err(AppError::new(
        ErrorCode::Conflict,
        "the room keeps changing; try again",
    ))
}

/// A seated player's move, resignation, absence claim or rematch (CLASSIC-R09 … R12).
#[utoipa::path(
    post,
    path = "/api/rooms/{id}/act",
    tag = "rooms",
    params(("id" = String, Path, description = "The room id, from the link")),
    request_body = RoomAction,
    responses(
        (status = 200, description = "The room after it", body = RoomView),
        (status = 400, body = velha_api::ApiError),
        (status = 403, description = "The credential holds no seat here (spectators never play)", body = velha_api::ApiError),
        (status = 404, body = velha_api::ApiError),
        (status = 409, description = "not_your_turn, illegal_move, not_absent_yet, room_closed, or the game's state", body = velha_api::ApiError),
    )
)]
pub async fn act_route(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Json(body): Json<RoomAction>,
) -> AppResult<Json<RoomView>> {
    read(&app, &id).await?;
    let Some(you) = seat_of(&app, &id, &body.credential).await? else {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "this credential holds no seat in this room: spectators only watch",
        ));
    };
    let (row, watching) = act(&app, &id, you, &body.act).await?;
    Ok(Json(view(&row, Some(you), watching, now_ms())))
}

/// The rooms the signed-in player sits in, the latest first (ON-R05).
#[utoipa::path(
    get,
    path = "/api/rooms",
    tag = "rooms",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, body = [RoomView]),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn mine(State(app): State<Arc<App>>, player: Player) -> AppResult<Json<Vec<RoomView>>> {
    let rooms = app.store.rooms_of_account(&player.account.id).await?;
    Ok(Json(seated_views(&app, &rooms).await))
}

/// The rooms a device holds seats in, from its credentials (a guest's list, ON-R05).
#[utoipa::path(
    post,
    path = "/api/rooms/lookup",
    tag = "rooms",
    request_body = RoomLookup,
    responses(
        (status = 200, description = "The rooms found, the latest first; unknown credentials are left out", body = [RoomView]),
        (status = 400, description = "More than 100 credentials", body = velha_api::ApiError),
    )
)]
pub async fn lookup(
    State(app): State<Arc<App>>,
    Json(body): Json<RoomLookup>,
) -> AppResult<Json<Vec<RoomView>>> {
    if body.credentials.len() > MAX_LOOKUP {
        return Err(AppError::new(
            ErrorCode::BadRequest,
            format!("at most {MAX_LOOKUP} credentials at once"),
        ));
    }
    let hashes: Vec<String> = body
        .credentials
        .iter()
        .filter(|c| !c.is_empty() && c.len() <= 128)
        .map(|c| seat_key(c))
        .collect();
    let rooms = app.store.rooms_by_credentials(&hashes).await?;
    Ok(Json(seated_views(&app, &rooms).await))
}
