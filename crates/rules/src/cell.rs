//! Cells of a 3x3 board: the classic board and side 1 of the cube.

use serde::{Deserialize, Serialize};

/// A cell of a 3x3 grid, `a1` … `c3`: columns a–c left to right, rows 1–3 top to bottom.
///
/// Its index (0–8) is the reading order, which is also the bit of the cell in 9-bit masks.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(into = "String", try_from = "String")]
pub struct Cell(u8);

impl Cell {
    /// The nine cells in reading order.
    pub const ALL: [Cell; 9] = [
        Cell(0),
        Cell(1),
        Cell(2),
        Cell(3),
        Cell(4),
        Cell(5),
        Cell(6),
        Cell(7),
        Cell(8),
    ];

    /// The cell at reading-order `index` (0–8), if there is one.
    pub const fn from_index(index: usize) -> Option<Cell> {
        if index < 9 {
            Some(Cell(index as u8))
        } else {
            None
        }
    }

    /// The cell in column `col` (0 = a) and row `row` (0 = row 1), if both are below 3.
    pub const fn new(col: usize, row: usize) -> Option<Cell> {
        if col < 3 && row < 3 {
            Some(Cell((row * 3 + col) as u8))
        } else {
            None
        }
    }

    /// Reading-order index, 0–8.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 (a) to 2 (c).
    pub const fn col(self) -> usize {
        self.0 as usize % 3
    }

    /// Row, 0 (row 1, top) to 2 (row 3, bottom).
    pub const fn row(self) -> usize {
        self.0 as usize / 3
    }

    /// The cell's bit in a 9-bit mask.
    #[inline]
    pub const fn bit(self) -> u16 {
        1 << self.0
    }
}
