//! The Vila Quintal characters as people see them: a drawn face, a name, one line about them,
//! and what they say when a game ends. The drawings are the SVG files in `assets/characters`,
//! built into the app so they show offline and on every renderer.

#[cfg(target_arch = "wasm32")]
use std::sync::LazyLock;

use dioxus::prelude::*;
use velha_ai::Character;
use velha_rules::{Player, Status};

use crate::app::use_texts;
use crate::i18n::Texts;

/// The drawing of `who`, as SVG text.
fn drawing(who: Character) -> &'static str {
    match who {
        Character::Rabisco => include_str!("../../assets/characters/rabisco.svg"),
        Character::Nino => include_str!("../../assets/characters/nino.svg"),
        Character::Quelonia => include_str!("../../assets/characters/quelonia.svg"),
    }
}

/// The drawing as an image address: an `img` scales it like any picture.
#[cfg(target_arch = "wasm32")]
fn data_url(svg: &str) -> String {
    let mut url = String::with_capacity(svg.len() + 32);
    url.push_str("data:image/svg+xml,");
    for c in svg.chars() {
        match c {
            '%' => url.push_str("%25"),
            '#' => url.push_str("%23"),
            '"' => url.push('\''),
            '\n' => url.push(' '),
            c => url.push(c),
        }
    }
    url
}

/// The drawing of `who` as an image address, encoded once for the app's life.
#[cfg(target_arch = "wasm32")]
fn image(who: Character) -> &'static str {
    static IMAGES: LazyLock<[String; 3]> =
        LazyLock::new(|| Character::ALL.map(|c| data_url(drawing(c))));
    let at = match who {
        Character::Rabisco => 0,
        Character::Nino => 1,
        Character::Quelonia => 2,
    };
    &IMAGES[at]
}

/// `who`'s name, with the difficulty.
pub fn name(t: &Texts, who: Character) -> &'static str {
    match who {
        Character::Rabisco => t.rabisco,
        Character::Nino => t.nino,
        Character::Quelonia => t.quelonia,
    }
}

/// One line about `who`.
pub fn about(t: &Texts, who: Character) -> &'static str {
    match who {
        Character::Rabisco => t.rabisco_about,
        Character::Nino => t.nino_about,
        Character::Quelonia => t.quelonia_about,
    }
}

/// What `who` (playing O) says once a game has ended with `status`.
pub fn reaction(t: &Texts, who: Character, status: Status) -> Option<&'static str> {
    let says = match who {
        Character::Rabisco => t.rabisco_says,
        Character::Nino => t.nino_says,
        Character::Quelonia => t.quelonia_says,
    };
    match status {
        Status::Win(Player::X) => Some(says[0]),
        Status::Draw => Some(says[1]),
        Status::Win(Player::O) => Some(says[2]),
        Status::Ongoing(_) => None,
    }
}

/// The face of `who`, `size` pixels wide; decorative where the name is written beside it.
#[component]
pub fn Avatar(who: Character, size: u32) -> Element {
    #[cfg(target_arch = "wasm32")]
    return rsx! {
        img { class: "avatar", src: image(who), width: "{size}", height: "{size}", alt: "", "data-avatar": who.protocol_name() }
    };
    // Blitz loads no image addresses without its network provider (left out, see
    // Cargo.toml): the drawing goes in as SVG.
    #[cfg(not(target_arch = "wasm32"))]
    rsx! {
        div { class: "avatar", "aria-hidden": "true", "data-avatar": who.protocol_name(),
            style: "width: {size}px; height: {size}px;",
            dangerous_inner_html: drawing(who),
        }
    }
}

/// The character beside the board: face and name, and at the end of a game, what they say.
#[component]
pub fn Rival(who: Character, status: Status) -> Element {
    let t = use_texts();
    let says = reaction(t, who, status);
    rsx! {
        div { class: "opponent", "data-opponent": who.protocol_name(),
            Avatar { who, size: 48 }
            div { class: "opponent-text",
                span { class: "opponent-name", "{name(t, who)}" }
                if let Some(line) = says {
                    span { class: "says", role: "status", "data-says": who.protocol_name(), "“{line}”" }
                }
            }
        }
    }
}
