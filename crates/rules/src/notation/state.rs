//! State lines: one line per position, as in engine-protocol.md.

use std::fmt::{self, Write};
use std::str::FromStr;

use super::{ParseError, quoted};
use crate::cube::{Level, Sticker};
use crate::ultimate::{BoardState, Variant};
use crate::{Classic, Cube, Player, UltCell, Ultimate};

fn piece_char(piece: Option<Player>) -> char {
    piece.map_or('.', Player::symbol)
}

/// Splits a state line into exactly `names.len()` fields separated by single spaces.
fn fields<'a, const N: usize>(
    line: &'a str,
    game: &str,
    names: [&str; N],
) -> Result<[&'a str; N], ParseError> {
    let parts: Vec<&str> = line.split(' ').collect();
    <[&str; N]>::try_from(parts).map_err(|parts| {
        ParseError::new(format!(
            "a {game} state line has {N} fields separated by single spaces ({}), found {}",
            names.join(", "),
            parts.len()
        ))
    })
}

/// Reads a board of `len` characters from `allowed`.
fn board_chars(text: &str, len: usize, allowed: &str) -> Result<Vec<char>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != len {
        return Err(ParseError::new(format!(
            "the board must be {len} characters, found {}",
            chars.len()
        )));
    }
    match chars.iter().position(|c| !allowed.contains(*c)) {
        Some(i) => Err(ParseError::new(format!(
            "board character {} is {:?}; only {allowed:?} are allowed",
            i + 1,
            chars[i]
        ))),
        None => Ok(chars),
    }
}

fn side(text: &str) -> Result<Player, ParseError> {
    text.parse().map_err(|_| {
        ParseError::new(format!(
            "the side to move must be X or O, found {}",
            quoted(text)
        ))
    })
}

impl fmt::Display for Classic {
    /// The state line: `X..XO.X.O O`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for cell in crate::Cell::ALL {
            f.write_char(piece_char(self.piece(cell)))?;
        }
        write!(f, " {}", self.side_to_move())
    }
}

impl FromStr for Classic {
    type Err = ParseError;
    fn from_str(line: &str) -> Result<Classic, ParseError> {
        let [board, side_text] = fields(line, "classic", ["9 cells", "side to move"])?;
        let chars = board_chars(board, 9, ".XO")?;
        let mask = |symbol| {
            chars
                .iter()
                .enumerate()
                .fold(0u16, |m, (i, &c)| m | u16::from(c == symbol) << i)
        };
        let position = Classic::from_parts(mask('X'), mask('O'), side(side_text)?)
            .ok_or_else(|| ParseError::new("a cell holds two pieces"))?;
        if crate::has_line(position.mask(Player::X)) && crate::has_line(position.mask(Player::O)) {
            return Err(ParseError::new(
                "both players have a line; the game ends at the first",
            ));
        }
        Ok(position)
    }
}

impl fmt::Display for Ultimate {
    /// The state line: 81 cells in reading order of the grid, the side to move, the board
    /// sent to (`1`–`9`) or `*`; on 2.0, once a side has lost a turn to the clock, the turns
    /// each has lost in a row, `x=N o=N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_line(f, false)
    }
}

impl Ultimate {
    /// The state line with 2.0's lost-turn counts even when none is lost, as a store keeps it
    /// to tell its lines from those written before the counts existed.
    pub fn state_line_with_counts(&self) -> String {
        struct Whole<'a>(&'a Ultimate);
        impl fmt::Display for Whole<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write_line(f, true)
            }
        }
        Whole(self).to_string()
    }

    fn write_line(&self, f: &mut fmt::Formatter<'_>, counts: bool) -> fmt::Result {
        for row in 0..9 {
            for col in 0..9 {
                let cell = UltCell::new(col, row).expect("in range");
                f.write_char(piece_char(self.piece(cell)))?;
            }
        }
        write!(f, " {} ", self.side_to_move())?;
        match self.sent_board() {
            Some(b) => write!(f, "{}", b + 1)?,
            None => f.write_char('*')?,
        }
        let (x, o) = (self.lost_turns(Player::X), self.lost_turns(Player::O));
        if self.variant() == Variant::V2 && (counts || x + o > 0) {
            write!(f, " x={x} o={o}")?;
        }
        Ok(())
    }
}

