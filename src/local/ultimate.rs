//! Super Jogo da Velha and Jogo da Velha 2.0 on one device: the starter agreed before the
//! first game, the rival, the series, the game on the board with 2.0's turn clock, and what
//! the clock last did. Times are the device's milliseconds, passed in.

use velha_ai::Difficulty;
use velha_rules::game::{Clock, Event};
use velha_rules::{
    Match, Player, Position, Series, SeriesScore, Status, UltCell, Ultimate, Variant,
};

use super::kept::{self, KeptLine, Reader, Writer};

/// The board sent to, kept as a number, when the side to move may play anywhere.
const ANY_BOARD: usize = 9;

/// More games than a series kept on a device could have had, or plies than a game: what
/// claims more is not ours, and its counts would overflow.
const MOST_GAMES: u32 = 1_000_000;
const MOST_PLIES: u32 = 1_000_000;

/// Who the person plays against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rival {
    /// The computer, at a difficulty.
    Computer(Difficulty),
    /// Another person on the same device.
    Friend,
}

/// A series of Super or 2.0 on one device, from the choice of a starter and a rival to PARAR.
pub struct UltimateSession {
    variant: Variant,
    /// 2.0's clock (V2-R05) is the match's: a lost turn passes the move, three in a row lose.
    clock: Option<Clock>,
    /// Who starts the first game (SUPER-R05); 2.0 always starts with X.
    first: Player,
    /// Whether the coin picked `first`, rather than the players.
    tossed: bool,
    rival: Option<Rival>,
    series: Series,
    /// The person's symbol in the game on the board (between friends, the first player's):
    /// the series moves on to the next game's once this one is recorded.
    person: Player,
    game: Match<Ultimate>,
    /// Whether the series already counts the finished game on the board.
    recorded: bool,
    /// The clock's hand, in whole seconds, as last read.
    seconds_left: u32,
    /// Who lost the last turn to the clock, until the next press or game.
    lost_turn: Option<Player>,
    /// Games begun on this device: a game's hints are counted by its number.
    games: u32,
}

impl UltimateSession {
    /// No rival chosen yet: 2.0 (`v2`) or Super, whose first starter is `coin` until the
    /// players agree on one; 2.0's turns last `move_ms`; `now` is the device's clock.
    pub fn new(v2: bool, coin: Player, move_ms: u64, now: u64) -> UltimateSession {
        let variant = if v2 { Variant::V2 } else { Variant::Super };
        let clock = v2.then_some(Clock { move_ms });
        UltimateSession {
            variant,
            clock,
            first: if v2 { Player::X } else { coin },
            tossed: true,
            rival: None,
            series: Series::new(Player::X, Player::X),
            person: Player::X,
            game: Match::new(Ultimate::new(variant, Player::X), clock, now),
            recorded: false,
            seconds_left: move_ms.div_ceil(1000) as u32,
            lost_turn: None,
            games: 0,
        }
    }

