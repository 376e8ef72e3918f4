//! The live connection in the browser: the page's WebSocket to the server's live path on its
//! own origin (the upgrade carries the session cookie).

use std::cell::RefCell;

use futures_channel::mpsc;
use futures_util::StreamExt;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

enum Event {
    Open,
    Text(String),
    /// With the close frame's code, when the server sent one.
    Closed(Option<u16>),
}

/// An open WebSocket: text frames in and out.
pub struct Socket {
    ws: web_sys::WebSocket,
    events: mpsc::UnboundedReceiver<Event>,
    // Kept alive as long as the socket calls them.
    _handlers: [Closure<dyn FnMut(JsValue)>; 3],
    /// The window's `offline` listener: a phone that says it lost the network has lost this
    /// connection too, though the socket may take minutes to notice.
    offline: Closure<dyn FnMut(JsValue)>,
    /// The server closed it to restart (1012): another process takes the connection at once.
    restarting: bool,
}

/// How old a connection opened ahead may be to be handed out: the server closes one that has
/// not said hello within 10 s (`HELLO_WITHIN`).
const AHEAD_MS: f64 = 8_000.0;

thread_local! {
    /// A connection opened ahead of its screen, with its path and when it was opened.
    static AHEAD: RefCell<Option<(String, f64, Socket)>> = const { RefCell::new(None) };
}

/// Starts connecting to `path` now, for a screen whose module is still downloading: its
/// `open_path` takes this connection, already open, instead of spending the TCP, TLS and
/// upgrade round trips after the download. One older than [`AHEAD_MS`] is not taken (the
/// server closes it).
pub fn open_ahead(path: &str) {
    if let Some(socket) = Socket::start(path) {
        AHEAD.with(|a| *a.borrow_mut() = Some((path.to_owned(), super::now_ms(), socket)));
    }
}

/// Closes the connection opened ahead, if it is still waiting.
pub fn close_ahead() {
    AHEAD.with(|a| a.borrow_mut().take());
}

impl Socket {
    /// Connects to a WebSocket path of the site (taking the connection opened ahead to it, if
    /// any); `None` when it cannot be reached.
    pub async fn open_path(path: &str) -> Option<Socket> {
        let ahead = AHEAD.with(|a| {
            let mut ahead = a.borrow_mut();
            match ahead.take() {
                Some((at, opened, socket)) if at == path => {
                    (super::now_ms() - opened < AHEAD_MS).then_some(socket)
                }
                other => {
                    *ahead = other;
                    None
                }
            }
        });
        if let Some(socket) = ahead
            && let Some(open) = socket.opened().await
        {
            return Some(open);
        }
        // None was waiting, or it was lost meanwhile (the network changed, the server
        // restarted): a new one.
        Socket::start(path)?.opened().await
    }

    /// The socket once open; `None` when it closed first.
    async fn opened(mut self) -> Option<Socket> {
        match self.events.next().await {
            Some(Event::Open) => Some(self),
            _ => None,
        }
    }

    /// Starts connecting: the socket says it is open with its first event.
    fn start(path: &str) -> Option<Socket> {
        let location = web_sys::window()?.location();
        let scheme = if location.protocol().ok()? == "https:" {
            "wss"
        } else {
            "ws"
        };
        let url = format!("{scheme}://{}{path}", location.host().ok()?);
        let ws = web_sys::WebSocket::new(&url).ok()?;
        let (tx, events) = mpsc::unbounded();
        let handler = |tx: mpsc::UnboundedSender<Event>, event: fn(JsValue) -> Option<Event>| {
            Closure::<dyn FnMut(JsValue)>::new(move |e: JsValue| {
                if let Some(event) = event(e) {
                    let _ = tx.unbounded_send(event);
                }
            })
        };
        let on_open = handler(tx.clone(), |_| Some(Event::Open));
        let on_message = handler(tx.clone(), |e| {
            let text = e.dyn_ref::<web_sys::MessageEvent>()?.data().as_string()?;
            Some(Event::Text(text))
        });
        // An error is always followed by a close.
        let on_close = handler(tx.clone(), |e| {
            Some(Event::Closed(
                e.dyn_ref::<web_sys::CloseEvent>().map(|c| c.code()),
            ))
        });
        let offline = handler(tx, |_| Some(Event::Closed(None)));
        web_sys::window()?
            .add_event_listener_with_callback("offline", offline.as_ref().unchecked_ref())
            .ok()?;
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        Some(Socket {
            ws,
            events,
            _handlers: [on_open, on_message, on_close],
            offline,
            restarting: false,
        })
    }

    /// Sends a text frame; a closed socket drops it (its reader then sees the close).
    pub fn send(&self, text: &str) {
        let _ = self.ws.send_with_str(text);
    }

    /// The next text frame; `None` once the connection closed.
    pub async fn next(&mut self) -> Option<String> {
        loop {
            match self.events.next().await? {
                Event::Text(text) => return Some(text),
                Event::Open => {}
                Event::Closed(code) => {
                    self.restarting = code == Some(super::RESTARTING);
                    return None;
                }
            }
        }
    }
}

impl Socket {
    /// Whether the server closed it because it is restarting (after `next` said it closed).
    pub fn restarting(&self) -> bool {
        self.restarting
    }
}

/// Resolves once the browser says the network is back, or the page is shown again (a phone
/// back in the app, whose timers were held while it was away): a lost connection is then tried
/// at once, not after its wait, which may end past the 20 s a match waits for a player.
pub async fn network_back() {
    let Some(window) = web_sys::window() else {
        return std::future::pending().await;
    };
    let Some(document) = window.document() else {
        return std::future::pending().await;
    };
    let (tx, mut back) = mpsc::unbounded::<()>();
    let online = {
        let tx = tx.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |_| {
            let _ = tx.unbounded_send(());
        })
    };
    let shown = {
        let document = document.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |_| {
            if !document.hidden() {
                let _ = tx.unbounded_send(());
            }
        })
    };
    let _ = window.add_event_listener_with_callback("online", online.as_ref().unchecked_ref());
    let _ = document
        .add_event_listener_with_callback("visibilitychange", shown.as_ref().unchecked_ref());
    // Removes both when this returns or its caller stops waiting.
    let _listening = Listening {
        window,
        document,
        online,
        shown,
    };
    back.next().await;
}

struct Listening {
    window: web_sys::Window,
    document: web_sys::Document,
    online: Closure<dyn FnMut(JsValue)>,
    shown: Closure<dyn FnMut(JsValue)>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self
            .window
            .remove_event_listener_with_callback("online", self.online.as_ref().unchecked_ref());
        let _ = self.document.remove_event_listener_with_callback(
            "visibilitychange",
            self.shown.as_ref().unchecked_ref(),
        );
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        if let Some(window) = web_sys::window() {
            let _ = window.remove_event_listener_with_callback(
                "offline",
                self.offline.as_ref().unchecked_ref(),
            );
        }
        let _ = self.ws.close();
    }
}
