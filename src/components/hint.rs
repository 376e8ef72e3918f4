//! "Dica" in the local games against the computer (ANA-10): the best move shown on the board,
//! a few times a game.

use dioxus::prelude::*;
use velha_rules::Position;

use crate::app::use_texts;
use crate::local::kept::{KeptLine, hints_key};
use crate::platform;

/// Hints one game allows.
pub const HINTS_PER_GAME: u8 = 3;

/// A screen's hints: how many the game on the board used, and the one shown, for the game
/// and the position it was asked in (a move or another game makes it stale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hints<P: Position> {
    game: u32,
    used: u8,
    shown: Option<(P, P::Action)>,
}

impl<P: Position> Default for Hints<P> {
    fn default() -> Self {
        Hints {
            game: 0,
            used: 0,
            shown: None,
        }
    }
}

impl<P: Position + KeptLine> Hints<P> {
    /// The hints the device keeps for the screen of the game `name`, whose board shows game
    /// number `game` at `now`: a reload gives none back (three a game, ANA-10), and the one
    /// shown is shown again if nothing was played since.
    pub fn kept(name: &str, game: u32, now: &P) -> Self {
        let text = platform::load(&hints_key(name));
        text.and_then(|text| (crate::lazy::kept_door()?.hints)(&text))
            .map_or_else(Self::default, |kept| Self::from_kept(kept, game, now))
    }

    /// Keeps the hints used on the device, for the screen of the game `name`.
    pub fn keep(&self, name: &str) {
        match self.kept_text() {
            Some(text) => platform::save(&hints_key(name), &text),
            None => platform::forget(&hints_key(name)),
        }
    }

    /// Hints kept for another game than the one on the board are not its own: the game they
    /// were kept beside was left, or could not be read back and a new one began.
    fn from_kept(kept: KeptHints, game: u32, now: &P) -> Self {
        if kept.game != game {
            return Self::default();
        }
        // Only as a legal move of the board, whatever the text says.
        let shown = kept
            .shown
            .filter(|(_, line)| *line == now.line())
            .and_then(|(said, _)| {
                now.legal_actions()
                    .into_iter()
                    .find(|action| action.to_string() == said)
            })
            .map(|action| (*now, action));
        Hints {
            game,
            used: kept.used,
            shown,
        }
    }

    /// What [`read_kept`] reads back; nothing when no hint was used.
    fn kept_text(&self) -> Option<String> {
        let shown = self.shown.map_or_else(String::new, |(position, action)| {
            format!("\n{action} {}", position.line())
        });
        (self.used > 0).then(|| format!("{} {}{shown}", self.game, self.used))
    }
}

impl<P: Position> Hints<P> {
    /// Hints left in the game numbered `game`.
    pub fn left(&self, game: u32) -> u8 {
        if self.game == game {
            HINTS_PER_GAME.saturating_sub(self.used)
        } else {
            HINTS_PER_GAME
        }
    }

    /// The hint for `position` of game `game`, if one was given there.
    pub fn shown(&self, game: u32, position: &P) -> Option<P::Action> {
        self.shown
            .filter(|(asked_at, _)| self.game == game && asked_at == position)
            .map(|(_, action)| action)
    }

    /// Gives the hint `action` for `position` in game `game`, if one is left; whether it was.
    pub fn give(&mut self, game: u32, position: P, action: P::Action) -> bool {
        if self.game != game {
            *self = Hints {
                game,
                ..Hints::default()
            };
        }
        if self.used >= HINTS_PER_GAME {
            return false;
        }
        self.used += 1;
        self.shown = Some((position, action));
        true
    }
}

/// The hints a game used as the device keeps them: the game's number, how many, and the one
/// shown (its action as the protocol writes it, and the line of the position it was asked
/// in). Not generic, so one copy serves every screen; read by the kept games' module (out of
/// the first download): hints are kept only beside a kept game, and a screen with a kept game
/// waits for that module (`lazy::LocalGame`).
#[derive(Debug, PartialEq)]
pub struct KeptHints {
    game: u32,
    used: u8,
    shown: Option<(String, String)>,
}

