//! Picking and gestures, with synthetic pointer events built from the stickers' own screen
//! centres (CUBE-V02, V03).

use glam::Vec2;
use velha_cube_view::camera::{Camera, MAX_PITCH};
use velha_cube_view::gesture::{
    Gestures, LONG_PRESS_MS, Meaning, PointerEvent, TAP_SLOP, turn_for_drag,
};
use velha_cube_view::picking::{Viewport, pick, project, visible_centres};
use velha_cube_view::scene::{TurnAnimation, ease, facelet_name, stickers};
use velha_rules::cube::OneWayRule;
use velha_rules::{Cube, CubeAction, CubeIllegal, Level, Turn};

const PHONE: Viewport = Viewport {
    width: 360.0,
    height: 640.0,
};

fn facelet(name: &str) -> usize {
    "URFDLB".find(&name[..1]).unwrap() * 9 + name[1..].parse::<usize>().unwrap() - 1
}

fn centre(camera: &Camera, viewport: Viewport, name: &str) -> Vec2 {
    visible_centres(camera, viewport, &Cube::new(camera.level()))
        .into_iter()
        .find(|&(f, _)| f == facelet(name))
        .unwrap_or_else(|| panic!("{name} is not visible"))
        .1
}

/// A drag of `delta` pixels from the centre of sticker `name`, in a few moves.
fn drag(cube: &Cube, camera: &mut Camera, viewport: Viewport, from: Vec2, delta: Vec2) -> Meaning {
    let mut g = Gestures::new();
    assert!(
        g.handle(
            PointerEvent::Down { at: from, ms: 0.0 },
            camera,
            viewport,
            cube
        )
        .is_none()
    );
    for step in 1..=4 {
        let at = from + delta * (step as f32 / 4.0);
        assert!(
            g.handle(
                PointerEvent::Move {
                    at,
                    ms: 16.0 * step as f64
                },
                camera,
                viewport,
                cube
            )
            .is_none()
        );
    }
    g.handle(
        PointerEvent::Up {
            at: from + delta,
            ms: 80.0,
        },
        camera,
        viewport,
        cube,
    )
    .unwrap()
}

fn drag_sticker(level: Level, name: &str, delta: Vec2) -> Meaning {
    let mut camera = Camera::new(level);
    let from = centre(&camera, PHONE, name);
    drag(&Cube::new(level), &mut camera, PHONE, from, delta)
}

fn turn(text: &str) -> Turn {
    text.parse().unwrap()
}

const DOWN: Vec2 = Vec2::new(0.0, 60.0);
const UP: Vec2 = Vec2::new(0.0, -60.0);
const LEFT: Vec2 = Vec2::new(-60.0, 0.0);
const RIGHT: Vec2 = Vec2::new(60.0, 0.0);

#[test]
fn picking_round_trips_every_visible_sticker_at_many_sizes_and_angles() {
    let viewports = [
        PHONE,
        Viewport {
            width: 800.0,
            height: 600.0,
        },
        Viewport {
            width: 200.0,
            height: 200.0,
        },
    ];
    let mut cameras = vec![Camera::new(Level::One)];
    for yaw in (0..360).step_by(40) {
        for pitch in [-70.0, -30.0, 0.0, 25.0, 60.0] {
            cameras.push(Camera::with_angles(Level::Two, yaw as f32, pitch));
        }
    }
    let cube = Cube::new(Level::Two);
    let mut checked = 0;
    for viewport in viewports {
        for camera in &cameras {
            let visible = visible_centres(camera, viewport, &cube);
            assert!(
                (9..=27).contains(&visible.len()),
                "{} visible",
                visible.len()
            );
            for (f, at) in visible {
                assert_eq!(
                    pick(camera, viewport, &cube, at),
                    Some(f),
                    "{} at {at} {camera:?} {viewport:?}",
                    facelet_name(f)
                );
                checked += 1;
            }
            // Corners of the view are off the cube.
            assert_eq!(pick(camera, viewport, &cube, Vec2::new(1.0, 1.0)), None);
        }
    }
    assert!(checked > 2000, "{checked}");
}

#[test]
fn cube_v02_level1_view_shows_f_from_the_front_with_u_and_r() {
    let camera = Camera::new(Level::One);
    let visible: Vec<String> = visible_centres(&camera, PHONE, &Cube::new(Level::One))
        .into_iter()
        .map(|(f, _)| facelet_name(f))
        .collect();
    assert_eq!(visible.len(), 27);
    assert!(visible.iter().all(|n| n.starts_with(['U', 'R', 'F'])));
    // F is the biggest: its cells are further apart on screen than R's.
    let f = centre(&camera, PHONE, "F1").distance(centre(&camera, PHONE, "F3"));
    let r = centre(&camera, PHONE, "R1").distance(centre(&camera, PHONE, "R3"));
    assert!(f > 1.5 * r);
}

