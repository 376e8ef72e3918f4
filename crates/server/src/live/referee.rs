//! The referee of a live match: any process loads the match as stored, checks the action with
//! velha-rules, and commits it only if nobody else changed the match meanwhile (the update on
//! its id, ply and state decides: exactly one of two racing processes wins). Only then are both
//! players told, through the events every process delivers. Nothing of a match lives in a
//! process between two actions, so a process that dies takes no match and no clock with it.

use std::sync::Arc;

use velha_api::{EndHow, MatchGame, MatchState, MatchView, Refusal, Seat, ServerMsg};
use velha_rules::game::{self, Clock, Event as RulesEvent};
use velha_rules::room::{self, Board, RoomGame};
use velha_rules::{Cube, Match, Player, Ultimate, Variant};

use super::Hub;
use super::bus::Event;
use super::live_game::LiveGame;
use crate::store::{MatchRow, MoveCommit};
use crate::token::now_ms;
use crate::view::{Running, match_view};

/// How a turn lost on the clock is written among the moves (the engine protocol's word).
pub(super) const TIMEOUT: &str = "timeout";

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

/// A live match as loaded for one action.
pub(super) struct Live<G: LiveGame> {
    hub: Arc<Hub>,
    /// The match as stored when loaded: who plays, and the parts that never change.
    row: MatchRow,
    ids: [String; 2],
    /// The position, the ply and the move clock (ON-M03, V2-R05), kept by the rules' match
    /// model.
    game: Match<G>,
    over: bool,
}

/// A live match of either game.
pub(super) enum Loaded {
    Cube(Live<Cube>),
    V2(Live<Ultimate>),
}

/// Loads a live match; `None` when it is not live (or not there).
pub(super) async fn load(hub: &Arc<Hub>, match_id: &str) -> Result<Option<Loaded>, String> {
    match hub.store.get_match(match_id).await {
        Ok(Some(row)) => from_row(hub, row).await,
        Ok(None) => Ok(None),
        Err(e) => Err(format!("match {match_id}: {e}")),
    }
}

/// A match as just read, to act on; `None` when it is not live.
pub(super) async fn from_row(hub: &Arc<Hub>, row: MatchRow) -> Result<Option<Loaded>, String> {
    if row.state != MatchState::Live {
        return Ok(None);
    }
    Ok(Some(match row.game {
        MatchGame::Cube => {
            let cube: Cube = row
                .position
                .parse()
                .map_err(|e| format!("match {}: stored position unreadable: {e}", row.id))?;
            Loaded::Cube(Live::new(hub, row, cube)?)
        }
        MatchGame::V2 if row.ply == 0 => {
            Loaded::V2(Live::new(hub, row, Ultimate::new(Variant::V2, Player::X))?)
        }
        MatchGame::V2 => {
            let position = v2_position(hub, &row).await?;
            Loaded::V2(Live::new(hub, row, position)?)
        }
    }))
}

/// A 2.0 match's position rebuilt from its stored moves by the rules: its state line does not
/// hold the lost turns in a row (V2-R05), the moves do.
async fn v2_position(hub: &Hub, row: &MatchRow) -> Result<Ultimate, String> {
    let moves = hub
        .store
        .moves_of(&row.id)
        .await
        .map_err(|e| format!("match {}: moves unreadable: {e}", row.id))?;
    let actions: Vec<(Player, &str)> = moves
        .iter()
        .map(|(_, seat, action)| (Player::from(*seat), action.as_str()))
        .collect();
    let replayed = room::replay_game(RoomGame::V2, Player::X, &actions)
        .map_err(|e| format!("match {}: moves do not replay: {e}", row.id))?;
    match replayed.boards.last() {
        Some(Board::Ultimate(u)) => Ok(*u),
        _ => Err(format!("match {}: not a 2.0 game", row.id)),
    }
}

/// Calls `$body` with the loaded match of either game as `$live`.
macro_rules! with_live {
    ($loaded:expr, $live:ident => $body:expr) => {
        match $loaded {
            #[allow(unused_mut)]
            Loaded::Cube(mut $live) => $body,
            #[allow(unused_mut)]
            Loaded::V2(mut $live) => $body,
        }
    };
}
pub(super) use with_live;

