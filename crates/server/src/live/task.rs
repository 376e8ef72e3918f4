//! The task of one live match: it owns the position and the clocks, checks every move with
//! velha-rules, commits it, and only then acknowledges it and tells both players.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use velha_api::{EndHow, Ending, Illegal, MatchView, Refusal, Seat, ServerMsg};
use velha_rules::cube::{EndKind, OneWayRule};
use velha_rules::game::{self, Clock, Event};
use velha_rules::{Cube, CubeAction, CubeIllegal, Match, Player};

use super::Hub;
use crate::store::{MatchRow, MoveCommit};
use crate::token::{ms_until, now_ms};
use crate::view::{Running, match_view};

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

fn player(seat: Seat) -> Player {
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

fn illegal(e: CubeIllegal) -> Illegal {
    match e {
        CubeIllegal::GameOver => Illegal::GameOver,
        CubeIllegal::OpponentSymbol => Illegal::OpponentSymbol,
        CubeIllegal::SymbolLimit(p) => Illegal::SymbolLimit(seat(p)),
        CubeIllegal::WrongDirection(OneWayRule::Level1) => Illegal::WrongDirectionLevel1,
        CubeIllegal::WrongDirection(OneWayRule::Alternation) => Illegal::WrongDirectionAlternation,
        CubeIllegal::WrongDirection(OneWayRule::FreeTurn) => Illegal::WrongDirectionFreeTurn,
        CubeIllegal::SecondFreeTurn => Illegal::SecondFreeTurn,
    }
}

fn end_how(kind: EndKind) -> EndHow {
    match kind {
        EndKind::Line => EndHow::Line,
        EndKind::BothLines => EndHow::BothLines,
        EndKind::Timeout => EndHow::Time,
    }
}

/// One live match's state, owned by its task.
pub(super) struct Actor {
    hub: Arc<Hub>,
    /// The match as stored when its task started: who plays, and the parts that never change.
    row: MatchRow,
    ids: [String; 2],
    /// The position, the ply and the move clock (ON-M03), kept by the rules' match model.
    game: Match<Cube>,
    away: [Option<i64>; 2],
    over: bool,
    /// The Velha's decision being taken, when she plays O (ON-G05).
    deciding: Option<oneshot::Receiver<Option<CubeAction>>>,
}

impl Actor {
    pub(super) fn new(
        hub: Arc<Hub>,
        row: &MatchRow,
        ids: [String; 2],
        cube: Cube,
        deadline: i64,
        away: [Option<i64>; 2],
    ) -> Actor {
        let clock = Clock {
            move_ms: hub.clocks.move_ms.unsigned_abs(),
        };
        Actor {
            row: row.clone(),
            ids,
            game: Match::resume(cube, row.ply, Some(clock), Some(ms(deadline))),
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
            self.deciding = Some(self.hub.velha.decide(earlier, position));
        }
    }

    /// Plays the action the Velha decided, through the same checks and commit as a player's.
    async fn velha_plays(&mut self, action: Option<CubeAction>) {
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
        seat(self.game.position().side_to_move())
    }

    /// When the move clock runs out, as the store keeps times.
    fn deadline(&self) -> i64 {
        self.game.deadline().map_or(i64::MAX, |d| d as i64)
    }

    fn view(&self, viewer: Seat) -> MatchView {
        let running = Running {
            game: &self.game,
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

    /// Ends the match if a clock ran out: the move clock first (ON-M03), then the earlier
    /// reconnection grace (ON-M04).
    async fn settle(&mut self) {
        let now = now_ms();
        let deadline = self.deadline();
        let mut after = self.game.clone();
        let timed_out = after.tick(ms(now)).into_iter().find_map(|e| match e {
            Event::Ended { winner, .. } => winner,
            _ => None,
        });
        if let Some(winner) = timed_out {
            if self.end(seat(winner), EndHow::Time, deadline).await {
                self.game = after;
            }
            return;
        }
        let gone = [Seat::X, Seat::O]
            .into_iter()
            .filter_map(|s| self.away[index(s)].map(|t| (t, s)))
            .filter(|(t, _)| *t <= now)
            .min();
        if let Some((at, loser)) = gone
            && self.end(other(loser), EndHow::Abandonment, at).await
        {
            let _ = self.game.abandon(player(loser));
        }
    }

    /// Whether the match, just recorded as over, scored (unknown if storage fails now).
    async fn scored(&self) -> Option<bool> {
        self.hub.store.scored(&self.row.id).await.ok().flatten()
    }

    /// Records the end and tells both players; whether it was recorded.
    async fn end(&mut self, winner: Seat, how: EndHow, at: i64) -> bool {
        match self
            .hub
            .store
            .end_match(&self.row.id, winner, how, at)
            .await
        {
            Ok(true) => {
                tracing::info!(match_id = %self.row.id, ?winner, how = how.as_str(), "match over");
                self.over = true;
                let scored = self.scored().await;
                self.broadcast(&ServerMsg::Ended {
                    match_id: self.row.id.clone(),
                    ending: Ending { winner, how },
                    position: self.game.position().to_string(),
                    scored,
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
                        if self.end(other(s), EndHow::Abandonment, now_ms()).await {
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
                    .parse::<CubeAction>()
                    .map_err(|_| Refusal::BadAction { index })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.apply(mover, parsed, now).await
    }

    /// Checks, commits and announces the move of `mover`.
    async fn apply(
        &mut self,
        mover: Seat,
        parsed: Vec<CubeAction>,
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
            Err(refusal) => return Err(refused(refusal)),
        };
        let ending = events.iter().find_map(|e| match e {
            Event::Ended { .. } => after
                .position()
                .ending()
                .map(|end| (seat(end.winner), end_how(end.how))),
            _ => None,
        });
        let deadline = after.deadline().map(|d| d as i64);
        let position = after.position().to_string();
        let played: Vec<String> = parsed.iter().map(ToString::to_string).collect();
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
            let scored = self.scored().await;
            self.broadcast(&ServerMsg::Ended {
                match_id: self.row.id.clone(),
                ending: Ending { winner, how },
                position,
                scored,
            });
        }
        self.ask_velha();
        Ok(())
    }
}

/// What woke a match's task.
enum Step {
    Cmd(Option<Cmd>),
    Velha(Option<CubeAction>),
    Wake,
}

/// The Velha's action once decided; never, when she is not deciding.
async fn velha_answer(
    deciding: &mut Option<oneshot::Receiver<Option<CubeAction>>>,
) -> Option<CubeAction> {
    match deciding {
        Some(answer) => answer.await.ok().flatten(),
        None => std::future::pending().await,
    }
}

/// The wire's refusal for the match model's.
fn refused(refusal: game::Refusal<CubeIllegal>) -> Refusal {
    match refusal {
        game::Refusal::Over | game::Refusal::TimeUp => Refusal::NotLive,
        game::Refusal::NotYourTurn => Refusal::NotYourTurn,
        game::Refusal::Illegal { index, reason } => Refusal::Illegal {
            index,
            reason: illegal(reason),
        },
        game::Refusal::Unfinished | game::Refusal::TooLong => Refusal::BadLength,
    }
}

/// A stored time (ms since the epoch) as the match model counts it.
fn ms(t: i64) -> u64 {
    t.max(0).unsigned_abs()
}