#[test]
fn cube_v02_level1_drags_map_to_canonical_turns_and_refuse_the_other_way() {
    let refused = |t: &str, rule| {
        Meaning::Refuse(CubeAction::Turn(turn(t)), CubeIllegal::WrongDirection(rule))
    };
    let wrong = |t| refused(t, OneWayRule::Level1);
    let cases = [
        // On F: down → its column +, left → its row +.
        ("F1", DOWN, Meaning::Turn(turn("L+"))),
        ("F5", DOWN, Meaning::Turn(turn("M+"))),
        ("F9", DOWN, Meaning::Turn(turn("R+"))),
        ("F3", LEFT, Meaning::Turn(turn("U+"))),
        ("F4", LEFT, Meaning::Turn(turn("E+"))),
        ("F8", LEFT, Meaning::Turn(turn("D+"))),
        ("F2", UP, wrong("M-")),
        ("F6", RIGHT, wrong("E-")),
        // On U: toward the viewer → its column +; right → its front-parallel layer +.
        ("U7", DOWN, Meaning::Turn(turn("L+"))),
        ("U5", DOWN, Meaning::Turn(turn("M+"))),
        ("U3", DOWN, Meaning::Turn(turn("R+"))),
        ("U8", RIGHT, Meaning::Turn(turn("F+"))),
        ("U5", RIGHT, Meaning::Turn(turn("S+"))),
        ("U1", RIGHT, Meaning::Turn(turn("B+"))),
        ("U9", UP, wrong("R-")),
        ("U4", LEFT, refused("S-", OneWayRule::FreeTurn)),
        // On R: down → its front-parallel layer +; toward the front (left) → its row +.
        ("R1", DOWN, Meaning::Turn(turn("F+"))),
        ("R5", DOWN, Meaning::Turn(turn("S+"))),
        ("R9", DOWN, Meaning::Turn(turn("B+"))),
        ("R2", LEFT, Meaning::Turn(turn("U+"))),
        ("R6", LEFT, Meaning::Turn(turn("E+"))),
        ("R8", LEFT, Meaning::Turn(turn("D+"))),
        ("R4", UP, wrong("F-")),
        ("R5", RIGHT, wrong("E-")),
    ];
    for (name, delta, expected) in cases {
        assert_eq!(
            drag_sticker(Level::One, name, delta),
            expected,
            "{name} {delta}"
        );
    }
}

#[test]
fn cube_v03_level2_drags_turn_every_layer_both_ways() {
    let cases = [
        ("F1", DOWN, "L+"),
        ("F1", UP, "L-"),
        ("F3", LEFT, "U+"),
        ("F3", RIGHT, "U-"),
        ("U8", RIGHT, "F+"),
        ("U8", LEFT, "F-"),
        ("R1", DOWN, "F+"),
        ("R1", UP, "F-"),
        ("R6", RIGHT, "E-"),
        ("U3", UP, "R-"),
    ];
    for (name, delta, expected) in cases {
        assert_eq!(
            drag_sticker(Level::Two, name, delta),
            Meaning::Turn(turn(expected)),
            "{name} {delta}"
        );
    }
    // Seen from below and behind, every face works: drags along each layer's own motion.
    let cube = Cube::new(Level::Two);
    for (yaw, pitch) in [(200.0, -40.0), (120.0, 30.0), (300.0, -60.0)] {
        let camera = Camera::with_angles(Level::Two, yaw, pitch);
        for s in stickers(&cube, None) {
            let Some((_, at)) = visible_centres(&camera, PHONE, &cube)
                .into_iter()
                .find(|&(f, _)| f == s.facelet)
            else {
                continue;
            };
            for axis in s.axes {
                // Push the sticker along one of its face's axes: the layer that moves it so is
                // the one about the other axis, and the reverse push reverses the turn.
                let ahead = project(&camera, PHONE, s.center + axis * 0.3) - at;
                let there = turn_for_drag(&camera, PHONE, s.facelet, ahead.normalize() * 60.0);
                let back = turn_for_drag(&camera, PHONE, s.facelet, -ahead.normalize() * 60.0);
                assert_eq!(
                    back,
                    there.inverse(),
                    "{} yaw {yaw} pitch {pitch}",
                    facelet_name(s.facelet)
                );
                let (layer_axis, _) = there.layer.axis_and_coord();
                assert!(
                    axis[layer_axis].abs() < 1e-4,
                    "{}: a push along the turn's own axis",
                    facelet_name(s.facelet)
                );
            }
        }
    }
}

#[test]
fn cube_v03_level2_alternation_refuses_a_one_way_turn_backwards() {
    let cube: Cube = "...................................................... X L2 - x=1 o=0"
        .parse()
        .unwrap();
    let mut camera = Camera::new(Level::Two);
    let from = centre(&camera, PHONE, "F1");
    assert_eq!(
        drag(&cube, &mut camera, PHONE, from, UP),
        Meaning::Refuse(
            CubeAction::Turn(turn("L-")),
            CubeIllegal::WrongDirection(OneWayRule::Alternation)
        )
    );
}