impl<G: LiveGame> Live<G> {
    fn new(hub: &Arc<Hub>, row: MatchRow, position: G) -> Result<Live<G>, String> {
        let deadline = row
            .deadline
            .ok_or_else(|| format!("match {}: live without a deadline", row.id))?;
        // The Velha has no account: her seat is nobody's connection.
        let o_id = match (&row.o_id, row.velha) {
            (_, true) => String::new(),
            (Some(o), false) => o.clone(),
            (None, false) => return Err(format!("match {}: live without O", row.id)),
        };
        let clock = Clock {
            move_ms: hub.clocks.move_ms.unsigned_abs(),
        };
        Ok(Live {
            hub: hub.clone(),
            ids: [row.x_id.clone(), o_id],
            game: Match::resume(position, row.ply, Some(clock), Some(ms(deadline))),
            over: false,
            row,
        })
    }

    /// The position now.
    pub(super) fn position(&self) -> &G {
        self.game.position()
    }

    /// Whether the Velha is to move, and at which ply.
    pub(super) fn velha_to_move(&self) -> Option<u32> {
        (self.row.velha && !self.over && self.game.to_move() == Some(Player::O))
            .then(|| self.game.ply())
    }

    /// Both players hear that the match started, each with their own view.
    pub(super) fn announce(&self) -> Vec<Event> {
        [Seat::X, Seat::O]
            .into_iter()
            .filter(|s| !self.ids[index(*s)].is_empty())
            .map(|s| Event::Players {
                to: vec![self.ids[index(s)].clone()],
                msg: ServerMsg::Started { view: self.view(s) },
            })
            .collect()
    }

