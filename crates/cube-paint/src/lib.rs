//! # velha-cube-paint
//!
//! Draws the cube on a browser canvas with WebGL2. It is a wasm module of its own, fetched
//! once the first screen answers (`assets/boot.js`), so that the app's first load carries no
//! WebGL code; the app hands it each frame as a line of text ([`velha_cube_view::frame`]).
//! It uploads what the native wgpu renderer uploads ([`velha_cube_view::mesh`]) to the same
//! shader, `shaders/cube.wgsl`, which `build.rs` translates to GLSL ES 3.00 with naga (wgpu's
//! own translator): wgpu's WebGL2 backend and the translator weighed 565 KB brotli here.
//!
//! From JavaScript: `const painter = paint_on(canvas); painter.draw(width, height, line)`.

#[cfg(target_arch = "wasm32")]
mod painter;
