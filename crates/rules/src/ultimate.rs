//! Super Jogo da Velha and Jogo da Velha 2.0: nine small boards arranged 3x3
//! (`docs/rules/ultimate.md`).
//!
//! Cells are kept as nine 9-bit masks per player, one per small board, beside 9-bit masks of
//! the decided boards, so playing a cell, a small board's result and the board sent to are
//! small-integer operations and table lookups (no 128-bit shifts, no division by nine). A cell
//! is coded `board << 4 | position`, and the legal cells are handed out board by board.

use serde::{Deserialize, Serialize};

use crate::lines::{FULL, has_line, line_cells};
use crate::{Ending, Player, Position, Status};

/// Which of the two ultimate games: they differ only in how a drawn small board scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Super Jogo da Velha: a drawn small board belongs to nobody (SUPER-R01).
    Super,
    /// Jogo da Velha 2.0: a drawn small board scores for both (V2-R02); turns have a clock.
    V2,
}

/// A cell of the 9x9 grid, `a1` … `i9` (ULT-R01).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(into = "String", try_from = "String")]
pub struct UltCell(u8);

impl UltCell {
    /// The cell in grid column `col` (0 = a) and row `row` (0 = row 1), both below 9.
    pub const fn new(col: usize, row: usize) -> Option<UltCell> {
        if col < 9 && row < 9 {
            Some(UltCell::at(
                (row / 3) * 3 + col / 3,
                (row % 3) * 3 + col % 3,
            ))
        } else {
            None
        }
    }

    /// The cell at position `pos` (0–8, reading order) of small board `board` (0–8).
    pub const fn in_board(board: usize, pos: usize) -> Option<UltCell> {
        if board < 9 && pos < 9 {
            Some(UltCell::at(board, pos))
        } else {
            None
        }
    }

    /// The code of a cell: board in the high nibble, position in the low one (which orders
    /// cells board-major, as the index does).
    #[inline]
    const fn at(board: usize, pos: usize) -> UltCell {
        UltCell((board << 4 | pos) as u8)
    }

    /// Small board holding the cell, 0–8 in reading order (board 1 of the texts is 0).
    #[inline]
    pub const fn board(self) -> usize {
        (self.0 >> 4) as usize
    }

    /// Position inside its small board, 0–8: also the board this cell sends to (ULT-R01).
    #[inline]
    pub const fn pos(self) -> usize {
        (self.0 & 0xF) as usize
    }

    /// Grid column, 0 (a) to 8 (i).
    pub const fn col(self) -> usize {
        (self.board() % 3) * 3 + self.pos() % 3
    }

    /// Grid row, 0 (row 1) to 8 (row 9).
    pub const fn row(self) -> usize {
        (self.board() / 3) * 3 + self.pos() / 3
    }

    /// Board-major index 0–80 (board × 9 + position).
    #[inline]
    pub const fn index(self) -> usize {
        self.board() * 9 + self.pos()
    }
}

/// How one small board stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BoardState {
    /// Still accepts moves.
    Open,
    /// Won by this player (ULT-R05).
    Won(Player),
    /// Full with no line (ULT-R05); in 2.0 it scores for both and shows "X inside O" (V2-R01).
    Drawn,
}

/// Why an ultimate action was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UltimateIllegal {
    /// The game is already over.
    GameOver,
    /// The move must be in the small board the previous move sent to (ULT-R03); `0`–`8`.
    WrongBoard {
        /// The board the player was sent to, 0–8.
        sent: u8,
    },
    /// That small board is already won or drawn (ULT-R05).
    BoardDecided,
    /// The cell is already taken.
    Occupied,
    /// Super Jogo da Velha has no clock, so nothing can time out.
    NoClock,
}

impl std::fmt::Display for UltimateIllegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UltimateIllegal::GameOver => f.write_str("game over"),
            UltimateIllegal::WrongBoard { sent } => write!(f, "must play in board {}", sent + 1),
            UltimateIllegal::BoardDecided => f.write_str("board already decided"),
            UltimateIllegal::Occupied => f.write_str("cell occupied"),
            UltimateIllegal::NoClock => f.write_str("no clock in this game"),
        }
    }
}

