//! The task of one live match: it owns the position and the clocks, checks every move with
//! velha-rules, commits it, and only then acknowledges it and tells both players.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use velha_api::{Away, EndHow, Ending, Illegal, MatchState, MatchView, Refusal, Seat, ServerMsg};
use velha_rules::cube::{EndKind, OneWayRule};
use velha_rules::{Cube, CubeAction, CubeIllegal, Player, Position, Status};

use super::Hub;
use crate::store::{MatchRow, MoveCommit};
use crate::token::now_ms;

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

fn left(deadline: i64, now: i64) -> u64 {
    u64::try_from(deadline - now).unwrap_or(0)
}

/// One live match's state, owned by its task.
pub(super) struct Actor {
    hub: Arc<Hub>,
    id: String,
    scope: velha_api::Scope,
    level: u8,
    ids: [String; 2],
    names: [String; 2],
    cube: Cube,
    ply: u32,
    deadline: i64,
    away: [Option<i64>; 2],
    over: bool,
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
        Actor {
            hub,
            id: row.id.clone(),
            scope: row.scope,
            level: row.level,
            names: [row.x_name.clone(), row.o_name.clone().unwrap_or_default()],
            ids,
            cube,
            ply: row.ply,
            deadline,
            away,
            over: false,
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
        seat(self.cube.side_to_move())
    }

    fn view(&self, viewer: Seat) -> MatchView {
        let now = now_ms();
        MatchView {
            id: self.id.clone(),
            scope: self.scope,
            level: self.level,
            x: self.names[0].clone(),
            o: Some(self.names[1].clone()),
            seat: viewer,
            state: MatchState::Live,
            position: self.cube.to_string(),
            ply: self.ply,
            to_move: Some(self.to_move()),
            clock_ms: Some(left(self.deadline, now)),
            away: [Seat::X, Seat::O]
                .into_iter()
                .filter_map(|s| {
                    self.away[index(s)].map(|t| Away {
                        seat: s,
                        grace_ms: left(t, now),
                    })
                })
                .collect(),
            ending: None,
        }
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
            .fold(self.deadline, |t, a| t.min(*a))
    }

    pub(super) async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Cmd>) {
        while !self.over {
            let wait = left(self.next_wake(), now_ms());
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                () = tokio::time::sleep(Duration::from_millis(wait)) => self.settle().await,
            }
        }
        self.hub.finished(&self.id, &self.ids);
    }

    /// Ends the match if a clock ran out: the move clock first (ON-M03), then the earlier
    /// reconnection grace (ON-M04).
    async fn settle(&mut self) {
        let now = now_ms();
        if now >= self.deadline {
            let loser = self.to_move();
            self.end(other(loser), EndHow::Time, self.deadline).await;
            return;
        }
        let gone = [Seat::X, Seat::O]
            .into_iter()
            .filter_map(|s| self.away[index(s)].map(|t| (t, s)))
            .filter(|(t, _)| *t <= now)
            .min();
        if let Some((at, loser)) = gone {
            self.end(other(loser), EndHow::Abandonment, at).await;
        }
    }

    async fn end(&mut self, winner: Seat, how: EndHow, at: i64) {
        match self.hub.store.end_match(&self.id, winner, how, at).await {
            Ok(true) => {
                tracing::info!(match_id = %self.id, ?winner, how = how.as_str(), "match over");
                self.over = true;
                self.broadcast(&ServerMsg::Ended {
                    match_id: self.id.clone(),
                    ending: Ending { winner, how },
                    position: self.cube.to_string(),
                });
            }
            Ok(false) => {
                tracing::warn!(match_id = %self.id, "the match was no longer live in storage");
                self.over = true;
            }
            Err(e) => {
                // Nothing is lost: the clock stays overdue and is settled on the next wake.
                tracing::error!(error = %e, match_id = %self.id, "could not record the end; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
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
                        self.end(other(s), EndHow::Abandonment, now_ms()).await;
                        if self.over {
                            Ok(())
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
                let match_id = self.id.clone();
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
        if now >= self.deadline {
            // The move came after the clock ran out: the timeout stands.
            self.settle().await;
            return Err(Refusal::NotLive);
        }
        if ply != self.ply {
            return Err(Refusal::Stale { ply: self.ply });
        }
        if mover != self.to_move() {
            return Err(Refusal::NotYourTurn);
        }
        if actions.is_empty() || actions.len() > 2 {
            return Err(Refusal::BadLength);
        }
        let mut next = self.cube;
        let mut played = Vec::with_capacity(actions.len());
        for (i, text) in actions.iter().enumerate() {
            let action: CubeAction = text
                .trim()
                .parse()
                .map_err(|_| Refusal::BadAction { index: i })?;
            if next.status() != Status::Ongoing(player(mover)) {
                return Err(Refusal::BadLength);
            }
            next.play(action).map_err(|e| Refusal::Illegal {
                index: i,
                reason: illegal(e),
            })?;
            played.push(action.to_string());
        }
        let ending = next.ending().map(|e| (seat(e.winner), end_how(e.how)));
        let turn_passed = next.status() != Status::Ongoing(player(mover));
        let deadline = match (ending, turn_passed) {
            (Some(_), _) => None,
            (None, true) => Some(now + self.hub.clocks.move_ms),
            (None, false) => Some(self.deadline),
        };
        let position = next.to_string();
        let text = played.join(" ");
        let commit = MoveCommit {
            match_id: &self.id,
            ply_before: self.ply,
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
                tracing::error!(error = %e, match_id = %self.id, "could not commit a move");
                return Err(Refusal::Unavailable);
            }
        }
        self.cube = next;
        self.ply += 1;
        if let Some(d) = deadline {
            self.deadline = d;
        }
        self.broadcast(&ServerMsg::Moved {
            match_id: self.id.clone(),
            ply: self.ply,
            by: mover,
            actions: played,
            position: position.clone(),
            to_move: ending.is_none().then(|| self.to_move()),
            clock_ms: deadline.map(|d| left(d, now)),
        });
        if let Some((winner, how)) = ending {
            tracing::info!(match_id = %self.id, ?winner, how = how.as_str(), "match over");
            self.over = true;
            self.broadcast(&ServerMsg::Ended {
                match_id: self.id.clone(),
                ending: Ending { winner, how },
                position,
            });
        }
        Ok(())
    }
}
