//! Decision time of each opponent at full strength, one core, from positions of real games.
//!
//! `cargo bench -p velha-ai --bench opponents`

// criterion_group! makes public functions without documentation.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use velha_ai::arena::sample_positions;
use velha_ai::{Character, Difficulty, Limits, Opponent, Rng, UltimateAi, Velha};
use velha_rules::{Classic, Cube, Level, Player, Ultimate, Variant};

fn velha(c: &mut Criterion) {
    let mut group = c.benchmark_group("decision");
    group.sample_size(20);
    for level in [Level::One, Level::Two] {
        let cubes = sample_positions(Cube::new(level), 40, 2026);
        let mut velha = Velha::new();
        let mut rng = Rng::new(1);
        let mut i = 0;
        group.bench_function(format!("velha-level{}-40ms", level.number()), |b| {
            b.iter(|| {
                i = (i + 1) % cubes.len();
                velha.choose(&cubes[i], Limits::millis(40), &mut rng)
            })
        });
    }
    let boards = sample_positions(Classic::new(Player::X), 30, 2026);
    let mut rng = Rng::new(2);
    let mut i = 0;
    for character in Character::ALL {
        let mut who = character;
        group.bench_function(character.protocol_name(), |b| {
            b.iter(|| {
                i = (i + 1) % boards.len();
                who.choose(&boards[i], Limits::millis(50), &mut rng)
            })
        });
    }
    let grids = sample_positions(Ultimate::new(Variant::V2, Player::X), 30, 2026);
    for difficulty in [Difficulty::Easy, Difficulty::Medium] {
        let mut ai = UltimateAi::new(difficulty);
        group.bench_function(difficulty.protocol_name(), |b| {
            b.iter(|| {
                i = (i + 1) % grids.len();
                ai.choose(&grids[i], Limits::millis(200), &mut rng)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, velha);
criterion_main!(benches);
