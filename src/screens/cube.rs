//! Cubo da Velha: level 1 or 2, against the Velha or two people on one device. The cube
//! canvas takes taps and drags; side 1's cells and every turn are also buttons, for the
//! keyboard and screen readers.

use dioxus::core::Task;
use dioxus::prelude::*;
use velha_ai::Velha;
use velha_rules::{CubeAction, CubeIllegal, Level, Player, Position};

use crate::analysis::Record;
use crate::app::{Screen, use_texts};
use crate::components::cube_stage::TurnQueue;
use crate::components::cube_table::{CubeTable, refusal};
use crate::components::review::{ReviewPanel, WhereWrong, lost, use_review};
use crate::components::stop_button::StopButton;
use crate::local::cube::{CubeSession, KEPT, Played};
use crate::online::membership::{Membership, use_membership};
use crate::platform::{self, VelhaScore};
use crate::screens::{TopBar, status_text, use_kept};
use crate::thinking::use_thinker;

/// The cube game screen.
#[component]
pub fn CubeScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let mut session = use_kept(
        KEPT,
        |text| crate::lazy::kept_door().and_then(|door| (door.cube)(text)),
        CubeSession::default,
        CubeSession::kept,
    );
    let review = use_review();
    let velha = use_thinker(Velha::new);
    // The Velha's thinking, dropped when a new game starts (leaving the screen drops it too).
    let mut thinking = use_hook(|| CopyValue::new(None::<Task>));
    let turns = use_signal(TurnQueue::default);

    // What a move leaves besides the cube: its turn animated (CUBE-V04, V05), the end buzzed.
    let show = move |played: Played| {
        if let Some((before, turn)) = played.turned {
            turns.read().push(before, turn);
        }
        if played.ended {
            platform::vibrate(platform::BUZZ_GAME_OVER);
        }
    };
    let refuse = move |(action, reason): (CubeAction, CubeIllegal)| {
        session.with_mut(|s| s.refuse(action, reason));
        platform::vibrate(platform::BUZZ_REFUSED);
    };
    // "Você × Velha" counts each game against the Velha once, when it is won (ON-K05).
    let mut count_result = move || {
        if let Some(winner) = session.with_mut(CubeSession::velha_result) {
            let mut score = VelhaScore::load();
            if winner == Player::X {
                score.wins += 1
            } else {
                score.losses += 1
            }
            score.save();
        }
    };
    // The Velha plays O: a free turn keeps its turn, so it may act twice.
    let velha_turn = use_callback(move |()| {
        if !session.peek().velha_to_move() {
            return;
        }
        let turn = spawn(async move {
            while session.peek().velha_to_move() {
                let decision = {
                    let s = session.peek();
                    velha.decide(s.earlier(), &s.cube(), Velha::PLAY_LIMITS)
                };
                let Some(action) = decision.await else {
                    break;
                };
                match session.with_mut(|s| s.velha_plays(action)) {
                    Ok(played) => show(played),
                    Err(_) => break,
                }
            }
            count_result();
            thinking.set(None);
        });
        thinking.set(Some(turn));
    });
    let act = move |action: CubeAction| {
        let Ok(played) = session.with_mut(|s| s.act(action)) else {
            platform::vibrate(platform::BUZZ_REFUSED);
            return;
        };
        show(played);
        count_result();
        velha_turn.call(());
    };
    // A game kept on the device may be waiting for the Velha's move.
    use_hook(move || velha_turn.call(()));
    // Every game chosen here draws the cube, online play's live match too, so its painter is
    // asked for while the player chooses; but a signed-in player's online play is the lobby's
    // and the match's modules first (they are on their way already: app.rs), which the painter
    // would share the network with.
    let membership = use_membership();
    use_hook(move || {
        spawn(async move {
            if *membership.peek() != Membership::Guest {
                crate::lazy::load_lobby().await;
                crate::lazy::load_match().await;
            }
            platform::fetch_painter();
        })
    });

    let s = session.read();
    let Some((_, against_velha)) = s.setup() else {
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
                            session.with_mut(|s| s.choose(lvl, vs));
                        },
                        "{label}"
                    }
                }
                // Online play leads to signing in, or to the subscription, when it must.
                button { class: "wide", "data-mode": "online", onclick: move |_| go.call(Screen::Online),
                    "{t.play_online}"
                }
                p { class: "muted hint", "{t.online_what}" }
            }
        };
    };

    let c = s.cube();
    let message = s
        .refused()
        .map(|(action, reason)| refusal(t, action, reason));
    let status = c.status();
    let message_text = status_text(t, status, against_velha.then_some(Player::X));
    let playing = !status.is_over() && !s.velha_to_move();
    rsx! {
        CubeTable {
            cube: review.shown(Record::cube).unwrap_or(c),
            turns: turns(),
            playing: playing && !review.is_open(),
            message,
            on_act: act,
            on_refuse: refuse,
            header: rsx! {
                TopBar { title: t.game_cube, go }
                p { class: "status", role: "status", "aria-live": "polite", "data-status": "{status}", "{message_text}" }
            },
            if status.is_over() {
                ReviewPanel { review }
            }
            div { class: "after",
                if status.is_over() {
                    button { class: "primary", "data-action": "another",
                        onclick: move |_| {
                            review.close();
                            session.with_mut(CubeSession::another_game);
                            turns.read().clear();
                        },
                        "{t.another_game}"
                    }
                }
                // Shown mid-game too: leaving keeps the game, so this is the only way to end it.
                StopButton { mid_game: s.mid_game(),
                    onstop: move |()| {
                        if let Some(task) = thinking.take() {
                            task.cancel();
                        }
                        session.with_mut(CubeSession::stop);
                        go.call(Screen::Home)
                    },
                }
            }
            if status.is_over() {
                WhereWrong { review, can_open: against_velha && lost(status, Player::X),
                    onopen: move |_| review.open(&session.peek().positions(), Record::Cube) }
            }
        }
    }
}
