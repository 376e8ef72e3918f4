//! The computer thinks between frames: its decision runs in slices of a few milliseconds,
//! and the page draws, animates and answers taps between them. Only the slices count against
//! its limits, so it plays as strongly as when it thought in one go.

use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

use dioxus::prelude::*;
use velha_ai::{Deliberate, Limits, Rng, Thought};
use velha_rules::Position;

use crate::platform::{after_next_frame, random_seed};

/// The longest the computer holds the page at once: well under the 50 ms after which a
/// browser reports a long task, and half a frame at 60 Hz, the other half left to drawing.
const SLICE: Duration = Duration::from_millis(8);

/// A computer opponent of this screen and its random source, never read by rendering.
pub struct Thinker<P: 'static, D: 'static> {
    opponent: CopyValue<D>,
    rng: CopyValue<Rng>,
    position: PhantomData<fn() -> P>,
}

impl<P, D> Clone for Thinker<P, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P, D> Copy for Thinker<P, D> {}

/// The screen's thinker, starting as `opponent()`.
pub fn use_thinker<P: Position + 'static, D: Deliberate<P> + 'static>(
    opponent: impl FnOnce() -> D,
) -> Thinker<P, D> {
    use_hook(|| Thinker {
        opponent: CopyValue::new(opponent()),
        rng: CopyValue::new(Rng::new(random_seed())),
        position: PhantomData,
    })
}

impl<P: Position + 'static, D: Deliberate<P> + 'static> Thinker<P, D> {
    /// Replaces the opponent (another difficulty).
    pub fn set(&mut self, opponent: D) {
        self.opponent.set(opponent);
    }

    /// Starts deciding what to play from `position`; the future thinks slice by slice and
    /// yields the action (`None` when the game is over). Starting again drops a decision
    /// still under way.
    pub fn decide(
        self,
        earlier: &[P],
        position: &P,
        limits: Limits,
    ) -> impl Future<Output = Option<P::Action>> + 'static {
        let (mut opponent, mut rng) = (self.opponent, self.rng);
        opponent
            .write()
            .start(earlier, position, limits, &mut rng.write());
        async move {
            loop {
                let thought = opponent.write().think(SLICE, &mut rng.write());
                match thought {
                    Thought::Decided(action) => return action,
                    // One slice per frame: the page draws and answers input in between.
                    Thought::Thinking => after_next_frame().await,
                }
            }
        }
    }
}