    /// The name its kept lines go by: Super's and 2.0's are kept apart.
    pub fn kept_name(v2: bool) -> &'static str {
        if v2 { "v2" } else { "super" }
    }

    /// The session as the device keeps it (`kept.rs`); nothing while no rival is chosen and
    /// the coin, not the players, picked the starter: there is nothing to go back to, and a
    /// device that keeps nothing fetches the reader late.
    pub fn kept(&self) -> Option<String> {
        if self.rival.is_none() && self.tossed {
            return None;
        }
        let rival = match self.rival {
            Some(Rival::Computer(d)) => d.protocol_name(),
            Some(Rival::Friend) => "friend",
            None => "-",
        };
        // A player as its index, and 2 for nobody.
        let lost = self.lost_turn.map_or(2, Player::index);
        let mut w = Writer::new(Self::kept_name(self.variant == Variant::V2));
        w.field("first", self.first.index())
            .flag("tossed", self.tossed)
            .field("rival", rival)
            .field("series", self.series.line())
            .field("person", self.person.index())
            .flag("recorded", self.recorded)
            .field("lost", lost)
            .field("games", self.games)
            .game(&self.game, Ultimate::line);
        Some(w.into_text())
    }

    /// A session of 2.0 (`v2`) or Super the device kept, 2.0's turns lasting `move_ms`, read
    /// at `now`; `None` when `text` is not one. 2.0's clock went on meanwhile, but costs the
    /// person at most the turn they left in: a game left overnight is not decided by turns
    /// nobody saw, and the computer, whose thinking stops while the page is hidden, gets a
    /// whole turn (else closing the app while it thinks would win games).
    pub fn from_kept(text: &str, v2: bool, move_ms: u64, now: u64) -> Option<UltimateSession> {
        let mut r = Reader::new(text, Self::kept_name(v2))?;
        let variant = if v2 { Variant::V2 } else { Variant::Super };
        let clock = v2.then_some(Clock { move_ms });
        let mut session = UltimateSession {
            variant,
            clock,
            first: kept::player(r.parsed("first")?)?,
            tossed: r.flag("tossed")?,
            rival: match r.field("rival")? {
                "-" => None,
                "friend" => Some(Rival::Friend),
                name => Some(Rival::Computer(
                    Difficulty::ALL
                        .into_iter()
                        .find(|d| d.protocol_name() == name)?,
                )),
            },
            series: Series::from_line(r.field("series")?)?,
            person: kept::player(r.parsed("person")?)?,
            recorded: r.flag("recorded")?,
            lost_turn: match r.parsed("lost")? {
                2 => None,
                p => Some(kept::player(p)?),
            },
            games: r.parsed("games")?,
            game: r.game(clock, |line| {
                let [xh, xl, oh, ol, side, sent, lx, lo] = kept::numbers(line)?;
                let cells = |high: u64, low: u64| u128::from(high) << 64 | u128::from(low);
                let sent = usize::try_from(sent).ok().filter(|b| *b != ANY_BOARD);
                let lost = [u8::try_from(lx).ok()?, u8::try_from(lo).ok()?];
                let side = kept::player(side)?;
                Ultimate::from_parts(variant, cells(xh, xl), cells(oh, ol), side, sent, lost).ok()
            })?,
            seconds_left: move_ms.div_ceil(1000) as u32,
        };
        if !r.done() || session.games > MOST_GAMES || session.game.ply() > MOST_PLIES {
            return None;
        }
        let computer = matches!(session.rival, Some(Rival::Computer(_)));
        if let (Some(deadline), Some(to_move)) = (session.game.deadline(), session.game.to_move()) {
            let deadline = if computer && to_move != session.person {
                now + move_ms
            } else {
                deadline.clamp(now, now + move_ms)
            };
            session.game = Match::resume(
                *session.game.position(),
                session.game.ply(),
                clock,
                Some(deadline),
            )
            .with_earlier(session.game.earlier().to_vec());
            session.seconds_left = (deadline - now).div_ceil(1000) as u32;
        }
        Some(session)
    }

    /// Every position of the game on the board, the start first (for its review).
    pub fn positions(&self) -> Vec<Ultimate> {
        let mut all = self.game.earlier().to_vec();
        all.push(*self.game.position());
        all
    }

    /// Whether PARAR would lose something (`super::mid_game`).
    pub fn mid_game(&self) -> bool {
        super::mid_game(&self.game)
    }

    /// The number of the game on the board: each game begun has a new one.
    pub fn game_number(&self) -> u32 {
        self.games
    }

    /// Who starts the first game.
    pub fn first(&self) -> Player {
        self.first
    }

    /// Whether the coin picked the first starter.
    pub fn tossed(&self) -> bool {
        self.tossed
    }

    /// Who the person faces; `None` while choosing.
    pub fn rival(&self) -> Option<Rival> {
        self.rival
    }

    /// The grid of the game on the board.
    pub fn grid(&self) -> Ultimate {
        *self.game.position()
    }

    /// The series so far, for the person (between friends, the first player).
    pub fn score(&self) -> SeriesScore {
        self.series.score()
    }

    /// The person's symbol in the game on the board.
    pub fn person(&self) -> Player {
        self.person
    }

    /// Whether a person may press a cell now.
    pub fn person_moves(&self) -> bool {
        let status = self.grid().status();
        match self.rival {
            Some(Rival::Computer(_)) => status == Status::Ongoing(self.person),
            Some(Rival::Friend) => !status.is_over(),
            None => false,
        }
    }

    /// 2.0's clock, in whole seconds left, as last read.
    pub fn seconds_left(&self) -> u32 {
        self.seconds_left
    }

    /// Who lost the last turn to the clock, while it is worth telling.
    pub fn lost_turn(&self) -> Option<Player> {
        self.lost_turn
    }

    /// The coin picks who starts the first game.
    pub fn toss(&mut self, coin: Player) {
        self.first = coin;
        self.tossed = true;
    }

    /// The players agree that `starter` starts the first game.
    pub fn agree_starter(&mut self, starter: Player) {
        self.first = starter;
        self.tossed = false;
    }

    /// A new rival starts a new series at `now`. True when the game ended just now (never at
    /// its start, but every change answers alike).
    #[must_use]
    pub fn face(&mut self, rival: Rival, now: u64) -> bool {
        self.rival = Some(rival);
        // V2-R08: 2.0 always begins with X, so the sides swap symbols.
        self.series = if self.variant == Variant::V2 {
            Series::swapping(Player::X)
        } else {
            Series::new(self.first, Player::X)
        };
        self.another_game(now)
    }

    /// The next game of the series at `now`: its starter alternates (Super) or the sides swap
    /// symbols (2.0). True when the game ended just now.
    #[must_use]
    pub fn another_game(&mut self, now: u64) -> bool {
        self.person = self.series.next_side();
        self.game = Match::new(
            Ultimate::new(self.variant, self.series.next_starter()),
            self.clock,
            now,
        );
        self.games += 1;
        self.recorded = false;
        self.lost_turn = None;
        self.record()
    }

    /// The side to move plays `cell` at `now` (a refused press changes nothing). True when
    /// the game ended just now: the series has counted it.
    #[must_use]
    pub fn press(&mut self, cell: UltCell, now: u64) -> bool {
        self.lost_turn = None;
        let by = self.game.position().side_to_move();
        let _refused = self.game.act(by, cell, now);
        self.record()
    }

    /// The game's ply, when it is the computer's turn to think about it.
    pub fn computer_to_think(&self) -> Option<u32> {
        let computer_moves = matches!(self.rival, Some(Rival::Computer(_)))
            && self.grid().status() == Status::Ongoing(!self.person);
        computer_moves.then(|| self.game.ply())
    }

    /// The computer's decision about the game at `ply`, played at `now` unless the game has
    /// moved on meanwhile (2.0's clock took the turn away). True when the game ended just now.
    #[must_use]
    pub fn computer_plays(&mut self, ply: u32, cell: Option<UltCell>, now: u64) -> bool {
        if let Some(cell) = cell.filter(|_| self.game.ply() == ply) {
            let _refused = self.game.act(!self.person, cell, now);
        }
        self.record()
    }

    /// Whether 2.0's clock runs: a game against a rival goes on.
    pub fn clock_runs(&self) -> bool {
        self.clock.is_some() && self.rival.is_some() && !self.grid().status().is_over()
    }

    /// 2.0's clock at `now`, while it runs: the hand moves, and the match decides what a
    /// run-out turn means. `Some` when it took a turn away (the computer thinks anew),
    /// saying whether that ended the game.
    #[must_use]
    pub fn tick(&mut self, now: u64) -> Option<bool> {
        if !self.clock_runs() {
            return None;
        }
        let events = self.game.tick(now);
        let left = self.game.time_left(now).unwrap_or(0);
        self.seconds_left = left.div_ceil(1000) as u32;
        for event in &events {
            if let Event::TurnLost { by, .. } = event {
                self.lost_turn = Some(*by);
            }
        }
        (!events.is_empty()).then(|| self.record())
    }

    /// PARAR.
    pub fn stop(&mut self) {
        self.rival = None;
    }

    /// Counts a game that ended, once; true when it did so now.
    fn record(&mut self) -> bool {
        let status = self.grid().status();
        super::count_once(&mut self.series, &mut self.recorded, status)
    }
}

