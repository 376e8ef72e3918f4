//! Measures the post-game analysis (docs/rules/analysis.md) where it is an estimate: Super,
//! 2.0 and the cube.
//!
//! `cargo run --release -p velha-ai --bin velha-ai-analysis -- COMMAND [--games N] [--only GAME]`
//!
//! `--only super`, `2.0`, `cube`, `cube1` or `cube2` measures one game (or cube level).
//!
//! - `calibrate-cube`: the Velha plays herself at the analysis budget; the scale turning her
//!   score into a winning chance (ANA-06) that best predicts who won, and how well it predicts.
//! - `calibrate-ultimate`: the same for the hard opponent in Super and 2.0: the stretch of its
//!   playouts' mean result that best predicts the results (ANA-05).
//! - `confirm`: games of a random mover against the hard opponent (or the Velha), analysed at
//!   the analysis budget and at 16 times it: how many blunders the larger budget confirms.
//! - `errors`: the same kind of games: how often each side's moves get each verdict.
//!
//! Everything is seeded work budgets: the same figures on every machine.

use std::time::{Duration, Instant};

use velha_ai::analysis::{
    Analysis, Analyst, CUBE_NODES, CubeJudge, Game, Judge, ULTIMATE_PLAYOUTS, UltimateJudge,
    Verdict, cube_score,
};
use velha_ai::{Deliberate, Difficulty, Limits, Opponent, RandomPlayer, Rng, UltimateAi, Velha};
use velha_rules::{Cube, Level, Player, Position, Ultimate, Variant};

/// Moves a cube game may last here: the cube has no move limit (CUBE-R13).
const CUBE_MAX_MOVES: usize = 120;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games = match args.iter().position(|a| a == "--games") {
        Some(i) => match args.get(i + 1).and_then(|n| n.parse::<u32>().ok()) {
            Some(n) if n > 0 => n,
            _ => fail("--games needs a positive whole number"),
        },
        None => 8,
    };
    let only = args
        .iter()
        .position(|a| a == "--only")
        .map(|i| args.get(i + 1).map(String::as_str));
    let kinds: Vec<Kind> = match only {
        None => KINDS.to_vec(),
        Some(Some("super")) => vec![Kind::Super],
        Some(Some("2.0")) => vec![Kind::V2],
        Some(Some("cube")) => vec![Kind::Cube(Level::One), Kind::Cube(Level::Two)],
        Some(Some("cube1")) => vec![Kind::Cube(Level::One)],
        Some(Some("cube2")) => vec![Kind::Cube(Level::Two)],
        Some(_) => fail("--only takes super, 2.0, cube, cube1 or cube2"),
    };
    match args.get(1).map(String::as_str) {
        Some("calibrate-cube") => calibrate_cube(games),
        Some("calibrate-ultimate") => calibrate_ultimate(games),
        Some("confirm") => confirm(games, &kinds),
        Some("errors") => errors(games, &kinds),
        _ => fail(
            "usage: velha-ai-analysis calibrate-cube|calibrate-ultimate|confirm|errors [--games N]",
        ),
    }
}

fn fail(says: &str) -> ! {
    eprintln!("{says}");
    std::process::exit(2)
}

/// One of the three estimated games.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Super,
    V2,
    Cube(Level),
}

const KINDS: [Kind; 4] = [
    Kind::Super,
    Kind::V2,
    Kind::Cube(Level::One),
    Kind::Cube(Level::Two),
];

impl Kind {
    /// Super's or 2.0's rules (the cube has none of these).
    fn variant(self) -> Variant {
        if matches!(self, Kind::V2) {
            Variant::V2
        } else {
            Variant::Super
        }
    }

    fn name(self) -> String {
        match self {
            Kind::Super => "super".into(),
            Kind::V2 => "2.0".into(),
            Kind::Cube(level) => format!("cube level {}", level.number()),
        }
    }
}

/// A played game of one of the estimated games.
enum Played {
    Ultimate(Game<Ultimate>),
    Cube(Game<Cube>),
}

