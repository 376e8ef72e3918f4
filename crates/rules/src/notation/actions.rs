//! Cells (`a1`), grid cells (`e5`) and cube actions (`a1`, `L+`).

use std::fmt;
use std::str::FromStr;

use super::{ParseError, quoted};
use crate::cube::Layer;
use crate::{Cell, CubeAction, Turn, UltCell};

/// Reads a column letter and a row digit, each below `size`.
fn col_row(s: &str, size: u8, what: &str) -> Result<(usize, usize), ParseError> {
    let last_col = (b'a' + size - 1) as char;
    match s.as_bytes() {
        &[c, r] if (b'a'..b'a' + size).contains(&c) && (b'1'..b'1' + size).contains(&r) => {
            Ok(((c - b'a') as usize, (r - b'1') as usize))
        }
        _ => Err(ParseError::new(format!(
            "{} is not a {what}: expected a column a–{last_col} and a row 1–{size}, like a1",
            quoted(s)
        ))),
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col() as u8) as char, self.row() + 1)
    }
}

impl FromStr for Cell {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Cell, ParseError> {
        let (col, row) = col_row(s, 3, "cell")?;
        Ok(Cell::new(col, row).expect("col_row checks the range"))
    }
}

impl fmt::Display for UltCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col() as u8) as char, self.row() + 1)
    }
}

impl FromStr for UltCell {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<UltCell, ParseError> {
        let (col, row) = col_row(s, 9, "cell of the 9x9 grid")?;
        Ok(UltCell::new(col, row).expect("col_row checks the range"))
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            self.layer.letter(),
            if self.canonical { '+' } else { '-' }
        )
    }
}

impl FromStr for Turn {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Turn, ParseError> {
        let mut chars = s.chars();
        let parsed = match (chars.next(), chars.next(), chars.next()) {
            (Some(letter), Some(sign @ ('+' | '-')), None) => Layer::ALL
                .into_iter()
                .find(|l| l.letter() == letter)
                .map(|layer| Turn {
                    layer,
                    canonical: sign == '+',
                }),
            _ => None,
        };
        parsed.ok_or_else(|| {
            ParseError::new(format!(
                "{} is not a cube turn: expected a layer L M R U E D F S B and + or -, like L+",
                quoted(s)
            ))
        })
    }
}

impl fmt::Display for CubeAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CubeAction::Tap(cell) => cell.fmt(f),
            CubeAction::Turn(turn) => turn.fmt(f),
        }
    }
}

impl FromStr for CubeAction {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<CubeAction, ParseError> {
        if let Ok(cell) = s.parse() {
            return Ok(CubeAction::Tap(cell));
        }
        s.parse().map(CubeAction::Turn).map_err(|_| {
            ParseError::new(format!(
                "{} is not a cube action: expected a cell a1–c3 or a turn like L+ or B-",
                quoted(s)
            ))
        })
    }
}

macro_rules! serde_as_text {
    ($($t:ty),*) => {$(
        impl From<$t> for String {
            fn from(value: $t) -> String {
                value.to_string()
            }
        }

        impl TryFrom<String> for $t {
            type Error = ParseError;
            fn try_from(text: String) -> Result<$t, ParseError> {
                text.parse()
            }
        }
    )*};
}

serde_as_text!(Cell, UltCell, CubeAction);
