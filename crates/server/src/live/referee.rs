//! The referee of a live match: any process loads the match as stored, and the referee checks
//! an action (or the clocks) with velha-rules and returns its decision: what to write and what
//! to tell once written. It calls nothing back; the hub (`matches.rs`) commits the decision
//! only if nobody else changed the match meanwhile (the update on its id, ply and state
//! decides: exactly one of two racing processes wins), and only then are both players told,
//! through the events every process delivers. Nothing of a match lives in a process between
//! two actions, so a process that dies takes no match and no clock with it.

use std::borrow::Cow;

use velha_api::{EndHow, MatchGame, MatchState, MatchView, Refusal, Seat, ServerMsg};
use velha_rules::game::{self, Clock, Event as RulesEvent};
use velha_rules::notation::TIMEOUT;
use velha_rules::{Cube, Match, Player, Ultimate, Variant};

use super::Hub;
use super::bus::Event;
use super::live_game::LiveGame;
use crate::store::{MatchRow, MoveCommit};
use crate::token::now_ms;
use crate::view::{Running, match_view};

fn index(s: Seat) -> usize {
    match s {
        Seat::X => 0,
        Seat::O => 1,
    }
}

/// A live match as loaded for one action.
pub(super) struct Live<G: LiveGame> {
    /// The match as stored when loaded: who plays, and the parts that never change.
    row: MatchRow,
    ids: [String; 2],
    /// The position, the ply and the move clock (ON-M03, V2-R05), kept by the rules' match
    /// model.
    game: Match<G>,
    over: bool,
}

/// What the referee decided: what to write, and what to tell once it is written.
pub(super) struct Decision<G: LiveGame> {
    /// The change to write.
    pub write: Write,
    /// What both players (and the lobby, the other processes) hear once it is written.
    pub told: Vec<Event>,
    /// The match as the decision leaves it.
    after: Match<G>,
}

/// The change a decision writes.
pub(super) enum Write {
    /// A move, or 2.0's lost turn: a row of the match's moves.
    Move(MoveWrite),
    /// The end of the match without a move: the cube's clock, an abandonment.
    End {
        winner: Option<Seat>,
        how: EndHow,
        at: i64,
    },
}

/// A move to write: the store's `MoveCommit` without the match and the events, which the hub
/// adds.
pub(super) struct MoveWrite {
    ply_before: u32,
    seat: Seat,
    actions: String,
    position: String,
    now: i64,
    deadline: Option<i64>,
    ending: Option<(Option<Seat>, EndHow)>,
}

impl MoveWrite {
    /// The store's commit of this move in `match_id`, telling `events`.
    pub(super) fn commit<'a>(
        &'a self,
        match_id: &'a str,
        events: &'a [(String, String)],
    ) -> MoveCommit<'a> {
        MoveCommit {
            match_id,
            ply_before: self.ply_before,
            seat: self.seat,
            actions: &self.actions,
            position: &self.position,
            now: self.now,
            deadline: self.deadline,
            ending: self.ending,
            events,
        }
    }
}

impl Write {
    /// How the match ends with this change, if it does: the winner (none for a draw) and how.
    pub(super) fn ending(&self) -> Option<(Option<Seat>, EndHow)> {
        match self {
            Write::Move(m) => m.ending,
            Write::End { winner, how, .. } => Some((*winner, *how)),
        }
    }
}

/// Why an action is not carried out.
pub(super) enum Rejected {
    /// The rules, the turn or the ply refuse it.
    Refused(Refusal),
    /// It came after the move clock ran out: the timeout stands, and the clocks are to be
    /// settled (`Live::settlement`).
    Late,
}

impl From<Refusal> for Rejected {
    fn from(refusal: Refusal) -> Self {
        Rejected::Refused(refusal)
    }
}

