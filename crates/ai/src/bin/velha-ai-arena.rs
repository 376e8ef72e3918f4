//! The Velha's strength, measured by games against herself with work budgets (search nodes
//! per decision), so every figure is the same on any machine for the same seed; only the
//! time it takes depends on the machine.
//!
//! ```text
//! cargo run --release -p velha-ai --bin velha-ai-arena -- COMMAND [--games N] [--threads N]
//! ```
//!
//! - `ladder`: each budget against four times it, from her minimum (the two turns she always
//!   searches) to beyond the app's budget: score of the larger, Elo and its 95% interval.
//! - `repetition`: how often two Velhas of the same budget reach the 400-action cap, with and
//!   without the game's positions carried into her search.
//! - `tuned`: the tuned weights against the hand-set ones at equal budgets.
//! - `tune [--iterations N] [--from-tuned]`: SPSA over the evaluation's weights by self-play,
//!   from the hand-set weights (or the tuned ones); prints the weights to put in
//!   `Weights::TUNED`.

use std::time::Instant;

use velha_ai::arena::{Fresh, MatchScore, OPENING, play_match_fresh};
use velha_ai::{Limits, Opponent, Rng, Velha, Weights};
use velha_rules::{Cube, CubeAction, Level};

/// The cap of every game: past it the game counts as unfinished (half a point each).
const CAP: usize = 400;

/// Budgets of the ladder, in search nodes per decision. The app gives her 250 ms per action:
/// about 2.5 M nodes on a desktop core, around 1 M in a phone's browser.
const LADDER: [u64; 6] = [1_000, 4_000, 16_000, 64_000, 256_000, 1_024_000];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |name: &str, default: u64| -> u64 {
        match args.iter().position(|a| a == name) {
            Some(i) => match args.get(i + 1).and_then(|n| n.parse::<u64>().ok()) {
                Some(n) if n > 0 => n,
                _ => {
                    eprintln!("{name} needs a positive whole number");
                    std::process::exit(2);
                }
            },
            None => default,
        }
    };
    let games = number("--games", 100) as u32;
    let threads = number(
        "--threads",
        std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
    ) as u32;
    let levels: Vec<Level> = match number("--level", 0) {
        0 => vec![Level::One, Level::Two],
        n => vec![Level::from_number(n as u8).unwrap_or_else(|| {
            eprintln!("--level is 1 or 2");
            std::process::exit(2);
        })],
    };
    // `--weights a,b,…` (nine numbers, `Weights::to_array` order) or `--hand`: play with
    // other weights than the tuned ones; `--against a,b,…`: the opponent in `tuned`.
    let weights_arg = |name: &str| -> Option<Weights> {
        let i = args.iter().position(|a| a == name)?;
        let parsed: Option<Vec<i32>> = args
            .get(i + 1)?
            .split(',')
            .map(|w| w.trim().parse().ok())
            .collect();
        match parsed.and_then(|w| <[i32; 9]>::try_from(w).ok()) {
            Some(w) => Some(Weights::from_array(w)),
            None => {
                eprintln!("{name} needs nine whole numbers separated by commas");
                std::process::exit(2);
            }
        }
    };
    let weights = if args.iter().any(|a| a == "--hand") {
        Weights::HAND
    } else {
        weights_arg("--weights").unwrap_or(Weights::TUNED)
    };
    let against = weights_arg("--against").unwrap_or(Weights::HAND);
    let started = Instant::now();
    match args.first().map(String::as_str) {
        Some("ladder") => ladder(
            weights,
            &levels,
            games,
            threads,
            number("--bottom", LADDER[0]),
            number("--top", *LADDER.last().unwrap()),
        ),
        Some("repetition") => repetition(
            &levels,
            games,
            threads,
            number("--bottom", LADDER[0]),
            number("--top", LADDER[4]),
        ),
        Some("tuned") => {
            let budget = number("--budget", 0);
            let budgets = if budget == 0 {
                vec![4_000, 64_000]
            } else {
                vec![budget]
            };
            tuned(weights, against, &budgets, &levels, games, threads)
        }
        Some("tune") => {
            let from = if args.iter().any(|a| a == "--from-tuned") {
                Weights::TUNED
            } else {
                Weights::HAND
            };
            tune(&levels, from, number("--iterations", 400), threads)
        }
        _ => {
            eprintln!(
                "usage: velha-ai-arena ladder|repetition|tuned|tune [--games N] [--threads N] [--level 1|2]"
            );
            std::process::exit(2);
        }
    }
    eprintln!("({:.0} s)", started.elapsed().as_secs_f64());
}

