//! The server's HTTP API with `velha-api`'s types, over `platform::http`. On the web the
//! session is an HttpOnly cookie the browser keeps; on native a token the device keeps.

use serde::Serialize;
use serde::de::DeserializeOwned;
use velha_api::{
    Account, ApiError, Avatar, CountryChange, CreateGroup, CreateMatch, CreateRoom, GoogleLink,
    GoogleSignIn, Group, Invite, JoinRoom, LogIn, MatchView, MyGroups, MyPosition, OpenMatch,
    PageRequest, PlayVelha, ProviderPage, RankingPage, RegionChange, RoomAct, RoomAction,
    RoomBoard, RoomLookup, RoomSeat, RoomView, Scope, Session, SignInOptions, SignUp,
    SubscriptionView,
};

use crate::platform;

/// Why a request did not do what was asked.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The server could not be reached, or its answer was not the API's.
    Offline,
    /// The server refused, saying why.
    Refused(ApiError),
}

impl Problem {
    /// Whether the same request, made again, may do what was asked: the signal or the server
    /// failed for a moment, rather than the server refusing the request. A write may have been
    /// done all the same (its answer lost, or `timeout`): one made again must read as done.
    pub fn passing(&self) -> bool {
        use velha_api::ErrorCode::*;
        match self {
            Problem::Offline => true,
            Problem::Refused(e) => matches!(
                e.code,
                Internal
                    | NotReady
                    | Timeout
                    | RateLimited
                    // A newer server's code this app does not know: asking costs a tap.
                    | Unrecognized
            ),
        }
    }
}

async fn call<T: DeserializeOwned>(
    method: &str,
    path: &str,
    json: Option<String>,
) -> Result<T, Problem> {
    read(platform::http(method, path, json).await)
}

/// What an answer of `platform::http` says.
pub fn read<T: DeserializeOwned>(answer: platform::Answer) -> Result<T, Problem> {
    let (status, text) = answer.map_err(|()| Problem::Offline)?;
    if (200..300).contains(&status) {
        return serde_json::from_str(&text).map_err(|_| Problem::Offline);
    }
    // A proxy's or a captive portal's page is not the server's refusal.
    let error: ApiError = serde_json::from_str(&text).map_err(|_| Problem::Offline)?;
    Err(Problem::Refused(error))
}

/// A request whose success has no body.
async fn call_empty(method: &str, path: &str) -> Result<(), Problem> {
    let (status, text) = platform::http(method, path, None)
        .await
        .map_err(|()| Problem::Offline)?;
    if (200..300).contains(&status) {
        return Ok(());
    }
    Err(serde_json::from_str(&text).map_or(Problem::Offline, Problem::Refused))
}

async fn send<B: Serialize, T: DeserializeOwned>(
    method: &str,
    path: &str,
    body: &B,
) -> Result<T, Problem> {
    let json = serde_json::to_string(body).map_err(|_| Problem::Offline)?;
    call(method, path, Some(json)).await
}

/// Whether the app keeps the session as a cookie (the web) rather than a token (native).
const COOKIE: bool = cfg!(target_arch = "wasm32");

/// Makes an account in the country the player picked (without one, the region's) and signs in.
pub async fn sign_up(
    email: &str,
    password: &str,
    name: &str,
    country: Option<&str>,
) -> Result<Session, Problem> {
    let body = SignUp {
        email: email.trim().into(),
        password: password.into(),
        name: name.trim().into(),
        region: platform::region(),
        country: country.map(Into::into),
        cookie: COOKIE,
    };
    let session: Session = send("POST", "/api/accounts", &body).await?;
    platform::keep_session_token(session.token.as_deref());
    Ok(session)
}

/// Confirms the account's e-mail with the link's token: the address.
pub async fn verify_email(token: &str) -> Result<velha_api::EmailVerified, Problem> {
    let body = velha_api::VerifyEmail {
        token: token.into(),
    };
    send("POST", "/api/email/verify", &body).await
}

/// Sends the confirmation link again.
pub async fn resend_confirmation() -> Result<(), Problem> {
    let body = velha_api::ResendVerification {
        language: Some(platform::locale()),
    };
    let json = serde_json::to_string(&body).map_err(|_| Problem::Offline)?;
    done("POST", "/api/me/email/verification", json).await
}

