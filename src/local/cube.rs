//! Cubo da Velha on one device: the level and whether the Velha plays, the game on the cube,
//! the refusal to tell, and whether the game already counts in "Você × Velha".

use velha_rules::game::Refusal;
use velha_rules::{Cube, CubeAction, CubeIllegal, Level, Match, Player, Position, Status, Turn};

use super::kept::{self, Reader, Writer};

/// What an action played leaves to the screen besides the cube itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The layer it turned and the cube before, to animate (CUBE-V04, V05).
    pub turned: Option<(Cube, Turn)>,
    /// Whether it ended the game.
    pub ended: bool,
}

/// Cube games on one device, from the choice of a mode to PARAR.
pub struct CubeSession {
    /// The level, and whether the Velha plays O; `None` while choosing.
    setup: Option<(Level, bool)>,
    /// No clock on one device; the match keeps the game's earlier positions, which the
    /// Velha steers away from.
    game: Match<Cube>,
    /// The person's last action refused, and why, until the next one is played.
    refused: Option<(CubeAction, CubeIllegal)>,
    /// Whether "Você × Velha" already counts the game on the cube.
    counted: bool,
}

impl Default for CubeSession {
    /// No mode chosen yet.
    fn default() -> CubeSession {
        CubeSession {
            setup: None,
            game: Match::new(Cube::new(Level::One), None, 0),
            refused: None,
            counted: false,
        }
    }
}

/// The name its kept lines go by.
pub const KEPT: &str = "cube";

impl CubeSession {
    /// The session as the device keeps it (`kept.rs`); a refusal is told once, not kept.
    /// Nothing before a mode is chosen: there is nothing to go back to, and a device that
    /// keeps nothing fetches the reader late.
    pub fn kept(&self) -> Option<String> {
        let (level, velha) = self.setup?;
        let setup = format!(
            "{} {}",
            level.number(),
            if velha { "velha" } else { "friend" }
        );
        let mut w = Writer::new(KEPT);
        w.field("setup", setup)
            .flag("counted", self.counted)
            .game(&self.game, |c| {
                let [x, o, spent] = c.masks();
                format!(
                    "{x} {o} {spent} {} {} {} {} {}",
                    c.side_to_move().index(),
                    c.level().number(),
                    u8::from(c.free_turn_made()),
                    c.counted_turns(Player::X),
                    c.counted_turns(Player::O)
                )
            });
        Some(w.into_text())
    }

    /// A session the device kept; `None` when `text` is not one.
    pub fn from_kept(text: &str) -> Option<CubeSession> {
        let mut r = Reader::new(text, KEPT)?;
        let (level, who) = r.field("setup")?.split_once(' ')?;
        let level = match level {
            "1" => Level::One,
            "2" => Level::Two,
            _ => return None,
        };
        let velha = match who {
            "velha" => true,
            "friend" => false,
            _ => return None,
        };
        let setup = Some((level, velha));
        let session = CubeSession {
            setup,
            counted: r.flag("counted")?,
            game: r.game(None, |line| {
                let [x, o, spent, side, level, free, cx, co] = kept::numbers(line)?;
                let level = match level {
                    1 => Level::One,
                    2 => Level::Two,
                    _ => return None,
                };
                let free = match free {
                    0 => false,
                    1 => true,
                    _ => return None,
                };
                let counted = [u32::try_from(cx).ok()?, u32::try_from(co).ok()?];
                Cube::from_masks([x, o, spent], kept::player(side)?, level, free, counted).ok()
            })?,
            refused: None,
        };
        // The game is the level chosen, and no cube game reaches this many plies.
        let fits = level == session.cube().level();
        (r.done() && fits && session.game.ply() <= 1_000_000).then_some(session)
    }

    /// The level and whether the Velha plays; `None` while choosing.
    pub fn setup(&self) -> Option<(Level, bool)> {
        self.setup
    }

    /// The cube of the game on the table.
    pub fn cube(&self) -> Cube {
        *self.game.position()
    }

