//! Online play (ON-M01 … ON-M05): the lobby kept current by the live connection, waiting for
//! an opponent, and the live match on the same cube table as a game on the device, with the
//! server's clock, the opponent's turns animated and the connection's state in sight.

use std::rc::Rc;

use dioxus::prelude::*;
use velha_api::{ClientMsg, MatchGame, MatchState, MatchView, ReportAbout, Scope, Seat};
use velha_rules::{Cube, CubeAction, Position};

use super::{SignInFirst, TopBar};
use crate::app::{LeaveGuard, Screen, use_texts};
use crate::components::cube_stage::TurnQueue;
use crate::components::cube_table::{CubeTable, refusal};
use crate::components::report::ReportButton;
use crate::components::scope_tabs::ScopeLevelTabs;
use crate::lazy::Part;
use crate::online::client;
use crate::online::live::{Link, Live, use_member_live};
use crate::online::live_state::Game;
use crate::online::membership::{Membership, use_membership};
use crate::online::texts::{lobby_sentence, match_ending, move_refusal};
use crate::platform;
use crate::request::{Request, use_request};
use crate::screens::competitive::V2Match;
use crate::screens::replay::ReplayButtons;

/// How long a player whose connection dropped has to come back (ON-M04).
const GRACE_S: f64 = 20.0;

/// `m:ss`.
fn clock(ms: f64) -> String {
    let s = (ms.max(0.0) / 1000.0).ceil() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// A mini-ranking group whose matches are being played (ON-G03 … ON-G05).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupPlay {
    /// Its id.
    pub id: String,
    /// Its name, the lobby's title.
    pub name: String,
    /// Whether the Velha plays in it.
    pub with_velha: bool,
}

/// Online play's gate: subscribers play; a guest signs in first, anyone else subscribes first.
/// It is the app's module's (src/lazy.rs): it opens at once, and a kept session waits only for
/// the lobby's module.
#[component]
pub fn OnlineScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let membership = use_membership();
    // The live connection opens while the lobby's module downloads and the kept session is
    // checked: once they are here the lobby needs only its greeting.
    use_hook(move || {
        if lobby_next(&membership.peek()) {
            platform::open_ahead(velha_api::LIVE_PATH);
        }
    });
    // A connection opened ahead and not taken is closed as soon as no lobby will take it: the
    // player left, or the session turned out to be a guest's or a non-subscriber's. Taken by
    // another screen later, it would speak for the session it was opened with.
    use_effect(move || {
        if !lobby_next(&membership.read()) {
            platform::close_ahead();
        }
    });
    use_drop(platform::close_ahead);
    // A signed-in player without a subscription goes on to subscribing (ON-A03).
    use_effect(move || {
        if matches!(&*membership.read(), Membership::Member(account) if !account.subscriber) {
            go.call(Screen::Subscription);
        }
    });
    match membership() {
        Membership::Member(account) if account.subscriber => {
            rsx! { crate::lazy::Online { part: Part::Lobby, go } }
        }
        Membership::Member(_) => rsx! { TopBar { title: t.online_play, go } },
        Membership::Checking => rsx! {
            TopBar { title: t.online_play, go }
            p { class: "muted", role: "status", "{t.checking}" }
        },
        Membership::Guest => rsx! {
            TopBar { title: t.online_play, go }
            SignInFirst { says: t.sign_in_first, back: Screen::Online, go }
        },
    }
}

/// Whether online play's gate may show the lobby next: a subscriber's, or a kept session's
/// still being checked.
fn lobby_next(membership: &Membership) -> bool {
    match membership {
        Membership::Checking => true,
        Membership::Member(account) => account.subscriber,
        Membership::Guest => false,
    }
}

/// The lobby (of everyone, or of a group) and the player's match, over the live connection.
#[component]
pub fn Online(go: EventHandler<Screen>, group: Option<GroupPlay>) -> Element {
    // Inside the mini ranking its connection serves; whether there is one never changes for
    // this component, so the hooks run in the same order every time.
    let live = match try_use_context::<Live>() {
        Some(live) => live,
        None => use_member_live(),
    };
    // A finished match stays on screen until the player leaves it; coming back opens the
    // lobby, as a connection of its own would.
    use_hook(move || {
        let mut state = live.state;
        if state
            .peek()
            .game
            .as_ref()
            .is_some_and(|g| g.view.state == MatchState::Over)
        {
            state.with_mut(|s| s.game = None);
        }
    });
    let game = live.state.read().game.clone();
    match game {
        // The match's screens are a module of their own (src/lazy.rs), so the lobby does not
        // wait for them.
        Some(game) => rsx! { crate::lazy::MatchPart { live, go, game } },
        None => rsx! { Lobby { live, go, group } },
    }
}

