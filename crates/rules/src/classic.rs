//! Jogo da Velha, the classic 3x3 game (`docs/rules/classic.md`).

use crate::lines::{FULL, has_line, line_cells};
use crate::{ActionList, Cell, Player, Position, Status};

/// A position of the classic game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Classic {
    pub(crate) x: u16,
    pub(crate) o: u16,
    pub(crate) side: Player,
}

/// Why a classic action was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClassicIllegal {
    /// The game is already over.
    GameOver,
    /// The cell already holds a piece (CLASSIC-R02).
    Occupied,
    /// The classic game has no clock, so nothing can time out.
    NoClock,
}

impl std::fmt::Display for ClassicIllegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ClassicIllegal::GameOver => "game over",
            ClassicIllegal::Occupied => "cell occupied",
            ClassicIllegal::NoClock => "no clock in this game",
        })
    }
}

impl std::error::Error for ClassicIllegal {}

impl Classic {
    /// An empty board with `starter` to move (CLASSIC-R05: the series decides who starts).
    pub const fn new(starter: Player) -> Classic {
        Classic {
            x: 0,
            o: 0,
            side: starter,
        }
    }

    /// Builds a position from its pieces ([`Classic::mask`]); `None` when a cell is claimed
    /// twice.
    pub fn from_parts(x: u16, o: u16, side: Player) -> Option<Classic> {
        (x & o == 0 && (x | o) & !FULL == 0).then_some(Classic { x, o, side })
    }

    /// The piece on `cell`, if any.
    pub fn piece(&self, cell: Cell) -> Option<Player> {
        if self.x & cell.bit() != 0 {
            Some(Player::X)
        } else if self.o & cell.bit() != 0 {
            Some(Player::O)
        } else {
            None
        }
    }

    /// The player whose turn it is (also after the end: the one who would move next).
    pub const fn side_to_move(&self) -> Player {
        self.side
    }

    /// The cells of `player` as a 9-bit mask (bit = reading-order index).
    pub const fn mask(&self, player: Player) -> u16 {
        match player {
            Player::X => self.x,
            Player::O => self.o,
        }
    }

    /// The cells of the line that won the game (CLASSIC-R03) as a 9-bit mask; none for a draw,
    /// a game going on or one won otherwise (an online room's absence claim).
    pub fn winning_cells(&self) -> u16 {
        self.status()
            .winner()
            .map_or(0, |p| line_cells(self.mask(p)))
    }
}

impl Position for Classic {
    type Action = Cell;
    type Illegal = ClassicIllegal;
    type Actions = ActionList<Cell, 9>;

    fn legal_actions(&self) -> Self::Actions {
        let mut list = ActionList::new();
        if !self.status().is_over() {
            let mut free = FULL & !(self.x | self.o);
            while free != 0 {
                list.push(Cell::ALL[free.trailing_zeros() as usize]);
                free &= free - 1;
            }
        }
        list
    }

    fn legal_count(&self) -> usize {
        if self.status().is_over() {
            0
        } else {
            (FULL & !(self.x | self.o)).count_ones() as usize
        }
    }

    fn play(&mut self, cell: Cell) -> Result<Status, ClassicIllegal> {
        if self.status().is_over() {
            return Err(ClassicIllegal::GameOver);
        }
        if (self.x | self.o) & cell.bit() != 0 {
            return Err(ClassicIllegal::Occupied);
        }
        match self.side {
            Player::X => self.x |= cell.bit(),
            Player::O => self.o |= cell.bit(),
        }
        self.side = !self.side;
        Ok(self.status())
    }

    fn timeout(&mut self) -> Result<Status, ClassicIllegal> {
        Err(ClassicIllegal::NoClock)
    }

    fn status(&self) -> Status {
        // A line ends the game at once (CLASSIC-R03), so at most one player can have one.
        if has_line(self.x) {
            Status::Win(Player::X)
        } else if has_line(self.o) {
            Status::Win(Player::O)
        } else if self.x | self.o == FULL {
            Status::Draw
        } else {
            Status::Ongoing(self.side)
        }
    }
}
