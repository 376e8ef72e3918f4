//! `cube-view`: the cube without a window.
//!
//! ```text
//! cube-view snapshot --state "<cube state line>" [--level 1|2] [--yaw D --pitch D] --size WxH --out FILE.png
//! cube-view gesture  --state "<cube state line>" [--level 1|2] [--yaw D --pitch D] --size WxH --events "down X Y; move X Y; up X Y"
//! ```
//!
//! `snapshot` renders the position and prints one JSON line with the pixel centre of every
//! visible sticker by facelet name; `gesture` prints what the pointer events mean (`tap a1`,
//! `turn L+`, `orbit`, `refuse <reason>` or `none`). Events may carry a time in ms as a
//! fourth number; otherwise they are 16 ms apart.

use std::collections::HashMap;
use std::process::ExitCode;

use glam::Vec2;
use velha_cube_view::camera::Camera;
use velha_cube_view::gesture::{Gestures, PointerEvent};
use velha_cube_view::headless::{Headless, save_png};
use velha_cube_view::picking::{Viewport, visible_centres};
use velha_cube_view::render::FrameInput;
use velha_cube_view::scene::facelet_name;
use velha_rules::{Cube, Level};

const USAGE: &str = "usage:
  cube-view snapshot --state \"<cube state line>\" [--level 1|2] [--yaw D --pitch D] --size WxH --out FILE.png
  cube-view gesture  --state \"<cube state line>\" [--level 1|2] [--yaw D --pitch D] --size WxH --events \"down X Y; move X Y; up X Y\"";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("cube-view: {message}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

struct Common {
    cube: Cube,
    camera: Camera,
    width: u32,
    height: u32,
}

fn run(args: Vec<String>) -> Result<String, String> {
    let (command, rest) = args
        .split_first()
        .ok_or("a command is needed: snapshot or gesture")?;
    let mut options: HashMap<&str, &str> = HashMap::new();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i]
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected argument {:?}", rest[i]))?;
        let value = rest
            .get(i + 1)
            .ok_or_else(|| format!("--{key} needs a value"))?;
        options.insert(key, value);
        i += 2;
    }
    let allowed: &[&str] = match command.as_str() {
        "snapshot" => &["state", "level", "yaw", "pitch", "size", "out"],
        "gesture" => &["state", "level", "yaw", "pitch", "size", "events"],
        other => {
            return Err(format!(
                "unknown command {other:?}: expected snapshot or gesture"
            ));
        }
    };
    if let Some(key) = options.keys().find(|k| !allowed.contains(k)) {
        return Err(format!("--{key} is not an option of {command}"));
    }
    let common = common(&options)?;
    match command.as_str() {
        "snapshot" => snapshot(
            &common,
            options.get("out").ok_or("--out FILE.png is needed")?,
        ),
        _ => gesture(common, options.get("events").ok_or("--events is needed")?),
    }
}

fn number(options: &HashMap<&str, &str>, key: &str) -> Result<Option<f32>, String> {
    options
        .get(key)
        .map(|v| {
            v.parse::<f32>()
                .ok()
                .filter(|n| n.is_finite())
                .ok_or(format!("--{key} must be a number, found {v:?}"))
        })
        .transpose()
}

fn common(options: &HashMap<&str, &str>) -> Result<Common, String> {
    let state = options
        .get("state")
        .ok_or("--state \"<cube state line>\" is needed")?;
    let cube: Cube = state.parse().map_err(|e| format!("bad --state: {e}"))?;
    if let Some(level) = options.get("level") {
        let wanted = match *level {
            "1" => Level::One,
            "2" => Level::Two,
            _ => return Err(format!("--level must be 1 or 2, found {level:?}")),
        };
        if wanted != cube.level() {
            return Err(format!(
                "--level {level} disagrees with the state line's L{}",
                cube.level().number()
            ));
        }
    }
    let size = options.get("size").ok_or("--size WxH is needed")?;
    let (width, height) = size
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .filter(|&(w, h)| (16..=4096).contains(&w) && (16..=4096).contains(&h))
        .ok_or(format!(
            "--size must be WxH with each side 16–4096, found {size:?}"
        ))?;
    let yaw = number(options, "yaw")?;
    let pitch = number(options, "pitch")?;
    let camera = match (cube.level(), yaw, pitch) {
        (Level::One, None, None) => Camera::new(Level::One),
        (Level::One, _, _) => {
            return Err("level 1 has a fixed view: --yaw and --pitch are for level 2".into());
        }
        (Level::Two, yaw, pitch) => {
            let start = Camera::new(Level::Two);
            Camera::with_angles(
                Level::Two,
                yaw.unwrap_or(start.yaw()),
                pitch.unwrap_or(start.pitch()),
            )
        }
    };
    Ok(Common {
        cube,
        camera,
        width,
        height,
    })
}

fn snapshot(c: &Common, out: &str) -> Result<String, String> {
    let mut headless = Headless::new().map_err(|e| e.to_string())?;
    let frame = FrameInput {
        cube: &c.cube,
        camera: &c.camera,
        spin: None,
    };
    let pixels = headless.render(frame, c.width, c.height);
    save_png(std::path::Path::new(out), &pixels, c.width, c.height)
        .map_err(|e| format!("cannot write {out}: {e}"))?;
    let viewport = Viewport {
        width: c.width as f32,
        height: c.height as f32,
    };
    let entries: Vec<String> = visible_centres(&c.camera, viewport, &c.cube)
        .into_iter()
        .map(|(facelet, at)| format!("\"{}\":[{:.1},{:.1}]", facelet_name(facelet), at.x, at.y))
        .collect();
    Ok(format!("{{{}}}", entries.join(",")))
}

fn gesture(c: Common, events: &str) -> Result<String, String> {
    let mut camera = c.camera;
    let viewport = Viewport {
        width: c.width as f32,
        height: c.height as f32,
    };
    let mut gestures = Gestures::new();
    let mut meaning = None;
    for (i, event) in events
        .split(';')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .enumerate()
    {
        let parts: Vec<&str> = event.split_whitespace().collect();
        let parse = |s: &str| s.parse::<f32>().ok().filter(|n| n.is_finite());
        let (kind, x, y, ms) = match parts.as_slice() {
            [kind, x, y] => (*kind, parse(x), parse(y), Some(16.0 * i as f32)),
            [kind, x, y, ms] => (*kind, parse(x), parse(y), parse(ms)),
            _ => (event, None, None, None),
        };
        let (Some(x), Some(y), Some(ms)) = (x, y, ms) else {
            return Err(format!(
                "bad event {event:?}: expected `down|move|up X Y [MS]`"
            ));
        };
        let (at, ms) = (Vec2::new(x, y), f64::from(ms));
        let pointer = match kind {
            "down" => PointerEvent::Down { at, ms },
            "move" => PointerEvent::Move { at, ms },
            "up" => PointerEvent::Up { at, ms },
            _ => return Err(format!("bad event {event:?}: expected down, move or up")),
        };
        if let Some(m) = gestures.handle(pointer, &mut camera, viewport, &c.cube) {
            meaning = Some(m);
        }
    }
    meaning
        .map(|m| m.to_string())
        .ok_or("the events never lift the pointer (no `up`)".into())
}