/// The player's match: waiting for an opponent, or live. Part of the match's module
/// (src/lazy.rs).
pub fn draw_match(live: Live, go: EventHandler<Screen>, game: Game) -> Element {
    match game {
        // A 2.0 competitive match shows as such wherever the player opens it.
        game if game.view.game == MatchGame::V2 => rsx! { V2Match { live, go, game } },
        game if game.view.state == MatchState::Open => rsx! { Waiting { live, go, game } },
        game => rsx! { LiveMatch { live, go, game } },
    }
}

/// The connection's state when it is not simply up.
#[component]
pub fn LinkBanner(live: Live, in_match: bool) -> Element {
    let o = use_texts().online();
    let mut now = use_signal(platform::now_ms);
    use_future(move || async move {
        loop {
            platform::sleep_ms(500).await;
            now.set(platform::now_ms());
        }
    });
    match (live.link)() {
        Link::Up | Link::SignedOut => rsx! {},
        Link::Connecting => {
            rsx! { p { class: "banner", role: "status", "data-link": "connecting", "{o.connecting}" } }
        }
        Link::Down { since, retry_at } => {
            let retry = ((retry_at - now()) / 1000.0).ceil().max(0.0);
            let left = (GRACE_S - (now() - since) / 1000.0).ceil().max(0.0);
            rsx! {
                div { class: "banner warning", role: "alert", "data-link": "down",
                    p { {(o.reconnecting_in)(retry as u64)} }
                    if in_match {
                        p { "data-grace": "{left}", {(o.come_back_within)(left as u64)} }
                    }
                }
            }
        }
    }
}

const LOBBY_KEY: &str = "cubo-da-velha.lobby";

/// The lobby's scope and level as the player left them (Mundial, level 1 the first time).
fn remembered_lobby() -> (Scope, u8) {
    let kept = platform::load(LOBBY_KEY).unwrap_or_default();
    let (scope, level) = kept.split_once(',').unwrap_or(("", ""));
    (
        Scope::from_str_opt(scope).unwrap_or(Scope::Mundial),
        level
            .parse()
            .ok()
            .filter(|l| (1..=2).contains(l))
            .unwrap_or(1),
    )
}

fn remember_lobby(scope: Scope, level: u8) {
    platform::save(LOBBY_KEY, &format!("{},{level}", scope.as_str()));
}

