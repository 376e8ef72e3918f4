//! Jogo da Velha on one device: who the person faces, the series with its alternating
//! starter, the game on the board, and whether the person stopped.

use velha_ai::{Character, Limits, Opponent, Rng};
use velha_rules::{Cell, Classic, Match, Player, Position, Series, SeriesScore, Status};

use super::kept::{self, KeptLine, Reader, Writer};

/// The name its kept lines go by.
pub const KEPT: &str = "classic";

/// Who the person plays against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rival {
    /// A character of the Vila Quintal, playing O.
    Computer(Character),
    /// Another person on the same device.
    Friend,
}

/// A classic series on one device, from the choice of a rival to PARAR.
pub struct ClassicSession {
    rival: Option<Rival>,
    series: Series,
    /// Classic has no clock: the match only keeps whose move it is and the moves made.
    game: Match<Classic>,
    /// Whether the series already counts the finished game on the board.
    recorded: bool,
    stopped: bool,
    /// Games begun on this device: a game's hints are counted by its number.
    games: u32,
    rng: Rng,
}

impl ClassicSession {
    /// No rival chosen yet; the characters draw their chances from `seed`.
    pub fn new(seed: u64) -> ClassicSession {
        ClassicSession {
            rival: None,
            series: Series::new(Player::X, Player::X),
            game: Match::new(Classic::new(Player::X), None, 0),
            recorded: false,
            stopped: false,
            games: 0,
            rng: Rng::new(seed),
        }
    }

    /// The session as the device keeps it (`kept.rs`); nothing while no rival is chosen:
    /// there is nothing to go back to, and a device that keeps nothing fetches the reader late.
    pub fn kept(&self) -> Option<String> {
        let rival = match self.rival? {
            Rival::Computer(who) => who.protocol_name(),
            Rival::Friend => "friend",
        };
        let mut w = Writer::new(KEPT);
        w.field("rival", rival)
            .field("series", self.series.line())
            .flag("recorded", self.recorded)
            .flag("stopped", self.stopped)
            .field("games", self.games)
            .field("rng", self.rng.state())
            .game(&self.game, Classic::line);
        Some(w.into_text())
    }

    /// A session the device kept; `None` when `text` is not one.
    pub fn from_kept(text: &str) -> Option<ClassicSession> {
        let mut r = Reader::new(text, KEPT)?;
        let rival = match r.field("rival")? {
            "friend" => Some(Rival::Friend),
            name => Some(Rival::Computer(
                Character::ALL
                    .into_iter()
                    .find(|c| c.protocol_name() == name)?,
            )),
        };
        let session = ClassicSession {
            rival,
            series: Series::from_line(r.field("series")?)?,
            recorded: r.flag("recorded")?,
            stopped: r.flag("stopped")?,
            games: r.parsed("games")?,
            rng: Rng::new(r.parsed("rng")?),
            game: r.game(None, |line| {
                let [x, o, side] = kept::numbers(line)?;
                Classic::from_parts(x.try_into().ok()?, o.try_into().ok()?, kept::player(side)?)
            })?,
        };
        // Against a character the person is X and O answers at once: O to move would wait
        // forever; and no series kept on a device had more games than this.
        let stuck = matches!(session.rival, Some(Rival::Computer(_)))
            && session.board().status() == Status::Ongoing(Player::O);
        (r.done() && !stuck && session.games <= 1_000_000 && session.game.ply() <= 9)
            .then_some(session)
    }

    /// Who the person faces; `None` while choosing.
    pub fn rival(&self) -> Option<Rival> {
        self.rival
    }

    /// The board of the game on the table.
    pub fn board(&self) -> Classic {
        *self.game.position()
    }

    /// Every position of the game on the board, the start first (for its review).
    pub fn positions(&self) -> Vec<Classic> {
        let mut all = self.game.earlier().to_vec();
        all.push(*self.game.position());
        all
    }

    /// Whether PARAR would lose something (`super::mid_game`).
    pub fn mid_game(&self) -> bool {
        super::mid_game(&self.game)
    }

    /// The series so far, for X.
    pub fn score(&self) -> SeriesScore {
        self.series.score()
    }

    /// The number of the game on the board: each game begun has a new one.
    pub fn game_number(&self) -> u32 {
        self.games
    }

