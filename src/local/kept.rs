//! The local games kept on the device, so that a reload, the back button or a closed app never
//! throws a game away: a session writes itself as lines of text after every change and is read
//! back when its screen opens again. Positions are written as the numbers the rules build them
//! from, and checked as they are read: the engine protocol's state lines would do, but their
//! parsers, with their explanations for people, cost the first download 5 KB. Whatever is
//! damaged, or from another version, reads as no game kept.

use std::fmt::{Display, Write};
use std::str::FromStr;

use velha_rules::game::Clock;
use velha_rules::{Match, Position};

/// Says which format the lines are in: a later one changes it, and older lines are dropped.
const FORMAT: &str = "kept 1";

/// Where a session is kept on the device.
pub fn key(game: &str) -> String {
    format!("cubo-da-velha.game.{game}")
}

/// Where the device keeps the hints the game on the board of `game`'s screen used.
pub fn hints_key(game: &str) -> String {
    format!("cubo-da-velha.game.{game}.hints")
}

/// A position as a kept session writes it: one line of numbers, which its session's reader
/// parses back; beside a game, a hint is kept with the line of the position it was asked in.
pub trait KeptLine {
    fn line(&self) -> String;
}

/// The lines of a kept session, written field after field.
pub struct Writer(String);

impl Writer {
    /// A session of `game`.
    pub fn new(game: &str) -> Writer {
        Writer(format!("{FORMAT} {game}\n"))
    }

    /// The line `name value`.
    pub fn field(&mut self, name: &str, value: impl Display) -> &mut Writer {
        let _ = writeln!(self.0, "{name} {value}");
        self
    }

    /// A flag, as `0` or `1`.
    pub fn flag(&mut self, name: &str, value: bool) -> &mut Writer {
        self.field(name, u8::from(value))
    }

    /// The match: its ply, its clock's deadline, its earlier positions and its position, each
    /// written by `line`.
    pub fn game<P: Position>(&mut self, game: &Match<P>, line: fn(&P) -> String) -> &mut Writer {
        self.field("ply", game.ply());
        match game.deadline() {
            Some(deadline) => self.field("deadline", deadline),
            None => self.field("deadline", "-"),
        };
        for earlier in game.earlier() {
            self.field("was", line(earlier));
        }
        self.field("now", line(game.position()))
    }

    /// The text to keep.
    pub fn into_text(self) -> String {
        self.0
    }
}

/// The lines of a kept session, read field after field in the order they were written.
pub struct Reader<'a>(std::str::Lines<'a>);

impl<'a> Reader<'a> {
    /// The fields of `text`, if it is a session of `game` in this format.
    pub fn new(text: &'a str, game: &str) -> Option<Reader<'a>> {
        let mut lines = text.lines();
        let first = lines.next()?;
        (first.strip_prefix(FORMAT)?.strip_prefix(' ')? == game).then_some(Reader(lines))
    }

    /// The value of the next line, which must be `name`'s.
    pub fn field(&mut self, name: &str) -> Option<&'a str> {
        self.0.next()?.strip_prefix(name)?.strip_prefix(' ')
    }

    /// A number or another value with a text form.
    pub fn parsed<T: FromStr>(&mut self, name: &str) -> Option<T> {
        self.field(name)?.parse().ok()
    }

    /// A flag written by [`Writer::flag`].
    pub fn flag(&mut self, name: &str) -> Option<bool> {
        match self.field(name)? {
            "0" => Some(false),
            "1" => Some(true),
            _ => None,
        }
    }

    /// The match written by [`Writer::game`], with `clock`, its positions read by `parse`.
    pub fn game<P: Position>(
        &mut self,
        clock: Option<Clock>,
        parse: impl Fn(&str) -> Option<P>,
    ) -> Option<Match<P>> {
        let ply = self.parsed("ply")?;
        let deadline = match self.field("deadline")? {
            "-" => None,
            d => Some(d.parse().ok()?),
        };
        let mut earlier = Vec::new();
        loop {
            let line = self.0.next()?;
            if let Some(position) = line.strip_prefix("was ") {
                earlier.push(parse(position)?);
            } else {
                let position = parse(line.strip_prefix("now ")?)?;
                return Some(Match::resume(position, ply, clock, deadline).with_earlier(earlier));
            }
        }
    }

    /// Whether every line was read: a session with lines left over is not one of ours.
    pub fn done(mut self) -> bool {
        self.0.next().is_none()
    }
}

/// The `N` numbers of a position's line, space apart.
pub fn numbers<const N: usize>(line: &str) -> Option<[u64; N]> {
    let mut all = [0; N];
    let mut words = line.split(' ');
    for n in &mut all {
        *n = words.next()?.parse().ok()?;
    }
    words.next().is_none().then_some(all)
}

/// A player kept as its index.
pub fn player(n: u64) -> Option<velha_rules::Player> {
    match n {
        0 => Some(velha_rules::Player::X),
        1 => Some(velha_rules::Player::O),
        _ => None,
    }
}
