//! The live connection on native: a WebSocket over rustls to the server's live path, read and
//! written by a task on the app's runtime.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// Nothing to do on native: no screen waits for a module to download, so each opens its
/// connection as soon as it shows.
pub fn open_ahead(_path: &str) {}

/// Nothing opened ahead on native (see [`open_ahead`]).
pub fn close_ahead() {}

/// Never on native: the desktop has no event for the network coming back, so a lost
/// connection is tried again on its waits alone.
pub async fn network_back() {
    std::future::pending().await
}

/// An open WebSocket: text frames in and out.
pub struct Socket {
    out: mpsc::UnboundedSender<String>,
    incoming: mpsc::UnboundedReceiver<String>,
    /// The server closed it to restart (1012): another process takes the connection at once.
    restarting: Arc<AtomicBool>,
}

impl Socket {
    /// Connects to a WebSocket path of the server; `None` when it cannot be reached.
    pub async fn open_path(path: &str) -> Option<Socket> {
        let url = format!(
            "{}{path}",
            super::native::server_base().replacen("https://", "wss://", 1),
        );
        let connector = tokio_tungstenite::Connector::Rustls(super::native::tls()?);
        let (ws, _) =
            tokio_tungstenite::connect_async_tls_with_config(url, None, false, Some(connector))
                .await
                .ok()?;
        let (mut sink, mut stream) = ws.split();
        let (out, mut outgoing) = mpsc::unbounded_channel::<String>();
        let (arrived, incoming) = mpsc::unbounded_channel();
        let restarting = Arc::new(AtomicBool::new(false));
        let heard_restart = restarting.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    text = outgoing.recv() => match text {
                        Some(text) => if sink.send(Message::text(text)).await.is_err() { break },
                        // The socket was dropped: close the connection.
                        None => { let _ = sink.close().await; break }
                    },
                    frame = stream.next() => match frame {
                        Some(Ok(Message::Text(text))) => {
                            if arrived.send(text.to_string()).is_err() { break }
                        }
                        Some(Ok(Message::Close(frame))) => {
                            let code = frame.map(|f| u16::from(f.code));
                            heard_restart.store(code == Some(super::RESTARTING), Ordering::Release);
                            break;
                        }
                        Some(Err(_)) | None => break,
                        Some(Ok(_)) => {}
                    },
                }
            }
        });
        Some(Socket {
            out,
            incoming,
            restarting,
        })
    }

    /// Sends a text frame; a closed socket drops it (its reader then sees the close).
    pub fn send(&self, text: &str) {
        let _ = self.out.send(text.to_owned());
    }

    /// The next text frame; `None` once the connection closed.
    pub async fn next(&mut self) -> Option<String> {
        self.incoming.recv().await
    }

    /// Whether the server closed it because it is restarting (after `next` said it closed).
    pub fn restarting(&self) -> bool {
        self.restarting.load(Ordering::Acquire)
    }
}