    /// Whether the person stopped the series (its final score is shown).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The person's symbol against a character; between friends there is none.
    pub fn person(&self) -> Option<Player> {
        matches!(self.rival, Some(Rival::Computer(_))).then_some(Player::X)
    }

    /// Whether a person may press a cell now.
    pub fn person_moves(&self) -> bool {
        let status = self.board().status();
        match self.rival {
            Some(Rival::Computer(_)) => status == Status::Ongoing(Player::X),
            Some(Rival::Friend) => !status.is_over(),
            None => false,
        }
    }

    /// A new rival starts a new series, X first. True when the game ended just now (never
    /// on a first move, but every change answers alike).
    #[must_use]
    pub fn face(&mut self, rival: Rival) -> bool {
        self.rival = Some(rival);
        self.series = Series::new(Player::X, Player::X);
        self.stopped = false;
        self.another_game()
    }

    /// The next game of the series, its starter alternating (CLASSIC-R05); a character that
    /// starts plays at once. True when the game ended just now.
    #[must_use]
    pub fn another_game(&mut self) -> bool {
        self.game = Match::new(Classic::new(self.series.next_starter()), None, 0);
        self.games += 1;
        self.recorded = false;
        self.computer_turn()
    }

    /// The side to move plays `cell` (a refused press changes nothing), and a character
    /// answers. True when the game ended just now: the series has counted it.
    #[must_use]
    pub fn press(&mut self, cell: Cell) -> bool {
        let by = self.game.position().side_to_move();
        let _refused = self.game.act(by, cell, 0);
        self.computer_turn()
    }

    /// PARAR: the series' final score.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// Back to the choice of a rival.
    pub fn choose_again(&mut self) {
        self.rival = None;
    }

    /// A character answers whenever it is O's turn; a game that ended is counted once.
    fn computer_turn(&mut self) -> bool {
        if let Some(Rival::Computer(mut who)) = self.rival {
            let board = self.board();
            let cell = (board.status() == Status::Ongoing(Player::O))
                .then(|| who.choose(&board, Limits::millis(100), &mut self.rng))
                .flatten();
            if let Some(cell) = cell {
                let _refused = self.game.act(Player::O, cell, 0);
            }
        }
        let status = self.board().status();
        super::count_once(&mut self.series, &mut self.recorded, status)
    }
}

