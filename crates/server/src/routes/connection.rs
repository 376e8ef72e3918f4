//! The one loop that carries a live WebSocket once it said hello, a player's (`socket.rs`) or a
//! room's (`room_socket.rs`): one task reads the connection's frames, hands each text to its
//! `answer`, and writes what reaches its outbox (the hub's messages and its own answers, in
//! order), so a message costs no hand-off to a second task. The socket is read only when it
//! woke the task (`ReadWake`): a read attempt zero-fills tungstenite's read buffer and tries a
//! TLS read, and on a busy connection most wakes are messages going out. A connection silent
//! for a third of `silence` is pinged (a browser answers even for a hidden page, a phone that
//! lost its signal does not); one silent for all of it is closed (at most a third later), so
//! nobody counts as present, or holds a spectator's place, for longer than that after their
//! signal is gone.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use axum::body::Bytes;
use futures_util::StreamExt;
use futures_util::task::AtomicWaker;
use tokio::sync::{Notify, mpsc};
use tokio::time::{Instant, MissedTickBehavior, timeout};
use velha_api::MAX_LIVE_FRAME;

use super::websocket::{self, CloseCode, CloseFrame, Error, Message, Utf8Bytes, WebSocket};
use crate::live::{Drain, RESTARTING, RESTARTING_REASON};

/// The WebSocket's read buffer, which every connection keeps for its life: what the app sends
/// is a hello with its token or credential, a move or a lobby choice, under 200 bytes (a
/// larger one, up to `MAX_LIVE_FRAME`, is read in more reads). tungstenite's default is
/// 128 KiB; 4 KiB was a third of an idle connection, 1 KiB a tenth.
pub(super) const READ_BUFFER: usize = 256;
/// How long one frame may take to go out to a connection that does not read before it is
/// dropped.
const SEND_WITHIN: Duration = Duration::from_secs(10);
/// How long a stopping process waits for a client to answer its close.
const CLOSE_ANSWER_WITHIN: Duration = Duration::from_secs(1);

/// What a connection says: how its messages go out, and what it answers to a frame.
pub(super) trait Speaks: Send {
    /// What goes out: a message, or a frame already encoded.
    type Out: Send;

    /// Whose connection it is, for the metrics: `player` or `room`.
    const KIND: &'static str;

    /// The text frame of `out`.
    fn frame(out: &Self::Out) -> Utf8Bytes;

    /// The answer to a frame that is not one of its messages.
    fn bad_request(why: String) -> Self::Out;

    /// What a text frame gets back: nothing when its effect reaches the connection through the
    /// hub.
    fn answer(&mut self, text: Utf8Bytes) -> impl Future<Output = Option<Self::Out>> + Send;
}

/// Where a connection's messages come from: the hub's outbox, a sender for its own answers
/// behind them, and the hub's word that it stopped reading and was dropped.
pub(super) struct Outbox<O> {
    pub rx: mpsc::Receiver<O>,
    pub tx: mpsc::Sender<O>,
    pub close: Arc<Notify>,
    /// The process's stop: the connection is then told to come back elsewhere.
    pub drain: Arc<Drain>,
}

/// The close frame for a read error, when it is one the client should hear about: a frame or
/// a message over the limit (RFC 6455's 1009, message too big).
pub(super) fn farewell_for(e: &Error) -> Option<CloseFrame> {
    matches!(e, Error::Capacity(_)).then(|| CloseFrame {
        code: CloseCode::Size,
        reason: Utf8Bytes::from(format!("a frame may have at most {MAX_LIVE_FRAME} bytes")),
    })
}

/// How a connection that cannot go on is told why.
pub(super) enum Farewell<M> {
    /// A message, then an ordinary close.
    Say(M),
    /// A close frame with this code and reason.
    Close(CloseFrame),
}

impl<M> From<M> for Farewell<M> {
    fn from(msg: M) -> Farewell<M> {
        Farewell::Say(msg)
    }
}

impl<M> Farewell<M> {
    /// Tells the connection, the message written by `encode`, and closes it. Callers box it:
    /// whatever a connection's future holds across an await takes room in its task for the
    /// connection's whole life.
    pub(super) async fn tell(self, socket: &mut WebSocket, encode: fn(&M) -> Message) {
        match self {
            Farewell::Say(msg) => {
                if send(socket, encode(&msg)).await {
                    let _ = timeout(SEND_WITHIN, socket.close(None)).await;
                }
            }
            Farewell::Close(frame) => {
                send(socket, Message::Close(Some(frame))).await;
            }
        }
    }
}

/// Sends `msg` (a long one in fragments): whether it went out. A connection that does not read
/// gets `SEND_WITHIN`, timed only when the send has to wait: a timer armed for every frame cost
/// more CPU than the frame. The write and its timer are boxed: held inline, they made every
/// connection's task 424 bytes bigger for its whole life, for the moments it sends.
async fn send(socket: &mut WebSocket, msg: Message) -> bool {
    let mut sending = Box::pin(websocket::write(socket, msg));
    let first = std::future::poll_fn(|cx| Poll::Ready(sending.as_mut().poll(cx))).await;
    match first {
        Poll::Ready(sent) => sent.is_ok(),
        Poll::Pending => matches!(Box::pin(timeout(SEND_WITHIN, sending)).await, Ok(Ok(()))),
    }
}

/// The waker the socket's read side is polled with: it notes that the socket woke the task, so
/// the loop reads it only then (and after a frame, for the next one already buffered).
struct ReadWake {
    woke: AtomicBool,
    task: AtomicWaker,
}