impl<G: LiveGame> Live<G> {
    fn new(move_ms: i64, row: MatchRow, position: G) -> Result<Live<G>, String> {
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
            move_ms: move_ms.unsigned_abs(),
        };
        Ok(Live {
            ids: [row.x_id.clone(), o_id],
            game: Match::resume(position, row.ply, Some(clock), Some(ms(deadline))),
            over: false,
            row,
        })
    }

    /// The match's id.
    pub(super) fn id(&self) -> &str {
        &self.row.id
    }

    /// The word of the match's game (`cube`, `v2`).
    pub(super) fn game_word(&self) -> &'static str {
        self.row.game.as_str()
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

    /// The next change the clocks that ran out by `now` make, in order: the move clock first
    /// (ON-M03: the cube's side to move loses; V2-R05: 2.0's loses the turn, each lost turn a
    /// move of its own, one decision each), then the earlier reconnection deadline (ON-M04).
    /// None when nothing is due.
    pub(super) fn settlement(&self, now: i64) -> Option<Decision<G>> {
        if self.over {
            return None;
        }
        if G::TIMEOUT_IS_A_MOVE {
            if let Some(deadline) = self.game.deadline().map(|d| d as i64).filter(|d| *d <= now) {
                let mut after = self.game.clone();
                // Exactly the turn that ran out at `deadline`: the next starts then.
                let events = after.tick(ms(deadline));
                if let Some(RulesEvent::TurnLost { by, .. }) = events.first().copied() {
                    let timeout = vec![TIMEOUT.to_owned()];
                    return Some(self.decide_move(
                        Seat::from(by),
                        timeout,
                        after,
                        &events,
                        deadline,
                    ));
                }
            }
        } else {
            let mut after = self.game.clone();
            let timed_out = after.tick(ms(now)).into_iter().find_map(|e| match e {
                RulesEvent::Ended { winner, .. } => Some(winner),
                _ => None,
            });
            if let Some(winner) = timed_out {
                let (at, winner) = (self.deadline(), winner.map(Seat::from));
                return Some(self.decide_end(after, winner, EndHow::Time, at));
            }
        }
        [Seat::X, Seat::O]
            .into_iter()
            .filter_map(|s| self.row.away[index(s)].map(|t| (t, s)))
            .filter(|(t, _)| *t <= now)
            .min()
            .map(|(at, gone)| self.abandoned(gone, at))
    }

    /// `account` leaves the match at `now`: a loss by abandonment.
    pub(super) fn leave(&self, account: &str, now: i64) -> Result<Decision<G>, Refusal> {
        let s = self.seat_of(account).ok_or(Refusal::NotAPlayer)?;
        if self.over {
            return Err(Refusal::NotLive);
        }
        Ok(self.abandoned(s, now))
    }

    /// `by` abandons the match at `at`, as the rules' match model ends it. A match stored as
    /// live whose position the rules already see as over ends by abandonment all the same:
    /// refusing would leave it live, its clock overdue for ever.
    fn abandoned(&self, by: Seat, at: i64) -> Decision<G> {
        let mut after = self.game.clone();
        let by = Player::from(by);
        let winner = match after.abandon(by) {
            Ok((winner, _)) => winner,
            Err(_) => {
                tracing::warn!(match_id = %self.row.id, "a live match the rules see as over");
                Some(!by)
            }
        };
        self.decide_end(after, winner.map(Seat::from), EndHow::Abandonment, at)
    }

    /// A move of `account` at `now`, sent for the ply `ply`.
    pub(super) fn play(
        &self,
        account: &str,
        ply: u32,
        actions: &[String],
        now: i64,
    ) -> Result<Decision<G>, Rejected> {
        let mover = self.seat_of(account).ok_or(Refusal::NotAPlayer)?;
        if ply != self.game.ply() {
            return Err(Refusal::Stale {
                ply: self.game.ply(),
            }
            .into());
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
        self.decide(mover, parsed, now)
    }

    /// The Velha's action (O) at `now`, through the same checks as a player's.
    pub(super) fn velha_plays(&self, action: &str, now: i64) -> Result<Decision<G>, Rejected> {
        let parsed = action
            .parse::<G::Action>()
            .map_err(|_| Refusal::BadAction { index: 0 })?;
        self.decide(Seat::O, vec![parsed], now)
    }

    /// Checks the move of `mover` with the rules' match model: whose turn, whole turn, clock.
    /// One action may be a free turn committed on its own; more must make a whole move.
    fn decide(
        &self,
        mover: Seat,
        parsed: Vec<G::Action>,
        now: i64,
    ) -> Result<Decision<G>, Rejected> {
        let mut after = self.game.clone();
        let result = match parsed[..] {
            [action] => after.act(Player::from(mover), action, ms(now)),
            _ => after.play_move(Player::from(mover), &parsed, ms(now)),
        };
        let events = match result {
            Ok(events) => events,
            Err(game::Refusal::TimeUp) => return Err(Rejected::Late),
            Err(refusal) => return Err(Refusal::from(refusal).into()),
        };
        let played = parsed.iter().map(ToString::to_string).collect();
        Ok(self.decide_move(mover, played, after, &events, now))
    }

    /// The match model's change (a move, or a turn lost on time) as a decision: the move with
    /// its events, and the end of the match too when it ended.
    fn decide_move(
        &self,
        mover: Seat,
        played: Vec<String>,
        after: Match<G>,
        events: &[RulesEvent<G::Action>],
        now: i64,
    ) -> Decision<G> {
        let ending = events.iter().find_map(|e| match *e {
            RulesEvent::Ended { winner, ending } => {
                Some((winner.map(Seat::from), EndHow::from(ending)))
            }
            _ => None,
        });
        let position = after.position().stored_line();
        let actions = played.join(" ");
        let moved = ServerMsg::Moved {
            match_id: self.row.id.clone(),
            ply: after.ply(),
            by: mover,
            actions: played,
            position: after.position().to_string(),
            to_move: ending
                .is_none()
                .then(|| Seat::from(LiveGame::side_to_move(after.position()))),
            clock_ms: after.time_left(ms(now)),
        };
        let mut told = vec![self.to_both(moved)];
        if ending.is_some() {
            told.push(self.ended());
        }
        Decision {
            write: Write::Move(MoveWrite {
                ply_before: self.game.ply(),
                seat: mover,
                actions,
                position,
                now,
                deadline: after.deadline().map(|d| d as i64),
                ending,
            }),
            told,
            after,
        }
    }

    fn decide_end(
        &self,
        after: Match<G>,
        winner: Option<Seat>,
        how: EndHow,
        at: i64,
    ) -> Decision<G> {
        Decision {
            write: Write::End { winner, how, at },
            told: vec![self.ended()],
            after,
        }
    }

    /// The decision is written: the match is as it decided, and what it tells is returned.
    pub(super) fn written(&mut self, decision: Decision<G>) -> Vec<Event> {
        self.over = decision.write.ending().is_some();
        self.game = decision.after;
        decision.told
    }

    /// Another action (on this process or another) changed the match first: this one is no
    /// longer what is stored.
    pub(super) fn outrun(&mut self) {
        self.over = true;
    }
}