/// What [`Hints::keep`] wrote, if it is that.
pub fn read_kept(text: &str) -> Option<KeptHints> {
    let mut lines = text.lines();
    let (game, used) = lines.next()?.split_once(' ')?;
    let shown = match lines.next() {
        None => None,
        Some(line) => {
            let (action, position) = line.split_once(' ')?;
            Some((action.to_owned(), position.to_owned()))
        }
    };
    if lines.next().is_some() {
        return None;
    }
    Some(KeptHints {
        game: game.parse().ok()?,
        used: used.parse::<u8>().ok()?.min(HINTS_PER_GAME),
        shown,
    })
}

/// The "Dica" button with the hints left, and the hint given, if any.
#[component]
pub fn HintRow(
    left: u8,
    enabled: bool,
    thinking: bool,
    says: Option<String>,
    onclick: EventHandler<()>,
) -> Element {
    let a = use_texts().analysis;
    let label = if thinking {
        a.hint_thinking.to_owned()
    } else {
        a.hint.replace("{n}", &left.to_string())
    };
    rsx! {
        div { class: "hint-row",
            button { class: "small", "data-action": "hint", "data-hints-left": "{left}",
                disabled: !enabled || thinking || left == 0,
                onclick: move |_| onclick.call(()),
                "{label}"
            }
            if let Some(says) = says {
                span { class: "hint-says", role: "status", "data-hint": "{says}", "{a.hint_says} {says}" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use velha_ai::Character;
    use velha_rules::{Cell, Classic, Player};

    use super::*;
    use crate::local::classic::{self, ClassicSession};
    use crate::local::ultimate::{self, UltimateSession};

    fn cell(name: &str) -> Cell {
        name.parse().expect("a cell")
    }

    /// Classic after `cells`, played in turn from the empty board.
    fn classic(cells: &[&str]) -> Classic {
        let mut board = Classic::new(Player::X);
        for name in cells {
            board.play(cell(name)).expect("a legal move");
        }
        board
    }

    fn kept(game: u32, used: u8, shown: Option<(&str, &str)>) -> KeptHints {
        KeptHints {
            game,
            used,
            shown: shown.map(|(action, line)| (action.to_owned(), line.to_owned())),
        }
    }

    /// What the hints kept as `text` give a screen whose board shows game `game` at `now`.
    fn reloaded<P: Position + KeptLine>(text: &str, game: u32, now: &P) -> Hints<P> {
        Hints::from_kept(read_kept(text).expect("kept hints read back"), game, now)
    }

    /// Hints that gave a legal move of `position`, in game `game`: them, the text they are
    /// kept as, and the move.
    fn hinted<P: Position + KeptLine>(game: u32, position: P) -> (Hints<P>, String, P::Action) {
        let best = position.legal_actions().into_iter().next();
        let best = best.expect("a legal move");
        let mut hints = Hints::default();
        assert!(hints.give(game, position, best));
        let text = hints.kept_text().expect("a hint used is kept");
        (hints, text, best)
    }

    #[test]
    fn ana_10_kept_hints_read_back_and_damaged_ones_are_none() {
        assert_eq!(read_kept("7 2"), Some(kept(7, 2, None)));
        assert_eq!(
            read_kept("7 2\ne5 1 2 0"),
            Some(kept(7, 2, Some(("e5", "1 2 0"))))
        );
        assert_eq!(
            read_kept("7 200"),
            Some(kept(7, HINTS_PER_GAME, None)),
            "never more than a game has"
        );
        for damaged in [
            "",
            "7",
            "7 x",
            "-1 2",
            "7 2 3",
            "7 300",
            "7 2\ne5",
            "7 2\ne5 1\nf6 2",
        ] {
            assert_eq!(read_kept(damaged), None, "{damaged:?}");
        }
    }

    #[test]
    fn ana_10_the_hint_shown_comes_back_after_a_reload_only_where_it_was_asked() {
        let mut session = ClassicSession::new(5);
        assert!(!session.face(classic::Rival::Computer(Character::Nino)));
        assert!(!session.press(cell("a1")), "Nino answers at once");
        let (game, board) = (session.game_number(), session.board());
        let (hints, hints_text, best) = hinted(game, board);
        let text = session.kept().expect("a game to keep");

        let back = ClassicSession::from_kept(&text).expect("the game reads back");
        let again = reloaded(&hints_text, back.game_number(), &back.board());
        assert_eq!(again, hints, "nothing played since: the hint shows again");

        let mut moved = ClassicSession::from_kept(&text).expect("the game reads back");
        assert!(!moved.press(best));
        let stale = reloaded(&hints_text, moved.game_number(), &moved.board());
        assert_eq!(
            stale.shown(game, &moved.board()),
            None,
            "a move was made since"
        );
        assert_eq!(stale.left(game), HINTS_PER_GAME - 1, "the hint stays used");

        // The game could not be read back (damaged, or an older version's): the new one the
        // screen begins is not the game the hints were kept beside, even on the same board.
        let fresh = ClassicSession::new(6);
        assert_eq!(
            reloaded("1 1\nb2 0 0 0", fresh.game_number(), &fresh.board()),
            Hints::default()
        );
        assert_eq!(fresh.board().line(), "0 0 0");

        // Only a legal move of that board comes back, whatever the text says.
        for said in ["a1", "zz", ""] {
            let text = format!("{game} 1\n{said} {}", board.line());
            let hints = reloaded(&text, game, &board);
            assert_eq!(hints.shown(game, &board), None, "{said:?}");
            assert_eq!(hints.left(game), HINTS_PER_GAME - 1);
        }
    }

    #[test]
    fn ana_10_a_turn_the_2_0_clock_took_makes_its_hint_stale() {
        const TURN: u64 = 60_000;
        let mut session = UltimateSession::new(true, Player::X, TURN, 0);
        assert!(!session.face(ultimate::Rival::Friend, 0));
        let (game, grid) = (session.game_number(), session.grid());
        let (_, hints_text, best) = hinted(game, grid);

        let text = session.kept().expect("a game to keep");
        let back = UltimateSession::from_kept(&text, true, TURN, 1).expect("the game reads back");
        let again = reloaded(&hints_text, back.game_number(), &back.grid());
        assert_eq!(again.shown(game, &back.grid()), Some(best));

        assert_eq!(session.tick(TURN + 1), Some(false), "X lost the turn");
        let text = session.kept().expect("a game to keep");
        let back = UltimateSession::from_kept(&text, true, TURN, TURN + 2).expect("reads back");
        let stale = reloaded(&hints_text, back.game_number(), &back.grid());
        assert_eq!(stale.shown(game, &back.grid()), None);
        assert_eq!(stale.left(game), HINTS_PER_GAME - 1);
    }

    #[test]
    fn ana_10_three_hints_a_game_each_for_the_position_it_was_asked_in() {
        let mut hints = Hints::<Classic>::default();
        assert_eq!(hints.left(1), HINTS_PER_GAME);
        let (first, second, third) = (
            classic(&[]),
            classic(&["a1", "b2"]),
            classic(&["a1", "b2", "c3", "a3"]),
        );
        for (position, best) in [(first, "a1"), (second, "c3"), (third, "c1")] {
            assert!(hints.give(1, position, cell(best)));
            assert_eq!(hints.shown(1, &position), Some(cell(best)));
        }
        assert_eq!(hints.left(1), 0);
        let fourth = classic(&["a1", "b2", "c3", "a3", "c1", "b1"]);
        assert!(
            !hints.give(1, fourth, cell("b3")),
            "a fourth hint in the same game"
        );
        assert_eq!(hints.shown(1, &fourth), None);
        assert_eq!(
            hints.shown(1, &third),
            Some(cell("c1")),
            "still on the board until a move"
        );
        // The next game has its own three, and the last game's hint is not its own even
        // where its board is the same.
        assert_eq!(hints.shown(2, &third), None);
        assert_eq!(hints.left(2), HINTS_PER_GAME);
        assert!(hints.give(2, first, cell("b2")));
        assert_eq!(hints.left(2), HINTS_PER_GAME - 1);
        assert_eq!(hints.shown(2, &first), Some(cell("b2")));
    }
}
