//! One match of any of the four games, as the app, the server and the AI hold it: the
//! position, whole moves (on the cube a free turn and its main action are one move,
//! CUBE-R02), the ply, and the move clock as deadlines computed from an injected `now`
//! (milliseconds since the Unix epoch; nothing here reads a clock). Every change answers with
//! the events it caused, and every refusal says why.

use std::fmt;

use crate::{Player, Position, Status};

/// The move clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time for each move (a whole turn), from the moment the turn starts.
    pub move_ms: u64,
}

/// How a match or a game ended: one word for every game, the live matches and the rooms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// A line of the winner's (the cube's side 1, CUBE-R11); on 2.0 also the count of boards
    /// won once every board is decided (V2-R04).
    Line,
    /// A cube turn made lines of both symbols and the player who turned lost (CUBE-R12).
    BothLines,
    /// Nobody won: a full board, or on 2.0 an even count or both lines at once (V2-R03, R04).
    Draw,
    /// The clock: the cube's side to move (ON-M03), or 2.0's third lost turn in a row (V2-R05).
    Time,
    /// A player left, or did not come back in time (ON-M04).
    Abandonment,
    /// A player resigned (CLASSIC-R11).
    Resigned,
    /// The player to move was away too long and the other claimed the game (CLASSIC-R12).
    Absent,
}

impl Ending {
    /// Whether the game's own rules ended it (a line or a draw), rather than the loser's
    /// clock, absence or choice.
    pub const fn on_the_board(self) -> bool {
        matches!(self, Ending::Line | Ending::BothLines | Ending::Draw)
    }
}

/// The winner (`None` for a draw) and how a match ended.
pub type Ended = (Option<Player>, Ending);

/// Something a match did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<A> {
    /// `by` played `action` and keeps the turn: the cube's free turn.
    Continued {
        /// Who acted.
        by: Player,
        /// What they did.
        action: A,
        /// The match's ply after it.
        ply: u32,
    },
    /// `by` finished a move.
    Moved {
        /// Who moved.
        by: Player,
        /// The match's ply after it.
        ply: u32,
    },
    /// `by` ran out of time and lost the turn (V2-R05).
    TurnLost {
        /// Whose turn was lost.
        by: Player,
        /// The match's ply after it.
        ply: u32,
    },
    /// The match is over.
    Ended {
        /// The winner; `None` for a draw.
        winner: Option<Player>,
        /// How.
        ending: Ending,
    },
}

/// Why a match refused an action or a move; nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal<I> {
    /// The match is over.
    Over,
    /// It is the other player's turn.
    NotYourTurn,
    /// The action at `index` of the move breaks the rules, for `reason`.
    Illegal {
        /// Which action of the move, from 0.
        index: usize,
        /// The rules' reason.
        reason: I,
    },
    /// A move must end the turn: these actions leave it unfinished (a free turn alone).
    Unfinished,
    /// The turn ended before the last action of the move.
    TooLong,
    /// The clock of the side to move has run out: [`Match::tick`] decides what that means.
    TimeUp,
}

impl<I> Refusal<I> {
    /// The same refusal, its illegal action's reason changed by `f`.
    pub fn map_illegal<J>(self, f: impl FnOnce(I) -> J) -> Refusal<J> {
        match self {
            Refusal::Over => Refusal::Over,
            Refusal::NotYourTurn => Refusal::NotYourTurn,
            Refusal::Illegal { index, reason } => Refusal::Illegal {
                index,
                reason: f(reason),
            },
            Refusal::Unfinished => Refusal::Unfinished,
            Refusal::TooLong => Refusal::TooLong,
            Refusal::TimeUp => Refusal::TimeUp,
        }
    }
}

impl<I: fmt::Display> fmt::Display for Refusal<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Over => f.write_str("the match is over"),
            Refusal::NotYourTurn => f.write_str("it is the other player's turn"),
            Refusal::Illegal { index, reason } => write!(f, "action {index}: {reason}"),
            Refusal::Unfinished => f.write_str("a move must end the turn"),
            Refusal::TooLong => f.write_str("the turn ended before the last action"),
            Refusal::TimeUp => f.write_str("the time for this move has run out"),
        }
    }
}

/// Earlier positions kept at most: a cube game has no move limit (CUBE-R13), and a match must
/// not grow without bound in a server's memory; a repetition further back is no longer worth
/// avoiding.
pub const EARLIER_KEPT: usize = 4096;

/// One match: a position and everything around it that the rules of play decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match<P: Position> {
    position: P,
    /// The last positions before `position` (at most [`EARLIER_KEPT`]), oldest first: the
    /// Velha's memory of the game.
    earlier: Vec<P>,
    /// Changes recorded: moves, free turns played alone, turns lost on time.
    ply: u32,
    clock: Option<Clock>,
    /// When the side to move runs out of time, while the match goes on with a clock.
    deadline: Option<u64>,
    ended: Option<Ended>,
}

