//! One picture of the cube as a line of text. In the browser the cube is drawn by a wasm
//! module of its own (`velha-cube-paint`, fetched after the first screen so the first load
//! stays small), with its own memory: the app hands it each frame as this line.
//!
//! `<cube state line>;L<level> <yaw> <pitch>;<turn> <progress>` (`-` for no turn in
//! progress). Numbers are their IEEE 754 bits in eight hex digits: exact, and written without
//! the float formatter and its tables, which the app's first module would otherwise carry. What the
//! picture marks is read from the position itself, so it needs no field of its own: the lines
//! that ended a game (`Cube::winning_lines`) glow in the painter as on native.

use std::fmt;
use std::str::FromStr;

use velha_rules::{Cube, Level, Turn};

use crate::camera::Camera;
use crate::mesh::FrameInput;
use crate::scene::Spin;

/// What one frame shows, owned (see [`FrameInput`] for the borrowed form the renderer takes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// The position shown (before any turn in progress).
    pub cube: Cube,
    /// The view.
    pub camera: Camera,
    /// A turn in progress, if any.
    pub spin: Option<Spin>,
}

impl Frame {
    /// The renderer's view of this frame.
    pub fn input(&self) -> FrameInput<'_> {
        FrameInput {
            cube: &self.cube,
            camera: &self.camera,
            spin: self.spin,
        }
    }
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let camera = &self.camera;
        write!(
            f,
            "{};L{} {:08x} {:08x};",
            self.cube,
            camera.level().number(),
            camera.yaw().to_bits(),
            camera.pitch().to_bits()
        )?;
        match self.spin {
            Some(spin) => write!(f, "{} {:08x}", spin.turn, spin.progress.to_bits()),
            None => f.write_str("-"),
        }
    }
}

impl FromStr for Frame {
    type Err = String;

    fn from_str(line: &str) -> Result<Frame, String> {
        let mut parts = line.split(';');
        let (Some(cube), Some(camera), Some(spin), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(format!(
                "a frame is three parts separated by ';', found {line:?}"
            ));
        };
        let cube: Cube = cube.parse().map_err(|e| format!("frame cube: {e}"))?;
        let camera = match camera.split(' ').collect::<Vec<_>>()[..] {
            [level, yaw, pitch] => {
                let level = match level {
                    "L1" => Level::One,
                    "L2" => Level::Two,
                    _ => {
                        return Err(format!(
                            "frame camera level must be L1 or L2, found {level:?}"
                        ));
                    }
                };
                Camera::with_angles(level, number(yaw)?, number(pitch)?)
            }
            _ => {
                return Err(format!(
                    "frame camera is `L<level> <yaw> <pitch>`, found {camera:?}"
                ));
            }
        };
        let spin = match spin.split(' ').collect::<Vec<_>>()[..] {
            ["-"] => None,
            [turn, progress] => {
                let turn: Turn = turn.parse().map_err(|e| format!("frame turn: {e}"))?;
                let progress = number(progress)?;
                if !(0.0..=1.0).contains(&progress) {
                    return Err(format!(
                        "frame turn progress must be 0 to 1, found {progress}"
                    ));
                }
                Some(Spin { turn, progress })
            }
            _ => {
                return Err(format!(
                    "frame turn is `<turn> <progress>` or `-`, found {spin:?}"
                ));
            }
        };
        Ok(Frame { cube, camera, spin })
    }
}

fn number(text: &str) -> Result<f32, String> {
    // `from_str_radix` alone would also take a sign and fewer digits, which no writer sends.
    Some(text)
        .filter(|t| t.len() == 8 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .and_then(|t| u32::from_str_radix(t, 16).ok())
        .map(f32::from_bits)
        .filter(|n| n.is_finite())
        .ok_or_else(|| format!("frame expected a number as 8 hex digits, found {text:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{facelet_name, stickers};
    use velha_rules::Position;

    /// Random positions of both levels, views and turns in progress read back exactly.
    #[test]
    fn a_frame_reads_back_to_itself() {
        let mut seed = 7u64;
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for round in 0..400 {
            let level = if round % 2 == 0 {
                Level::One
            } else {
                Level::Two
            };
            let mut cube = Cube::new(level);
            for _ in 0..next(40) {
                let legal = cube.legal_actions();
                if legal.is_empty() {
                    break;
                }
                cube.play(legal.nth_action(next(legal.len())).unwrap())
                    .unwrap();
            }
            let camera = Camera::with_angles(
                level,
                next(36_000) as f32 / 97.0,
                next(16_000) as f32 / 100.0 - 80.0,
            );
            let spin = (next(3) > 0).then(|| Spin {
                turn: Turn::ALL[next(18)],
                progress: next(1001) as f32 / 1000.0 * 0.999_9,
            });
            let frame = Frame { cube, camera, spin };
            let line = frame.to_string();
            assert_eq!(line.parse::<Frame>(), Ok(frame), "{line}");
        }
    }

    #[test]
    fn a_won_frame_rings_its_winning_line_where_it_is_painted() {
        let cube: Cube = "..................XXXOO.O.X........................... O L1 - x=0 o=0"
            .parse()
            .unwrap();
        let line = Frame {
            cube,
            camera: Camera::new(Level::One),
            spin: None,
        }
        .to_string();
        let painted: Frame = line.parse().unwrap();
        let ringed: Vec<String> = stickers(&painted.cube, painted.spin)
            .into_iter()
            .filter(|s| s.winning)
            .map(|s| facelet_name(s.facelet))
            .collect();
        assert_eq!(ringed, ["F1", "F2", "F3"], "{line}");
    }

    #[test]
    fn a_bad_frame_line_says_what_is_wrong() {
        let good = Frame {
            cube: Cube::new(Level::Two),
            camera: Camera::new(Level::Two),
            spin: None,
        }
        .to_string();
        let (cube, _) = good.split_once(';').unwrap();
        for (line, says) in [
            ("", "three parts"),
            (&format!("{cube};L2 3f800000 00000000"), "three parts"),
            (&format!("{cube};L3 3f800000 00000000;-"), "L1 or L2"),
            (&format!("{cube};L2 3f800000;-"), "camera is"),
            (
                &format!("{cube};L2 3f800000 7fc00000;-"),
                "expected a number",
            ),
            (&format!("{cube};L2 3f800000 0.5;-"), "expected a number"),
            (&format!("{cube};L2 1 00000000;-"), "8 hex digits"),
            (&format!("{cube};L2 +3f80000 00000000;-"), "8 hex digits"),
            (&format!("{cube};L2 03f800000 00000000;-"), "8 hex digits"),
            (
                &format!("{cube};L2 3f800000 00000000;Q+ 3f000000"),
                "frame turn",
            ),
            (
                &format!("{cube};L2 3f800000 00000000;U+ 3fc00000"),
                "0 to 1",
            ),
            (
                &format!("{cube};L2 3f800000 00000000;U+"),
                "`<turn> <progress>`",
            ),
            ("nonsense;L2 3f800000 00000000;-", "frame cube"),
        ] {
            let error = line.parse::<Frame>().unwrap_err();
            assert!(error.contains(says), "{line:?}: {error}");
        }
    }
}
