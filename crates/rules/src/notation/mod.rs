//! Text forms of `docs/rules/engine-protocol.md`: cells, cube turns, state lines.
//!
//! Every parser returns a [`ParseError`] that says what was wrong; none panics on any input.
//! Printing is `Display`; parsing is `FromStr` (and [`crate::Ultimate::from_state_line`],
//! whose variant is not part of the line).

mod actions;
mod records;
mod state;

use crate::{Player, Status};

/// The action that records a turn run out on the clock (cube and 2.0; engine-protocol.md).
pub const TIMEOUT: &str = "timeout";

/// Why a text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(String);

impl ParseError {
    pub(crate) fn new(message: impl Into<String>) -> ParseError {
        ParseError(message.into())
    }

    /// The explanation, for a person.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// Quotes at most 20 characters of untrusted input for an error message.
pub(crate) fn quoted(text: &str) -> String {
    let mut short: String = text.chars().take(20).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    format!("{short:?}")
}

impl std::str::FromStr for Player {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Player, ParseError> {
        match s {
            "X" => Ok(Player::X),
            "O" => Ok(Player::O),
            _ => Err(ParseError::new(format!(
                "expected a player X or O, found {}",
                quoted(s)
            ))),
        }
    }
}

impl std::str::FromStr for Status {
    type Err = ParseError;
    /// Reads the protocol's `status` answer.
    fn from_str(s: &str) -> Result<Status, ParseError> {
        match s.split_once(' ') {
            Some(("ongoing", p)) => Ok(Status::Ongoing(p.parse()?)),
            Some(("win", p)) => Ok(Status::Win(p.parse()?)),
            None if s == "draw" => Ok(Status::Draw),
            _ => Err(ParseError::new(format!(
                "expected `ongoing P`, `win P` or `draw`, found {}",
                quoted(s)
            ))),
        }
    }
}
