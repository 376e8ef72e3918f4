//! One module per screen.

pub mod account;
pub mod classic;
pub mod competitive;
pub mod cube;
pub mod email_links;
pub mod groups;
pub mod home;
pub mod howto;
pub mod my_data;
pub mod online;
pub mod ranking;
pub mod replay;
pub mod room;
pub mod security;
pub mod subscription;
pub mod ultimate;

use dioxus::prelude::*;
use velha_rules::{Player, Status};

use crate::app::{AfterSignIn, Screen, use_texts};
use crate::i18n::Texts;

/// The line above every board: whose turn it is, or how the game ended — for the person when
/// they play the computer (`person`: their symbol, X but in every second 2.0 game, V2-R08),
/// for the winner's symbol between two people.
pub fn status_text(t: &Texts, status: Status, person: Option<Player>) -> String {
    match (status, person) {
        (Status::Ongoing(p), _) => format!("{} {p}", t.turn_of),
        (Status::Draw, _) => t.draw.to_string(),
        (Status::Win(p), Some(me)) if p == me => t.you_won.to_string(),
        (Status::Win(_), Some(_)) => t.you_lost.to_string(),
        (Status::Win(p), None) => format!("{p} {}", t.wins_game),
    }
}

/// X as a cross and O as a ring, in their colours: symbols differ by shape, not colour alone.
/// Strokes are attributes, not CSS, so every renderer (Blitz included) draws them.
#[component]
pub fn Mark(player: Player) -> Element {
    match player {
        Player::X => rsx! {
            svg { class: "mark x", view_box: "0 0 100 100", "aria-hidden": "true",
                line { x1: "22", y1: "22", x2: "78", y2: "78", stroke: "#3f6ff0", stroke_width: "14", stroke_linecap: "round" }
                line { x1: "78", y1: "22", x2: "22", y2: "78", stroke: "#3f6ff0", stroke_width: "14", stroke_linecap: "round" }
            }
        },
        Player::O => rsx! {
            svg { class: "mark o", view_box: "0 0 100 100", "aria-hidden": "true",
                circle { cx: "50", cy: "50", r: "29", fill: "none", stroke: "#e0443e", stroke_width: "13" }
            }
        },
    }
}

/// The bar at the top of every screen but home: back to home, and the screen's title. Leaving
/// a screen unmounts it, so whatever game it held starts afresh next time.
#[component]
pub fn TopBar(title: String, go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    rsx! {
        nav { class: "top",
            button { "data-action": "back", onclick: move |_| go.call(Screen::Home), "← {t.back}" }
            h1 { "{title}" }
        }
    }
}

/// A guest asked to sign in first, and brought back to `back` afterwards.
#[component]
pub fn SignInFirst(says: &'static str, back: Screen, go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let mut back_to = use_context::<AfterSignIn>().0;
    rsx! {
        p { "{says}" }
        button { class: "primary wide", "data-action": "sign-in",
            onclick: move |_| {
                back_to.set(Some(back));
                go.call(Screen::Account)
            },
            "{t.sign_in}"
        }
    }
}
