//! Cubo da Velha: tic-tac-toe on side 1 of a 3x3x3 cube whose layers turn
//! (`docs/rules/cube.md`).
//!
//! The 54 stickers are three 54-bit planes (X, O, spent; blank is none of them). A turn moves
//! all three planes with the precomputed permutation of [`geometry`]; lines are table lookups
//! on a face's nine bits.

pub mod geometry;

use serde::{Deserialize, Serialize};

use crate::game::Ending;
use crate::lines::{LINES, has_line, middles_of_lines};
use crate::{Cell, Player, Position, Status};
use geometry::{F_MASK, F_SHIFT, Face, TurnTable, build_turn};

/// The most symbols a player may have on side 1 (CUBE-R09).
pub const SYMBOL_LIMIT: u32 = 4;

/// The difficulty level, fixed when the game is created (CUBE-R01).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Level {
    /// Every turn only in the canonical direction; fixed camera.
    One,
    /// Counted turns alternate per player between either way and canonical only.
    Two,
}

impl Level {
    /// 1 or 2.
    pub const fn number(self) -> u8 {
        match self {
            Level::One => 1,
            Level::Two => 2,
        }
    }

    /// The level numbered 1 or 2.
    pub const fn from_number(n: u8) -> Option<Level> {
        match n {
            1 => Some(Level::One),
            2 => Some(Level::Two),
            _ => None,
        }
    }
}

/// A layer that turns: three columns, three rows and three layers parallel to side 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// Left column (x = -1).
    #[default]
    L = 0,
    /// Middle column (x = 0).
    M = 1,
    /// Right column (x = +1).
    R = 2,
    /// Top row (y = +1).
    U = 3,
    /// Middle row (y = 0).
    E = 4,
    /// Bottom row (y = -1).
    D = 5,
    /// Front layer, side 1 itself (z = +1).
    F = 6,
    /// Middle layer parallel to side 1 (z = 0): a free turn.
    S = 7,
    /// Back layer (z = -1): a free turn.
    B = 8,
}

impl Layer {
    /// All nine layers, in the notation's order.
    pub const ALL: [Layer; 9] = [
        Layer::L,
        Layer::M,
        Layer::R,
        Layer::U,
        Layer::E,
        Layer::D,
        Layer::F,
        Layer::S,
        Layer::B,
    ];

    /// The layer's letter in the notation.
    pub const fn letter(self) -> char {
        ['L', 'M', 'R', 'U', 'E', 'D', 'F', 'S', 'B'][self as usize]
    }

    /// The axis it turns about (0 = x, 1 = y, 2 = z) and its coordinate on that axis.
    pub const fn axis_and_coord(self) -> (usize, i8) {
        let i = self as usize;
        (i / 3, [-1, 0, 1, 1, 0, -1, 1, 0, -1][i])
    }

    /// Whether the canonical direction is +90° about the positive axis (columns) rather
    /// than -90° (rows and front-parallel layers).
    pub const fn canonical_is_positive(self) -> bool {
        (self as usize) < 3
    }

    /// Free turns (S, B) never touch side 1 and do not pass the turn (CUBE-R02).
    pub const fn is_free(self) -> bool {
        matches!(self, Layer::S | Layer::B)
    }
}

/// A quarter turn of one layer, canonical (`+`) or against it (`-`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Turn {
    /// The layer that turns.
    pub layer: Layer,
    /// True for the canonical direction (`+`).
    pub canonical: bool,
}

impl Turn {
    /// All 18 turns in the notation's order: `L+ L- M+ M- … B+ B-`.
    pub const ALL: [Turn; 18] = {
        let mut all = [Turn {
            layer: Layer::L,
            canonical: true,
        }; 18];
        let mut i = 0;
        while i < 18 {
            all[i] = Turn {
                layer: Layer::ALL[i / 2],
                canonical: i % 2 == 0,
            };
            i += 1;
        }
        all
    };

    /// The turn's position in [`Turn::ALL`].
    #[inline]
    pub const fn index(self) -> usize {
        self.layer as usize * 2 + if self.canonical { 0 } else { 1 }
    }

    /// The same layer turned the other way: it undoes this turn.
    pub const fn inverse(self) -> Turn {
        Turn {
            layer: self.layer,
            canonical: !self.canonical,
        }
    }

