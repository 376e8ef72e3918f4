//! The task of one live match: it owns the position and the clocks, checks every move with
//! velha-rules, commits it, and only then acknowledges it and tells both players.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use velha_api::{EndHow, Ending, MatchView, RatingChanges, Refusal, Seat, ServerMsg};
use velha_rules::game::{self, Clock, Event};
use velha_rules::{Match, Player};

use super::Hub;
use super::game::LiveGame;
use crate::store::{MatchRow, MoveCommit};
use crate::token::{ms_until, now_ms};
use crate::view::{Running, match_view};

/// How a turn lost on the clock is written among the moves (the engine protocol's word).
pub(super) const TIMEOUT: &str = "timeout";

/// What a match's task is asked to do.
pub(super) enum Cmd {
    Play {
        account: String,
        ply: u32,
        actions: Vec<String>,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    Leave {
        account: String,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    Presence {
        account: String,
        online: bool,
    },
    View {
        account: String,
        reply: oneshot::Sender<Option<MatchView>>,
    },
}

pub(super) fn player(seat: Seat) -> Player {
    match seat {
        Seat::X => Player::X,
        Seat::O => Player::O,
    }
}

fn seat(player: Player) -> Seat {
    match player {
        Player::X => Seat::X,
        Player::O => Seat::O,
    }
}

fn other(s: Seat) -> Seat {
    match s {
        Seat::X => Seat::O,
        Seat::O => Seat::X,
    }
}

fn index(s: Seat) -> usize {
    match s {
        Seat::X => 0,
        Seat::O => 1,
    }
}

/// One live match's state, owned by its task.
pub(super) struct Actor<G: LiveGame> {
    hub: Arc<Hub>,
    /// The match as stored when its task started: who plays, and the parts that never change.
    row: MatchRow,
    ids: [String; 2],
    /// The position, the ply and the move clock (ON-M03, V2-R05), kept by the rules' match
    /// model.
    game: Match<G>,
    away: [Option<i64>; 2],
    over: bool,
    /// The Velha's decision being taken, when she plays O (ON-G05).
    deciding: Option<oneshot::Receiver<Option<G::Action>>>,
}

impl<G: LiveGame> Actor<G> {
    pub(super) fn new(
        hub: Arc<Hub>,
        row: &MatchRow,
        ids: [String; 2],
        position: G,
        deadline: i64,
        away: [Option<i64>; 2],
    ) -> Actor<G> {
        let clock = Clock {
            move_ms: hub.clocks.move_ms.unsigned_abs(),
        };
        Actor {
            row: row.clone(),
            ids,
            game: Match::resume(position, row.ply, Some(clock), Some(ms(deadline))),
            away,
            over: false,
            deciding: None,
            hub,
        }
    }

    /// When it is the Velha's turn, asks her pool for her action.
    fn ask_velha(&mut self) {
        if self.row.velha && !self.over && self.game.to_move() == Some(Player::O) {
            let earlier = self.game.earlier().to_vec();
            let position = *self.game.position();
            self.deciding = G::ask_velha(&self.hub, earlier, position);
        }
    }

    /// Plays the action the Velha decided, through the same checks and commit as a player's.
    async fn velha_plays(&mut self, action: Option<G::Action>) {
        self.deciding = None;
        let Some(action) = action else {
            tracing::error!(match_id = %self.row.id, "the Velha had no action to play");
            return;
        };
        if let Err(refusal) = self.apply(Seat::O, vec![action], now_ms()).await {
            tracing::error!(match_id = %self.row.id, ?refusal, "the Velha's action was refused");
        }
    }

    /// Tells both players that the match started, each with their own view.
    pub(super) fn announce(&self) {
        for s in [Seat::X, Seat::O] {
            let view = ServerMsg::Started { view: self.view(s) };
            self.hub.send_to(&self.ids[index(s)], &view);
        }
    }

    fn seat_of(&self, account: &str) -> Option<Seat> {
        if self.ids[0] == account {
            Some(Seat::X)
        } else if self.ids[1] == account {
            Some(Seat::O)
        } else {
            None
        }
    }

    fn to_move(&self) -> Seat {
        seat(LiveGame::side_to_move(self.game.position()))
    }

    /// When the move clock runs out, as the store keeps times.
    fn deadline(&self) -> i64 {
        self.game.deadline().map_or(i64::MAX, |d| d as i64)
    }

    fn view(&self, viewer: Seat) -> MatchView {
        let running = Running {
            position: self.game.position().to_string(),
            ply: self.game.ply(),
            to_move: self.game.to_move(),
            deadline: self.game.deadline(),
            away: self.away,
        };
        match_view(&self.row, viewer, Some(running), now_ms())
    }

    fn broadcast(&self, msg: &ServerMsg) {
        for id in &self.ids {
            self.hub.send_to(id, msg);
        }
    }

    fn next_wake(&self) -> i64 {
        self.away
            .iter()
            .flatten()
            .fold(self.deadline(), |t, a| t.min(*a))
    }

    pub(super) async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Cmd>) {
        self.ask_velha();
        while !self.over {
            let wait = ms_until(self.next_wake(), now_ms());
            let mut deciding = self.deciding.take();
            let step = tokio::select! {
                cmd = rx.recv() => Step::Cmd(cmd),
                action = velha_answer(&mut deciding) => Step::Velha(action),
                () = tokio::time::sleep(Duration::from_millis(wait)) => Step::Wake,
            };
            self.deciding = deciding;
            match step {
                Step::Cmd(Some(cmd)) => self.handle(cmd).await,
                Step::Cmd(None) => break,
                Step::Velha(action) => self.velha_plays(action).await,
                Step::Wake => self.settle().await,
            }
        }
        self.hub.finished(&self.row.id, &self.ids);
    }

    /// Applies the clocks that ran out: the move clock first (ON-M03: the cube's side to move
    /// loses; V2-R05: 2.0's loses the turn, each lost turn a move of its own), then the
    /// earlier reconnection grace (ON-M04).
    async fn settle(&mut self) {
        let now = now_ms();
        if G::TIMEOUT_IS_A_MOVE {
            while let Some(deadline) = self.game.deadline().map(|d| d as i64).filter(|d| *d <= now)
            {
                let mut after = self.game.clone();
                // Exactly the turn that ran out at `deadline`: the next starts then.
                let events = after.tick(ms(deadline));
                let Some(Event::TurnLost { by, .. }) = events.first().copied() else {
                    break;
                };
                let timeout = vec![TIMEOUT.to_owned()];
                if self
                    .commit(seat(by), timeout, after, &events, deadline)
                    .await
                    .is_err()
                    || self.over
                {
                    return;
                }
            }
        } else {
            let deadline = self.deadline();
            let mut after = self.game.clone();
            let timed_out = after.tick(ms(now)).into_iter().find_map(|e| match e {
                Event::Ended { winner, .. } => Some(winner),
                _ => None,
            });
            if let Some(winner) = timed_out {
                if self.end(winner.map(seat), EndHow::Time, deadline).await {
                    self.game = after;
                }
                return;
            }
        }
        let gone = [Seat::X, Seat::O]
            .into_iter()
            .filter_map(|s| self.away[index(s)].map(|t| (t, s)))
            .filter(|(t, _)| *t <= now)
            .min();
        if let Some((at, loser)) = gone
            && self.end(Some(other(loser)), EndHow::Abandonment, at).await
        {
            let _ = self.game.abandon(player(loser));
        }
    }

    /// Whether the match, just recorded as over, scored, and 2.0's rating changes (unknown if
    /// storage fails now).
    async fn outcome(&self) -> (Option<bool>, Option<RatingChanges>) {
        match self.hub.store.get_match(&self.row.id).await {
            Ok(Some(row)) => (row.scored, row.ratings),
            _ => (None, None),
        }
    }

    /// Records the end and tells both players; whether it was recorded.
    async fn end(&mut self, winner: Option<Seat>, how: EndHow, at: i64) -> bool {
        match self
            .hub
            .store
            .end_match(&self.row.id, winner, how, at)
            .await
        {
            Ok(true) => {
                tracing::info!(match_id = %self.row.id, ?winner, how = how.as_str(), "match over");
                self.over = true;
                let (scored, ratings) = self.outcome().await;
                self.broadcast(&ServerMsg::Ended {
                    match_id: self.row.id.clone(),
                    ending: Ending { winner, how },
                    position: self.game.position().to_string(),
                    scored,
                    ratings,
                });
                true
            }
            Ok(false) => {
                tracing::warn!(match_id = %self.row.id, "the match was no longer live in storage");
                self.over = true;
                false
            }
            Err(e) => {
                // Nothing is lost: the clock stays overdue and is settled on the next wake.
                tracing::error!(error = %e, match_id = %self.row.id, "could not record the end; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
                false
            }
        }
    }

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Play {
                account,
                ply,
                actions,
                reply,
            } => {
                let result = self.play(&account, ply, &actions).await;
                let _ = reply.send(result);
            }
            Cmd::Leave { account, reply } => {
                let result = match self.seat_of(&account) {
                    None => Err(Refusal::NotAPlayer),
                    Some(s) => {
                        if self
                            .end(Some(other(s)), EndHow::Abandonment, now_ms())
                            .await
                        {
                            let _ = self.game.abandon(player(s));
                            Ok(())
                        } else if self.over {
                            Err(Refusal::NotLive)
                        } else {
                            Err(Refusal::Unavailable)
                        }
                    }
                };
                let _ = reply.send(result);
            }
            Cmd::Presence { account, online } => {
                let Some(s) = self.seat_of(&account) else {
                    return;
                };
                let match_id = self.row.id.clone();
                if online {
                    if self.away[index(s)].take().is_some() {
                        self.broadcast(&ServerMsg::Back { match_id, seat: s });
                    }
                } else if self.away[index(s)].is_none() {
                    let grace = self.hub.clocks.grace_ms;
                    self.away[index(s)] = Some(now_ms() + grace);
                    self.broadcast(&ServerMsg::Away {
                        match_id,
                        seat: s,
                        grace_ms: grace as u64,
                    });
                }
            }
            Cmd::View { account, reply } => {
                let _ = reply.send(self.seat_of(&account).map(|s| self.view(s)));
            }
        }
    }