/// A live match of either game.
pub(super) enum Loaded {
    Cube(Live<Cube>),
    V2(Live<Ultimate>),
}

/// Loads a live match; `None` when it is not live (or not there).
pub(super) async fn load(hub: &Hub, match_id: &str) -> Result<Option<Loaded>, String> {
    match hub.store.get_match(match_id).await {
        Ok(Some(row)) => from_row(hub, row).await,
        Ok(None) => Ok(None),
        Err(e) => Err(format!("match {match_id}: {e}")),
    }
}

/// A match as just read, to act on; `None` when it is not live.
pub(super) async fn from_row(hub: &Hub, row: MatchRow) -> Result<Option<Loaded>, String> {
    if row.state != MatchState::Live {
        return Ok(None);
    }
    Ok(Some(match row.game {
        MatchGame::Cube => {
            let cube: Cube = row
                .position
                .parse()
                .map_err(|e| format!("match {}: stored position unreadable: {e}", row.id))?;
            Loaded::Cube(Live::new(hub.clocks.move_ms, row, cube)?)
        }
        MatchGame::V2 => {
            let mut line = Cow::Borrowed(row.position.as_str());
            if row.ply > 0 && line.split(' ').count() == 3 {
                let [x, o] = lost_turns_in_moves(hub, &row).await?;
                line = Cow::Owned(format!("{line} x={x} o={o}"));
            }
            let position = Ultimate::from_state_line(Variant::V2, &line)
                .map_err(|e| format!("match {}: stored position unreadable: {e}", row.id))?;
            Loaded::V2(Live::new(hub.clocks.move_ms, row, position)?)
        }
    }))
}

