//! The cube canvas on Blitz (dioxus-native 0.7): a custom paint source that renders with the
//! UI's own wgpu device into an `Rgba8Unorm` texture Blitz composites. Blitz 0.7 gives mouse
//! events with client coordinates only, so the screen lays the canvas at the window's top-left
//! corner (see `CANVAS_AT_ORIGIN`) and client coordinates are canvas coordinates.

use std::sync::{Arc, Mutex};

use dioxus::prelude::*;
use dioxus_native::{CustomPaintCtx, CustomPaintSource, DeviceHandle, TextureHandle};
use glam::Vec2;
use velha_cube_view::gesture::{Meaning, PointerEvent};
use velha_cube_view::picking::Viewport;
use velha_cube_view::render::{CubeRenderer, FrameInput, target_texture};
use velha_rules::Cube;

use crate::components::cube_stage::{FrontView, Stage, TurnQueue};

/// Blitz only takes this format for custom paint.
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// The screen must put the canvas at the window's origin (no offsets above or left of it).
pub const CANVAS_AT_ORIGIN: bool = true;

struct Target {
    texture: wgpu::Texture,
    handle: TextureHandle,
}

struct Active {
    device: wgpu::Device,
    queue: wgpu::Queue,
    renderer: CubeRenderer,
    /// Shown now, and the one to draw next: Blitz may still be reading the first.
    shown: Option<Target>,
    next: Option<Target>,
}

struct Source {
    stage: Arc<Mutex<Stage>>,
    active: Option<Active>,
}

impl CustomPaintSource for Source {
    fn resume(&mut self, device: &DeviceHandle) {
        let renderer = CubeRenderer::new(&device.device, FORMAT);
        self.active = Some(Active {
            device: device.device.clone(),
            queue: device.queue.clone(),
            renderer,
            shown: None,
            next: None,
        });
    }

    fn suspend(&mut self) {
        self.active = None;
    }

    fn render(
        &mut self,
        mut ctx: CustomPaintCtx<'_>,
        width: u32,
        height: u32,
        scale: f64,
    ) -> Option<TextureHandle> {
        if width == 0 || height == 0 {
            return None;
        }
        let active = self.active.as_mut()?;
        let mut stage = self.stage.lock().ok()?;
        stage.viewport = Viewport {
            width: (f64::from(width) / scale) as f32,
            height: (f64::from(height) / scale) as f32,
        };
        let Some(picture) = stage.frame(crate::platform::now_ms(), (width, height)) else {
            return active.shown.as_ref().map(|t| t.handle.clone());
        };
        drop(stage);
        let stale = active
            .next
            .take_if(|t| (t.texture.width(), t.texture.height()) != (width, height));
        if let Some(old) = stale {
            ctx.unregister_texture(old.handle);
        }
        let target = active.next.take().unwrap_or_else(|| {
            let texture = target_texture(&active.device, width, height, FORMAT);
            let handle = ctx.register_texture(texture.clone());
            Target { texture, handle }
        });
        let view = target.texture.create_view(&Default::default());
        let input = FrameInput {
            cube: &picture.cube,
            camera: &picture.camera,
            spin: picture.spin,
        };
        active.renderer.prepare(&active.queue, input, width, height);
        active
            .renderer
            .render(&active.device, &active.queue, &view, width, height);
        let handle = target.handle.clone();
        active.next = active.shown.replace(target);
        Some(handle)
    }
}

/// Nothing to fetch on native: the renderer is built in.
pub fn fetch_painter() {}

/// The cube canvas. `cube` is the position after every turn; `turns` queues the turns to
/// animate; `front` brings the view back to the front; `on_gesture` receives what a finished
/// drag or click meant.
#[component]
pub fn CubeCanvas(
    cube: Cube,
    turns: TurnQueue,
    front: FrontView,
    on_gesture: EventHandler<Meaning>,
) -> Element {
    let stage: Arc<Mutex<Stage>> =
        use_hook(|| Arc::new(Mutex::new(Stage::new(cube, turns.clone(), front.clone()))));
    if let Ok(mut s) = stage.lock() {
        s.set_latest(cube);
    }
    let for_source = stage.clone();
    let id = dioxus_native::use_wgpu(move || Source {
        stage: for_source,
        active: None,
    });
    let pointer = move |e: Event<MouseData>, kind: u8| {
        let p = e.client_coordinates();
        let (at, ms) = (Vec2::new(p.x as f32, p.y as f32), crate::platform::now_ms());
        let event = match kind {
            0 => PointerEvent::Down { at, ms },
            1 => PointerEvent::Move { at, ms },
            _ => PointerEvent::Up { at, ms },
        };
        let meaning = stage.lock().ok().and_then(|mut s| s.pointer(event));
        if let Some(meaning) = meaning {
            on_gesture.call(meaning);
        }
    };
    let (p0, p1, p2) = (pointer.clone(), pointer.clone(), pointer);
    rsx! {
        div { class: "cube-stage native",
            canvas {
                "src": id,
                class: "cube-canvas",
                onmousedown: move |e| p0(e, 0),
                onmousemove: move |e| p1(e, 1),
                onmouseup: move |e| p2(e, 2),
            }
        }
    }
}
