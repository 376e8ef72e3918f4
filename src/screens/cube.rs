//! Cubo da Velha: level 1 or 2, against the Velha or two people on one device. The cube
//! canvas takes taps and drags; side 1's cells and every turn are also buttons, for the
//! keyboard and screen readers.

use dioxus::core::Task;
use dioxus::prelude::*;
use velha_ai::Velha;
use velha_rules::game;
use velha_rules::{Cube, CubeAction, CubeIllegal, Level, Match, Player, Position, Status};

use crate::app::{Screen, use_texts};
use crate::components::cube_stage::TurnQueue;
use crate::components::cube_table::{CubeTable, refusal};
use crate::platform::{self, VelhaScore};
use crate::screens::{TopBar, status_text};
use crate::thinking::use_thinker;

/// The cube game screen.
#[component]
pub fn CubeScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let mut setup = use_signal(|| None::<(Level, bool)>);
    // No clock on one device; the match keeps the game's earlier positions, which the Velha
    // steers away from.
    let mut game = use_signal(|| Match::new(Cube::new(Level::One), None, 0));
    let cube = move || *game.read().position();
    let mut message = use_signal(|| None::<String>);
    let velha = use_thinker(Velha::new);
    // The Velha's thinking, dropped when a new game starts (leaving the screen drops it too).
    let mut thinking = use_hook(|| CopyValue::new(None::<Task>));
    let mut counted = use_signal(|| false);
    let turns = use_signal(TurnQueue::default);

    // Plays an action and queues its animation when it turns a layer (CUBE-V04, V05).
    let mut play = move |action: CubeAction| {
        let before = cube();
        let result = game
            .with_mut(|g| g.act(before.side_to_move(), action, 0))
            .map_err(|refused| match refused {
                game::Refusal::Illegal { reason, .. } => reason,
                // The side to move always acts here, with no clock: only the end remains.
                _ => CubeIllegal::GameOver,
            });
        if let (Ok(_), CubeAction::Turn(turn)) = (&result, action) {
            turns.read().push(before, turn);
        }
        if result.is_ok() && cube().status().is_over() {
            platform::vibrate(platform::BUZZ_GAME_OVER);
        }
        result
    };
    let mut refuse = move |(action, reason): (CubeAction, CubeIllegal)| {
        message.set(Some(refusal(t, action, reason)));
        platform::vibrate(platform::BUZZ_REFUSED);
    };
    // "Você × Velha" counts each game against the Velha once, when it is won (ON-K05).
    let mut count_result = move || {
        if let (Some((_, true)), Status::Win(w), false) = (setup(), cube().status(), counted()) {
            let mut score = VelhaScore::load();
            if w == Player::X {
                score.wins += 1
            } else {
                score.losses += 1
            }
            score.save();
            counted.set(true);
        }
    };
    let act = move |action: CubeAction| {
        let result = play(action);
        match result {
            Err(reason) => refuse((action, reason)),
            Ok(_) => {
                message.set(None);
                count_result();
                if matches!(setup(), Some((_, true)))
                    && cube().status() == Status::Ongoing(Player::O)
                {
                    // The Velha plays O: a free turn keeps its turn, so it may act twice.
                    let turn = spawn(async move {
                        while cube().status() == Status::Ongoing(Player::O) {
                            let decision =
                                velha.decide(game.read().earlier(), &cube(), Velha::PLAY_LIMITS);
                            let Some(action) = decision.await else {
                                break;
                            };
                            if play(action).is_err() {
                                break;
                            }
                        }
                        count_result();
                        thinking.set(None);
                    });
                    thinking.set(Some(turn));
                }
            }
        }
    };

    let Some((level, against_velha)) = setup() else {
        return rsx! {
            TopBar { title: t.game_cube, go }
            section { class: "choose",
                for (lvl, vs, label, id) in [
                    (Level::One, true, format!("{} · {}", t.level_1, t.against_velha), "1-velha"),
                    (Level::Two, true, format!("{} · {}", t.level_2, t.against_velha), "2-velha"),
                    (Level::One, false, format!("{} · {}", t.level_1, t.two_players), "1-friend"),
                    (Level::Two, false, format!("{} · {}", t.level_2, t.two_players), "2-friend"),
                ] {
                    button { class: "primary wide", key: "{id}", "data-mode": id,
                        onclick: move |_| {
                            if let Some(task) = thinking.take() {
                                task.cancel();
                            }
                            game.set(Match::new(Cube::new(lvl), None, 0));
                            counted.set(false);
                            message.set(None);
                            setup.set(Some((lvl, vs)));
                        },
                        "{label}"
                    }
                }
                // Online play leads to signing in, or to the subscription, when it must.
                button { class: "wide", "data-mode": "online", onclick: move |_| go.call(Screen::Online),
                    "{t.online.play_online}"
                }
                p { class: "muted hint", "{t.online.online_what}" }
            }
        };
    };

    let c = cube();
    let status = c.status();
    let message_text = status_text(t, status, against_velha.then_some(Player::X));
    let velha_to_move = against_velha && status == Status::Ongoing(Player::O);
    let playing = !status.is_over() && !velha_to_move;
    rsx! {
        CubeTable {
            cube: c,
            turns: turns(),
            playing,
            message: message(),
            on_act: act,
            on_refuse: refuse,
            header: rsx! {
                TopBar { title: t.game_cube, go }
                p { class: "status", role: "status", "aria-live": "polite", "data-status": "{status}", "{message_text}" }
            },
            if status.is_over() {
                div { class: "after",
                    button { class: "primary", "data-action": "another",
                        onclick: move |_| {
                            game.set(Match::new(Cube::new(level), None, 0));
                            turns.read().clear();
                            counted.set(false);
                            message.set(None);
                        },
                        "{t.another_game}"
                    }
                    button { "data-action": "stop", onclick: move |_| { setup.set(None); go.call(Screen::Home) }, "{t.stop}" }
                }
            }
        }
    }
}