impl Wake for ReadWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woke.store(true, Ordering::Release);
        self.task.wake();
    }
}

/// The next frame, when the socket woke the task since the last read that found none.
fn poll_read(
    socket: &mut WebSocket,
    wake: &ReadWake,
    waker: &Waker,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<Message, Error>>> {
    wake.task.register(cx.waker());
    if !wake.woke.swap(false, Ordering::AcqRel) {
        return Poll::Pending;
    }
    let read = socket.poll_next_unpin(&mut Context::from_waker(waker));
    if read.is_ready() {
        wake.woke.store(true, Ordering::Release);
    }
    read
}

/// A connection counted in the metrics for as long as it is carried, whichever way it ends.
struct Counted(&'static str);

impl Counted {
    fn new(kind: &'static str) -> Counted {
        metrics::gauge!(crate::metrics::CONNECTIONS, "kind" => kind).increment(1.0);
        Counted(kind)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        metrics::gauge!(crate::metrics::CONNECTIONS, "kind" => self.0).decrement(1.0);
    }
}

/// Carries the connection until either side ends it. The socket comes boxed: every async
/// function it passes through keeps a slot of its size (about 280 bytes) for the connection's
/// life.
pub(super) async fn carry<S: Speaks>(
    mut socket: Box<WebSocket>,
    outbox: Outbox<S::Out>,
    silence: Duration,
    speaker: &mut S,
) {
    let Outbox {
        mut rx,
        tx,
        close,
        drain,
    } = outbox;
    let _counted = Counted::new(S::KIND);
    let mut stopping = std::pin::pin!(drain.stopping());
    let mut heard = Instant::now();
    // One timer for the connection's life, not one per frame: every frame would otherwise
    // re-arm it, which on a busy match connection costs more than the frames.
    let every = silence / 3;
    let mut look = tokio::time::interval_at(heard + every, every);
    look.set_missed_tick_behavior(MissedTickBehavior::Delay);
    // Likewise one wait for the hub's word: a new one each turn of the loop would take the
    // Notify's lock twice per frame, to join its waiters and to leave them.
    let mut dropped = std::pin::pin!(close.notified());
    let wake = Arc::new(ReadWake {
        woke: AtomicBool::new(true),
        task: AtomicWaker::new(),
    });
    let waker = Waker::from(wake.clone());
    loop {
        let frame = tokio::select! {
            // In this order: what is queued goes out before another frame is read, so a client
            // that sends faster than it reads is slowed by its own socket (and let go once a
            // write waits too long) rather than have its answers overflow the outbox. The
            // price: an outbox that never empties for the whole silence would have the
            // connection closed as silent, which takes the server's own sustained overload.
            biased;
            _ = look.tick() => {
                let quiet = heard.elapsed();
                if quiet >= silence {
                    tracing::info!(?quiet, "a silent connection is closed");
                    break;
                }
                if quiet >= every && !send(&mut socket, Message::Ping(Bytes::new())).await {
                    return;
                }
                continue;
            }
            msg = rx.recv() => match msg {
                Some(out) if send(&mut socket, Message::Text(S::frame(&out))).await => continue,
                Some(_) => return,
                None => break,
            },
            // The hub dropped it (it stopped reading, it was signed out, it is the oldest of too
            // many): what was queued before says why, and goes out first.
            () = &mut dropped => {
                while let Ok(out) = rx.try_recv() {
                    if !send(&mut socket, Message::Text(S::frame(&out))).await {
                        return;
                    }
                }
                break;
            }
            // The process stops (a deploy): what is queued goes out, then the client is
            // told to connect again, which the balancer sends to another process. Frames the
            // client sent meanwhile are not read: nothing answered is left unsaid, and a move
            // never answered is sent again by the client once back.
            () = &mut stopping => {
                while let Ok(out) = rx.try_recv() {
                    if !send(&mut socket, Message::Text(S::frame(&out))).await {
                        return;
                    }
                }
                let farewell = CloseFrame {
                    code: CloseCode::from(RESTARTING),
                    reason: Utf8Bytes::from_static(RESTARTING_REASON),
                };
                if send(&mut socket, Message::Close(Some(farewell))).await {
                    // The client's close answers ours; a client that never answers is let go.
                    let _ = Box::pin(timeout(CLOSE_ANSWER_WITHIN, async {
                        while let Some(Ok(_)) = socket.next().await {}
                    }))
                    .await;
                }
                return;
            }
            frame = std::future::poll_fn(|cx| poll_read(&mut socket, &wake, &waker, cx)) => {
                heard = Instant::now();
                frame
            }
        };
        let t = match frame {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Close(_))) | None => return,
            Some(Ok(Message::Binary(_))) => {
                let _ = tx.try_send(S::bad_request("send text frames".into()));
                continue;
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => {
                if let Some(frame) = farewell_for(&e) {
                    tracing::info!(reason = %frame.reason, "a connection sent too much");
                    send(&mut socket, Message::Close(Some(frame))).await;
                }
                return;
            }
        };
        // Through the outbox, behind the messages already waiting there. The answer's future
        // (a move's rules, commit and news) is boxed: held inline, it made every connection's
        // task as big as the deepest answer, about 19 KiB an idle connection.
        if let Some(out) = Box::pin(speaker.answer(t)).await
            && tx.try_send(out).is_err()
        {
            break;
        }
    }
    let _ = Box::pin(timeout(SEND_WITHIN, (*socket).close(None))).await;
}