impl std::error::Error for UltimateIllegal {}

/// The legal cells of a position as a set, kept board by board: the cells left of the board
/// being walked, and the 9-bit masks of the boards after it.
#[derive(Clone, Copy, Debug, Default)]
pub struct UltCells {
    /// The cells still in the set of board `board`, 9-bit.
    cur: u16,
    /// The other boards with cells in the set; each one's mask in `cells` is not empty.
    rest: u16,
    /// The board of `cur`, 0–8.
    board: u8,
    /// The cells in the set of each board of `rest` (the others are not read).
    cells: [u16; 9],
}

impl UltCells {
    /// No cell.
    const NONE: UltCells = UltCells {
        cur: 0,
        rest: 0,
        board: 0,
        cells: [0; 9],
    };

    /// The cells `cells` of the single board `board`.
    #[inline]
    const fn one_board(board: usize, cells: u16) -> UltCells {
        UltCells {
            cur: cells,
            rest: 0,
            board: board as u8,
            cells: [0; 9],
        }
    }

    /// How many cells are in the set.
    #[inline]
    pub fn len(self) -> usize {
        let mut n = CELLS_IN[self.cur as usize] as usize;
        let mut rest = self.rest;
        while rest != 0 {
            n += CELLS_IN[self.cells[rest.trailing_zeros() as usize] as usize] as usize;
            rest &= rest - 1;
        }
        n
    }

    /// True when the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.cur == 0 && self.rest == 0
    }

    /// Whether `cell` is in the set.
    pub const fn contains(self, cell: UltCell) -> bool {
        let (board, bit) = (cell.board(), 1 << cell.pos());
        if board == self.board as usize {
            self.cur & bit != 0
        } else {
            self.rest & (1 << board) != 0 && self.cells[board] & bit != 0
        }
    }

    /// The `k`-th cell in board-major order (`k < len()`), for uniform random choice without
    /// collecting the set.
    pub fn nth_cell(self, mut k: usize) -> Option<UltCell> {
        let here = CELLS_IN[usize::from(self.cur)] as usize;
        if k < here {
            return Some(UltCell::at(
                usize::from(self.board),
                usize::from(select_bit(self.cur, k)),
            ));
        }
        k -= here;
        let mut rest = self.rest;
        while rest != 0 {
            let board = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let cells = self.cells[board];
            let count = CELLS_IN[usize::from(cells)] as usize;
            if k < count {
                return Some(UltCell::at(board, usize::from(select_bit(cells, k))));
            }
            k -= count;
        }
        None
    }

    /// The set as a board-major 81-bit mask.
    fn bits(&self) -> u128 {
        let mut all = u128::from(self.cur) << (9 * self.board);
        let mut rest = self.rest;
        while rest != 0 {
            let board = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            all |= u128::from(self.cells[board]) << (9 * board);
        }
        all
    }
}

/// Index of the `k`-th set bit of the 9-bit `mask` (`k` below its count).
#[inline]
fn select_bit(mask: u16, k: usize) -> u8 {
    // A table, not clearing `k` bits in a loop: with a random `k` the loop's end was a branch
    // mispredicted on most random moves.
    SELECT[usize::from(mask & FULL)][k.min(8)]
}

