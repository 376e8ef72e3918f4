//! The WebSocket of live play: `hello` first, then moves, until the connection closes.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use tracing::Instrument;
use velha_api::{ClientMsg, ErrorCode, ServerMsg};

use crate::app::App;
use crate::live::ConnHandle;
use crate::store::AccountRow;
use crate::token::{now_ms, token_hash};

/// How long a new connection has to say `hello`.
const HELLO_WITHIN: Duration = Duration::from_secs(10);
/// The largest message a client may send.
const MAX_MESSAGE: usize = 16 * 1024;

/// Live play.
#[utoipa::path(
    get,
    path = "/api/live",
    tag = "live",
    description = "Upgrades to a WebSocket carrying one JSON message per text frame: \
        ClientMsg from the app (first `hello` with the session token), ServerMsg from the \
        server (first `welcome`). Both schemas are in this document's components.",
    responses(
        (status = 101, description = "Switching to the WebSocket"),
        (status = 400, description = "Not a WebSocket request"),
    )
)]
pub async fn live(State(app): State<Arc<App>>, upgrade: WebSocketUpgrade) -> Response {
    // Messages are small: a 4 KiB read buffer instead of the default 128 KiB is what lets
    // thousands of players connect without hundreds of megabytes of empty buffers.
    upgrade
        .read_buffer_size(4 * 1024)
        .max_frame_size(MAX_MESSAGE)
        .max_message_size(MAX_MESSAGE)
        .on_upgrade(move |socket| session(app, socket))
}

fn text(msg: &ServerMsg) -> Message {
    // Serialising these plain types cannot fail.
    Message::Text(Utf8Bytes::from(
        serde_json::to_string(msg).unwrap_or_default(),
    ))
}

fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
    ServerMsg::Error {
        code,
        message: message.into(),
    }
}

async fn hello(app: &App, socket: &mut WebSocket) -> Result<AccountRow, ServerMsg> {
    let first = tokio::time::timeout(HELLO_WITHIN, socket.recv())
        .await
        .map_err(|_| error(ErrorCode::Unauthorized, "say hello with your token first"))?;
    let Some(Ok(Message::Text(t))) = first else {
        return Err(error(
            ErrorCode::BadRequest,
            "the first message must be hello",
        ));
    };
    let token = match serde_json::from_str::<ClientMsg>(&t) {
        Ok(ClientMsg::Hello { token }) => token,
        Ok(_) => {
            return Err(error(
                ErrorCode::BadRequest,
                "the first message must be hello",
            ));
        }
        Err(e) => return Err(error(ErrorCode::BadRequest, format!("not a message: {e}"))),
    };
    match app
        .store
        .account_by_session(&token_hash(&token), now_ms())
        .await
    {
        Ok(Some(account)) => Ok(account),
        Ok(None) => Err(error(
            ErrorCode::Unauthorized,
            "the session is unknown or expired; sign in again",
        )),
        Err(e) => {
            tracing::error!(error = %e, "database error");
            Err(error(ErrorCode::Internal, "storage failed"))
        }
    }
}

async fn session(app: Arc<App>, mut socket: WebSocket) {
    let account = match hello(&app, &mut socket).await {
        Ok(a) => a,
        Err(msg) => {
            let _ = socket.send(text(&msg)).await;
            let _ = socket.close().await;
            return;
        }
    };
    let conn = app.hub.connect(&account.id);
    let span = tracing::info_span!("live", player = %account.name, conn = conn.id);
    serve_player(app, socket, account, conn)
        .instrument(span)
        .await;
}

async fn serve_player(app: Arc<App>, socket: WebSocket, account: AccountRow, conn: ConnHandle) {
    tracing::info!("connected");
    let ConnHandle {
        id: conn_id,
        mut rx,
        tx: reply,
        close,
    } = conn;
    let _ = reply.try_send(welcome(&app, &account).await);
    let (mut sink, mut stream) = socket.split();
    let writer = tokio::spawn(async move {
        loop {
            tokio::select! {
                msg = rx.recv() => match msg {
                    Some(msg) => if sink.send(text(&msg)).await.is_err() { break },
                    None => break,
                },
                () = close.notified() => break,
            }
        }
        let _ = sink.close().await;
    });
    while let Some(Ok(frame)) = stream.next().await {
        let t = match frame {
            Message::Text(t) => t,
            Message::Close(_) => break,
            Message::Binary(_) => {
                let _ = reply.try_send(error(ErrorCode::BadRequest, "send text frames"));
                continue;
            }
            Message::Ping(_) | Message::Pong(_) => continue,
        };
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
            }) => app
                .hub
                .play(&account.id, &match_id, ply, actions)
                .await
                .err()
                .map(|refusal| ServerMsg::Refused { match_id, refusal }),
            Ok(ClientMsg::Leave { match_id }) => app
                .hub
                .leave(&account.id, &match_id)
                .await
                .err()
                .map(|refusal| ServerMsg::Refused { match_id, refusal }),
        };
        if let Some(answer) = answer
            && reply.try_send(answer).is_err()
        {
            break;
        }
        if writer.is_finished() {
            break;
        }
    }
    app.hub.disconnect(&account.id, conn_id);
    writer.abort();
    tracing::info!("disconnected");
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
        let live = app.hub.view(&account.id, &row.id).await;
        matches.push(live.unwrap_or_else(|| crate::routes::lobby::stored_view(&row, &account.id)));
    }
    ServerMsg::Welcome {
        name: account.name.clone(),
        matches,
    }
}
