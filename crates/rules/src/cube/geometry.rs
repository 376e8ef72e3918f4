//! The cube's stickers in space and the 18 quarter turns as precomputed permutations.
//!
//! A sticker (facelet) is numbered in the Kociemba order of `cube.md`: face `U R F D L B`, then
//! reading order on that face, so sticker `i` is bit `i` of a 54-bit plane and each face is
//! nine contiguous bits. The tables are built at compile time from the 3D description: where
//! each sticker sits (cubie coordinates in {-1, 0, 1}³) and which way it faces.

/// Faces in facelet order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Face {
    /// Top, y = +1.
    U = 0,
    /// Right, x = +1.
    R = 1,
    /// Front, z = +1: side 1, the face the players mark.
    F = 2,
    /// Bottom, y = -1.
    D = 3,
    /// Left, x = -1.
    L = 4,
    /// Back, z = -1.
    B = 5,
}

impl Face {
    /// The six faces in facelet order.
    pub const ALL: [Face; 6] = [Face::U, Face::R, Face::F, Face::D, Face::L, Face::B];

    /// The face's letter.
    pub const fn letter(self) -> char {
        ['U', 'R', 'F', 'D', 'L', 'B'][self as usize]
    }

    /// Its outward normal.
    pub const fn normal(self) -> [i8; 3] {
        match self {
            Face::U => [0, 1, 0],
            Face::R => [1, 0, 0],
            Face::F => [0, 0, 1],
            Face::D => [0, -1, 0],
            Face::L => [-1, 0, 0],
            Face::B => [0, 0, -1],
        }
    }
}

/// Bit offset of side 1 (F) in a sticker plane.
pub const F_SHIFT: u32 = 9 * Face::F as u32;
/// Side 1's stickers in a sticker plane.
pub const F_MASK: u64 = 0x1FF << F_SHIFT;

/// Where sticker `i` (0–53) sits: cubie position and outward normal.
pub const fn sticker_place(i: usize) -> ([i8; 3], [i8; 3]) {
    let face = i / 9;
    let r = ((i % 9) / 3) as i8;
    let c = (i % 3) as i8;
    let pos = match face {
        0 => [c - 1, 1, r - 1],
        1 => [1, 1 - r, 1 - c],
        2 => [c - 1, 1 - r, 1],
        3 => [c - 1, -1, 1 - r],
        4 => [-1, 1 - r, c - 1],
        _ => [1 - c, 1 - r, -1],
    };
    (pos, Face::ALL[face].normal())
}

/// The sticker at cubie position `pos` facing `normal` (the inverse of [`sticker_place`]).
pub const fn sticker_at(pos: [i8; 3], normal: [i8; 3]) -> usize {
    let [x, y, z] = pos;
    let (face, r, c) = match normal {
        [0, 1, 0] => (0, z + 1, x + 1),
        [1, 0, 0] => (1, 1 - y, 1 - z),
        [0, 0, 1] => (2, 1 - y, x + 1),
        [0, -1, 0] => (3, 1 - z, x + 1),
        [-1, 0, 0] => (4, 1 - y, z + 1),
        _ => (5, 1 - y, 1 - x),
    };
    face * 9 + (r as usize) * 3 + c as usize
}

/// A quarter rotation of a vector about `axis` (0 = x, 1 = y, 2 = z): `positive` is +90°,
/// right-handed.
pub const fn rotate(v: [i8; 3], axis: usize, positive: bool) -> [i8; 3] {
    let [x, y, z] = v;
    match (axis, positive) {
        (0, true) => [x, -z, y],
        (0, false) => [x, z, -y],
        (1, true) => [z, y, -x],
        (1, false) => [-z, y, x],
        (2, true) => [-y, x, z],
        _ => [y, -x, z],
    }
}

/// A group of stickers that all move by the same bit distance under one turn.
#[derive(Clone, Copy, Debug)]
pub struct ShiftGroup {
    /// Source stickers of the group.
    pub mask: u64,
    /// Destination bit minus source bit.
    pub delta: i8,
}

/// One quarter turn as a permutation of the 54 stickers.
#[derive(Clone, Copy, Debug)]
pub struct TurnTable {
    /// Where each sticker goes.
    pub dest: [u8; 54],
    /// Stickers that move.
    pub moved: u64,
    /// The moving stickers grouped by shift, so a whole plane moves in a few mask-and-shift
    /// steps instead of one step per sticker.
    pub groups: [ShiftGroup; MAX_GROUPS],
    /// How many of `groups` are used.
    pub group_count: usize,
    /// The stickers that are on side 1 after the turn, as sources: the symbol counts of side 1
    /// after the turn are popcounts of the planes under this mask.
    pub sources_of_f: u64,
    /// Faces whose stickers change (bit = face index).
    pub faces_touched: u8,
}

/// Upper bound on distinct shifts in one turn (a turn moves at most 20 stickers).
pub const MAX_GROUPS: usize = 20;

impl TurnTable {
    /// Moves the stickers of `plane` (bit = sticker) as the turn moves them.
    #[inline(always)]
    pub fn apply(&self, plane: u64) -> u64 {
        let [moved] = self.apply_all([plane]);
        moved
    }

    /// [`TurnTable::apply`] to several planes at once: each group is read once for all.
    #[inline(always)]
    pub fn apply_all<const N: usize>(&self, planes: [u64; N]) -> [u64; N] {
        let mut out = planes.map(|plane| plane & !self.moved);
        for group in &self.groups[..self.group_count] {
            // A rotation, not a shift one way or the other: no branch that the shifts' signs
            // would make unpredictable, and no bit wraps (every destination is a sticker).
            let by = group.delta as u32 & 63;
            for (out, plane) in out.iter_mut().zip(planes) {
                *out |= (plane & group.mask).rotate_left(by);
            }
        }
        out
    }
}

/// Builds the permutation for the layer whose coordinate on `axis` is `coord`, turned a
/// quarter about +axis (`positive`) or the other way.
pub const fn build_turn(axis: usize, coord: i8, positive: bool) -> TurnTable {
    let mut table = TurnTable {
        dest: [0; 54],
        moved: 0,
        groups: [ShiftGroup { mask: 0, delta: 0 }; MAX_GROUPS],
        group_count: 0,
        sources_of_f: 0,
        faces_touched: 0,
    };
    let mut i = 0;
    while i < 54 {
        let (pos, normal) = sticker_place(i);
        let j = if pos[axis] == coord {
            sticker_at(rotate(pos, axis, positive), rotate(normal, axis, positive))
        } else {
            i
        };
        table.dest[i] = j as u8;
        if j / 9 == Face::F as usize {
            table.sources_of_f |= 1 << i;
        }
        if j != i {
            table.moved |= 1 << i;
            table.faces_touched |= 1 << (i / 9);
            let delta = j as i8 - i as i8;
            let mut g = 0;
            while g < table.group_count && table.groups[g].delta != delta {
                g += 1;
            }
            if g == table.group_count {
                table.groups[g].delta = delta;
                table.group_count += 1;
            }
            table.groups[g].mask |= 1 << i;
        }
        i += 1;
    }
    table
}