    /// Whether it is a counted turn (moves stickers of side 1).
    pub const fn is_counted(self) -> bool {
        !self.layer.is_free()
    }

    /// The permutation of the 54 stickers this turn makes.
    #[inline]
    pub fn table(self) -> &'static TurnTable {
        &TURN_TABLES[self.index()]
    }
}

static TURN_TABLES: [TurnTable; 18] = {
    let dummy = build_turn(0, 2, true);
    let mut tables = [dummy; 18];
    let mut i = 0;
    while i < 18 {
        let turn = Turn::ALL[i];
        let (axis, coord) = turn.layer.axis_and_coord();
        let positive = turn.layer.canonical_is_positive() == turn.canonical;
        tables[i] = build_turn(axis, coord, positive);
        i += 1;
    }
    tables
};

/// Turn-index masks over [`Turn::ALL`]: `+` turns sit at even indices, S and B last.
const CANONICAL_TURNS: u32 = 0b01_0101_0101_0101_0101;
const FREE_TURNS: u32 = 0b11_1100_0000_0000_0000;
const COUNTED_TURNS: u32 = 0b00_0011_1111_1111_1111;

/// Each turn's stickers that land on side 1, packed apart from the big tables for the hot
/// loop of move generation.
static SOURCES_OF_F: [u64; 18] = {
    let mut sources = [0; 18];
    let mut i = 0;
    while i < 18 {
        sources[i] = TURN_TABLES[i].sources_of_f;
        i += 1;
    }
    sources
};

/// One action of the cube game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum CubeAction {
    /// A tap on a cell of side 1: mark, RESET 1 or RESET 2, by the cell's state.
    Tap(Cell),
    /// A quarter turn of a layer.
    Turn(Turn),
}

impl Default for CubeAction {
    fn default() -> Self {
        CubeAction::Tap(Cell::default())
    }
}

/// A set of cube actions: bits 0–8 are taps on the cells of side 1 (reading order), bits 9–26
/// the turns of [`Turn::ALL`]. Iterates taps first, then turns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CubeActions(u32);

impl CubeActions {
    fn action(bit: u32) -> CubeAction {
        match bit {
            0..9 => CubeAction::Tap(Cell::ALL[bit as usize]),
            _ => CubeAction::Turn(Turn::ALL[bit as usize - 9]),
        }
    }

    fn bit(action: CubeAction) -> u32 {
        match action {
            CubeAction::Tap(cell) => 1 << cell.index(),
            CubeAction::Turn(turn) => 1 << (9 + turn.index()),
        }
    }

    /// How many actions are in the set.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True when the set is empty (the game is over).
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `action` is in the set.
    pub fn contains(self, action: CubeAction) -> bool {
        self.0 & CubeActions::bit(action) != 0
    }

    /// The `k`-th action in iteration order (`k < len()`), for uniform random choice without
    /// collecting the set.
    pub fn nth_action(self, k: usize) -> Option<CubeAction> {
        let mut bits = self.0;
        for _ in 0..k {
            bits &= bits.checked_sub(1)?;
        }
        (bits != 0).then(|| CubeActions::action(bits.trailing_zeros()))
    }
}

impl Iterator for CubeActions {
    type Item = CubeAction;
    #[inline]
    fn next(&mut self) -> Option<CubeAction> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(CubeActions::action(bit))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CubeActions {}

/// What a sticker shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sticker {
    /// White, never used since the last RESET 2.
    Blank,
    /// Yellow without a symbol.
    Spent,
    /// A player's symbol (on yellow).
    Mark(Player),
}

/// What a tap on a cell of side 1 does, by the cell's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TapKind {
    /// A blank cell gets the player's symbol (CUBE-R03).
    Mark,
    /// The player's own symbol is erased and the cell becomes spent (CUBE-R04).
    Reset1,
    /// Every spent cell of side 1 becomes blank (CUBE-R05).
    Reset2,
    /// The opponent's symbol: never allowed (CUBE-R06).
    Opponent,
}

/// The kind of a player's next counted turn, as the screen shows it in level 2 (CUBE-V03).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TurnKind {
    /// Either direction ("Giro: livre").
    Either,
    /// Only the canonical direction ("Giro: sentido único").
    OneWay,
}