impl<P: Position> Match<P> {
    /// A match from `start` at `now`; with a clock, the first turn starts now.
    pub fn new(start: P, clock: Option<Clock>, now: u64) -> Match<P> {
        let mut m = Match {
            position: start,
            earlier: Vec::new(),
            ply: 0,
            clock,
            deadline: None,
            ended: None,
        };
        m.settle_end();
        m.restart_clock(now);
        m
    }

    /// A match resumed from storage: its position, its ply, and the deadline of
    /// the side to move as stored.
    pub fn resume(position: P, ply: u32, clock: Option<Clock>, deadline: Option<u64>) -> Match<P> {
        let mut m = Match {
            position,
            earlier: Vec::new(),
            ply,
            clock,
            deadline: clock.and(deadline),
            ended: None,
        };
        m.settle_end();
        m
    }

    /// The same match with `earlier` as the positions before its own (the last
    /// [`EARLIER_KEPT`] of them): a match kept on a device keeps its memory and its review.
    pub fn with_earlier(mut self, mut earlier: Vec<P>) -> Match<P> {
        earlier.drain(..earlier.len().saturating_sub(EARLIER_KEPT));
        self.earlier = earlier;
        self
    }

    /// The position now.
    pub fn position(&self) -> &P {
        &self.position
    }

    /// The last positions before this one (at most [`EARLIER_KEPT`]), oldest first.
    pub fn earlier(&self) -> &[P] {
        &self.earlier
    }

    /// Changes recorded so far: each move, each free turn played on its own, each turn lost
    /// on time. A client whose view has the same ply sees the match as it is.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Who acts next, while the match goes on.
    pub fn to_move(&self) -> Option<Player> {
        match (self.ended, self.position.status()) {
            (None, Status::Ongoing(p)) => Some(p),
            _ => None,
        }
    }

    /// When the side to move runs out of time, if the match has a clock and goes on.
    pub fn deadline(&self) -> Option<u64> {
        self.deadline
    }

    /// Milliseconds the side to move has left at `now`.
    pub fn time_left(&self, now: u64) -> Option<u64> {
        self.deadline.map(|d| d.saturating_sub(now))
    }

    /// The winner (`None` for a draw) and how, once over.
    pub fn ended(&self) -> Option<Ended> {
        self.ended
    }

    /// One action by `by` at `now`: a free turn (the turn goes on) or the end of a move.
    pub fn act(
        &mut self,
        by: Player,
        action: P::Action,
        now: u64,
    ) -> Result<Vec<Event<P::Action>>, Refusal<P::Illegal>> {
        self.ready_for(by, now)?;
        let mut next = self.position;
        next.play(action)
            .map_err(|reason| Refusal::Illegal { index: 0, reason })?;
        let mut events = Vec::new();
        if !self.commit(by, [self.position], next, now, &mut events) {
            events.push(Event::Continued {
                by,
                action,
                ply: self.ply,
            });
        }
        Ok(events)
    }

    /// A whole move by `by` at `now`: every action checked before any is kept, and the last
    /// must end the turn (the cube: an optional free turn, then a main action).
    pub fn play_move(
        &mut self,
        by: Player,
        actions: &[P::Action],
        now: u64,
    ) -> Result<Vec<Event<P::Action>>, Refusal<P::Illegal>> {
        self.ready_for(by, now)?;
        let mut next = self.position;
        let mut steps = Vec::with_capacity(actions.len());
        for (index, &action) in actions.iter().enumerate() {
            if next.status() != Status::Ongoing(by) {
                return Err(Refusal::TooLong);
            }
            steps.push(next);
            next.play(action)
                .map_err(|reason| Refusal::Illegal { index, reason })?;
        }
        if next.status() == Status::Ongoing(by) {
            return Err(Refusal::Unfinished);
        }
        let mut events = Vec::new();
        self.commit(by, steps, next, now, &mut events);
        Ok(events)
    }

    /// Applies the clock at `now`: each turn whose time ran out is lost by the rules of the
    /// game (the cube's side to move loses; 2.0's loses the turn, and the game at the third
    /// in a row). A later turn starts when the earlier one ran out.
    pub fn tick(&mut self, now: u64) -> Vec<Event<P::Action>> {
        let mut events = Vec::new();
        while let (Some(deadline), Some(by), Some(clock)) =
            (self.deadline, self.to_move(), self.clock)
        {
            if now < deadline {
                break;
            }
            if self.run_out(by, &mut events).is_err() {
                // A game without a clock rule: nothing can run out.
                self.deadline = None;
                break;
            }
            if self.ended.is_none() {
                self.deadline = Some(deadline + clock.move_ms);
            }
        }
        events
    }