/// `SELECT[mask][k]`: the index of the `k`-th set bit of the 9-bit `mask`.
static SELECT: [[u8; 9]; 512] = {
    let mut table = [[0u8; 9]; 512];
    let mut mask = 0;
    while mask < 512 {
        let (mut bit, mut k) = (0, 0);
        while bit < 9 {
            if mask >> bit & 1 != 0 {
                table[mask][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
};

impl PartialEq for UltCells {
    fn eq(&self, other: &UltCells) -> bool {
        self.bits() == other.bits()
    }
}

impl Eq for UltCells {}

impl std::hash::Hash for UltCells {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.bits().hash(state);
    }
}

impl Iterator for UltCells {
    type Item = UltCell;
    #[inline]
    fn next(&mut self) -> Option<UltCell> {
        if self.cur == 0 {
            if self.rest == 0 {
                return None;
            }
            let board = self.rest.trailing_zeros() as usize;
            self.rest &= self.rest - 1;
            self.cur = self.cells[board];
            self.board = board as u8;
        }
        // Bit 9 bounds the position for the compiler (`cur` is never empty here).
        let pos = (self.cur | 1 << 9).trailing_zeros() as usize;
        self.cur &= self.cur - 1;
        Some(UltCell::at(usize::from(self.board), pos))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = UltCells::len(*self);
        (n, Some(n))
    }
}

impl ExactSizeIterator for UltCells {}

const ANY: u8 = 9;
const ALL_BOARDS: u16 = FULL;
const GRID: u128 = (1 << 81) - 1;

/// How many cells a 9-bit mask holds (no popcount instruction on every target).
static CELLS_IN: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut mask = 0;
    while mask < 512 {
        table[mask] = (mask as u16).count_ones() as u8;
        mask += 1;
    }
    table
};

/// How many empty cells each small board has, four bits a board (board `b` at bit `4b`): what
/// perft keeps beside the positions it walks, so the cells of several boards are counted
/// without a loop.
#[derive(Clone, Copy)]
struct Empties(u64);

impl Empties {
    fn of(position: &Ultimate) -> Empties {
        Empties((0..9).fold(0, |all, b| {
            all | u64::from(CELLS_IN[usize::from(position.empty(b))]) << (4 * b)
        }))
    }

    /// After a cell of `board` was taken.
    #[inline]
    const fn taken(self, board: usize) -> Empties {
        Empties(self.0 - (1 << (4 * board)))
    }

    /// How many empty cells the small boards of the 9-bit mask `boards` have together: open
    /// boards only, since a won board's cells left empty still count in its nibble.
    #[inline]
    fn in_boards(self, boards: u16) -> u32 {
        let counts = self.0 & NIBBLES_OF[usize::from(boards)];
        // Pairs of nibbles into bytes (each at most 18), then every byte summed into the top
        // one by a multiplication (at most 81: no carry between bytes).
        let bytes = (counts & 0x0F0F_0F0F_0F0F_0F0F) + (counts >> 4 & 0x0F0F_0F0F_0F0F_0F0F);
        (bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
    }
}

/// The nibbles of `Empties` that hold the boards of a 9-bit mask.
static NIBBLES_OF: [u64; 512] = {
    let mut table = [0u64; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut b = 0;
        while b < 9 {
            if mask >> b & 1 != 0 {
                table[mask] |= 0xF << (4 * b);
            }
            b += 1;
        }
        mask += 1;
    }
    table
};

/// The empty cells that would complete a line for a player holding a 9-bit mask.
static COMPLETES: [u16; 512] = {
    let mut table = [0u16; 512];
    let mut mask = 0;
    while mask < 512 {
        let mut l = 0;
        while l < 8 {
            let missing = crate::lines::LINES[l] & !(mask as u16);
            if missing.count_ones() == 1 {
                table[mask] |= missing;
            }
            l += 1;
        }
        mask += 1;
    }
    table
};

/// How many lost turns in a row lose a 2.0 game (V2-R05).
pub const LOST_TURNS_TO_LOSE: u8 = 3;

/// Codes of `Ultimate::over`: the game goes on, or how it ended.
const ONGOING: u8 = 0;
const X_WON: u8 = 1;
const O_WON: u8 = 2;
const DRAWN: u8 = 3;

#[inline]
const fn board_bits(cells: u128, board: usize) -> u16 {
    ((cells >> (9 * board)) as u16) & FULL
}

/// A position of Super Jogo da Velha or Jogo da Velha 2.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
// The fields' order is kept (`repr(C)`) so that reading `closed`, which the compiler may do
// with a 4-byte load, never overlaps the bytes each move writes (`sent`, `side`,
// `lost_turns`): a load that needs bytes of a store still in flight and of another waits for
// both to reach the cache, and that stall once halved the speed of playing a move.
#[repr(C)]
pub struct Ultimate {
    /// The cells of each small board: X's in bits 0–8, O's in bits 16–24 (bit = position in
    /// reading order), so one load gives a board and a shift by `16 × Player::index` a side.
    grid: [u32; 9],
    /// The small boards decided (won, or drawn: full without a line).
    closed: u16,
    /// The small boards each player won, indexed by `Player::index`.
    won: [u16; 2],
    sent: u8,
    side: Player,
    variant: Variant,
    /// Turns each player has lost in a row to the clock (2.0 only).
    lost_turns: [u8; 2],
    /// `ONGOING`, or how the game ended (`X_WON`, `O_WON`, `DRAWN`).
    over: u8,
}

// The layout the comment at `Ultimate` relies on: a 4-byte load of `closed` ends before the
// first byte a move writes.
const _: () = assert!(
    std::mem::offset_of!(Ultimate, closed) + 4 <= std::mem::offset_of!(Ultimate, sent)
        && std::mem::offset_of!(Ultimate, sent) < std::mem::offset_of!(Ultimate, side)
        && std::mem::offset_of!(Ultimate, side) < std::mem::offset_of!(Ultimate, lost_turns)
);

impl Ultimate {
    /// An empty grid of `variant` with `starter` to move, who may play anywhere (ULT-R02).
    pub const fn new(variant: Variant, starter: Player) -> Ultimate {
        Ultimate {
            grid: [0; 9],
            won: [0, 0],
            closed: 0,
            sent: ANY,
            side: starter,
            variant,
            lost_turns: [0, 0],
            over: ONGOING,
        }
    }

    /// Builds a position from its cells; small-board results and the status are derived.
    /// `Err` says why such a position cannot arise.
    pub fn from_parts(
        variant: Variant,
        x: u128,
        o: u128,
        side: Player,
        sent: Option<usize>,
        lost_turns: [u8; 2],
    ) -> Result<Ultimate, &'static str> {
        if x & o != 0 || (x | o) & !GRID != 0 {
            return Err("a cell holds both symbols");
        }
        let mut pos = Ultimate::new(variant, side);
        pos.lost_turns = lost_turns;
        for b in 0..9 {
            let (bx, bo) = (board_bits(x, b), board_bits(o, b));
            pos.grid[b] = u32::from(bx) | u32::from(bo) << 16;
            match (has_line(bx), has_line(bo)) {
                (true, true) => return Err("a small board has lines of both players"),
                (true, false) => pos.won[Player::X.index()] |= 1 << b,
                (false, true) => pos.won[Player::O.index()] |= 1 << b,
                (false, false) if bx | bo != FULL => continue,
                (false, false) => {}
            }
            pos.closed |= 1 << b;
        }
        pos.sent = match sent {
            None => ANY,
            Some(b) if b < 9 && pos.board(b) == BoardState::Open => b as u8,
            Some(b) if b < 9 => return Err("the board sent to is already decided"),
            Some(_) => return Err("no such board"),
        };
        let waiting = (!side).index();
        if lost_turns.iter().any(|&n| n > LOST_TURNS_TO_LOSE)
            || (variant == Variant::Super && lost_turns != [0, 0])
            // The third lost turn ends the game with its loser still to move.
            || lost_turns[waiting] == LOST_TURNS_TO_LOSE
            // The side that waits lost its last turn, so the other plays anywhere.
            || (lost_turns[waiting] > 0 && sent.is_some())
        {
            return Err("impossible count of lost turns");
        }
        pos.over = match lost_turns {
            [LOST_TURNS_TO_LOSE, _] => O_WON,
            [_, LOST_TURNS_TO_LOSE] => X_WON,
            _ => pos.board_result(),
        };
        Ok(pos)
    }

    /// The same grid with other lost-turn counts (for records written before the state line
    /// held them).
    pub(crate) fn with_lost_turns(&self, lost_turns: [u8; 2]) -> Result<Ultimate, &'static str> {
        Ultimate::from_parts(
            self.variant,
            self.cells_of(Player::X),
            self.cells_of(Player::O),
            self.side,
            self.sent_board(),
            lost_turns,
        )
    }

    /// Which game this is.
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// The player whose turn it is.
    pub const fn side_to_move(&self) -> Player {
        self.side
    }

    /// The symbol on `cell`, if any.
    pub const fn piece(&self, cell: UltCell) -> Option<Player> {
        let bit = 1 << cell.pos();
        if self.of(Player::X, cell.board()) & bit != 0 {
            Some(Player::X)
        } else if self.of(Player::O, cell.board()) & bit != 0 {
            Some(Player::O)
        } else {
            None
        }
    }

    /// How small board `board` (0–8) stands.
    pub const fn board(&self, board: usize) -> BoardState {
        let bit = 1 << board;
        if self.won[Player::X.index()] & bit != 0 {
            BoardState::Won(Player::X)
        } else if self.won[Player::O.index()] & bit != 0 {
            BoardState::Won(Player::O)
        } else if self.closed & bit != 0 {
            BoardState::Drawn
        } else {
            BoardState::Open
        }
    }

    /// The small board (0–8) the side to move must play in, or `None` for any open board.
    pub const fn sent_board(&self) -> Option<usize> {
        if self.sent == ANY {
            None
        } else {
            Some(self.sent as usize)
        }
    }

    /// Big-board points of `player`: won boards, plus drawn boards in 2.0 (V2-R02).
    pub const fn points(&self, player: Player) -> u32 {
        self.point_boards(player).count_ones()
    }

    /// The small boards of the big board's line that won the game (SUPER-R02, V2-R03) as a
    /// 9-bit mask; none for a draw, a game going on or one won off the board (by the clock, a
    /// resignation, an abandonment).
    pub fn winning_boards(&self) -> u16 {
        self.status()
            .winner()
            .map_or(0, |p| line_cells(self.point_boards(p)))
    }

    /// Turns `player` has lost in a row to the clock (2.0, V2-R05).
    pub const fn lost_turns(&self, player: Player) -> u8 {
        self.lost_turns[player.index()]
    }

    /// The small boards that give `player` a point, as a 9-bit mask.
    const fn point_boards(&self, player: Player) -> u16 {
        let won = self.won[player.index()];
        match self.variant {
            Variant::Super => won,
            Variant::V2 => won | self.drawn_boards(),
        }
    }

    /// The drawn small boards, as a 9-bit mask.
    const fn drawn_boards(&self) -> u16 {
        self.closed & !(self.won[0] | self.won[1])
    }

    /// The legal cells as a set.
    #[inline]
    pub fn legal_cells(&self) -> UltCells {
        if self.over != ONGOING {
            return UltCells::NONE;
        }
        if self.sent != ANY {
            let b = self.sent as usize;
            return UltCells::one_board(b, self.empty(b));
        }
        self.free_cells()
    }

    /// The legal cells when the side to move may play in any open board.
    #[inline(never)]
    fn free_cells(&self) -> UltCells {
        let open = self.open_boards();
        if open == 0 {
            return UltCells::NONE;
        }
        let mut cells = [0; 9];
        for (b, empty) in cells.iter_mut().enumerate() {
            *empty = self.empty(b);
        }
        let first = open.trailing_zeros() as usize;
        UltCells {
            cur: cells[first],
            rest: open & (open - 1),
            board: first as u8,
            cells,
        }
    }

    /// How many legal cells there are, without building the set.
    #[inline]
    fn legal_len(&self) -> usize {
        if self.over != ONGOING {
            return 0;
        }
        if self.sent != ANY {
            return CELLS_IN[usize::from(self.empty(self.sent as usize))] as usize;
        }
        let mut count = 0;
        let mut open = self.open_boards();
        while open != 0 {
            let b = open.trailing_zeros() as usize;
            open &= open - 1;
            count += CELLS_IN[usize::from(self.empty(b))] as usize;
        }
        count
    }

    /// The empty cells of small board `board` as a 9-bit mask.
    #[inline]
    const fn empty(&self, board: usize) -> u16 {
        let both = self.grid[board];
        !(both | both >> 16) as u16 & FULL
    }

    /// `player`'s cells of small board `board` as a 9-bit mask.
    #[inline]
    const fn of(&self, player: Player, board: usize) -> u16 {
        (self.grid[board] >> (16 * player.index())) as u16 & FULL
    }

    /// The small boards still open, as a 9-bit mask.
    #[inline]
    const fn open_boards(&self) -> u16 {
        !self.closed & ALL_BOARDS
    }

    /// All of `player`'s cells, board-major: with [`Ultimate::from_parts`], a position kept
    /// as a few numbers.
    pub fn cells_of(&self, player: Player) -> u128 {
        (0..9).fold(0, |all, b| all | u128::from(self.of(player, b)) << (9 * b))
    }

    /// The result the big board gives (lines of points, or all boards decided).
    fn board_result(&self) -> u8 {
        let x_line = has_line(self.point_boards(Player::X));
        let o_line = has_line(self.point_boards(Player::O));
        match (x_line, o_line) {
            // V2-R03: both lines at once (only possible through drawn boards) is a draw.
            (true, true) => DRAWN,
            (true, false) => X_WON,
            (false, true) => O_WON,
            _ if self.closed == ALL_BOARDS => DRAWN,
            _ => ONGOING,
        }
    }
}

impl Position for Ultimate {
    type Action = UltCell;
    type Illegal = UltimateIllegal;
    type Actions = UltCells;

    #[inline]
    fn legal_actions(&self) -> UltCells {
        self.legal_cells()
    }

    #[inline]
    fn legal_count(&self) -> usize {
        self.legal_len()
    }

    #[inline]
    fn play(&mut self, cell: UltCell) -> Result<Status, UltimateIllegal> {
        if self.over != ONGOING {
            return Err(UltimateIllegal::GameOver);
        }
        let board = cell.board();
        if self.sent != ANY && board != self.sent as usize {
            return Err(UltimateIllegal::WrongBoard { sent: self.sent });
        }
        if self.open_boards() & (1 << board) == 0 {
            return Err(UltimateIllegal::BoardDecided);
        }
        if self.empty(board) & (1 << cell.pos()) == 0 {
            return Err(UltimateIllegal::Occupied);
        }
        Ok(self.play_at(board, cell.pos()))
    }

    /// `play` without its checks: `cell` is one of `legal_cells()`.
    #[inline]
    fn play_legal(&mut self, cell: UltCell) -> Status {
        debug_assert_eq!(self.check(cell), Ok(()), "{cell} is not legal here");
        self.play_at(cell.board(), cell.pos())
    }

    /// Perft walking each small board's empty cells as 9-bit masks, the last ply counted from
    /// a table: the same counts as the generic walk.
    fn perft(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.legal_len() as u64,
            _ if self.over != ONGOING => 0,
            2 => self.perft_two(Empties::of(self)),
            _ => self.perft_from(depth, Empties::of(self)),
        }
    }

    fn timeout(&mut self) -> Result<Status, UltimateIllegal> {
        if self.variant == Variant::Super {
            return Err(UltimateIllegal::NoClock);
        }
        if self.over != ONGOING {
            return Err(UltimateIllegal::GameOver);
        }
        let lost = &mut self.lost_turns[self.side.index()];
        *lost += 1;
        if *lost == LOST_TURNS_TO_LOSE {
            self.over = X_WON + (!self.side).index() as u8;
        } else {
            // V2-R05: the opponent moves next, anywhere open.
            self.side = !self.side;
            self.sent = ANY;
        }
        Ok(self.status())
    }

    #[inline]
    fn status(&self) -> Status {
        match self.over {
            ONGOING => Status::Ongoing(self.side),
            X_WON => Status::Win(Player::X),
            O_WON => Status::Win(Player::O),
            _ => Status::Draw,
        }
    }

    fn ending(&self) -> Option<Ending> {
        match self.over {
            ONGOING => None,
            _ if self.lost_turns.contains(&LOST_TURNS_TO_LOSE) => Some(Ending::Time),
            DRAWN => Some(Ending::Draw),
            _ => Some(Ending::Line),
        }
    }
}

