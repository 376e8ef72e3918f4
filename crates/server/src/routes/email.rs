//! E-mail links (docs/mail.md): confirming an account's address, and choosing a new password
//! when the old one is forgotten.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use velha_api::{
    EmailVerified, ErrorCode, ForgotPassword, ResendVerification, ResetPassword, Session,
    VerifyEmail,
};

use crate::app::App;
use crate::auth::{Player, check_lengths, check_password, normalise_email};
use crate::devices::Device;
use crate::error::{AppError, AppResult, Json};
use crate::limits::ClientAddress;
use crate::live::Ended;
use crate::mail::{Job, Language, Mailer};
use crate::routes::accounts::{hash, open_session};
use crate::store::{AccountRow, LinkProblem};
use crate::token::{now_ms, token_hash};

/// The longest token of ours, and then some: anything longer is no link of ours.
const LONGEST_TOKEN: usize = 128;

fn mailer(app: &App) -> AppResult<&Mailer> {
    app.mail
        .as_ref()
        .ok_or_else(|| AppError::new(ErrorCode::MailUnavailable, "this server sends no e-mail"))
}

fn bad_link(problem: LinkProblem) -> AppError {
    let why = match problem {
        LinkProblem::Unknown => "this link is not one we sent: open the one in the message",
        LinkProblem::Expired => "this link has expired: ask for a new one",
        LinkProblem::Used => "this link was used already: ask for a new one",
        LinkProblem::Stale => "the account no longer has the e-mail this link confirms",
    };
    AppError::new(ErrorCode::BadLink, why)
}

fn token_of(token: &str) -> AppResult<String> {
    let token = token.trim();
    if token.is_empty() || token.len() > LONGEST_TOKEN {
        return Err(bad_link(LinkProblem::Unknown));
    }
    Ok(token_hash(token))
}

/// Sends the account a link that confirms its e-mail, unless one went a moment ago; whether a
/// link is on its way. Nothing for an account without e-mail or already confirmed.
pub async fn send_confirmation(
    app: &App,
    account: &AccountRow,
    language: Language,
) -> AppResult<bool> {
    let (Some(mail), Some(email)) = (&app.mail, &account.email) else {
        return Ok(false);
    };
    if account.email_verified_at.is_some() {
        return Ok(false);
    }
    let (letter, hash) = mail.verify_letter(&account.name, email, language);
    if !app
        .store
        .verify_token(&account.id, email, &hash, now_ms())
        .await?
    {
        return Ok(false);
    }
    Ok(mail.queue(Job::Send(letter)))
}

/// Confirms an e-mail: the link's token (from any device; no session needed).
#[utoipa::path(
    post,
    path = "/api/email/verify",
    tag = "accounts",
    request_body = VerifyEmail,
    responses(
        (status = 200, description = "The address is confirmed", body = EmailVerified),
        (status = 400, description = "bad_link: no link of ours, expired (after 24 h), used, or for an address the account no longer has", body = velha_api::ApiError),
    )
)]
pub async fn verify(
    State(app): State<Arc<App>>,
    Json(body): Json<VerifyEmail>,
) -> AppResult<Json<EmailVerified>> {
    let hash = token_of(&body.token)?;
    match app.store.confirm_email(&hash, now_ms()).await? {
        Ok(email) => Ok(Json(EmailVerified { email })),
        Err(problem) => Err(bad_link(problem)),
    }
}

