//! The lobby of online cube matches (online.md ON-M01, ON-M02) and match lookups.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use velha_api::{
    CreateMatch, ErrorCode, LobbyQuery, MatchGame, MatchState, MatchView, OpenMatch, Playing, Scope,
};
use velha_rules::Cube;

use super::level;
use crate::app::App;
use crate::auth::Player;
use crate::error::{AppError, AppResult, Json, Query};
use crate::push::{GroupAbout, GroupNotice, Notice};
use crate::store::{AccountRow, GroupRow, LobbyList, MatchRow, SeatError};
use crate::token::{new_id, now_ms};
use crate::view;

fn subscriber(a: &AccountRow) -> AppResult<()> {
    super::subscribers_only(a, "online cube play is for subscribers only")
}

/// A stored match as a player sees it (clocks are exact only from the live task).
pub fn stored_view(row: &MatchRow, viewer: &str) -> MatchView {
    view::match_view(row, view::seat_of(row, viewer), None, now_ms())
}

pub(crate) fn open_match(row: &MatchRow, now: i64) -> OpenMatch {
    OpenMatch {
        id: row.id.clone(),
        creator: row.x_name.clone(),
        country: row.x_country.clone(),
        scope: row.scope,
        level: row.level,
        waiting_ms: u64::try_from(now - row.created_at).unwrap_or(0),
        group: row.group.clone(),
    }
}

/// The lobby list a match is in.
pub(crate) fn list_of(row: &MatchRow) -> LobbyList {
    LobbyList {
        scope: row.scope,
        level: row.level,
        group: row.group.clone(),
    }
}

/// Checks that the player takes part in the group and that its matches have started
/// (ON-G03: 2 participants); to anyone outside, the group does not exist (ON-G08).
pub(crate) async fn playing_group(app: &App, group: &str, account: &str) -> AppResult<GroupRow> {
    let g = app
        .store
        .group_for(group, account)
        .await?
        .ok_or_else(|| AppError::new(ErrorCode::NotFound, "no such group"))?;
    if g.members.len() < 2 {
        return Err(AppError::new(
            ErrorCode::GroupNotStarted,
            "the group's matches start once a second participant joins",
        ));
    }
    Ok(g)
}

pub(crate) fn seat_refused(e: SeatError) -> AppError {
    match e {
        SeatError::AlreadyPlaying => AppError::new(
            ErrorCode::AlreadyPlaying,
            "finish or cancel your open or live match first",
        ),
        SeatError::Gone => AppError::new(
            ErrorCode::Conflict,
            "someone else joined first, or the creator withdrew it",
        ),
        SeatError::GroupGone => AppError::new(
            ErrorCode::NotFound,
            "the group was finalized: its matches are gone",
        ),
        SeatError::Raced => AppError::new(
            ErrorCode::Conflict,
            "your requests crossed each other: ask again",
        ),
        SeatError::Db(e) => e.into(),
    }
}

/// Lists the open matches of a scope and level (Nacional: only of the player's country), or
/// of a group the player takes part in.
#[utoipa::path(
    get,
    path = "/api/lobby",
    tag = "lobby",
    params(LobbyQuery),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Open matches, oldest first", body = [OpenMatch]),
        (status = 400, body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
        (status = 403, description = "Not a subscriber", body = velha_api::ApiError),
        (status = 404, description = "No such group for this player", body = velha_api::ApiError),
    )
)]
pub async fn list(
    State(app): State<Arc<App>>,
    player: Player,
    Query(q): Query<LobbyQuery>,
) -> AppResult<Json<Vec<OpenMatch>>> {
    subscriber(&player.account)?;
    level(q.level)?;
    if let Some(group) = &q.group
        && app
            .store
            .group_for(group, &player.account.id)
            .await?
            .is_none()
    {
        return Err(AppError::new(ErrorCode::NotFound, "no such group"));
    }
    let now = now_ms();
    let list = LobbyList {
        scope: q.scope,
        level: q.level,
        group: q.group,
    };
    let rows = app
        .store
        .open_matches(&list, &player.account.country)
        .await?;
    Ok(Json(rows.iter().map(|r| open_match(r, now)).collect()))
}

/// Creates a match and waits in the lobby as X (ON-M02), or in a group's list (ON-G03); the
/// WebSocket says when someone joins.
#[utoipa::path(
    post,
    path = "/api/lobby",
    tag = "lobby",
    request_body = CreateMatch,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 201, description = "The match, waiting", body = OpenMatch),
        (status = 400, body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
        (status = 403, description = "Not a subscriber", body = velha_api::ApiError),
        (status = 404, description = "No such group for this player", body = velha_api::ApiError),
        (status = 409, description = "Already in a match, or group_not_started", body = velha_api::ApiError),
    )
)]
pub async fn create(
    State(app): State<Arc<App>>,
    player: Player,
    Json(body): Json<CreateMatch>,
) -> AppResult<(StatusCode, Json<OpenMatch>)> {
    subscriber(&player.account)?;
    let lvl = level(body.level)?;
    if let Some(group) = &body.group {
        playing_group(&app, group, &player.account.id).await?;
    }
    let now = now_ms();
    let row = MatchRow {
        game: MatchGame::Cube,
        ratings: None,
        away: [None, None],
        id: new_id(),
        scope: body.scope,
        level: body.level,
        x_id: player.account.id.clone(),
        x_name: player.account.name.clone(),
        x_country: player.account.country.clone(),
        o_id: None,
        o_name: None,
        state: MatchState::Open,
        position: Cube::new(lvl).to_string(),
        ply: 0,
        deadline: None,
        winner: None,
        ending: None,
        created_at: now,
        scored: None,
        group: body.group,
        velha: false,
    };
    app.store
        .insert_open_match(&row)
        .await
        .map_err(seat_refused)?;
    if !app.hub.is_online(&row.x_id).await {
        app.hub.withdraw_if_gone(row.x_id.clone());
    }
    let open = open_match(&row, now);
    app.hub.lobby_opened(&open).await;
    Ok((StatusCode::CREATED, Json(open)))
}