/// The turns X and O have lost in a row, from a 2.0 match's stored moves: for a match stored
/// before its state line held them (three fields), once; its next move stores the whole line.
async fn lost_turns_in_moves(hub: &Hub, row: &MatchRow) -> Result<[u8; 2], String> {
    let moves = hub
        .store
        .moves_of(&row.id)
        .await
        .map_err(|e| format!("match {}: moves unreadable: {e}", row.id))?;
    Ok(lost_turns(
        moves
            .iter()
            .map(|(_, seat, action)| (*seat, action.as_str())),
    ))
}

/// Each side's turns lost since its last real move, from the moves in order.
fn lost_turns<'a>(moves: impl DoubleEndedIterator<Item = (Seat, &'a str)>) -> [u8; 2] {
    let mut lost = [0u8; 2];
    let mut counted = [false; 2];
    for (seat, action) in moves.rev() {
        let side = index(seat);
        if counted[side] {
            continue;
        }
        if action == TIMEOUT {
            lost[side] = lost[side].saturating_add(1);
        } else {
            counted[side] = true;
        }
        if counted == [true, true] {
            break;
        }
    }
    lost
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

/// A stored time (ms since the epoch) as the match model counts it.
fn ms(t: i64) -> u64 {
    t.max(0).unsigned_abs()
}

#[cfg(test)]
mod tests {
    use velha_api::{MatchGame, MatchState, Scope};

    use super::*;

    const MOVE_MS: i64 = 30_000;
    const DEADLINE: i64 = 1_000_000;

    fn row(game: MatchGame, position: String) -> MatchRow {
        MatchRow {
            id: "m".into(),
            game,
            scope: Scope::Mundial,
            level: 2,
            x_id: "x".into(),
            x_name: "Xis".into(),
            x_country: "BR".into(),
            o_id: Some("o".into()),
            o_name: Some("Ó".into()),
            state: MatchState::Live,
            position,
            ply: 0,
            deadline: Some(DEADLINE),
            winner: None,
            ending: None,
            created_at: 0,
            scored: None,
            group: None,
            velha: false,
            ratings: None,
            away: [None, None],
        }
    }

    fn cube() -> Live<Cube> {
        let start = Cube::new(velha_rules::Level::Two);
        Live::new(MOVE_MS, row(MatchGame::Cube, start.to_string()), start).unwrap()
    }

    fn v2() -> Live<Ultimate> {
        let start = Ultimate::new(Variant::V2, Player::X);
        Live::new(MOVE_MS, row(MatchGame::V2, start.to_string()), start).unwrap()
    }

    fn refusal<G: LiveGame>(ruling: Result<Decision<G>, Rejected>) -> Option<Refusal> {
        match ruling {
            Err(Rejected::Refused(refusal)) => Some(refusal),
            _ => None,
        }
    }

    /// V2-R05: a match stored before 2.0's state line held the lost turns counts them from its
    /// moves; checked against the rules' own count after every step of random games.
    #[test]
    fn v2_r05_lost_turns_counted_from_the_moves_agree_with_the_rules() {
        use velha_rules::Position;
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..200 {
            let mut game = Ultimate::new(Variant::V2, Player::X);
            let mut moves: Vec<(Seat, String)> = Vec::new();
            while !game.status().is_over() {
                let by = Seat::from(game.side_to_move());
                let legal: Vec<_> = game.legal_actions().into_iter().collect();
                if next(3) == 0 {
                    game.timeout().unwrap();
                    moves.push((by, TIMEOUT.to_owned()));
                } else {
                    let cell = legal[next(legal.len())];
                    game.play(cell).unwrap();
                    moves.push((by, cell.to_string()));
                }
                let counted = lost_turns(moves.iter().map(|(s, a)| (*s, a.as_str())));
                let rules = [game.lost_turns(Player::X), game.lost_turns(Player::O)];
                assert_eq!(counted, rules, "after {moves:?}");
            }
        }
    }

    #[test]
    fn on_m02_only_a_player_of_the_match_at_its_ply_may_move() {
        let live = cube();
        let now = DEADLINE - 1;
        let play = |who, ply| live.play(who, ply, &["a1".into()], now);
        assert_eq!(refusal(play("z", 0)), Some(Refusal::NotAPlayer));
        assert_eq!(refusal(play("x", 3)), Some(Refusal::Stale { ply: 0 }));
        assert_eq!(refusal(play("o", 0)), Some(Refusal::NotYourTurn));
        let Ok(decision) = play("x", 0) else {
            panic!("X's first move is refused");
        };
        let Write::Move(m) = &decision.write else {
            panic!("a move is not written as one");
        };
        assert_eq!(
            (m.ply_before, m.seat, m.actions.as_str()),
            (0, Seat::X, "a1")
        );
        assert_eq!(m.deadline, Some(now + MOVE_MS));
        // Nothing changes until the decision is written.
        assert_eq!(refusal(play("x", 1)), Some(Refusal::Stale { ply: 0 }));
    }

    #[test]
    fn on_m03_a_cube_move_after_the_clock_is_late_and_the_side_to_move_loses() {
        let mut live = cube();
        let late = DEADLINE + 1;
        assert!(matches!(
            live.play("x", 0, &["a1".into()], late),
            Err(Rejected::Late)
        ));
        assert!(live.settlement(DEADLINE - 1).is_none());
        let decision = live.settlement(late).expect("the clock ran out");
        assert_eq!(decision.write.ending(), Some((Some(Seat::O), EndHow::Time)));
        assert!(matches!(decision.write, Write::End { at: DEADLINE, .. }));
        live.written(decision);
        assert!(live.settlement(late).is_none());
        assert_eq!(live.next_wake(), None);
        assert_eq!(live.leave("x", late).err(), Some(Refusal::NotLive));
    }

    #[test]
    fn v2_r05_each_lost_turn_is_a_decision_of_its_own_in_order() {
        let mut live = v2();
        let now = DEADLINE + MOVE_MS + MOVE_MS / 2;
        let mut lost = Vec::new();
        while let Some(decision) = live.settlement(now) {
            let Write::Move(m) = &decision.write else {
                panic!("a lost turn is not written as a move");
            };
            lost.push((m.ply_before, m.seat, m.actions.clone(), m.now));
            live.written(decision);
        }
        let timeout = TIMEOUT.to_owned();
        assert_eq!(
            lost,
            [
                (0, Seat::X, timeout.clone(), DEADLINE),
                (1, Seat::O, timeout, DEADLINE + MOVE_MS),
            ]
        );
        assert_eq!(live.next_wake(), Some(DEADLINE + 2 * MOVE_MS));
    }

    #[test]
    fn on_m04_a_player_away_past_the_grace_loses_by_abandonment() {
        let start = Cube::new(velha_rules::Level::Two);
        let mut gone = row(MatchGame::Cube, start.to_string());
        gone.away = [None, Some(DEADLINE - 10)];
        let live = Live::new(MOVE_MS, gone, start).unwrap();
        assert!(live.settlement(DEADLINE - 11).is_none());
        let decision = live.settlement(DEADLINE - 5).expect("O's grace is over");
        assert_eq!(
            decision.write.ending(),
            Some((Some(Seat::X), EndHow::Abandonment))
        );
        let left = live.leave("x", DEADLINE - 20).expect("X may leave");
        assert_eq!(
            left.write.ending(),
            Some((Some(Seat::O), EndHow::Abandonment))
        );
        assert_eq!(live.leave("z", 0).err(), Some(Refusal::NotAPlayer));
    }
}
