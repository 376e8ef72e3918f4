//! Speed of the rules core, one core: perft (nodes per second, as "elements") and random
//! playouts (playouts per second; actions per second for the cube, whose games have no
//! natural length).
//!
//! `cargo bench -p velha-rules --bench rules`

// criterion_group! makes public functions without documentation.
#![allow(missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use velha_rules::{Classic, Cube, Level, Player, Position, Ultimate, Variant, perft};

/// wyrand: a tiny, fast random source for the playouts (the rules themselves use none).
struct Rng(u64);

impl Rng {
    #[inline]
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        let r = ((t >> 64) as u64) ^ (t as u64);
        ((u128::from(r) * n as u128) >> 64) as usize
    }
}

/// A perft from a fixed start, by depth.
type PerftRun<'a> = &'a dyn Fn(u32) -> u64;

fn perft_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    let super_start = Ultimate::new(Variant::Super, Player::X);
    let v2_start = Ultimate::new(Variant::V2, Player::X);
    let classic = Classic::new(Player::X);
    let cube1 = Cube::new(Level::One);
    let cube2 = Cube::new(Level::Two);
    let cases: [(&str, u32, PerftRun); 5] = [
        ("classic", 9, &|d| perft(&classic, d)),
        ("super", 5, &|d| perft(&super_start, d)),
        ("v2", 5, &|d| perft(&v2_start, d)),
        ("cube-level1", 5, &|d| perft(&cube1, d)),
        ("cube-level2", 4, &|d| perft(&cube2, d)),
    ];
    for (name, depth, run) in cases {
        group.throughput(Throughput::Elements(run(depth)));
        group.bench_with_input(BenchmarkId::new(name, depth), &depth, |b, &d| {
            b.iter(|| run(black_box(d)))
        });
    }
    // Forty seeded Super positions 8 to 40 moves in, where boards are decided and moves sent
    // anywhere: the start alone measures the easy early game.
    let middle = middle_games(40);
    let run = |d| middle.iter().map(|p| perft(p, d)).sum::<u64>();
    group.throughput(Throughput::Elements(run(5)));
    group.bench_function(BenchmarkId::new("super-40-middle-games", 5), |b| {
        b.iter(|| run(black_box(5)))
    });
    group.finish();

    // The same counts with every leaf played too (no bulk counting at the last ply), the
    // harder comparison for engines that count nodes that way.
    let mut group = c.benchmark_group("perft-leaves-played");
    for (name, start) in [("super", super_start), ("v2", v2_start)] {
        group.throughput(Throughput::Elements(perft(&start, 5)));
        group.bench_function(BenchmarkId::new(name, 5), |b| {
            b.iter(|| perft_played(&start, black_box(5)))
        });
    }
    group.throughput(Throughput::Elements(perft(&cube2, 4)));
    group.bench_function(BenchmarkId::new("cube-level2", 4), |b| {
        b.iter(|| perft_played(&cube2, black_box(4)))
    });
    group.finish();
}

/// Perft that plays every action, the last ply included (with `play_legal`, as searches play
/// the actions they were handed).
fn perft_played<P: Position>(position: &P, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for action in position.legal_actions() {
        let mut next = *position;
        next.play_legal(action);
        total += perft_played(&next, depth - 1);
    }
    total
}

/// `count` Super positions still going after 8 to 40 random moves, the same every run.
fn middle_games(count: usize) -> Vec<Ultimate> {
    let mut rng = Rng(38);
    let mut games = Vec::with_capacity(count);
    while games.len() < count {
        let mut p = Ultimate::new(Variant::Super, Player::X);
        for _ in 0..8 + rng.below(33) {
            let legal = p.legal_cells();
            if legal.is_empty() {
                break;
            }
            p.play(legal.nth_cell(rng.below(legal.len())).expect("k < len"))
                .expect("legal");
        }
        if !p.status().is_over() {
            games.push(p);
        }
    }
    games
}

fn ultimate_playout(variant: Variant, rng: &mut Rng) -> velha_rules::Status {
    let mut p = Ultimate::new(variant, Player::X);
    loop {
        let legal = p.legal_cells();
        if legal.is_empty() {
            return p.status();
        }
        let cell = legal.nth_cell(rng.below(legal.len())).expect("k < len");
        p.play(cell).expect("legal");
    }
}

fn classic_playout(rng: &mut Rng) -> velha_rules::Status {
    let mut p = Classic::new(Player::X);
    loop {
        let legal = p.legal_actions();
        if legal.is_empty() {
            return p.status();
        }
        p.play(legal[rng.below(legal.len())]).expect("legal");
    }
}

/// Plays exactly `actions` random legal actions, starting a new game whenever one ends.
fn cube_actions(level: Level, actions: usize, rng: &mut Rng) -> u32 {
    let mut p = Cube::new(level);
    let mut games = 0;
    for _ in 0..actions {
        let legal = p.legal_actions();
        if legal.is_empty() {
            p = Cube::new(level);
            games += 1;
            continue;
        }
        let action = legal.nth_action(rng.below(legal.len())).expect("k < len");
        p.play(action).expect("legal");
    }
    games
}

fn playout_benches(c: &mut Criterion) {
    const PLAYOUTS: u64 = 1000;
    const CUBE_ACTIONS: u64 = 100_000;
    let mut group = c.benchmark_group("random-playouts");
    let mut rng = Rng(42);
    group.throughput(Throughput::Elements(PLAYOUTS));
    group.bench_function("classic", |b| {
        b.iter(|| {
            (0..PLAYOUTS)
                .map(|_| classic_playout(&mut rng))
                .filter(|s| s.is_over())
                .count()
        })
    });
    for (name, variant) in [("super", Variant::Super), ("v2", Variant::V2)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                (0..PLAYOUTS)
                    .map(|_| ultimate_playout(variant, &mut rng))
                    .filter(|s| s.is_over())
                    .count()
            })
        });
    }
    group.throughput(Throughput::Elements(CUBE_ACTIONS));
    for (name, level) in [
        ("cube-level1-actions", Level::One),
        ("cube-level2-actions", Level::Two),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| cube_actions(level, CUBE_ACTIONS as usize, &mut rng))
        });
    }
    group.finish();
}

criterion_group!(benches, perft_benches, playout_benches);
criterion_main!(benches);
