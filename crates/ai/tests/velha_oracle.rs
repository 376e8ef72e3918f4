//! CUBE-V05: the Velha's search against plain negamax. The oracle below has no pruning, no
//! table and no ordering; on thousands of positions of both levels, at depths 1 to 3, the
//! Velha must find its value and play an action of that value, with a fresh table and with a
//! table warmed by other searches (deeper ones included).
//!
//! `VELHA_ORACLE_POSITIONS=N` sets how many positions per level (default 1 500 at depths 1
//! and 2, a tenth of them at depth 3): `VELHA_ORACLE_POSITIONS=3000 cargo test --release -p
//! velha-ai --test velha_oracle` is the full run.

use velha_ai::arena::sample_positions;
use velha_ai::{MATE, MATE_BOUND, REPETITION, Rng, Velha, Weights};
use velha_rules::{Cube, CubeAction, Level, Player, Position, Status};

/// Plain negamax over whole turns: a free turn keeps the side and the depth.
fn negamax(p: &Cube, depth: u32, ply: i32) -> i32 {
    match p.status() {
        Status::Win(w) if w == p.side_to_move() => return MATE - ply,
        Status::Win(_) => return -(MATE - ply),
        Status::Draw => return 0,
        Status::Ongoing(_) => {}
    }
    if depth == 0 {
        return Weights::TUNED.evaluate(p, ply);
    }
    let mut best = i32::MIN;
    for a in p.legal_actions() {
        let mut c = *p;
        c.play(a).unwrap();
        let v = if c.side_to_move() == p.side_to_move() && !c.status().is_over() {
            negamax(&c, depth, ply + 1)
        } else {
            -negamax(&c, depth - 1, ply + 1)
        };
        best = best.max(v);
    }
    best
}

/// Same stickers, side, free turn, level and (level 2) parity of counted turns: the same
/// future.
fn same_position(a: &Cube, b: &Cube) -> bool {
    let parity = |c: &Cube, p| match c.level() {
        Level::One => 0,
        Level::Two => c.counted_turns(p) % 2,
    };
    a.marks(Player::X) == b.marks(Player::X)
        && a.marks(Player::O) == b.marks(Player::O)
        && a.spent_stickers() == b.spent_stickers()
        && a.side_to_move() == b.side_to_move()
        && a.free_turn_made() == b.free_turn_made()
        && a.level() == b.level()
        && Player::BOTH
            .into_iter()
            .all(|p| parity(a, p) == parity(b, p))
}

/// Every whole turn from `p`: its first action, the position after it, and how many actions
/// it took.
fn whole_turns(p: &Cube) -> Vec<(CubeAction, Cube, i32)> {
    let mut turns = vec![];
    for a in p.legal_actions() {
        let mut q = *p;
        q.play(a).unwrap();
        if q.side_to_move() == p.side_to_move() && !q.status().is_over() {
            for b in q.legal_actions() {
                let mut r = q;
                r.play(b).unwrap();
                turns.push((a, r, 2));
            }
        } else {
            turns.push((a, q, 1));
        }
    }
    turns
}

/// The oracle's value of each whole turn from `p` at `depth`, a turn back to a position of
/// `earlier` capped at [`REPETITION`] unless forced.
fn turn_values(earlier: &[Cube], p: &Cube, depth: u32) -> Vec<(CubeAction, i32)> {
    whole_turns(p)
        .into_iter()
        .map(|(a, after, actions)| {
            let mut v = -negamax(&after, depth - 1, actions);
            let repeats =
                !after.status().is_over() && earlier.iter().any(|e| same_position(e, &after));
            if repeats && v.abs() < MATE_BOUND {
                v = v.min(REPETITION);
            }
            (a, v)
        })
        .collect()
}

fn positions_per_level() -> usize {
    std::env::var("VELHA_ORACLE_POSITIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_500)
}

/// Checks the Velha at `depth` on `positions`, each with a history that holds some of its
/// own whole turns' results (so the repetition cap is exercised), against the oracle.
fn check(level: Level, depth: u32, positions: &[Cube], seed: u64) {
    let mut warm = Velha::new();
    let mut rng = Rng::new(seed);
    let mut capped = 0;
    for (n, p) in positions.iter().enumerate() {
        if p.status().is_over() {
            continue;
        }
        let earlier: Vec<Cube> = whole_turns(p)
            .into_iter()
            .map(|(_, after, _)| after)
            .filter(|_| rng.chance(1, 4))
            .collect();
        let values = turn_values(&earlier, p, depth);
        let value = values.iter().map(|&(_, v)| v).max().unwrap();
        let uncapped = turn_values(&[], p, depth);
        if uncapped.iter().map(|&(_, v)| v).max().unwrap() != value {
            capped += 1;
        }
        let value_of = |a: CubeAction| {
            values
                .iter()
                .filter(|&&(b, _)| b == a)
                .map(|&(_, v)| v)
                .max()
        };
        // Deeper and shallower searches of this and earlier positions fill the warm table.
        warm.analyse(&earlier, p, depth % 3 + 1);
        for (name, velha) in [("fresh", &mut Velha::new()), ("warm", &mut warm)] {
            let (action, score) = velha.analyse(&earlier, p, depth).unwrap();
            assert_eq!(
                score,
                value,
                "level {} depth {depth} position {n} ({name} table): {p}",
                level.number()
            );
            assert_eq!(
                value_of(action),
                Some(value),
                "level {} depth {depth} position {n} ({name} table): {action} is not of the best value, from {p}",
                level.number()
            );
        }
    }
    // The histories must have mattered somewhere, or the cap went untested.
    assert!(
        capped > 0,
        "level {} depth {depth}: no capped value",
        level.number()
    );
}

fn oracle(level: Level, depth: u32, count: usize, seed: u64) {
    let positions = sample_positions(Cube::new(level), count, seed);
    check(level, depth, &positions, seed);
}

#[test]
fn cube_v05_search_equals_plain_negamax_level_1() {
    let n = positions_per_level();
    oracle(Level::One, 1, n, 101);
    oracle(Level::One, 2, n, 102);
    oracle(Level::One, 3, n / 10, 103);
}

#[test]
fn cube_v05_search_equals_plain_negamax_level_2() {
    let n = positions_per_level();
    oracle(Level::Two, 1, n, 201);
    oracle(Level::Two, 2, n, 202);
    oracle(Level::Two, 3, n / 10, 203);
}
