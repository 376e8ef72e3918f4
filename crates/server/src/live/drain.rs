//! A process stopping for a deploy (SIGTERM) hands its players over instead of dropping them:
//! its live connections are told to connect again elsewhere (close code 1012), the work that
//! commits (a move being answered, the Velha thinking) finishes first, and the players it held
//! keep their presence until they are back on another process, so their opponents never see
//! them leave (docs/deploy.md, "Rolling deploys").

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use super::Hub;
use crate::store::Backend;
use crate::token::now_ms;

/// RFC 6455's "Service Restart": the client should connect again, to whichever process.
pub const RESTARTING: u16 = 1012;
/// The close frame's reason, for people reading a trace.
pub const RESTARTING_REASON: &str = "this server is restarting: connect again";
/// How often a stopping process looks whether its players are back elsewhere.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// Whether the process is stopping, and the work it waits for before it exits.
#[derive(Default)]
pub struct Drain {
    stopping: watch::Sender<bool>,
    deadline: OnceLock<Instant>,
    working: AtomicUsize,
    idle: Notify,
    /// Set once the process gave up its presence: it no longer says it is alive.
    gone: AtomicBool,
}

/// One piece of work counted until it is dropped.
pub struct Working(Arc<Drain>);

impl Drop for Working {
    fn drop(&mut self) {
        if self.0.working.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Drain {
    /// The process stops: everything must be done within `grace`.
    pub fn begin(&self, grace: Duration) {
        let _ = self.deadline.set(Instant::now() + grace);
        self.stopping.send_replace(true);
    }

    /// Whether the process is stopping.
    pub fn is_on(&self) -> bool {
        *self.stopping.borrow()
    }

    /// When the process must be gone (the grace after the signal); far away before it.
    pub fn deadline(&self) -> Instant {
        self.deadline
            .get()
            .copied()
            .unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400))
    }

    /// Resolves once the process is stopping.
    pub fn stopping(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.stopping.subscribe();
        async move {
            if rx.wait_for(|s| *s).await.is_err() {
                // The hub is gone without a stop: nothing left to wait for.
                std::future::pending::<()>().await;
            }
        }
    }

    /// Whether the process gave up its presence on its way out.
    pub fn is_gone(&self) -> bool {
        self.gone.load(Ordering::Acquire)
    }

    /// Counts a piece of work the stop waits for.
    pub fn working(self: &Arc<Self>) -> Working {
        self.working.fetch_add(1, Ordering::AcqRel);
        Working(self.clone())
    }

    /// Waits until no work is counted, or the deadline: whether everything finished.
    pub async fn finished(&self) -> bool {
        loop {
            let idle = self.idle.notified();
            if self.working.load(Ordering::Acquire) == 0 {
                return true;
            }
            if tokio::time::timeout_at(self.deadline(), idle)
                .await
                .is_err()
            {
                return self.working.load(Ordering::Acquire) == 0;
            }
        }
    }
}

impl Hub {
    /// The last step of a stop, after its connections closed and its work finished: on
    /// PostgreSQL, waits (until the deadline) for the players it held to be back on another
    /// process, then gives up its presence and its heartbeat, so that only those who did not
    /// come back start their reconnection grace, now rather than when the others would find
    /// the process dead, and their open matches leave the lobby. On SQLite nobody can come back before the next start, which gives
    /// every player the grace again.
    pub async fn hand_over(self: &Arc<Self>) {
        if self.store.backend() != Backend::Postgres {
            return;
        }
        let deadline = self.drain.deadline();
        let mut gone = Vec::new();
        loop {
            match self.store.held_only_by(&self.process).await {
                Ok(left) if left.is_empty() => break,
                Ok(_) if Instant::now() + LOOK_EVERY < deadline => {
                    tokio::time::sleep(LOOK_EVERY).await;
                }
                Ok(left) => {
                    tracing::info!(
                        left = left.len(),
                        "players not back on another process before the stop"
                    );
                    gone = left;
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read who is back elsewhere");
                    break;
                }
            }
        }
        self.drain.gone.store(true, Ordering::Release);
        let until = now_ms() + self.clocks.grace_ms;
        match self.store.bury(&self.process, None, until).await {
            Ok(away) => {
                if !away.is_empty() {
                    self.presence_changed(away, Some(until)).await;
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot give up this process's presence"),
        }
        // Nobody here waits the grace out to withdraw what they offered, as a connection
        // that closes does (`withdraw_if_gone`): nobody joins a match whose creator is gone.
        for account in gone {
            if let Err(e) = self.store.queue_leave(&account).await {
                tracing::warn!(error = %e, "cannot take a player who left out of the queue");
            }
            match self.store.cancel_open_matches_of(&account, now_ms()).await {
                Ok(withdrawn) => {
                    for (id, list) in withdrawn {
                        self.lobby_closed(&id, &list).await;
                    }
                }
                Err(e) => tracing::warn!(error = %e, "cannot withdraw open matches"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stop_waits_for_the_work_counted_and_no_longer_than_its_grace() {
        let drain = Arc::new(Drain::default());
        assert!(!drain.is_on());
        let work = drain.working();
        let stopped = tokio::spawn(drain.stopping());
        drain.begin(Duration::from_secs(30));
        stopped.await.unwrap();
        assert!(drain.is_on());
        let waiting = tokio::spawn({
            let drain = drain.clone();
            async move { drain.finished().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "finished with work still counted");
        drop(work);
        assert!(waiting.await.unwrap());

        let late = Arc::new(Drain::default());
        let _forever = late.working();
        late.begin(Duration::from_millis(20));
        assert!(
            !late.finished().await,
            "work never done is given up at the deadline"
        );
    }
}
