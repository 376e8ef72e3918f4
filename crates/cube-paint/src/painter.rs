//! The painter the app drives: one per canvas, WebGL2 straight, drawing what the wgpu
//! renderer draws (`velha_cube_view::mesh`, the same shader translated by `build.rs`).

use glam::{Mat4, Vec4};
use velha_cube_view::frame::Frame;
use velha_cube_view::mesh::{
    BODIES, BodyInstance, BodyVertex, FrameUniform, STICKER_VERTICES, STICKERS, StickerInstance,
    body_instances, frame_uniform, rounded_box, sticker_instances, view_proj,
};
use velha_cube_view::palette;
use wasm_bindgen::prelude::*;
use web_sys::{WebGl2RenderingContext as Gl, WebGlBuffer, WebGlProgram, WebGlVertexArrayObject};

/// One entry point pair of the cube's shader as GLSL ES 3.00 (`build.rs`).
struct Program {
    vertex: &'static str,
    fragment: &'static str,
    /// The uniform blocks standing for the shader's `frame`, bound to its one binding.
    blocks: &'static [&'static str],
}

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// wgpu's clip space keeps depth in 0..w, GL's in -w..w: this maps one onto the other, so the
/// translated shader runs unchanged.
const GL_DEPTH: Mat4 = Mat4::from_cols(
    Vec4::X,
    Vec4::Y,
    Vec4::new(0.0, 0.0, 2.0, 0.0),
    Vec4::new(0.0, 0.0, -1.0, 1.0),
);

const F32: u32 = Gl::FLOAT;
const MAT4_COLUMNS: u32 = 4;

/// A canvas's WebGL2 context with the cube's programs and buffers.
#[wasm_bindgen]
pub struct Painter {
    canvas: web_sys::HtmlCanvasElement,
    gl: Gl,
    bodies: WebGlProgram,
    stickers: WebGlProgram,
    body_vao: WebGlVertexArrayObject,
    sticker_vao: WebGlVertexArrayObject,
    buffers: [WebGlBuffer; 5],
    body_index_count: i32,
}

fn error(what: &str) -> JsError {
    JsError::new(what)
}

fn compile(gl: &Gl, program: &Program) -> Result<WebGlProgram, JsError> {
    let linked = gl
        .create_program()
        .ok_or_else(|| error("no WebGL2 program"))?;
    for (kind, text) in [
        (Gl::VERTEX_SHADER, program.vertex),
        (Gl::FRAGMENT_SHADER, program.fragment),
    ] {
        let Some(shader) = gl.create_shader(kind) else {
            gl.delete_program(Some(&linked));
            return Err(error("no WebGL2 shader"));
        };
        gl.shader_source(&shader, text);
        gl.compile_shader(&shader);
        gl.attach_shader(&linked, &shader);
        // Flagged now, freed with the program.
        gl.delete_shader(Some(&shader));
        if gl
            .get_shader_parameter(&shader, Gl::COMPILE_STATUS)
            .as_bool()
            != Some(true)
        {
            let log = gl.get_shader_info_log(&shader).unwrap_or_default();
            gl.delete_program(Some(&linked));
            return Err(error(&format!("the cube's shader did not compile: {log}")));
        }
    }
    gl.link_program(&linked);
    if gl.get_program_parameter(&linked, Gl::LINK_STATUS).as_bool() != Some(true) {
        let log = gl.get_program_info_log(&linked).unwrap_or_default();
        gl.delete_program(Some(&linked));
        return Err(error(&format!("the cube's shader did not link: {log}")));
    }
    for block in program.blocks {
        let index = gl.get_uniform_block_index(&linked, block);
        if index != Gl::INVALID_INDEX {
            gl.uniform_block_binding(&linked, index, 0);
        }
    }
    Ok(linked)
}

fn buffer(gl: &Gl, target: u32, bytes: &[u8], usage: u32) -> Result<WebGlBuffer, JsError> {
    let buffer = gl
        .create_buffer()
        .ok_or_else(|| error("no WebGL2 buffer"))?;
    gl.bind_buffer(target, Some(&buffer));
    gl.buffer_data_with_u8_array(target, bytes, usage);
    Ok(buffer)
}

