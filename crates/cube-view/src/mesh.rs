//! What the GPU draws, in the layout `shaders/cube.wgsl` reads, with no graphics API: the
//! cubie body's mesh, a frame's uniforms and its instances. The wgpu renderer
//! (`crate::render`, not built for wasm) and the browser's WebGL2 painter (`velha-cube-paint`) upload the same
//! bytes.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};
use velha_rules::Cube;
use velha_rules::Player;
use velha_rules::cube::Sticker;

use crate::camera::Camera;
use crate::palette;
use crate::scene::{CUBIE_HALF, STICKER_HALF, Spin, cubies, stickers};

/// Draw calls one frame records: the bodies, then the stickers.
pub const DRAW_CALLS_PER_FRAME: u32 = 2;
/// Corner radius of a cubie body.
const BODY_RADIUS: f32 = 0.085;
/// The bit of a sticker's state that rings it as part of a winning line (`shaders/cube.wgsl`).
const WINNING: u32 = 4;
/// Vertices of one sticker's quad, made in the shader from the vertex index.
pub const STICKER_VERTICES: u32 = 6;
/// Bodies drawn a frame, one instance each: every cubie's.
pub const BODIES: u32 = 27;
/// Stickers drawn a frame, one instance each: nine on each of six sides.
pub const STICKERS: u32 = 54;

/// What one frame shows.
#[derive(Clone, Copy, Debug)]
pub struct FrameInput<'a> {
    /// The position shown (before any turn in progress).
    pub cube: &'a Cube,
    /// The view.
    pub camera: &'a Camera,
    /// A turn in progress, if any.
    pub spin: Option<Spin>,
}

/// The shader's `Frame`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct FrameUniform {
    view_proj: [[f32; 4]; 4],
    light: [f32; 4],
    params: [f32; 4],
    blank: [f32; 4],
    spent: [f32; 4],
    x_mark: [f32; 4],
    o_mark: [f32; 4],
    win: [f32; 4],
}

/// A vertex of the body's mesh: locations 0 and 1 of `body_vs`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct BodyVertex {
    position: [f32; 3],
    normal: [f32; 3],
}

/// One cubie body: locations 2 to 5 (the model's columns) and 6 of `body_vs`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct BodyInstance {
    model: [[f32; 4]; 4],
    colour: [f32; 4],
}

/// One sticker: locations 0 to 3 (the model's columns) and 4 of `sticker_vs`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct StickerInstance {
    model: [[f32; 4]; 4],
    state: u32,
}

fn linear4(c: palette::Srgb) -> [f32; 4] {
    let [r, g, b] = c.linear();
    [r, g, b, 1.0]
}

/// The frame's uniforms for clip space `view_proj`; `encode_srgb` for a target that is not
/// sRGB itself.
pub fn frame_uniform(view_proj: Mat4, encode_srgb: bool) -> FrameUniform {
    FrameUniform {
        view_proj: view_proj.to_cols_array_2d(),
        light: Vec3::new(0.45, 0.8, 0.6).normalize().extend(0.0).into(),
        params: [if encode_srgb { 1.0 } else { 0.0 }, 0.0, 0.0, 0.0],
        blank: linear4(palette::BLANK),
        spent: linear4(palette::SPENT),
        x_mark: linear4(palette::X_MARK),
        o_mark: linear4(palette::O_MARK),
        win: linear4(palette::WIN),
    }
}

/// The view and projection of `camera` for a target of `width` × `height`.
pub fn view_proj(camera: &Camera, width: u32, height: u32) -> Mat4 {
    camera.view_proj(width as f32 / height.max(1) as f32)
}

/// The [`BODIES`] bodies, a turning layer's turned by `spin`.
pub fn body_instances(spin: Option<Spin>) -> Vec<BodyInstance> {
    cubies(spin)
        .iter()
        .map(|c| BodyInstance {
            model: c.model.to_cols_array_2d(),
            colour: linear4(if c.side1 {
                palette::SIDE1_BODY
            } else {
                palette::BODY
            }),
        })
        .collect()
}

/// The [`STICKERS`] stickers of `cube`, a turning layer's turned by `spin`.
pub fn sticker_instances(cube: &Cube, spin: Option<Spin>) -> Vec<StickerInstance> {
    stickers(cube, spin)
        .iter()
        .map(|s| StickerInstance {
            model: s.model(STICKER_HALF).to_cols_array_2d(),
            state: match s.state {
                Sticker::Blank => 0,
                Sticker::Spent => 1,
                Sticker::Mark(Player::X) => 2,
                Sticker::Mark(Player::O) => 3,
            } | if s.winning { WINNING } else { 0 },
        })
        .collect()
}

/// The cubie body: a rounded box of half-size [`CUBIE_HALF`], each face a grid that is dense
/// near the edges, where the rounding is; triangles wound outward.
pub fn rounded_box() -> (Vec<BodyVertex>, Vec<u16>) {
    let h = CUBIE_HALF;
    let flat = (h - BODY_RADIUS) / h;
    let steps: Vec<f32> = [-1.0, -0.985, -0.95, -0.9, -flat - (1.0 - flat) * 0.2, -flat]
        .into_iter()
        .chain([flat, flat + (1.0 - flat) * 0.2, 0.9, 0.95, 0.985, 1.0])
        .collect();
    let n = steps.len();
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let base = vertices.len() as u16;
            for &a in &steps {
                for &b in &steps {
                    let mut p = [0.0; 3];
                    p[axis] = sign;
                    p[(axis + 1) % 3] = a;
                    p[(axis + 2) % 3] = b;
                    let q = Vec3::from(p) * h;
                    let inner = q.clamp(
                        Vec3::splat(-(h - BODY_RADIUS)),
                        Vec3::splat(h - BODY_RADIUS),
                    );
                    let normal = (q - inner).normalize_or_zero();
                    vertices.push(BodyVertex {
                        position: (inner + normal * BODY_RADIUS).into(),
                        normal: normal.into(),
                    });
                }
            }
            for i in 0..n - 1 {
                for j in 0..n - 1 {
                    let at = |i: usize, j: usize| base + (i * n + j) as u16;
                    let quad = [
                        at(i, j),
                        at(i + 1, j),
                        at(i + 1, j + 1),
                        at(i, j),
                        at(i + 1, j + 1),
                        at(i, j + 1),
                    ];
                    // Keep the winding outward on both signs of every axis.
                    if sign > 0.0 {
                        indices.extend(quad);
                    } else {
                        indices.extend(quad.iter().rev());
                    }
                }
            }
        }
    }
    (vertices, indices)
}
