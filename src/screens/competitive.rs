//! Jogo da Velha 2.0's competitive mode (ON-V01, ON-V02, V2-R05, V2-R06): for signed-in
//! players, no subscription. The queue shows the rating difference it accepts widening while
//! the player waits; the match is played on the 81 cells with the server's 1-minute clock,
//! lost turns told; the end shows the rating before and after; and the leaderboard.

use dioxus::prelude::*;
use velha_api::{
    ClientMsg, Leaderboard, MatchGame, MatchState, QueueStatus, ReportAbout, Seat,
    accepted_difference,
};
use velha_rules::{UltCell, Ultimate, Variant};

use super::online::{LinkBanner, MatchHeader, ReportOpponent};
use super::{SignInFirst, TopBar};
use crate::app::{Screen, use_texts};
use crate::components::report::{ReportButton, reportable_by};
use crate::components::ultimate_grid::{PointsBar, UltimateGrid, sent_text};
use crate::components::warning::warning;
use crate::online::client;
use crate::online::live::{Link, Live, use_member_live};
use crate::online::live_state::Game;
use crate::online::membership::{Membership, use_membership};
use crate::online::my_data_texts::shown_name;
use crate::online::texts::{lobby_sentence, move_refusal};
use crate::platform;
use crate::request::{Request, use_request};
use crate::screens::replay::ReplayButtons;

/// The competitive mode: signed-in players play; others are asked to sign in.
#[component]
pub fn CompetitiveScreen(go: EventHandler<Screen>) -> Element {
    let texts = use_texts();
    let c = texts.competitive();
    match use_membership()() {
        Membership::Member(_) => rsx! { Competitive { go } },
        Membership::Checking => rsx! {
            TopBar { title: c.title, go }
            p { class: "muted", role: "status", "{texts.checking}" }
        },
        Membership::Guest => rsx! {
            TopBar { title: c.title, go }
            p { "{c.about}" }
            SignInFirst { says: texts.sign_in_first, back: Screen::Competitive, go }
        },
    }
}

#[component]
fn Competitive(go: EventHandler<Screen>) -> Element {
    let live = use_member_live();
    let game = live.state.read().game.clone();
    match game {
        Some(game) if game.view.game == MatchGame::V2 => rsx! { V2Match { live, go, game } },
        _ => rsx! { Queue { live, go } },
    }
}