/// Points locations `first` to `first + 3` at the four columns of each instance's matrix, at
/// the start of every `stride` bytes.
fn model_columns(gl: &Gl, first: u32, stride: i32) {
    for column in 0..MAT4_COLUMNS {
        let location = first + column;
        gl.enable_vertex_attrib_array(location);
        gl.vertex_attrib_pointer_with_i32(location, 4, F32, false, stride, 16 * column as i32);
        gl.vertex_attrib_divisor(location, 1);
    }
}

/// Opens WebGL2 on `canvas` and prepares the cube's programs; fails with the reason when the
/// browser gives no WebGL2 or cannot compile the shader.
#[wasm_bindgen]
pub fn paint_on(canvas: web_sys::HtmlCanvasElement) -> Result<Painter, JsError> {
    let attributes = web_sys::WebGlContextAttributes::new();
    attributes.set_alpha(false);
    attributes.set_antialias(true);
    attributes.set_depth(true);
    attributes.set_stencil(false);
    let gl: Gl = canvas
        .get_context_with_context_options("webgl2", &attributes)
        .map_err(|_| error("the browser refused a WebGL2 context"))?
        .ok_or_else(|| error("this browser has no WebGL2"))?
        .unchecked_into();
    let bodies = compile(&gl, &BODY)?;
    let stickers = compile(&gl, &STICKER)?;
    let (vertices, indices) = rounded_box();
    let uniform = buffer(
        &gl,
        Gl::UNIFORM_BUFFER,
        &[0; std::mem::size_of::<FrameUniform>()],
        Gl::DYNAMIC_DRAW,
    )?;
    gl.bind_buffer_base(Gl::UNIFORM_BUFFER, 0, Some(&uniform));

    let body_vao = gl
        .create_vertex_array()
        .ok_or_else(|| error("no WebGL2 vertex array"))?;
    gl.bind_vertex_array(Some(&body_vao));
    let body_vertices = buffer(
        &gl,
        Gl::ARRAY_BUFFER,
        bytemuck::cast_slice(&vertices),
        Gl::STATIC_DRAW,
    )?;
    let stride = std::mem::size_of::<BodyVertex>() as i32;
    for (location, offset) in [(0, 0), (1, 12)] {
        gl.enable_vertex_attrib_array(location);
        gl.vertex_attrib_pointer_with_i32(location, 3, F32, false, stride, offset);
    }
    let body_indices = buffer(
        &gl,
        Gl::ELEMENT_ARRAY_BUFFER,
        bytemuck::cast_slice(&indices),
        Gl::STATIC_DRAW,
    )?;
    let body_buffer = buffer(
        &gl,
        Gl::ARRAY_BUFFER,
        &[0; BODIES as usize * std::mem::size_of::<BodyInstance>()],
        Gl::DYNAMIC_DRAW,
    )?;
    let stride = std::mem::size_of::<BodyInstance>() as i32;
    model_columns(&gl, 2, stride);
    gl.enable_vertex_attrib_array(6);
    gl.vertex_attrib_pointer_with_i32(6, 4, F32, false, stride, 64);
    gl.vertex_attrib_divisor(6, 1);

    let sticker_vao = gl
        .create_vertex_array()
        .ok_or_else(|| error("no WebGL2 vertex array"))?;
    gl.bind_vertex_array(Some(&sticker_vao));
    let sticker_buffer = buffer(
        &gl,
        Gl::ARRAY_BUFFER,
        &[0; STICKERS as usize * std::mem::size_of::<StickerInstance>()],
        Gl::DYNAMIC_DRAW,
    )?;
    let stride = std::mem::size_of::<StickerInstance>() as i32;
    model_columns(&gl, 0, stride);
    gl.enable_vertex_attrib_array(4);
    gl.vertex_attrib_i_pointer_with_i32(4, 1, Gl::UNSIGNED_INT, stride, 64);
    gl.vertex_attrib_divisor(4, 1);
    gl.bind_vertex_array(None);

    gl.enable(Gl::DEPTH_TEST);
    gl.depth_func(Gl::LEQUAL);
    gl.enable(Gl::CULL_FACE);
    gl.cull_face(Gl::BACK);
    // wgpu's alpha blending: the stickers' soft edges over the bodies.
    gl.blend_func_separate(
        Gl::SRC_ALPHA,
        Gl::ONE_MINUS_SRC_ALPHA,
        Gl::ONE,
        Gl::ONE_MINUS_SRC_ALPHA,
    );
    let background = [
        palette::BACKGROUND.0,
        palette::BACKGROUND.1,
        palette::BACKGROUND.2,
    ]
    .map(|c| f32::from(c) / 255.0);
    gl.clear_color(background[0], background[1], background[2], 1.0);
    if gl.is_context_lost() {
        return Err(error("the WebGL2 context is lost"));
    }
    Ok(Painter {
        canvas,
        gl,
        bodies,
        stickers,
        body_vao,
        sticker_vao,
        buffers: [
            uniform,
            body_vertices,
            body_indices,
            body_buffer,
            sticker_buffer,
        ],
        body_index_count: indices.len() as i32,
    })
}

