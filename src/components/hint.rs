//! "Dica" in the local games against the computer (ANA-10): the best move shown on the board,
//! a few times a game.

use dioxus::prelude::*;

use crate::app::use_texts;
use crate::local::kept::hints_key;
use crate::platform;

/// Hints one game allows.
pub const HINTS_PER_GAME: u8 = 3;

/// A position a hint is given for, as the device keeps it beside its game.
pub trait Hinted: Copy + PartialEq {
    /// What a hint says to play.
    type Action: Copy + PartialEq + std::fmt::Debug;
    /// The position as its kept game writes it (`local/kept.rs`): a hint kept beside the game
    /// is shown again only where this line is the same.
    fn line(&self) -> String;
    /// The action as a number, and back.
    fn number(action: Self::Action) -> usize;
    fn action(number: usize) -> Option<Self::Action>;
}

/// A screen's hints: how many the game on the board used, and the one shown, for the game
/// and the position it was asked in (a move or another game makes it stale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hints<P: Hinted> {
    game: u32,
    used: u8,
    shown: Option<(P, P::Action)>,
}

impl<P: Hinted> Default for Hints<P> {
    fn default() -> Self {
        Hints {
            game: 0,
            used: 0,
            shown: None,
        }
    }
}

impl<P: Hinted> Hints<P> {
    /// The hints the device keeps for the screen of the game `name`, whose board shows `now`:
    /// a reload gives none back (three a game, ANA-10), and the one shown is shown again if
    /// nothing was played since.
    pub fn kept(name: &str, now: &P) -> Self {
        let text = platform::load(&hints_key(name));
        text.and_then(|text| (crate::lazy::kept_door()?.hints)(&text))
            .map_or_else(Self::default, |kept| Self::from_kept(kept, now))
    }

    /// Keeps the hints used on the device, for the screen of the game `name`.
    pub fn keep(&self, name: &str) {
        match self.kept_text() {
            Some(text) => platform::save(&hints_key(name), &text),
            None => platform::forget(&hints_key(name)),
        }
    }

    fn from_kept(kept: KeptHints, now: &P) -> Self {
        let shown = kept
            .shown
            .filter(|(_, line)| *line == now.line())
            .and_then(|(number, _)| P::action(number))
            .map(|action| (*now, action));
        Hints {
            game: kept.game,
            used: kept.used,
            shown,
        }
    }

    /// What [`read_kept`] reads back; nothing when no hint was used.
    fn kept_text(&self) -> Option<String> {
        let shown = self.shown.map_or_else(String::new, |(position, action)| {
            format!("\n{} {}", P::number(action), position.line())
        });
        (self.used > 0).then(|| format!("{} {}{shown}", self.game, self.used))
    }

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
/// shown (its action's number and the line of the position it was asked in). Not generic, so
/// one copy serves every screen; read by the kept games' module (out of the first download):
/// hints are kept only beside a kept game, and a screen with a kept game waits for that
/// module (`lazy::LocalGame`).
#[derive(Debug, PartialEq)]
pub struct KeptHints {
    game: u32,
    used: u8,
    shown: Option<(usize, String)>,
}

/// What [`Hints::keep`] wrote, if it is that.
pub fn read_kept(text: &str) -> Option<KeptHints> {
    let mut lines = text.lines();
    let (game, used) = lines.next()?.split_once(' ')?;
    let shown = match lines.next() {
        None => None,
        Some(line) => {
            let (number, position) = line.split_once(' ')?;
            Some((number.parse().ok()?, position.to_owned()))
        }
    };
    lines.next().is_none().then_some(())?;
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
    use super::*;

    /// A position that is its own number; its hints are letters.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Numbered(u8);

    impl Hinted for Numbered {
        type Action = char;

        fn line(&self) -> String {
            format!("at {}", self.0)
        }

        fn number(action: char) -> usize {
            action as usize - 'a' as usize
        }

        fn action(number: usize) -> Option<char> {
            (number < 26).then(|| (b'a' + number as u8) as char)
        }
    }

    fn kept(game: u32, used: u8, shown: Option<(usize, &str)>) -> KeptHints {
        KeptHints {
            game,
            used,
            shown: shown.map(|(number, line)| (number, line.to_owned())),
        }
    }

    #[test]
    fn ana_10_kept_hints_read_back_and_damaged_ones_are_none() {
        assert_eq!(read_kept("7 2"), Some(kept(7, 2, None)));
        assert_eq!(
            read_kept("7 2\n4 at 12"),
            Some(kept(7, 2, Some((4, "at 12"))))
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
            "7 2\nx at 12",
            "7 2\n4",
            "7 2\n4 a\n5 b",
        ] {
            assert_eq!(read_kept(damaged), None, "{damaged:?}");
        }
    }

    #[test]
    fn ana_10_the_hint_shown_comes_back_after_a_reload_only_where_it_was_asked() {
        let mut hints = Hints::<Numbered>::default();
        assert_eq!(hints.kept_text(), None, "nothing to keep before a hint");
        hints.give(5, Numbered(12), 'e');
        let text = hints.kept_text().expect("a hint used is kept");
        let back = |now| Hints::from_kept(read_kept(&text).expect("reads back"), &now);
        assert_eq!(
            back(Numbered(12)),
            hints,
            "the board as it was: the hint shows again"
        );
        let moved = back(Numbered(13));
        assert_eq!(moved.shown(5, &Numbered(13)), None, "a move was made since");
        assert_eq!(moved.left(5), HINTS_PER_GAME - 1, "but the hint stays used");
        let far = Hints::<Numbered>::from_kept(kept(5, 1, Some((400, "at 12"))), &Numbered(12));
        assert_eq!(
            far.shown(5, &Numbered(12)),
            None,
            "no action has that number"
        );
    }

    #[test]
    fn ana_10_three_hints_a_game_each_for_the_position_it_was_asked_in() {
        let mut hints = Hints::<Numbered>::default();
        assert_eq!(hints.left(1), HINTS_PER_GAME);
        for (position, best) in [(10, 'a'), (11, 'b'), (12, 'c')] {
            assert!(hints.give(1, Numbered(position), best));
            assert_eq!(hints.shown(1, &Numbered(position)), Some(best));
        }
        assert_eq!(hints.left(1), 0);
        assert!(
            !hints.give(1, Numbered(13), 'd'),
            "a fourth hint in the same game"
        );
        assert_eq!(hints.shown(1, &Numbered(13)), None);
        assert_eq!(
            hints.shown(1, &Numbered(12)),
            Some('c'),
            "still on the board until a move"
        );
        // The next game has its own three, and the last game's hint is not its own even
        // where its board is the same.
        assert_eq!(hints.shown(2, &Numbered(12)), None);
        assert_eq!(hints.left(2), HINTS_PER_GAME);
        assert!(hints.give(2, Numbered(10), 'e'));
        assert_eq!(hints.left(2), HINTS_PER_GAME - 1);
        assert_eq!(hints.shown(2, &Numbered(10)), Some('e'));
    }
}