impl KeptLine for Classic {
    fn line(&self) -> String {
        let side = self.side_to_move().index();
        format!("{} {} {side}", self.mask(Player::X), self.mask(Player::O))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(name: &str) -> Cell {
        name.parse().expect("a cell")
    }

    /// X takes the a column while O plays the b column: X wins on the fifth move.
    fn x_wins_between_friends(session: &mut ClassicSession) {
        for name in ["a1", "b1", "a2", "b2"] {
            assert!(!session.press(cell(name)));
        }
        assert!(session.press(cell("a3")), "the fifth move ends the game");
    }

    #[test]
    fn a_character_answers_each_move() {
        let mut session = ClassicSession::new(7);
        assert!(!session.face(Rival::Computer(Character::Nino)));
        assert!(session.person_moves(), "the person is X and starts");
        assert!(!session.press(cell("b2")));
        let board = session.board();
        let placed = Cell::ALL.map(|c| board.piece(c));
        assert_eq!(placed.iter().filter(|p| **p == Some(Player::O)).count(), 1);
        assert_eq!(board.status(), Status::Ongoing(Player::X));
        assert_eq!(session.person(), Some(Player::X));
    }

    #[test]
    fn a_finished_game_is_counted_once() {
        let mut session = ClassicSession::new(1);
        assert!(!session.face(Rival::Friend));
        x_wins_between_friends(&mut session);
        assert!(!session.person_moves());
        // Presses after the end are refused and count nothing more.
        assert!(!session.press(cell("c3")));
        assert!(!session.press(cell("c1")));
        assert_eq!(session.score().wins, 1);
        assert_eq!(session.score().losses + session.score().draws, 0);
    }

    #[test]
    fn the_starter_alternates_and_a_starting_character_plays_at_once() {
        let mut session = ClassicSession::new(3);
        assert!(!session.face(Rival::Friend));
        x_wins_between_friends(&mut session);
        assert!(!session.another_game());
        assert_eq!(session.board().status(), Status::Ongoing(Player::O));

        let mut session = ClassicSession::new(3);
        assert!(!session.face(Rival::Computer(Character::Quelonia)));
        let mut ended = false;
        while !ended {
            let empty = Cell::ALL
                .into_iter()
                .find(|c| session.board().piece(*c).is_none());
            ended = session.press(empty.expect("an empty cell while the game goes on"));
        }
        assert_eq!(session.score().wins, 0, "Vó Quelônia never loses");
        assert!(!session.another_game());
        let board = session.board();
        assert_eq!(
            Cell::ALL.map(|c| board.piece(c)).iter().flatten().count(),
            1,
            "O starts the second game and has played"
        );
        assert!(session.person_moves());
    }

    #[test]
    fn stopping_shows_the_series_and_a_new_rival_starts_afresh() {
        let mut session = ClassicSession::new(5);
        assert!(!session.face(Rival::Friend));
        x_wins_between_friends(&mut session);
        session.stop();
        assert!(session.stopped());
        assert_eq!(session.score().wins, 1);
        session.choose_again();
        assert_eq!(session.rival(), None);
        assert!(!session.face(Rival::Friend));
        assert!(!session.stopped());
        assert_eq!(session.score().wins, 0);
        assert_eq!(session.board().status(), Status::Ongoing(Player::X));
    }

    #[test]
    fn classic_r05_a_kept_series_goes_on_as_if_never_left() {
        let mut session = ClassicSession::new(11);
        assert!(!session.face(Rival::Computer(Character::Nino)));
        let mut ended = false;
        while !ended {
            let empty = Cell::ALL
                .into_iter()
                .find(|c| session.board().piece(*c).is_none());
            ended = session.press(empty.expect("an empty cell"));
        }
        assert!(!session.another_game());
        let empty = Cell::ALL
            .into_iter()
            .find(|c| session.board().piece(*c).is_none())
            .expect("an empty cell");
        assert!(!session.press(empty), "two marks of each make no line");
        let text = session.kept().expect("a game to keep");
        let mut back = ClassicSession::from_kept(&text).expect("kept lines read back");
        assert_eq!(back.kept().expect("a game to keep"), text);
        assert_eq!(back.positions(), session.positions());
        assert_eq!(back.score(), session.score());
        assert_eq!(back.game_number(), session.game_number());
        // The character draws the same chances afterwards: every answer is the same.
        while !session.board().status().is_over() {
            let empty = Cell::ALL
                .into_iter()
                .rev()
                .find(|c| session.board().piece(*c).is_none())
                .expect("an empty cell");
            assert_eq!(session.press(empty), back.press(empty));
            assert_eq!(back.board(), session.board());
        }
        assert_eq!(back.score(), session.score());
        // Kept once it ended and counted, a press read back counts nothing more.
        let score = back.score();
        let mut again =
            ClassicSession::from_kept(&back.kept().expect("a game to keep")).expect("kept lines");
        assert!(!again.press(Cell::ALL[0]));
        assert_eq!(again.score(), score, "the finished game counted once");
        assert_eq!(score.wins + score.draws + score.losses, 2);
    }

    #[test]
    fn classic_r05_a_series_is_kept_from_the_choice_of_a_rival_to_the_choice_of_another() {
        let mut session = ClassicSession::new(2);
        assert_eq!(session.kept(), None, "nothing to go back to");
        assert!(!session.face(Rival::Computer(Character::Nino)));
        assert!(session.kept().is_some());
        session.stop();
        assert!(session.kept().is_some(), "the series' final score");
        session.choose_again();
        assert_eq!(session.kept(), None);
    }

    #[test]
    fn damaged_or_foreign_lines_are_no_kept_series() {
        let mut session = ClassicSession::new(2);
        assert!(!session.face(Rival::Friend));
        assert!(!session.press(cell("b2")));
        let text = session.kept().expect("a game to keep");
        assert!(ClassicSession::from_kept(&text).is_some());
        let damaged = [
            String::new(),
            text.replace("kept 1", "kept 2"),
            text.replace("classic", "cube"),
            text.replace("rival friend", "rival velha"),
            text.replace("now ", "nao "),
            format!("{text}more\n"),
            text.lines().take(5).collect::<Vec<_>>().join("\n"),
            text.replace("games 1", "games 4294967295"),
        ];
        for d in damaged {
            assert!(ClassicSession::from_kept(&d).is_none(), "{d:?}");
        }
    }
}
