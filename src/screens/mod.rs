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

use std::rc::Rc;

use dioxus::prelude::*;
use velha_rules::{Player, Status};

use crate::app::{AfterSignIn, Screen, use_texts};
use crate::i18n::Texts;
use crate::local::kept;
use crate::platform;

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

/// A local game's session: read back from the device when the screen opens (by `read`, with
/// the kept games' module, which `lazy::LocalGame` made sure is here if a game is kept), else
/// `fresh`, and kept there after every change (`local/kept.rs`), so a reload, the back button
/// or an app the phone closed finds the game as it was.
pub fn use_kept<S: 'static>(
    name: &'static str,
    read: impl FnOnce(&str) -> Option<S>,
    fresh: impl FnOnce() -> S,
    write: fn(&S) -> Option<String>,
) -> Signal<S> {
    let session = use_signal(|| {
        platform::load(&kept::key(name))
            .and_then(|text| read(&text))
            .unwrap_or_else(fresh)
    });
    keep_writing(
        name,
        Rc::new(move |track| match track {
            true => Some(write(&session.read())),
            // Unmounting: the signal may already be gone.
            false => session.try_peek().ok().map(|s| write(&s)),
        }),
    );
    session
}

/// A session's text: `lines(true)` reads the session as a signal (the effect runs again when
/// it changes), `lines(false)` without subscribing, as the screen is unmounted; either is
/// `None` when the signal is gone, `Some(None)` when there is nothing to keep.
type Lines = Rc<dyn Fn(bool) -> Option<Option<String>>>;

/// Writes what `lines` gives whenever the session it reads changes, and once more as the
/// screen goes: a change made on the way out (PARAR, then home) has no render after it. Not
/// generic: each game's own copy of the effect cost the first download several KB.
fn keep_writing(name: &'static str, lines: Lines) {
    let last_lines = lines.clone();
    // 2.0's clock rewrites the session five times a second: only a change is written.
    let mut last = None;
    use_effect(move || {
        if let Some(text) = lines(true)
            && last.as_ref() != Some(&text)
        {
            keep(name, text.as_deref());
            last = Some(text);
        }
    });
    use_drop(move || {
        if let Some(text) = last_lines(false) {
            keep(name, text.as_deref());
        }
    });
}

fn keep(name: &str, text: Option<&str>) {
    match text {
        Some(text) => platform::save(&kept::key(name), text),
        None => {
            platform::forget(&kept::key(name));
            // A new session numbers its games from the start again: the old numbers' hints
            // would be the new games'.
            platform::forget(&kept::hints_key(name));
        }
    }
}

/// The bar at the top of every screen but home: back to `up` (home, or the account for its
/// own pages), and the screen's title. A local game left so is kept (`use_kept`); an online one
/// goes on on the server.
#[component]
pub fn TopBar(
    title: String,
    go: EventHandler<Screen>,
    #[props(default = Screen::Home)] up: Screen,
) -> Element {
    let t = use_texts();
    rsx! {
        nav { class: "top",
            button { "data-action": "back", onclick: move |_| go.call(up), "← {t.back}" }
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
