//! The cube as flat shapes, far to near, for a 2D canvas: what the browser draws while the
//! painter module downloads, when it could not be fetched, and without WebGL2.
//!
//! Every cubie face and sticker that faces the eye, far to near, lit as `shaders/cube.wgsl`
//! lights them; only the bodies' rounded edges are left out. A still cube's cubies are separate
//! boxes on a grid, so their faces' distances to the eye order them. A layer part-way through a
//! turn is not on that grid, but it stays between the two planes that bound it across the
//! turn's axis: the slabs across that axis go first, farthest from the eye first, and within
//! one slab the grid's order holds (a turning layer is a grid turned as one). A sticker comes as
//! the affine map of its square at its centre, so a drawer keeps the shader's shapes for its
//! marks.

use glam::{Vec2, Vec3};
use velha_rules::Cube;
use velha_rules::cube::Sticker;
use velha_rules::cube::geometry::sticker_place;

use crate::camera::Camera;
use crate::palette::{self, Srgb};
use crate::picking::{Viewport, project};
use crate::scene::{CUBIE_HALF, STICKER_HALF, Spin, cubies, stickers};

/// One shape to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// A cubie's face.
    Face {
        /// The cubie's place on the grid before any turn in progress.
        cubie: [i8; 3],
        /// Which of its faces: the outward direction, before any turn in progress.
        out: [i8; 3],
        /// Its corners on the screen, in order.
        corners: [Vec2; 4],
        /// Its lit colour.
        colour: Srgb,
    },
    /// A sticker.
    Sticker {
        /// Its facelet (cube.md's order).
        facelet: usize,
        /// The map of its square [-1, 1]² onto the screen, as a 2D canvas's transform takes
        /// it: `x' = a x + c y + e`, `y' = b x + d y + f` for `[a, b, c, d, e, f]`.
        map: [f32; 6],
        /// What it shows.
        state: Sticker,
        /// On a line that ended the game: ringed.
        winning: bool,
        /// The light it gets, for [`lit`].
        light: f32,
    },
}

fn unit(axis: usize) -> Vec3 {
    [Vec3::X, Vec3::Y, Vec3::Z][axis]
}

/// How much light a surface facing `normal` gets: the shader's key and fill lights.
fn light(normal: Vec3) -> f32 {
    let key = normal.dot(Vec3::new(0.45, 0.8, 0.6).normalize()).max(0.0);
    let fill = normal.dot(Vec3::new(-0.6, -0.2, 0.5).normalize()).max(0.0);
    0.42 + 0.55 * key + 0.12 * fill
}

/// `colour` under `light`. The shader scales linear light; a square root is close enough to the
/// sRGB curve for this drawing, and keeps a power function out of the browser's first module.
pub fn lit(colour: Srgb, light: f32) -> Srgb {
    let k = light.sqrt();
    let c = |v: u8| (f32::from(v) * k).min(255.0) as u8;
    Srgb(c(colour.0), c(colour.1), c(colour.2))
}

/// `a` moved `t` of the way to `b`.
pub fn mix(a: Srgb, b: Srgb, t: f32) -> Srgb {
    let m = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t) as u8;
    Srgb(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

/// How far a shape is from the eye: its slab's distance across a turn's axis, then its own.
type Depth = (f32, f32);

/// Puts `shape` after every farther one. A few dozen shapes: a library sort's code would weigh
/// more in the browser's first module than this.
fn far_to_near(shapes: &mut Vec<(Depth, Shape)>, depth: Depth, shape: Shape) {
    let at = shapes
        .iter()
        .position(|(d, _)| *d < depth)
        .unwrap_or(shapes.len());
    shapes.insert(at, (depth, shape));
}

/// What `cube` looks like from `camera` with `spin` in progress on a canvas of `viewport`
/// (any unit: the shapes come in it), far to near.
pub fn shapes(cube: &Cube, camera: &Camera, spin: Option<Spin>, viewport: Viewport) -> Vec<Shape> {
    let eye = camera.eye(viewport.aspect());
    let at = |p: Vec3| project(camera, viewport, p);
    // A layer part-way through a turn opens the faces between it and the rest.
    let moving = |cell: [i8; 3]| spin.is_some_and(|s| s.moves(cell));
    // Across a turn's axis, how far the slab of a cubie is from the eye.
    let slab = |cell: [i8; 3]| {
        spin.map_or(0.0, |s| {
            let (axis, _) = s.turn.layer.axis_and_coord();
            (f32::from(cell[axis]) - eye[axis]).abs()
        })
    };
    let mut shapes: Vec<(Depth, Shape)> = Vec::with_capacity(80);
    for cubie in cubies(spin) {
        let base = if cubie.side1 {
            palette::SIDE1_BODY
        } else {
            palette::BODY
        };
        for axis in 0..3 {
            for sign in [-1i8, 1] {
                let mut next = cubie.cell;
                next[axis] += sign;
                if next[axis].abs() <= 1 && moving(next) == moving(cubie.cell) {
                    continue;
                }
                let out = unit(axis) * f32::from(sign);
                let normal = cubie.model.transform_vector3(out);
                let centre = cubie.model.transform_point3(out * CUBIE_HALF);
                if normal.dot(eye - centre) <= 0.0 {
                    continue;
                }
                let (u, v) = (unit((axis + 1) % 3), unit((axis + 2) % 3));
                let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(a, b)| {
                    at(cubie
                        .model
                        .transform_point3((out + u * a + v * b) * CUBIE_HALF))
                });
                let mut out_cell = [0; 3];
                out_cell[axis] = sign;
                let shape = Shape::Face {
                    cubie: cubie.cell,
                    out: out_cell,
                    corners,
                    colour: lit(base, light(normal)),
                };
                let depth = (slab(cubie.cell), centre.distance_squared(eye));
                far_to_near(&mut shapes, depth, shape);
            }
        }
    }
    for s in stickers(cube, spin) {
        if s.normal.dot(eye - s.center) <= 0.0 {
            continue;
        }
        // Differences across the whole sticker, so perspective shifts it by no pixel.
        let o = at(s.center);
        let across = |axis: Vec3| (at(s.center + axis) - at(s.center - axis)) / 2.0;
        let (x, y) = (
            across(s.axes[0] * STICKER_HALF),
            across(s.axes[1] * STICKER_HALF),
        );
        let shape = Shape::Sticker {
            facelet: s.facelet,
            map: [x.x, x.y, y.x, y.y, o.x, o.y],
            state: s.state,
            winning: s.winning,
            light: light(s.normal),
        };
        let depth = (
            slab(sticker_place(s.facelet).0),
            s.center.distance_squared(eye),
        );
        far_to_near(&mut shapes, depth, shape);
    }
    shapes.into_iter().map(|(_, shape)| shape).collect()
}