/// "Esqueci a senha": a link goes to the address if an account has it confirmed.
pub async fn forgot_password(email: &str) -> Result<(), Problem> {
    let body = velha_api::ForgotPassword {
        email: email.trim().into(),
        language: Some(platform::locale()),
    };
    let json = serde_json::to_string(&body).map_err(|_| Problem::Offline)?;
    done("POST", "/api/password/forgot", json).await
}

/// Chooses the new password with the link's token; signed in on this device.
pub async fn reset_password(token: &str, password: &str) -> Result<Session, Problem> {
    let body = velha_api::ResetPassword {
        token: token.into(),
        password: password.into(),
        cookie: COOKIE,
    };
    let session: Session = send("POST", "/api/password/reset", &body).await?;
    platform::keep_session_token(session.token.as_deref());
    Ok(session)
}

/// A request with a body whose success has none (202, 204).
async fn done(method: &str, path: &str, json: String) -> Result<(), Problem> {
    let (status, text) = platform::http(method, path, Some(json))
        .await
        .map_err(|()| Problem::Offline)?;
    if (200..300).contains(&status) {
        return Ok(());
    }
    Err(serde_json::from_str(&text).map_or(Problem::Offline, Problem::Refused))
}

/// Signs in with e-mail and password.
pub async fn log_in(email: &str, password: &str) -> Result<Session, Problem> {
    let body = LogIn {
        email: email.trim().into(),
        password: password.into(),
        cookie: COOKIE,
    };
    let session: Session = send("POST", "/api/sessions", &body).await?;
    platform::keep_session_token(session.token.as_deref());
    Ok(session)
}

/// The ways of signing in the server offers besides e-mail and password.
pub async fn sign_in_options() -> Result<SignInOptions, Problem> {
    call("GET", "/api/sign-in-options", None).await
}

/// Signs in with a Google ID token; a new account needs `name` (else `name_required`) and the
/// country the player picked.
pub async fn google(
    id_token: &str,
    name: Option<&str>,
    country: Option<&str>,
) -> Result<Session, Problem> {
    let body = GoogleSignIn {
        id_token: id_token.into(),
        name: name.map(|n| n.trim().into()),
        region: platform::region(),
        country: country.map(Into::into),
        cookie: COOKIE,
    };
    let session: Session = send("POST", "/api/sessions/google", &body).await?;
    platform::keep_session_token(session.token.as_deref());
    Ok(session)
}

/// Links a Google account to the signed-in account, so either signs in.
pub async fn link_google(id_token: &str) -> Result<Account, Problem> {
    let body = GoogleLink {
        id_token: id_token.into(),
    };
    send("PUT", "/api/me/google", &body).await
}

/// Every place the account is signed in, this one marked.
pub async fn sessions() -> Result<Vec<velha_api::SignedIn>, Problem> {
    call("GET", "/api/me/sessions", None).await
}

/// The signed-in account, as the server has it now.
pub async fn me() -> Result<Account, Problem> {
    call("GET", "/api/me", None).await
}

/// Signs out one session of the account, by its id.
pub async fn end_session(id: &str) -> Result<(), Problem> {
    call_empty("DELETE", &format!("/api/me/sessions/{id}")).await
}

/// Signs out every session of the account but this one.
pub async fn end_other_sessions() -> Result<(), Problem> {
    call_empty("DELETE", "/api/me/sessions").await
}

/// A new password, with the current one; the other sessions are signed out.
pub async fn change_password(current: &str, password: &str) -> Result<(), Problem> {
    let body = velha_api::ChangePassword {
        current: current.into(),
        password: password.into(),
    };
    let json = serde_json::to_string(&body).map_err(|_| Problem::Offline)?;
    done("POST", "/api/me/password", json).await
}

/// Everything the server holds about the player (ON-A05): the file's text.
pub async fn export() -> Result<String, Problem> {
    let (status, text) = platform::http("GET", "/api/me/export", None)
        .await
        .map_err(|()| Problem::Offline)?;
    if (200..300).contains(&status) {
        return Ok(text);
    }
    Err(serde_json::from_str(&text).map_or(Problem::Offline, Problem::Refused))
}