impl Ultimate {
    /// Reads a state line of `variant` (the line itself does not say which game it is). A
    /// 2.0 line without lost-turn counts has none lost.
    pub fn from_state_line(variant: Variant, line: &str) -> Result<Ultimate, ParseError> {
        const NAMES: [&str; 5] = [
            "81 cells",
            "side to move",
            "board sent to",
            "x=N (turns X lost in a row)",
            "o=N (turns O lost in a row)",
        ];
        let (board, side_text, sent_text, lost_turns) = match variant {
            Variant::V2 if line.split(' ').count() != 3 => {
                let [board, side_text, sent_text, x_text, o_text] = fields(line, "v2", NAMES)?;
                let lost = |text, name| -> Result<u8, ParseError> {
                    u8::try_from(counter(text, name, "turns lost in a row")?).map_err(|_| {
                        ParseError::new(format!("{name}=N: turns lost in a row are 0 to 3"))
                    })
                };
                (
                    board,
                    side_text,
                    sent_text,
                    [lost(x_text, "x")?, lost(o_text, "o")?],
                )
            }
            _ => {
                let [board, side_text, sent_text] =
                    fields(line, "super", [NAMES[0], NAMES[1], NAMES[2]])?;
                (board, side_text, sent_text, [0, 0])
            }
        };
        let chars = board_chars(board, 81, ".XO")?;
        let (mut x, mut o) = (0u128, 0u128);
        for (i, &c) in chars.iter().enumerate() {
            let bit = 1u128 << UltCell::new(i % 9, i / 9).expect("in range").index();
            match c {
                'X' => x |= bit,
                'O' => o |= bit,
                _ => {}
            }
        }
        let sent = match sent_text.as_bytes() {
            b"*" => None,
            &[d @ b'1'..=b'9'] => Some((d - b'1') as usize),
            _ => {
                return Err(ParseError::new(format!(
                    "the board sent to must be 1–9 or *, found {}",
                    quoted(sent_text)
                )));
            }
        };
        Ultimate::from_parts(variant, x, o, side(side_text)?, sent, lost_turns)
            .map_err(ParseError::new)
    }

    /// A short picture of the big board for people: `X`, `O`, `=` (drawn) or `.` per board.
    pub fn big_board(&self) -> String {
        (0..9)
            .map(|b| match self.board(b) {
                BoardState::Open => '.',
                BoardState::Won(p) => p.symbol(),
                BoardState::Drawn => '=',
            })
            .collect()
    }
}

fn sticker_char(s: Sticker) -> char {
    match s {
        Sticker::Blank => '.',
        Sticker::Spent => '*',
        Sticker::Mark(p) => p.symbol(),
    }
}

impl fmt::Display for Cube {
    /// The state line: 54 stickers in facelet order, side to move, `L1`/`L2`, `free`/`-`,
    /// `x=N o=N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..54 {
            f.write_char(sticker_char(self.sticker(i)))?;
        }
        write!(
            f,
            " {} L{} {} x={} o={}",
            self.side_to_move(),
            self.level().number(),
            if self.free_turn_made() { "free" } else { "-" },
            self.counted_turns(Player::X),
            self.counted_turns(Player::O)
        )
    }
}

fn counter(text: &str, name: &str, meaning: &str) -> Result<u32, ParseError> {
    text.strip_prefix(name)
        .and_then(|rest| rest.strip_prefix('='))
        // One spelling per number, so that a line reads back to itself.
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .filter(|n| *n == "0" || !n.starts_with('0'))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            ParseError::new(format!(
                "expected {name}=N ({meaning}), found {}",
                quoted(text)
            ))
        })
}

impl FromStr for Cube {
    type Err = ParseError;
    fn from_str(line: &str) -> Result<Cube, ParseError> {
        let [board, side_text, level_text, free_text, x_text, o_text] = fields(
            line,
            "cube",
            [
                "54 stickers",
                "side to move",
                "level",
                "free turn",
                "x=N",
                "o=N",
            ],
        )?;
        let chars = board_chars(board, 54, ".*XO")?;
        let mut stickers = [Sticker::Blank; 54];
        for (s, c) in stickers.iter_mut().zip(chars) {
            *s = match c {
                '*' => Sticker::Spent,
                'X' => Sticker::Mark(Player::X),
                'O' => Sticker::Mark(Player::O),
                _ => Sticker::Blank,
            };
        }
        let level = match level_text {
            "L1" => Level::One,
            "L2" => Level::Two,
            _ => {
                return Err(ParseError::new(format!(
                    "the level must be L1 or L2, found {}",
                    quoted(level_text)
                )));
            }
        };
        let free = match free_text {
            "free" => true,
            "-" => false,
            _ => {
                return Err(ParseError::new(format!(
                    "the free-turn field must be `free` or `-`, found {}",
                    quoted(free_text)
                )));
            }
        };
        let counted = [
            counter(x_text, "x", "counted turns")?,
            counter(o_text, "o", "counted turns")?,
        ];
        Cube::from_parts(&stickers, side(side_text)?, level, free, counted).map_err(ParseError::new)
    }
}
