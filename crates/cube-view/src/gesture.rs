//! What a finger (or a mouse) means on the cube: a tap, a turn, an orbit, or a refusal
//! (CUBE-V02, V03). The legality of a turn comes from velha-rules, so the view never
//! disagrees with the engine.

use glam::{Vec2, Vec3};
use velha_rules::cube::Layer;
use velha_rules::cube::geometry::sticker_place;
use velha_rules::{Cell, Cube, CubeAction, CubeIllegal, Level, Position, Turn};

use crate::camera::Camera;
use crate::picking::{Viewport, pick, project};
use crate::scene::CUBIE_HALF;

/// Movement, in logical pixels, below which a touch is still a tap: a jittering finger is
/// not a drag.
pub const TAP_SLOP: f32 = 12.0;
/// A touch held still this long does nothing on release: a resting finger is not a tap.
pub const LONG_PRESS_MS: f64 = 700.0;

/// One pointer event in logical pixels of the drawing area (any device scale), with the
/// caller's clock in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PointerEvent {
    /// A finger touched or a button went down.
    Down {
        /// Position.
        at: Vec2,
        /// Time.
        ms: f64,
    },
    /// It moved while down.
    Move {
        /// Position.
        at: Vec2,
        /// Time.
        ms: f64,
    },
    /// It lifted.
    Up {
        /// Position.
        at: Vec2,
        /// Time.
        ms: f64,
    },
}

/// What a finished gesture means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meaning {
    /// A tap on a cell of side 1, legal for the player to move.
    Tap(Cell),
    /// A quarter turn, legal for the player to move.
    Turn(Turn),
    /// The cube was orbited (level 2, a drag that started off the cube).
    Orbit,
    /// The gesture asks for an action the rules refuse; the UI says why (CUBE-V04), and for
    /// a turn the wrong way, which way its layer may go.
    Refuse(CubeAction, CubeIllegal),
    /// Nothing: a tap off side 1 or off the cube, a long press, or a drag at level 1 off the
    /// cube.
    Nothing,
}