/// Deletes the account (ON-A04), confirmed by its password (none: a fresh sign-in); the
/// device forgets the session.
pub async fn delete_account(password: Option<&str>) -> Result<(), Problem> {
    let body = velha_api::DeleteAccount {
        password: password.map(Into::into),
    };
    let json = serde_json::to_string(&body).map_err(|_| Problem::Offline)?;
    done("DELETE", "/api/me", json).await?;
    platform::keep_session_token(None);
    Ok(())
}

/// Signs out. The device forgets the session even when the server cannot be told.
pub async fn log_out() -> Result<(), Problem> {
    let sent = call_empty("DELETE", "/api/sessions/current").await;
    platform::keep_session_token(None);
    match sent {
        // The session had already ended.
        Err(Problem::Refused(e)) if e.code == velha_api::ErrorCode::Unauthorized => Ok(()),
        other => other,
    }
}

/// Tells the server the player read that the moderation changed their name: the notice is
/// not shown again, on any device.
pub async fn clear_rename_notice() -> Result<(), Problem> {
    call_empty("DELETE", "/api/me/rename-notice").await
}

/// Reports a player the signed-in player met in a match, a room or the rankings.
pub async fn report(report: &velha_api::Report) -> Result<(), Problem> {
    let json = serde_json::to_string(report).map_err(|_| Problem::Offline)?;
    done("POST", "/api/reports", json).await
}

/// What the player is in the middle of: their open or live match, or the 2.0 queue.
pub async fn playing() -> Result<velha_api::Playing, Problem> {
    call("GET", "/api/me/playing", None).await
}

/// Tells the server the device's region changed (ON-A02).
pub async fn set_region(region: String) -> Result<Account, Problem> {
    send("PUT", "/api/me/region", &RegionChange { region }).await
}

/// Sets the country the player picked (ON-A02).
pub async fn set_country(country: &str) -> Result<Account, Problem> {
    let body = CountryChange {
        country: country.into(),
    };
    send("PUT", "/api/me/country", &body).await
}

/// The plans on sale and the player's subscription (ON-A03).
pub async fn subscription() -> Result<SubscriptionView, Problem> {
    call("GET", "/api/subscription", None).await
}

/// The provider's checkout page for the plan on sale, in the app's language (`pt-BR`, `en`);
/// asked again while it is open, the same page.
pub async fn checkout(locale: &str) -> Result<ProviderPage, Problem> {
    let body = PageRequest {
        locale: Some(locale.into()),
    };
    send("POST", "/api/subscription/checkout", &body).await
}

/// The provider's customer portal (cancel, change the card); `no_customer` for a player who
/// never paid.
pub async fn portal(locale: &str) -> Result<ProviderPage, Problem> {
    let body = PageRequest {
        locale: Some(locale.into()),
    };
    send("POST", "/api/subscription/portal", &body).await
}

/// Opens a match in the lobby, or in a group's list; the creator plays X (ON-M02, ON-G03).
pub async fn create_match(
    scope: Scope,
    level: u8,
    group: Option<String>,
) -> Result<OpenMatch, Problem> {
    let body = CreateMatch {
        scope,
        level,
        group,
    };
    send("POST", "/api/lobby", &body).await
}

/// Withdraws the player's open match.
pub async fn cancel_match(id: &str) -> Result<(), Problem> {
    call_empty("DELETE", &format!("/api/lobby/{id}")).await
}

/// Joins 2.0's competitive queue (ON-V01); the match starts on the live connection.
pub async fn queue_join() -> Result<velha_api::QueueStatus, Problem> {
    call("POST", "/api/competitive/queue", None).await
}

/// The player's place in the queue, and their rating.
pub async fn queue_status() -> Result<velha_api::QueueStatus, Problem> {
    call("GET", "/api/competitive/queue", None).await
}

/// Leaves the queue.
pub async fn queue_leave() -> Result<(), Problem> {
    call_empty("DELETE", "/api/competitive/queue").await
}

/// The first page of 2.0's rating leaderboard, with the player's own line.
pub async fn leaderboard() -> Result<velha_api::Leaderboard, Problem> {
    call("GET", "/api/competitive/leaderboard", None).await
}