/// Which rule forbids a turn against the canonical direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OneWayRule {
    /// Level 1: every turn goes the canonical way.
    Level1,
    /// Level 2: this player's next counted turn is a one-way turn (the alternation).
    Alternation,
    /// Free turns (S, B) always go the canonical way.
    FreeTurn,
}

/// Why a cube action was refused. Each says enough for the UI's short message (CUBE-V04).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CubeIllegal {
    /// The game is already over.
    GameOver,
    /// The cell holds the opponent's symbol (CUBE-R06).
    OpponentSymbol,
    /// The action would leave this player with more than 4 symbols on side 1 (CUBE-R09).
    SymbolLimit(Player),
    /// The turn goes against the canonical direction where a rule forbids it (CUBE-R08).
    WrongDirection(OneWayRule),
    /// A free turn was already made this turn (CUBE-R02).
    SecondFreeTurn,
}

impl std::fmt::Display for CubeIllegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CubeIllegal::GameOver => f.write_str("game over"),
            CubeIllegal::OpponentSymbol => f.write_str("cannot erase the opponent's symbol"),
            CubeIllegal::SymbolLimit(p) => {
                write!(
                    f,
                    "symbol limit: {p} would have more than 4 symbols on side 1"
                )
            }
            CubeIllegal::WrongDirection(OneWayRule::Level1) => {
                f.write_str("wrong direction: level 1 turns only go the canonical way")
            }
            CubeIllegal::WrongDirection(OneWayRule::Alternation) => {
                f.write_str("wrong direction: this counted turn is one-way")
            }
            CubeIllegal::WrongDirection(OneWayRule::FreeTurn) => {
                f.write_str("wrong direction: free turns only go the canonical way")
            }
            CubeIllegal::SecondFreeTurn => f.write_str("second free turn in the same turn"),
        }
    }
}

impl std::error::Error for CubeIllegal {}

/// The end of a cube game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct End {
    winner: Player,
    /// A line, both lines or the clock.
    how: Ending,
}

/// A position of Cubo da Velha.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cube {
    x: u64,
    o: u64,
    spent: u64,
    side: Player,
    level: Level,
    free_turn_made: bool,
    /// Counted turns made so far by X and O (the level-2 alternation).
    counted: [u32; 2],
    ending: Option<End>,
}

/// Problems a cube position read from text can have.
pub type PartsError = &'static str;

impl Cube {
    /// A new game: all stickers blank, X to move (CUBE-R01).
    pub const fn new(level: Level) -> Cube {
        Cube {
            x: 0,
            o: 0,
            spent: 0,
            side: Player::X,
            level,
            free_turn_made: false,
            counted: [0, 0],
            ending: None,
        }
    }

    /// X's, O's and the spent stickers, a bit per facelet: with [`Cube::from_masks`], a
    /// position kept as a few numbers.
    pub const fn masks(&self) -> [u64; 3] {
        [self.x, self.o, self.spent]
    }

    /// A position from [`Cube::masks`] and its counters, checked as [`Cube::from_parts`] does.
    pub fn from_masks(
        [x, o, spent]: [u64; 3],
        side: Player,
        level: Level,
        free_turn_made: bool,
        counted: [u32; 2],
    ) -> Result<Cube, PartsError> {
        let mut stickers = [Sticker::Blank; 54];
        for (i, s) in stickers.iter_mut().enumerate() {
            let bit = 1u64 << i;
            *s = match (x & bit != 0, o & bit != 0, spent & bit != 0) {
                (false, false, false) => Sticker::Blank,
                (true, false, false) => Sticker::Mark(Player::X),
                (false, true, false) => Sticker::Mark(Player::O),
                (false, false, true) => Sticker::Spent,
                _ => return Err("a sticker holds two states"),
            };
        }
        if (x | o | spent) >> 54 != 0 {
            return Err("a cube has 54 stickers");
        }
        Cube::from_parts(&stickers, side, level, free_turn_made, counted)
    }

