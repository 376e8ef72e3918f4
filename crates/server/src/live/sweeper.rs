//! What every process does in the background: saying it is alive, giving up the processes
//! that no longer say so (with their players' connections), settling the clocks of matches
//! whose process died, adding the rankings' recorded changes to their counts, and pruning old
//! events.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{Hub, bus, clock};
use crate::store::Backend;
use crate::token::now_ms;

/// How often the sweeper looks for matches whose process died.
const SWEEP: Duration = Duration::from_millis(250);
/// How late past its clock a match is before any process's sweeper settles it: the process
/// that changed it last is meant to, on time.
const SWEEP_LATE_MS: i64 = 500;
/// How many sweeps between two heartbeats (a second), and how long unseen before the other
/// processes give one up for dead (with its players' connections).
const HEARTBEAT_EVERY: u64 = 4;
/// How many sweeps between two counts of the service's sizes for the metrics (5 s).
const COUNT_EVERY: u64 = 20;
pub(super) const DEAD_AFTER_MS: i64 = 5_000;
/// How long since the Velha's turn began before another process decides for her: the one
/// that was deciding died.
const VELHA_STUCK_MS: i64 = 15_000;
/// The most batches of the rankings' recorded changes a process folds in one round.
const FOLDS_A_ROUND: usize = 8;
/// How long the events stay in the database for processes catching up.
const EVENTS_KEPT_MS: i64 = 10 * 60_000;

impl Hub {
    /// Takes up the live matches after a start: their clocks are looked after here until
    /// another process changes them. On SQLite this process is the whole server, and every
    /// player gets the reconnection grace (the restart, not they, dropped the connections); on
    /// PostgreSQL the other processes go on, and a dead one's players are found by the sweeper.
    pub async fn resume(self: &Arc<Self>) -> Result<usize, sqlx::Error> {
        let now = now_ms();
        if self.store.backend() == Backend::Sqlite {
            self.store
                .restart_presence(now + self.clocks.grace_ms)
                .await?;
        }
        self.store.heartbeat(&self.process, now).await?;
        let live = self.store.live_matches().await?;
        for row in &live {
            let wake = row.away.iter().flatten().copied().chain(row.deadline).min();
            // She decides only if it is her turn: `velha_decides` reads the match first.
            let velha = row.velha.then_some(row.ply);
            self.after_change(&row.id, wake, velha);
        }
        if self.store.backend() == Backend::Sqlite {
            for creator in self.store.open_match_creators().await? {
                self.withdraw_if_gone(creator);
            }
        }
        Ok(live.len())
    }

    /// What every process does in the background: listening to the others (PostgreSQL),
    /// saying it is alive, giving up dead processes, and settling matches whose process died.
    pub fn run(self: &Arc<Self>, database_url: &str) {
        tokio::spawn(clock::run(self.clone()));
        if self.store.backend() == Backend::Postgres {
            tokio::spawn(bus::listen(self.clone(), database_url.to_owned()));
        }
        let hub = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(SWEEP);
            let mut rounds = 0u64;
            loop {
                every.tick().await;
                rounds += 1;
                if let Err(e) = hub.sweep(rounds).await {
                    tracing::error!(error = %e, "the sweeper failed; trying again");
                }
            }
        });
    }

    async fn sweep(self: &Arc<Self>, round: u64) -> Result<(), sqlx::Error> {
        // Its heartbeat would bring back the row it gave up on its way out.
        if self.drain.is_gone() {
            return Ok(());
        }
        let now = now_ms();
        if round.is_multiple_of(HEARTBEAT_EVERY) {
            self.heartbeat(now).await?;
        }
        for id in self.store.overdue_matches(now - SWEEP_LATE_MS, 200).await? {
            self.settle(&id).await;
        }
        if !round.is_multiple_of(HEARTBEAT_EVERY) {
            return Ok(());
        }
        self.look_for_bans().await?;
        // The changes stay recorded, and count in every place read meanwhile: a failure only
        // waits for the next round.
        if let Err(e) = self.fold_standing_counts().await {
            tracing::warn!(error = %e, "the rankings' counts could not be brought up to date");
        }
        let stuck = now + self.clocks.move_ms - VELHA_STUCK_MS;
        for (id, ply) in self.store.velha_waiting(stuck).await? {
            tracing::warn!(match_id = %id, "the Velha's turn was left waiting; she decides here");
            // Once: this sweep comes back to it a second later.
            self.velha_decides(id, ply, 1);
        }
        if round.is_multiple_of(60 * HEARTBEAT_EVERY) {
            self.store.prune_events(now - EVENTS_KEPT_MS).await?;
        }
        if round.is_multiple_of(COUNT_EVERY) && crate::metrics::on() {
            let counts = self.store.service_counts(now).await?;
            use crate::metrics::{LIVE_MATCHES, OPEN_ROOMS, PUSH_PENDING};
            metrics::gauge!(LIVE_MATCHES).set(counts.live_matches as f64);
            metrics::gauge!(OPEN_ROOMS).set(counts.open_rooms as f64);
            metrics::gauge!(PUSH_PENDING).set(counts.push_pending as f64);
        }
        Ok(())
    }

    /// Folds the recorded changes to the rankings' counts, batch after batch while a batch
    /// comes back full (a few at most: more would keep the sweeper from its other duties).
    async fn fold_standing_counts(&self) -> Result<(), sqlx::Error> {
        for _ in 0..FOLDS_A_ROUND {
            if !self.store.fold_standing_counts().await? {
                break;
            }
        }
        Ok(())
    }

    /// Says this process is alive, and gives up the processes that no longer say so.
    async fn heartbeat(self: &Arc<Self>, now: i64) -> Result<(), sqlx::Error> {
        if !self.store.heartbeat(&self.process, now).await? {
            tracing::warn!("this process was given up for dead");
            self.rewrite_presence.store(true, Ordering::Relaxed);
        }
        // Given up for dead while alive (a long pause): say again who is connected here, until
        // all of it is written (a failure tries again at the next heartbeat).
        if self.rewrite_presence.load(Ordering::Relaxed) {
            let accounts: Vec<String> = self.lock().conns.keys().cloned().collect();
            for account in accounts {
                let back = self.store.came_back(&account, &self.process).await?;
                self.presence_changed(back, None).await;
            }
            if self.store.backend() == Backend::Postgres {
                self.rewrite_room_presence().await?;
            }
            self.rewrite_presence.store(false, Ordering::Relaxed);
        }
        let until = now + self.clocks.grace_ms;
        let away = self
            .store
            .bury_dead_processes(now - DEAD_AFTER_MS, until)
            .await?;
        if !away.is_empty() {
            tracing::info!(seats = away.len(), "players of a dead process are away");
            self.presence_changed(away, Some(until)).await;
        }
        Ok(())
    }
}