/// Joins an open match: it starts, the creator to move.
pub async fn join_match(id: &str) -> Result<MatchView, Problem> {
    call("POST", &format!("/api/lobby/{id}/join"), None).await
}

/// One of the player's matches, as it stands (a finished one included).
pub async fn get_match(id: &str) -> Result<MatchView, Problem> {
    call("GET", &format!("/api/matches/{id}"), None).await
}

/// A page of a ranking (Nacional: the player's country), after `cursor` when given.
pub async fn ranking_page(
    scope: Scope,
    level: u8,
    cursor: Option<&str>,
) -> Result<RankingPage, Problem> {
    let mut path = format!("/api/rankings?scope={}&level={level}", scope.as_str());
    if let Some(c) = cursor {
        // Cursors are URL-safe base64; anything else is not sent as is.
        if !c
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(Problem::Offline);
        }
        path.push_str("&cursor=");
        path.push_str(c);
    }
    call("GET", &path, None).await
}

/// The player's place in the four rankings.
pub async fn my_rankings() -> Result<Vec<MyPosition>, Problem> {
    call("GET", "/api/rankings/me", None).await
}

/// Group ids go into paths only as the server makes them.
fn group_path(id: &str, rest: &str) -> Result<String, Problem> {
    if id.is_empty()
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(Problem::Offline);
    }
    Ok(format!("/api/groups/{id}{rest}"))
}

/// The player's groups and the invitations waiting for them.
pub async fn my_groups() -> Result<MyGroups, Problem> {
    call("GET", "/api/groups", None).await
}

/// One of the player's groups, with its table.
pub async fn group(id: &str) -> Result<Group, Problem> {
    call("GET", &group_path(id, "")?, None).await
}

/// Creates the player's group (ON-G01).
pub async fn create_group(name: &str, with_velha: bool) -> Result<Group, Problem> {
    let body = CreateGroup {
        name: name.trim().into(),
        with_velha,
    };
    send("POST", "/api/groups", &body).await
}

/// The creator invites a player by name (ON-G02).
pub async fn invite(group: &str, name: &str) -> Result<(), Problem> {
    let body = Invite {
        name: name.trim().into(),
    };
    let json = serde_json::to_string(&body).map_err(|_| Problem::Offline)?;
    let path = group_path(group, "/invitations")?;
    let (status, text) = platform::http("POST", &path, Some(json))
        .await
        .map_err(|()| Problem::Offline)?;
    if (200..300).contains(&status) {
        return Ok(());
    }
    Err(serde_json::from_str(&text).map_or(Problem::Offline, Problem::Refused))
}

/// Accepts an invitation (ON-G02).
pub async fn accept(group: &str) -> Result<Group, Problem> {
    call("POST", &group_path(group, "/invitation/accept")?, None).await
}

/// Declines an invitation.
pub async fn decline(group: &str) -> Result<(), Problem> {
    call_empty("POST", &group_path(group, "/invitation/decline")?).await
}

/// Leaves a group (not the own one).
pub async fn leave_group(group: &str) -> Result<(), Problem> {
    call_empty("DELETE", &group_path(group, "/members/me")?).await
}

/// The creator finalizes the group: it is deleted with all its history (ON-G09).
pub async fn finalize_group(group: &str) -> Result<(), Problem> {
    call_empty("DELETE", &group_path(group, "")?).await
}

/// Starts a match against the server's Velha in a group (ON-G05).
pub async fn play_velha(group: &str, level: u8) -> Result<MatchView, Problem> {
    send("POST", &group_path(group, "/velha")?, &PlayVelha { level }).await
}

/// Room ids go into paths only as the server makes them.
fn room_path(id: &str, rest: &str) -> Result<String, Problem> {
    if !velha_api::is_link_id(id) {
        return Err(Problem::Offline);
    }
    Ok(format!("/api/rooms/{id}{rest}"))
}

/// A finished game, move by move (ON-P01): `id` is a match's id or `<room>/<game>`.
pub async fn replay(id: &str) -> Result<velha_api::Replay, Problem> {
    // A link no server makes: asking again will not help, as for one the server refuses.
    if !velha_api::is_replay_id(id) {
        return Err(Problem::Refused(ApiError::new(
            velha_api::ErrorCode::BadRequest,
            "not a replay's link",
        )));
    }
    call("GET", &format!("/api/replays/{id}"), None).await
}