/// Sends the confirmation link again ("Reenviar").
#[utoipa::path(
    post,
    path = "/api/me/email/verification",
    tag = "accounts",
    request_body = ResendVerification,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 202, description = "A link is on its way"),
        (status = 401, body = velha_api::ApiError),
        (status = 409, description = "conflict: the account has no e-mail, or it is confirmed already", body = velha_api::ApiError),
        (status = 429, description = "rate_limited: a link went a minute ago, five today, or too many from this address", body = velha_api::ApiError),
        (status = 503, description = "mail_unavailable", body = velha_api::ApiError),
    )
)]
pub async fn resend(
    State(app): State<Arc<App>>,
    player: Player,
    ClientAddress(address): ClientAddress,
    Json(body): Json<ResendVerification>,
) -> AppResult<StatusCode> {
    mailer(&app)?;
    let account = &player.account;
    if account.email.is_none() || account.email_verified_at.is_some() {
        return Err(AppError::new(
            ErrorCode::Conflict,
            "this account has no e-mail to confirm",
        ));
    }
    app.limits.mail_by_address.take(&address, now_ms())?;
    if send_confirmation(&app, account, Language::of(body.language.as_deref())).await? {
        return Ok(StatusCode::ACCEPTED);
    }
    let mut e = AppError::new(
        ErrorCode::RateLimited,
        "a link was sent a moment ago (at most one a minute, five a day): look for it",
    );
    e.0.retry_after_s = Some(60);
    Err(e)
}

/// "Esqueci a senha": a link to choose a new password goes to the address if an account has it
/// confirmed. The answer is the same, and as quick, either way: the account is looked up after
/// it.
#[utoipa::path(
    post,
    path = "/api/password/forgot",
    tag = "accounts",
    request_body = ForgotPassword,
    responses(
        (status = 202, description = "If an account has this confirmed e-mail, a link is on its way (at most one each 5 minutes)"),
        (status = 400, description = "bad_email, too_long", body = velha_api::ApiError),
        (status = 429, description = "rate_limited: too many from this address", body = velha_api::ApiError),
        (status = 503, description = "mail_unavailable", body = velha_api::ApiError),
    )
)]
pub async fn forgot(
    State(app): State<Arc<App>>,
    ClientAddress(address): ClientAddress,
    Json(body): Json<ForgotPassword>,
) -> AppResult<StatusCode> {
    let mail = mailer(&app)?;
    check_lengths(&body.email, "")?;
    let email = normalise_email(&body.email)?;
    app.limits.mail_by_address.take(&address, now_ms())?;
    let job = Job::Reset {
        email,
        language: Language::of(body.language.as_deref()),
    };
    if !mail.queue(job) {
        return Err(AppError::new(
            ErrorCode::MailUnavailable,
            "too many messages are waiting: try again in a minute",
        ));
    }
    Ok(StatusCode::ACCEPTED)
}

/// Chooses the new password with the link's token: every session of the account ends, and
/// this device is signed in.
#[utoipa::path(
    post,
    path = "/api/password/reset",
    tag = "accounts",
    request_body = ResetPassword,
    responses(
        (status = 200, description = "The new password is set and this device signed in; every other session ended", body = Session),
        (status = 400, description = "bad_link (no link of ours, expired after 30 minutes, or used), weak_password (with password_problem), too_long", body = velha_api::ApiError),
    )
)]
pub async fn reset(
    State(app): State<Arc<App>>,
    device: Device,
    Json(body): Json<ResetPassword>,
) -> AppResult<(HeaderMap, Json<Session>)> {
    let hash_of_token = token_of(&body.token)?;
    check_lengths("", &body.password)?;
    let link = app
        .store
        .reset_link(&hash_of_token, now_ms())
        .await?
        .map_err(bad_link)?;
    check_password(&body.password, &link.email, &link.name)?;
    let password_hash = hash(&app, body.password).await?;
    let account = app
        .store
        .reset_password(&hash_of_token, &password_hash, now_ms())
        .await?
        .map_err(bad_link)?;
    tracing::info!(account = %account, "a password was chosen anew");
    app.hub.signed_out(&account, Ended::AllBut(None)).await;
    let account = app
        .store
        .account_by_id(&account)
        .await?
        .ok_or_else(|| AppError::new(ErrorCode::Internal, "the account vanished"))?;
    open_session(&app, &account, false, body.cookie, &device).await
}
