//! The cube on a `<canvas>`: velha-cube-view's renderer on wgpu's WebGL2 backend, its
//! gestures fed by pointer events (touch included), quarter turns animated.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use dioxus::prelude::*;
use glam::Vec2;
use velha_cube_view::camera::Camera;
use velha_cube_view::gesture::{Gestures, Meaning, PointerEvent};
use velha_cube_view::picking::Viewport;
use velha_cube_view::render::{CubeRenderer, FrameInput, required_limits};
use velha_cube_view::scene::TurnAnimation;
use velha_rules::{Cube, Turn};
use wasm_bindgen::JsCast;

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

/// The turns still to be shown, each with the position it starts from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TurnQueue(pub VecDeque<(Cube, Turn)>);

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Everything the drawing loop and the pointer handlers share, outside the reactive state:
/// the loop runs every frame and must not re-render the tree.
struct View {
    gpu: Option<Gpu>,
    camera: Camera,
    gestures: Gestures,
    /// The position after every turn (the component's prop).
    latest: Cube,
    /// The turn being shown and the position it starts from.
    playing: Option<(Cube, TurnAnimation)>,
    /// What the last frame showed: a still picture is not drawn again (phones keep their
    /// battery, and the page stays responsive on software WebGL).
    last_frame: Option<(Cube, Camera, (u32, u32))>,
}

impl View {
    /// The position on screen: the one being turned, else the latest.
    fn position(&self) -> Cube {
        self.playing.map_or(self.latest, |(before, _)| before)
    }

    fn draw(&mut self, turns: &mut Signal<TurnQueue>) {
        let Some(element) = canvas() else { return };
        let now = now_ms();
        // The next queued turn starts when the previous one ends.
        if self.playing.is_none_or(|(_, a)| a.spin(now).is_none()) {
            let next = turns.with_mut(|q| q.0.pop_front());
            self.playing = next.map(|(before, turn)| {
                (
                    before,
                    TurnAnimation {
                        turn,
                        start_ms: now,
                    },
                )
            });
        }
        let position = self.position();
        let spin = self.playing.and_then(|(_, a)| a.spin(now));
        let camera = self.camera;
        let Some(gpu) = self.gpu.as_mut() else { return };
        let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
        let rect = element.get_bounding_client_rect();
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
        let picture = (position, camera, (w, h));
        if spin.is_none() && self.last_frame == Some(picture) {
            return;
        }
        let Ok(frame) = gpu.surface.get_current_texture() else {
            return;
        };
        self.last_frame = Some(picture);
        let view = frame.texture.create_view(&Default::default());
        gpu.renderer.prepare(
            &gpu.queue,
            FrameInput {
                cube: &position,
                camera: &camera,
                spin,
            },
            w,
            h,
        );
        gpu.renderer.render(&gpu.device, &gpu.queue, &view, w, h);
        frame.present();
    }
}

/// The cube canvas. `cube` is the position after every turn; `turns` queues the turns to
/// animate (with the position each starts from); `on_gesture` receives what a finished touch
/// meant.
#[component]
pub fn CubeCanvas(
    cube: Cube,
    turns: Signal<TurnQueue>,
    on_gesture: EventHandler<Meaning>,
) -> Element {
    let view: Rc<RefCell<View>> = use_hook(|| {
        Rc::new(RefCell::new(View {
            gpu: None,
            camera: Camera::new(cube.level()),
            gestures: Gestures::new(),
            latest: cube,
            playing: None,
            last_frame: None,
        }))
    });
    view.borrow_mut().latest = cube;
    let mut failed = use_signal(|| None::<String>);

    let v = view.clone();
    use_hook(move || {
        spawn(async move {
            if let Some(element) = canvas() {
                match start_gpu(element).await {
                    Ok(gpu) => v.borrow_mut().gpu = Some(gpu),
                    Err(e) => failed.set(Some(e)),
                }
            }
            // A frame about every 16 ms: turns animate and the canvas follows its size.
            loop {
                gloo_timers::future::TimeoutFuture::new(16).await;
                v.borrow_mut().draw(&mut turns);
            }
        })
    });

    let v = view.clone();
    let pointer = move |at: Vec2, kind: u8| {
        let Some(element) = canvas() else { return };
        let rect = element.get_bounding_client_rect();
        let viewport = Viewport {
            width: rect.width() as f32,
            height: rect.height() as f32,
        };
        let ms = now_ms();
        let event = match kind {
            0 => PointerEvent::Down { at, ms },
            1 => PointerEvent::Move { at, ms },
            _ => PointerEvent::Up { at, ms },
        };
        let meaning = {
            let mut guard = v.borrow_mut();
            let state = &mut *guard;
            let position = state.position();
            state
                .gestures
                .handle(event, &mut state.camera, viewport, &position)
        };
        if let Some(meaning) = meaning {
            on_gesture.call(meaning);
        }
    };
    let at = |e: &Event<PointerData>| {
        let p = e.element_coordinates();
        Vec2::new(p.x as f32, p.y as f32)
    };
    let (p0, p1, p2, p3) = (pointer.clone(), pointer.clone(), pointer.clone(), pointer);
    rsx! {
        div { class: "cube-stage",
            canvas {
                id: CANVAS_ID,
                class: "cube-canvas",
                "aria-hidden": "true",
                onpointerdown: move |e| p0(at(&e), 0),
                onpointermove: move |e| p1(at(&e), 1),
                onpointerup: move |e| p2(at(&e), 2),
                onpointercancel: move |e| p3(at(&e), 2),
            }
            if let Some(error) = failed() {
                p { class: "warning", "WebGL: {error}" }
            }
        }
    }
}
