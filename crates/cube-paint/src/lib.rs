//! # velha-cube-paint
//!
//! Draws the cube on a browser canvas with wgpu's WebGL2 backend. It is a wasm module of its
//! own because wgpu and its shader translator are most of the web build's bytes, and only the
//! cube screen needs them: the app's first load stays small, and the browser fetches this
//! module once the first screen answers (`assets/boot.js`). The app hands it each frame as a
//! line of text ([`velha_cube_view::frame`]).
//!
//! From JavaScript: `const painter = await paint_on(canvas); painter.draw(width, height, line)`.

#[cfg(target_arch = "wasm32")]
mod painter;
