//! The hub's part in live matches: it starts them, loads one for each action, has the
//! referee (`referee.rs`) decide, and looks after their clocks and the Velha's turns.

use std::sync::Arc;

use velha_api::{EndHow, Ending, MatchView, Refusal, ServerMsg};
use velha_rules::{Cube, CubeAction};

use super::Hub;
use super::bus::Event;
use super::live_game::LiveGame;
use super::referee::{Decision, Live, Loaded, Rejected, Write, from_row, load, with_live};
use crate::move_trace::{self, Stage};
use crate::store::MatchRow;
use crate::token::now_ms;

/// How long after a failed write a match's clocks are settled again.
const SETTLE_AGAIN_MS: i64 = 1_000;
/// How long after the database failed the Velha tries her turn again.
const VELHA_AGAIN: std::time::Duration = std::time::Duration::from_secs(1);
/// How many times she tries a turn she was given. A turn still failing after is left to the
/// sweeper, which picks it up 15 s after it began (`sweeper.rs`).
const VELHA_TRIES: u32 = 5;

/// Reading or writing the match failed: trying again may succeed.
struct Again;

/// A Velha's turn a task of this process is playing, until the task ends however it ends.
struct Playing {
    hub: Arc<Hub>,
    turn: (String, u32),
}

impl Drop for Playing {
    fn drop(&mut self) {
        velha_turns(&self.hub).remove(&self.turn);
    }
}

fn velha_turns(hub: &Hub) -> std::sync::MutexGuard<'_, std::collections::HashSet<(String, u32)>> {
    hub.velha_turns.lock().unwrap_or_else(|e| e.into_inner())
}

impl Hub {
    /// Starts a live match just made: both players are told, its clocks are looked after,
    /// and a player without a connection anywhere has the reconnection grace to come. The
    /// match as `viewer` (one of its players) sees it now, read once for all of that.
    pub async fn start(
        self: &Arc<Self>,
        row: &MatchRow,
        viewer: &str,
    ) -> Result<Option<MatchView>, String> {
        let until = now_ms() + self.clocks.grace_ms;
        for account in [Some(&row.x_id), row.o_id.as_ref().filter(|_| !row.velha)]
            .into_iter()
            .flatten()
        {
            match self.store.away_if_offline(account, until).await {
                Ok(away) => self.presence_changed(away, Some(until)).await,
                Err(e) => tracing::error!(error = %e, "could not read a player's presence"),
            }
        }
        let Some(loaded) = load(self, &row.id).await? else {
            return Err(format!("match {}: not live", row.id));
        };
        Ok(with_live!(loaded, live => {
            let started = live.announce();
            self.publish(started).await;
            self.after_change(&row.id, live.next_wake(), live.velha_to_move());
            live.view_for(viewer)
        }))
    }

    /// After a match changed: when to look at it next, and the Velha's turn.
    pub(super) fn after_change(
        self: &Arc<Self>,
        match_id: &str,
        wake: Option<i64>,
        velha: Option<u32>,
    ) {
        self.timers.set(match_id, wake);
        if let Some(ply) = velha {
            self.velha_decides(match_id.to_owned(), ply, VELHA_TRIES);
        }
    }

    /// The Velha decides her action at `ply` and plays it, unless the match moved on meanwhile.
    /// A try that failed on the database is tried again a second later, `tries` times in all;
    /// past that the sweeper finds her turn waiting (`sweeper.rs`). A turn a task here is
    /// already playing gets no second one.
    pub(super) fn velha_decides(self: &Arc<Self>, match_id: String, ply: u32, tries: u32) {
        let turn = (match_id, ply);
        if !velha_turns(self).insert(turn.clone()) {
            return;
        }
        let playing = Playing {
            hub: self.clone(),
            turn,
        };
        // A stop waits for her move to be committed: otherwise her turn would wait for
        // another process to notice it (`sweeper.rs`).
        let working = self.drain.working();
        tokio::spawn(async move {
            let _working = working;
            let (hub, (match_id, ply)) = (&playing.hub, &playing.turn);
            let mut decided = None;
            for attempt in 1..=tries {
                if hub.velha_turn(match_id, *ply, &mut decided).await.is_ok() {
                    return;
                }
                if attempt == tries {
                    break;
                }
                // A stopping process leaves her turn to be picked up after it (by another
                // process's sweeper, or on SQLite by the next start) rather than hold its stop.
                tokio::select! {
                    () = tokio::time::sleep(VELHA_AGAIN) => {}
                    () = hub.drain.stopping() => break,
                }
            }
            tracing::warn!(%match_id, ply, "the Velha could not play; the sweeper will see her turn");
        });
    }

