//! Mini-ranking groups (online.md ON-G01, ON-G02, ON-G08, ON-G09), for subscribers (ON-A03):
//! make one, invite by name, accept or decline, leave, finalize. A group answers 404 to anyone
//! who does not take part in it.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use velha_api::{
    CreateGroup, ErrorCode, Group, GroupStanding, Invitation, Invite, MatchGame, MatchState,
    MatchView, MyGroups, PlayVelha, Scope,
};
use velha_rules::Cube;

use super::lobby::{playing_group, seat_refused, stored_view};
use crate::app::App;
use crate::auth::Player;
use crate::error::{AppError, AppResult, Json};
use crate::push::{GroupAbout, GroupNotice, Notice};
use crate::store::{GroupError, GroupRow, MatchRow, VELHA_NAME};
use crate::text::check_text;
use crate::token::{new_id, now_ms};

fn subscriber(player: &Player) -> AppResult<()> {
    super::subscribers_only(
        &player.account,
        "mini-ranking groups are for subscribers only",
    )
}

/// Refuses anyone but the group's creator, saying what only the creator does.
fn creator_only(g: &GroupRow, player: &Player, what: &str) -> AppResult<()> {
    if g.creator_id == player.account.id {
        Ok(())
    } else {
        Err(AppError::new(
            ErrorCode::Forbidden,
            format!("only the group's creator {what}"),
        ))
    }
}

fn refused(e: GroupError) -> AppError {
    match e {
        GroupError::AlreadyCreated => AppError::new(
            ErrorCode::AlreadyCreatedGroup,
            "you already created a group: a player creates one",
        ),
        GroupError::TooMany => AppError::new(
            ErrorCode::TooManyGroups,
            "that player already takes part in 2 groups",
        ),
        GroupError::Full => AppError::new(ErrorCode::GroupFull, "the group has 25 participants"),
        GroupError::NotInvited => no_group(),
        GroupError::AlreadyMember => {
            AppError::new(ErrorCode::Conflict, "that player already takes part")
        }
        GroupError::NotMember => no_group(),
        GroupError::MatchLive => AppError::new(
            ErrorCode::GroupMatchLive,
            "a match of the group is being played: finalize it once the match ends",
        ),
        GroupError::Gone => no_group(),
        GroupError::Db(e) => e.into(),
    }
}

/// What anyone outside a group hears of it (ON-G08: not even that it exists).
fn no_group() -> AppError {
    AppError::new(ErrorCode::NotFound, "no such group")
}

/// Tells the group's participants, and `others` who no longer or do not yet take part, that
/// it changed: their open screens read it again (ON-G08: nobody else hears of it).
async fn tell(app: &App, group: &str, others: Vec<String>) {
    // The change is made: a failure to tell of it is no failure of the request.
    match app.store.group_people(group).await {
        Ok((members, _)) => app.hub.group_changed(group, members, others).await,
        Err(e) => tracing::error!(error = %e, "could not tell a group's participants of a change"),
    }
}