/// A game between two weak players that err now and then without being lost from the start:
/// easy against easy in Super and 2.0, the Velha at 2 000 nodes against herself on the cube.
fn weak_against_weak(kind: Kind, seed: u64) -> Played {
    let mut rng = Rng::new(seed);
    match kind {
        Kind::Super | Kind::V2 => {
            let variant = kind.variant();
            let mut easy = UltimateAi::new(Difficulty::Easy);
            let game = Game::play(Ultimate::new(variant, Player::X), usize::MAX, |_, p| {
                easy.choose(p, Limits::work(1), &mut rng)
                    .expect("a game going on has a move")
            });
            Played::Ultimate(game)
        }
        Kind::Cube(level) => {
            let mut velha = Velha::new();
            let game = Game::play(Cube::new(level), CUBE_MAX_MOVES, |earlier, p| {
                velha
                    .choose_in_game(earlier, p, Limits::work(2_000), &mut rng)
                    .expect("a game going on has a move")
            });
            Played::Cube(game)
        }
    }
}

/// A game of a random mover against the strong side (`strong` is who that is), seeded.
fn random_against_strong(kind: Kind, strong: Player, seed: u64) -> Played {
    let mut rng = Rng::new(seed);
    match kind {
        Kind::Super | Kind::V2 => {
            let variant = kind.variant();
            let mut hard = UltimateAi::new(Difficulty::Hard);
            let game = Game::play(Ultimate::new(variant, Player::X), usize::MAX, |_, p| {
                let action = if p.side_to_move() == strong {
                    hard.choose(p, Limits::work(ULTIMATE_PLAYOUTS), &mut rng)
                } else {
                    RandomPlayer.choose(p, Limits::work(1), &mut rng)
                };
                action.expect("a game going on has a move")
            });
            Played::Ultimate(game)
        }
        Kind::Cube(level) => {
            let mut velha = Velha::new();
            let game = Game::play(Cube::new(level), CUBE_MAX_MOVES, |earlier, p| {
                let action = if p.side_to_move() == strong {
                    velha.choose_in_game(earlier, p, Limits::work(CUBE_NODES), &mut rng)
                } else {
                    RandomPlayer.choose(p, Limits::work(1), &mut rng)
                };
                action.expect("a game going on has a move")
            });
            Played::Cube(game)
        }
    }
}

fn analyse<P: Position, J: Judge<P>>(judge: J, game: Game<P>) -> Analysis {
    Analyst::new(judge, game)
        .expect("a played game is analysable")
        .step(Duration::MAX)
        .expect("an unlimited step finishes")
}

/// The analysis of a played game at `scale` times the analysis budget.
fn analysed(played: &Played, scale: u64, seed: u64) -> Analysis {
    match played {
        Played::Ultimate(g) => analyse(
            UltimateJudge::new(ULTIMATE_PLAYOUTS * scale, seed),
            g.clone(),
        ),
        Played::Cube(g) => analyse(CubeJudge::new(CUBE_NODES * scale, seed), g.clone()),
    }
}

fn confirm(games: u32, kinds: &[Kind]) {
    println!("== blunders at the analysis budget, judged again at 16 times it");
    println!("   (half the games a random mover against the strong side, half weak against weak)");
    println!(
        "{:<14} {:>6} {:>9} {:>11} {:>13} {:>9}",
        "game", "games", "blunders", "confirmed", "≥ a mistake", "time"
    );
    for &kind in kinds {
        let started = Instant::now();
        let (mut blunders, mut confirmed, mut at_least_mistakes) = (0, 0, 0);
        for g in 0..games {
            let strong = if g % 4 == 0 { Player::O } else { Player::X };
            let played = if g % 2 == 0 {
                random_against_strong(kind, strong, u64::from(g))
            } else {
                weak_against_weak(kind, u64::from(g))
            };
            let small = analysed(&played, 1, u64::from(g));
            let large = analysed(&played, 16, u64::from(g) + 1_000);
            for (a, b) in small.reviews.iter().zip(&large.reviews) {
                let (Some(a), Some(b)) = (a, b) else { continue };
                if a.verdict == Verdict::Blunder {
                    blunders += 1;
                    confirmed += u32::from(b.verdict == Verdict::Blunder);
                    at_least_mistakes += u32::from(b.verdict >= Verdict::Mistake);
                }
            }
        }
        let pct = |n: u32| 100.0 * f64::from(n) / f64::from(blunders.max(1));
        println!(
            "{:<14} {:>6} {:>9} {:>10.1}% {:>12.1}% {:>8.0}s",
            kind.name(),
            games,
            blunders,
            pct(confirmed),
            pct(at_least_mistakes),
            started.elapsed().as_secs_f64()
        );
    }
}

