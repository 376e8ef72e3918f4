//! "Como jogar": each game's rules and tips, from the original documents (Brazilian
//! Portuguese) or their English translation.

use dioxus::prelude::*;

use crate::app::{Game, Screen, use_texts};
use crate::screens::TopBar;

/// The rules of `game` in Brazilian Portuguese, from the original documents. Named only by
/// the Portuguese how-to module (src/lazy.rs), so only that module holds them.
pub fn portuguese(game: Game) -> &'static str {
    match game {
        Game::Cube => include_str!("../../assets/howto/cubo.txt"),
        Game::Classic => include_str!("../../assets/howto/classico.txt"),
        Game::Super => include_str!("../../assets/howto/super.txt"),
        Game::V2 => include_str!("../../assets/howto/v2.txt"),
    }
}

/// The rules of `game` in English, translated from the original documents. Named only by the
/// English how-to module, so only that module holds them.
pub fn english(game: Game) -> &'static str {
    match game {
        Game::Cube => include_str!("../../assets/howto/en/cube.txt"),
        Game::Classic => include_str!("../../assets/howto/en/classic.txt"),
        Game::Super => include_str!("../../assets/howto/en/super.txt"),
        Game::V2 => include_str!("../../assets/howto/en/v2.txt"),
    }
}

/// The rules of `game`, `rules` in the texts' language, as headings, paragraphs and lists,
/// readable on a phone.
#[component]
pub fn HowTo(game: Game, rules: &'static str, go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let title = match game {
        Game::Cube => t.game_cube,
        Game::Classic => t.game_classic,
        Game::Super => t.game_super,
        Game::V2 => t.game_v2,
    };
    let lines: Vec<&str> = rules
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    rsx! {
        TopBar { title, go }
        article { class: "howto", lang: t.lang,
            for (i, line) in lines.into_iter().enumerate() {
                if let Some(item) = line.strip_prefix("- ").or_else(|| line.strip_prefix("• ")) {
                    p { key: "{i}", class: "item", "• {item}" }
                } else if is_heading(line) {
                    h2 { key: "{i}", "{line}" }
                } else {
                    p { key: "{i}", "{line}" }
                }
            }
        }
    }
}

/// Short lines without a final full stop read as headings in the documents, those that end
/// in a bracket too ("Marcar casas (só no lado 1)").
fn is_heading(line: &str) -> bool {
    line.chars().count() < 60 && !line.ends_with(['.', ':', '!'])
}