    /// Builds a position from its stickers (one per facelet) and counters; the ending is
    /// derived from side 1. `Err` says why such a position cannot arise.
    pub(crate) fn from_parts(
        stickers: &[Sticker; 54],
        side: Player,
        level: Level,
        free_turn_made: bool,
        counted: [u32; 2],
    ) -> Result<Cube, PartsError> {
        let mut cube = Cube::new(level);
        for (i, s) in stickers.iter().enumerate() {
            match s {
                Sticker::Blank => {}
                Sticker::Spent => cube.spent |= 1 << i,
                Sticker::Mark(Player::X) => cube.x |= 1 << i,
                Sticker::Mark(Player::O) => cube.o |= 1 << i,
            }
        }
        cube.side = side;
        cube.free_turn_made = free_turn_made;
        cube.counted = counted;
        if cube.symbols_on_side1(Player::X) > SYMBOL_LIMIT
            || cube.symbols_on_side1(Player::O) > SYMBOL_LIMIT
        {
            return Err("a player has more than 4 symbols on side 1");
        }
        for face in Face::ALL {
            if face != Face::F
                && (has_line(face_bits(cube.x, face)) || has_line(face_bits(cube.o, face)))
            {
                return Err("a face other than side 1 holds a line of one symbol");
            }
        }
        cube.ending = cube.side1_ending(!side);
        if cube.ending.is_some() && free_turn_made {
            return Err("a free turn cannot follow the end of the game");
        }
        Ok(cube)
    }

    /// The level chosen for this game.
    pub const fn level(&self) -> Level {
        self.level
    }

    /// The player whose turn it is.
    pub const fn side_to_move(&self) -> Player {
        self.side
    }

    /// Whether the side to move already made its free turn this turn.
    pub const fn free_turn_made(&self) -> bool {
        self.free_turn_made
    }

    /// Counted turns `player` has made so far.
    pub const fn counted_turns(&self, player: Player) -> u32 {
        self.counted[player.index()]
    }

    /// What sticker `index` (0–53, facelet order) shows.
    pub const fn sticker(&self, index: usize) -> Sticker {
        let bit = 1u64 << index;
        if self.x & bit != 0 {
            Sticker::Mark(Player::X)
        } else if self.o & bit != 0 {
            Sticker::Mark(Player::O)
        } else if self.spent & bit != 0 {
            Sticker::Spent
        } else {
            Sticker::Blank
        }
    }

    /// What the cell of side 1 shows.
    pub const fn cell(&self, cell: Cell) -> Sticker {
        self.sticker(F_SHIFT as usize + cell.index())
    }

    /// Symbols `player` has on side 1 (the count CUBE-R09 limits).
    pub const fn symbols_on_side1(&self, player: Player) -> u32 {
        (self.plane(player) & F_MASK).count_ones()
    }

    /// `player`'s symbols on the whole cube, one bit per facelet in facelet order.
    #[inline]
    pub const fn marks(&self, player: Player) -> u64 {
        self.plane(player)
    }

    /// The spent stickers of the whole cube, one bit per facelet in facelet order.
    #[inline]
    pub const fn spent_stickers(&self) -> u64 {
        self.spent
    }

    /// `player`'s symbols on side 1 as a 9-bit mask (bit = [`Cell::index`]).
    #[inline]
    pub const fn side1_marks(&self, player: Player) -> u16 {
        ((self.plane(player) >> F_SHIFT) & 0x1FF) as u16
    }

    /// The blank cells of side 1 as a 9-bit mask.
    #[inline]
    pub const fn side1_blank(&self) -> u16 {
        ((!(self.x | self.o | self.spent) >> F_SHIFT) & 0x1FF) as u16
    }

    /// The lines of side 1 that ended the game (CUBE-R11, R12), each with the player whose
    /// symbol fills it, as a 9-bit mask of cells (bit = [`Cell::index`]): one line, or one of
    /// each symbol after a turn that made both. Never two of one symbol: they would need five
    /// cells, past the limit of CUBE-R09. None while the game goes on or after a timeout.
    pub fn winning_lines(&self) -> impl Iterator<Item = (Player, u16)> + use<> {
        let cube = *self;
        Player::BOTH.into_iter().flat_map(move |player| {
            let marks = cube.side1_marks(player);
            LINES
                .into_iter()
                .filter(move |&line| marks & line == line)
                .map(move |line| (player, line))
        })
    }