    /// The game's earlier positions, oldest first.
    pub fn earlier(&self) -> &[Cube] {
        self.game.earlier()
    }

    /// Every position of the game on the table, the start first, an action apart (for its
    /// review).
    pub fn positions(&self) -> Vec<Cube> {
        let mut all = self.game.earlier().to_vec();
        all.push(*self.game.position());
        all
    }

    /// Whether PARAR would lose something (`super::mid_game`).
    pub fn mid_game(&self) -> bool {
        super::mid_game(&self.game)
    }

    /// The person's last action refused, and why.
    pub fn refused(&self) -> Option<(CubeAction, CubeIllegal)> {
        self.refused
    }

    /// Whether it is the Velha's turn.
    pub fn velha_to_move(&self) -> bool {
        matches!(self.setup, Some((_, true))) && self.cube().status() == Status::Ongoing(Player::O)
    }

    /// A game at `level`, against the Velha or between two people.
    pub fn choose(&mut self, level: Level, against_velha: bool) {
        self.setup = Some((level, against_velha));
        self.new_game(level);
    }

    /// Another game of the same mode.
    pub fn another_game(&mut self) {
        if let Some((level, _)) = self.setup {
            self.new_game(level);
        }
    }

    /// PARAR.
    pub fn stop(&mut self) {
        self.setup = None;
    }

    /// The person's action: played, or refused with the reason kept to tell.
    pub fn act(&mut self, action: CubeAction) -> Result<Played, CubeIllegal> {
        let result = self.play(action);
        self.refused = result.err().map(|reason| (action, reason));
        result
    }

    /// An action the screen refused before playing it (a drag that turns nothing, say).
    pub fn refuse(&mut self, action: CubeAction, reason: CubeIllegal) {
        self.refused = Some((action, reason));
    }

    /// The Velha's action; a refusal ends its turn and tells nobody.
    pub fn velha_plays(&mut self, action: CubeAction) -> Result<Played, CubeIllegal> {
        self.play(action)
    }

    /// The winner of a game won against the Velha, once per game: "Você × Velha" counts
    /// it (ON-K05).
    pub fn velha_result(&mut self) -> Option<Player> {
        match (self.setup, self.cube().status(), self.counted) {
            (Some((_, true)), Status::Win(winner), false) => {
                self.counted = true;
                Some(winner)
            }
            _ => None,
        }
    }

    fn new_game(&mut self, level: Level) {
        self.game = Match::new(Cube::new(level), None, 0);
        self.counted = false;
        self.refused = None;
    }