fn velha_match(
    level: Level,
    a: (Weights, u64),
    b: (Weights, u64),
    games: u32,
    seed: u64,
    threads: u32,
    opening: usize,
) -> MatchScore {
    let pair = Fresh {
        opening,
        a: || Velha::with_weights(a.0),
        a_limits: Limits::work(a.1),
        b: || Velha::with_weights(b.0),
        b_limits: Limits::work(b.1),
    };
    play_match_fresh(Cube::new(level), &pair, games, seed, CAP, threads)
}

fn print_header() {
    println!(
        "{:<6} {:>10} {:>10} {:>5} {:>5} {:>5} {:>6} {:>7}  {:>14}",
        "level", "budget A", "budget B", "won", "unfin", "lost", "games", "score A", "Elo A (95%)"
    );
}

fn print_row(level: Level, a: &str, b: &str, r: MatchScore) {
    let elo = match r.elo() {
        Some((e, err)) => format!("{e:+.0} ± {err:.0}"),
        None if r.score() >= 1.0 => "+∞".into(),
        None => "-∞".into(),
    };
    println!(
        "{:<6} {:>10} {:>10} {:>5} {:>5} {:>5} {:>6} {:>6.1}%  {:>14}",
        level.number(),
        a,
        b,
        r.wins,
        r.unfinished,
        r.losses,
        r.games(),
        100.0 * r.score(),
        elo
    );
}

fn ladder(weights: Weights, levels: &[Level], games: u32, threads: u32, bottom: u64, top: u64) {
    println!(
        "== ladder: each budget against a quarter of it, {games} games; each pair of games from \
         its own {OPENING}-action random opening, colours swapped"
    );
    print_header();
    for &level in levels {
        for pair in LADDER.windows(2).filter(|p| p[1] <= top && p[0] >= bottom) {
            let (small, large) = (pair[0], pair[1]);
            let r = velha_match(
                level,
                (weights, large),
                (weights, small),
                games,
                large,
                threads,
                OPENING,
            );
            print_row(level, &large.to_string(), &small.to_string(), r);
        }
    }
}

/// The Velha without the game's positions: what she was before she looked back.
struct Forgetful(Velha);

impl Opponent<Cube> for Forgetful {
    fn choose(&mut self, position: &Cube, limits: Limits, rng: &mut Rng) -> Option<CubeAction> {
        self.0.choose(position, limits, rng)
    }
}

fn repetition(levels: &[Level], games: u32, threads: u32, bottom: u64, top: u64) {
    println!(
        "== games past the {CAP}-action cap, Velha against Velha at the same budget, {games} games \
         ({OPENING}-action random openings)"
    );
    println!(
        "{:<6} {:>10} {:>22} {:>22}",
        "level", "budget", "without history", "with history"
    );
    for &level in levels {
        for &budget in LADDER.iter().filter(|&&b| (bottom..=top).contains(&b)) {
            let limits = Limits::work(budget);
            let forgetful = Fresh {
                opening: OPENING,
                a: || Forgetful(Velha::new()),
                a_limits: limits,
                b: || Forgetful(Velha::new()),
                b_limits: limits,
            };
            let before =
                play_match_fresh(Cube::new(level), &forgetful, games, budget, CAP, threads);
            let after = velha_match(
                level,
                (Weights::TUNED, budget),
                (Weights::TUNED, budget),
                games,
                budget,
                threads,
                OPENING,
            );
            let cell = |r: MatchScore| {
                format!(
                    "{:>3}/{} ({:.0}%)",
                    r.unfinished,
                    r.games(),
                    100.0 * r.unfinished_rate()
                )
            };
            println!(
                "{:<6} {:>10} {:>22} {:>22}",
                level.number(),
                budget,
                cell(before),
                cell(after)
            );
        }
    }
}

