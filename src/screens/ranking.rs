//! The world and national rankings (ON-K01 … ON-K04): Mundial / Nacional × nível 1 / 2, the
//! player's own place pinned above the table, pages loading as the table scrolls.

use dioxus::prelude::*;
use velha_api::{MyPosition, RankingRow, ReportAbout, Scope};

use super::{SignInFirst, TopBar};
use crate::app::{Screen, use_texts};
use crate::components::report::{ReportButton, reportable_by};
use crate::components::scope_tabs::ScopeLevelTabs;
use crate::components::warning::warning;
use crate::online::client;
use crate::online::membership::{Membership, use_membership};
use crate::online::my_data_texts::shown_name;
use crate::online::texts::sentence;

/// How close to the table's end (px) the next page is asked for.
const NEAR_END_PX: f64 = 200.0;

/// The rankings' gate: the server reads them only to a signed-in player, so a guest is asked
/// to sign in, and nothing is asked of the server meanwhile.
#[component]
pub fn RankingScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let o = t.online();
    match use_membership()() {
        Membership::Member(_) => rsx! { Ranking { go } },
        Membership::Checking => rsx! {
            TopBar { title: o.ranking, go }
            p { class: "muted", role: "status", "{t.checking}" }
        },
        Membership::Guest => rsx! {
            TopBar { title: o.ranking, go }
            SignInFirst { says: o.sign_in_for_ranking, back: Screen::Ranking, go }
        },
    }
}

/// The rankings, for a signed-in player.
#[component]
fn Ranking(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let o = t.online();
    let membership = use_membership();
    let scope = use_signal(|| Scope::Mundial);
    let level = use_signal(|| 1u8);
    let mut rows = use_signal(Vec::<RankingRow>::new);
    let mut next = use_signal(|| None::<String>);
    let mut loading = use_signal(|| false);
    let mut problem = use_signal(|| None::<String>);
    // None until read: a read that failed must not say "no matches count yet".
    let mut mine = use_signal(|| None::<Vec<MyPosition>>);
    // Which ranking the rows are of; a page that arrives for another is dropped.
    let mut showing = use_signal(|| (Scope::Mundial, 1u8));

    // Reads with peek: the effect below that calls this must follow only scope and level.
    let mut load = move |first: bool| {
        if !first && *loading.peek() {
            return;
        }
        let (s, l) = (*scope.peek(), *level.peek());
        let cursor = if first { None } else { next.peek().clone() };
        if !first && cursor.is_none() {
            return;
        }
        if first {
            rows.set(Vec::new());
            next.set(None);
            showing.set((s, l));
        }
        loading.set(true);
        problem.set(None);
        spawn(async move {
            let page = client::ranking_page(s, l, cursor.as_deref()).await;
            if *showing.peek() != (s, l) {
                return;
            }
            loading.set(false);
            match page {
                Ok(page) => {
                    rows.write().extend(page.rows);
                    next.set(page.next);
                }
                Err(refused) => problem.set(Some(sentence(o, &refused))),
            }
        });
    };
    use_effect(move || {
        let _ = (scope(), level());
        load(true);
    });
    let read_mine = move || {
        spawn(async move {
            if let Ok(positions) = client::my_rankings().await {
                mine.set(Some(positions));
            }
        });
    };
    use_hook(read_mine);
    let me = mine()
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.scope == scope() && p.level == level())
        .and_then(|p| p.row);
    let my_name = me.as_ref().map(|r| r.name.clone());
    let reportable = reportable_by(membership());
    rsx! {
        TopBar { title: o.ranking, go }
        ScopeLevelTabs { scope, level }
        if mine().is_some() {
            section { class: "my-place", "data-mine": if me.is_some() { "ranked" } else { "unranked" },
                h2 { "{o.your_place}" }
                match &me {
                    Some(row) => rsx! { RowLine { row: row.clone(), mine: true, reportable: false } },
                    None => rsx! { p { class: "muted", "{o.not_ranked}" } },
                }
            }
        }
        div { class: "ranking", role: "list", "data-ranking": "{scope().as_str()}-{level()}",
            onscroll: move |e| {
                let near_end = e.scroll_top() + e.client_height() as f64 + NEAR_END_PX >= e.scroll_height() as f64;
                if near_end {
                    load(false);
                }
            },
            // Inside the scrolling box, so a scroll bar narrows the header as it does the rows.
            div { class: "ranking-head", "aria-hidden": "true",
                span { "#" } span { "{o.name}" } span { "{o.points_short}" } span { "{o.wins_short}" } span { "{o.losses_short}" }
            }
            for row in rows() {
                RowLine { key: "{row.rank}", mine: Some(&row.name) == my_name.as_ref(),
                    reportable: reportable(&row.name), row }
            }
            if rows().is_empty() && !loading() && problem().is_none() {
                p { class: "muted", "data-ranking-empty": "true", "{o.nobody_ranked}" }
            }
        }
        if loading() {
            p { class: "muted", role: "status", "{o.working}" }
        }
        if let Some(says) = problem() {
            // A later page that failed is asked again by "more"; a first one by this.
            {warning(&says, "true",
                (rows().is_empty() && !loading()).then(|| EventHandler::new(move |()| {
                    // A second tap before the screen redraws would add the page twice.
                    if !*loading.peek() {
                        load(true);
                        if mine.peek().is_none() {
                            read_mine();
                        }
                    }
                })))}
        }
        if next().is_some() && !loading() {
            button { class: "wide", "data-action": "more", onclick: move |_| load(false), "{o.more}" }
        }
    }
}

/// One player's line: place, name and country (and "Denunciar" when `reportable`), points,
/// wins, losses.
#[component]
fn RowLine(row: RankingRow, mine: bool, reportable: bool) -> Element {
    let pt = use_texts().pt;
    rsx! {
        div { class: if mine { "ranking-row me" } else { "ranking-row" }, role: "listitem",
            "data-rank": "{row.rank}", "data-name": "{row.name}",
            span { class: "rank", "{row.rank}" }
            span { class: "who",
                span { class: "name", "{shown_name(&row.name, pt)}" }
                span { class: "country", "{row.country}" }
                if reportable {
                    ReportButton { key: "{row.name}", about: ReportAbout::Ranking { name: row.name.clone() },
                        name: row.name.clone(), compact: true }
                }
            }
            span { class: "points", "{row.points}" }
            span { "{row.wins}" }
            span { "{row.losses}" }
        }
    }
}
