//! The analysis of a finished game, above its replay's controls (ANA-01, ANA-08, ANA-09):
//! "Analisar", a progress bar while the device judges the game slice by slice, then a graph of
//! X's winning chance with the faults marked (a tap on a mark goes to that move), and what the
//! move on the board was worth.

use dioxus::prelude::*;
use velha_ai::analysis::{Analysis, Review, Verdict};
use velha_rules::Player;

use crate::analysis::texts::AnalysisTexts;
use crate::analysis::{Record, cache};
use crate::app::use_texts;
use crate::platform::after_next_frame;

/// The longest the analysis holds the page at once: the computer's slice when it plays.
const SLICE: std::time::Duration = std::time::Duration::from_millis(8);

/// Where the analysis is.
#[derive(Clone, Debug, PartialEq)]
enum Stage {
    /// Not asked for.
    Idle,
    /// Positions judged, of how many.
    Running(usize, usize),
    Done(Analysis),
    Failed,
}

/// The analysis panel of the game `record`, kept on the device as `id`'s; `step` is the
/// position on the board (0 the start, n after the n-th move) and `on_pick` goes to one;
/// `at_once` starts the analysis without waiting for "Analisar".
#[component]
pub fn AnalysisPanel(
    record: Record,
    id: String,
    step: usize,
    at_once: bool,
    on_pick: EventHandler<usize>,
) -> Element {
    let a = use_texts().analysis;
    let mut stage = use_signal({
        let id = id.clone();
        let moves = record.moves();
        move || cache::load(&id, moves).map_or(Stage::Idle, Stage::Done)
    });
    let start = use_callback({
        let record = record.clone();
        let id = id.clone();
        move |()| {
            let Some(mut running) = record.analyst() else {
                stage.set(Stage::Failed);
                return;
            };
            let id = id.clone();
            let (done, total) = running.progress();
            stage.set(Stage::Running(done, total));
            // Scoped to the panel: leaving the replay stops the analysis.
            spawn(async move {
                loop {
                    if let Some(analysis) = running.step(SLICE) {
                        cache::keep(&id, &analysis);
                        stage.set(Stage::Done(analysis));
                        return;
                    }
                    let (done, total) = running.progress();
                    if *stage.peek() != Stage::Running(done, total) {
                        stage.set(Stage::Running(done, total));
                    }
                    after_next_frame().await;
                }
            });
        }
    });
    use_hook(move || {
        if at_once && *stage.peek() == Stage::Idle {
            start.call(());
        }
    });
    let note = if record.exact() {
        a.exact_note
    } else {
        a.estimate_note
    };
    match stage() {
        Stage::Idle => rsx! {
            button { class: "wide", "data-action": "analyse", onclick: move |_| start.call(()), "{a.analyse}" }
        },
        Stage::Running(done, total) => {
            let percent = 100 * done / total.max(1);
            let says = a
                .progress
                .replace("{done}", &done.to_string())
                .replace("{total}", &total.to_string());
            rsx! {
                div { class: "analysis", "data-analysis": "running",
                    p { class: "muted", role: "status", "{a.analysing}" }
                    div { class: "analysis-bar", role: "progressbar", "aria-valuemin": "0",
                        "aria-valuemax": "{total}", "aria-valuenow": "{done}", "aria-label": "{says}",
                        // A style property, which the page's policy allows where a `style` attribute is
                        // refused (style-src 'self').
                        div { width: "{percent}%" }
                    }
                    p { class: "muted small-print", "{says}" }
                }
            }
        }
        Stage::Failed => rsx! {
            p { class: "warning", role: "alert", "{a.failed}" }
        },
        Stage::Done(analysis) => rsx! {
            div { class: "analysis", "data-analysis": "done",
                Graph { analysis: analysis.clone(), step, on_pick }
                MoveLine { analysis: analysis.clone(), step }
                if step == 0 || step + 1 == analysis.x_chances.len() {
                    Summary { analysis }
                    p { class: "muted small-print", "{a.tap_a_mark} {note}" }
                }
            }
        },
    }
}

/// The graph's drawing area, in its own units.
const WIDTH: f32 = 300.0;
const HEIGHT: f32 = 84.0;

fn verdict_class(v: Verdict) -> &'static str {
    match v {
        Verdict::Best => "best",
        Verdict::Inaccuracy => "inaccuracy",
        Verdict::Mistake => "mistake",
        Verdict::Blunder => "blunder",
    }
}

