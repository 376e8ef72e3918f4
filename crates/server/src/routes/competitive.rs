//! Jogo da Velha 2.0's competitive mode (online.md ON-V01, ON-V02): the queue and the rating
//! leaderboard, for signed-in players; no subscription needed. The matches themselves are live
//! matches on the WebSocket (`started`, `moved`, `ended` with the ratings).

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use velha_api::{ErrorCode, Leaderboard, LeaderboardQuery, QueueStatus, accepted_difference};

use crate::app::App;
use crate::auth::Player;
use crate::error::{AppError, AppResult, Json, Query};
use crate::routes::lobby::seat_refused;
use crate::store::Waiting;
use crate::token::now_ms;

const DEFAULT_LIMIT: u32 = 50;
const MOST_LIMIT: u32 = 100;
const MOST_OFFSET: u32 = 100_000;

fn status(rating: u32, waiting: Option<&Waiting>, now: i64) -> QueueStatus {
    let waited = waiting.map_or(0, |w| u64::try_from(now - w.joined_at).unwrap_or(0));
    QueueStatus {
        queued: waiting.is_some(),
        rating,
        waited_ms: waited,
        accepted_difference: accepted_difference(waited),
    }
}

/// Joins the queue (or stays where one is): paired with a player whose rating both accept,
/// the match starts on the WebSocket.
#[utoipa::path(
    post,
    path = "/api/competitive/queue",
    tag = "competitive",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Waiting in the queue", body = QueueStatus),
        (status = 401, body = velha_api::ApiError),
        (status = 409, description = "already_playing: an open or live match first; conflict: a leave crossed the join, ask again", body = velha_api::ApiError),
    )
)]
pub async fn join(State(app): State<Arc<App>>, player: Player) -> AppResult<Json<QueueStatus>> {
    let now = now_ms();
    let waiting = app
        .store
        .queue_join(&player.account.id, now)
        .await
        .map_err(seat_refused)?;
    Ok(Json(status(waiting.rating, Some(&waiting), now)))
}

/// The player's place in the queue and their rating.
#[utoipa::path(
    get,
    path = "/api/competitive/queue",
    tag = "competitive",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "In the queue or not, with the rating", body = QueueStatus),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn get(State(app): State<Arc<App>>, player: Player) -> AppResult<Json<QueueStatus>> {
    let now = now_ms();
    let waiting = app.store.queued(&player.account.id).await?;
    let rating = match &waiting {
        Some(w) => w.rating,
        None => app.store.rating(&player.account.id).await?,
    };
    Ok(Json(status(rating, waiting.as_ref(), now)))
}

/// Leaves the queue.
#[utoipa::path(
    delete,
    path = "/api/competitive/queue",
    tag = "competitive",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Not in the queue (any more)"),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn leave(State(app): State<Arc<App>>, player: Player) -> AppResult<StatusCode> {
    app.store.queue_leave(&player.account.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The rating leaderboard, best first, and the player's own line (ON-V01).
#[utoipa::path(
    get,
    path = "/api/competitive/leaderboard",
    tag = "competitive",
    params(LeaderboardQuery),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, body = Leaderboard),
        (status = 400, description = "An offset or limit out of range", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn leaderboard(
    State(app): State<Arc<App>>,
    player: Player,
    Query(q): Query<LeaderboardQuery>,
) -> AppResult<Json<Leaderboard>> {
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT);
    let offset = q.offset.unwrap_or(0);
    if !(1..=MOST_LIMIT).contains(&limit) || offset > MOST_OFFSET {
        return Err(AppError::new(
            ErrorCode::BadRequest,
            format!("a page has 1 to {MOST_LIMIT} rows from at most {MOST_OFFSET} down"),
        ));
    }
    let (rows, me) = app
        .store
        .leaderboard(offset, limit, &player.account.id)
        .await?;
    Ok(Json(Leaderboard { rows, me }))
}