    async fn play(&mut self, account: &str, ply: u32, actions: &[String]) -> Result<(), Refusal> {
        let Some(mover) = self.seat_of(account) else {
            return Err(Refusal::NotAPlayer);
        };
        let now = now_ms();
        if ply != self.game.ply() {
            return Err(Refusal::Stale {
                ply: self.game.ply(),
            });
        }
        let parsed = actions
            .iter()
            .enumerate()
            .map(|(index, text)| {
                text.trim()
                    .parse::<G::Action>()
                    .map_err(|_| Refusal::BadAction { index })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.apply(mover, parsed, now).await
    }

    /// Checks, commits and announces the move of `mover`.
    async fn apply(
        &mut self,
        mover: Seat,
        parsed: Vec<G::Action>,
        now: i64,
    ) -> Result<(), Refusal> {
        // The rules' match model decides: whose turn, whole turn, clock. One action may be a
        // free turn committed on its own; more must make a whole move.
        let mut after = self.game.clone();
        let result = match parsed[..] {
            [action] => after.act(player(mover), action, ms(now)),
            _ => after.play_move(player(mover), &parsed, ms(now)),
        };
        let events = match result {
            Ok(events) => events,
            Err(game::Refusal::TimeUp) => {
                // The move came after the clock ran out: the timeout stands.
                self.settle().await;
                return Err(Refusal::NotLive);
            }
            Err(refusal) => return Err(refused::<G>(refusal)),
        };
        let played = parsed.iter().map(ToString::to_string).collect();
        self.commit(mover, played, after, &events, now).await
    }

    /// Stores the match model's change (a move, or a turn lost on time) and only then tells
    /// both players; the end of the match too, when it ended.
    async fn commit(
        &mut self,
        mover: Seat,
        played: Vec<String>,
        after: Match<G>,
        events: &[Event<G::Action>],
        now: i64,
    ) -> Result<(), Refusal> {
        let ending = events.iter().find_map(|e| match *e {
            Event::Ended { winner, ending } => {
                let how = match ending {
                    game::Ending::Rules => after.position().end_how(winner),
                    game::Ending::Time => EndHow::Time,
                    game::Ending::Abandonment => EndHow::Abandonment,
                };
                Some((winner.map(seat), how))
            }
            _ => None,
        });
        let deadline = after.deadline().map(|d| d as i64);
        let position = after.position().to_string();
        let text = played.join(" ");
        let commit = MoveCommit {
            match_id: &self.row.id,
            ply_before: self.game.ply(),
            seat: mover,
            actions: &text,
            position: &position,
            now,
            deadline,
            ending,
        };
        match self.hub.store.commit_move(&commit).await {
            Ok(true) => {}
            Ok(false) => {
                self.over = true;
                return Err(Refusal::NotLive);
            }
            Err(e) => {
                tracing::error!(error = %e, match_id = %self.row.id, "could not commit a move");
                return Err(Refusal::Unavailable);
            }
        }
        self.game = after;
        self.broadcast(&ServerMsg::Moved {
            match_id: self.row.id.clone(),
            ply: self.game.ply(),
            by: mover,
            actions: played,
            position: position.clone(),
            to_move: ending.is_none().then(|| self.to_move()),
            clock_ms: self.game.time_left(ms(now)),
        });
        if let Some((winner, how)) = ending {
            tracing::info!(match_id = %self.row.id, ?winner, how = how.as_str(), "match over");
            self.over = true;
            let (scored, ratings) = self.outcome().await;
            self.broadcast(&ServerMsg::Ended {
                match_id: self.row.id.clone(),
                ending: Ending { winner, how },
                position,
                scored,
                ratings,
            });
        }
        self.ask_velha();
        Ok(())
    }
}

/// What woke a match's task.
enum Step<A> {
    Cmd(Option<Cmd>),
    Velha(Option<A>),
    Wake,
}

/// The Velha's action once decided; never, when she is not deciding.
async fn velha_answer<A>(deciding: &mut Option<oneshot::Receiver<Option<A>>>) -> Option<A> {
    match deciding {
        Some(answer) => answer.await.ok().flatten(),
        None => std::future::pending().await,
    }
}

/// The wire's refusal for the match model's.
fn refused<G: LiveGame>(refusal: game::Refusal<G::Illegal>) -> Refusal {
    match refusal {
        game::Refusal::Over | game::Refusal::TimeUp => Refusal::NotLive,
        game::Refusal::NotYourTurn => Refusal::NotYourTurn,
        game::Refusal::Illegal { index, reason } => Refusal::Illegal {
            index,
            reason: G::illegal(reason),
        },
        game::Refusal::Unfinished | game::Refusal::TooLong => Refusal::BadLength,
    }
}

/// A stored time (ms since the epoch) as the match model counts it.
fn ms(t: i64) -> u64 {
    t.max(0).unsigned_abs()
}
