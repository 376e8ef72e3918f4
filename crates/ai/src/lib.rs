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
//! thinks on the phone, on the desktop, in a web page and on the server.
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

pub mod arena;
mod baseline;
mod budget;
mod classic;
mod rng;
mod ultimate;
mod velha;

pub use baseline::{Greedy, RandomPlayer};
pub use budget::{Budget, Limits};
pub use classic::Character;
pub use rng::Rng;
pub use ultimate::{Difficulty, UltimateAi};
pub use velha::{MATE, MATE_BOUND, REPETITION, Velha, VelhaStats, Weights};

use velha_rules::Position;

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
