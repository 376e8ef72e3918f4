//! The WebSocket of live play: `hello` first, then moves, until the connection closes.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::StreamExt;
use tokio::sync::{Notify, mpsc};
use tracing::Instrument;
use velha_api::{ClientMsg, ErrorCode, MAX_LIVE_FRAME, ServerMsg};

use super::connection::{Farewell, Outbox, READ_BUFFER, Speaks, carry, farewell_for};
use super::websocket::{Message, Upgrade, Utf8Bytes, WebSocket};
use crate::app::App;
use crate::auth::{cookie_token, is_subscriber, same_origin};
use crate::live::{ConnHandle, Outgoing};
use crate::move_trace::MoveTrace;
use crate::store::{AccountRow, LobbyList};
use crate::token::{now_ms, session_id, token_hash};

/// How long a new connection has to say `hello`.
pub(super) const HELLO_WITHIN: Duration = Duration::from_secs(10);

/// Live play.
#[utoipa::path(
    get,
    path = "/api/live",
    tag = "live",
    description = "Upgrades to a WebSocket carrying one JSON message per text frame: \
        ClientMsg from the app (first `hello` with the session token, or an empty token for \
        the session cookie of the upgrade request, which counts only from this site's own \
        pages), ServerMsg from the server (first `welcome`). Both schemas are in this document's components. A frame \
        may have at most 16384 bytes (16 KiB): a larger one closes that connection with \
        code 1009 (message too big) and a reason; the player's other connections and \
        matches go on.",
    responses(
        (status = 101, description = "Switching to the WebSocket"),
        (status = 400, description = "Not a WebSocket request"),
    )
)]
pub async fn live(State(app): State<Arc<App>>, headers: HeaderMap, upgrade: Upgrade) -> Response {
    // Another site's page can open a WebSocket here too, with the player's cookie: only the
    // site's own pages may use it (cross-site WebSocket hijacking).
    let cookie = cookie_token(&headers)
        .filter(|_| same_origin(&headers))
        .map(str::to_owned);
    upgrade
        .read_buffer_size(READ_BUFFER)
        .max_frame_size(MAX_LIVE_FRAME)
        .max_message_size(MAX_LIVE_FRAME)
        .on_upgrade(move |socket| session(app, Box::new(socket), cookie))
}

fn encoded(msg: &ServerMsg) -> Utf8Bytes {
    // Serialising these plain types cannot fail.
    Utf8Bytes::from(serde_json::to_string(msg).unwrap_or_default())
}

fn text(msg: &ServerMsg) -> Message {
    Message::Text(encoded(msg))
}

fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
    ServerMsg::Error {
        code,
        message: message.into(),
    }
}

async fn hello(
    app: &App,
    socket: &mut WebSocket,
    cookie: Option<String>,
) -> Result<(Box<AccountRow>, String), Farewell<ServerMsg>> {
    let say = |code, text: &str| Farewell::Say(error(code, text));
    let first = tokio::time::timeout(HELLO_WITHIN, socket.next())
        .await
        .map_err(|_| say(ErrorCode::Unauthorized, "say hello with your token first"))?;
    if let Some(Err(e)) = &first
        && let Some(frame) = farewell_for(e)
    {
        return Err(Farewell::Close(frame));
    }
    let Some(Ok(Message::Text(t))) = first else {
        return Err(say(
            ErrorCode::BadRequest,
            "the first message must be hello",
        ));
    };
    let token = match serde_json::from_str::<ClientMsg>(&t) {
        Ok(ClientMsg::Hello { token }) if token.is_empty() => cookie.ok_or_else(|| {
            say(
                ErrorCode::Unauthorized,
                "hello without a token needs the session cookie, from this site's own pages",
            )
        })?,
        Ok(ClientMsg::Hello { token }) => token,
        Ok(_) => {
            return Err(say(
                ErrorCode::BadRequest,
                "the first message must be hello",
            ));
        }
        Err(e) => return Err(say(ErrorCode::BadRequest, &format!("not a message: {e}"))),
    };
    let hash = token_hash(&token);
    match app.store.account_by_session(&hash, now_ms()).await {
        Ok(Some(account)) => {
            crate::auth::session_used(app, &hash);
            Ok((Box::new(account), session_id(&hash)))
        }
        Ok(None) => Err(say(
            ErrorCode::Unauthorized,
            "the session is unknown or expired; sign in again",
        )),
        Err(e) => {
            tracing::error!(error = %e, "database error");
            Err(say(ErrorCode::Internal, "storage failed"))
        }
    }
}

