//! A second, deliberately naive implementation of the four games, written from the rules files
//! alone and sharing no code with velha-rules: boards are arrays of characters, the cube is
//! rotated sticker by sticker with Rodrigues' formula, lines are checked by listing triples.
//! It speaks only text (actions, state lines, status), so it can check the library and the
//! engine binary alike.

#![allow(dead_code)]

/// The games, as text.
pub trait RefGame: Clone {
    /// Legal actions, sorted by their text.
    fn legal(&self) -> Vec<String>;
    /// Plays the action; false (and nothing changes) when it is illegal.
    fn play(&mut self, action: &str) -> bool;
    /// The clock ran out; false (and nothing changes) when the game has no clock or is over.
    fn timeout(&mut self) -> bool;
    /// `ongoing X`, `win O`, `draw`.
    fn status(&self) -> String;
    /// The protocol's state line.
    fn state(&self) -> String;
}

/// Counts action sequences of exactly `depth` actions, playing every one (no bulk counting).
pub fn perft<G: RefGame>(game: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for action in game.legal() {
        let mut next = game.clone();
        assert!(
            next.play(&action),
            "reference lists {action} but refuses it"
        );
        total += perft(&next, depth - 1);
    }
    total
}

const TRIPLES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

fn line_of(cells: &[char], symbol: char) -> bool {
    TRIPLES
        .iter()
        .any(|t| t.iter().all(|&i| cells[i] == symbol))
}

fn other(p: char) -> char {
    if p == 'X' { 'O' } else { 'X' }
}

fn cell_name(col: usize, row: usize) -> String {
    format!("{}{}", (b'a' + col as u8) as char, row + 1)
}

