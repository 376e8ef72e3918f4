//! What the cube-view tests that walk random positions and views share.

use velha_cube_view::camera::Camera;
use velha_rules::{Cube, Level, Position};

/// A small deterministic random source.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// A position after up to `plies` random legal actions.
pub fn random_cube(level: Level, plies: usize, rng: &mut Rng) -> Cube {
    let mut cube = Cube::new(level);
    for _ in 0..plies {
        let legal = cube.legal_actions();
        if legal.is_empty() {
            break;
        }
        cube.play(legal.nth_action(rng.below(legal.len())).unwrap())
            .unwrap();
    }
    cube
}

/// Level 1 for every third case.
pub fn level_of(case: usize) -> Level {
    if case.is_multiple_of(3) {
        Level::One
    } else {
        Level::Two
    }
}

/// Level 1's one view, or level 2's at a random yaw and pitch.
pub fn random_camera(level: Level, rng: &mut Rng) -> Camera {
    match level {
        Level::One => Camera::new(Level::One),
        Level::Two => Camera::with_angles(
            Level::Two,
            rng.below(360) as f32,
            rng.below(140) as f32 - 70.0,
        ),
    }
}
