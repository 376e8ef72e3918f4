//! # velha-rules
//!
//! The rules of the four games of Cubo da Velha, exact and fast, with no I/O, no clock and no
//! randomness:
//!
//! - [`Cube`]: Cubo da Velha, tic-tac-toe on side 1 of a 3x3x3 cube whose layers turn
//!   (`docs/rules/cube.md`);
//! - [`Classic`]: Jogo da Velha (`classic.md`);
//! - [`Ultimate`] with [`Variant::Super`] (Super Jogo da Velha) or [`Variant::V2`]
//!   (Jogo da Velha 2.0) (`ultimate.md`).
//!
//! Every game implements [`Position`]: legal actions, [`Position::play`] (which refuses an
//! illegal action with a typed reason and leaves the position unchanged), [`Position::status`]
//! and, where a clock exists, [`Position::timeout`]. Positions are small `Copy` values, so
//! taking a move back is keeping the old copy.
//!
//! ```
//! use velha_rules::{Classic, Player, Position, Status};
//!
//! let mut game = Classic::new(Player::X);
//! for cell in ["a1", "b2", "a2", "c3", "a3"] {
//!     game.play(cell.parse().unwrap()).unwrap();
//! }
//! assert_eq!(game.status(), Status::Win(Player::X));
//! assert_eq!(game.to_string(), "X..XO.X.O O"); // the protocol's state line
//! ```
//!
//! Text forms (cells, cube turns, state lines) follow `docs/rules/engine-protocol.md` and
//! live in [`notation`].

mod cell;
mod classic;
pub mod cube;
pub mod game;
mod lines;
mod list;
pub mod notation;
mod perft;
mod player;
mod rating;
pub mod room;
mod series;
mod status;
pub mod ultimate;

pub use cell::Cell;
pub use classic::{Classic, ClassicIllegal};
pub use cube::{Cube, CubeAction, CubeIllegal, Level, Turn};
pub use game::{Ending, Match};
pub use lines::{LINES, has_line};
pub use list::ActionList;
pub use notation::ParseError;
pub use perft::perft;
pub use player::Player;
pub use rating::{INITIAL_RATING, RatedResult, ranking_points, rating_after};
pub use series::{Series, SeriesScore};
pub use status::Status;
pub use ultimate::{UltCell, Ultimate, UltimateIllegal, Variant};

use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::str::FromStr;

/// A position of one of the games: everything needed to go on playing.
///
/// Implementations are small `Copy` values; [`Position::play`] changes the position only when
/// the action is legal.
pub trait Position: Copy + Eq + Hash + Debug + Display {
    /// One action of a player (a cell, or a cube turn); its text form is the protocol's.
    type Action: Copy + Eq + Hash + Debug + Display + FromStr<Err = ParseError>;
    /// Why an action was refused.
    type Illegal: Copy + Eq + Debug + Display + std::error::Error;
    /// The legal actions of a position, allocation-free.
    type Actions: IntoIterator<Item = Self::Action>;

    /// Every legal action of the side to move (nothing once the game is over).
    fn legal_actions(&self) -> Self::Actions;

    /// How many legal actions there are; cheaper than collecting them.
    fn legal_count(&self) -> usize;

    /// Plays `action` for the side to move and returns the new status, or says why it is
    /// illegal, leaving the position unchanged.
    fn play(&mut self, action: Self::Action) -> Result<Status, Self::Illegal>;

    /// The clock of the side to move ran out: applies what the game's rules say happens
    /// (the cube: that side loses; 2.0: that side loses the turn). Games without a clock
    /// refuse it.
    fn timeout(&mut self) -> Result<Status, Self::Illegal>;

    /// Who moves, or who won.
    fn status(&self) -> Status;

    /// How the game's own rules ended it, once over: a line, lines of both symbols (the
    /// cube), a draw, or the clock (the cube's side to move, 2.0's third lost turn).
    fn ending(&self) -> Option<Ending> {
        match self.status() {
            Status::Ongoing(_) => None,
            Status::Win(_) => Some(Ending::Line),
            Status::Draw => Some(Ending::Draw),
        }
    }

    /// Plays `action`, which must be one of this position's `legal_actions()`: what perft
    /// and searches use on the actions they were handed. Games may skip the checks `play`
    /// makes (a debug build still makes them); the default is `play`.
    #[inline]
    fn play_legal(&mut self, action: Self::Action) -> Status {
        self.play(action)
            .unwrap_or_else(|why| panic!("{action} is not legal here: {why}"))
    }

    /// [`perft()`](crate::perft()): the number of legal action sequences of exactly `depth`
    /// actions. Games may override the generic walk with a faster one that counts the same.
    fn perft(&self, depth: u32) -> u64 {
        perft::walk(self, depth)
    }

    /// Whether `action` is legal here, and why not, without playing it.
    fn check(&self, action: Self::Action) -> Result<(), Self::Illegal> {
        let mut copy = *self;
        copy.play(action).map(|_| ())
    }
}

/// The README's Rust examples run as doctests, so the front page never lies.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