    /// What tapping `cell` would do for the side to move.
    pub const fn tap_kind(&self, cell: Cell) -> TapKind {
        match self.cell(cell) {
            Sticker::Blank => TapKind::Mark,
            Sticker::Spent => TapKind::Reset2,
            Sticker::Mark(p) if p as u8 == self.side as u8 => TapKind::Reset1,
            Sticker::Mark(_) => TapKind::Opponent,
        }
    }

    /// The kind of `player`'s next counted turn (CUBE-R08): in level 2 the 1st, 3rd, …
    /// go either way and the 2nd, 4th, … only the canonical way; in level 1 every turn is
    /// one-way.
    pub const fn next_turn_kind(&self, player: Player) -> TurnKind {
        match self.level {
            Level::Two if self.counted[player.index()].is_multiple_of(2) => TurnKind::Either,
            _ => TurnKind::OneWay,
        }
    }

    #[inline]
    const fn plane(&self, player: Player) -> u64 {
        match player {
            Player::X => self.x,
            Player::O => self.o,
        }
    }

    /// The legal taps (bit = cell) and turns (bit = index in [`Turn::ALL`]) at once: the same
    /// rules as [`Cube::check_tap`] and [`Cube::check_turn`], as mask operations, because move
    /// generation is the inner loop of every search and playout.
    #[inline]
    fn legal_masks(&self) -> (u16, u32) {
        if self.ending.is_some() {
            return (0, 0);
        }
        let f = |plane: u64| ((plane >> F_SHIFT) & 0x1FF) as u16;
        let own = f(self.plane(self.side));
        let blank = f(!(self.x | self.o | self.spent));
        let mut taps = own | f(self.spent);
        if own.count_ones() < SYMBOL_LIMIT {
            taps |= blank;
        }
        let one_way = match self.level {
            Level::One => true,
            Level::Two => self.counted[self.side.index()] % 2 == 1,
        };
        let mut turns = if one_way {
            COUNTED_TURNS & CANONICAL_TURNS
        } else {
            COUNTED_TURNS
        };
        // Nobody can pass the limit while the whole cube holds at most 4 of each symbol.
        if self.x.count_ones() > SYMBOL_LIMIT || self.o.count_ones() > SYMBOL_LIMIT {
            let mut candidates = turns;
            while candidates != 0 {
                let t = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                let onto_f = SOURCES_OF_F[t];
                if (self.x & onto_f).count_ones() > SYMBOL_LIMIT
                    || (self.o & onto_f).count_ones() > SYMBOL_LIMIT
                {
                    turns &= !(1 << t);
                }
            }
        }
        if !self.free_turn_made {
            turns |= FREE_TURNS & CANONICAL_TURNS;
        }
        (taps, turns)
    }

    /// Checks a turn without playing it, in the order of CUBE-R14 (after the free-turn
    /// count): direction, then the symbol limit on the state after the turn.
    #[inline]
    fn check_turn(&self, turn: Turn) -> Result<(), CubeIllegal> {
        if turn.layer.is_free() {
            if self.free_turn_made {
                return Err(CubeIllegal::SecondFreeTurn);
            }
            if !turn.canonical {
                return Err(CubeIllegal::WrongDirection(OneWayRule::FreeTurn));
            }
            // Free turns never touch side 1, so they never break the symbol limit.
            return Ok(());
        }
        if !turn.canonical {
            match self.level {
                Level::One => return Err(CubeIllegal::WrongDirection(OneWayRule::Level1)),
                Level::Two if self.counted[self.side.index()] % 2 == 1 => {
                    return Err(CubeIllegal::WrongDirection(OneWayRule::Alternation));
                }
                Level::Two => {}
            }
        }
        let onto_f = turn.table().sources_of_f;
        // A turn is a bijection: the symbols landing on side 1 are those of its sources.
        for player in Player::BOTH {
            if (self.plane(player) & onto_f).count_ones() > SYMBOL_LIMIT {
                return Err(CubeIllegal::SymbolLimit(player));
            }
        }
        Ok(())
    }

    #[inline]
    fn check_tap(&self, cell: Cell) -> Result<TapKind, CubeIllegal> {
        match self.tap_kind(cell) {
            TapKind::Opponent => Err(CubeIllegal::OpponentSymbol),
            TapKind::Mark if self.symbols_on_side1(self.side) >= SYMBOL_LIMIT => {
                Err(CubeIllegal::SymbolLimit(self.side))
            }
            kind => Ok(kind),
        }
    }

