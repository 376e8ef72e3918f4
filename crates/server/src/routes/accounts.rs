//! Account requests: sign up, sign in (password or Google), sign out, the player's account
//! and country (online.md ON-A01, ON-A02).

use std::sync::Arc;

use axum::extract::State;
use axum::http::header::SET_COOKIE;
use axum::http::{HeaderMap, StatusCode};
use velha_api::{
    Account, CountryChange, ErrorCode, GoogleLink, GoogleSignIn, LogIn, RegionChange, Session,
    SignInOptions, SignUp,
};

use crate::app::App;
use crate::auth::{
    Player, account_view, check_lengths, check_name, check_password, country_of,
    expired_session_cookie, new_account_country, normalise_email, picked_country, session_cookie,
};
use crate::devices::Device;
use crate::error::{AppError, AppResult, Json};
use crate::limits::ClientAddress;
use crate::mail::Language;
use crate::routes::email::send_confirmation;
use crate::store::{AccountRow, CountryFrom, InsertError};
use crate::token::{new_id, new_token, now_ms, token_hash};

fn taken(e: InsertError) -> AppError {
    match e {
        InsertError::EmailTaken => {
            AppError::new(ErrorCode::EmailTaken, "another account uses this e-mail")
        }
        InsertError::NameTaken => AppError::new(ErrorCode::NameTaken, "this name is taken"),
        InsertError::GoogleTaken => AppError::new(
            ErrorCode::Conflict,
            "this Google account already signs in to another account",
        ),
        InsertError::Db(e) => e.into(),
    }
}

/// A new session for `account`: its token in the answer, or (`cookie`) in the session cookie
/// the answer's headers set.
pub(crate) async fn open_session(
    app: &App,
    account: &AccountRow,
    created: bool,
    cookie: bool,
    device: &Device,
) -> AppResult<(HeaderMap, Json<Session>)> {
    let token = new_token();
    let now = now_ms();
    let banned = |reason: &str| {
        AppError::new(
            ErrorCode::Banned,
            format!("this account is suspended: {reason}"),
        )
    };
    if let Some(reason) = &account.ban_reason {
        return Err(banned(reason));
    }
    // Banned since it was read: the store refuses under the account's lock.
    if let Some(reason) = app
        .store
        .insert_session(
            &token_hash(&token),
            &account.id,
            (now, now + app.session_ms),
            device,
        )
        .await?
    {
        return Err(banned(&reason));
    }
    let mut headers = HeaderMap::new();
    if cookie {
        headers.insert(SET_COOKIE, session_cookie(&token, app.session_ms / 1000));
    }
    let session = Session {
        token: (!cookie).then_some(token),
        account: account_view(account, now),
        created,
    };
    Ok((headers, Json(session)))
}

pub(crate) async fn hash(app: &App, password: String) -> AppResult<String> {
    app.passwords.hash_in_turn(password).await.map_err(|e| {
        tracing::error!(error = %e, "password hashing failed");
        AppError::new(ErrorCode::Internal, "the password could not be stored")
    })
}

