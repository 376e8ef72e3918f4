//! Prints the opponents' figures: decision time per opponent (median, p95, worst, and how far
//! past its time budget), search speed, and the seeded strength table.
//!
//! `cargo run --release -p velha-ai --bin velha-ai-bench -- [--games N]`
//!
//! The strength table uses work budgets (search nodes, playouts), so it is the same on every
//! machine for the same seed; the time figures are this machine's.

use std::time::{Duration, Instant};

use velha_ai::arena::{MatchScore, Seat, play_match, sample_positions};
use velha_ai::{
    Character, Difficulty, Greedy, Limits, Opponent, RandomPlayer, Rng, UltimateAi, Velha,
};
use velha_rules::{Classic, Cube, Level, Player, Position, Ultimate, Variant};

/// The Velha's time per action in the app.
const VELHA_MS: u64 = 250;
/// The Velha's budget in the strength table against the reference players.
const VELHA_NODES: u64 = 20_000;
/// Hard's budget at full strength.
const HARD_MS: u64 = 500;
const HARD_PLAYOUTS: u64 = 10_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games = match args.iter().position(|a| a == "--games") {
        Some(i) => match args.get(i + 1).and_then(|n| n.parse::<u32>().ok()) {
            Some(n) if n > 0 => n,
            _ => {
                eprintln!("--games needs a positive whole number");
                std::process::exit(2);
            }
        },
        None => 100,
    };

    println!("== decision time, one core (ms)");
    println!(
        "{:<22} {:>7} {:>8} {:>8} {:>8} {:>10}",
        "opponent", "budget", "median", "p95", "worst", "over by"
    );
    for level in [Level::One, Level::Two] {
        let mut velha = Velha::new();
        let stats = time_decisions(Cube::new(level), &mut velha, VELHA_MS, 120);
        stats.print(&format!("velha level {}", level.number()), VELHA_MS);
    }
    for character in Character::ALL {
        let mut who = character;
        time_decisions(Classic::new(Player::X), &mut who, 50, 200)
            .print(character.protocol_name(), 50);
    }
    for variant in [Variant::Super, Variant::V2] {
        for difficulty in Difficulty::ALL {
            let mut ai = UltimateAi::new(difficulty);
            let ms = if difficulty == Difficulty::Hard {
                HARD_MS
            } else {
                200
            };
            let count = if difficulty == Difficulty::Hard {
                30
            } else {
                100
            };
            let name = format!("{} {:?}", difficulty.protocol_name(), variant).to_lowercase();
            time_decisions(Ultimate::new(variant, Player::X), &mut ai, ms, count).print(&name, ms);
        }
    }

    println!("\n== search speed, one core");
    for level in [Level::One, Level::Two] {
        let mut velha = Velha::new();
        let positions = sample_positions(Cube::new(level), 60, 77);
        let start = Instant::now();
        let mut nodes = 0;
        for (i, p) in positions.iter().enumerate() {
            velha.choose(p, Limits::millis(VELHA_MS), &mut Rng::new(i as u64));
            nodes += velha.stats.nodes;
        }
        let rate = nodes as f64 / start.elapsed().as_secs_f64();
        println!(
            "velha level {}: {:.2} M nodes/s",
            level.number(),
            rate / 1e6
        );
    }
    for variant in [Variant::Super, Variant::V2] {
        let mut hard = UltimateAi::new(Difficulty::Hard);
        let positions = sample_positions(Ultimate::new(variant, Player::X), 20, 77);
        let start = Instant::now();
        let mut playouts = 0;
        for (i, p) in positions.iter().enumerate() {
            hard.choose(p, Limits::millis(100), &mut Rng::new(i as u64));
            playouts += hard.last_playouts;
        }
        let rate = playouts as f64 / start.elapsed().as_secs_f64();
        println!(
            "hard {variant:?}: {:.0} k playouts/s (tree search included)",
            rate / 1e3
        );
    }

    println!("\n== strength, {games} seeded games per line, colours alternating");
    println!(
        "(work budgets: velha {VELHA_NODES} nodes/decision, hard {HARD_PLAYOUTS} playouts, medium and easy as built)"
    );
    for level in [Level::One, Level::Two] {
        let start = Cube::new(level);
        let mut velha = Velha::new();
        let full = Limits::work(VELHA_NODES);
        let one = Limits::work(1);
        let r = play_match(
            start,
            Seat {
                player: &mut velha,
                limits: full,
            },
            Seat {
                player: &mut RandomPlayer,
                limits: one,
            },
            games,
            1,
            400,
        );
        row(&format!("velha level {} vs random", level.number()), r);
        let r = play_match(
            start,
            Seat {
                player: &mut velha,
                limits: full,
            },
            Seat {
                player: &mut Greedy,
                limits: one,
            },
            games,
            2,
            400,
        );
        row(&format!("velha level {} vs greedy", level.number()), r);
    }
    for variant in [Variant::Super, Variant::V2] {
        let start = Ultimate::new(variant, Player::X);
        let mut hard = UltimateAi::new(Difficulty::Hard);
        let mut medium = UltimateAi::new(Difficulty::Medium);
        let mut easy = UltimateAi::new(Difficulty::Easy);
        let full = Limits::work(HARD_PLAYOUTS);
        let r = play_match(
            start,
            Seat {
                player: &mut hard,
                limits: full,
            },
            Seat {
                player: &mut medium,
                limits: full,
            },
            games,
            3,
            100,
        );
        row(&format!("hard vs medium ({variant:?})"), r);
        let r = play_match(
            start,
            Seat {
                player: &mut medium,
                limits: full,
            },
            Seat {
                player: &mut easy,
                limits: full,
            },
            games,
            4,
            100,
        );
        row(&format!("medium vs easy ({variant:?})"), r);
    }
    let start = Classic::new(Player::X);
    for character in Character::ALL {
        let mut who = character;
        let r = play_match(
            start,
            Seat {
                player: &mut who,
                limits: Limits::work(1),
            },
            Seat {
                player: &mut RandomPlayer,
                limits: Limits::work(1),
            },
            games * 10,
            5,
            9,
        );
        row(
            &format!("{} vs random (classic)", character.protocol_name()),
            r,
        );
    }
}

fn row(name: &str, r: MatchScore) {
    println!(
        "{name:<30} won {:>4}  drawn/capped {:>3}  lost {:>3}   win rate {:>5.1}%",
        r.wins,
        r.draws + r.unfinished,
        r.losses,
        100.0 * r.win_rate()
    );
}

struct Timings(Vec<Duration>);

fn time_decisions<P: Position>(
    start: P,
    opponent: &mut dyn Opponent<P>,
    ms: u64,
    count: usize,
) -> Timings {
    let positions = sample_positions(start, count, 77);
    let mut times: Vec<Duration> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let t = Instant::now();
            let choice = opponent.choose(p, Limits::millis(ms), &mut Rng::new(i as u64));
            let elapsed = t.elapsed();
            assert!(
                choice.is_some_and(|a| p.check(a).is_ok()),
                "an illegal choice"
            );
            elapsed
        })
        .collect();
    times.sort();
    Timings(times)
}

impl Timings {
    fn print(&self, name: &str, budget_ms: u64) {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let at = |q: f64| ms(self.0[((self.0.len() - 1) as f64 * q).round() as usize]);
        let worst = ms(*self.0.last().expect("timings"));
        println!(
            "{name:<22} {budget_ms:>7} {:>8.2} {:>8.2} {:>8.2} {:>10.2}",
            at(0.5),
            at(0.95),
            worst,
            (worst - budget_ms as f64).max(0.0)
        );
    }
}