fn errors(games: u32, kinds: &[Kind]) {
    println!("== verdicts per move at the analysis budget: a random mover against the strong side");
    println!(
        "{:<14} {:<7} {:>6} {:>8} {:>12} {:>8} {:>11}",
        "game", "side", "moves", "ótima", "imprecisão", "erro", "erro grave"
    );
    for &kind in kinds {
        // [random, strong] × [best, inaccuracy, mistake, blunder]
        let mut counts = [[0u32; 4]; 2];
        for g in 0..games {
            let strong = if g % 2 == 0 { Player::O } else { Player::X };
            let played = random_against_strong(kind, strong, 10_000 + u64::from(g));
            for review in analysed(&played, 1, u64::from(g))
                .reviews
                .into_iter()
                .flatten()
            {
                let side = usize::from(review.mover == strong);
                counts[side][review.verdict as usize] += 1;
            }
        }
        for (side, name) in [(0, "random"), (1, "strong")] {
            let moves: u32 = counts[side].iter().sum();
            let pct = |n: u32| 100.0 * f64::from(n) / f64::from(moves.max(1));
            let c = counts[side];
            println!(
                "{:<14} {:<7} {:>6} {:>7.1}% {:>11.1}% {:>7.1}% {:>10.1}%",
                kind.name(),
                name,
                moves,
                pct(c[0]),
                pct(c[1]),
                pct(c[2]),
                pct(c[3])
            );
        }
    }
}

/// The Velha's score at each position of her games against herself, for the side to move,
/// and whether that side won: the scale that best predicts it.
fn calibrate_cube(games: u32) {
    let mut samples: Vec<(f64, f64)> = Vec::new();
    let mut unfinished = 0;
    for g in 0..games {
        let level = if g % 2 == 0 { Level::One } else { Level::Two };
        let mut rng = Rng::new(u64::from(g));
        let mut velha = Velha::new();
        let mut scores: Vec<(Player, i32)> = Vec::new();
        let game = Game::play(Cube::new(level), CUBE_MAX_MOVES, |earlier, p| {
            // Two random moves each first, so the games differ.
            if earlier.len() < 4 {
                return RandomPlayer
                    .choose(p, Limits::work(1), &mut rng)
                    .expect("a move");
            }
            let action = velha
                .choose_in_game(earlier, p, Limits::work(CUBE_NODES), &mut rng)
                .expect("a move");
            scores.push((p.side_to_move(), cube_score(&velha.stats)));
            action
        });
        let Some(winner) = game.winner else {
            unfinished += 1;
            continue;
        };
        samples.extend(
            scores
                .into_iter()
                .filter(|(_, s)| s.abs() < velha_ai::MATE_BOUND)
                .map(|(p, s)| (f64::from(s), if p == winner { 1.0 } else { 0.0 })),
        );
    }
    println!(
        "the cube: {} positions of {} finished games ({unfinished} unfinished after {CUBE_MAX_MOVES} moves)",
        samples.len(),
        games - unfinished
    );
    let slopes: Vec<f64> = (1..=200).map(|k| 1.0 / (f64::from(k) * 5.0)).collect();
    let slope = fit(&samples, &slopes);
    println!("CUBE_SCALE = {:.0}", 1.0 / slope);
    print_bins(
        &samples,
        slope,
        &[-999.0, -150.0, -75.0, -25.0, 25.0, 75.0, 150.0, 999.0],
    );
}

