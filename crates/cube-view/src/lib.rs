//! # velha-cube-view
//!
//! The cube of Cubo da Velha on screen, knowing nothing of any UI framework:
//!
//! - `render::CubeRenderer` (not on wasm): wgpu, two instanced draw calls, into any texture
//!   view (the native paint source's texture, an offscreen texture), within WebGL2's limits;
//! - [`mesh`]: what those draw calls upload, with no graphics API, so the browser's WebGL2
//!   painter (`velha-cube-paint`) uploads the same;
//! - [`camera::Camera`]: level 1 fixed, level 2 orbiting;
//! - [`picking`]: screen point ↔ sticker;
//! - [`gesture::Gestures`]: pointer events → tap, turn, orbit or refusal, judged by
//!   velha-rules;
//! - [`frame`]: one picture as a line of text, for a renderer in another wasm module;
//! - [`flat`]: the cube as flat shapes for a 2D canvas, where there is no renderer;
//! - [`scene`]: where every cubie and sticker is, with a quarter turn in progress.
//!
//! Tested headless: `headless` renders offscreen on any adapter (lavapipe here).

pub mod camera;
pub mod flat;
pub mod frame;
pub mod gesture;
#[cfg(not(target_arch = "wasm32"))]
pub mod headless;
pub mod mesh;
pub mod palette;
pub mod picking;
#[cfg(not(target_arch = "wasm32"))]
pub mod render;
pub mod scene;
