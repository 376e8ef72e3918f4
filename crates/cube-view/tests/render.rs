//! Rendered pixels, checked headless (lavapipe here, any adapter elsewhere): the right colour
//! class at every visible sticker, golden images, and the `cube-view` binary end to end.

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec2;
use velha_cube_view::camera::Camera;
use velha_cube_view::headless::{Headless, save_png};
use velha_cube_view::palette::{ColourClass, classify};
use velha_cube_view::picking::{Viewport, faces_eye, project};
use velha_cube_view::render::FrameInput;
use velha_cube_view::scene::{Spin, facelet_name, stickers};
use velha_rules::cube::Sticker;
use velha_rules::{Cube, Level, Player, Position};

mod common;
use common::{Rng, level_of, random_camera, random_cube};

fn pixel(pixels: &[u8], width: u32, at: Vec2) -> [u8; 3] {
    let (x, y) = (at.x.round() as usize, at.y.round() as usize);
    let i = 4 * (y * width as usize + x);
    [pixels[i], pixels[i + 1], pixels[i + 2]]
}

fn expected(state: Sticker) -> ColourClass {
    match state {
        Sticker::Blank => ColourClass::Blank,
        Sticker::Spent => ColourClass::Spent,
        Sticker::Mark(Player::X) => ColourClass::X,
        Sticker::Mark(Player::O) => ColourClass::O,
    }
}