/// Makes an account with e-mail and password.
#[utoipa::path(
    post,
    path = "/api/accounts",
    tag = "accounts",
    request_body = SignUp,
    responses(
        (status = 201, description = "Account made and signed in (with `cookie`, the session cookie is set and the token not answered)", body = Session),
        (status = 400, description = "bad_email, bad_name, offensive_name or reserved_name (a word the name holds), weak_password (with password_problem), bad_country (the country picked is none), bad_region (no country picked and the region names none), too_long (an e-mail over 254 bytes or a password over 1 KiB) or bad_request", body = velha_api::ApiError),
        (status = 409, description = "email_taken or name_taken", body = velha_api::ApiError),
        (status = 429, description = "rate_limited: too many new accounts from this address", body = velha_api::ApiError),
    )
)]
pub async fn sign_up(
    State(app): State<Arc<App>>,
    ClientAddress(address): ClientAddress,
    device: Device,
    Json(body): Json<SignUp>,
) -> AppResult<(StatusCode, HeaderMap, Json<Session>)> {
    check_lengths(&body.email, &body.password)?;
    let email = normalise_email(&body.email)?;
    let name = check_name(&body.name)?;
    let country = new_account_country(&body.region, body.country.as_deref())?;
    check_password(&body.password, &email, &name)?;
    let limit = &app.limits.signups_by_address;
    limit.take(&address, now_ms())?;
    let made = make_account(&app, email, name, country, body.password).await;
    let account = made.inspect_err(|_| limit.give_back(&address))?;
    tracing::info!(name = %account.name, country = %account.country, "account made");
    // The account is made either way: a link that cannot go now is asked for again later.
    if let Err(e) = send_confirmation(&app, &account, Language::of(Some(&body.region))).await {
        tracing::error!(error = %e.0.message, "cannot send the confirmation link");
    }
    let (headers, session) = open_session(&app, &account, true, body.cookie, &device).await?;
    Ok((StatusCode::CREATED, headers, session))
}

/// Stores a new password account, or says which of its e-mail and name is taken. `country`:
/// the country and whether the player chose it (`new_account_country`).
async fn make_account(
    app: &App,
    email: String,
    name: String,
    (country, country_chosen): (String, bool),
    password: String,
) -> AppResult<AccountRow> {
    // Clear answers before the slow hash; the unique indexes still decide races.
    if app.store.account_by_email(&email).await?.is_some() {
        return Err(taken(InsertError::EmailTaken));
    }
    if app.store.account_by_name(&name).await?.is_some() {
        return Err(taken(InsertError::NameTaken));
    }
    let account = AccountRow {
        id: new_id(),
        name,
        email: Some(email),
        password_hash: Some(hash(app, password).await?),
        google_sub: None,
        country,
        country_chosen,
        subscribed_until: None,
        email_verified_at: None,
        ban_reason: None,
        renamed_from: None,
    };
    app.store
        .insert_account(&account, now_ms())
        .await
        .map_err(taken)?;
    Ok(account)
}

/// Signs in with e-mail and password.
#[utoipa::path(
    post,
    path = "/api/sessions",
    tag = "accounts",
    request_body = LogIn,
    responses(
        (status = 200, description = "Signed in (with `cookie`, the session cookie is set and the token not answered)", body = Session),
        (status = 400, description = "bad_email, too_long (an e-mail over 254 bytes or a password over 1 KiB) or bad_request", body = velha_api::ApiError),
        (status = 401, description = "wrong_password (also for an unknown e-mail)", body = velha_api::ApiError),
        (status = 403, description = "banned: the moderation suspended the account (the message gives the reason)", body = velha_api::ApiError),
        (status = 429, description = "rate_limited: too many failures for this account or address", body = velha_api::ApiError),
    )
)]
pub async fn log_in(
    State(app): State<Arc<App>>,
    ClientAddress(address): ClientAddress,
    device: Device,
    Json(body): Json<LogIn>,
) -> AppResult<(HeaderMap, Json<Session>)> {
    check_lengths(&body.email, &body.password)?;
    let email = normalise_email(&body.email)?;
    let turn = app.limits.sign_in_turns.turn(&email).await;
    app.limits.try_sign_in(&turn, &email, &address, now_ms())?;
    let account = app
        .store
        .account_by_email(&email)
        .await
        .inspect_err(|_| app.limits.sign_in_right(&email, &address))?;
    let stored = account.as_ref().and_then(|a| a.password_hash.clone());
    let ok = app.passwords.verify_in_turn(body.password, stored).await;
    match account {
        Some(account) if ok => {
            app.limits.sign_in_right(&email, &address);
            app.limits.failures_by_account.clear(&email);
            drop(turn);
            open_session(&app, &account, false, body.cookie, &device).await
        }
        _ => Err(AppError::new(
            ErrorCode::WrongPassword,
            "the e-mail or the password is wrong",
        )),
    }
}