fn parse_cell(text: &str, size: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let col = b[0].checked_sub(b'a')? as usize;
    let row = b[1].checked_sub(b'1')? as usize;
    (col < size && row < size).then_some((col, row))
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

// ---------------------------------------------------------------- classic

/// Jogo da Velha.
#[derive(Clone)]
pub struct RefClassic {
    cells: [char; 9],
    side: char,
}

impl RefClassic {
    /// X starts.
    pub fn new() -> Self {
        RefClassic {
            cells: ['.'; 9],
            side: 'X',
        }
    }
    fn over(&self) -> bool {
        line_of(&self.cells, 'X') || line_of(&self.cells, 'O') || !self.cells.contains(&'.')
    }
}

impl RefGame for RefClassic {
    fn legal(&self) -> Vec<String> {
        if self.over() {
            return vec![];
        }
        sorted(
            (0..9)
                .filter(|&i| self.cells[i] == '.')
                .map(|i| cell_name(i % 3, i / 3))
                .collect(),
        )
    }
    fn play(&mut self, action: &str) -> bool {
        let Some((c, r)) = parse_cell(action, 3) else {
            return false;
        };
        if self.over() || self.cells[r * 3 + c] != '.' {
            return false;
        }
        self.cells[r * 3 + c] = self.side;
        self.side = other(self.side);
        true
    }
    fn timeout(&mut self) -> bool {
        false
    }
    fn status(&self) -> String {
        for p in ['X', 'O'] {
            if line_of(&self.cells, p) {
                return format!("win {p}");
            }
        }
        if !self.cells.contains(&'.') {
            "draw".into()
        } else {
            format!("ongoing {}", self.side)
        }
    }
    fn state(&self) -> String {
        format!("{} {}", self.cells.iter().collect::<String>(), self.side)
    }
}

// ---------------------------------------------------------------- super and 2.0

/// Super Jogo da Velha (`v2 = false`) or Jogo da Velha 2.0 (`v2 = true`).
#[derive(Clone)]
pub struct RefUltimate {
    /// 9x9 grid in reading order.
    grid: [char; 81],
    side: char,
    /// Board sent to, 0–8, or None for any.
    sent: Option<usize>,
    v2: bool,
    lost: [u32; 2],
    lost_game: Option<char>,
}

impl RefUltimate {
    /// X starts, anywhere.
    pub fn new(v2: bool) -> Self {
        RefUltimate {
            grid: ['.'; 81],
            side: 'X',
            sent: None,
            v2,
            lost: [0, 0],
            lost_game: None,
        }
    }

    fn board_cells(&self, b: usize) -> Vec<char> {
        let (br, bc) = (b / 3, b % 3);
        (0..9)
            .map(|k| self.grid[(br * 3 + k / 3) * 9 + bc * 3 + k % 3])
            .collect()
    }

    /// 'X', 'O' (won), '=' (drawn) or '.' (open).
    fn board_state(&self, b: usize) -> char {
        let cells = self.board_cells(b);
        for p in ['X', 'O'] {
            if line_of(&cells, p) {
                return p;
            }
        }
        if cells.contains(&'.') { '.' } else { '=' }
    }

    fn result(&self) -> Option<String> {
        if let Some(loser) = self.lost_game {
            return Some(format!("win {}", other(loser)));
        }
        let states: Vec<char> = (0..9).map(|b| self.board_state(b)).collect();
        let has = |p: char| {
            TRIPLES.iter().any(|t| {
                t.iter()
                    .all(|&b| states[b] == p || (self.v2 && states[b] == '='))
            })
        };
        match (has('X'), has('O')) {
            (true, true) => Some("draw".into()),
            (true, false) => Some("win X".into()),
            (false, true) => Some("win O".into()),
            _ if !states.contains(&'.') => Some("draw".into()),
            _ => None,
        }
    }
}

impl RefGame for RefUltimate {
    fn legal(&self) -> Vec<String> {
        if self.result().is_some() {
            return vec![];
        }
        let mut out = vec![];
        for row in 0..9 {
            for col in 0..9 {
                let b = (row / 3) * 3 + col / 3;
                let allowed = match self.sent {
                    Some(s) => s == b,
                    None => true,
                };
                if allowed && self.board_state(b) == '.' && self.grid[row * 9 + col] == '.' {
                    out.push(cell_name(col, row));
                }
            }
        }
        sorted(out)
    }
    fn play(&mut self, action: &str) -> bool {
        if !self.legal().iter().any(|a| a == action) {
            return false;
        }
        let (col, row) = parse_cell(action, 9).unwrap();
        self.grid[row * 9 + col] = self.side;
        self.lost[usize::from(self.side == 'O')] = 0;
        self.side = other(self.side);
        let target = (row % 3) * 3 + col % 3;
        self.sent = (self.board_state(target) == '.').then_some(target);
        true
    }
    fn timeout(&mut self) -> bool {
        if !self.v2 || self.result().is_some() {
            return false;
        }
        let i = usize::from(self.side == 'O');
        self.lost[i] += 1;
        if self.lost[i] == 3 {
            self.lost_game = Some(self.side);
        } else {
            self.side = other(self.side);
            self.sent = None;
        }
        true
    }
    fn status(&self) -> String {
        self.result()
            .unwrap_or_else(|| format!("ongoing {}", self.side))
    }
    fn state(&self) -> String {
        let sent = self.sent.map_or("*".to_string(), |b| (b + 1).to_string());
        let lost = if self.v2 && self.lost != [0, 0] {
            format!(" x={} o={}", self.lost[0], self.lost[1])
        } else {
            String::new()
        };
        format!(
            "{} {} {}{lost}",
            self.grid.iter().collect::<String>(),
            self.side,
            sent
        )
    }
}

// ---------------------------------------------------------------- cube

type V = [i32; 3];

/// Each face in facelet order U R F D L B: its outward normal, then the directions of
/// "right" and "down" as a person looking at that face in the standard net sees them.
const FACES: [(V, V, V); 6] = [
    ([0, 1, 0], [1, 0, 0], [0, 0, 1]),
    ([1, 0, 0], [0, 0, -1], [0, -1, 0]),
    ([0, 0, 1], [1, 0, 0], [0, -1, 0]),
    ([0, -1, 0], [1, 0, 0], [0, 0, -1]),
    ([-1, 0, 0], [0, 0, 1], [0, -1, 0]),
    ([0, 0, -1], [-1, 0, 0], [0, -1, 0]),
];

/// A sticker's centre, doubled so it has integer coordinates: 3·normal + 2·(c−1)·right +
/// 2·(r−1)·down.
fn sticker_point(i: usize) -> V {
    let (n, right, down) = FACES[i / 9];
    let (r, c) = ((i % 9 / 3) as i32 - 1, (i % 3) as i32 - 1);
    [0, 1, 2].map(|k| 3 * n[k] + 2 * c * right[k] + 2 * r * down[k])
}

fn sticker_index(p: V) -> usize {
    (0..54)
        .find(|&i| sticker_point(i) == p)
        .expect("every rotated sticker lands on a sticker")
}

/// Rodrigues' rotation by `sign`·90° about the unit axis `k`: v' = s (k × v) + k (k · v).
fn rotate(v: V, k: V, sign: i32) -> V {
    let cross = [
        k[1] * v[2] - k[2] * v[1],
        k[2] * v[0] - k[0] * v[2],
        k[0] * v[1] - k[1] * v[0],
    ];
    let dot = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
    [0, 1, 2].map(|i| sign * cross[i] + k[i] * dot)
}

/// Layer letter → (axis unit vector, layer coordinate along it).
fn layer(letter: char) -> Option<(V, i32)> {
    Some(match letter {
        'L' => ([1, 0, 0], -1),
        'M' => ([1, 0, 0], 0),
        'R' => ([1, 0, 0], 1),
        'U' => ([0, 1, 0], 1),
        'E' => ([0, 1, 0], 0),
        'D' => ([0, 1, 0], -1),
        'F' => ([0, 0, 1], 1),
        'S' => ([0, 0, 1], 0),
        'B' => ([0, 0, 1], -1),
        _ => return None,
    })
}

fn in_layer(p: V, axis: V, coord: i32) -> bool {
    let along = axis[0] * p[0] + axis[1] * p[1] + axis[2] * p[2];
    (along - 2 * coord).abs() <= 1
}

/// The rotation sign of the canonical direction, found from the words of cube.md: columns
/// take side 1's stickers down (onto D), rows take them left (onto L), and front-parallel
/// layers take the top face's stickers right (onto R).
fn canonical_sign(letter: char) -> i32 {
    let (axis, coord) = layer(letter).unwrap();
    let (from_face, to_face) = match letter {
        'L' | 'M' | 'R' => (2, 3),
        'U' | 'E' | 'D' => (2, 4),
        _ => (0, 1),
    };
    for sign in [1, -1] {
        let moved = (0..54)
            .filter(|&i| i / 9 == from_face && in_layer(sticker_point(i), axis, coord))
            .all(|i| sticker_index(rotate(sticker_point(i), axis, sign)) / 9 == to_face);
        if moved {
            return sign;
        }
    }
    panic!("no canonical direction for {letter}");
}

/// Where each sticker goes under a turn, worked out sticker by sticker from the geometry and
/// remembered, so that thousands of reference games stay quick.
fn turn_map(letter: char, plus: bool) -> [usize; 54] {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Maps = HashMap<(char, bool), [usize; 54]>;
    static MAPS: OnceLock<Mutex<Maps>> = OnceLock::new();
    let maps = MAPS.get_or_init(Default::default);
    *maps
        .lock()
        .unwrap()
        .entry((letter, plus))
        .or_insert_with(|| {
            let (axis, coord) = layer(letter).unwrap();
            let sign = if plus {
                canonical_sign(letter)
            } else {
                -canonical_sign(letter)
            };
            let mut map = [0; 54];
            for (i, m) in map.iter_mut().enumerate() {
                let p = sticker_point(i);
                *m = if in_layer(p, axis, coord) {
                    sticker_index(rotate(p, axis, sign))
                } else {
                    i
                };
            }
            map
        })
}

/// Cubo da Velha.
#[derive(Clone)]
pub struct RefCube {
    stickers: [char; 54],
    side: char,
    level: u8,
    free_used: bool,
    counted: [u32; 2],
    winner: Option<char>,
}

const TURN_NAMES: [&str; 18] = [
    "L+", "L-", "M+", "M-", "R+", "R-", "U+", "U-", "E+", "E-", "D+", "D-", "F+", "F-", "S+", "S-",
    "B+", "B-",
];

impl RefCube {
    /// All blank, X to move.
    pub fn new(level: u8) -> Self {
        RefCube {
            stickers: ['.'; 54],
            side: 'X',
            level,
            free_used: false,
            counted: [0, 0],
            winner: None,
        }
    }

    fn face(&self, f: usize) -> Vec<char> {
        self.stickers[f * 9..f * 9 + 9].to_vec()
    }

    fn count_f(stickers: &[char; 54], p: char) -> usize {
        stickers[18..27].iter().filter(|&&c| c == p).count()
    }

    fn turned(&self, letter: char, plus: bool) -> [char; 54] {
        let map = turn_map(letter, plus);
        let mut out = self.stickers;
        for i in 0..54 {
            out[map[i]] = self.stickers[i];
        }
        out
    }

    /// Applies the turn if legal; returns false otherwise.
    fn turn(&mut self, name: &str) -> bool {
        let letter = name.chars().next().unwrap();
        let plus = name.ends_with('+');
        let free = letter == 'S' || letter == 'B';
        if free {
            if self.free_used || !plus {
                return false;
            }
        } else if !plus {
            let me = usize::from(self.side == 'O');
            if self.level == 1 || self.counted[me] % 2 == 1 {
                return false;
            }
        }
        let after = self.turned(letter, plus);
        if Self::count_f(&after, 'X') > 4 || Self::count_f(&after, 'O') > 4 {
            return false;
        }
        self.stickers = after;
        // Clear the middles of every monochrome line on the other faces, all found first.
        let mut middles = vec![];
        for f in [0, 1, 3, 4, 5] {
            let cells = self.face(f);
            for t in TRIPLES {
                let s = cells[t[0]];
                if (s == 'X' || s == 'O') && cells[t[1]] == s && cells[t[2]] == s {
                    middles.push(f * 9 + t[1]);
                }
            }
        }
        for m in middles {
            self.stickers[m] = '*';
        }
        if free {
            self.free_used = true;
            return true;
        }
        self.counted[usize::from(self.side == 'O')] += 1;
        let front = self.face(2);
        self.winner = match (line_of(&front, 'X'), line_of(&front, 'O')) {
            (true, true) => Some(other(self.side)),
            (true, false) => Some('X'),
            (false, true) => Some('O'),
            _ => None,
        };
        self.end_turn();
        true
    }

    fn tap(&mut self, col: usize, row: usize) -> bool {
        let i = 18 + row * 3 + col;
        let me = self.side;
        match self.stickers[i] {
            '.' => {
                if Self::count_f(&self.stickers, me) >= 4 {
                    return false;
                }
                self.stickers[i] = me;
                if line_of(&self.face(2), me) {
                    self.winner = Some(me);
                }
            }
            '*' => {
                for s in &mut self.stickers[18..27] {
                    if *s == '*' {
                        *s = '.';
                    }
                }
            }
            s if s == me => self.stickers[i] = '*',
            _ => return false,
        }
        self.end_turn();
        true
    }

    fn end_turn(&mut self) {
        self.side = other(self.side);
        self.free_used = false;
    }
}

impl RefGame for RefCube {
    fn legal(&self) -> Vec<String> {
        if self.winner.is_some() {
            return vec![];
        }
        let mut candidates: Vec<String> = TURN_NAMES.iter().map(|s| s.to_string()).collect();
        for row in 0..3 {
            for col in 0..3 {
                candidates.push(cell_name(col, row));
            }
        }
        sorted(
            candidates
                .into_iter()
                .filter(|a| self.clone().play(a))
                .collect(),
        )
    }
    fn play(&mut self, action: &str) -> bool {
        if self.winner.is_some() {
            return false;
        }
        if let Some((c, r)) = parse_cell(action, 3) {
            return self.tap(c, r);
        }
        if TURN_NAMES.contains(&action) {
            return self.turn(action);
        }
        false
    }
    fn timeout(&mut self) -> bool {
        if self.winner.is_some() {
            return false;
        }
        self.winner = Some(other(self.side));
        true
    }
    fn status(&self) -> String {
        match self.winner {
            Some(w) => format!("win {w}"),
            None => format!("ongoing {}", self.side),
        }
    }
    fn state(&self) -> String {
        format!(
            "{} {} L{} {} x={} o={}",
            self.stickers.iter().collect::<String>(),
            self.side,
            self.level,
            if self.free_used { "free" } else { "-" },
            self.counted[0],
            self.counted[1]
        )
    }
}

/// A small deterministic random source for the tests (SplitMix64).
#[derive(Clone)]
pub struct TestRng(pub u64);

impl TestRng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