impl Ultimate {
    /// Plays the empty cell `target` of open small board `board`, which the rules allow: the
    /// one body of `play` and `play_legal`. Most moves decide nothing: they set a bit, pass
    /// the turn and send; a move that decides its small board goes through `decide`.
    #[inline(always)]
    fn play_at(&mut self, board: usize, target: usize) -> Status {
        let me = self.side.index();
        // Read before this move's stores, for the reason given at `Ultimate`.
        let mut closed = self.closed;
        let both = self.grid[board] | 1 << (target + 16 * me);
        self.grid[board] = both;
        let mine = (both >> (16 * me)) as u16 & FULL;
        self.lost_turns[me] = 0;
        self.side = !self.side;
        if has_line(mine) || (both | both >> 16) as u16 & FULL == FULL {
            self.decide(board, me, mine);
            closed = self.closed;
        }
        self.sent = if closed >> target & 1 != 0 {
            ANY
        } else {
            target as u8
        };
        self.status()
    }

    /// Small board `board`, where `me` just played and holds `mine`, is decided: marks it won
    /// or drawn and settles the big board.
    #[cold]
    #[inline(never)]
    fn decide(&mut self, board: usize, me: usize, mine: u16) {
        if has_line(mine) {
            self.won[me] |= 1 << board;
        }
        self.closed |= 1 << board;
        self.over = self.board_result();
    }

