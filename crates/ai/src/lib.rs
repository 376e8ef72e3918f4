//! # velha-ai
//!
//! The computer opponents of every game, behind one interface: given a position, limits
//! (time or work) and a random source, [`Opponent::choose`] returns an action.
//!
//! - [`Velha`]: the cube's opponent (CUBE-V05): alpha-beta search with iterative deepening
//!   and a transposition table, over whole turns (free turn included).
//! - [`Character`]: Jogo da Velha's Vila Quintal — Rabisco (easy), Nino (medium) and
//!   Vó Quelônia (perfect) (CLASSIC-R06).
//! - [`UltimateAi`]: Super Jogo da Velha and 2.0 at [`Difficulty::Easy`], `Medium` and
//!   `Hard` (Monte Carlo tree search, scored by each game's own rules).
//!
//! Everything runs single-threaded with a clock that works in the browser, so the same code
//! thinks on the phone, on the desktop, in a web page and on the server. The searching
//! opponents also implement [`Deliberate`]: a decision in slices of a few milliseconds, so a
//! screen draws between them, as strong as one taken at once.
//!
//! ```
//! use velha_ai::{Character, Limits, Opponent, Rng};
//! use velha_rules::{Classic, Player, Position};
//!
//! let mut board = Classic::new(Player::X);
//! board.play("a1".parse().unwrap()).unwrap();
//! let reply = Character::Quelonia.choose(&board, Limits::millis(50), &mut Rng::new(7));
//! assert_eq!(reply.map(|c| c.to_string()).as_deref(), Some("b2"), "the only drawing reply");
//! ```

pub mod analysis;
pub mod arena;
mod baseline;
mod budget;
mod classic;
mod rng;
mod ultimate;
mod velha;

pub use baseline::{Greedy, RandomPlayer};
pub use budget::{Budget, Limits, Spend};
pub use classic::Character;
pub use rng::Rng;
pub use ultimate::{Difficulty, UltimateAi};
pub use velha::{MATE, MATE_BOUND, REPETITION, Velha, VelhaStats, Weights};

use velha_rules::Position;
use web_time::Duration;

/// A computer opponent for positions of type `P`.
pub trait Opponent<P: Position> {
    /// The action to play from `position`, within `limits`, drawing any randomness from
    /// `rng`; `None` only when the game is over.
    fn choose(&mut self, position: &P, limits: Limits, rng: &mut Rng) -> Option<P::Action>;

    /// [`Opponent::choose`] knowing the game so far: `earlier` are its positions before
    /// `position`, oldest first. Opponents that do not look back ignore them.
    fn choose_in_game(
        &mut self,
        earlier: &[P],
        position: &P,
        limits: Limits,
        rng: &mut Rng,
    ) -> Option<P::Action> {
        let _ = earlier;
        self.choose(position, limits, rng)
    }
}

/// Whether a decision taken in slices is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thought<A> {
    /// Still thinking: call [`Deliberate::think`] again.
    Thinking,
    /// Decided: the action, `None` only when the game is over (or nothing was started).
    Decided(Option<A>),
}

/// An opponent that can take its decision in slices of time, so a screen keeps drawing and
/// answering between them. Only the slices' time counts against the limits: in slices or at
/// once, the decision is as strong, and under a work limit it is the same.
pub trait Deliberate<P: Position>: Opponent<P> {
    /// Starts deciding what to play from `position`, after the game's `earlier` positions
    /// (oldest first), within `limits`. A decision already under way is dropped.
    fn start(&mut self, earlier: &[P], position: &P, limits: Limits, rng: &mut Rng);

    /// Thinks for about `slice` more (at least one unit of work; `Duration::MAX` finishes).
    fn think(&mut self, slice: Duration, rng: &mut Rng) -> Thought<P::Action>;
}

/// A decision taken in one go by an opponent that can also think in slices.
fn decide_at_once<P: Position, D: Deliberate<P>>(
    opponent: &mut D,
    earlier: &[P],
    position: &P,
    limits: Limits,
    rng: &mut Rng,
) -> Option<P::Action> {
    opponent.start(earlier, position, limits, rng);
    loop {
        if let Thought::Decided(action) = opponent.think(Duration::MAX, rng) {
            return action;
        }
    }
}
