//! Where the cube is seen from: fixed at level 1, orbiting at level 2 (CUBE-V02, V03).

use glam::{Mat4, Vec3};
use velha_rules::Level;

/// Yaw and pitch of the fixed level-1 view (degrees): side 1 from the front, a little from
/// the right and above, so U and R show.
pub const LEVEL1_YAW: f32 = 28.0;
/// See [`LEVEL1_YAW`].
pub const LEVEL1_PITCH: f32 = 24.0;
/// The orbit never tilts past this (degrees), so the cube is never upside down.
pub const MAX_PITCH: f32 = 80.0;
/// Degrees of orbit per logical pixel of drag.
pub const ORBIT_DEGREES_PER_PIXEL: f32 = 0.4;
const FOV_Y: f32 = 30.0;
/// Radius that must fit in the view: the cube's corner, with room for a turning layer.
const FIT_RADIUS: f32 = 2.75;

/// A camera looking at the cube's centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    level: Level,
    yaw: f32,
    pitch: f32,
}

impl Camera {
    /// The starting view of a level.
    pub fn new(level: Level) -> Camera {
        Camera {
            level,
            yaw: LEVEL1_YAW,
            pitch: LEVEL1_PITCH,
        }
    }

    /// A level-2 camera at `yaw` and `pitch` degrees (pitch clamped); level 1 ignores them.
    pub fn with_angles(level: Level, yaw: f32, pitch: f32) -> Camera {
        let mut camera = Camera::new(level);
        if level == Level::Two {
            camera.yaw = yaw.rem_euclid(360.0);
            camera.pitch = pitch.clamp(-MAX_PITCH, MAX_PITCH);
        }
        camera
    }

    /// Turns the view by a drag of (`dx`, `dy`) logical pixels; level 1 never moves.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        if self.level == Level::Two {
            *self = Camera::with_angles(
                self.level,
                self.yaw - dx * ORBIT_DEGREES_PER_PIXEL,
                self.pitch + dy * ORBIT_DEGREES_PER_PIXEL,
            );
        }
    }

    /// The level this camera serves.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Yaw in degrees (0 = straight at side 1, positive = from the right).
    pub fn yaw(&self) -> f32 {
        self.yaw
    }

    /// Pitch in degrees (positive = from above).
    pub fn pitch(&self) -> f32 {
        self.pitch
    }

    /// The eye position.
    pub fn eye(&self, aspect: f32) -> Vec3 {
        let (yaw, pitch) = (self.yaw.to_radians(), self.pitch.to_radians());
        let dir = Vec3::new(
            yaw.sin() * pitch.cos(),
            pitch.sin(),
            yaw.cos() * pitch.cos(),
        );
        dir * self.distance(aspect)
    }

    /// Far enough that the cube fits the narrower side of the view.
    fn distance(&self, aspect: f32) -> f32 {
        let half_y = (FOV_Y / 2.0).to_radians();
        let half_x = (half_y.tan() * aspect).atan();
        FIT_RADIUS / half_y.min(half_x).sin()
    }

    /// World → clip space for a view of `aspect` (width / height). Clip z is in 0–1 (wgpu).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let eye = self.eye(aspect);
        let view = Mat4::look_at_rh(eye, Vec3::ZERO, Vec3::Y);
        let d = self.distance(aspect);
        let proj = Mat4::perspective_rh(FOV_Y.to_radians(), aspect, (d - 4.0).max(0.1), d + 4.0);
        proj * view
    }
}