fn count(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

/// The group as `viewer` sees it, with its table (ON-G07).
async fn view(app: &App, g: GroupRow, viewer: &str) -> AppResult<Group> {
    let creator = g.creator_id == viewer;
    let table = app
        .store
        .group_table(&g.id)
        .await?
        .into_iter()
        .zip(1..)
        .map(|(line, position)| GroupStanding {
            position,
            name: line.name,
            points: count(line.points),
            matches: count(line.matches),
            velha_matches: count(line.velha_matches),
        })
        .collect();
    Ok(Group {
        id: g.id,
        name: g.name,
        creator: g.creator,
        with_velha: g.with_velha,
        members: g.members,
        invited: if creator { g.invited } else { Vec::new() },
        table,
    })
}

async fn member_view(app: &App, id: &str, player: &Player) -> AppResult<GroupRow> {
    app.store
        .group_for(id, &player.account.id)
        .await?
        .ok_or_else(no_group)
}

/// Makes a group; its creator is its first participant (ON-G01).
#[utoipa::path(
    post,
    path = "/api/groups",
    tag = "groups",
    request_body = CreateGroup,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 201, description = "The group", body = Group),
        (status = 400, description = "A name that is empty, too long or has control characters (bad_request), or holds an offensive or a reserved word (offensive_name, reserved_name)", body = velha_api::ApiError),
        (status = 403, description = "subscribers_only", body = velha_api::ApiError),
        (status = 409, description = "already_created_group, too_many_groups", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn create(
    State(app): State<Arc<App>>,
    player: Player,
    Json(body): Json<CreateGroup>,
) -> AppResult<(StatusCode, Json<Group>)> {
    subscriber(&player)?;
    check_text("the group's name", &body.name, ErrorCode::BadRequest)?;
    let name = body.name.trim();
    crate::auth::allowed_words("the group's name", name)?;
    let count = name.chars().count();
    if !(3..=40).contains(&count) {
        return Err(AppError::new(
            ErrorCode::BadRequest,
            format!("a group's name has 3 to 40 characters, not {count}"),
        ));
    }
    let id = new_id();
    app.store
        .create_group(&id, name, &player.account.id, body.with_velha, now_ms())
        .await
        .map_err(refused)?;
    let g = member_view(&app, &id, &player).await?;
    Ok((
        StatusCode::CREATED,
        Json(view(&app, g, &player.account.id).await?),
    ))
}

/// The player's groups and the invitations waiting for them.
#[utoipa::path(
    get,
    path = "/api/groups",
    tag = "groups",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Groups and invitations", body = MyGroups),
        (status = 403, description = "subscribers_only", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn mine(State(app): State<Arc<App>>, player: Player) -> AppResult<Json<MyGroups>> {
    subscriber(&player)?;
    let me = &player.account.id;
    let mut groups = Vec::new();
    for id in app.store.groups_of(me).await? {
        if let Some(g) = app.store.group_for(&id, me).await? {
            groups.push(view(&app, g, me).await?);
        }
    }
    let invitations = app
        .store
        .invitations_of(me)
        .await?
        .into_iter()
        .map(|(group, name, creator, members)| Invitation {
            group,
            name,
            creator,
            members: u32::try_from(members).unwrap_or(0),
        })
        .collect();
    Ok(Json(MyGroups {
        groups,
        invitations,
    }))
}

/// A group, for its participants (ON-G08).
#[utoipa::path(
    get,
    path = "/api/groups/{id}",
    tag = "groups",
    params(("id" = String, Path, description = "The group id")),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The group", body = Group),
        (status = 404, description = "No such group, or the player takes no part in it", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
        (status = 403, description = "subscribers_only", body = velha_api::ApiError),
    )
)]
pub async fn get(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<Json<Group>> {
    subscriber(&player)?;
    let g = member_view(&app, &id, &player).await?;
    Ok(Json(view(&app, g, &player.account.id).await?))
}

/// The creator invites a player by name (ON-G02).
#[utoipa::path(
    post,
    path = "/api/groups/{id}/invitations",
    tag = "groups",
    params(("id" = String, Path, description = "The group id")),
    request_body = Invite,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Invited"),
        (status = 403, description = "Only the creator invites", body = velha_api::ApiError),
        (status = 404, description = "No such group for this player, or no player has that name", body = velha_api::ApiError),
        (status = 409, description = "group_full, too_many_groups, or already a participant", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
        (status = 400, description = "A body without its fields", body = velha_api::ApiError),
    )
)]
pub async fn invite(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
    Json(body): Json<Invite>,
) -> AppResult<StatusCode> {
    subscriber(&player)?;
    let g = member_view(&app, &id, &player).await?;
    creator_only(&g, &player, "invites")?;
    check_text("the name", &body.name, ErrorCode::BadName)?;
    let invitee = app
        .store
        .account_by_name(body.name.trim())
        .await?
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::NotFound,
                format!("no player is named {:?}", body.name.trim()),
            )
        })?;
    let new = app
        .store
        .invite(&id, &invitee.id, now_ms())
        .await
        .map_err(refused)?;
    if !new {
        return Ok(StatusCode::NO_CONTENT);
    }
    app.push.tell(Notice::Group(GroupNotice {
        account: invitee.id.clone(),
        group: id.clone(),
        name: g.name.clone(),
        other: player.account.name.clone(),
        about: GroupAbout::Invited,
    }));
    tell(&app, &id, vec![invitee.id]).await;
    Ok(StatusCode::NO_CONTENT)
}

/// The invited player accepts (ON-G02; ON-G01's limits hold however many accept at once).
#[utoipa::path(
    post,
    path = "/api/groups/{id}/invitation/accept",
    tag = "groups",
    params(("id" = String, Path, description = "The group id")),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Now a participant", body = Group),
        (status = 404, description = "No invitation to this group for this player", body = velha_api::ApiError),
        (status = 409, description = "group_full or too_many_groups (the invitation stays)", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
        (status = 403, description = "subscribers_only", body = velha_api::ApiError),
    )
)]
pub async fn accept(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<Json<Group>> {
    subscriber(&player)?;
    app.store
        .accept(&id, &player.account.id, now_ms())
        .await
        .map_err(|e| match e {
            GroupError::TooMany => AppError::new(
                ErrorCode::TooManyGroups,
                "you already take part in 2 groups: leave one first",
            ),
            other => refused(other),
        })?;
    tell(&app, &id, vec![]).await;
    let g = member_view(&app, &id, &player).await?;
    Ok(Json(view(&app, g, &player.account.id).await?))
}

/// The invited player declines (ON-G02).
#[utoipa::path(
    post,
    path = "/api/groups/{id}/invitation/decline",
    tag = "groups",
    params(("id" = String, Path, description = "The group id")),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Declined"),
        (status = 404, description = "No invitation to this group for this player", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
        (status = 403, description = "subscribers_only", body = velha_api::ApiError),
    )
)]
pub async fn decline(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    subscriber(&player)?;
    app.store
        .decline(&id, &player.account.id)
        .await
        .map_err(refused)?;
    tell(&app, &id, vec![player.account.id.clone()]).await;
    Ok(StatusCode::NO_CONTENT)
}