impl std::fmt::Display for Meaning {
    /// `tap a1`, `turn L+`, `orbit`, `refuse <reason>` or `none`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Meaning::Tap(cell) => write!(f, "tap {cell}"),
            Meaning::Turn(turn) => write!(f, "turn {turn}"),
            Meaning::Orbit => f.write_str("orbit"),
            Meaning::Refuse(_, reason) => write!(f, "refuse {reason}"),
            Meaning::Nothing => f.write_str("none"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Touch {
    /// Started on a sticker: the view is frozen until the finger lifts.
    OnCube { facelet: usize, at: Vec2, ms: f64 },
    /// Started off the cube: at level 2 it orbits.
    OffCube { last: Vec2, moved: bool },
}

/// The gesture state machine: feed it every pointer event; it orbits the camera live and
/// says what the gesture meant when the pointer lifts.
#[derive(Clone, Debug, Default)]
pub struct Gestures {
    touch: Option<Touch>,
}

impl Gestures {
    /// A recogniser with no touch in progress.
    pub fn new() -> Gestures {
        Gestures::default()
    }

    /// True while a touch that began on the cube is down (the view must stay still).
    pub fn view_frozen(&self) -> bool {
        matches!(self.touch, Some(Touch::OnCube { .. }))
    }

    /// Handles one event. Returns the meaning when the gesture ends (on `Up`).
    pub fn handle(
        &mut self,
        event: PointerEvent,
        camera: &mut Camera,
        viewport: Viewport,
        cube: &Cube,
    ) -> Option<Meaning> {
        match event {
            PointerEvent::Down { at, ms } => {
                self.touch = Some(match pick(camera, viewport, cube, at) {
                    Some(facelet) => Touch::OnCube { facelet, at, ms },
                    None => Touch::OffCube {
                        last: at,
                        moved: false,
                    },
                });
                None
            }
            PointerEvent::Move { at, .. } => {
                if let Some(Touch::OffCube { last, moved }) = &mut self.touch {
                    let delta = at - *last;
                    if *moved || delta.length() > TAP_SLOP {
                        camera.orbit(delta.x, delta.y);
                        *last = at;
                        *moved = true;
                    }
                }
                None
            }
            PointerEvent::Up { at, ms } => {
                let touch = self.touch.take()?;
                Some(match touch {
                    Touch::OffCube { last, moved } => {
                        let delta = at - last;
                        if camera.level() == Level::Two && (moved || delta.length() > TAP_SLOP) {
                            camera.orbit(delta.x, delta.y);
                            Meaning::Orbit
                        } else {
                            Meaning::Nothing
                        }
                    }
                    Touch::OnCube {
                        facelet,
                        at: start,
                        ms: start_ms,
                    } => {
                        let drag = at - start;
                        if drag.length() <= TAP_SLOP {
                            tap(cube, facelet, ms - start_ms)
                        } else {
                            let turn = turn_for_drag(camera, viewport, facelet, drag);
                            judge(cube, CubeAction::Turn(turn))
                        }
                    }
                })
            }
        }
    }
}

fn tap(cube: &Cube, facelet: usize, held_ms: f64) -> Meaning {
    let on_side1 = facelet / 9 == 2;
    match Cell::from_index(facelet % 9) {
        Some(cell) if on_side1 && held_ms < LONG_PRESS_MS => judge(cube, CubeAction::Tap(cell)),
        _ => Meaning::Nothing,
    }
}

fn judge(cube: &Cube, action: CubeAction) -> Meaning {
    match (cube.check(action), action) {
        (Err(reason), _) => Meaning::Refuse(action, reason),
        (Ok(()), CubeAction::Tap(cell)) => Meaning::Tap(cell),
        (Ok(()), CubeAction::Turn(turn)) => Meaning::Turn(turn),
    }
}

/// The turn a drag of `drag` pixels from sticker `facelet` asks for: of the two layers
/// through the sticker (about the two axes in its face's plane), the one whose rotation
/// moves the sticker on screen most nearly along the drag, in the drag's sense. This is
/// CUBE-V02's table at level 1 and its generalisation to every face at level 2.
pub fn turn_for_drag(camera: &Camera, viewport: Viewport, facelet: usize, drag: Vec2) -> Turn {
    let (cell, normal) = sticker_place(facelet);
    let centre = stickers_centre(facelet);
    let here = project(camera, viewport, centre);
    let mut best: Option<(f32, Turn)> = None;
    for axis in (0..3).filter(|&a| normal[a] == 0) {
        let unit = [Vec3::X, Vec3::Y, Vec3::Z][axis];
        // A small positive rotation about the axis moves the sticker along axis × centre; a
        // finger slides it within its face, so only the part in the face's plane counts.
        let n = Vec3::new(
            f32::from(normal[0]),
            f32::from(normal[1]),
            f32::from(normal[2]),
        );
        let motion = unit.cross(centre);
        let along_face = motion - n * motion.dot(n);
        let moved = project(camera, viewport, centre + along_face * 0.05) - here;
        let alignment = moved.normalize_or_zero().dot(drag.normalize_or_zero());
        let layer = Layer::ALL
            .into_iter()
            .find(|l| l.axis_and_coord() == (axis, cell[axis]))
            .expect("every axis and coordinate names a layer");
        let positive = alignment > 0.0;
        let turn = Turn {
            layer,
            canonical: layer.canonical_is_positive() == positive,
        };
        if best.is_none_or(|(b, _)| alignment.abs() > b) {
            best = Some((alignment.abs(), turn));
        }
    }
    best.expect("two axes lie in every face").1
}

fn stickers_centre(facelet: usize) -> Vec3 {
    let (cell, normal) = sticker_place(facelet);
    let v = |a: [i8; 3]| Vec3::new(f32::from(a[0]), f32::from(a[1]), f32::from(a[2]));
    v(cell) + v(normal) * CUBIE_HALF
}