impl KeptLine for Ultimate {
    fn line(&self) -> String {
        let (x, o) = (self.cells_of(Player::X), self.cells_of(Player::O));
        format!(
            "{} {} {} {} {} {} {} {}",
            (x >> 64) as u64,
            x as u64,
            (o >> 64) as u64,
            o as u64,
            self.side_to_move().index(),
            self.sent_board().unwrap_or(ANY_BOARD),
            self.lost_turns(Player::X),
            self.lost_turns(Player::O)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TURN: u64 = 1000;

    fn cell(name: &str) -> UltCell {
        name.parse().expect("a cell")
    }

    #[test]
    fn the_coin_or_the_players_pick_the_first_starter() {
        let mut session = UltimateSession::new(false, Player::O, TURN, 0);
        assert_eq!((session.first(), session.tossed()), (Player::O, true));
        session.agree_starter(Player::X);
        assert_eq!((session.first(), session.tossed()), (Player::X, false));
        session.toss(Player::O);
        assert!(!session.face(Rival::Friend, 0));
        assert_eq!(session.grid().status(), Status::Ongoing(Player::O));
        // 2.0 ignores the coin: X always begins.
        let v2 = UltimateSession::new(true, Player::O, TURN, 0);
        assert_eq!(v2.first(), Player::X);
    }

    #[test]
    fn the_clock_takes_a_turn_and_the_third_in_a_row_ends_the_game() {
        let mut session = UltimateSession::new(true, Player::X, TURN, 0);
        assert_eq!(
            session.tick(TURN),
            None,
            "no clock runs before a rival is chosen"
        );
        assert!(!session.face(Rival::Friend, 0));
        assert_eq!(session.tick(400), None);
        assert_eq!(session.seconds_left(), 1);
        assert_eq!(session.tick(TURN), Some(false));
        assert_eq!(session.lost_turn(), Some(Player::X));
        assert_eq!(session.grid().status(), Status::Ongoing(Player::O));
        assert!(!session.press(cell("a1"), TURN + 100), "O plays in time");
        assert_eq!(session.lost_turn(), None, "a press puts the warning away");
        // X's turn started at O's move: its second and third turns in a row run out.
        assert_eq!(session.tick(2 * TURN + 100), Some(false));
        assert_eq!(session.lost_turn(), Some(Player::X));
        assert_eq!(session.tick(3 * TURN + 100), Some(false));
        assert_eq!(session.lost_turn(), Some(Player::O));
        assert_eq!(session.tick(4 * TURN + 100), Some(true));
        assert_eq!(session.grid().status(), Status::Win(Player::O));
        assert_eq!(
            session.tick(9 * TURN),
            None,
            "an ended game's clock stands still"
        );
        assert_eq!(session.score().losses, 1, "counted once");
        assert_eq!(session.score().wins + session.score().draws, 0);
        assert!(!session.person_moves());
    }

    #[test]
    fn in_2_0_the_sides_swap_and_the_computer_starts_the_second_game() {
        let mut session = UltimateSession::new(true, Player::X, TURN, 0);
        assert!(!session.face(Rival::Computer(Difficulty::Easy), 0));
        assert_eq!(session.person(), Player::X);
        assert_eq!(session.computer_to_think(), None, "the person begins");
        // The person lets three turns run out while the computer is slow to answer.
        assert_eq!(session.tick(TURN), Some(false));
        let ply = session.computer_to_think().expect("the computer's turn");
        assert!(!session.computer_plays(ply, Some(cell("e5")), TURN + 10));
        assert_eq!(session.tick(2 * TURN + 10), Some(false));
        let ply = session.computer_to_think().expect("the computer's turn");
        assert!(!session.computer_plays(ply, Some(cell("a1")), 2 * TURN + 20));
        assert!(session.tick(3 * TURN + 20).expect("a turn lost"));
        assert_eq!(session.score().losses, 1);

        assert!(!session.another_game(5 * TURN));
        assert_eq!(
            session.person(),
            Player::O,
            "V2-R08: the sides swap symbols"
        );
        assert_eq!(session.grid().status(), Status::Ongoing(Player::X));
        assert!(!session.person_moves());
        assert!(
            session.computer_to_think().is_some(),
            "the computer, X, begins"
        );
    }

    #[test]
    fn a_decision_about_a_game_that_moved_on_is_dropped() {
        let mut session = UltimateSession::new(true, Player::X, TURN, 0);
        assert!(!session.face(Rival::Computer(Difficulty::Medium), 0));
        assert!(!session.press(cell("e5"), 10));
        let ply = session.computer_to_think().expect("the computer's turn");
        // The clock takes the computer's turn while it thinks.
        assert_eq!(session.tick(TURN + 10), Some(false));
        let before = session.grid();
        assert!(!session.computer_plays(ply, Some(cell("a1")), TURN + 20));
        assert_eq!(session.grid(), before);
        assert!(session.person_moves());
    }

    #[test]
    fn v2_r05_a_kept_game_keeps_its_clock_and_costs_at_most_the_turn_left_in() {
        let mut session = UltimateSession::new(true, Player::X, TURN, 0);
        assert!(!session.face(Rival::Computer(Difficulty::Hard), 0));
        assert!(!session.press(cell("e5"), 10));
        assert_eq!(
            session.tick(TURN + 10),
            Some(false),
            "the computer's turn ran out"
        );
        let text = session.kept().expect("a game to keep");
        // Back within the person's turn: the same clock.
        let mut back = UltimateSession::from_kept(&text, true, TURN, TURN + 500).expect("kept");
        assert_eq!(back.kept().expect("a game to keep"), text);
        assert_eq!(back.positions(), session.positions());
        assert_eq!(back.lost_turn(), Some(Player::O));
        assert_eq!(back.rival(), Some(Rival::Computer(Difficulty::Hard)));
        assert_eq!(back.tick(2 * TURN), None);
        assert_eq!(
            back.tick(2 * TURN + 20),
            Some(false),
            "the turn it left in ran out"
        );
        assert_eq!(back.lost_turn(), Some(Player::X));
        // Back a day later: that turn is lost, no more; the computer's turn starts now.
        let later = 86_400_000;
        let mut back = UltimateSession::from_kept(&text, true, TURN, later).expect("kept");
        assert_eq!(back.seconds_left(), 0);
        assert_eq!(back.tick(later), Some(false));
        assert_eq!(back.lost_turn(), Some(Player::X));
        assert_eq!(back.grid().status(), Status::Ongoing(Player::O));
        assert_eq!(
            back.tick(later + TURN - 1),
            None,
            "a whole turn for the computer"
        );
        // Kept while the computer thought: it gets a whole turn too.
        let mut thinking = UltimateSession::new(true, Player::X, TURN, 0);
        assert!(!thinking.face(Rival::Computer(Difficulty::Easy), 0));
        assert!(!thinking.press(cell("e5"), 10));
        let kept = thinking.kept().expect("a game to keep");
        let mut back = UltimateSession::from_kept(&kept, true, TURN, later).expect("kept");
        assert_eq!(back.computer_to_think(), Some(1));
        assert_eq!(back.seconds_left(), 1);
        assert_eq!(back.tick(later + TURN - 1), None);
        // Super's lines are not 2.0's, and counts past any real series are refused.
        assert!(UltimateSession::from_kept(&text, false, TURN, 0).is_none());
        let huge = text.replace("games 1", "games 4294967295");
        assert!(UltimateSession::from_kept(&huge, true, TURN, 0).is_none());
        let mut sup = UltimateSession::new(false, Player::O, TURN, 0);
        assert_eq!(
            sup.kept(),
            None,
            "only the coin has spoken: nothing to go back to"
        );
        sup.agree_starter(Player::O);
        assert!(sup.kept().is_some(), "a starter the players agreed on");
        assert!(!sup.face(Rival::Friend, 0));
        assert!(!sup.press(cell("a1"), 0));
        let back = UltimateSession::from_kept(&sup.kept().expect("a game to keep"), false, TURN, 0)
            .expect("Super's");
        assert_eq!((back.first(), back.tossed()), (Player::O, false));
        assert_eq!(back.grid(), sup.grid());
        assert!(!back.clock_runs());
        sup.stop();
        assert!(
            sup.kept().is_some(),
            "PARAR keeps the starter the players agreed on"
        );
        let mut tossed = UltimateSession::new(false, Player::O, TURN, 0);
        assert!(!tossed.face(Rival::Friend, 0));
        assert!(tossed.kept().is_some());
        tossed.stop();
        assert_eq!(
            tossed.kept(),
            None,
            "PARAR after the coin's choice keeps nothing"
        );
    }
}