/// A participant leaves (ON-G02); the creator finalizes instead.
#[utoipa::path(
    delete,
    path = "/api/groups/{id}/members/me",
    tag = "groups",
    params(("id" = String, Path, description = "The group id")),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Left"),
        (status = 403, description = "The creator finalizes the group instead", body = velha_api::ApiError),
        (status = 404, description = "No such group for this player", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn leave(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    subscriber(&player)?;
    let g = member_view(&app, &id, &player).await?;
    if g.creator_id == player.account.id {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "the creator does not leave: finalize the group instead",
        ));
    }
    app.store
        .leave(&id, &player.account.id)
        .await
        .map_err(refused)?;
    tell(&app, &id, vec![player.account.id.clone()]).await;
    Ok(StatusCode::NO_CONTENT)
}

/// The creator finalizes: the group and all its history are deleted (ON-G09).
#[utoipa::path(
    delete,
    path = "/api/groups/{id}",
    tag = "groups",
    params(("id" = String, Path, description = "The group id")),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 204, description = "Deleted, with everything of it"),
        (status = 403, description = "Only the creator finalizes", body = velha_api::ApiError),
        (status = 409, description = "group_match_live: a match of the group is being played", body = velha_api::ApiError),
        (status = 404, description = "No such group for this player", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn finalize(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
) -> AppResult<StatusCode> {
    subscriber(&player)?;
    let g = member_view(&app, &id, &player).await?;
    creator_only(&g, &player, "finalizes it")?;
    let finalized = app.store.finalize_group(&id).await.map_err(refused)?;
    for (match_id, list) in finalized.open {
        app.hub.lobby_closed(&match_id, &list).await;
    }
    app.hub.group_finalized(&id, finalized.people).await;
    Ok(StatusCode::NO_CONTENT)
}

/// A participant plays the server's Velha in a group that includes her (ON-G05): the match
/// starts at once, the player X, and is played over the WebSocket like any other.
#[utoipa::path(
    post,
    path = "/api/groups/{id}/velha",
    tag = "groups",
    params(("id" = String, Path, description = "The group id")),
    request_body = PlayVelha,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 201, description = "The match, live, the player to move", body = MatchView),
        (status = 400, body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
        (status = 403, description = "subscribers_only, or the Velha is not in this group", body = velha_api::ApiError),
        (status = 404, description = "No such group for this player", body = velha_api::ApiError),
        (status = 409, description = "already_playing, or group_not_started", body = velha_api::ApiError),
    )
)]
pub async fn play_velha(
    State(app): State<Arc<App>>,
    player: Player,
    Path(id): Path<String>,
    Json(body): Json<PlayVelha>,
) -> AppResult<(StatusCode, Json<MatchView>)> {
    subscriber(&player)?;
    let lvl = super::level(body.level)?;
    let me = &player.account;
    let g = playing_group(&app, &id, &me.id).await?;
    if !g.with_velha {
        return Err(AppError::new(
            ErrorCode::Forbidden,
            "the group's creator did not include the Velha",
        ));
    }
    let now = now_ms();
    let row = MatchRow {
        game: MatchGame::Cube,
        ratings: None,
        away: [None, None],
        id: new_id(),
        scope: Scope::Mundial,
        level: body.level,
        x_id: me.id.clone(),
        x_name: me.name.clone(),
        x_country: me.country.clone(),
        o_id: None,
        o_name: Some(VELHA_NAME.to_owned()),
        state: MatchState::Live,
        position: Cube::new(lvl).to_string(),
        ply: 0,
        deadline: Some(now + app.clocks.move_ms),
        winner: None,
        ending: None,
        created_at: now,
        scored: None,
        group: Some(id),
        velha: true,
    };
    app.store
        .insert_velha_match(&row, now)
        .await
        .map_err(seat_refused)?;
    let view = app.hub.start(&row, &me.id).await.map_err(|e| {
        tracing::error!(error = %e, "could not start a match against the Velha");
        AppError::new(ErrorCode::Internal, "the match could not start")
    })?;
    Ok((
        StatusCode::CREATED,
        Json(view.unwrap_or_else(|| stored_view(&row, &me.id))),
    ))
}
