//! Where every cubie and sticker is, for a position and an optional turn in progress.
//!
//! Cubie centres sit on the integer grid {-1, 0, 1}³ (world units), so side 1 faces +z at
//! z = 1.5. A turn in progress rotates its layer's cubies and stickers about the layer's
//! axis; the position itself changes only when the turn ends.

use glam::{Mat4, Quat, Vec3};
use velha_rules::cube::Sticker;
use velha_rules::cube::geometry::{F_SHIFT, sticker_place};
use velha_rules::{Cube, Turn};

/// Half the size of a cubie: a little under 0.5 so that dark gaps show between them.
pub const CUBIE_HALF: f32 = 0.475;
/// Half the size of a sticker on its cubie face.
pub const STICKER_HALF: f32 = 0.40;

/// How long a quarter turn takes on screen (CUBE-V04: 150–250 ms).
pub const TURN_MS: f64 = 200.0;

/// A layer part-way through a quarter turn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spin {
    /// The turn being shown.
    pub turn: Turn,
    /// How far, 0 (not started) to 1 (done), already eased.
    pub progress: f32,
}

impl Spin {
    /// The rotation the layer has made so far.
    pub fn rotation(&self) -> Quat {
        let (axis, _) = self.turn.layer.axis_and_coord();
        let positive = self.turn.layer.canonical_is_positive() == self.turn.canonical;
        let angle = std::f32::consts::FRAC_PI_2 * self.progress * if positive { 1.0 } else { -1.0 };
        Quat::from_axis_angle(unit(axis), angle)
    }

    /// Whether the cubie at `cubie` (before the turn) is in the turning layer.
    pub fn moves(&self, cubie: [i8; 3]) -> bool {
        let (axis, coord) = self.turn.layer.axis_and_coord();
        cubie[axis] == coord
    }
}

/// A quarter turn being animated, driven by the caller's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnAnimation {
    /// The turn shown.
    pub turn: Turn,
    /// When it started, in the caller's milliseconds.
    pub start_ms: f64,
}

impl TurnAnimation {
    /// The layer's state at `now_ms`, or `None` once the turn is over (then the caller shows
    /// the new position).
    pub fn spin(&self, now_ms: f64) -> Option<Spin> {
        let t = ((now_ms - self.start_ms) / TURN_MS).max(0.0);
        (t < 1.0).then(|| Spin {
            turn: self.turn,
            progress: ease(t as f32),
        })
    }
}

/// Slow out, fast through, slow in: a cubic ease-in-out.
pub fn ease(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    if t < 0.5 {
        4.0 * t * t * t
    } else {
        1.0 - (-2.0 * t + 2.0).powi(3) / 2.0
    }
}

fn unit(axis: usize) -> Vec3 {
    [Vec3::X, Vec3::Y, Vec3::Z][axis]
}

fn v(a: [i8; 3]) -> Vec3 {
    Vec3::new(f32::from(a[0]), f32::from(a[1]), f32::from(a[2]))
}

/// One cubie on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubiePlace {
    /// Grid position before any turn in progress.
    pub cell: [i8; 3],
    /// Model transform (rotation of a turn in progress, then position).
    pub model: Mat4,
    /// On side 1 (z = +1): drawn sky blue (CUBE-V01).
    pub side1: bool,
}

/// One sticker on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickerPlace {
    /// Facelet index (cube.md's order).
    pub facelet: usize,
    /// Centre of the sticker, on the cubie's surface.
    pub center: Vec3,
    /// Outward normal.
    pub normal: Vec3,
    /// Unit axes spanning the sticker's plane.
    pub axes: [Vec3; 2],
    /// What it shows.
    pub state: Sticker,
    /// On a line of side 1 that ended the game (CUBE-R11, R12): drawn ringed, so the end
    /// shows why.
    pub winning: bool,
}

impl StickerPlace {
    /// Model transform of a unit quad ([-1, 1]² in xy, +z out) onto the sticker.
    pub fn model(&self, half: f32) -> Mat4 {
        Mat4::from_cols(
            (self.axes[0] * half).extend(0.0),
            (self.axes[1] * half).extend(0.0),
            self.normal.extend(0.0),
            self.center.extend(1.0),
        )
    }
}

/// The 27 cubies, with a turn in progress applied.
pub fn cubies(spin: Option<Spin>) -> Vec<CubiePlace> {
    let mut out = Vec::with_capacity(27);
    for x in -1..=1i8 {
        for y in -1..=1i8 {
            for z in -1..=1i8 {
                let cell = [x, y, z];
                let rotation = spin
                    .filter(|s| s.moves(cell))
                    .map_or(Quat::IDENTITY, |s| s.rotation());
                out.push(CubiePlace {
                    cell,
                    model: Mat4::from_quat(rotation) * Mat4::from_translation(v(cell)),
                    side1: z == 1,
                });
            }
        }
    }
    out
}

/// The 54 stickers of `cube`, with a turn in progress applied.
pub fn stickers(cube: &Cube, spin: Option<Spin>) -> Vec<StickerPlace> {
    let lines = cube
        .winning_lines()
        .fold(0, |cells, (_, line)| cells | line);
    let winning = u64::from(lines) << F_SHIFT;
    (0..54)
        .map(|facelet| {
            let (cell, normal) = sticker_place(facelet);
            let rotation = spin
                .filter(|s| s.moves(cell))
                .map_or(Quat::IDENTITY, |s| s.rotation());
            let n = v(normal);
            let a = if n.x != 0.0 { Vec3::Z } else { Vec3::X };
            let b = n.cross(a);
            StickerPlace {
                facelet,
                center: rotation * (v(cell) + n * (CUBIE_HALF + 0.004)),
                normal: rotation * n,
                axes: [rotation * a, rotation * b],
                state: cube.sticker(facelet),
                winning: winning >> facelet & 1 == 1,
            }
        })
        .collect()
}

/// A facelet's name: face letter and 1–9 in reading order (`F1`, `U9`).
pub fn facelet_name(facelet: usize) -> String {
    format!(
        "{}{}",
        ['U', 'R', 'F', 'D', 'L', 'B'][facelet / 9],
        facelet % 9 + 1
    )
}
