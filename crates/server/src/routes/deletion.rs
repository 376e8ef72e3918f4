//! Deleting an account (docs/accounts.md): confirmed by the password, or by a fresh sign-in
//! for an account that has none; the paid subscription is ended at the provider first, then
//! one transaction does the rest (`store/erase.rs`), and everyone concerned hears of it.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::SET_COOKIE;
use velha_api::{DeleteAccount, ErrorCode};

use crate::app::App;
use crate::auth::{Player, expired_session_cookie};
use crate::error::{AppError, AppResult, Json};
use crate::limits::ClientAddress;
use crate::live::Ended;
use crate::routes::sessions::prove_password;
use crate::store::EraseError;
use crate::token::now_ms;

/// How recent a sign-in confirms deleting an account that has no password.
pub const FRESH_SIGN_IN_MS: i64 = 10 * 60 * 1000;

/// Deletes the signed-in player's account.
#[utoipa::path(
    delete,
    path = "/api/me",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    request_body = DeleteAccount,
    responses(
        (status = 204, description = "Deleted: every session ended, the live match lost by abandonment, the queue and groups left (the player's own group finalized), the paid subscription ended at the provider; games kept as \"Jogador removido\""),
        (status = 400, description = "bad_request: an account with a password must give it; too_long", body = velha_api::ApiError),
        (status = 401, description = "wrong_password, or unauthorized", body = velha_api::ApiError),
        (status = 403, description = "sign_in_again: an account without a password confirms with a sign-in made in the last 10 minutes", body = velha_api::ApiError),
        (status = 409, description = "group_match_live: two others are playing a match of the player's group, which cannot be finalized until it ends", body = velha_api::ApiError),
        (status = 429, description = "rate_limited: too many wrong passwords for this account or address", body = velha_api::ApiError),
        (status = 503, description = "payments_unavailable: the provider did not end the subscription; nothing was deleted", body = velha_api::ApiError),
    )
)]
pub async fn delete(
    State(app): State<Arc<App>>,
    ClientAddress(address): ClientAddress,
    player: Player,
    Json(body): Json<DeleteAccount>,
) -> AppResult<(
    [(axum::http::HeaderName, axum::http::HeaderValue); 1],
    StatusCode,
)> {
    confirmed(&app, &address, &player, body.password).await?;
    let account = &player.account.id;
    // Refused before the provider is asked, so that a refusal changes nothing.
    if app.store.own_group_busy(account).await? {
        return Err(group_busy());
    }
    let mut attempts = 0;
    let erased = loop {
        attempts += 1;
        let ended_at_provider = end_subscriptions(&app, account).await?;
        let erased = app
            .store
            .erase_account(account, now_ms(), &ended_at_provider, |ended| {
                app.hub.abandoned_told(ended)
            })
            .await;
        match erased {
            Ok(erased) => break erased,
            // A checkout paid a moment ago: its subscription is ended too, and the deletion
            // tried again.
            Err(EraseError::NewSubscription) if attempts < 3 => continue,
            Err(EraseError::NewSubscription) => {
                return Err(AppError::new(
                    ErrorCode::Conflict,
                    "subscriptions keep starting for this account; try again in a minute",
                ));
            }
            Err(EraseError::Gone) => {
                return Err(AppError::new(
                    ErrorCode::Unauthorized,
                    "the account is deleted",
                ));
            }
            Err(EraseError::GroupMatchLive) => return Err(group_busy()),
            Err(EraseError::Db(e)) => return Err(e.into()),
        }
    };
    app.hub.abandoned_committed(&erased.ended).await;
    for (match_id, list) in &erased.withdrawn {
        app.hub.lobby_closed(match_id, list).await;
    }
    if let Some((group, people)) = erased.finalized {
        app.hub.group_finalized(&group, people).await;
    }
    for group in erased.left {
        match app.store.group_people(&group).await {
            Ok((members, _)) => {
                app.hub
                    .group_changed(&group, members, vec![account.clone()])
                    .await;
            }
            Err(e) => tracing::warn!(error = %e, %group, "a group left is not told"),
        }
    }
    app.hub.signed_out(account, Ended::AllBut(None)).await;
    tracing::info!(%account, ended = erased.ended.len(), "an account was deleted");
    Ok((
        [(SET_COOKIE, expired_session_cookie())],
        StatusCode::NO_CONTENT,
    ))
}

/// Whether the player confirmed: the password of an account that has one (failures count as
/// failed sign-ins), else a session made in the last [`FRESH_SIGN_IN_MS`].
async fn confirmed(
    app: &App,
    address: &str,
    player: &Player,
    password: Option<String>,
) -> AppResult<()> {
    let account = &player.account;
    let Some(stored) = account.password_hash.clone() else {
        let now = now_ms();
        let sessions = app.store.sessions_of(&account.id, now).await?;
        let fresh = sessions
            .iter()
            .any(|s| s.token_hash == player.token_hash && now - s.created_at <= FRESH_SIGN_IN_MS);
        if !fresh {
            return Err(AppError::new(
                ErrorCode::SignInAgain,
                "sign in again with Google to confirm: the sign-in must be of the last 10 minutes",
            ));
        }
        return Ok(());
    };
    let Some(password) = password else {
        return Err(AppError::new(
            ErrorCode::BadRequest,
            "the account's password confirms deleting it",
        ));
    };
    prove_password(app, address, account, &stored, password).await?;
    Ok(())
}

fn group_busy() -> AppError {
    AppError::new(
        ErrorCode::GroupMatchLive,
        "two players are in a match of your group, which is finalized with the account: \
         delete it when that match ends",
    )
}

/// Ends the account's running subscriptions at the provider, and closes its open checkout
/// page: deleted, the account can no longer stop the charges itself. The subscriptions
/// ended.
pub(crate) async fn end_subscriptions(
    app: &App,
    account: &str,
) -> AppResult<Vec<(String, String)>> {
    let running = app.store.running_subscriptions(account).await?;
    let checkout = app.store.open_checkout(account).await?;
    if running.is_empty() && checkout.is_none() {
        return Ok(running);
    }
    let unavailable = || {
        AppError::new(
            ErrorCode::PaymentsUnavailable,
            "the subscription could not be ended at the payment provider; nothing was deleted, \
             try again later",
        )
    };
    let Some(payments) = &app.payments else {
        tracing::error!(%account, "a paid subscription or checkout, but payments are not configured");
        return Err(unavailable());
    };
    if let Some(session) = checkout
        && let Err(e) = payments.provider.expire_checkout(&session).await
    {
        tracing::error!(%account, %session, error = %e, "cannot close a checkout");
        return Err(unavailable());
    }
    for (provider, id) in &running {
        if provider != payments.provider.name() {
            tracing::error!(%account, %provider, "a subscription of a provider not configured");
            return Err(unavailable());
        }
        if let Err(e) = payments.provider.cancel(id).await {
            tracing::error!(%account, subscription = %id, error = %e, "cannot end a subscription");
            return Err(unavailable());
        }
    }
    Ok(running)
}
