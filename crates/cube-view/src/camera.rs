//! Where the cube is seen from: fixed at level 1, orbiting at level 2 (CUBE-V02, V03).

use glam::{Mat4, Vec3};
use velha_rules::Level;

use crate::scene::ease;

/// Yaw and pitch of the fixed level-1 view (degrees): side 1 from the front, a little from
/// the right and above, so U and R show.
pub const LEVEL1_YAW: f32 = 28.0;
/// See [`LEVEL1_YAW`].
pub const LEVEL1_PITCH: f32 = 24.0;
/// The orbit never tilts past this (degrees), so the cube is never upside down.
pub const MAX_PITCH: f32 = 80.0;
/// Degrees of orbit per logical pixel of drag.
pub const ORBIT_DEGREES_PER_PIXEL: f32 = 0.4;
/// How long the view takes to come back to the front, about a quarter turn's time.
pub const BACK_TO_FRONT_MS: f64 = 300.0;
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

    /// The level's starting view: side 1 from the front, U and R showing.
    pub fn front(&self) -> Camera {
        Camera::new(self.level)
    }

    /// Part of the way from this view to `to` (`t` from 0 to 1), the shorter way round.
    pub fn towards(&self, to: Camera, t: f32) -> Camera {
        let yaw = (to.yaw - self.yaw + 180.0).rem_euclid(360.0) - 180.0;
        Camera {
            level: to.level,
            yaw: (self.yaw + yaw * t).rem_euclid(360.0),
            pitch: self.pitch + (to.pitch - self.pitch) * t,
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

/// The view on its way back to the front ("Ver de frente"), driven by the caller's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackToFront {
    /// Where the view was when it was asked back.
    pub from: Camera,
    /// When, in the caller's milliseconds.
    pub start_ms: f64,
}

impl BackToFront {
    /// The view at `now_ms`, or `None` once it is back at the front.
    pub fn at(&self, now_ms: f64) -> Option<Camera> {
        let t = ((now_ms - self.start_ms) / BACK_TO_FRONT_MS).max(0.0);
        (t < 1.0).then(|| self.from.towards(self.from.front(), ease(t as f32)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_to_front_eases_the_shorter_way_round_and_arrives() {
        let from = Camera::with_angles(Level::Two, 340.0, -50.0);
        let back = BackToFront {
            from,
            start_ms: 1000.0,
        };
        assert_eq!(back.at(1000.0), Some(from));
        let half = back.at(1000.0 + BACK_TO_FRONT_MS / 2.0).unwrap();
        // From 340° to 28° through 0°, not back through 180°.
        assert!((half.yaw() - 4.0).abs() < 1e-3, "{}", half.yaw());
        assert!((half.pitch() - (-13.0)).abs() < 1e-3, "{}", half.pitch());
        assert_eq!(back.at(1000.0 + BACK_TO_FRONT_MS), None);
        assert_eq!(from.towards(from.front(), 1.0), Camera::new(Level::Two));
    }
}