#[wasm_bindgen]
impl Painter {
    /// Whether the system took the WebGL context back: what a failed draw meant.
    pub fn is_lost(&self) -> bool {
        self.gl.is_context_lost()
    }

    /// Draws the frame `line` at `width`×`height` device pixels (the canvas is resized to
    /// that). A line that does not read as a frame is an error saying why, and so is a lost
    /// context; nothing is drawn.
    pub fn draw(&mut self, width: u32, height: u32, line: &str) -> Result<(), JsError> {
        let frame: Frame = line.parse().map_err(|e: String| JsError::new(&e))?;
        let gl = &self.gl;
        if gl.is_context_lost() {
            return Err(error("the WebGL2 context is lost"));
        }
        let (width, height) = (width.max(1), height.max(1));
        if (width, height) != (self.canvas.width(), self.canvas.height()) {
            self.canvas.set_width(width);
            self.canvas.set_height(height);
        }
        // The browser may give a very large canvas a smaller drawing buffer.
        gl.viewport(0, 0, gl.drawing_buffer_width(), gl.drawing_buffer_height());
        let input = frame.input();
        let [uniform, _, _, body_buffer, sticker_buffer] = &self.buffers;
        let uniform_data = frame_uniform(GL_DEPTH * view_proj(input.camera, width, height), true);
        gl.bind_buffer(Gl::UNIFORM_BUFFER, Some(uniform));
        gl.buffer_sub_data_with_i32_and_u8_array(
            Gl::UNIFORM_BUFFER,
            0,
            bytemuck::bytes_of(&uniform_data),
        );
        gl.bind_buffer(Gl::ARRAY_BUFFER, Some(body_buffer));
        gl.buffer_sub_data_with_i32_and_u8_array(
            Gl::ARRAY_BUFFER,
            0,
            bytemuck::cast_slice(&body_instances(input.spin)),
        );
        gl.bind_buffer(Gl::ARRAY_BUFFER, Some(sticker_buffer));
        gl.buffer_sub_data_with_i32_and_u8_array(
            Gl::ARRAY_BUFFER,
            0,
            bytemuck::cast_slice(&sticker_instances(input.cube, input.spin)),
        );

        gl.depth_mask(true);
        gl.clear(Gl::COLOR_BUFFER_BIT | Gl::DEPTH_BUFFER_BIT);
        gl.disable(Gl::BLEND);
        gl.use_program(Some(&self.bodies));
        gl.bind_vertex_array(Some(&self.body_vao));
        gl.draw_elements_instanced_with_i32(
            Gl::TRIANGLES,
            self.body_index_count,
            Gl::UNSIGNED_SHORT,
            0,
            BODIES as i32,
        );
        // The stickers lie on the bodies' faces: tested against their depth, not written.
        gl.depth_mask(false);
        gl.enable(Gl::BLEND);
        gl.use_program(Some(&self.stickers));
        gl.bind_vertex_array(Some(&self.sticker_vao));
        gl.draw_arrays_instanced(Gl::TRIANGLES, 0, STICKER_VERTICES as i32, STICKERS as i32);
        gl.bind_vertex_array(None);
        Ok(())
    }
}

impl Drop for Painter {
    fn drop(&mut self) {
        // Objects of a context lost since (and maybe given back already) are not this
        // context's to delete: WebGL would warn.
        let gl = &self.gl;
        for program in [&self.bodies, &self.stickers] {
            if gl.is_program(Some(program)) {
                gl.delete_program(Some(program));
            }
        }
        for vao in [&self.body_vao, &self.sticker_vao] {
            if gl.is_vertex_array(Some(vao)) {
                gl.delete_vertex_array(Some(vao));
            }
        }
        for buffer in &self.buffers {
            if gl.is_buffer(Some(buffer)) {
                gl.delete_buffer(Some(buffer));
            }
        }
    }
}