    /// The ending side 1 shows, if any, when `turner` made the last action (CUBE-R11, R12).
    fn side1_ending(&self, turner: Player) -> Option<End> {
        let x_line = has_line(face_bits(self.x, Face::F));
        let o_line = has_line(face_bits(self.o, Face::F));
        match (x_line, o_line) {
            (true, true) => Some(End {
                winner: !turner,
                how: Ending::BothLines,
            }),
            (true, false) => Some(End {
                winner: Player::X,
                how: Ending::Line,
            }),
            (false, true) => Some(End {
                winner: Player::O,
                how: Ending::Line,
            }),
            (false, false) => None,
        }
    }

    /// Ends the turn of the side to move after its main action.
    #[inline]
    fn pass_turn(&mut self) -> Status {
        self.side = !self.side;
        self.free_turn_made = false;
        self.status()
    }

    #[inline]
    fn apply_turn(&mut self, turn: Turn) {
        let table = turn.table();
        [self.x, self.o, self.spent] = table.apply_all([self.x, self.o, self.spent]);
        // CUBE-R10: lines on the other faces lose their middles. Only touched faces can hold
        // a new line: every earlier turn already cleared the rest, and taps only touch side 1.
        let mut faces = table.faces_touched & !(1 << Face::F as u8);
        while faces != 0 {
            let shift = 9 * faces.trailing_zeros();
            faces &= faces - 1;
            let mids = (middles_of_lines((self.x >> shift) as u16)
                | middles_of_lines((self.o >> shift) as u16)) as u64;
            if mids != 0 {
                let mids = mids << shift;
                self.x &= !mids;
                self.o &= !mids;
                self.spent |= mids;
            }
        }
    }
}

#[inline]
fn face_bits(plane: u64, face: Face) -> u16 {
    (plane >> (9 * face as u32)) as u16 & 0x1FF
}

impl Position for Cube {
    type Action = CubeAction;
    type Illegal = CubeIllegal;
    type Actions = CubeActions;

    #[inline]
    fn legal_actions(&self) -> CubeActions {
        let (taps, turns) = self.legal_masks();
        CubeActions(u32::from(taps) | turns << 9)
    }

    #[inline]
    fn legal_count(&self) -> usize {
        self.legal_actions().len()
    }

    fn play(&mut self, action: CubeAction) -> Result<Status, CubeIllegal> {
        if self.ending.is_some() {
            return Err(CubeIllegal::GameOver);
        }
        match action {
            CubeAction::Tap(cell) => {
                let bit = 1u64 << (F_SHIFT as usize + cell.index());
                match self.check_tap(cell)? {
                    TapKind::Mark => {
                        match self.side {
                            Player::X => self.x |= bit,
                            Player::O => self.o |= bit,
                        }
                        if has_line(face_bits(self.plane(self.side), Face::F)) {
                            self.ending = Some(End {
                                winner: self.side,
                                how: Ending::Line,
                            });
                        }
                    }
                    TapKind::Reset1 => {
                        self.x &= !bit;
                        self.o &= !bit;
                        self.spent |= bit;
                    }
                    TapKind::Reset2 => self.spent &= !F_MASK,
                    TapKind::Opponent => return Err(CubeIllegal::OpponentSymbol),
                }
                Ok(self.pass_turn())
            }
            CubeAction::Turn(turn) => {
                self.check_turn(turn)?;
                self.apply_turn(turn);
                if turn.layer.is_free() {
                    self.free_turn_made = true;
                    return Ok(self.status());
                }
                self.counted[self.side.index()] += 1;
                self.ending = self.side1_ending(self.side);
                Ok(self.pass_turn())
            }
        }
    }

    fn timeout(&mut self) -> Result<Status, CubeIllegal> {
        if self.ending.is_some() {
            return Err(CubeIllegal::GameOver);
        }
        self.ending = Some(End {
            winner: !self.side,
            how: Ending::Time,
        });
        Ok(self.status())
    }

    fn ending(&self) -> Option<Ending> {
        self.ending.map(|end| end.how)
    }

    #[inline]
    fn status(&self) -> Status {
        match self.ending {
            Some(end) => Status::Win(end.winner),
            None => Status::Ongoing(self.side),
        }
    }
}