fn tuned(
    weights: Weights,
    against: Weights,
    budgets: &[u64],
    levels: &[Level],
    games: u32,
    threads: u32,
) {
    println!(
        "== weights A against weights B, equal budgets, {games} games ({OPENING}-action random \
         openings, colours swapped)"
    );
    println!("A: {weights:?}\nB: {against:?}");
    print_header();
    for &level in levels {
        for &budget in budgets {
            let r = velha_match(
                level,
                (weights, budget),
                (against, budget),
                games,
                7 + budget,
                threads,
                OPENING,
            );
            print_row(level, &budget.to_string(), &budget.to_string(), r);
        }
    }
}

/// SPSA (simultaneous perturbation stochastic approximation): each step plays a small match
/// between the weights pushed one way and pushed the other way along a random ±1 direction,
/// then moves the weights toward the side that scored better.
fn tune(levels: &[Level], from: Weights, iterations: u64, threads: u32) {
    /// Nodes per decision while tuning: deep enough to play sensibly, cheap enough for
    /// thousands of games.
    const BUDGET: u64 = 4_000;
    /// Games per step and level, colours alternating.
    const GAMES: u32 = 8;
    let mut theta: Vec<f64> = from.to_array().iter().map(|&w| f64::from(w)).collect();
    // Perturbation and step sizes per weight, in the weight's own units.
    let c: Vec<f64> = theta.iter().map(|w| (w.abs() / 5.0).max(2.0)).collect();
    let a_scale = 4.0;
    let mut rng = Rng::new(2026);
    println!("start: {from:?}");
    for k in 0..iterations {
        let decay_c = 1.0 / ((k + 1) as f64).powf(0.101);
        let decay_a = 1.0 / ((k + 1) as f64 + 40.0).powf(0.602) * 40f64.powf(0.602);
        let delta: Vec<f64> = theta
            .iter()
            .map(|_| if rng.chance(1, 2) { 1.0 } else { -1.0 })
            .collect();
        let shifted = |sign: f64| {
            let mut w = [0i32; 9];
            for i in 0..9 {
                w[i] = (theta[i] + sign * c[i] * decay_c * delta[i]).round() as i32;
            }
            Weights::from_array(w)
        };
        let (plus, minus) = (shifted(1.0), shifted(-1.0));
        let mut result = MatchScore::default();
        for &level in levels {
            result += velha_match(
                level,
                (plus, BUDGET),
                (minus, BUDGET),
                GAMES,
                k * 7 + u64::from(level.number()),
                threads,
                // The tuned weights were found from the first position: kept so the command
                // still finds them.
                0,
            );
        }
        // Positive when `plus` scored better: move along `delta`.
        let gradient = result.score() - 0.5;
        for i in 0..9 {
            theta[i] += a_scale * decay_a * c[i] * gradient * delta[i];
        }
        if (k + 1) % 20 == 0 {
            let rounded: Vec<i32> = theta.iter().map(|w| w.round() as i32).collect();
            println!("step {:>5}: {rounded:?}", k + 1);
        }
    }
    let tuned: Vec<i32> = theta.iter().map(|w| w.round() as i32).collect();
    println!(
        "tuned: {:?}",
        Weights::from_array(tuned.try_into().expect("nine weights"))
    );
}