    /// The small boards the side to move may play in, as a 9-bit mask (the game going on): the
    /// one sent to, or every open one.
    #[inline]
    fn playable_boards(&self) -> u16 {
        if self.sent == ANY {
            self.open_boards()
        } else {
            1 << self.sent
        }
    }

    /// Perft at depth 2 or more from a position that may be over, whose boards' empty cells
    /// are `empties`.
    fn perft_from(&self, depth: u32, empties: Empties) -> u64 {
        if self.over != ONGOING {
            return 0;
        }
        let mut boards = self.playable_boards();
        let mut total = 0;
        while boards != 0 {
            let board = boards.trailing_zeros() as usize;
            boards &= boards - 1;
            let mut cells = self.empty(board);
            while cells != 0 {
                let target = cells.trailing_zeros() as usize;
                cells &= cells - 1;
                let mut next = *self;
                next.play_at(board, target);
                let left = empties.taken(board);
                total += if depth == 3 {
                    if next.over == ONGOING {
                        next.perft_two(left)
                    } else {
                        0
                    }
                } else {
                    next.perft_from(depth - 1, left)
                };
            }
        }
        total
    }

    /// Perft at depth 2 of an ongoing position: the moves of each board the side to move may
    /// play in.
    fn perft_two(&self, empties: Empties) -> u64 {
        // The usual case without the loop, which costs the start's perft a few percent.
        if self.sent != ANY {
            return self.perft_two_in(self.sent as usize, empties);
        }
        let mut boards = self.open_boards();
        let mut total = 0;
        while boards != 0 {
            let board = boards.trailing_zeros() as usize;
            boards &= boards - 1;
            total += self.perft_two_in(board, empties);
        }
        total
    }