/// The ways of signing in besides e-mail and password, and what the app needs for each.
#[utoipa::path(
    get,
    path = "/api/sign-in-options",
    tag = "accounts",
    responses((status = 200, description = "What the app offers on its sign-in screen", body = SignInOptions))
)]
pub async fn sign_in_options(State(app): State<Arc<App>>) -> Json<SignInOptions> {
    Json(app.sign_in.clone())
}

/// Signs in (the first time: signs up) with a Google ID token.
#[utoipa::path(
    post,
    path = "/api/sessions/google",
    tag = "accounts",
    request_body = GoogleSignIn,
    responses(
        (status = 200, description = "Signed in; `created` tells whether the account is new", body = Session),
        (status = 400, description = "name_required for a new account without a name, bad_name, offensive_name, reserved_name, and for a new account bad_country (the country picked is none) or bad_region (no country picked and the region names none)", body = velha_api::ApiError),
        (status = 401, description = "bad_google_token", body = velha_api::ApiError),
        (status = 409, description = "name_taken, or email_taken: a password account has this e-mail (its owner links Google with PUT /api/me/google)", body = velha_api::ApiError),
        (status = 503, description = "google_unavailable", body = velha_api::ApiError),
    )
)]
pub async fn google(
    State(app): State<Arc<App>>,
    device: Device,
    Json(body): Json<GoogleSignIn>,
) -> AppResult<(HeaderMap, Json<Session>)> {
    let claims = app.google.verify(&body.id_token).await?;
    if let Some(account) = app.store.account_by_google(&claims.sub).await? {
        return open_session(&app, &account, false, body.cookie, &device).await;
    }
    let verified_email = claims
        .email
        .as_deref()
        .filter(|_| claims.email_verified == Some(true))
        .and_then(|e| normalise_email(e).ok());
    // An account made with a password for this address is not linked here: nobody proved
    // owning the address when it was made, and linking would hand a Google user's account to
    // whoever made it first. Its owner signs in with the password and links Google.
    if let Some(email) = &verified_email
        && let Some(holder) = app.store.account_by_email(email).await?
    {
        // Unless a racing first sign-in of this same Google account just made it.
        if holder.google_sub.as_deref() == Some(claims.sub.as_str()) {
            return open_session(&app, &holder, false, body.cookie, &device).await;
        }
        return Err(AppError::new(
            ErrorCode::EmailTaken,
            "an account with this e-mail exists: sign in with its password, then link Google",
        ));
    }
    let Some(name) = body.name.as_deref() else {
        return Err(AppError::new(
            ErrorCode::NameRequired,
            "a new account needs a player name",
        ));
    };
    // Only a new account needs a country: a player whose browser names none still signs in.
    let name = check_name(name)?;
    let (country, country_chosen) = new_account_country(&body.region, body.country.as_deref())?;
    // Google vouches for the address it says it verified.
    let email_verified_at = verified_email.as_ref().map(|_| now_ms());
    let account = AccountRow {
        id: new_id(),
        name,
        email: verified_email,
        password_hash: None,
        google_sub: Some(claims.sub.clone()),
        country,
        country_chosen,
        subscribed_until: None,
        email_verified_at,
        ban_reason: None,
        renamed_from: None,
    };
    if let Err(e) = app.store.insert_account(&account, now_ms()).await {
        // The same Google account's first sign-in raced this one (two taps, two devices) and
        // made the account first — whichever of its unique columns the database found taken
        // first: this is a sign-in to it.
        if !matches!(e, InsertError::Db(_))
            && let Some(made) = app.store.account_by_google(&claims.sub).await?
        {
            return open_session(&app, &made, false, body.cookie, &device).await;
        }
        return Err(taken(e));
    }
    tracing::info!(name = %account.name, "account made with Google");
    open_session(&app, &account, true, body.cookie, &device).await
}

