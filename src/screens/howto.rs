//! "Como jogar": each game's rules and tips, from the original documents.

use dioxus::prelude::*;

use crate::app::{Game, Screen, use_texts};
use crate::screens::TopBar;

/// The rules of `game`, as headings, paragraphs and lists, readable on a phone.
#[component]
pub fn HowTo(game: Game, go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let (title, text) = match game {
        Game::Cube => (t.game_cube, include_str!("../../assets/howto/cubo.txt")),
        Game::Classic => (
            t.game_classic,
            include_str!("../../assets/howto/classico.txt"),
        ),
        Game::Super => (t.game_super, include_str!("../../assets/howto/super.txt")),
        Game::V2 => (t.game_v2, include_str!("../../assets/howto/v2.txt")),
    };
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    rsx! {
        TopBar { title, go }
        article { class: "howto", lang: "pt-BR",
            if !t.help_language_note.is_empty() {
                p { class: "note", lang: t.lang, "{t.help_language_note}" }
            }
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

/// Short lines without a final full stop read as headings in the documents.
fn is_heading(line: &str) -> bool {
    line.chars().count() < 60 && !line.ends_with(['.', ':', '!', ')'])
}