#[test]
fn cube_v01_every_visible_sticker_shows_its_state_and_side1_is_sky_blue() {
    let mut headless = Headless::new().expect("an adapter (install mesa-vulkan-drivers)");
    let mut rng = Rng(17);
    let mut checked = 0;
    for case in 0..24 {
        let level = level_of(case);
        let cube = random_cube(level, 10 + rng.below(60), &mut rng);
        let camera = random_camera(level, &mut rng);
        let (width, height) = [(360, 640), (480, 480), (640, 400)][case % 3];
        let viewport = Viewport {
            width: width as f32,
            height: height as f32,
        };
        let pixels = headless.render(
            FrameInput {
                cube: &cube,
                camera: &camera,
                spin: None,
            },
            width,
            height,
        );
        for s in stickers(&cube, None)
            .iter()
            .filter(|s| faces_eye(&camera, viewport, s))
        {
            let at = project(&camera, viewport, s.center);
            let got = classify(pixel(&pixels, width, at));
            if got != expected(s.state) {
                let path = std::env::temp_dir().join(format!("cube-view-failure-{case}.png"));
                save_png(&path, &pixels, width, height).unwrap();
                panic!(
                    "{} ({:?}) at {at} looks {got:?}; frame saved to {}",
                    facelet_name(s.facelet),
                    s.state,
                    path.display()
                );
            }
            // The margin of a side-1 cubie, outside its sticker, is sky blue (where the face is
            // seen well enough for a margin to be pixels wide).
            // A winning line's stickers glow there instead (CUBE-R11, R12).
            let towards_eye = (camera.eye(viewport.aspect()) - s.center).normalize();
            if s.facelet / 9 == 2 && s.normal.dot(towards_eye) > 0.5 {
                let margin = project(&camera, viewport, s.center + s.axes[1] * 0.43);
                assert_eq!(
                    classify(pixel(&pixels, width, margin)),
                    if s.winning {
                        ColourClass::Win
                    } else {
                        ColourClass::SkyBlue
                    },
                    "{}",
                    facelet_name(s.facelet)
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 400, "{checked}");
}

#[test]
fn srgb_and_plain_targets_show_the_same_colours() {
    let cube = random_cube(Level::One, 30, &mut Rng(3));
    let camera = Camera::new(Level::One);
    let frame = FrameInput {
        cube: &cube,
        camera: &camera,
        spin: None,
    };
    let plain = Headless::new().unwrap().render(frame, 200, 200);
    let srgb = Headless::with_format(wgpu::TextureFormat::Rgba8UnormSrgb)
        .unwrap()
        .render(frame, 200, 200);
    // Only antialiased edges may differ (an sRGB target blends and resolves in linear light).
    let differing = plain
        .iter()
        .zip(&srgb)
        .filter(|(a, b)| a.abs_diff(**b) > 3)
        .count();
    let total: u64 = plain
        .iter()
        .zip(&srgb)
        .map(|(a, b)| u64::from(a.abs_diff(*b)))
        .sum();
    let mean = total as f64 / plain.len() as f64;
    assert!(
        differing < plain.len() / 20 && mean < 1.0,
        "{differing} channels differ, mean {mean:.2}"
    );
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn read_png(path: &Path) -> (Vec<u8>, u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buffer).unwrap();
    buffer.truncate(info.buffer_size());
    (buffer, info.width, info.height)
}

/// Compares a frame with its golden image: drivers may round edges differently, so a few
/// pixels may differ a lot and the rest only a little. `UPDATE_GOLDEN=1` rewrites them.
fn golden(name: &str, frame: FrameInput<'_>, width: u32, height: u32) {
    let pixels = Headless::new().unwrap().render(frame, width, height);
    let path = golden_dir().join(format!("{name}.png"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        save_png(&path, &pixels, width, height).unwrap();
        return;
    }
    let (want, w, h) = read_png(&path);
    assert_eq!((w, h), (width, height));
    let far = pixels
        .chunks(4)
        .zip(want.chunks(4))
        .filter(|(a, b)| a.iter().zip(*b).any(|(x, y)| x.abs_diff(*y) > 24))
        .count();
    let total: u64 = pixels
        .iter()
        .zip(&want)
        .map(|(a, b)| u64::from(a.abs_diff(*b)))
        .sum();
    let mean = total as f64 / pixels.len() as f64;
    if far > (width * height) as usize / 100 || mean > 1.5 {
        let out = std::env::temp_dir().join(format!("{name}-actual.png"));
        save_png(&out, &pixels, width, height).unwrap();
        panic!(
            "{name}: {far} pixels far off, mean difference {mean:.2}; actual saved to {}",
            out.display()
        );
    }
}

#[test]
fn golden_images_level1_start_level2_game_and_a_turn_in_progress() {
    let start = Cube::new(Level::One);
    golden(
        "level1-start",
        FrameInput {
            cube: &start,
            camera: &Camera::new(Level::One),
            spin: None,
        },
        360,
        640,
    );
    let game = random_cube(Level::Two, 40, &mut Rng(99));
    let behind = Camera::with_angles(Level::Two, 215.0, -35.0);
    golden(
        "level2-from-below-behind",
        FrameInput {
            cube: &game,
            camera: &behind,
            spin: None,
        },
        480,
        480,
    );
    let spin = Spin {
        turn: "R+".parse().unwrap(),
        progress: 0.4,
    };
    golden(
        "level2-turning-r",
        FrameInput {
            cube: &game,
            camera: &Camera::new(Level::Two),
            spin: Some(spin),
        },
        480,
        480,
    );
}

fn cube_view(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cube-view"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Reads `{"F1":[x,y],…}` without a JSON library.
fn centres(json: &str) -> Vec<(String, Vec2)> {
    json.trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split("],")
        .map(|entry| {
            let (name, xy) = entry.split_once(':').unwrap();
            let (x, y) = xy.trim_matches(['[', ']']).split_once(',').unwrap();
            (
                name.trim_matches('"').to_string(),
                Vec2::new(x.parse().unwrap(), y.parse().unwrap()),
            )
        })
        .collect()
}

#[test]
fn the_binary_prints_centres_that_hold_the_right_colours_and_turns_drags_from_them() {
    let mut rng = Rng(5);
    for case in 0..4 {
        let level = if case % 2 == 0 {
            Level::One
        } else {
            Level::Two
        };
        let cube = random_cube(level, 25 + 10 * case, &mut rng);
        let state = cube.to_string();
        let out = std::env::temp_dir().join(format!("cube-view-snapshot-{case}.png"));
        let mut args = vec![
            "snapshot",
            "--state",
            &state,
            "--size",
            "360x640",
            "--out",
            out.to_str().unwrap(),
        ];
        if level == Level::Two {
            args.extend(["--yaw", "-40", "--pitch", "30"]);
        }
        let (ok, json, err) = cube_view(&args);
        assert!(ok, "{err}");
        let (pixels, width, _) = read_png(&out);
        let printed = centres(&json);
        assert!(printed.len() >= 18);
        for (name, at) in &printed {
            let facelet =
                "URFDLB".find(&name[..1]).unwrap() * 9 + name[1..].parse::<usize>().unwrap() - 1;
            let state = cube.sticker(facelet);
            assert_eq!(
                classify(pixel(&pixels, width, *at)),
                expected(state),
                "{name} of {state:?}"
            );
        }
        // Level 1: a drag down from F5's printed centre is M+ (CUBE-V02).
        if level == Level::One
            && !cube.status().is_over()
            && cube.check("M+".parse().unwrap()).is_ok()
        {
            let (x, y) = printed
                .iter()
                .find(|(n, _)| n == "F5")
                .map(|(_, a)| (a.x, a.y))
                .unwrap();
            let events = format!("down {x} {y}; move {x} {}; up {x} {}", y + 30.0, y + 60.0);
            let (ok, meaning, err) = cube_view(&[
                "gesture", "--state", &state, "--size", "360x640", "--events", &events,
            ]);
            assert!(ok, "{err}");
            assert_eq!(meaning.trim(), "turn M+");
        }
    }
}

/// A state line with these stickers (facelet name, `X`/`O`), the rest blank.
fn state_line(stickers: &[(&str, char)], rest: &str) -> String {
    let mut board = ['.'; 54];
    for &(name, c) in stickers {
        let face = "URFDLB".find(&name[..1]).unwrap();
        board[face * 9 + name[1..].parse::<usize>().unwrap() - 1] = c;
    }
    format!("{} {rest}", board.iter().collect::<String>())
}

/// Pixels of the winning ring's colour in a square around `at` that reaches past its sticker's
/// edge (0.4 of the sticker pitch) but not into its neighbours' margins (0.53).
fn ring_pixels(pixels: &[u8], width: u32, at: Vec2, pitch: f32) -> usize {
    let r = (pitch * 0.45) as i32;
    (-r..=r)
        .flat_map(|dy| (-r..=r).map(move |dx| at + Vec2::new(dx as f32, dy as f32)))
        .filter(|&p| classify(pixel(pixels, width, p)) == ColourClass::Win)
        .count()
}

/// Snapshots `state` with the binary (and saves the PNG), then checks by the centres it prints
/// that the `glowing` stickers are ringed and the `plain` ones, of the same symbol, are not.
fn assert_glow(name: &str, state: &str, view: &[&str], glowing: &[&str], plain: &[&str]) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cube-view-{name}.png"));
    let mut args = vec![
        "snapshot",
        "--state",
        state,
        "--size",
        "360x640",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(view);
    let (ok, json, err) = cube_view(&args);
    assert!(ok, "{err}");
    let (pixels, width, _) = read_png(&out);
    let printed = centres(&json);
    let at = |n: &str| printed.iter().find(|(p, _)| p == n).unwrap().1;
    // Seen at an angle, the face's nearer pitch is the smaller one.
    let pitch = at("F5").distance(at("F2")).min(at("F5").distance(at("F4")));
    let glow = |n: &str| ring_pixels(&pixels, width, at(n), pitch);
    let least = glowing.iter().map(|n| glow(n)).min().unwrap();
    assert!(
        least as f32 > pitch * pitch * 0.05,
        "{name}: a winning sticker has only {least} glowing pixels; see {}",
        out.display()
    );
    for n in plain {
        assert_eq!(glow(n), 0, "{name}: {n} holds the same symbol, on no line");
        // The same symbol: the centres look alike, only the ring tells the line apart.
        assert_eq!(
            classify(pixel(&pixels, width, at(n))),
            classify(pixel(&pixels, width, at(glowing[0])))
        );
    }
}

#[test]
fn cube_r11_r12_the_stickers_of_the_lines_that_ended_the_game_glow_and_no_others() {
    // X's top row, won by a tap; X's fourth symbol is on c3.
    let won = state_line(
        &[
            ("F1", 'X'),
            ("F2", 'X'),
            ("F3", 'X'),
            ("F9", 'X'),
            ("F4", 'O'),
            ("F5", 'O'),
            ("F7", 'O'),
        ],
        "O L1 - x=0 o=0",
    );
    assert_glow("won-by-tap", &won, &[], &["F1", "F2", "F3"], &["F9"]);
    // A turn that made a line of each symbol (CUBE-R12), seen orbited at level 2: both glow.
    let both = state_line(
        &[
            ("F1", 'X'),
            ("F2", 'X'),
            ("F3", 'X'),
            ("F7", 'O'),
            ("F8", 'O'),
            ("F9", 'O'),
            ("F5", 'X'),
        ],
        "O L2 - x=1 o=0",
    );
    assert_glow(
        "both-lines",
        &both,
        &["--yaw", "-35", "--pitch", "-25"],
        &["F1", "F2", "F3", "F7", "F8", "F9"],
        &["F5"],
    );
}

#[test]
fn the_binary_explains_bad_arguments() {
    for args in [
        vec![],
        vec!["paint"],
        vec![
            "snapshot",
            "--state",
            "nonsense",
            "--size",
            "10x10",
            "--out",
            "/tmp/x.png",
        ],
        vec![
            "gesture",
            "--state",
            &"...................................................... X L1 - x=0 o=0",
            "--size",
            "360x640",
            "--events",
            "down 1 1; jump 2 2",
        ],
        vec![
            "gesture",
            "--state",
            &"...................................................... X L1 - x=0 o=0",
            "--size",
            "360x640",
            "--yaw",
            "10",
            "--events",
            "down 1 1; up 1 1",
        ],
    ] {
        let (ok, _, err) = cube_view(&args);
        assert!(!ok && err.starts_with("cube-view: "), "{args:?}: {err}");
    }
    let (ok, meaning, _) = cube_view(&[
        "gesture",
        "--state",
        "...................................................... X L2 - x=0 o=0",
        "--size",
        "360x640",
        "--events",
        "down 5 600; move 60 600; up 120 600",
    ]);
    assert!(ok);
    assert_eq!(meaning.trim(), "orbit");
}
