//! The eight lines of a 3x3 grid, as lookup tables over 9-bit masks.
//!
//! Bit `r * 3 + c` of a mask is the cell in row `r`, column `c` (reading order). Every game of
//! the family is decided by these lines: the classic board, each small board and the big board
//! of the ultimate games, and each face of the cube.

/// The eight lines as 9-bit masks: three rows, three columns, two diagonals.
pub const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// The middle cell of each line of [`LINES`], as a bit index.
pub const LINE_MIDDLES: [u8; 8] = [1, 4, 7, 3, 4, 5, 4, 4];

/// All nine cells.
pub const FULL: u16 = 0x1FF;

const fn build_has_line() -> [bool; 512] {
    let mut table = [false; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut l = 0;
        while l < 8 {
            if mask as u16 & LINES[l] == LINES[l] {
                table[mask] = true;
            }
            l += 1;
        }
        mask += 1;
    }
    table
}

const fn build_middles() -> [u16; 512] {
    let mut table = [0u16; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut l = 0;
        while l < 8 {
            if mask as u16 & LINES[l] == LINES[l] {
                table[mask] |= 1 << LINE_MIDDLES[l];
            }
            l += 1;
        }
        mask += 1;
    }
    table
}

static HAS_LINE: [bool; 512] = build_has_line();
static MIDDLES: [u16; 512] = build_middles();

/// True when the cells of `mask` contain at least one complete line.
#[inline]
pub fn has_line(mask: u16) -> bool {
    HAS_LINE[(mask & FULL) as usize]
}

/// The middles of every complete line in `mask`, as a 9-bit mask.
#[inline]
pub fn middles_of_lines(mask: u16) -> u16 {
    MIDDLES[(mask & FULL) as usize]
}

/// The cells of every complete line in `mask`, as a 9-bit mask: the line that ended a game, to
/// show it.
pub fn line_cells(mask: u16) -> u16 {
    LINES
        .iter()
        .filter(|&&line| mask & line == line)
        .fold(0, |cells, line| cells | line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_has_three_cells_and_its_middle() {
        for (line, mid) in LINES.iter().zip(LINE_MIDDLES) {
            assert_eq!(line.count_ones(), 3);
            assert!(line & (1 << mid) != 0);
        }
    }

    #[test]
    fn tables_agree_with_the_line_list() {
        for mask in 0u16..512 {
            let complete: Vec<usize> = (0..8).filter(|&l| mask & LINES[l] == LINES[l]).collect();
            assert_eq!(has_line(mask), !complete.is_empty());
            let mids = complete.iter().fold(0, |m, &l| m | 1 << LINE_MIDDLES[l]);
            assert_eq!(middles_of_lines(mask), mids);
        }
    }

    /// Cell by cell, from the grid's geometry rather than the line list: a cell is shown when
    /// its row, its column or a diagonal through it is full.
    #[test]
    fn line_cells_are_the_cells_of_full_rows_columns_and_diagonals_through_them() {
        for mask in 0u16..512 {
            let full = |cells: [(usize, usize); 3]| {
                cells.iter().all(|&(r, c)| mask & 1 << (r * 3 + c) != 0)
            };
            let shown = line_cells(mask);
            for (r, c) in (0..3).flat_map(|r| (0..3).map(move |c| (r, c))) {
                let on_a_line = full([(r, 0), (r, 1), (r, 2)])
                    || full([(0, c), (1, c), (2, c)])
                    || (r == c && full([(0, 0), (1, 1), (2, 2)]))
                    || (r + c == 2 && full([(0, 2), (1, 1), (2, 0)]));
                assert_eq!(
                    shown & 1 << (r * 3 + c) != 0,
                    on_a_line,
                    "mask {mask:09b}, cell {r}{c}"
                );
            }
            assert_eq!(shown & !mask, 0);
            assert_eq!(shown != 0, has_line(mask));
        }
    }
}