#[component]
fn Graph(analysis: Analysis, step: usize, on_pick: EventHandler<usize>) -> Element {
    let a = use_texts().analysis;
    let last = analysis.x_chances.len().saturating_sub(1).max(1) as f32;
    let x_at = |i: usize| i as f32 / last * WIDTH;
    let y_at = |chance: f32| (1.0 - chance) * HEIGHT;
    let line: String = analysis
        .x_chances
        .iter()
        .enumerate()
        .map(|(i, &c)| format!("{:.1},{:.1}", x_at(i), y_at(c)))
        .collect::<Vec<_>>()
        .join(" ");
    // X's side of the line filled, so who was better reads at a glance.
    let area = format!("0,{HEIGHT} {line} {WIDTH},{HEIGHT}");
    let marks: Vec<(usize, Verdict, f32, f32)> = analysis
        .reviews
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let r = r.as_ref()?;
            (r.verdict > Verdict::Best)
                .then(|| (i, r.verdict, x_at(i + 1), y_at(analysis.x_chances[i + 1])))
        })
        .collect();
    let now = x_at(step);
    let mark_count = marks.len();
    rsx! {
        svg { class: "analysis-graph", view_box: "-6 -6 {WIDTH + 12.0} {HEIGHT + 12.0}",
            role: "img", "aria-label": "{a.graph}", "data-marks": "{mark_count}",
            rect { x: "0", y: "0", width: "{WIDTH}", height: "{HEIGHT}", class: "graph-o" }
            polygon { points: "{area}", class: "graph-x" }
            line { x1: "0", y1: "{HEIGHT / 2.0}", x2: "{WIDTH}", y2: "{HEIGHT / 2.0}", class: "graph-even" }
            polyline { points: "{line}", class: "graph-line" }
            text { x: "4", y: "13", class: "graph-side", "O" }
            text { x: "4", y: "{HEIGHT - 4.0}", class: "graph-side", "X" }
            line { x1: "{now}", y1: "0", x2: "{now}", y2: "{HEIGHT}", class: "graph-now", "data-graph-step": "{step}" }
            for (i, verdict, x, y) in marks {
                g { key: "{i}", class: "graph-mark {verdict_class(verdict)}", "data-mark": "{i}",
                    "data-verdict": verdict_class(verdict),
                    onclick: move |_| on_pick.call(i + 1),
                    circle { cx: "{x}", cy: "{y}", r: "4.5" }
                    // A finger's worth of target around the dot.
                    circle { cx: "{x}", cy: "{y}", r: "12", class: "graph-hit" }
                }
            }
        }
    }
}

fn percent(chance: f32) -> String {
    format!("{:.0}%", chance * 100.0)
}

/// What the move that led to the position on the board was worth.
#[component]
fn MoveLine(analysis: Analysis, step: usize) -> Element {
    let a = use_texts().analysis;
    let r = use_texts().replays;
    if step == 0 {
        return rsx! {};
    }
    let Some(review) = analysis.reviews.get(step - 1) else {
        return rsx! {};
    };
    let Some(review) = review else {
        return rsx! { p { class: "analysis-move", "data-move": "{step - 1}", "{r.move_word} {step} · {a.lost_turn}" } };
    };
    let Review {
        mover,
        best,
        before,
        after,
        exact,
        verdict,
    } = review.clone();
    let chance_of = a.chance_of.replace("{player}", &mover.to_string());
    let values = match exact {
        Some((b, f)) => format!("{mover}: {} → {}", a.exact(b), a.exact(f)),
        None => format!("{chance_of}: {} → {}", percent(before), percent(after)),
    };
    let best_text = best.join(" ");
    rsx! {
        div { class: "analysis-move", "data-move": "{step - 1}", "data-verdict": verdict_class(verdict),
            p {
                strong { "{r.move_word} {step} · {mover}: " }
                span { class: "verdict {verdict_class(verdict)}", "{a.verdict(verdict)}" }
                if verdict > Verdict::Best && !best.is_empty() {
                    " · {a.best}: "
                    strong { "data-best": "{best_text}", "{best_text}" }
                }
            }
            p { class: "muted small-print", "{values}" }
        }
    }
}

/// Each player's faults, and when the game was decided.
#[component]
fn Summary(analysis: Analysis) -> Element {
    let a: &AnalysisTexts = use_texts().analysis;
    let count = |p: Player, v: Verdict| {
        analysis
            .reviews
            .iter()
            .flatten()
            .filter(|r| r.mover == p && r.verdict == v)
            .count()
    };
    let faults = [Verdict::Inaccuracy, Verdict::Mistake, Verdict::Blunder];
    let decided = analysis
        .decided
        .map(|d| a.decided.replace("{n}", &(d + 1).to_string()));
    rsx! {
        table { class: "analysis-summary",
            thead {
                tr {
                    th {}
                    for (i, title) in a.faults.iter().enumerate() {
                        th { key: "{i}", class: "verdict {verdict_class(faults[i])}", "{title}" }
                    }
                }
            }
            tbody {
                for p in Player::BOTH {
                    tr { key: "{p}", "data-summary": "{p}",
                        th { "{p}" }
                        for v in faults {
                            td { key: "{v:?}", "{count(p, v)}" }
                        }
                    }
                }
            }
        }
        if let Some(decided) = decided {
            p { class: "analysis-decided", "data-decided": "{analysis.decided.unwrap_or(0) + 1}", "{decided}" }
        }
    }
}