    /// Perft at depth 2 of the moves in open small board `board`, counting the legal cells
    /// after each move that decides nothing without playing it: such a move leaves every
    /// board's result as it was, takes one empty cell of its board and sends to its
    /// position's board, or anywhere open if that board is decided. Moves that decide their
    /// board are played.
    #[inline]
    fn perft_two_in(&self, board: usize, empties: Empties) -> u64 {
        let open = self.open_boards();
        let empty = self.empty(board);
        let deciding = if CELLS_IN[usize::from(empty)] == 1 {
            empty
        } else {
            COMPLETES[usize::from(self.of(self.side, board))] & empty
        };
        let quiet = empty & !deciding;
        // A quiet move that sends back into its own board leaves one cell fewer there, and
        // one that sends anywhere one cell fewer among the open boards. Neither count can go
        // below zero: `board` is open and holds the cell played.
        let mut total = u64::from(
            empties.in_boards(quiet & open) - u32::from(quiet >> board & 1)
                + u32::from(CELLS_IN[usize::from(quiet & !open)]) * (empties.in_boards(open) - 1),
        );
        let left = empties.taken(board);
        let mut loud = deciding;
        while loud != 0 {
            let target = loud.trailing_zeros() as usize;
            loud &= loud - 1;
            let mut next = *self;
            next.play_at(board, target);
            if next.over == ONGOING {
                total += u64::from(left.in_boards(next.playable_boards()));
            }
        }
        total
    }
}
