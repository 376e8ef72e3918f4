//! The computer thinks in slices so the app keeps drawing (CUBE-V05, SUPER-R04, V2-R07): a
//! decision taken in slices, paused and resumed as often as the clock says, is the decision
//! taken at once. Under a work limit that is exact: same action, same nodes, same depth.

use std::time::Duration;

use velha_ai::{Deliberate, Difficulty, Limits, Opponent, Rng, Thought, UltimateAi, Velha};
use velha_rules::{Cube, Level, Player, Position, Ultimate, Variant};

/// Thinks in slices of nothing (each a few units of work) until decided; counts the slices.
fn in_slices<P: Position, D: Deliberate<P>>(
    opponent: &mut D,
    earlier: &[P],
    position: &P,
    limits: Limits,
    rng: &mut Rng,
) -> (Option<P::Action>, u32) {
    opponent.start(earlier, position, limits, rng);
    let mut slices = 1;
    loop {
        match opponent.think(Duration::ZERO, rng) {
            Thought::Decided(action) => return (action, slices),
            Thought::Thinking => slices += 1,
        }
    }
}

#[test]
fn cube_v05_the_velha_decides_the_same_in_slices_as_at_once() {
    let mut paused = 0;
    for (game, level) in [Level::One, Level::Two, Level::One, Level::Two]
        .into_iter()
        .enumerate()
    {
        // Two Velhas through the same game: their tables stay the same only if every
        // search was.
        let (mut at_once, mut sliced) = (Velha::new(), Velha::new());
        let mut position = Cube::new(level);
        let mut earlier = Vec::new();
        let mut moves = Rng::new(game as u64);
        for ply in 0..24 {
            if position.status().is_over() {
                break;
            }
            let limits = Limits::work(20_000 + 7_919 * ply);
            let seed = moves.below(1 << 30) as u64;
            let whole = at_once.choose_in_game(&earlier, &position, limits, &mut Rng::new(seed));
            let (parts, slices) = in_slices(
                &mut sliced,
                &earlier,
                &position,
                limits,
                &mut Rng::new(seed),
            );
            assert_eq!(parts, whole, "{level:?}, ply {ply}: {position:?}");
            assert_eq!(sliced.stats, at_once.stats, "{level:?}, ply {ply}");
            paused += slices - 1;
            earlier.push(position);
            // Random play from here on and then: the searches meet varied positions.
            let action = if moves.chance(1, 3) {
                let legal: Vec<_> = position.legal_actions().into_iter().collect();
                moves.pick(&legal)
            } else {
                whole
            };
            position
                .play(action.expect("an ongoing game"))
                .expect("legal");
        }
    }
    assert!(paused > 1_000, "slices of nothing pause often: {paused}");
}

#[test]
fn super_r04_v2_r07_the_computer_decides_the_same_in_slices_as_at_once() {
    for variant in [Variant::Super, Variant::V2] {
        for difficulty in Difficulty::ALL {
            let (mut at_once, mut sliced) =
                (UltimateAi::new(difficulty), UltimateAi::new(difficulty));
            let mut position = Ultimate::new(variant, Player::X);
            let mut moves = Rng::new(3);
            while !position.status().is_over() {
                let limits = Limits::work(1_500);
                let seed = moves.below(1 << 30) as u64;
                let whole = at_once.choose(&position, limits, &mut Rng::new(seed));
                let (parts, _) =
                    in_slices(&mut sliced, &[], &position, limits, &mut Rng::new(seed));
                assert_eq!(parts, whole, "{variant:?} {difficulty:?}: {position:?}");
                assert_eq!(sliced.last_playouts, at_once.last_playouts);
                position
                    .play(whole.expect("an ongoing game"))
                    .expect("legal");
            }
        }
    }
}
