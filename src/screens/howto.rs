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
    rsx! {
        TopBar { title, go }
        article { class: "howto", lang: t.lang,
            for (i, block) in blocks(rules).into_iter().enumerate() {
                match block {
                    Block::Heading(line) => rsx! { h2 { key: "{i}", "{line}" } },
                    Block::Paragraph(line) => rsx! { p { key: "{i}", "{line}" } },
                    Block::Item(item) => rsx! { p { key: "{i}", class: "item", "• {item}" } },
                    Block::Term(term, about) => rsx! {
                        dl { key: "{i}", class: "item",
                            dt { "• {term}" }
                            dd { "{about}" }
                        }
                    },
                }
            }
        }
    }
}

/// A piece of a game's rules as the screen shows it.
#[derive(Debug, PartialEq)]
enum Block<'a> {
    Heading(&'a str),
    Paragraph(&'a str),
    Item(&'a str),
    /// A list item that names something (a character, a way to play), and the item after it
    /// that says what it is: shown together, the name over its description.
    Term(&'a str, &'a str),
}

/// The rules' lines as blocks: "- " or "• " starts a list item, and a short line without a
/// final full stop is a heading. In a list, such a line that is no clause either (no comma)
/// names what the next item, a whole sentence, describes ("- Rabisco (fácil)" over what he
/// does); items that read on as one list ("Vitória: +30", "Empate: +0", "Já vencido, ou")
/// stay items.
fn blocks(rules: &str) -> Vec<Block<'_>> {
    let mut lines = rules
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .peekable();
    let mut blocks = Vec::new();
    while let Some(line) = lines.next() {
        let next = lines.peek().copied().and_then(list_item);
        blocks.push(match list_item(line) {
            Some(term) => match next.filter(|about| describes(term, about)) {
                Some(about) => {
                    lines.next();
                    Block::Term(term, about)
                }
                None => Block::Item(term),
            },
            None if is_heading(line) => Block::Heading(line),
            None => Block::Paragraph(line),
        });
    }
    blocks
}

/// Whether list item `term` names what the item after it, `about`, describes.
fn describes(term: &str, about: &str) -> bool {
    is_heading(term) && !term.contains(',') && about.ends_with('.')
}

/// A list item's text, if the line is one.
fn list_item(line: &str) -> Option<&str> {
    line.strip_prefix("- ").or_else(|| line.strip_prefix("• "))
}

/// Short lines without a final full stop read as headings in the documents, those that end
/// in a bracket too ("Marcar casas (só no lado 1)").
fn is_heading(line: &str) -> bool {
    line.chars().count() < 60 && !line.ends_with(['.', ':', '!'])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every game's rules in both languages: the names shown over a description are exactly
    /// the classic game's characters and its ways to play by invitation.
    #[test]
    fn classic_r06_each_character_is_shown_over_what_it_does_and_nothing_else_is() {
        let classic_pt = [
            "Rabisco (fácil)",
            "Nino (médio)",
            "Vó Quelônia (difícil)",
            "Convite",
            "Cada um na sua hora",
            "Revanche",
            "Desistir",
            "Ausência",
            "Quem assiste",
        ];
        let classic_en = [
            "Rabisco (easy)",
            "Nino (medium)",
            "Grandma Quelônia (hard)",
            "Invitation",
            "Each in their own time",
            "Rematch",
            "Resigning",
            "Absence",
            "Spectators",
        ];
        for game in [Game::Cube, Game::Classic, Game::Super, Game::V2] {
            for (rules, expected) in [(portuguese(game), classic_pt), (english(game), classic_en)] {
                let terms: Vec<&str> = blocks(rules)
                    .into_iter()
                    .filter_map(|b| match b {
                        Block::Term(term, about) => {
                            assert!(about.ends_with('.'), "{term}: {about}");
                            Some(term)
                        }
                        _ => None,
                    })
                    .collect();
                let expected: &[&str] = if game == Game::Classic {
                    &expected
                } else {
                    &[]
                };
                assert_eq!(terms, expected, "{game:?}");
            }
        }
    }

    #[test]
    fn a_short_item_that_ends_a_sentence_stays_an_item_and_a_lone_name_too() {
        let shown = blocks(
            "Regras\n- Cada arrasto gira uma camada só.\n- Só isto\nFim do texto.\n\
             • Vitória: +30\n• Empate: +0\n• Já vencido, ou\n• Já empatado.",
        );
        assert_eq!(
            shown,
            [
                Block::Heading("Regras"),
                Block::Item("Cada arrasto gira uma camada só."),
                Block::Item("Só isto"),
                Block::Paragraph("Fim do texto."),
                Block::Item("Vitória: +30"),
                Block::Item("Empate: +0"),
                Block::Item("Já vencido, ou"),
                Block::Item("Já empatado."),
            ]
        );
    }
}
