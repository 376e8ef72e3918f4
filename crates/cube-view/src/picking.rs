//! From a point on the screen to the sticker under it, and back.

use glam::{Vec2, Vec3, Vec4Swizzles};
use velha_rules::Cube;

use crate::camera::Camera;
use crate::scene::{StickerPlace, stickers};

/// The size of the drawing area in logical pixels (the units pointer events come in).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Width in logical pixels.
    pub width: f32,
    /// Height in logical pixels.
    pub height: f32,
}

impl Viewport {
    /// Width over height.
    pub fn aspect(&self) -> f32 {
        self.width / self.height
    }
}

/// A ray from the eye through a screen point: origin and unit direction.
pub fn ray(camera: &Camera, viewport: Viewport, point: Vec2) -> (Vec3, Vec3) {
    let inverse = camera.view_proj(viewport.aspect()).inverse();
    let ndc = Vec2::new(
        2.0 * point.x / viewport.width - 1.0,
        1.0 - 2.0 * point.y / viewport.height,
    );
    let near = inverse * ndc.extend(0.0).extend(1.0);
    let far = inverse * ndc.extend(1.0).extend(1.0);
    let (near, far) = (near.xyz() / near.w, far.xyz() / far.w);
    (near, (far - near).normalize())
}

/// Where a world point appears on the screen, in logical pixels (y down).
pub fn project(camera: &Camera, viewport: Viewport, world: Vec3) -> Vec2 {
    let clip = camera.view_proj(viewport.aspect()) * world.extend(1.0);
    let ndc = clip.xy() / clip.w;
    Vec2::new(
        (ndc.x + 1.0) * 0.5 * viewport.width,
        (1.0 - ndc.y) * 0.5 * viewport.height,
    )
}

/// Faces seen more edge-on than this (cosine of the angle to the line of sight) count as
/// hidden: nobody can aim at a sliver, and picking them would be a guess.
pub const MIN_FACING: f32 = 0.12;

/// Whether a sticker faces the eye well enough to be seen and touched (every such sticker
/// of the convex cube is unobstructed).
pub fn faces_eye(camera: &Camera, viewport: Viewport, sticker: &StickerPlace) -> bool {
    let towards_eye = (camera.eye(viewport.aspect()) - sticker.center).normalize();
    sticker.normal.dot(towards_eye) > MIN_FACING
}

/// The sticker under `point` (its whole cubie face counts, gaps included), if any.
pub fn pick(camera: &Camera, viewport: Viewport, cube: &Cube, point: Vec2) -> Option<usize> {
    let (origin, dir) = ray(camera, viewport, point);
    let mut best: Option<(f32, usize)> = None;
    for s in stickers(cube, None) {
        let facing = dir.dot(s.normal);
        if facing >= -MIN_FACING {
            continue;
        }
        // The cell on the cube's bounding surface, so the 54 cells tile it with no overlap.
        let cell_centre = s.center + s.normal * (1.5 - s.center.dot(s.normal));
        let t = (cell_centre - origin).dot(s.normal) / facing;
        let hit = origin + dir * t;
        let local = hit - cell_centre;
        let inside = local.dot(s.axes[0]).abs() <= 0.5 && local.dot(s.axes[1]).abs() <= 0.5;
        if t > 0.0 && inside && best.is_none_or(|(bt, _)| t < bt) {
            best = Some((t, s.facelet));
        }
    }
    best.map(|(_, facelet)| facelet)
}

/// The screen centre of every visible sticker, by facelet.
pub fn visible_centres(camera: &Camera, viewport: Viewport, cube: &Cube) -> Vec<(usize, Vec2)> {
    stickers(cube, None)
        .iter()
        .filter(|s| faces_eye(camera, viewport, s))
        .map(|s| (s.facelet, project(camera, viewport, s.center)))
        .collect()
}
