//! The cube canvas in the browser: a DOM `<canvas>` drawn by the painter module
//! (`velha-cube-paint`, WebGL2 in a wasm of its own), with a 2D canvas over it
//! drawn by the app until the painter draws or where it cannot (`sketch_web.rs`); pointer
//! events (touch included) with element coordinates.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use dioxus::prelude::*;
use futures_util::future::{Either, select};
use glam::Vec2;
use velha_cube_view::frame::Frame;
use velha_cube_view::gesture::{Meaning, PointerEvent};
use velha_cube_view::picking::Viewport;
use velha_rules::Cube;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::app::use_texts;
use crate::components::cube_stage::{FrontView, Picture, Stage, TurnQueue};

const CANVAS_ID: &str = "cube-canvas";
/// The 2D canvas over it while the painter does not draw (`sketch_web.rs`).
const SKETCH_ID: &str = "cube-sketch";
/// The first and the longest wait before the painter's module is asked for again.
const PAINTER_RETRY_MS: (u32, u32) = (2_000, 60_000);

#[wasm_bindgen]
extern "C" {
    /// `assets/boot.js`: the painter module (`velha-cube-paint`), usually already fetched
    /// after the first screen; fetched again after a failure.
    #[wasm_bindgen(catch, js_namespace = window, js_name = velhaPainter)]
    fn load_painter() -> Result<js_sys::Promise, JsValue>;

    /// `assets/boot.js`: resolves once a painter module has come.
    #[wasm_bindgen(catch, js_namespace = window, js_name = velhaPainterCame)]
    fn painter_came_promise() -> Result<js_sys::Promise, JsValue>;

    /// The painter module.
    type PainterModule;

    /// Opens WebGL2 on the canvas and prepares the cube's programs.
    #[wasm_bindgen(method, catch)]
    fn paint_on(
        this: &PainterModule,
        canvas: &web_sys::HtmlCanvasElement,
    ) -> Result<Painter, JsValue>;

    #[wasm_bindgen(js_namespace = console)]
    fn warn(message: &str);

    /// `velha-cube-paint`'s painter.
    type Painter;

    #[wasm_bindgen(method, catch)]
    fn draw(this: &Painter, width: u32, height: u32, line: &str) -> Result<(), JsValue>;

    /// Whether the system took the painter's WebGL context back.
    #[wasm_bindgen(method)]
    fn is_lost(this: &Painter) -> bool;

    /// Releases the painter's memory in its module and its programs and buffers.
    #[wasm_bindgen(method)]
    fn free(this: &Painter);
}

/// A painter released with the canvas that owns it.
struct OwnedPainter(Painter);

impl Drop for OwnedPainter {
    fn drop(&mut self) {
        self.0.free();
    }
}

fn canvas() -> Option<web_sys::HtmlCanvasElement> {
    web_sys::window()?
        .document()?
        .get_element_by_id(CANVAS_ID)?
        .dyn_into()
        .ok()
}

/// What a failed JavaScript call said.
fn reason(error: JsValue) -> String {
    match error.dyn_ref::<js_sys::Error>() {
        Some(e) => e.message().into(),
        None => error.as_string().unwrap_or_else(|| format!("{error:?}")),
    }
}

/// Why the cube is not drawn; the details go to the console, the player reads a sentence.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Failure {
    /// The painter module could not be fetched (offline before it was ever kept): asked for
    /// again until it comes.
    NotLoaded,
    /// The browser gave no WebGL2, or the painter's first picture failed.
    NoWebGl,
    /// The painter had drawn and then failed: its WebGL context lost (the system takes it back
    /// from an app in the background). The painter starts again if the browser gives the
    /// context back; a new canvas, the screen opened again, gets a new one.
    Lost,
}

async fn call(promise: Result<js_sys::Promise, JsValue>) -> Result<JsValue, String> {
    wasm_bindgen_futures::JsFuture::from(promise.map_err(reason)?)
        .await
        .map_err(reason)
}

/// Asks for the painter ahead of the cube (its screen opened, the player choosing how to play):
/// the choice gives the download a head start. A failure is the cube canvas's to tell, when it
/// asks again.
pub fn fetch_painter() {
    if let Ok(asked) = load_painter() {
        // Awaited so that a failed fetch is not an unhandled rejection on the page.
        wasm_bindgen_futures::spawn_local(async move {
            let _ = wasm_bindgen_futures::JsFuture::from(asked).await;
        });
    }
}

/// Resolves once a painter module has come, by whichever ask (`assets/boot.js`).
async fn painter_came() {
    if let Ok(came) = painter_came_promise() {
        let _ = wasm_bindgen_futures::JsFuture::from(came).await;
    } else {
        std::future::pending::<()>().await;
    }
}