#[test]
fn a_jitter_is_a_tap_a_long_press_is_nothing_and_off_side1_taps_do_nothing() {
    let cube = Cube::new(Level::One);
    let mut camera = Camera::new(Level::One);
    let f5 = centre(&camera, PHONE, "F5");
    let jitter = Vec2::new(TAP_SLOP * 0.6, -TAP_SLOP * 0.5);
    assert_eq!(
        drag(&cube, &mut camera, PHONE, f5, jitter),
        Meaning::Tap("b2".parse().unwrap())
    );
    let past = Vec2::new(0.0, TAP_SLOP + 2.0);
    assert_eq!(
        drag(&cube, &mut camera, PHONE, f5, past),
        Meaning::Turn(turn("M+"))
    );
    let mut g = Gestures::new();
    g.handle(
        PointerEvent::Down { at: f5, ms: 0.0 },
        &mut camera,
        PHONE,
        &cube,
    );
    let long = g.handle(
        PointerEvent::Up {
            at: f5,
            ms: LONG_PRESS_MS + 1.0,
        },
        &mut camera,
        PHONE,
        &cube,
    );
    assert_eq!(long, Some(Meaning::Nothing));
    let u5 = centre(&camera, PHONE, "U5");
    assert_eq!(
        drag(&cube, &mut camera, PHONE, u5, Vec2::ZERO),
        Meaning::Nothing
    );
    assert_eq!(
        drag(&cube, &mut camera, PHONE, Vec2::new(5.0, 5.0), Vec2::ZERO),
        Meaning::Nothing
    );
}

#[test]
fn taps_are_judged_by_the_rules() {
    let cube: Cube = "..................O................................... X L1 - x=0 o=0"
        .parse()
        .unwrap();
    let mut camera = Camera::new(Level::One);
    let f1 = centre(&camera, PHONE, "F1");
    let tap_a1 = CubeAction::Tap("a1".parse().unwrap());
    assert_eq!(
        drag(&cube, &mut camera, PHONE, f1, Vec2::ZERO),
        Meaning::Refuse(tap_a1, CubeIllegal::OpponentSymbol)
    );
    assert_eq!(
        Meaning::Refuse(tap_a1, CubeIllegal::OpponentSymbol).to_string(),
        "refuse cannot erase the opponent's symbol"
    );
}

#[test]
fn cube_v03_off_cube_drags_orbit_at_level2_and_on_cube_touches_freeze_the_view() {
    let cube = Cube::new(Level::Two);
    let mut camera = Camera::new(Level::Two);
    let before = camera;
    let corner = Vec2::new(10.0, 600.0);
    assert_eq!(
        drag(&cube, &mut camera, PHONE, corner, Vec2::new(-100.0, 0.0)),
        Meaning::Orbit
    );
    assert!(
        (camera.yaw() - before.yaw() - 40.0).abs() < 1e-3,
        "{}",
        camera.yaw()
    );
    // Pitch is clamped: the cube never turns upside down.
    for _ in 0..10 {
        drag(&cube, &mut camera, PHONE, corner, Vec2::new(0.0, -300.0));
    }
    assert_eq!(camera.pitch(), -MAX_PITCH);
    // A touch on the cube freezes the view while it is down.
    let frozen = camera;
    let at = visible_centres(&camera, PHONE, &cube)[0].1;
    let mut g = Gestures::new();
    g.handle(
        PointerEvent::Down { at, ms: 0.0 },
        &mut camera,
        PHONE,
        &cube,
    );
    assert!(g.view_frozen());
    g.handle(
        PointerEvent::Move {
            at: at + Vec2::new(150.0, 80.0),
            ms: 20.0,
        },
        &mut camera,
        PHONE,
        &cube,
    );
    assert_eq!(camera, frozen);
    // Level 1 never orbits.
    let mut fixed = Camera::new(Level::One);
    assert_eq!(
        drag(
            &Cube::new(Level::One),
            &mut fixed,
            PHONE,
            corner,
            Vec2::new(-100.0, 0.0)
        ),
        Meaning::Nothing
    );
    assert_eq!(fixed, Camera::new(Level::One));
}

#[test]
fn cube_v04_a_quarter_turn_animates_for_200_ms_eased_then_ends() {
    let animation = TurnAnimation {
        turn: turn("R+"),
        start_ms: 1000.0,
    };
    assert_eq!(animation.spin(1000.0).unwrap().progress, 0.0);
    let half = animation.spin(1100.0).unwrap().progress;
    assert!((half - 0.5).abs() < 1e-6);
    assert!(
        animation.spin(1050.0).unwrap().progress < 0.25,
        "eased: slow at first"
    );
    assert!(animation.spin(1200.0).is_none(), "over after 200 ms");
    assert_eq!(ease(1.0), 1.0);
    // Mid-turn, R's stickers have moved and the others have not.
    let cube = Cube::new(Level::One);
    let moving = stickers(&cube, animation.spin(1100.0));
    let still = stickers(&cube, None);
    assert!(
        moving[facelet("F9")]
            .center
            .distance(still[facelet("F9")].center)
            > 0.5
    );
    assert_eq!(moving[facelet("F1")].center, still[facelet("F1")].center);
}
