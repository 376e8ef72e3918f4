//! The home screen: the four games, the "Você × Velha" score, and the rules of each game.

use dioxus::prelude::*;

use crate::app::{Game, Screen, use_texts};
use crate::lazy::{Online, Part};
use crate::online::membership::{Membership, use_membership};
use crate::platform::VelhaScore;

/// The home screen.
#[component]
pub fn Home(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let membership = use_membership();
    let mut score = use_signal(VelhaScore::load);
    let mut confirming = use_signal(|| false);
    let games = [
        (Game::Cube, t.game_cube, t.tagline_cube, "cube"),
        (Game::Classic, t.game_classic, t.tagline_classic, "classic"),
        (Game::Super, t.game_super, t.tagline_super, "super"),
        (Game::V2, t.game_v2, t.tagline_v2, "v2"),
    ];
    rsx! {
        // Only a renamed member's home needs the online module at once.
        if matches!(membership(), Membership::Member(account) if account.renamed_from.is_some()) {
            Online { part: Part::RenameNotice, go }
        }
        header { class: "home-header",
            div { class: "home-top",
                button { class: "small account-button", "data-action": "account",
                    onclick: move |_| go.call(Screen::Account),
                    match membership() {
                        Membership::Member(account) => account.name,
                        Membership::Checking => "…".to_owned(),
                        Membership::Guest => t.account.to_owned(),
                    }
                }
            }
            h1 { "Cubo da Velha" }
            section { class: "score", "aria-label": t.score_title,
                h2 { "{t.score_title}" }
                p { class: "score-line",
                    span { "data-score": "wins", "{score().wins}" }
                    " × "
                    span { "data-score": "losses", "{score().losses}" }
                }
                if confirming() {
                    div { class: "confirm", role: "alertdialog", "aria-label": t.confirm_reset,
                        p { "{t.confirm_reset}" }
                        button { "data-action": "confirm-reset",
                            onclick: move |_| {
                                VelhaScore::default().save();
                                score.set(VelhaScore::default());
                                confirming.set(false);
                            },
                            "{t.yes}"
                        }
                        button { onclick: move |_| confirming.set(false), "{t.no}" }
                    }
                } else {
                    button { class: "small", "data-action": "reset-score", onclick: move |_| confirming.set(true), "{t.reset_score}" }
                }
            }
        }
        ul { class: "games",
            for (game, name, tagline, id) in games {
                li { class: "game-card", key: "{id}",
                    h2 { "{name}" }
                    p { "{tagline}" }
                    div { class: "card-actions",
                        button { class: "primary", "data-game": id, onclick: move |_| go.call(Screen::Play(game)), "{t.play}" }
                        button { "data-howto": id, onclick: move |_| go.call(Screen::HowTo(game)), "{t.how_to}" }
                    }
                }
            }
        }
    }
}