    /// One try at the Velha's turn: `Err` when reading or writing the match failed, which
    /// trying again may mend (a database out of reach; a damaged match fails every try). An
    /// action decided before is played as it is: her turn is at the same position.
    async fn velha_turn(
        self: &Arc<Self>,
        match_id: &str,
        ply: u32,
        decided: &mut Option<CubeAction>,
    ) -> Result<(), Again> {
        let Some(live) = self.velha_to_move(match_id, ply).await? else {
            return Ok(());
        };
        let (action, mut live) = match *decided {
            Some(action) => (action, live),
            None => {
                let start = Cube::new(live.position().level()).to_string();
                let earlier = match self.store.positions_of(match_id, &start).await {
                    Ok(positions) => positions.iter().filter_map(|p| p.parse().ok()).collect(),
                    Err(e) => {
                        tracing::error!(error = %e, %match_id, "the Velha cannot read the game");
                        return Err(Again);
                    }
                };
                let Ok(Some(action)) = self.velha.decide(earlier, *live.position()).await else {
                    tracing::error!(%match_id, "the Velha had no action to play");
                    return Ok(());
                };
                *decided = Some(action);
                // Read again: the player may have left while she thought.
                let Some(live) = self.velha_to_move(match_id, ply).await? else {
                    return Ok(());
                };
                (action, live)
            }
        };
        let ruling = live.velha_plays(&action.to_string(), now_ms());
        match self.rule(&mut live, ruling).await {
            Err(Refusal::Unavailable) => Err(Again),
            // The match moved on first: another process's sweep took up her turn too (it saw
            // it waiting 15 s), or her clock ran out.
            Err(Refusal::Stale { .. }) => {
                tracing::debug!(%match_id, "the Velha's turn was played elsewhere first");
                Ok(())
            }
            Err(refusal) => {
                tracing::error!(%match_id, ?refusal, "the Velha's action was refused");
                Ok(())
            }
            Ok(()) => Ok(()),
        }
    }

    /// The cube match as just read, if it is the Velha's turn at `ply`.
    async fn velha_to_move(&self, match_id: &str, ply: u32) -> Result<Option<Live<Cube>>, Again> {
        match load(self, match_id).await {
            Ok(Some(Loaded::Cube(live))) if live.velha_to_move() == Some(ply) => Ok(Some(live)),
            Ok(_) => Ok(None),
            Err(e) => {
                tracing::error!(error = %e, "the Velha cannot read the match");
                Err(Again)
            }
        }
    }

    /// Settles the clocks of a match that ran out. One not due any more was changed since by
    /// another process, which looks after its clock from then on; so does whatever changed it
    /// first while this settled it. A write that failed is tried again a little later, not at
    /// once.
    pub(super) async fn settle(self: &Arc<Self>, match_id: &str) {
        match load(self, match_id).await {
            Ok(Some(loaded)) => with_live!(loaded, live => {
                if live.next_wake().is_some_and(|t| t <= now_ms()) {
                    match self.settle_live(&mut live).await {
                        Ok(()) => self.timers.set(match_id, live.next_wake()),
                        Err(Refusal::Unavailable) => {
                            self.timers.set(match_id, Some(now_ms() + SETTLE_AGAIN_MS));
                        }
                        Err(_) => {}
                    }
                }
            }),
            Ok(None) => {}
            Err(e) => tracing::error!(error = %e, "a live match cannot be settled"),
        }
    }

    /// Carries out the referee's ruling on an action: a decision written and told, a refusal
    /// returned, an action that came too late settled on the clocks and refused.
    async fn rule<G: LiveGame>(
        self: &Arc<Self>,
        live: &mut Live<G>,
        ruling: Result<Decision<G>, Rejected>,
    ) -> Result<(), Refusal> {
        match ruling {
            Ok(decision) => self.carry_out(live, decision).await,
            Err(Rejected::Refused(refusal)) => Err(refusal),
            // The timeout stands.
            Err(Rejected::Late) => {
                let _ = self.settle_live(live).await;
                Err(Refusal::NotLive)
            }
        }
    }

    /// Writes what the clocks that ran out decide, one decision at a time (2.0's lost turns
    /// are a move each), until nothing more is due; or why a write did not hold.
    async fn settle_live<G: LiveGame>(self: &Arc<Self>, live: &mut Live<G>) -> Result<(), Refusal> {
        let now = now_ms();
        while let Some(decision) = live.settlement(now) {
            self.carry_out(live, decision).await?;
        }
        Ok(())
    }