    /// `by`'s turn ran out on a clock this match does not keep (a record played back): what
    /// the game's rules make of it, as [`Match::tick`] would have. A match with a clock runs
    /// out by it, so refuses this with [`Refusal::TimeUp`].
    pub fn time_out(&mut self, by: Player) -> Result<Vec<Event<P::Action>>, Refusal<P::Illegal>> {
        if self.clock.is_some() {
            return Err(Refusal::TimeUp);
        }
        match self.to_move() {
            None => return Err(Refusal::Over),
            Some(p) if p != by => return Err(Refusal::NotYourTurn),
            Some(_) => {}
        }
        let mut events = Vec::new();
        self.run_out(by, &mut events)
            .map_err(|reason| Refusal::Illegal { index: 0, reason })?;
        Ok(events)
    }

    /// The turn of `by`, to move, runs out.
    fn run_out(
        &mut self,
        by: Player,
        events: &mut Vec<Event<P::Action>>,
    ) -> Result<(), P::Illegal> {
        let mut next = self.position;
        next.timeout()?;
        self.remember(self.position);
        self.position = next;
        self.ply += 1;
        events.push(Event::TurnLost { by, ply: self.ply });
        if self.settle_end() {
            events.push(self.end_event());
        }
        Ok(())
    }

    /// `by` leaves, or is gone too long: the other player wins by abandonment (ON-M04).
    pub fn abandon(&mut self, by: Player) -> Result<Ended, Refusal<P::Illegal>> {
        self.lose(by, Ending::Abandonment)
    }

    /// `by` resigns: the other player wins (CLASSIC-R11).
    pub fn resign(&mut self, by: Player) -> Result<Ended, Refusal<P::Illegal>> {
        self.lose(by, Ending::Resigned)
    }

    /// `by`, to move, was away too long (how long is the caller's rule) and the other claims
    /// the game (CLASSIC-R12). Only the side to move can be absent.
    pub fn absent(&mut self, by: Player) -> Result<Ended, Refusal<P::Illegal>> {
        match self.to_move() {
            Some(p) if p != by => Err(Refusal::NotYourTurn),
            _ => self.lose(by, Ending::Absent),
        }
    }

    fn lose(&mut self, by: Player, ending: Ending) -> Result<Ended, Refusal<P::Illegal>> {
        if self.to_move().is_none() {
            return Err(Refusal::Over);
        }
        let ended = (Some(!by), ending);
        self.ended = Some(ended);
        self.deadline = None;
        Ok(ended)
    }

    fn ready_for(&self, by: Player, now: u64) -> Result<(), Refusal<P::Illegal>> {
        match self.to_move() {
            None => Err(Refusal::Over),
            Some(p) if p != by => Err(Refusal::NotYourTurn),
            Some(_) if self.deadline.is_some_and(|d| now >= d) => Err(Refusal::TimeUp),
            Some(_) => Ok(()),
        }
    }

    /// Keeps `next`, reached by `by` through `passed` (the positions left behind, oldest
    /// first); true when it finished the turn, which then restarts the clock.
    fn commit(
        &mut self,
        by: Player,
        passed: impl IntoIterator<Item = P>,
        next: P,
        now: u64,
        events: &mut Vec<Event<P::Action>>,
    ) -> bool {
        for position in passed {
            self.remember(position);
        }
        self.position = next;
        self.ply += 1;
        if next.status() == Status::Ongoing(by) {
            return false;
        }
        events.push(Event::Moved { by, ply: self.ply });
        if self.settle_end() {
            events.push(self.end_event());
        } else {
            self.restart_clock(now);
        }
        true
    }

    fn remember(&mut self, position: P) {
        if self.earlier.len() == EARLIER_KEPT {
            // Dropping half at once keeps the cost per action constant on average.
            self.earlier.drain(..EARLIER_KEPT / 2);
        }
        self.earlier.push(position);
    }

    fn restart_clock(&mut self, now: u64) {
        self.deadline = match (self.clock, self.to_move()) {
            (Some(clock), Some(_)) => Some(now + clock.move_ms),
            _ => None,
        };
    }

    /// Records the position's end, if it has one; true when it just ended.
    fn settle_end(&mut self) -> bool {
        if self.ended.is_some() {
            return false;
        }
        match self.position.ending() {
            Some(ending) => {
                self.ended = Some((self.position.status().winner(), ending));
                self.deadline = None;
                true
            }
            None => false,
        }
    }

    fn end_event(&self) -> Event<P::Action> {
        let (winner, ending) = self.ended.expect("called once the match ended");
        Event::Ended { winner, ending }
    }
}
