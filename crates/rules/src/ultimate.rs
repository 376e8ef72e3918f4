//! Super Jogo da Velha and Jogo da Velha 2.0: nine small boards arranged 3x3
//! (`docs/rules/ultimate.md`).
//!
//! Cells are kept board-major in two 81-bit sets, so each small board is nine contiguous bits
//! and legal moves, small-board results and big-board lines are all mask operations.

use serde::{Deserialize, Serialize};

use crate::lines::{FULL, has_line};
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
            let board = (row / 3) * 3 + col / 3;
            let pos = (row % 3) * 3 + col % 3;
            Some(UltCell((board * 9 + pos) as u8))
        } else {
            None
        }
    }

    /// The cell at position `pos` (0–8, reading order) of small board `board` (0–8).
    pub const fn in_board(board: usize, pos: usize) -> Option<UltCell> {
        if board < 9 && pos < 9 {
            Some(UltCell((board * 9 + pos) as u8))
        } else {
            None
        }
    }

    /// Small board holding the cell, 0–8 in reading order (board 1 of the texts is 0).
    #[inline]
    pub const fn board(self) -> usize {
        self.0 as usize / 9
    }

    /// Position inside its small board, 0–8: also the board this cell sends to (ULT-R01).
    #[inline]
    pub const fn pos(self) -> usize {
        self.0 as usize % 9
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
        self.0 as usize
    }

    #[inline]
    const fn bit(self) -> u128 {
        1 << self.0
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

/// The legal cells of a position as a set (bit = board-major cell index).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UltCells(u128);

impl UltCells {
    /// How many cells are in the set.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True when the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `cell` is in the set.
    pub const fn contains(self, cell: UltCell) -> bool {
        self.0 & cell.bit() != 0
    }

    /// The `k`-th cell in board-major order (`k < len()`), for uniform random choice without
    /// collecting the set.
    pub fn nth_cell(self, k: usize) -> Option<UltCell> {
        let lo = self.0 as u64;
        let lo_count = lo.count_ones() as usize;
        let (word, k, base) = if k < lo_count {
            (lo, k, 0)
        } else {
            ((self.0 >> 64) as u64, k - lo_count, 64)
        };
        select_bit(word, k).map(|b| UltCell((b + base) as u8))
    }
}

/// Index of the `k`-th set bit of `word`, skipping whole bytes first.
#[inline]
fn select_bit(mut word: u64, mut k: usize) -> Option<u32> {
    let mut base = 0;
    loop {
        if word == 0 {
            return None;
        }
        let byte_count = (word & 0xFF).count_ones() as usize;
        if k < byte_count {
            break;
        }
        k -= byte_count;
        word >>= 8;
        base += 8;
    }
    for _ in 0..k {
        word &= word - 1;
    }
    Some(base + word.trailing_zeros())
}

impl Iterator for UltCells {
    type Item = UltCell;
    #[inline]
    fn next(&mut self) -> Option<UltCell> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(UltCell(i as u8))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for UltCells {}

const ANY: u8 = 9;
const ALL_BOARDS: u16 = FULL;
const GRID: u128 = (1 << 81) - 1;
/// How many lost turns in a row lose a 2.0 game (V2-R05).
pub const LOST_TURNS_TO_LOSE: u8 = 3;

#[inline]
const fn board_mask(board: usize) -> u128 {
    (FULL as u128) << (9 * board)
}

#[inline]
const fn board_bits(cells: u128, board: usize) -> u16 {
    ((cells >> (9 * board)) as u16) & FULL
}

/// A position of Super Jogo da Velha or Jogo da Velha 2.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ultimate {
    x: u128,
    o: u128,
    /// Cells of the boards still open, kept so the legal set is two mask operations.
    open: u128,
    won_x: u16,
    won_o: u16,
    drawn: u16,
    sent: u8,
    side: Player,
    variant: Variant,
    /// Turns each player has lost in a row to the clock (2.0 only).
    lost_turns: [u8; 2],
    status: Status,
}

impl Ultimate {
    /// An empty grid of `variant` with `starter` to move, who may play anywhere (ULT-R02).
    pub const fn new(variant: Variant, starter: Player) -> Ultimate {
        Ultimate {
            x: 0,
            o: 0,
            open: GRID,
            won_x: 0,
            won_o: 0,
            drawn: 0,
            sent: ANY,
            side: starter,
            variant,
            lost_turns: [0, 0],
            status: Status::Ongoing(starter),
        }
    }

    /// Builds a position from its cells; small-board results and the status are derived.
    /// `Err` says why such a position cannot arise.
    pub(crate) fn from_parts(
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
        pos.x = x;
        pos.o = o;
        pos.lost_turns = lost_turns;
        for b in 0..9 {
            let (bx, bo) = (board_bits(x, b), board_bits(o, b));
            match (has_line(bx), has_line(bo)) {
                (true, true) => return Err("a small board has lines of both players"),
                (true, false) => pos.won_x |= 1 << b,
                (false, true) => pos.won_o |= 1 << b,
                (false, false) if bx | bo == FULL => pos.drawn |= 1 << b,
                _ => continue,
            }
            pos.open &= !board_mask(b);
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
        pos.status = match lost_turns {
            [LOST_TURNS_TO_LOSE, _] => Status::Win(Player::O),
            [_, LOST_TURNS_TO_LOSE] => Status::Win(Player::X),
            _ => pos.board_status(),
        };
        Ok(pos)
    }

    /// The same grid with other lost-turn counts (for records written before the state line
    /// held them).
    pub(crate) fn with_lost_turns(&self, lost_turns: [u8; 2]) -> Result<Ultimate, &'static str> {
        Ultimate::from_parts(
            self.variant,
            self.x,
            self.o,
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
        if self.x & cell.bit() != 0 {
            Some(Player::X)
        } else if self.o & cell.bit() != 0 {
            Some(Player::O)
        } else {
            None
        }
    }

    /// How small board `board` (0–8) stands.
    pub const fn board(&self, board: usize) -> BoardState {
        let bit = 1 << board;
        if self.won_x & bit != 0 {
            BoardState::Won(Player::X)
        } else if self.won_o & bit != 0 {
            BoardState::Won(Player::O)
        } else if self.drawn & bit != 0 {
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

    /// Turns `player` has lost in a row to the clock (2.0, V2-R05).
    pub const fn lost_turns(&self, player: Player) -> u8 {
        self.lost_turns[player.index()]
    }

    /// The small boards that give `player` a point, as a 9-bit mask.
    const fn point_boards(&self, player: Player) -> u16 {
        let won = match player {
            Player::X => self.won_x,
            Player::O => self.won_o,
        };
        match self.variant {
            Variant::Super => won,
            Variant::V2 => won | self.drawn,
        }
    }

    /// The legal cells as a set.
    #[inline]
    pub fn legal_cells(&self) -> UltCells {
        if self.status.is_over() {
            return UltCells(0);
        }
        let empty = self.open & !(self.x | self.o);
        if self.sent == ANY {
            UltCells(empty)
        } else {
            UltCells(empty & board_mask(self.sent as usize))
        }
    }

    /// The status the big board gives (lines of points, or all boards decided).
    fn board_status(&self) -> Status {
        let x_line = has_line(self.point_boards(Player::X));
        let o_line = has_line(self.point_boards(Player::O));
        match (x_line, o_line) {
            // V2-R03: both lines at once (only possible through drawn boards) is a draw.
            (true, true) => Status::Draw,
            (true, false) => Status::Win(Player::X),
            (false, true) => Status::Win(Player::O),
            _ if self.won_x | self.won_o | self.drawn == ALL_BOARDS => Status::Draw,
            _ => Status::Ongoing(self.side),
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
        self.legal_cells().len()
    }

    #[inline]
    fn play(&mut self, cell: UltCell) -> Result<Status, UltimateIllegal> {
        if self.status.is_over() {
            return Err(UltimateIllegal::GameOver);
        }
        let board = cell.board();
        if self.sent != ANY && board != self.sent as usize {
            return Err(UltimateIllegal::WrongBoard { sent: self.sent });
        }
        if self.open & cell.bit() == 0 {
            return Err(UltimateIllegal::BoardDecided);
        }
        if (self.x | self.o) & cell.bit() != 0 {
            return Err(UltimateIllegal::Occupied);
        }
        let mine = match self.side {
            Player::X => {
                self.x |= cell.bit();
                self.x
            }
            Player::O => {
                self.o |= cell.bit();
                self.o
            }
        };
        let decided = if has_line(board_bits(mine, board)) {
            match self.side {
                Player::X => self.won_x |= 1 << board,
                Player::O => self.won_o |= 1 << board,
            }
            true
        } else if board_bits(self.x | self.o, board) == FULL {
            self.drawn |= 1 << board;
            true
        } else {
            false
        };
        self.lost_turns[self.side.index()] = 0;
        self.side = !self.side;
        let target = cell.pos();
        if decided {
            self.open &= !board_mask(board);
            self.status = self.board_status();
        } else {
            self.status = Status::Ongoing(self.side);
        }
        self.sent = if self.open & board_mask(target) != 0 {
            target as u8
        } else {
            ANY
        };
        Ok(self.status)
    }

    fn timeout(&mut self) -> Result<Status, UltimateIllegal> {
        if self.variant == Variant::Super {
            return Err(UltimateIllegal::NoClock);
        }
        if self.status.is_over() {
            return Err(UltimateIllegal::GameOver);
        }
        let lost = &mut self.lost_turns[self.side.index()];
        *lost += 1;
        if *lost == LOST_TURNS_TO_LOSE {
            self.status = Status::Win(!self.side);
        } else {
            // V2-R05: the opponent moves next, anywhere open.
            self.side = !self.side;
            self.sent = ANY;
            self.status = Status::Ongoing(self.side);
        }
        Ok(self.status)
    }

    #[inline]
    fn status(&self) -> Status {
        self.status
    }

    fn ending(&self) -> Option<Ending> {
        match self.status {
            Status::Ongoing(_) => None,
            _ if self.lost_turns.contains(&LOST_TURNS_TO_LOSE) => Some(Ending::Time),
            Status::Win(_) => Some(Ending::Line),
            Status::Draw => Some(Ending::Draw),
        }
    }
}