/// The player's rating, the queue, and the leaderboard.
#[component]
fn Queue(live: Live, go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let c = t.competitive();
    let mut status = use_signal(|| None::<(QueueStatus, f64)>);
    let mut board = use_signal(|| None::<Leaderboard>);
    // Why the rating or the leaderboard could not be read: without the rating the search
    // cannot start, so the screen says so and offers to ask again.
    let mut unread = use_signal(|| None::<String>);
    let membership = use_membership();
    let request: Request = use_request();
    let mut now = use_signal(platform::now_ms);
    // Reads only what is still unread: a status read again could land after a search the
    // player started meanwhile, and show them out of the queue they are in.
    let mut load = move || {
        unread.set(None);
        spawn(async move {
            let mut failed = None;
            if status.peek().is_none() {
                match client::queue_status().await {
                    Ok(s) => status.set(Some((s, platform::now_ms()))),
                    Err(p) => failed = Some(p),
                }
            }
            if board.peek().is_none() {
                match client::leaderboard().await {
                    Ok(b) => board.set(Some(b)),
                    Err(p) => failed = failed.or(Some(p)),
                }
            }
            unread.set(failed.map(|p| lobby_sentence(t.online(), &p)));
        });
    };
    use_hook(load);
    use_future(move || async move {
        loop {
            platform::sleep_ms(500).await;
            now.set(platform::now_ms());
        }
    });
    let ask = move |join: bool| {
        request.run(async move {
            let answer = if join {
                client::queue_join().await
            } else {
                client::queue_leave()
                    .await
                    .and(client::queue_status().await)
            };
            match answer {
                Ok(s) => {
                    status.set(Some((s, platform::now_ms())));
                    None
                }
                Err(refused) => Some(lobby_sentence(t.online(), &refused)),
            }
        });
    };
    let waiting = status().filter(|(s, _)| s.queued).map(|(s, at)| {
        let waited = s.waited_ms + (now() - at).max(0.0) as u64;
        (waited / 1000, accepted_difference(waited))
    });
    let rating = status().map(|(s, _)| s.rating);
    let unread_note = unread().map(|says| {
        rsx! {
            // A second tap before the screen redraws reads no second time.
            {warning(&says, "true", Some(EventHandler::new(move |()| if unread.peek().is_some() { load() })))}
        }
    });
    let reportable = reportable_by(membership());
    rsx! {
        TopBar { title: c.title, go }
        LinkBanner { live, in_match: false }
        p { class: "hint", "{c.about}" }
        if let Some(r) = rating {
            p { class: "rating", "data-rating": "{r}", "{c.your_rating}: " strong { "{r}" } }
        }
        match waiting {
            Some((seconds, accepted)) => rsx! {
                section { class: "waiting", role: "status", "data-queued": "true",
                    p { class: "spinner", "aria-hidden": "true" }
                    p { "{c.searching}" }
                    p { class: "muted", "data-accepting": "{accepted}", "{c.accepting} ±{accepted} {c.points_apart}" }
                    p { class: "muted", "data-waited": "{seconds}", "{c.waited} {seconds} s" }
                }
                button { class: "wide", "data-action": "leave-queue", disabled: request.busy(), onclick: move |_| ask(false), "{c.cancel}" }
            },
            // Without the rating there is no search: its button would look tappable and do
            // nothing, so only "try again" shows.
            None if rating.is_none() && unread().is_some() => rsx! {},
            None => rsx! {
                button { class: "primary wide", "data-action": "join-queue", disabled: request.busy() || rating.is_none(),
                    onclick: move |_| ask(true), "{c.search}" }
            },
        }
        if let Some(says) = request.said() {
            p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
        }
        // Under what failed: the search when the rating is missing, else the leaderboard.
        if rating.is_none() {
            {unread_note.clone()}
        }
        h2 { "{c.leaderboard}" }
        match board() {
            None if unread().is_some() => rsx! {
                if rating.is_some() {
                    {unread_note}
                }
            },
            None => rsx! { p { class: "muted", "{t.online().working}" } },
            Some(b) if b.rows.is_empty() => rsx! { p { class: "muted", "data-leaderboard": "empty", "{c.nobody_yet}" } },
            Some(b) => rsx! {
                table { class: "leaderboard", "data-leaderboard": "{b.rows.len()}",
                    thead { tr { th { "#" } th { "{c.player}" } th { "{c.rating}" } th { "{c.record}" } } }
                    tbody {
                        for row in b.rows.iter().cloned() {
                            tr { key: "{row.position}-{row.name}", class: if b.me.as_ref().is_some_and(|m| m.name == row.name) { "me" } else { "" },
                                "data-row": "{row.name}",
                                td { "{row.position}" }
                                td { "{shown_name(&row.name, t.pt)}"
                                    if reportable(&row.name) {
                                        " "
                                        ReportButton { about: ReportAbout::Ranking { name: row.name.clone() },
                                            name: row.name.clone(), compact: true }
                                    }
                                }
                                td { "{row.rating}" }
                                td { "{row.wins}-{row.draws}-{row.losses}" }
                            }
                        }
                    }
                }
                if let Some(me) = b.me.filter(|m| !b.rows.iter().any(|r| r.name == m.name)) {
                    p { class: "muted", "data-me": "{me.position}", "{me.position}. {me.name} · {me.rating}" }
                }
            },
        }
    }
}