async fn session(app: Arc<App>, mut socket: Box<WebSocket>, cookie: Option<String>) {
    // A stop waits for the connection: the move it is answering is committed and told, and
    // what it writes as it ends is written, before the process exits.
    let _working = app.hub.drain.working();
    // Boxed, as every step that reads the store, and so are a refusal and the account: an idle
    // connection's task keeps room for whatever its future holds across an await, for the
    // connection's whole life (`connection.rs`).
    let (account, session) = match Box::pin(hello(&app, &mut socket, cookie))
        .await
        .map_err(Box::new)
    {
        Ok(signed_in) => signed_in,
        Err(farewell) => {
            Box::pin((*farewell).tell(&mut socket, text)).await;
            return;
        }
    };
    let conn = Box::pin(app.hub.connect(&account.id, session)).await;
    let span = tracing::info_span!("live", player = %account.name, conn = conn.id);
    serve_player(app, socket, account, conn)
        .instrument(span)
        .await;
}

/// What a signed-in player's connection says.
struct PlayerSpeaker<'a> {
    app: &'a App,
    account: &'a AccountRow,
    conn: u64,
    reply: &'a mpsc::Sender<Outgoing>,
    close: &'a Arc<Notify>,
}

impl Speaks for PlayerSpeaker<'_> {
    type Out = Outgoing;

    const KIND: &'static str = "player";

    fn frame(out: &Outgoing) -> Utf8Bytes {
        encoded(out)
    }

    fn bad_request(why: String) -> Outgoing {
        Arc::new(error(ErrorCode::BadRequest, why))
    }

    async fn answer(&mut self, t: Utf8Bytes) -> Option<Outgoing> {
        let (app, account) = (self.app, self.account);
        let answer = match serde_json::from_str::<ClientMsg>(&t) {
            Err(e) => Some(error(ErrorCode::BadRequest, format!("not a message: {e}"))),
            Ok(ClientMsg::Hello { .. }) => Some(error(
                ErrorCode::BadRequest,
                "already signed in on this connection",
            )),
            Ok(ClientMsg::Ping) => Some(ServerMsg::Pong),
            Ok(ClientMsg::Play {
                match_id,
                ply,
                actions,
            }) => MoveTrace::traced(
                app.move_trace.as_ref(),
                app.hub.play(&account.id, &match_id, ply, actions),
                |played| played.is_ok().then(|| format!("match {match_id} {ply}")),
            )
            .await
            .err()
            .map(|refusal| ServerMsg::Refused { match_id, refusal }),
            Ok(ClientMsg::Leave { match_id }) => app
                .hub
                .leave(&account.id, &match_id)
                .await
                .err()
                .map(|refusal| ServerMsg::Refused { match_id, refusal }),
            Ok(ClientMsg::WatchLobby {
                scope,
                level,
                group,
            }) => {
                let list = LobbyList {
                    scope,
                    level,
                    group,
                };
                watch_lobby(app, account, (self.conn, self.reply, self.close), list).await
            }
            Ok(ClientMsg::UnwatchLobby) => {
                app.hub.unwatch_lobby(self.conn);
                None
            }
        };
        answer.map(Arc::new)
    }
}

