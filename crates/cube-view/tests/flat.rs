//! The flat drawing (`flat`) against rays cast through the scene: what is on top at each
//! sticker's centre and across every shape, still and with a layer part-way through a turn,
//! and the colours of side 1's margins.

use glam::{Vec2, Vec3};
use velha_cube_view::camera::Camera;
use velha_cube_view::flat::{Shape, shapes};
use velha_cube_view::palette::{ColourClass, classify};
use velha_cube_view::picking::{Viewport, faces_eye, pick, project, ray};
use velha_cube_view::scene::{CUBIE_HALF, STICKER_HALF, Spin, cubies, facelet_name, stickers};
use velha_rules::{Cube, Level, Turn};

mod common;
use common::{Rng, level_of, random_camera, random_cube};

fn random_view(rng: &mut Rng, case: usize) -> (Level, Camera, Viewport) {
    let level = level_of(case);
    let camera = random_camera(level, rng);
    let (width, height) = [(360.0, 640.0), (664.0, 664.0), (640.0, 400.0)][case % 3];
    (level, camera, Viewport { width, height })
}

/// Whether `p` is inside `shape` (a sticker's square without its rounded corners).
fn contains(shape: &Shape, p: Vec2) -> bool {
    match shape {
        Shape::Face { corners, .. } => {
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
                    Some(Shape::Face { colour, .. }) if !s.winning => assert_eq!(
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
            .filter(|s| matches!(s, Shape::Face { .. }))
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

/// What a ray meets: a cubie's face (its cell and outward direction before the turn) or a
/// sticker.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Part {
    Face([i8; 3], [i8; 3]),
    Sticker(usize),
}

fn unit(axis: usize) -> Vec3 {
    [Vec3::X, Vec3::Y, Vec3::Z][axis]
}

/// Where a ray meets a square facing it (centre, outward normal, unit axes, half-size).
fn meets(ray: (Vec3, Vec3), centre: Vec3, normal: Vec3, axes: [Vec3; 2], half: f32) -> Option<f32> {
    let (origin, dir) = ray;
    let facing = dir.dot(normal);
    if facing >= 0.0 {
        return None;
    }
    let t = (centre - origin).dot(normal) / facing;
    let local = origin + dir * t - centre;
    (t > 0.0 && local.dot(axes[0]).abs() <= half && local.dot(axes[1]).abs() <= half).then_some(t)
}

/// The oracle: the nearest part a ray through `p` meets, every face of every cubie included.
fn first_met(
    cube: &Cube,
    camera: &Camera,
    spin: Option<Spin>,
    viewport: Viewport,
    p: Vec2,
) -> Option<Part> {
    let r = ray(camera, viewport, p);
    let mut best: Option<(f32, Part)> = None;
    let mut keep = |t: Option<f32>, part: Part| {
        if let Some(t) = t
            && best.is_none_or(|(b, _)| t < b)
        {
            best = Some((t, part));
        }
    };
    for c in cubies(spin) {
        for axis in 0..3 {
            for sign in [-1i8, 1] {
                let out = unit(axis) * f32::from(sign);
                let axes = [1, 2].map(|k| c.model.transform_vector3(unit((axis + k) % 3)));
                let centre = c.model.transform_point3(out * CUBIE_HALF);
                let mut o = [0; 3];
                o[axis] = sign;
                keep(
                    meets(r, centre, c.model.transform_vector3(out), axes, CUBIE_HALF),
                    Part::Face(c.cell, o),
                );
            }
        }
    }
    for s in stickers(cube, spin) {
        // A winning sticker's ring reaches past it, as the shader's quad grows.
        let half = STICKER_HALF * if s.winning { 1.16 } else { 1.0 };
        keep(
            meets(r, s.center, s.normal, s.axes, half),
            Part::Sticker(s.facelet),
        );
    }
    best.map(|(_, part)| part)
}

fn part(shape: &Shape) -> Part {
    match shape {
        Shape::Face { cubie, out, .. } => Part::Face(*cubie, *out),
        Shape::Sticker { facelet, .. } => Part::Sticker(*facelet),
    }
}

/// Points well inside a shape: its centre and most of the way to each corner.
fn inside(shape: &Shape) -> Vec<Vec2> {
    let (centre, corners) = match shape {
        Shape::Face { corners, .. } => (corners.iter().sum::<Vec2>() / 4.0, *corners),
        Shape::Sticker { map, .. } => {
            let [a, b, c, d, e, f] = *map;
            let at = |u: f32, v: f32| Vec2::new(a * u + c * v + e, b * u + d * v + f);
            (
                at(0.0, 0.0),
                [at(-1.0, -1.0), at(1.0, -1.0), at(1.0, 1.0), at(-1.0, 1.0)],
            )
        }
    };
    std::iter::once(centre)
        .chain(corners.iter().map(|&k| centre + (k - centre) * 0.6))
        .collect()
}

#[test]
fn cube_v04_the_flat_drawing_shows_what_rays_meet_first_still_and_mid_turn() {
    let mut rng = Rng(41);
    let (mut checked, mut through_gaps, mut edges) = (0, 0, 0);
    for case in 0..240 {
        let (level, camera, viewport) = random_view(&mut rng, case);
        let cube = random_cube(level, rng.below(50), &mut rng);
        let spin = (case % 4 != 0).then(|| {
            let layer = ["U", "E", "D", "L", "M", "R", "F", "S", "B"][rng.below(9)];
            let way = ["+", "-"][rng.below(2)];
            Spin {
                turn: format!("{layer}{way}").parse::<Turn>().unwrap(),
                progress: (1 + rng.below(19)) as f32 / 20.0,
            }
        });
        let drawn = shapes(&cube, &camera, spin, viewport);
        for shape in &drawn {
            for p in inside(shape) {
                let Some(met) = first_met(&cube, &camera, spin, viewport, p) else {
                    continue;
                };
                let shown = on_top(&drawn, p).map(part);
                if shown != Some(met) {
                    // The faces between two cubies of one slab are left out: a ray meets
                    // them only through the dark gaps, where the drawing shows what is behind.
                    let moving = |cell: [i8; 3]| spin.is_some_and(|s| s.moves(cell));
                    let between = match met {
                        Part::Face(cell, out) => {
                            let next: [i8; 3] = std::array::from_fn(|a| cell[a] + out[a]);
                            next.iter().all(|c| c.abs() <= 1) && moving(next) == moving(cell)
                        }
                        Part::Sticker(_) => false,
                    };
                    // A sticker is drawn through the affine map at its centre: seen at a
                    // grazing angle its edge may sit a pixel or two off, over or short of what
                    // borders it.
                    let near_edge = |facelet: usize| {
                        drawn.iter().any(|d| match d {
                            Shape::Sticker {
                                facelet: f,
                                map,
                                winning,
                                ..
                            } if *f == facelet => {
                                let half = if *winning { 1.16 } else { 1.0 };
                                let [a, b, c, d, e, f] = *map;
                                let (x, y) = (p.x - e, p.y - f);
                                let det = a * d - b * c;
                                let (u, v) = ((d * x - c * y) / det, (a * y - b * x) / det);
                                u.abs().max(v.abs()) > half * 0.85
                            }
                            _ => false,
                        })
                    };
                    let at_an_edge = [shown, Some(met)]
                        .into_iter()
                        .any(|part| matches!(part, Some(Part::Sticker(f)) if near_edge(f)));
                    if at_an_edge {
                        edges += 1;
                        checked += 1;
                        continue;
                    }
                    assert!(
                        between,
                        "case {case}, {spin:?}: at {p} the drawing shows {shown:?}, a ray meets {met:?}"
                    );
                    through_gaps += 1;
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 50_000, "{checked}");
    assert!(through_gaps * 100 < checked, "{through_gaps} of {checked}");
    assert!(edges * 100 < checked, "{edges} of {checked}");
}
