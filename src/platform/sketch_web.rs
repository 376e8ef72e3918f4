//! The cube drawn flat on a 2D canvas wherever the painter module does not draw it: while the
//! painter downloads (a second on a slow network), when it could not be fetched, in a browser
//! without WebGL2, and while the system holds the WebGL context it took back. The same stage plays on it (picking needs no
//! painter), so the cube can be played from the moment its screen opens. The shapes, far to
//! near, come from `velha_cube_view::flat`; this draws them, each sticker's marks as
//! `shaders/cube.wgsl` draws them, in the sticker's own square.

use velha_cube_view::flat::{Shape, lit, mix, shapes};
use velha_cube_view::palette::{self, Srgb};
use velha_cube_view::picking::Viewport;
use velha_rules::Player;
use velha_rules::cube::Sticker;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::components::cube_stage::Picture;

/// What the shader's quads grow to around a sticker on a line that ended the game.
const WIN_GROW: f64 = 1.17;

fn css(c: Srgb) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// A square of half-size `half` about the origin with corners of `radius`; a plain square where
/// the browser has no `roundRect` (before 2023).
fn square(c: &CanvasRenderingContext2d, half: f64, radius: f64) {
    c.begin_path();
    if c.round_rect_with_f64(-half, -half, 2.0 * half, 2.0 * half, radius)
        .is_err()
    {
        c.rect(-half, -half, 2.0 * half, 2.0 * half);
    }
}

/// A sticker in its own square, [-1, 1]².
fn sticker(c: &CanvasRenderingContext2d, state: Sticker, winning: bool, light: f32) {
    if winning {
        c.set_fill_style_str(&css(palette::WIN));
        square(c, WIN_GROW - 0.01, 0.34);
        c.fill();
    }
    let ground = if state == Sticker::Blank {
        palette::BLANK
    } else {
        palette::SPENT
    };
    c.set_fill_style_str(&css(lit(ground, light)));
    square(c, 1.0, 0.28);
    c.fill();
    match state {
        Sticker::Mark(Player::X) => {
            c.set_stroke_style_str(&css(lit(palette::X_MARK, light)));
            c.set_line_width(0.28);
            c.set_line_cap("round");
            c.begin_path();
            c.move_to(-0.5, -0.5);
            c.line_to(0.5, 0.5);
            c.move_to(-0.5, 0.5);
            c.line_to(0.5, -0.5);
            c.stroke();
        }
        Sticker::Mark(Player::O) => {
            // A red ring around a pale red disc.
            c.begin_path();
            let _ = c.arc(0.0, 0.0, 0.48, 0.0, std::f64::consts::TAU);
            let disc = mix(palette::O_MARK, palette::BLANK, 0.2);
            c.set_fill_style_str(&css(lit(disc, light)));
            c.fill();
            c.set_stroke_style_str(&css(lit(palette::O_MARK, light)));
            c.set_line_width(0.26);
            c.stroke();
        }
        Sticker::Blank | Sticker::Spent => {}
    }
    if winning {
        // Over the sticker's rim, unlit, as the shader's ring.
        c.set_stroke_style_str(&css(palette::WIN));
        c.set_line_width(0.12);
        square(c, 0.96, 0.25);
        c.stroke();
    }
}

/// Draws `picture` on the canvas with the id `id`, `size` pixels (the canvas's CSS size times
/// the device's pixel ratio); false when there is no such canvas yet.
pub fn draw(id: &str, picture: &Picture, size: (u32, u32)) -> bool {
    let Some(canvas) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok())
    else {
        return false;
    };
    if (canvas.width(), canvas.height()) != size {
        canvas.set_width(size.0);
        canvas.set_height(size.1);
    }
    let Some(c) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return false;
    };
    let plain = |c: &CanvasRenderingContext2d| c.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    let _ = plain(&c);
    c.set_fill_style_str(&css(palette::BACKGROUND));
    c.fill_rect(0.0, 0.0, f64::from(size.0), f64::from(size.1));
    c.set_line_join("round");
    let viewport = Viewport {
        width: size.0 as f32,
        height: size.1 as f32,
    };
    for shape in shapes(&picture.cube, &picture.camera, picture.spin, viewport) {
        match shape {
            Shape::Face {
                corners, colour, ..
            } => {
                let _ = plain(&c);
                c.begin_path();
                c.move_to(f64::from(corners[0].x), f64::from(corners[0].y));
                for p in &corners[1..] {
                    c.line_to(f64::from(p.x), f64::from(p.y));
                }
                c.close_path();
                c.set_fill_style_str(&css(colour));
                c.fill();
            }
            Shape::Sticker {
                map,
                state,
                winning,
                light,
                ..
            } => {
                let [a, b, cc, d, e, f] = map.map(f64::from);
                let _ = c.set_transform(a, b, cc, d, e, f);
                sticker(&c, state, winning, light);
            }
        }
    }
    let _ = plain(&c);
    true
}