/// Makes an invitation room; the creator sits as X (CLASSIC-R08) and `starter` begins the
/// first game (SUPER-R05: the server tosses the coin).
pub async fn create_room(
    board: RoomBoard,
    name: &str,
    avatar: Option<Avatar>,
    starter: velha_api::RoomStarter,
) -> Result<RoomSeat, Problem> {
    let body = CreateRoom {
        board,
        name: name.trim().into(),
        avatar,
        starter,
    };
    send("POST", "/api/rooms", &body).await
}

/// A room as its link shows it to anyone.
pub async fn room(id: &str) -> Result<RoomView, Problem> {
    call("GET", &room_path(id, "")?, None).await
}

/// Takes a room's free seat (O).
pub async fn join_room(id: &str, name: &str, avatar: Option<Avatar>) -> Result<RoomSeat, Problem> {
    let body = JoinRoom {
        name: name.trim().into(),
        avatar,
    };
    send("POST", &room_path(id, "/join")?, &body).await
}

/// A seated player's action.
pub async fn room_act(id: &str, credential: &str, act: RoomAct) -> Result<RoomView, Problem> {
    let body = RoomAction {
        credential: credential.into(),
        act,
    };
    send("POST", &room_path(id, "/act")?, &body).await
}

/// The rooms whose seats these credentials hold (this device's, ON-R05).
pub async fn rooms_of_device(credentials: Vec<String>) -> Result<Vec<RoomView>, Problem> {
    send("POST", "/api/rooms/lookup", &RoomLookup { credentials }).await
}

/// The signed-in player's rooms, from any device.
pub async fn rooms_of_account() -> Result<Vec<RoomView>, Problem> {
    call("GET", "/api/rooms", None).await
}

/// The key the browser's push manager subscribes with.
pub async fn push_key() -> Result<velha_api::PushKey, Problem> {
    call("GET", "/api/push/key", None).await
}

/// Keeps this device's push subscription for its seats (and the account, signed in).
pub async fn push_subscribe(
    body: &velha_api::PushSubscribe,
) -> Result<velha_api::PushSubscribed, Problem> {
    send("POST", "/api/push/subscriptions", body).await
}

/// Ends this device's push subscription.
pub async fn push_unsubscribe(id: &str) -> Result<(), Problem> {
    if id.is_empty()
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(Problem::Offline);
    }
    call_empty("DELETE", &format!("/api/push/subscriptions/{id}")).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use velha_api::ErrorCode;

    /// A newer server's error code is still the server's refusal (its own words say what
    /// failed), never a page from something else between; a proxy's page still is.
    #[test]
    fn an_unknown_error_code_is_a_refusal_and_a_foreign_page_is_offline() {
        let body = r#"{"code":"some_code_of_a_later_version","message":"later"}"#;
        match read::<Account>(Ok((500, body.into()))) {
            Err(Problem::Refused(e)) => {
                assert_eq!(e.code, ErrorCode::Unrecognized);
                assert_eq!(e.message, "later");
            }
            other => panic!("{other:?}"),
        }
        let known = r#"{"code":"damaged_record","message":"m"}"#;
        assert!(matches!(
            read::<Account>(Ok((500, known.into()))),
            Err(Problem::Refused(e)) if e.code == ErrorCode::DamagedRecord
        ));
        let portal = "<html>Sign in to the hotel's Wi-Fi</html>";
        assert!(matches!(
            read::<Account>(Ok((200, portal.into()))),
            Err(Problem::Offline)
        ));
        assert!(matches!(
            read::<Account>(Ok((502, portal.into()))),
            Err(Problem::Offline)
        ));
    }

    /// ON-P01: a link no server makes is refused before any request, as no such game, which
    /// asking again will not show (the replay screen offers no retry for it).
    #[tokio::test]
    async fn on_p01_a_replay_link_no_server_makes_is_no_game_not_offline() {
        for bad in ["", "a/b", "../x", "a%2F1"] {
            match replay(bad).await {
                Err(Problem::Refused(e)) => assert_eq!(e.code, ErrorCode::BadRequest, "{bad:?}"),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }
}