/// Carries a signed-in player's connection (`connection.rs`) until either side ends it.
async fn serve_player(
    app: Arc<App>,
    socket: Box<WebSocket>,
    account: Box<AccountRow>,
    conn: ConnHandle,
) {
    tracing::info!("connected");
    let ConnHandle {
        id: conn_id,
        rx,
        tx: reply,
        close,
    } = conn;
    let _ = reply.try_send(Arc::new(Box::pin(welcome(&app, &account)).await));
    let outbox = Outbox {
        rx,
        tx: reply.clone(),
        close: close.clone(),
        drain: app.hub.drain.clone(),
    };
    let mut speaker = PlayerSpeaker {
        app: &app,
        account: &account,
        conn: conn_id,
        reply: &reply,
        close: &close,
    };
    carry(socket, outbox, app.silence, &mut speaker).await;
    Box::pin(app.hub.disconnect(&account.id, conn_id)).await;
    tracing::info!("disconnected");
}

/// Starts a lobby watch: the list as it is (then its changes, from the hub), or why not.
async fn watch_lobby(
    app: &App,
    account: &AccountRow,
    (conn, reply, close): (u64, &mpsc::Sender<Outgoing>, &Arc<Notify>),
    list: LobbyList,
) -> Option<ServerMsg> {
    if !is_subscriber(account, now_ms()) {
        return Some(error(
            ErrorCode::SubscribersOnly,
            "online play is for subscribers",
        ));
    }
    if !(1..=2).contains(&list.level) {
        return Some(error(ErrorCode::BadRequest, "the level is 1 or 2"));
    }
    app.hub
        .watch_lobby(conn, list.clone(), account, reply.clone(), close.clone());
    // Taking part is checked once the watch is in place: leaving the group after this ends
    // the watch, and leaving before it is seen here.
    if let Some(group) = &list.group {
        let refusal = match app.store.group_for(group, &account.id).await {
            Ok(Some(_)) => None,
            // ON-G08: a group is nothing to anyone outside it.
            Ok(None) => Some(error(ErrorCode::NotFound, "no such group")),
            Err(e) => {
                tracing::error!(error = %e, "database error");
                Some(error(ErrorCode::Internal, "the group could not be read"))
            }
        };
        if refusal.is_some() {
            app.hub.unwatch_lobby(conn);
            return refusal;
        }
    }
    // Changes that came while the list was read follow it; when too many came, read again.
    for _ in 0..3 {
        let rows = match app.store.open_matches(&list, &account.country).await {
            Ok(rows) => rows,
            Err(e) => {
                tracing::error!(error = %e, "database error");
                app.hub.unwatch_lobby(conn);
                return Some(error(ErrorCode::Internal, "the lobby could not be read"));
            }
        };
        let now = now_ms();
        let matches = rows
            .iter()
            .map(|r| crate::routes::lobby::open_match(r, now))
            .collect();
        if app.hub.lobby_snapshot(
            conn,
            ServerMsg::Lobby {
                scope: list.scope,
                level: list.level,
                group: list.group.clone(),
                matches,
            },
        ) {
            return None;
        }
    }
    app.hub.unwatch_lobby(conn);
    Some(error(
        ErrorCode::Internal,
        "the lobby changes too fast to show; watch it again",
    ))
}

async fn welcome(app: &App, account: &AccountRow) -> ServerMsg {
    let rows = match app.store.active_matches_of(&account.id).await {
        Ok(rows) => rows,
        Err(e) => {
            tracing::error!(error = %e, "database error");
            Vec::new()
        }
    };
    let mut matches = Vec::with_capacity(rows.len());
    for row in rows {
        let stored = crate::routes::lobby::stored_view(&row, &account.id);
        let live = app.hub.view_of(&account.id, row).await;
        matches.push(live.unwrap_or(stored));
    }
    ServerMsg::Welcome {
        name: account.name.clone(),
        matches,
    }
}
