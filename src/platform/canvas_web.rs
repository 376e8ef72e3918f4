//! The cube canvas in the browser: a DOM `<canvas>` drawn by wgpu's WebGL2 backend, pointer
//! events (touch included) with element coordinates.

use std::cell::RefCell;
use std::rc::Rc;

use dioxus::prelude::*;
use glam::Vec2;
use velha_cube_view::gesture::{Meaning, PointerEvent};
use velha_cube_view::picking::Viewport;
use velha_cube_view::render::{CubeRenderer, FrameInput, required_limits};
use velha_rules::Cube;
use wasm_bindgen::JsCast;

use crate::components::cube_stage::{Stage, TurnQueue};

const CANVAS_ID: &str = "cube-canvas";

struct Gpu {
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: CubeRenderer,
    config: wgpu::SurfaceConfiguration,
}

fn canvas() -> Option<web_sys::HtmlCanvasElement> {
    web_sys::window()?
        .document()?
        .get_element_by_id(CANVAS_ID)?
        .dyn_into()
        .ok()
}

async fn start_gpu(canvas: web_sys::HtmlCanvasElement) -> Result<Gpu, String> {
    let instance = wgpu::Instance::new(&wgpu::InstanceDescriptor {
        backends: wgpu::Backends::GL,
        ..Default::default()
    });
    let (width, height) = (canvas.width().max(1), canvas.height().max(1));
    let surface = instance
        .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
        .map_err(|e| e.to_string())?;
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?;
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            required_limits: required_limits(),
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?;
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
    Ok(Gpu {
        surface,
        device,
        queue,
        renderer,
        config,
    })
}

/// Draws the stage when its picture changed, resizing the canvas to its CSS size.
fn draw(stage: &mut Stage, gpu: &mut Gpu) {
    let Some(element) = canvas() else { return };
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let rect = element.get_bounding_client_rect();
    stage.viewport = Viewport {
        width: rect.width() as f32,
        height: rect.height() as f32,
    };
    let (w, h) = (
        ((rect.width() * ratio) as u32).max(1),
        ((rect.height() * ratio) as u32).max(1),
    );
    if (w, h) != (gpu.config.width, gpu.config.height) {
        element.set_width(w);
        element.set_height(h);
        gpu.config.width = w;
        gpu.config.height = h;
        gpu.surface.configure(&gpu.device, &gpu.config);
    }
    let Some(picture) = stage.frame(crate::platform::now_ms(), (w, h)) else {
        return;
    };
    let Ok(frame) = gpu.surface.get_current_texture() else {
        return;
    };
    let view = frame.texture.create_view(&Default::default());
    let input = FrameInput {
        cube: &picture.cube,
        camera: &picture.camera,
        spin: picture.spin,
    };
    gpu.renderer.prepare(&gpu.queue, input, w, h);
    gpu.renderer.render(&gpu.device, &gpu.queue, &view, w, h);
    frame.present();
}

/// The cube canvas. `cube` is the position after every turn; `turns` queues the turns to
/// animate; `on_gesture` receives what a finished touch meant.
#[component]
pub fn CubeCanvas(cube: Cube, turns: TurnQueue, on_gesture: EventHandler<Meaning>) -> Element {
    let shared: Rc<RefCell<(Stage, Option<Gpu>)>> =
        use_hook(|| Rc::new(RefCell::new((Stage::new(cube, turns.clone()), None))));
    shared.borrow_mut().0.set_latest(cube);
    let mut failed = use_signal(|| None::<String>);

    let s = shared.clone();
    use_hook(move || {
        spawn(async move {
            if let Some(element) = canvas() {
                match start_gpu(element).await {
                    Ok(gpu) => s.borrow_mut().1 = Some(gpu),
                    Err(e) => failed.set(Some(e)),
                }
            }
            // About every 16 ms; a still picture is not drawn again.
            loop {
                crate::platform::sleep_ms(16).await;
                let mut guard = s.borrow_mut();
                let (stage, gpu) = &mut *guard;
                if let Some(gpu) = gpu.as_mut() {
                    draw(stage, gpu);
                }
            }
        })
    });

    let s = shared.clone();
    let pointer = move |e: Event<PointerData>, kind: u8| {
        let p = e.element_coordinates();
        let (at, ms) = (Vec2::new(p.x as f32, p.y as f32), crate::platform::now_ms());
        let event = match kind {
            0 => PointerEvent::Down { at, ms },
            1 => PointerEvent::Move { at, ms },
            _ => PointerEvent::Up { at, ms },
        };
        let meaning = s.borrow_mut().0.pointer(event);
        if let Some(meaning) = meaning {
            on_gesture.call(meaning);
        }
    };
    let (p0, p1, p2, p3) = (pointer.clone(), pointer.clone(), pointer.clone(), pointer);
    rsx! {
        div { class: "cube-stage",
            canvas {
                id: CANVAS_ID,
                class: "cube-canvas",
                "aria-hidden": "true",
                onpointerdown: move |e| p0(e, 0),
                onpointermove: move |e| p1(e, 1),
                onpointerup: move |e| p2(e, 2),
                onpointercancel: move |e| p3(e, 2),
            }
            if let Some(error) = failed() {
                p { class: "warning", "WebGL: {error}" }
            }
        }
    }
}