/// Links a Google account to the signed-in account, so either signs in.
#[utoipa::path(
    put,
    path = "/api/me/google",
    tag = "accounts",
    request_body = GoogleLink,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, body = Account),
        (status = 400, body = velha_api::ApiError),
        (status = 401, description = "unauthorized, or bad_google_token", body = velha_api::ApiError),
        (status = 409, description = "conflict: that Google account signs in to another account", body = velha_api::ApiError),
        (status = 503, description = "google_unavailable", body = velha_api::ApiError),
    )
)]
pub async fn link_google(
    State(app): State<Arc<App>>,
    player: Player,
    Json(body): Json<GoogleLink>,
) -> AppResult<Json<Account>> {
    let claims = app.google.verify(&body.id_token).await?;
    app.store
        .link_google(&player.account.id, &claims.sub)
        .await
        .map_err(taken)?;
    let account = AccountRow {
        google_sub: Some(claims.sub),
        ..player.account
    };
    Ok(Json(account_view(&account, now_ms())))
}

/// Signs out: the token stops working (and the session cookie, if any, is removed).
#[utoipa::path(
    delete,
    path = "/api/sessions/current",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Signed out"),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn log_out(
    State(app): State<Arc<App>>,
    player: Player,
) -> AppResult<(
    StatusCode,
    [(axum::http::HeaderName, axum::http::HeaderValue); 1],
)> {
    app.store.delete_session(&player.token_hash).await?;
    let this = crate::token::session_id(&player.token_hash);
    app.hub
        .signed_out(&player.account.id, crate::live::Ended::These(vec![this]))
        .await;
    Ok((
        StatusCode::NO_CONTENT,
        [(SET_COOKIE, expired_session_cookie())],
    ))
}

/// The signed-in player's account.
#[utoipa::path(
    get,
    path = "/api/me",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, body = Account),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn me(player: Player) -> Json<Account> {
    Json(account_view(&player.account, now_ms()))
}

/// Updates the country from the phone's region setting, unless the player picked the country
/// (ON-A02): then the account answered is unchanged.
#[utoipa::path(
    put,
    path = "/api/me/region",
    tag = "accounts",
    request_body = RegionChange,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The account, with the region's country unless `country_chosen`", body = Account),
        (status = 400, description = "bad_region: the region names no country", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn set_region(
    State(app): State<Arc<App>>,
    player: Player,
    Json(body): Json<RegionChange>,
) -> AppResult<Json<Account>> {
    let country = country_of(&body.region)?;
    let id = &player.account.id;
    if player.account.country_chosen {
        return Ok(Json(account_view(&player.account, now_ms())));
    }
    let account = if app
        .store
        .set_country(id, &country, CountryFrom::Region)
        .await?
    {
        AccountRow {
            country,
            ..player.account
        }
    } else {
        // The player picked a country since this request's session was read.
        app.store.account_by_id(id).await?.unwrap_or(player.account)
    };
    Ok(Json(account_view(&account, now_ms())))
}

/// Sets the country the player picked (ON-A02): the national rankings follow, and the phone's
/// region no longer changes it.
#[utoipa::path(
    put,
    path = "/api/me/country",
    tag = "accounts",
    request_body = CountryChange,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, body = Account),
        (status = 400, description = "bad_country: not an ISO 3166 two-letter country code", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn set_country(
    State(app): State<Arc<App>>,
    player: Player,
    Json(body): Json<CountryChange>,
) -> AppResult<Json<Account>> {
    let country = picked_country(&body.country)?;
    app.store
        .set_country(&player.account.id, &country, CountryFrom::Picked)
        .await?;
    let account = AccountRow {
        country,
        country_chosen: true,
        ..player.account
    };
    Ok(Json(account_view(&account, now_ms())))
}

/// The player saw that the moderation changed their name: the notice is not shown again.
#[utoipa::path(
    delete,
    path = "/api/me/rename-notice",
    tag = "accounts",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "The notice is gone"),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn rename_notice_seen(
    State(app): State<Arc<App>>,
    player: Player,
) -> AppResult<StatusCode> {
    app.store.clear_rename_notice(&player.account.id).await?;
    Ok(StatusCode::NO_CONTENT)
}