    /// The side to move plays `action`.
    fn play(&mut self, action: CubeAction) -> Result<Played, CubeIllegal> {
        let before = self.cube();
        self.game
            .act(before.side_to_move(), action, 0)
            .map_err(|refused| match refused {
                Refusal::Illegal { reason, .. } => reason,
                // The side to move always acts here, with no clock: only the end remains.
                _ => CubeIllegal::GameOver,
            })?;
        Ok(Played {
            turned: match action {
                CubeAction::Turn(turn) => Some((before, turn)),
                CubeAction::Tap(_) => None,
            },
            ended: self.cube().status().is_over(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(text: &str) -> CubeAction {
        text.parse().expect("an action")
    }

    #[test]
    fn the_velha_answers_the_person_and_a_win_counts_once() {
        let mut session = CubeSession::default();
        session.choose(Level::One, true);
        assert!(!session.velha_to_move(), "the person, X, begins");
        let played = session.act(action("a1")).expect("a mark");
        assert_eq!(
            played,
            Played {
                turned: None,
                ended: false
            }
        );
        assert!(session.velha_to_move());
        assert!(session.velha_plays(action("b1")).is_ok());
        assert!(session.act(action("a2")).is_ok());
        assert!(session.velha_plays(action("b2")).is_ok());
        assert_eq!(session.velha_result(), None, "nothing to count mid-game");
        assert!(session.act(action("a3")).expect("the winning mark").ended);
        assert_eq!(session.cube().status(), Status::Win(Player::X));
        assert!(!session.velha_to_move());
        assert_eq!(session.velha_result(), Some(Player::X));
        assert_eq!(session.velha_result(), None, "counted once");
        session.another_game();
        assert_eq!(session.cube(), Cube::new(Level::One));
        assert_eq!(session.earlier(), &[] as &[Cube]);
    }

    #[test]
    fn a_refusal_is_kept_until_the_next_action_is_played() {
        let mut session = CubeSession::default();
        session.choose(Level::Two, false);
        assert!(session.act(action("a1")).is_ok());
        let reason = session.act(action("a1")).expect_err("X's mark, O's turn");
        assert_eq!(session.refused(), Some((action("a1"), reason)));
        assert!(session.act(action("c3")).is_ok());
        assert_eq!(session.refused(), None);
        session.refuse(action("U+"), CubeIllegal::GameOver);
        assert!(session.refused().is_some());
        session.another_game();
        assert_eq!(session.refused(), None);
        assert_eq!(session.setup(), Some((Level::Two, false)));
    }

    #[test]
    fn a_turn_is_given_to_animate_and_two_people_count_nothing() {
        let mut session = CubeSession::default();
        session.choose(Level::One, false);
        let before = session.cube();
        let played = session.act(action("U+")).expect("a turn of the top layer");
        let turn: Turn = "U+".parse().expect("a turn");
        assert_eq!(played.turned, Some((before, turn)));
        assert_eq!(session.earlier().len(), 1);
        // Played alone, the turn was X's counted turn: O marks the a column.
        assert_eq!(session.cube().status(), Status::Ongoing(Player::O));
        for text in ["a1", "b1", "a2", "b2", "a3"] {
            assert!(session.act(action(text)).is_ok(), "{text}");
        }
        assert_eq!(session.cube().status(), Status::Win(Player::O));
        assert_eq!(
            session.velha_result(),
            None,
            "only games against the Velha count"
        );
        session.stop();
        assert_eq!(session.setup(), None);
    }

    #[test]
    fn on_k05_a_kept_game_goes_on_and_its_win_counts_once() {
        let mut session = CubeSession::default();
        session.choose(Level::Two, true);
        assert!(session.act(action("a1")).is_ok());
        assert!(session.velha_plays(action("b1")).is_ok());
        // The page went away while the Velha had to move: it still has to.
        assert!(session.act(action("a2")).is_ok());
        assert!(session.velha_to_move());
        let mut back =
            CubeSession::from_kept(&session.kept().expect("a game to keep")).expect("kept lines");
        assert_eq!(
            back.kept().expect("a game to keep"),
            session.kept().expect("a game to keep")
        );
        assert_eq!(back.positions(), session.positions());
        assert_eq!(back.setup(), Some((Level::Two, true)));
        assert!(back.velha_to_move());
        assert!(back.velha_plays(action("b2")).is_ok());
        assert!(back.act(action("a3")).expect("the winning mark").ended);
        assert_eq!(back.velha_result(), Some(Player::X));
        // Kept after it counted, it does not count again.
        let mut again =
            CubeSession::from_kept(&back.kept().expect("a game to keep")).expect("kept lines");
        assert_eq!(again.velha_result(), None);
        // Choosing keeps nothing; then between friends, at level 1.
        assert_eq!(CubeSession::default().kept(), None);
        let mut friends = CubeSession::default();
        friends.choose(Level::One, false);
        let read =
            CubeSession::from_kept(&friends.kept().expect("a game to keep")).expect("kept lines");
        assert_eq!(read.setup(), Some((Level::One, false)));
        assert!(
            CubeSession::from_kept(
                &friends
                    .kept()
                    .expect("a game to keep")
                    .replace("setup 1", "setup 3")
            )
            .is_none()
        );
        assert!(
            CubeSession::from_kept(
                &friends
                    .kept()
                    .expect("a game to keep")
                    .replace("setup 1", "setup 2")
            )
            .is_none(),
            "a level-1 game kept as level 2's"
        );
    }
}