/// A live (or just finished) competitive match.
#[component]
pub fn V2Match(live: Live, go: EventHandler<Screen>, game: Game) -> Element {
    let t = use_texts();
    let o = t.online();
    let c = t.competitive();
    let view = game.view.clone();
    let seat = view.seat;
    // This device's move, shown at once, from the ply it was made at, until the server answers.
    let mut optimistic = use_signal(|| None::<(u32, Ultimate)>);
    let mut message = use_signal(|| None::<String>);
    let mut state = live.state;
    use_effect(move || {
        let refused = match &state.read().game {
            Some(g) => g.refusal.clone(),
            None => return,
        };
        if let Some(refused) = refused {
            state.with_mut(|s| {
                if let Some(g) = &mut s.game {
                    g.refusal = None;
                }
            });
            message.set(Some(move_refusal(o, t, &refused)));
            optimistic.set(None);
        }
    });
    let Ok(server_board) = Ultimate::from_state_line(Variant::V2, &view.position) else {
        return rsx! { TopBar { title: c.title, go } p { class: "warning", "{o.server_failed}" } };
    };
    // A move waits for the server's answer only at the ply it was made at.
    let pending = optimistic().filter(|(ply, _)| *ply == view.ply);
    let shown = pending.map_or(server_board, |(_, b)| b);
    let live_now = view.state == MatchState::Live;
    let up = (live.link)() == Link::Up;
    let my_turn = live_now && view.to_move == Some(seat);
    let playing = my_turn && up && pending.is_none();
    // The last change was a turn lost on the clock (V2-R05).
    let lost_turn = game
        .last_move
        .as_ref()
        .filter(|m| m.ply == view.ply && m.actions.iter().any(|a| a == "timeout"))
        .map(|m| m.by);
    let mine = view
        .ratings
        .map(|r| if seat == Seat::X { r.x } else { r.o });
    let replay_id = view.id.clone();
    let to_move_id = view.id.clone();
    let ply = view.ply;
    rsx! {
        MatchHeader { live, go, game: game.clone(), title: c.title }
        if let Some(by) = lost_turn.filter(|_| live_now) {
            div { class: "warning floating toast", role: "alert", "data-lost-turn": "{by:?}",
                p { if by == seat { "{c.you_lost_turn}" } else { "{c.they_lost_turn}" } }
                p { class: "hint", "{c.strikes}" }
            }
        }
        if live_now {
            p { class: "hint", "data-sent": "{shown.sent_board().map(|b| b + 1).unwrap_or(0)}", "{sent_text(&shown)}" }
        }
        PointsBar { board: shown }
        UltimateGrid { board: shown, enabled: playing,
            onpress: move |cell: UltCell| {
                let mut after = shown;
                if velha_rules::Position::play(&mut after, cell).is_ok() {
                    message.set(None);
                    optimistic.set(Some((ply, after)));
                    live.send(ClientMsg::Play { match_id: to_move_id.clone(), ply, actions: vec![cell.to_string()] });
                }
            }
        }
        if let Some(says) = message() {
            p { class: "warning", role: "alert", "data-refusal": "true", "{says}" }
        }
        if let Some(r) = mine {
            p { class: "rating-change", "data-rating-before": "{r.before}", "data-rating-after": "{r.after}",
                "{c.rating_now} {r.before} → " strong { "{r.after}" } " ({r.after as i64 - r.before as i64:+})"
            }
        }
        if !live_now {
            div { class: "after",
                button { class: "primary", "data-action": "play-again",
                    onclick: move |_| {
                        state.with_mut(|s| s.game = None);
                        spawn(async move {
                            let _ = client::queue_join().await;
                        });
                    },
                    "{c.again}"
                }
                button { "data-action": "competitive-home", onclick: move |_| state.with_mut(|s| s.game = None), "{c.leaderboard}" }
            }
            ReplayButtons { id: replay_id, go }
            ReportOpponent { view: view.clone() }
        }
    }
}