/// The hard opponent's raw estimate at each position of its games against itself, for the
/// side to move, and that side's result: the stretch that best predicts it.
fn calibrate_ultimate(games: u32) {
    for variant in [Variant::Super, Variant::V2] {
        let mut samples: Vec<(f64, f64)> = Vec::new();
        for g in 0..games {
            let mut rng = Rng::new(u64::from(g));
            let mut hard = UltimateAi::new(Difficulty::Hard);
            let mut raw: Vec<(Player, f32)> = Vec::new();
            let game = Game::play(
                Ultimate::new(variant, Player::X),
                usize::MAX,
                |earlier, p| {
                    if earlier.len() < 4 {
                        return RandomPlayer
                            .choose(p, Limits::work(1), &mut rng)
                            .expect("a move");
                    }
                    hard.start_judging(p, Limits::work(ULTIMATE_PLAYOUTS));
                    let cell = loop {
                        if let velha_ai::Thought::Decided(cell) =
                            hard.think(Duration::MAX, &mut rng)
                        {
                            break cell.expect("a move");
                        }
                    };
                    if let Some(chance) = hard.last_chance {
                        raw.push((p.side_to_move(), chance));
                    }
                    cell
                },
            );
            samples.extend(
                raw.into_iter()
                    .filter(|(_, c)| *c > 0.0 && *c < 1.0)
                    .map(|(p, c)| {
                        let result = match game.winner {
                            Some(w) if w == p => 1.0,
                            Some(_) => 0.0,
                            None => 0.5,
                        };
                        (logit(f64::from(c)), result)
                    }),
            );
        }
        println!("{variant:?}: {} positions of {games} games", samples.len());
        let slopes: Vec<f64> = (10..=800).map(|k| f64::from(k) / 100.0).collect();
        let slope = fit(&samples, &slopes);
        println!("stretch = {slope:.2}");
        let edges: Vec<f64> = [0.0001, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.9999]
            .iter()
            .map(|&v| logit(v))
            .collect();
        print_bins(&samples, slope, &edges);
    }
}

fn logit(p: f64) -> f64 {
    (p / (1.0 - p)).ln()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The slope `a` among `slopes` for which σ(a·x) best predicts the results (log-likelihood).
fn fit(samples: &[(f64, f64)], slopes: &[f64]) -> f64 {
    let log_likelihood = |a: f64| -> f64 {
        samples
            .iter()
            .map(|&(x, t)| {
                let p = sigmoid(a * x).clamp(1e-9, 1.0 - 1e-9);
                t * p.ln() + (1.0 - t) * (1.0 - p).ln()
            })
            .sum()
    };
    let best = slopes
        .iter()
        .copied()
        .max_by(|a, b| log_likelihood(*a).total_cmp(&log_likelihood(*b)))
        .unwrap_or(1.0);
    println!(
        "mean log-likelihood {:.4} (a coin: {:.4})",
        log_likelihood(best) / samples.len().max(1) as f64,
        0.5f64.ln()
    );
    best
}

/// Observed and predicted results by ranges of `x` (`edges` ascending).
fn print_bins(samples: &[(f64, f64)], slope: f64, edges: &[f64]) {
    println!(
        "{:>20} {:>8} {:>10} {:>10}",
        "from", "count", "result", "predicted"
    );
    for pair in edges.windows(2) {
        let bin: Vec<&(f64, f64)> = samples
            .iter()
            .filter(|(x, _)| *x >= pair[0] && *x < pair[1])
            .collect();
        if bin.is_empty() {
            continue;
        }
        let n = bin.len() as f64;
        let result = bin.iter().map(|(_, t)| t).sum::<f64>() / n;
        let predicted = bin.iter().map(|(x, _)| sigmoid(slope * x)).sum::<f64>() / n;
        println!(
            "{:>20.3} {:>8} {:>9.1}% {:>9.1}%",
            pair[0],
            bin.len(),
            100.0 * result,
            100.0 * predicted
        );
    }
}