    fn seat_of(&self, account: &str) -> Option<Seat> {
        if self.ids[0] == account {
            Some(Seat::X)
        } else if !self.ids[1].is_empty() && self.ids[1] == account {
            Some(Seat::O)
        } else {
            None
        }
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
            away: self.row.away,
        };
        match_view(&self.row, viewer, Some(running), now_ms())
    }

    /// The match as `account` sees it; None if not theirs.
    pub(super) fn view_for(&self, account: &str) -> Option<MatchView> {
        self.seat_of(account).map(|s| self.view(s))
    }

    fn to_both(&self, msg: ServerMsg) -> Event {
        Event::Players {
            to: self
                .ids
                .iter()
                .filter(|id| !id.is_empty())
                .cloned()
                .collect(),
            msg,
        }
    }

    fn ended(&self) -> Event {
        Event::Ended {
            match_id: self.row.id.clone(),
            players: self.ids.clone(),
        }
    }

    /// When the next clock of the match runs out: the move's, or an absent player's.
    pub(super) fn next_wake(&self) -> Option<i64> {
        (!self.over).then(|| {
            self.row
                .away
                .iter()
                .flatten()
                .fold(self.deadline(), |t, a| t.min(*a))
        })
    }

    /// Applies the clocks that ran out: the move clock first (ON-M03: the cube's side to move
    /// loses; V2-R05: 2.0's loses the turn, each lost turn a move of its own), then the
    /// earlier reconnection deadline (ON-M04).
    pub(super) async fn settle(&mut self) {
        let now = now_ms();
        if G::TIMEOUT_IS_A_MOVE {
            while let Some(deadline) = self.game.deadline().map(|d| d as i64).filter(|d| *d <= now)
            {
                let mut after = self.game.clone();
                // Exactly the turn that ran out at `deadline`: the next starts then.
                let events = after.tick(ms(deadline));
                let Some(RulesEvent::TurnLost { by, .. }) = events.first().copied() else {
                    break;
                };
                let timeout = vec![TIMEOUT.to_owned()];
                if self
                    .commit(Seat::from(by), timeout, after, &events, deadline)
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
                RulesEvent::Ended { winner, .. } => Some(winner),
                _ => None,
            });
            if let Some(winner) = timed_out {
                self.end(winner.map(Seat::from), EndHow::Time, deadline)
                    .await;
                return;
            }
        }
        let gone = [Seat::X, Seat::O]
            .into_iter()
            .filter_map(|s| self.row.away[index(s)].map(|t| (t, s)))
            .filter(|(t, _)| *t <= now)
            .min();
        if let Some((at, loser)) = gone {
            self.end(Some(other(loser)), EndHow::Abandonment, at).await;
        }
    }

    /// Records the end; whether this call ended it (another process may have first).
    async fn end(&mut self, winner: Option<Seat>, how: EndHow, at: i64) -> bool {
        let events = [self.ended()];
        let encoded = self.hub.encode(&events);
        match self
            .hub
            .store
            .end_match(&self.row.id, winner, how, at, &encoded)
            .await
        {
            Ok(true) => {
                tracing::info!(match_id = %self.row.id, ?winner, how = how.as_str(), "match over");
                self.over = true;
                self.hub.committed(events.into()).await;
                true
            }
            Ok(false) => {
                self.over = true;
                false
            }
            Err(e) => {
                // Nothing is lost: the clock stays overdue and the sweeper settles it again.
                tracing::error!(error = %e, match_id = %self.row.id, "could not record the end");
                false
            }
        }
    }

    /// `account` leaves the match: a loss by abandonment.
    pub(super) async fn leave(&mut self, account: &str) -> Result<(), Refusal> {
        let Some(s) = self.seat_of(account) else {
            return Err(Refusal::NotAPlayer);
        };
        if self
            .end(Some(other(s)), EndHow::Abandonment, now_ms())
            .await
        {
            Ok(())
        } else if self.over {
            Err(Refusal::NotLive)
        } else {
            Err(Refusal::Unavailable)
        }
    }

    pub(super) async fn play(
        &mut self,
        account: &str,
        ply: u32,
        actions: &[String],
    ) -> Result<(), Refusal> {
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

    /// The Velha's action (O), through the same checks and commit as a player's.
    pub(super) async fn velha_plays(&mut self, action: &str) {
        let Ok(parsed) = action.parse::<G::Action>() else {
            tracing::error!(match_id = %self.row.id, action, "the Velha's action is unreadable");
            return;
        };
        if let Err(refusal) = self.apply(Seat::O, vec![parsed], now_ms()).await {
            tracing::error!(match_id = %self.row.id, ?refusal, "the Velha's action was refused");
        }
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
            [action] => after.act(Player::from(mover), action, ms(now)),
            _ => after.play_move(Player::from(mover), &parsed, ms(now)),
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

    /// Stores the match model's change (a move, or a turn lost on time) with its events, and
    /// only then are both players told; the end of the match too, when it ended.
    async fn commit(
        &mut self,
        mover: Seat,
        played: Vec<String>,
        after: Match<G>,
        events: &[RulesEvent<G::Action>],
        now: i64,
    ) -> Result<(), Refusal> {
        let ending = events.iter().find_map(|e| match *e {
            RulesEvent::Ended { winner, ending } => {
                let how = match ending {
                    game::Ending::Rules => after.position().end_how(winner),
                    game::Ending::Time => EndHow::Time,
                    game::Ending::Abandonment => EndHow::Abandonment,
                };
                Some((winner.map(Seat::from), how))
            }
            _ => None,
        });
        let deadline = after.deadline().map(|d| d as i64);
        let position = after.position().to_string();
        let text = played.join(" ");
        let moved = ServerMsg::Moved {
            match_id: self.row.id.clone(),
            ply: after.ply(),
            by: mover,
            actions: played,
            position: position.clone(),
            to_move: ending
                .is_none()
                .then(|| Seat::from(LiveGame::side_to_move(after.position()))),
            clock_ms: after.time_left(ms(now)),
        };
        let mut told = vec![self.to_both(moved)];
        if ending.is_some() {
            told.push(self.ended());
        }
        let encoded = self.hub.encode(&told);
        let commit = MoveCommit {
            match_id: &self.row.id,
            ply_before: self.game.ply(),
            seat: mover,
            actions: &text,
            position: &position,
            now,
            deadline,
            ending,
            events: &encoded,
        };
        match self.hub.store.commit_move(&commit).await {
            Ok(true) => {}
            Ok(false) => {
                // Another action (on this process or another) came first.
                self.over = true;
                return Err(self.hub.conflict(&self.row.id).await);
            }
            Err(e) => {
                tracing::error!(error = %e, match_id = %self.row.id, "could not commit a move");
                return Err(Refusal::Unavailable);
            }
        }
        self.game = after;
        if let Some((winner, how)) = ending {
            tracing::info!(match_id = %self.row.id, ?winner, how = how.as_str(), "match over");
            self.over = true;
        }
        self.hub.committed(told).await;
        self.hub
            .after_change(&self.row.id, self.next_wake(), self.velha_to_move());
        Ok(())
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
