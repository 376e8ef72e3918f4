//! The replay of a finished game (ON-P01): public to whoever holds its link, which is as
//! unguessable as the match's or the room's id. Only moves go out; the app rebuilds the
//! positions by the rules.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use velha_api::{
    EndHow, ErrorCode, MatchGame, MatchState, Replay, ReplayGame, ReplayMove, RoomPlayer, Seat,
};
use velha_rules::Player as Side;
use velha_rules::room::{self, RoomGame};

use crate::app::App;
use crate::error::{AppError, AppResult};
use crate::routes::rooms::read;

fn not_found(what: &str) -> AppError {
    AppError::new(
        ErrorCode::NotFound,
        format!("no finished game has this link ({what})"),
    )
}

#[utoipa::path(
    get,
    path = "/api/replays/{id}",
    tag = "replays",
    params(("id" = String, Path, description = "The match's id")),
    responses(
        (status = 200, description = "A finished cube or 2.0 competitive match, move by move", body = Replay),
        (status = 404, description = "No such match, or it has not finished", body = velha_api::ApiError),
    )
)]
/// A finished cube or 2.0 competitive match.
pub async fn of_match(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> AppResult<Json<Replay>> {
    let row = app
        .store
        .get_match(&id)
        .await?
        .ok_or_else(|| not_found("no such match"))?;
    let (Some(how), MatchState::Over) = (row.ending, row.state) else {
        return Err(not_found("the match has not finished"));
    };
    let moves = app.store.moves_of(&id).await?;
    let player = |name: String| RoomPlayer { name, avatar: None };
    Ok(Json(Replay {
        id: row.id.clone(),
        game: match row.game {
            MatchGame::Cube => ReplayGame::Cube { level: row.level },
            MatchGame::V2 => ReplayGame::V2 { starter: Seat::X },
        },
        x: player(row.x_name.clone()),
        o: player(row.o_name.clone().unwrap_or_default()),
        moves: moves
            .into_iter()
            .map(|(_, by, actions)| ReplayMove {
                by,
                actions: actions.split_whitespace().map(str::to_owned).collect(),
            })
            .collect(),
        winner: row.winner,
        how,
    }))
}

#[utoipa::path(
    get,
    path = "/api/replays/{id}/{game}",
    tag = "replays",
    params(
        ("id" = String, Path, description = "The room's id"),
        ("game" = String, Path, description = "The game's number in the room, 1 for the first"),
    ),
    responses(
        (status = 200, description = "A finished game of a room, move by move", body = Replay),
        (status = 400, description = "The game's number is not a number from 1", body = velha_api::ApiError),
        (status = 404, description = "No such room, or that game has not finished", body = velha_api::ApiError),
    )
)]
/// A finished game of a room, by its number.
pub async fn of_room_game(
    State(app): State<Arc<App>>,
    Path((id, game)): Path<(String, String)>,
) -> AppResult<Json<Replay>> {
    let number = game
        .parse::<u32>()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::BadRequest,
                format!("a room's game is numbered from 1, not {game:?}"),
            )
        })?;
    let row = read(&app, &id).await?;
    let r = &row.room;
    if number > r.series().games_played() {
        return Err(not_found("that game of the room has not finished"));
    }
    let recorded = app
        .store
        .room_game_moves(&id, i64::from(number - 1))
        .await?;
    let actions: Vec<(Side, &str)> = recorded
        .iter()
        .map(|(by, action)| (velha_rules::Player::from(*by), action.as_str()))
        .collect();
    let starter = r.series().starter_of(number - 1);
    let replayed = room::replay_game(r.game(), starter, &actions).map_err(|e| {
        tracing::error!(room = %id, game = number, error = %e, "a room's record does not replay");
        AppError::new(ErrorCode::DamagedRecord, "this game's record is damaged")
    })?;
    let Some((winner, how)) = replayed.ending else {
        tracing::error!(room = %id, game = number, "a finished game's record has no end");
        return Err(AppError::new(
            ErrorCode::DamagedRecord,
            "this game's record is damaged",
        ));
    };
    let starter = Seat::from(starter);
    let player = |symbol| {
        r.seat(r.seat_playing_in(number - 1, symbol)).map_or_else(
            || RoomPlayer {
                name: String::new(),
                avatar: None,
            },
            RoomPlayer::from,
        )
    };
    Ok(Json(Replay {
        id: format!("{id}/{number}"),
        game: match r.game() {
            RoomGame::Classic => ReplayGame::Classic { starter },
            RoomGame::Super => ReplayGame::Super { starter },
            RoomGame::V2 => ReplayGame::V2 { starter },
        },
        // The players as seated for that game: on 2.0 the creator is X every other game
        // (V2-R08).
        x: player(Side::X),
        o: player(Side::O),
        moves: recorded
            .into_iter()
            .filter(|(_, action)| action != room::RESIGN_ACTION && action != room::ABSENT_ACTION)
            .map(|(by, action)| ReplayMove {
                by,
                actions: vec![action],
            })
            .collect(),
        winner: winner.map(Seat::from),
        how: EndHow::from(how),
    }))
}
