//! Where a player is signed in, and their password (docs/accounts.md): the list of their
//! sessions, signing out one of them or every other, and a new password that signs out every
//! other session.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use velha_api::{ChangePassword, ErrorCode, SignedIn};

use crate::app::App;
use crate::auth::{Player, check_lengths, check_password};
use crate::error::{AppError, AppResult, Json};
use crate::limits::ClientAddress;
use crate::live::Ended;
use crate::routes::accounts::hash;
use crate::store::AccountRow;
use crate::token::{now_ms, session_id};

/// The account's sessions, the last used first.
#[utoipa::path(
    get,
    path = "/api/me/sessions",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Every place the account is signed in; `this` marks the one asking", body = Vec<SignedIn>),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn list(State(app): State<Arc<App>>, player: Player) -> AppResult<Json<Vec<SignedIn>>> {
    let sessions = app.store.sessions_of(&player.account.id, now_ms()).await?;
    Ok(Json(
        sessions
            .into_iter()
            .map(|s| SignedIn {
                id: session_id(&s.token_hash),
                this: s.token_hash == player.token_hash,
                since: s.created_at,
                seen: s.seen_at,
                device: s.device,
                country: s.country,
            })
            .collect(),
    ))
}

/// Signs out every session of the account but the one asking.
#[utoipa::path(
    delete,
    path = "/api/me/sessions",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Every other session signed out"),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn end_others(State(app): State<Arc<App>>, player: Player) -> AppResult<StatusCode> {
    let account = &player.account.id;
    let ended = app
        .store
        .end_sessions_but(account, &player.token_hash)
        .await?;
    let this = session_id(&player.token_hash);
    app.hub.signed_out(account, Ended::AllBut(Some(this))).await;
    tracing::info!(%account, ended, "other sessions signed out");
    Ok(StatusCode::NO_CONTENT)
}

/// Signs out one session of the account (the one asking too, as signing out does).
#[utoipa::path(
    delete,
    path = "/api/me/sessions/{id}",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    params(("id" = String, Path, description = "The session's id, from GET /api/me/sessions")),
    responses(
        (status = 204, description = "Signed out"),
        (status = 401, body = velha_api::ApiError),
        (status = 404, description = "not_found: no session of this account has this id", body = velha_api::ApiError),
    )
)]
pub async fn end(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    let sessions = app.store.sessions_of(&player.account.id, now_ms()).await?;
    let Some(found) = sessions.iter().find(|s| session_id(&s.token_hash) == id) else {
        return Err(AppError::new(
            ErrorCode::NotFound,
            "no session of this account has this id",
        ));
    };
    app.store.delete_session(&found.token_hash).await?;
    app.hub
        .signed_out(&player.account.id, Ended::These(vec![id]))
        .await;
    Ok(StatusCode::NO_CONTENT)
}

/// Changes the password: the current one is asked (and its failures count as failed sign-ins),
/// the new one is checked as a new account's; every other session is signed out.
#[utoipa::path(
    post,
    path = "/api/me/password",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    request_body = ChangePassword,
    responses(
        (status = 204, description = "Changed; every other session signed out, this one goes on"),
        (status = 400, description = "weak_password (with password_problem), too_long or bad_request", body = velha_api::ApiError),
        (status = 401, description = "wrong_password: the current password is not this; or unauthorized", body = velha_api::ApiError),
        (status = 409, description = "conflict: the account signs in with Google only, or its password was changed meanwhile", body = velha_api::ApiError),
        (status = 429, description = "rate_limited: too many wrong passwords for this account or address", body = velha_api::ApiError),
    )
)]
pub async fn change_password(
    State(app): State<Arc<App>>,
    ClientAddress(address): ClientAddress,
    player: Player,
    Json(body): Json<ChangePassword>,
) -> AppResult<StatusCode> {
    check_lengths("", &body.password)?;
    let account = &player.account;
    let Some(stored) = account.password_hash.clone() else {
        return Err(AppError::new(
            ErrorCode::Conflict,
            "this account signs in with Google and has no password to change",
        ));
    };
    let email = prove_password(&app, &address, account, &stored, body.current).await?;
    check_password(&body.password, &email, &account.name)?;
    let new_hash = hash(&app, body.password).await?;
    let changed = app
        .store
        .change_password(
            &account.id,
            (&stored, &new_hash),
            &player.token_hash,
            now_ms(),
        )
        .await?;
    if !changed {
        return Err(AppError::new(
            ErrorCode::Conflict,
            "the password was changed meanwhile; sign in again with the new one",
        ));
    }
    app.limits.failures_by_account.clear(&email);
    let this = session_id(&player.token_hash);
    app.hub
        .signed_out(&account.id, Ended::AllBut(Some(this)))
        .await;
    tracing::info!(account = %account.id, "a password was changed");
    Ok(StatusCode::NO_CONTENT)
}

/// Checks the password a signed-in player typed to confirm what they asked, as a sign-in
/// checks it: its failures count for the account and the address, so a stolen session
/// cannot guess it. The e-mail the limits counted it under.
pub(crate) async fn prove_password(
    app: &App,
    address: &str,
    account: &AccountRow,
    stored: &str,
    typed: String,
) -> AppResult<String> {
    check_lengths("", &typed)?;
    // The sign-in limits count by e-mail; every password account has one.
    let email = account.email.clone().unwrap_or_else(|| account.id.clone());
    let turn = app.limits.sign_in_turns.turn(&email).await;
    app.limits.try_sign_in(&turn, &email, address, now_ms())?;
    if !app
        .passwords
        .verify_in_turn(typed, Some(stored.to_owned()))
        .await
    {
        return Err(AppError::new(
            ErrorCode::WrongPassword,
            "the password is not this account's",
        ));
    }
    app.limits.sign_in_right(&email, address);
    Ok(email)
}