    /// Writes a decision, only if nobody changed the match meanwhile; then tells what it
    /// tells, and looks after the match's clocks and the Velha's turn.
    async fn carry_out<G: LiveGame>(
        self: &Arc<Self>,
        live: &mut Live<G>,
        decision: Decision<G>,
    ) -> Result<(), Refusal> {
        let encoded = self.encode(&decision.told);
        let written = match &decision.write {
            Write::Move(m) => {
                let started = std::time::Instant::now();
                move_trace::stamp(Stage::CommitStart);
                let written = self.store.commit_move(&m.commit(live.id(), &encoded)).await;
                move_trace::stamp(Stage::CommitEnd);
                metrics::histogram!(crate::metrics::COMMIT_SECONDS)
                    .record(started.elapsed().as_secs_f64());
                if let Ok(true) = written {
                    metrics::counter!(crate::metrics::MOVES, "game" => live.game_word())
                        .increment(1);
                }
                written
            }
            Write::End { winner, how, at } => {
                let id = live.id();
                self.store.end_match(id, *winner, *how, *at, &encoded).await
            }
        };
        match written {
            Ok(true) => {}
            Ok(false) => {
                live.outrun();
                return Err(match decision.write {
                    Write::Move(_) => self.conflict(live.id()).await,
                    Write::End { .. } => Refusal::NotLive,
                });
            }
            Err(e) => {
                // Nothing is lost: an overdue clock stays overdue and the sweeper settles it
                // again; a player's action is refused and can be sent again.
                tracing::error!(error = %e, match_id = %live.id(), "could not write a match's change");
                return Err(Refusal::Unavailable);
            }
        }
        if let Some((winner, how)) = decision.write.ending() {
            tracing::info!(match_id = %live.id(), ?winner, how = how.as_str(), "match over");
        }
        let told = live.written(decision);
        self.committed(told).await;
        move_trace::stamp(Stage::Told);
        self.after_change(live.id(), live.next_wake(), live.velha_to_move());
        Ok(())
    }

    /// Why an action found the match changed by another first.
    async fn conflict(&self, match_id: &str) -> Refusal {
        match self.store.get_match(match_id).await {
            Ok(Some(row)) if row.state == velha_api::MatchState::Live => {
                Refusal::Stale { ply: row.ply }
            }
            Ok(_) => Refusal::NotLive,
            Err(_) => Refusal::Unavailable,
        }
    }

    async fn not_running(&self, account: &str, match_id: &str) -> Refusal {
        match self.store.get_match(match_id).await {
            Ok(Some(m)) if m.x_id == account || m.o_id.as_deref() == Some(account) => {
                Refusal::NotLive
            }
            Ok(_) => Refusal::NoSuchMatch,
            Err(e) => {
                tracing::error!(error = %e, "database error");
                Refusal::Unavailable
            }
        }
    }

    /// A move of `account` in a match.
    pub async fn play(
        self: &Arc<Self>,
        account: &str,
        match_id: &str,
        ply: u32,
        actions: Vec<String>,
    ) -> Result<(), Refusal> {
        match load(self, match_id).await {
            Ok(Some(loaded)) => with_live!(loaded, live => {
                let ruling = live.play(account, ply, &actions, now_ms());
                self.rule(&mut live, ruling).await
            }),
            Ok(None) => Err(self.not_running(account, match_id).await),
            Err(e) => {
                tracing::error!(error = %e, "a live match cannot be read");
                Err(Refusal::Unavailable)
            }
        }
    }

    /// `account` leaves a match: a loss by abandonment.
    pub async fn leave(self: &Arc<Self>, account: &str, match_id: &str) -> Result<(), Refusal> {
        match load(self, match_id).await {
            Ok(Some(loaded)) => with_live!(loaded, live => {
                let ruling = live.leave(account, now_ms()).map_err(Rejected::from);
                self.rule(&mut live, ruling).await
            }),
            Ok(None) => Err(self.not_running(account, match_id).await),
            Err(e) => {
                tracing::error!(error = %e, "a live match cannot be read");
                Err(Refusal::Unavailable)
            }
        }
    }

    /// A match just read as `account` sees it, with its clocks now; None if it is not live or
    /// not theirs.
    pub async fn view_of(self: &Arc<Self>, account: &str, row: MatchRow) -> Option<MatchView> {
        match from_row(self, row).await {
            Ok(Some(loaded)) => with_live!(loaded, live => live.view_for(account)),
            _ => None,
        }
    }

    /// The ends of matches a deleted player abandoned, as told to the other processes in the
    /// transaction that records them.
    pub fn abandoned_told(&self, ended: &[crate::store::Abandoned]) -> Vec<(String, String)> {
        self.encode(&abandoned(ended))
    }

    /// Those ends are committed: their players' connections here hear of them.
    pub async fn abandoned_committed(self: &Arc<Self>, ended: &[crate::store::Abandoned]) {
        self.committed(abandoned(ended)).await;
    }
}

/// A deleted player's abandoned matches as events: read from the row, or told as they ended
/// when the row went with the player's group.
fn abandoned(ended: &[crate::store::Abandoned]) -> Vec<Event> {
    ended
        .iter()
        .map(|a| {
            if !a.gone {
                return Event::Ended {
                    match_id: a.match_id.clone(),
                    players: a.players.clone(),
                };
            }
            Event::Players {
                to: a
                    .players
                    .iter()
                    .filter(|p| !p.is_empty())
                    .cloned()
                    .collect(),
                msg: ServerMsg::Ended {
                    match_id: a.match_id.clone(),
                    ending: Ending {
                        winner: Some(a.winner),
                        how: EndHow::Abandonment,
                    },
                    position: a.position.clone(),
                    scored: None,
                    ratings: None,
                },
            }
        })
        .collect()
}
