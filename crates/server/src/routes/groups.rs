//! Mini-ranking groups (online.md ON-G01, ON-G02, ON-G08, ON-G09), for subscribers (ON-A03):
//! make one, invite by name, accept or decline, leave, finalize. A group answers 404 to anyone
//! who does not take part in it.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use velha_api::{CreateGroup, ErrorCode, Group, Invitation, Invite, MyGroups};

use crate::app::App;
use crate::auth::Player;
use crate::error::{AppError, AppResult, Json};
use crate::store::{GroupError, GroupRow};
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
        GroupError::Db(e) => e.into(),
    }
}

/// What anyone outside a group hears of it (ON-G08: not even that it exists).
fn no_group() -> AppError {
    AppError::new(ErrorCode::NotFound, "no such group")
}

fn view(g: GroupRow, viewer: &str) -> Group {
    let creator = g.creator_id == viewer;
    Group {
        id: g.id,
        name: g.name,
        creator: g.creator,
        with_velha: g.with_velha,
        members: g.members,
        invited: if creator { g.invited } else { Vec::new() },
    }
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
        (status = 400, description = "A name that is empty, too long or has control characters", body = velha_api::ApiError),
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
    Ok((StatusCode::CREATED, Json(view(g, &player.account.id))))
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
            groups.push(view(g, me));
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
    Ok(Json(view(g, &player.account.id)))
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
    app.store
        .invite(&id, &invitee.id, now_ms())
        .await
        .map_err(refused)?;
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
    let g = member_view(&app, &id, &player).await?;
    Ok(Json(view(g, &player.account.id)))
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
    app.store.finalize_group(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}
