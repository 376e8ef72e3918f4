//! "Dica" in the local games against the computer (ANA-10): the best move shown on the board,
//! a few times a game.

use dioxus::prelude::*;

use crate::app::use_texts;
use crate::local::kept::hints_key;
use crate::platform;

/// Hints one game allows.
pub const HINTS_PER_GAME: u8 = 3;

/// A screen's hints: how many the game on the board used, and the one shown, for the game
/// and the position it was asked in (a move or another game makes it stale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hints<P: Copy + PartialEq, A: Copy> {
    game: u32,
    used: u8,
    shown: Option<(P, A)>,
}

impl<P: Copy + PartialEq, A: Copy> Default for Hints<P, A> {
    fn default() -> Self {
        Hints {
            game: 0,
            used: 0,
            shown: None,
        }
    }
}

impl<P: Copy + PartialEq, A: Copy> Hints<P, A> {
    /// The hints the device keeps for the screen of the game `name` (a reload gives none
    /// back: three a game, ANA-10); none is shown.
    pub fn kept(name: &str) -> Self {
        let (game, used) = kept_used(name).unwrap_or_default();
        Hints {
            game,
            used,
            shown: None,
        }
    }

    /// Keeps the hints used on the device, for the screen of the game `name`.
    pub fn keep(&self, name: &str) {
        keep_used(name, self.game, self.used);
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
    pub fn shown(&self, game: u32, position: &P) -> Option<A> {
        self.shown
            .filter(|(asked_at, _)| self.game == game && asked_at == position)
            .map(|(_, action)| action)
    }

    /// Gives the hint `action` for `position` in game `game`, if one is left; whether it was.
    pub fn give(&mut self, game: u32, position: P, action: A) -> bool {
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

/// The game number and the hints it used, as kept; not generic, so one copy serves every
/// screen. Read by the kept games' module (out of the first download): hints are kept only
/// beside a kept game, and a screen with a kept game waits for that module (`lazy::LocalGame`).
fn kept_used(name: &str) -> Option<(u32, u8)> {
    let text = platform::load(&hints_key(name))?;
    (crate::lazy::kept_door()?.hints)(&text)
}

/// What [`kept_used`] reads.
pub fn read_used(text: &str) -> Option<(u32, u8)> {
    let (game, used) = text.split_once(' ')?;
    Some((
        game.parse().ok()?,
        used.parse::<u8>().ok()?.min(HINTS_PER_GAME),
    ))
}

fn keep_used(name: &str, game: u32, used: u8) {
    if used == 0 {
        platform::forget(&hints_key(name));
    } else {
        platform::save(&hints_key(name), &format!("{game} {used}"));
    }
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

    #[test]
    fn ana_10_kept_hints_read_back_and_damaged_ones_are_none() {
        assert_eq!(read_used("7 2"), Some((7, 2)));
        assert_eq!(
            read_used("7 200"),
            Some((7, HINTS_PER_GAME)),
            "never more than a game has"
        );
        for damaged in ["", "7", "7 x", "-1 2", "7 2 3", "7 300"] {
            assert_eq!(read_used(damaged), None, "{damaged:?}");
        }
    }

    #[test]
    fn ana_10_three_hints_a_game_each_for_the_position_it_was_asked_in() {
        let mut hints = Hints::<u8, char>::default();
        assert_eq!(hints.left(1), HINTS_PER_GAME);
        for (position, best) in [(10, 'a'), (11, 'b'), (12, 'c')] {
            assert!(hints.give(1, position, best));
            assert_eq!(hints.shown(1, &position), Some(best));
        }
        assert_eq!(hints.left(1), 0);
        assert!(!hints.give(1, 13, 'd'), "a fourth hint in the same game");
        assert_eq!(hints.shown(1, &13), None);
        assert_eq!(
            hints.shown(1, &12),
            Some('c'),
            "still on the board until a move"
        );
        // The next game has its own three, and the last game's hint is not its own even
        // where its board is the same.
        assert_eq!(hints.shown(2, &12), None);
        assert_eq!(hints.left(2), HINTS_PER_GAME);
        assert!(hints.give(2, 10, 'e'));
        assert_eq!(hints.left(2), HINTS_PER_GAME - 1);
        assert_eq!(hints.shown(2, &10), Some('e'));
    }
}
