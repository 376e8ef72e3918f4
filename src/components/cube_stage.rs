//! What the cube canvas shows and how it answers a finger, the same on every platform: the
//! camera, the gesture recogniser, the queue of turns to animate. The platform canvases
//! (`platform::canvas_*`) only draw it and feed it pointer events.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use velha_cube_view::camera::{BackToFront, Camera};
use velha_cube_view::gesture::{Gestures, Meaning, PointerEvent};
use velha_cube_view::picking::Viewport;
use velha_cube_view::scene::{Spin, TurnAnimation};
use velha_rules::{Cube, Turn};

/// Turns waiting to be shown, each with the position it starts from. Shared between the
/// screen (which plays the actions) and the canvas (which animates them), also across the
/// native renderer's thread.
#[derive(Clone, Debug, Default)]
pub struct TurnQueue(Arc<Mutex<VecDeque<(Cube, Turn)>>>);

impl PartialEq for TurnQueue {
    fn eq(&self, other: &TurnQueue) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl TurnQueue {
    /// Queues `turn`, played from `before`.
    pub fn push(&self, before: Cube, turn: Turn) {
        if let Ok(mut q) = self.0.lock() {
            q.push_back((before, turn));
        }
    }

    /// Forgets every queued turn (a new game).
    pub fn clear(&self) {
        if let Ok(mut q) = self.0.lock() {
            q.clear();
        }
    }

    fn pop(&self) -> Option<(Cube, Turn)> {
        self.0.lock().ok()?.pop_front()
    }
}

/// The "Ver de frente" button's request to bring the orbited view back to the front, taken
/// by the stage at its next frame (on native, on the renderer's thread).
#[derive(Clone, Debug, Default)]
pub struct FrontView(Arc<AtomicBool>);

impl PartialEq for FrontView {
    fn eq(&self, other: &FrontView) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl FrontView {
    /// Asks for the front view.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn take(&self) -> bool {
        self.0.swap(false, Ordering::Relaxed)
    }
}

/// One picture of the cube.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Picture {
    /// The position drawn.
    pub cube: Cube,
    /// A layer part-way through a turn.
    pub spin: Option<Spin>,
    /// The view.
    pub camera: Camera,
}

/// The cube on screen.
#[derive(Debug)]
pub struct Stage {
    camera: Camera,
    gestures: Gestures,
    /// The position after every turn.
    latest: Cube,
    /// The turn being shown and the position it starts from.
    playing: Option<(Cube, TurnAnimation)>,
    queue: TurnQueue,
    front: FrontView,
    /// The view coming back to the front.
    returning: Option<BackToFront>,
    /// What the last frame showed, at which size: a still picture is not drawn again.
    last: Option<(Picture, (u32, u32))>,
    /// The canvas size in logical pixels, as last seen.
    pub viewport: Viewport,
}

impl Stage {
    /// A stage showing `cube`, animating the turns of `queue` and going back to the front
    /// view when `front` asks.
    pub fn new(cube: Cube, queue: TurnQueue, front: FrontView) -> Stage {
        Stage {
            camera: Camera::new(cube.level()),
            gestures: Gestures::new(),
            latest: cube,
            playing: None,
            queue,
            front,
            returning: None,
            last: None,
            viewport: Viewport {
                width: 1.0,
                height: 1.0,
            },
        }
    }

    /// The position after every turn, as the screen has it now.
    pub fn set_latest(&mut self, cube: Cube) {
        if cube.level() != self.latest.level() {
            self.camera = Camera::new(cube.level());
            self.returning = None;
        }
        self.latest = cube;
    }

    fn position(&self) -> Cube {
        self.playing.map_or(self.latest, |(before, _)| before)
    }

    /// The picture for a frame of `size` pixels at `now_ms`, or `None` when it is the same as
    /// the last one drawn.
    pub fn frame(&mut self, now_ms: f64, size: (u32, u32)) -> Option<Picture> {
        // The next queued turn starts when the previous one ends.
        if self.playing.is_none_or(|(_, a)| a.spin(now_ms).is_none()) {
            self.playing = self.queue.pop().map(|(before, turn)| {
                (
                    before,
                    TurnAnimation {
                        turn,
                        start_ms: now_ms,
                    },
                )
            });
        }
        if self.front.take() {
            self.returning = Some(BackToFront {
                from: self.camera,
                start_ms: now_ms,
            });
        }
        if let Some(back) = self.returning {
            match back.at(now_ms) {
                Some(camera) => self.camera = camera,
                None => {
                    self.camera = self.camera.front();
                    self.returning = None;
                }
            }
        }
        let picture = Picture {
            cube: self.position(),
            spin: self.playing.and_then(|(_, a)| a.spin(now_ms)),
            camera: self.camera,
        };
        if picture.spin.is_none() && self.last == Some((picture, size)) {
            return None;
        }
        self.last = Some((picture, size));
        Some(picture)
    }

    /// Has the next frame drawn even if its picture is the last one's: another drawer takes
    /// over (in the browser, the painter from the flat sketch and back).
    #[cfg(target_arch = "wasm32")]
    pub fn draw_again(&mut self) {
        self.last = None;
    }

    /// A pointer event at a point of the canvas (logical pixels); what the gesture meant once
    /// it ends.
    pub fn pointer(&mut self, event: PointerEvent) -> Option<Meaning> {
        // A finger on the canvas takes the view over from the way back to the front.
        if matches!(event, PointerEvent::Down { .. }) {
            self.returning = None;
        }
        let position = self.position();
        self.gestures
            .handle(event, &mut self.camera, self.viewport, &position)
    }
}
