//! The flat drawing (`flat`) against the ray-cast picker and the scene: what is on top at each
//! sticker's centre, and the colours of side 1's margins.

use glam::Vec2;
use velha_cube_view::camera::Camera;
use velha_cube_view::flat::{Shape, shapes};
use velha_cube_view::palette::{ColourClass, classify};
use velha_cube_view::picking::{Viewport, faces_eye, pick, project};
use velha_cube_view::scene::{Spin, facelet_name, stickers};
use velha_rules::{Cube, Level, Position, Turn};

/// A small deterministic random source.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn random_cube(level: Level, plies: usize, rng: &mut Rng) -> Cube {
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

fn random_view(rng: &mut Rng, case: usize) -> (Level, Camera, Viewport) {
    let level = if case.is_multiple_of(3) {
        Level::One
    } else {
        Level::Two
    };
    let camera = match level {
        Level::One => Camera::new(Level::One),
        Level::Two => Camera::with_angles(
            Level::Two,
            rng.below(360) as f32,
            rng.below(140) as f32 - 70.0,
        ),
    };
    let (width, height) = [(360.0, 640.0), (664.0, 664.0), (640.0, 400.0)][case % 3];
    (level, camera, Viewport { width, height })
}

/// Whether `p` is inside `shape` (a sticker's square without its rounded corners).
fn contains(shape: &Shape, p: Vec2) -> bool {
    match shape {
        Shape::Face(corners, _) => {
            let side = |i: usize| {
                let (a, b) = (corners[i], corners[(i + 1) % 4]);
                (b - a).perp_dot(p - a)
            };
            let sides = [side(0), side(1), side(2), side(3)];
            sides.iter().all(|s| *s >= 0.0) || sides.iter().all(|s| *s <= 0.0)
        }
        Shape::Sticker { map, winning, .. } => {
            // A winning sticker's ring reaches past its square, as the shader's quad grows.
            let half = if *winning { 1.16 } else { 1.0 };
            let [a, b, c, d, e, f] = *map;
            let (x, y) = (p.x - e, p.y - f);
            let det = a * d - b * c;
            let u = (d * x - c * y) / det;
            let v = (a * y - b * x) / det;
            u.abs() <= half && v.abs() <= half
        }
    }
}

/// The shape a 2D canvas shows at `p`: the last drawn that covers it.
fn on_top(shapes: &[Shape], p: Vec2) -> Option<&Shape> {
    shapes.iter().rev().find(|s| contains(s, p))
}

#[test]
fn cube_v01_the_flat_drawing_shows_each_sticker_the_picker_finds_and_side1_sky_blue() {
    let mut rng = Rng(29);
    let mut checked = 0;
    for case in 0..300 {
        let (level, camera, viewport) = random_view(&mut rng, case);
        let cube = random_cube(level, rng.below(70), &mut rng);
        let drawn = shapes(&cube, &camera, None, viewport);
        for s in stickers(&cube, None)
            .iter()
            .filter(|s| faces_eye(&camera, viewport, s))
        {
            let at = project(&camera, viewport, s.center);
            // The picker casts a ray through the cube: an oracle that knows nothing of order.
            assert_eq!(pick(&camera, viewport, &cube, at), Some(s.facelet));
            match on_top(&drawn, at) {
                Some(Shape::Sticker { facelet, state, .. }) => {
                    assert_eq!(
                        *facelet,
                        s.facelet,
                        "case {case}: {}",
                        facelet_name(s.facelet)
                    );
                    assert_eq!(*state, s.state);
                }
                other => panic!(
                    "case {case}: {} is under {other:?}",
                    facelet_name(s.facelet)
                ),
            }
            let towards_eye = (camera.eye(viewport.aspect()) - s.center).normalize();
            if s.facelet / 9 == 2 && s.normal.dot(towards_eye) > 0.5 {
                // Past the sticker's edge, on its cubie: sky blue, or the ring of a winning
                // line (drawn with the sticker).
                let margin = project(&camera, viewport, s.center + s.axes[1] * 0.43);
                match on_top(&drawn, margin) {
                    Some(Shape::Face(_, colour)) if !s.winning => assert_eq!(
                        classify([colour.0, colour.1, colour.2]),
                        ColourClass::SkyBlue,
                        "case {case}: {}",
                        facelet_name(s.facelet)
                    ),
                    Some(Shape::Sticker {
                        facelet,
                        winning: true,
                        ..
                    }) if s.winning => assert_eq!(*facelet, s.facelet),
                    other => panic!(
                        "case {case}: the margin of {} shows {other:?}",
                        facelet_name(s.facelet)
                    ),
                }
            }
            checked += 1;
        }
        // A sticker turned away from the eye is not drawn at all.
        let seen = drawn
            .iter()
            .filter(|s| matches!(s, Shape::Sticker { .. }))
            .count();
        let facing = stickers(&cube, None)
            .iter()
            .filter(|s| s.normal.dot(camera.eye(viewport.aspect()) - s.center) > 0.0)
            .count();
        assert_eq!(seen, facing);
    }
    assert!(checked > 4000, "{checked}");
}

#[test]
fn cube_v04_a_turning_layer_is_drawn_turned_with_the_faces_it_opens() {
    let cube = Cube::new(Level::Two);
    let camera = Camera::with_angles(Level::Two, 30.0, 25.0);
    let viewport = Viewport {
        width: 500.0,
        height: 500.0,
    };
    let faces = |spin: Option<Spin>| {
        shapes(&cube, &camera, spin, viewport)
            .iter()
            .filter(|s| matches!(s, Shape::Face(..)))
            .count()
    };
    // Still, only the cube's outside: three faces of 9 cubies each.
    assert_eq!(faces(None), 27);
    let spin = |progress| {
        Some(Spin {
            turn: "U+".parse::<Turn>().unwrap(),
            progress,
        })
    };
    // Part-way, the cut between the turning layer and the rest shows.
    assert!(faces(spin(0.3)) > 27, "{}", faces(spin(0.3)));
    // The stickers of the turning layer move with it; the others stay.
    let still = shapes(&cube, &camera, None, viewport);
    let turning = shapes(&cube, &camera, spin(0.3), viewport);
    let centre = |shapes: &[Shape], name: usize| {
        shapes.iter().find_map(|s| match s {
            Shape::Sticker { facelet, map, .. } if *facelet == name => {
                Some(Vec2::new(map[4], map[5]))
            }
            _ => None,
        })
    };
    let (f1, f9) = (18, 26);
    assert_ne!(
        centre(&still, f1),
        centre(&turning, f1),
        "F1 is on U's layer"
    );
    assert_eq!(centre(&still, f9), centre(&turning, f9), "F9 is not");
}