/// Withdraws one's own open match.
#[utoipa::path(
    delete,
    path = "/api/lobby/{id}",
    tag = "lobby",
    params(("id" = String, Path, description = "The match id")),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Withdrawn"),
        (status = 401, body = velha_api::ApiError),
        (status = 404, description = "No open match of yours with this id", body = velha_api::ApiError),
    )
)]
pub async fn cancel(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    if let Some(list) = app
        .store
        .cancel_open_match(&id, &player.account.id, now_ms())
        .await?
    {
        app.hub.lobby_closed(&id, &list).await;
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(AppError::new(
            ErrorCode::NotFound,
            "you have no open match with this id (it may have started)",
        ))
    }
}

/// Joins an open match as O; it starts at once, X to move.
#[utoipa::path(
    post,
    path = "/api/lobby/{id}/join",
    tag = "lobby",
    params(("id" = String, Path, description = "The match id")),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The match, started", body = MatchView),
        (status = 401, body = velha_api::ApiError),
        (status = 403, description = "Not a subscriber, your own match, or another country's Nacional match", body = velha_api::ApiError),
        (status = 404, body = velha_api::ApiError),
        (status = 409, description = "Taken, withdrawn, or you are already in a match", body = velha_api::ApiError),
    )
)]
pub async fn join(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<Json<MatchView>> {
    let me = &player.account;
    subscriber(me)?;
    let Some(row) = app.store.get_match(&id).await? else {
        return Err(AppError::new(ErrorCode::NotFound, "no match has this id"));
    };
    let group = match &row.group {
        // Outside the group, its match does not exist either (ON-G08).
        Some(group) => Some(playing_group(&app, group, &me.id).await.map_err(
            |e| match e.0.code {
                ErrorCode::NotFound => AppError::new(ErrorCode::NotFound, "no match has this id"),
                _ => e,
            },
        )?),
        None => None,
    };
    if row.x_id == me.id {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "this is your own match",
        ));
    }
    if row.state != MatchState::Open {
        return Err(AppError::new(
            ErrorCode::Conflict,
            "this match is no longer waiting for an opponent",
        ));
    }
    if row.group.is_none() && row.scope == Scope::Nacional && row.x_country != me.country {
        return Err(AppError::new(
            ErrorCode::WrongCountry,
            format!(
                "this Nacional match is for players of {}; you play for {}",
                row.x_country, me.country
            ),
        ));
    }
    let now = now_ms();
    let deadline = now + app.clocks.move_ms;
    app.store
        .join_match(&id, &me.id, &me.country, now, deadline)
        .await
        .map_err(seat_refused)?;
    let row = app
        .store
        .get_match(&id)
        .await?
        .ok_or_else(|| AppError::new(ErrorCode::Internal, "the match vanished"))?;
    app.hub.lobby_closed(&row.id, &list_of(&row)).await;
    // The creator of a group's match may have left the app while it waited.
    if let Some(group) = group {
        app.push.tell(Notice::Group(GroupNotice {
            account: row.x_id.clone(),
            group: group.id,
            name: group.name,
            other: me.name.clone(),
            about: GroupAbout::MatchJoined,
        }));
    }
    let view = app.hub.start(&row, &me.id).await.map_err(|e| {
        tracing::error!(error = %e, "could not start a match");
        AppError::new(ErrorCode::Internal, "the match could not start")
    })?;
    Ok(Json(view.unwrap_or_else(|| stored_view(&row, &me.id))))
}

/// What the player is in the middle of — their open or live match, or the 2.0 queue — for an
/// app that starts again to go back to it.
#[utoipa::path(
    get,
    path = "/api/me/playing",
    tag = "lobby",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, body = Playing),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn playing(State(app): State<Arc<App>>, player: Player) -> AppResult<Json<Playing>> {
    let me = &player.account.id;
    let current = app.store.active_matches_of(me).await?.into_iter().next();
    let current = match current {
        Some(row) => {
            let stored = stored_view(&row, me);
            Some(app.hub.view_of(me, row).await.unwrap_or(stored))
        }
        None => None,
    };
    let queued = app.store.queued(me).await?.is_some();
    Ok(Json(Playing { current, queued }))
}

/// One match the player plays or played.
#[utoipa::path(
    get,
    path = "/api/matches/{id}",
    tag = "lobby",
    params(("id" = String, Path, description = "The match id")),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, body = MatchView),
        (status = 401, body = velha_api::ApiError),
        (status = 404, description = "No match of yours has this id", body = velha_api::ApiError),
    )
)]
pub async fn get(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<Json<MatchView>> {
    let me = &player.account.id;
    match app.store.get_match(&id).await? {
        Some(row) if row.x_id == *me || row.o_id.as_deref() == Some(me) => {
            let stored = stored_view(&row, me);
            Ok(Json(app.hub.view_of(me, row).await.unwrap_or(stored)))
        }
        _ => Err(AppError::new(
            ErrorCode::NotFound,
            "no match of yours has this id",
        )),
    }
}
