//! A player reports another from where they met: a finished match they played, a room where
//! they hold a seat, or a row of the rankings (docs/moderation.md). The server checks that
//! they met, keeps one report per reporter, player and place, and limits how many a player
//! files in an hour; the operators read them with `velha-server admin reports`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use velha_api::{ErrorCode, MAX_REPORT_NOTE, MatchState, Report, ReportAbout, Seat};

use crate::app::App;
use crate::auth::Player;
use crate::error::{AppError, AppResult, Json};
use crate::store::{NewReport, VELHA_NAME};
use crate::text::check_text;
use crate::token::now_ms;

/// Who is reported, and the place as stored.
struct Reported {
    id: Option<String>,
    name: String,
    context: String,
}

fn yourself() -> AppError {
    AppError::new(ErrorCode::Forbidden, "a player does not report themselves")
}

fn not_found(what: &str) -> AppError {
    AppError::new(ErrorCode::NotFound, what.to_owned())
}

/// The other player of a finished match `me` played.
async fn in_match(app: &App, me: &str, id: &str) -> AppResult<Reported> {
    let row = app
        .store
        .get_match(id)
        .await?
        .filter(|m| m.x_id == me || m.o_id.as_deref() == Some(me))
        .ok_or_else(|| not_found("no match of yours has this id"))?;
    if row.state != MatchState::Over {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "a match is reported once it is over",
        ));
    }
    let (id_other, name_other) = if row.x_id == me {
        (row.o_id.clone(), row.o_name.clone().unwrap_or_default())
    } else {
        (Some(row.x_id.clone()), row.x_name.clone())
    };
    if row.velha || id_other.is_none() {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            format!("{VELHA_NAME} is the computer: there is nobody to report"),
        ));
    }
    Ok(Reported {
        id: id_other,
        name: name_other,
        context: format!("match:{}", row.id),
    })
}

/// The other seat of a room where the credential holds one.
async fn in_room(app: &App, id: &str, credential: &str) -> AppResult<Reported> {
    let seat = super::rooms::seat_of(app, id, credential)
        .await?
        .ok_or_else(|| not_found("no room has this id and seat"))?;
    let other = match seat {
        Seat::X => Seat::O,
        Seat::O => Seat::X,
    };
    let row = app
        .store
        .room(id)
        .await?
        .ok_or_else(|| not_found("no room has this id and seat"))?;
    let name = row
        .room
        .seat(other.into())
        .map(|s| s.name.clone())
        .ok_or_else(|| AppError::new(ErrorCode::Forbidden, "the other seat is free"))?;
    Ok(Reported {
        id: app.store.room_seat_account(id, other).await?,
        name,
        context: format!("room:{id}"),
    })
}

/// A player of the rankings (a cube standing or a 2.0 rating), by name.
async fn in_rankings(app: &App, me: &str, name: &str) -> AppResult<Reported> {
    check_text("the name", name, ErrorCode::BadRequest)?;
    let account = app
        .store
        .account_by_name(name.trim())
        .await?
        .ok_or_else(|| not_found("no player has this name"))?;
    if account.id == me {
        return Err(yourself());
    }
    // A row the reporter could have seen: a banned player has none.
    if !app.store.in_rankings(&account.id).await? {
        return Err(not_found("this player is in no ranking"));
    }
    Ok(Reported {
        id: Some(account.id),
        name: account.name,
        context: "ranking".into(),
    })
}

/// Reports a player.
#[utoipa::path(
    post,
    path = "/api/reports",
    tag = "moderation",
    request_body = Report,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Filed"),
        (status = 400, description = "bad_request: a note over 500 characters or with control characters", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
        (status = 403, description = "forbidden: the reporter themselves, the Velha, a match not over, a free seat", body = velha_api::ApiError),
        (status = 404, description = "not_found: no such match of the reporter's, room seat, or player in a ranking", body = velha_api::ApiError),
        (status = 409, description = "conflict: this player was reported by this reporter here already", body = velha_api::ApiError),
        (status = 429, description = "rate_limited: 10 reports an hour", body = velha_api::ApiError),
    )
)]
pub async fn file(
    State(app): State<Arc<App>>,
    player: Player,
    Json(body): Json<Report>,
) -> AppResult<StatusCode> {
    let note = match body.note.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(n) if n.chars().count() > MAX_REPORT_NOTE => {
            return Err(AppError::new(
                ErrorCode::BadRequest,
                format!("a note has at most {MAX_REPORT_NOTE} characters"),
            ));
        }
        Some(n) => {
            // Line breaks are the reporter's to write; nothing else a player never types.
            for line in n.split('\n') {
                check_text("the note", line, ErrorCode::BadRequest)?;
            }
            Some(n)
        }
    };
    let me = &player.account.id;
    let reported = match &body.about {
        ReportAbout::Match { id } => in_match(&app, me, id).await?,
        ReportAbout::Room { id, credential } => in_room(&app, id, credential).await?,
        ReportAbout::Ranking { name } => in_rankings(&app, me, name).await?,
    };
    if reported.id.as_deref() == Some(me) {
        return Err(yourself());
    }
    let now = now_ms();
    app.limits.reports_by_account.take(me, now)?;
    let report = NewReport {
        reporter: me,
        reported_id: reported.id.as_deref(),
        reported_name: &reported.name,
        context: &reported.context,
        reason: body.reason.as_str(),
        note,
    };
    let filed = match app.store.report(&report, now).await {
        Ok(filed) => filed,
        Err(e) => {
            app.limits.reports_by_account.give_back(me);
            return Err(e.into());
        }
    };
    if !filed {
        app.limits.reports_by_account.give_back(me);
        return Err(AppError::new(
            ErrorCode::Conflict,
            format!("you reported {} here already", reported.name),
        ));
    }
    tracing::info!(reported = %reported.name, context = %reported.context, "a player was reported");
    Ok(StatusCode::NO_CONTENT)
}