async fn start_painter(canvas: web_sys::HtmlCanvasElement) -> Result<OwnedPainter, Failure> {
    let module: PainterModule = call(load_painter())
        .await
        .map_err(|e| {
            warn(&format!("the cube's painter did not load: {e}"));
            Failure::NotLoaded
        })?
        .unchecked_into();
    let painter = module.paint_on(&canvas).map_err(|e| {
        warn(&format!("the cube cannot be drawn: {}", reason(e)));
        Failure::NoWebGl
    })?;
    Ok(OwnedPainter(painter))
}

/// The canvas's size in pixels (its CSS size times the device's pixel ratio), noting its CSS
/// size in the stage for picking.
fn measure(stage: &mut Stage) -> Option<(u32, u32)> {
    let element = canvas()?;
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let rect = element.get_bounding_client_rect();
    stage.viewport = Viewport {
        width: rect.width() as f32,
        height: rect.height() as f32,
    };
    Some((
        ((rect.width() * ratio) as u32).max(1),
        ((rect.height() * ratio) as u32).max(1),
    ))
}

/// Notes when the system takes the canvas's WebGL context back (it may from an app in the
/// background, and then the painter's picture is gone) and when it gives it back; the
/// listeners go with it.
struct LostWatch {
    canvas: web_sys::HtmlCanvasElement,
    on_lost: Closure<dyn FnMut(web_sys::Event)>,
    on_restored: Closure<dyn FnMut()>,
}

impl LostWatch {
    fn new(
        canvas: web_sys::HtmlCanvasElement,
        lost: Rc<Cell<bool>>,
        restored: Rc<Cell<bool>>,
    ) -> Self {
        // Without `preventDefault` the browser never gives the context back.
        let on_lost = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            lost.set(true);
        });
        let on_restored = Closure::<dyn FnMut()>::new(move || restored.set(true));
        let _ = canvas
            .add_event_listener_with_callback("webglcontextlost", on_lost.as_ref().unchecked_ref());
        let _ = canvas.add_event_listener_with_callback(
            "webglcontextrestored",
            on_restored.as_ref().unchecked_ref(),
        );
        Self {
            canvas,
            on_lost,
            on_restored,
        }
    }
}

impl Drop for LostWatch {
    fn drop(&mut self) {
        let _ = self.canvas.remove_event_listener_with_callback(
            "webglcontextlost",
            self.on_lost.as_ref().unchecked_ref(),
        );
        let _ = self.canvas.remove_event_listener_with_callback(
            "webglcontextrestored",
            self.on_restored.as_ref().unchecked_ref(),
        );
    }
}

/// Draws with the painter; `drawn`: it has drawn before.
fn draw(
    painter: &OwnedPainter,
    picture: &Picture,
    (w, h): (u32, u32),
    drawn: bool,
) -> Result<(), Failure> {
    let frame = Frame {
        cube: picture.cube,
        camera: picture.camera,
        spin: picture.spin,
    };
    painter.0.draw(w, h, &frame.to_string()).map_err(|e| {
        warn(&format!("the cube cannot be drawn: {}", reason(e)));
        // A context taken back before the first picture is lost too, not missing.
        if drawn || painter.0.is_lost() {
            Failure::Lost
        } else {
            Failure::NoWebGl
        }
    })
}

