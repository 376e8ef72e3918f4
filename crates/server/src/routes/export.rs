//! A player downloads everything the server holds about them (docs/accounts.md): the rows of
//! each section of `store/export.rs`, as one JSON file.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION};
use axum::http::{HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::app::App;
use crate::auth::Player;
use crate::error::{AppResult, Json};
use crate::token::now_ms;

/// The signed-in player's data, as a file to save.
#[utoipa::path(
    get,
    path = "/api/me/export",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Everything the server holds about the player: `sections` has one list of rows per kind (account, sessions, matches, moves, standings, groups, rooms, subscription, push subscriptions…); other players appear only by the name they played under", body = Object),
        (status = 401, body = velha_api::ApiError),
        (status = 429, description = "rate_limited: 3 exports an hour per account", body = velha_api::ApiError),
    )
)]
pub async fn export(
    State(app): State<Arc<App>>,
    player: Player,
) -> AppResult<([(HeaderName, HeaderValue); 2], Json<Value>)> {
    let account = &player.account.id;
    let now = now_ms();
    app.limits.exports_by_account.take(account, now)?;
    let sections = match app.store.export(account).await {
        Ok(sections) => sections,
        Err(e) => {
            app.limits.exports_by_account.give_back(account);
            return Err(e.into());
        }
    };
    let day = crate::dates::day_of(now);
    let file = format!("attachment; filename=\"cubo-da-velha-{day}.json\"");
    let disposition =
        HeaderValue::from_str(&file).unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    Ok((
        [
            (CONTENT_DISPOSITION, disposition),
            (CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        Json(json!({
            "format": 1,
            "exported_at": now,
            "sections": sections,
        })),
    ))
}