#[component]
fn Lobby(live: Live, go: EventHandler<Screen>, group: Option<GroupPlay>) -> Element {
    let t = use_texts();
    let o = t.online();
    // The lobby opens on the scope and level of last time, a match in between or not.
    let scope = use_signal(|| remembered_lobby().0);
    let level = use_signal(|| remembered_lobby().1);
    // Making, joining or playing the Velha: one request at a time.
    let request: Request = use_request();
    let group_id = group.as_ref().map(|g| g.id.clone());
    let watched = group_id.clone();
    use_effect(move || {
        remember_lobby(scope(), level());
        live.send(ClientMsg::WatchLobby {
            scope: scope(),
            level: level(),
            group: watched.clone(),
        })
    });
    let mut state = live.state;
    let in_group = group_id.clone();
    let create = move |_: Event<MouseData>| {
        let in_group = in_group.clone();
        request.run(async move {
            let (s, l) = (scope(), level());
            let answer = client::create_match(s, l, in_group).await;
            match answer {
                Ok(open) => {
                    let level = if l == 2 {
                        velha_rules::Level::Two
                    } else {
                        velha_rules::Level::One
                    };
                    let position = Cube::new(level).to_string();
                    state.with_mut(|st| st.created(&open, position, platform::now_ms()));
                    None
                }
                Err(refused) => Some(lobby_sentence(o, &refused)),
            }
        });
    };
    let join = move |id: String| {
        request.run(async move {
            let answer = client::join_match(&id).await;
            match answer {
                // The connection says `started` too; whichever comes first shows the match.
                Ok(view) => {
                    state.with_mut(|st| {
                        st.apply(velha_api::ServerMsg::Started { view }, platform::now_ms())
                    });
                    None
                }
                Err(refused) => Some(lobby_sentence(o, &refused)),
            }
        });
    };
    // ON-G05: the match starts at once; the connection says so too.
    let velha_group = group
        .as_ref()
        .filter(|g| g.with_velha)
        .map(|g| g.id.clone());
    let play_velha = move |_: Event<MouseData>| {
        let Some(id) = velha_group.clone() else {
            return;
        };
        request.run(async move {
            let answer = client::play_velha(&id, level()).await;
            match answer {
                Ok(view) => {
                    state.with_mut(|st| {
                        st.apply(velha_api::ServerMsg::Started { view }, platform::now_ms())
                    });
                    None
                }
                Err(refused) => Some(lobby_sentence(o, &refused)),
            }
        });
    };
    let list = live
        .state
        .read()
        .lobby
        .clone()
        .filter(|l| l.is(scope(), level(), group_id.as_deref()));
    let me = match use_membership()() {
        Membership::Member(account) => account.name,
        _ => String::new(),
    };
    let title = group
        .as_ref()
        .map_or(t.online_play.to_owned(), |g| g.name.clone());
    let with_velha = group.as_ref().is_some_and(|g| g.with_velha);
    rsx! {
        TopBar { title, go }
        LinkBanner { live, in_match: false }
        ScopeLevelTabs { scope, level, with_scope: group.is_none() }
        button { class: "primary wide", "data-action": "create-match", disabled: request.busy(), onclick: create,
            if request.busy() { "{o.working}" } else { "{o.create_match}" }
        }
        if with_velha {
            button { class: "wide", "data-action": "play-velha", disabled: request.busy(), onclick: play_velha,
                "{o.play_velha}"
            }
        }
        if let Some(says) = request.said() {
            p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
        }
        match list {
            None => rsx! { p { class: "muted", role: "status", "{o.connecting}" } },
            Some(list) => {
                // (key, id to join, creator, country): each closure owns its copy.
                let others: Vec<_> = list
                    .matches
                    .into_iter()
                    .filter(|m| m.creator != me)
                    .map(|m| (m.id.clone(), m.id, m.creator, m.country))
                    .collect();
                if others.is_empty() {
                    rsx! { p { class: "muted", "data-lobby": "empty", "{o.no_open_matches}" } }
                } else {
                    rsx! {
                        ul { class: "lobby", "data-lobby": "list",
                            for (key, id, creator, country) in others {
                                li { key: "{key}", "data-open": "{key}",
                                    span { class: "creator", "{creator}" }
                                    span { class: "country", "{country}" }
                                    button { class: "primary small", "data-join": "{creator}", disabled: request.busy(),
                                        onclick: move |_| join(id.clone()), "{o.join}" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[component]
fn Waiting(live: Live, go: EventHandler<Screen>, game: Game) -> Element {
    let t = use_texts();
    let o = t.online();
    let request: Request = use_request();
    let mut state = live.state;
    let id = game.view.id.clone();
    let shown_id = id.clone();
    rsx! {
        TopBar { title: t.online_play, go }
        LinkBanner { live, in_match: false }
        section { class: "waiting", role: "status", "data-waiting": "{shown_id}",
            p { class: "spinner", "aria-hidden": "true" }
            p { "{o.waiting}" }
        }
        if let Some(says) = request.said() {
            p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
        }
        button { class: "wide", "data-action": "cancel-match", disabled: request.busy(),
            onclick: move |_| {
                let id = id.clone();
                request.run(async move {
                    match client::cancel_match(&id).await {
                        Ok(()) => {
                            state.with_mut(|s| s.game = None);
                            None
                        }
                        // Taken meanwhile: the connection brings the match.
                        Err(refused) => Some(lobby_sentence(o, &refused)),
                    }
                });
            },
            if request.busy() { "{o.working}" } else { "{o.cancel}" }
        }
    }
}

/// The name of the player's opponent in `view`.
fn opponent(view: &MatchView) -> String {
    match view.seat {
        Seat::X => view.o.clone().unwrap_or_default(),
        Seat::O => view.x.clone(),
    }
}

/// "Denunciar" the opponent once the match is over; the server's Velha is no one to report.
#[component]
pub fn ReportOpponent(view: MatchView) -> Element {
    if view.state != MatchState::Over || view.velha {
        return rsx! {};
    }
    rsx! {
        ReportButton { about: ReportAbout::Match { id: view.id.clone() }, name: opponent(&view) }
    }
}

/// The top of a live (or just finished) match's screen, whatever its game: leave (asked
/// first) or back, the title, the connection, the players, whose turn it is or how it ended,
/// the move clock, and the opponent away with the time left to come back (ON-M04).
#[component]
pub fn MatchHeader(
    live: Live,
    go: EventHandler<Screen>,
    game: Game,
    title: &'static str,
) -> Element {
    let t = use_texts();
    let o = t.online();
    let view = &game.view;
    let seat = view.seat;
    // The back button asks the same question as the leave button while the match is live.
    let LeaveGuard {
        mut armed,
        asked: mut leaving,
    } = use_context::<LeaveGuard>();
    let live_now = view.state == MatchState::Live;
    let mut status_line = use_signal(|| None::<Rc<MountedData>>);
    let mut was_live = use_hook(|| CopyValue::new(false));
    use_effect(use_reactive((&live_now,), move |(live_now,)| {
        armed.set(live_now);
        if !live_now {
            leaving.set(false);
        }
        // A last move made far down the page (the cube's buttons) leaves this line out of
        // sight: how the match ended is brought into sight as it ends, its scroll-margin
        // (style.css) keeping it off the screen's edge.
        if was_live.replace(live_now)
            && !live_now
            && let Some(line) = status_line.peek().clone()
        {
            spawn(async move {
                let _ = line
                    .scroll_to_with_options(ScrollToOptions {
                        behavior: ScrollBehavior::Instant,
                        vertical: ScrollLogicalPosition::Nearest,
                        horizontal: ScrollLogicalPosition::Nearest,
                    })
                    .await;
            });
        }
    }));
    use_drop(move || {
        armed.set(false);
        leaving.set(false);
    });
    let mut now = use_signal(platform::now_ms);
    use_future(move || async move {
        loop {
            platform::sleep_ms(250).await;
            now.set(platform::now_ms());
        }
    });
    let my_turn = live_now && view.to_move == Some(seat);
    let opponent = opponent(view);
    let left = view.clock_ms.map(|ms| ms as f64 - (now() - game.read_at));
    let (status_key, status_text) = match (view.state, view.ending) {
        (MatchState::Over, Some(ending)) => match ending.winner {
            None => ("draw", o.drawn.to_owned()),
            Some(w) => {
                let won = w == seat;
                // Against the server's Velha (ON-G05) the sentence names her with her article.
                let who = if view.velha {
                    o.the_velha.to_owned()
                } else {
                    opponent.clone()
                };
                let said = match_ending(o, view.game, ending.how, won, &who);
                (if won { "won" } else { "lost" }, said)
            }
        },
        _ if my_turn => ("your-turn", o.your_turn.to_owned()),
        _ => ("their-turn", (o.turn_of_name)(&opponent)),
    };
    let away: Vec<f64> = view
        .away
        .iter()
        .filter(|a| a.seat != seat)
        .map(|a| {
            ((a.grace_ms as f64 - (now() - game.away_read_at)) / 1000.0)
                .ceil()
                .max(0.0)
        })
        .collect();
    let match_id = view.id.clone();
    rsx! {
        nav { class: "top",
            if live_now {
                button { "data-action": "leave", "aria-label": o.leave_match, onclick: move |_| leaving.set(true), "← {o.leave}" }
            } else {
                button { "data-action": "back", onclick: move |_| go.call(Screen::Home), "← {t.back}" }
            }
            h1 { "{title}" }
        }
        if leaving() {
            div { class: "confirm floating", role: "alertdialog", "aria-label": o.leave_confirm,
                p { "{o.leave_confirm}" }
                button { "data-action": "confirm-leave",
                    onclick: move |_| {
                        live.send(ClientMsg::Leave { match_id: match_id.clone() });
                        leaving.set(false);
                    },
                    "{t.yes}"
                }
                button { onclick: move |_| leaving.set(false), "{t.no}" }
            }
        }
        LinkBanner { live, in_match: live_now }
        p { class: "players",
            span { "data-player": "X", "X · {view.x}" }
            " × "
            span { "data-player": "O", "O · {view.o.clone().unwrap_or_default()}" }
        }
        p { class: "status", role: "status", "aria-live": "polite", "data-status": status_key,
            onmounted: move |e: MountedEvent| status_line.set(Some(e.data())),
            "{status_text}"
        }
        if view.scored == Some(false) {
            p { class: "muted", "data-scored": "false", "{o.not_scored}" }
        }
        if let (Some(ms), true) = (left, live_now) {
            p { class: if ms < 10_000.0 { "match-clock low" } else { "match-clock" }, "data-clock": "{clock(ms)}",
                "{clock(ms)}"
            }
        }
        for s in away {
            p { class: "banner", role: "status", "data-away": "{s}", "{(o.away_for)(&opponent, s)}" }
        }
    }
}

#[component]
fn LiveMatch(live: Live, go: EventHandler<Screen>, game: Game) -> Element {
    let t = use_texts();
    let o = t.online();
    let view = game.view.clone();
    let seat = view.seat;
    let turns = use_signal(TurnQueue::default);
    // This device's move, shown at once, from the ply it was made at, until the server answers.
    let mut optimistic = use_signal(|| None::<(u32, Cube)>);
    let mut message = use_signal(|| None::<String>);
    let mut animated = use_signal(|| view.ply);
    // The opponent's turns are animated from the position before them; the server's answer
    // to this device's move replaces what was shown, or its refusal takes it back.
    let mut state = live.state;
    use_effect(move || {
        let (last_move, refused, my_seat) = match &state.read().game {
            Some(game) => (game.last_move.clone(), game.refusal.clone(), game.view.seat),
            None => return,
        };
        if let Some(m) = last_move
            && m.ply > *animated.peek()
        {
            if m.by != my_seat
                && let Ok(mut cube) = m.before.parse::<Cube>()
            {
                for action in m
                    .actions
                    .iter()
                    .filter_map(|a| a.parse::<CubeAction>().ok())
                {
                    let before = cube;
                    if cube.play(action).is_err() {
                        break;
                    }
                    if let CubeAction::Turn(turn) = action {
                        turns.read().push(before, turn);
                    }
                }
            }
            animated.set(m.ply);
            optimistic.set(None);
        }
        if let Some(refused) = refused {
            // Shown once: the refusal is taken out of the state as it is shown.
            state.with_mut(|s| {
                if let Some(game) = &mut s.game {
                    game.refusal = None;
                }
            });
            message.set(Some(move_refusal(o, t, &refused)));
            optimistic.set(None);
        }
    });

    let Ok(server_cube) = view.position.parse::<Cube>() else {
        return rsx! { TopBar { title: t.game_cube, go } p { class: "warning", "{o.server_failed}" } };
    };
    let shown = optimistic()
        .filter(|(ply, _)| *ply == view.ply)
        .map_or(server_cube, |(_, cube)| cube);
    let live_now = view.state == MatchState::Live;
    let up = (live.link)() == Link::Up;
    let my_turn = live_now && view.to_move == Some(seat);
    let playing = my_turn && up && optimistic().is_none();
    let replay_id = view.id.clone();
    let ended = view.clone();
    let header = rsx! {
        MatchHeader { live, go, game: game.clone(), title: t.game_cube }
    };
    rsx! {
        CubeTable {
            cube: shown,
            turns: turns(),
            playing,
            message: message(),
            on_act: move |action: CubeAction| {
                let before = shown;
                let mut after = before;
                match after.play(action) {
                    Err(reason) => {
                        message.set(Some(refusal(t, action, reason)));
                        platform::vibrate(platform::BUZZ_REFUSED);
                    }
                    Ok(_) => {
                        if let CubeAction::Turn(turn) = action {
                            turns.read().push(before, turn);
                        }
                        message.set(None);
                        optimistic.set(Some((view.ply, after)));
                        live.send(ClientMsg::Play {
                            match_id: view.id.clone(),
                            ply: view.ply,
                            actions: vec![action.to_string()],
                        });
                    }
                }
            },
            on_refuse: move |(action, reason)| {
                message.set(Some(refusal(t, action, reason)));
                platform::vibrate(platform::BUZZ_REFUSED);
            },
            header,
            if !live_now {
                div { class: "after",
                    button { class: "primary", "data-action": "lobby",
                        onclick: move |_| state.with_mut(|s| s.game = None),
                        "{o.back_to_lobby}"
                    }
                }
                ReplayButtons { id: replay_id, go }
                ReportOpponent { view: ended }
            }
        }
    }
}
