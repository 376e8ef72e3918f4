//! A request a screen sends (to the server, or to the device): whether it is under way, so
//! its button waits, and what its answer said. One at a time: a second tap while one is
//! under way sends nothing.

use std::future::Future;
use std::pin::Pin;

use dioxus::prelude::*;

/// A request's state on screen. `T` is what an answer says: a problem's sentence by default;
/// where success is told too, the sentence with its kind.
pub struct Request<T: 'static = String> {
    busy: Signal<bool>,
    said: Signal<Option<T>>,
}

impl<T> Clone for Request<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Request<T> {}

/// A request of this component: not under way, having said nothing.
pub fn use_request<T: 'static>() -> Request<T> {
    Request {
        busy: use_signal(|| false),
        said: use_signal(|| None),
    }
}

impl<T: Clone + 'static> Request<T> {
    /// Whether it is under way.
    pub fn busy(self) -> bool {
        (self.busy)()
    }

    /// What the last answer said, or a check before sending.
    pub fn said(self) -> Option<T> {
        (self.said)()
    }

    /// Says `what` without sending anything: a check on the device found it.
    pub fn say(mut self, what: T) {
        self.said.set(Some(what));
    }

    /// Forgets what was said.
    pub fn clear(mut self) {
        self.said.set(None);
    }

    /// Sends `work` unless a request is under way: what was said is forgotten, the request
    /// is busy until `work` ends, and then says what `work` answers.
    pub fn run(self, work: impl Future<Output = Option<T>> + 'static) {
        // Boxed, so that one task body serves every request of a kind.
        self.start(Box::pin(work));
    }

    fn start(mut self, work: Pin<Box<dyn Future<Output = Option<T>>>>) {
        if *self.busy.peek() {
            return;
        }
        self.said.set(None);
        self.busy.set(true);
        spawn(async move {
            let said = work.await;
            self.busy.set(false);
            self.said.set(said);
        });
    }
}