/// The cube canvas. `cube` is the position after every turn; `turns` queues the turns to
/// animate; `front` brings the view back to the front; `on_gesture` receives what a finished
/// touch meant.
#[component]
pub fn CubeCanvas(
    cube: Cube,
    turns: TurnQueue,
    front: FrontView,
    on_gesture: EventHandler<Meaning>,
) -> Element {
    let t = use_texts();
    let shared: Rc<RefCell<(Stage, Option<OwnedPainter>)>> = use_hook(|| {
        let stage = Stage::new(cube, turns.clone(), front.clone());
        Rc::new(RefCell::new((stage, None)))
    });
    shared.borrow_mut().0.set_latest(cube);
    let mut failed = use_signal(|| None::<Failure>);
    let mut ready = use_signal(|| false);

    let lost = use_hook(|| Rc::new(Cell::new(false)));
    let restored = use_hook(|| Rc::new(Cell::new(false)));
    let watch = use_hook(|| Rc::new(RefCell::new(None::<LostWatch>)));
    let s = shared.clone();
    let (l, r, w) = (lost.clone(), restored.clone(), watch.clone());
    // The painter's start, on a canvas first and again on a context given back. A module that
    // could not be fetched is asked for again (its glue under a new address, assets/boot.js)
    // when the network comes back or the app is shown again, when another ask brought it, and
    // meanwhile at growing intervals (a weak signal changes no network state); the flat
    // drawing plays until then.
    let start = move |element: web_sys::HtmlCanvasElement, again: bool| {
        let s = s.clone();
        spawn(async move {
            let mut wait_ms = PAINTER_RETRY_MS.0;
            loop {
                // Heard during an attempt too: a network back while a fetch is failing must not
                // wait out the interval.
                let attempt = std::pin::pin!(start_painter(element.clone()));
                let back = std::pin::pin!(crate::platform::network_back());
                let (tried, came_back) = match select(attempt, back).await {
                    Either::Left((tried, _)) => (tried, false),
                    Either::Right(((), attempt)) => (attempt.await, true),
                };
                match tried {
                    Ok(painter) => {
                        let mut guard = s.borrow_mut();
                        guard.1 = Some(painter);
                        // The sketch drew the picture the painter now starts from.
                        guard.0.draw_again();
                    }
                    // A context given back that cannot be drawn on is still the one lost.
                    Err(_) if again => failed.set(Some(Failure::Lost)),
                    Err(Failure::NotLoaded) => {
                        failed.set(Some(Failure::NotLoaded));
                        if came_back {
                            wait_ms = PAINTER_RETRY_MS.0;
                            continue;
                        }
                        let wait = std::pin::pin!(crate::platform::sleep_ms(wait_ms));
                        let back = std::pin::pin!(crate::platform::network_back());
                        let came = std::pin::pin!(painter_came());
                        wait_ms = match select(wait, select(back, came)).await {
                            Either::Left(_) => (wait_ms * 2).min(PAINTER_RETRY_MS.1),
                            Either::Right(_) => PAINTER_RETRY_MS.0,
                        };
                        continue;
                    }
                    Err(e) => failed.set(Some(e)),
                }
                return;
            }
        });
    };
    let first = start.clone();
    use_hook(move || {
        // After the first render, which makes the canvas.
        spawn(async move {
            let Some(element) = canvas() else {
                return;
            };
            *w.borrow_mut() = Some(LostWatch::new(element.clone(), l, r));
            first(element, false);
        })
    });
    let s = shared.clone();
    use_hook(move || {
        spawn(async move {
            // About every 16 ms; a still picture is not drawn again.
            loop {
                crate::platform::sleep_ms(16).await;
                let mut guard = s.borrow_mut();
                let (stage, painter) = &mut *guard;
                if lost.take() && painter.take().is_some() {
                    // The flat drawing takes over, at once, until the context comes back.
                    stage.draw_again();
                    failed.set(Some(Failure::Lost));
                }
                if restored.take()
                    && painter.is_none()
                    && *failed.peek() == Some(Failure::Lost)
                    && let Some(element) = canvas()
                {
                    start(element, true);
                }
                let Some(size) = measure(stage) else {
                    continue;
                };
                let Some(picture) = stage.frame(crate::platform::now_ms(), size) else {
                    continue;
                };
                let drawn = *ready.peek();
                match painter {
                    Some(p) => match draw(p, &picture, size, drawn) {
                        // The sketch and a lost context's sentence go once the painter's
                        // first picture is there.
                        Ok(()) => {
                            if !drawn {
                                ready.set(true);
                            }
                            if failed.peek().is_some() {
                                failed.set(None);
                            }
                        }
                        Err(e) => {
                            *painter = None;
                            stage.draw_again();
                            failed.set(Some(e));
                        }
                    },
                    None => {
                        if !super::sketch_web::draw(SKETCH_ID, &picture, size) {
                            stage.draw_again();
                        }
                    }
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
    let sketching = failed().is_some() || !ready();
    rsx! {
        div {
            class: "cube-stage",
            "data-painter": if failed().is_some() { "failed" } else if ready() { "ready" } else { "loading" },
            canvas {
                id: CANVAS_ID,
                // Unseen under the sketch (a lost context leaves it a picture of its own), but
                // still taking the touches.
                class: if sketching { "cube-canvas under-sketch" } else { "cube-canvas" },
                "aria-hidden": "true",
                onpointerdown: move |e| p0(e, 0),
                onpointermove: move |e| p1(e, 1),
                onpointerup: move |e| p2(e, 2),
                onpointercancel: move |e| p3(e, 2),
            }
            if sketching {
                // Under the painter's sentences; the touches go through to the canvas below.
                canvas { id: SKETCH_ID, class: "cube-sketch", "aria-hidden": "true" }
            }
            if let Some(failure) = failed() {
                p { class: "warning over-cube", role: "alert",
                    match failure {
                        Failure::NotLoaded => t.cube_not_loaded,
                        Failure::NoWebGl => t.cube_no_webgl,
                        Failure::Lost => t.cube_lost,
                    }
                }
            } else if !ready() {
                p { class: "cube-loading", role: "status", "{t.cube_loading}" }
            }
        }
    }
}
