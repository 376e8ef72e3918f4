//! The painter the app drives: one per canvas.

use velha_cube_view::frame::Frame;
use velha_cube_view::render::{CubeRenderer, required_limits};
use wasm_bindgen::prelude::*;

/// A canvas with its GPU device and the cube's pipelines.
#[wasm_bindgen]
pub struct Painter {
    canvas: web_sys::HtmlCanvasElement,
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: CubeRenderer,
    config: wgpu::SurfaceConfiguration,
}

/// Opens WebGL2 on `canvas` and prepares the cube's pipelines; fails with the reason when the
/// browser gives no WebGL2.
#[wasm_bindgen]
pub async fn paint_on(canvas: web_sys::HtmlCanvasElement) -> Result<Painter, JsError> {
    let instance = wgpu::Instance::new(&wgpu::InstanceDescriptor {
        backends: wgpu::Backends::GL,
        ..Default::default()
    });
    let (width, height) = (canvas.width().max(1), canvas.height().max(1));
    let surface = instance.create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))?;
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        })
        .await?;
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            required_limits: required_limits(),
            ..Default::default()
        })
        .await?;
    let caps = surface.get_capabilities(&adapter);
    // A plain (not sRGB) format, like the native paint texture: the shader encodes colours.
    let format = caps
        .formats
        .iter()
        .copied()
        .find(|f| !f.is_srgb())
        .unwrap_or(caps.formats[0]);
    let config = wgpu::SurfaceConfiguration {
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        format,
        width,
        height,
        present_mode: wgpu::PresentMode::Fifo,
        alpha_mode: caps.alpha_modes[0],
        view_formats: vec![],
        desired_maximum_frame_latency: 2,
    };
    surface.configure(&device, &config);
    let renderer = CubeRenderer::new(&device, format);
    Ok(Painter {
        canvas,
        surface,
        device,
        queue,
        renderer,
        config,
    })
}

#[wasm_bindgen]
impl Painter {
    /// Draws the frame `line` at `width`×`height` device pixels (the canvas is resized to
    /// that). A line that does not read as a frame is an error saying why; nothing is drawn.
    pub fn draw(&mut self, width: u32, height: u32, line: &str) -> Result<(), JsError> {
        let frame: Frame = line.parse().map_err(|e: String| JsError::new(&e))?;
        let (width, height) = (width.max(1), height.max(1));
        if (width, height) != (self.config.width, self.config.height) {
            self.canvas.set_width(width);
            self.canvas.set_height(height);
            self.config.width = width;
            self.config.height = height;
            self.surface.configure(&self.device, &self.config);
        }
        // A lost or outdated surface is configured again on the next frame's size check;
        // skipping one frame is all it costs.
        let Ok(texture) = self.surface.get_current_texture() else {
            return Ok(());
        };
        let view = texture.texture.create_view(&Default::default());
        self.renderer
            .prepare(&self.queue, frame.input(), width, height);
        self.renderer
            .render(&self.device, &self.queue, &view, width, height);
        texture.present();
        Ok(())
    }
}
