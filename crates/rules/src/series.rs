//! A series of games between the same two sides: who starts each game, which symbol each side
//! plays, and the running score.

use serde::{Deserialize, Serialize};

use crate::{Player, Status};

/// Wins, draws and losses of one side of a series (CLASSIC-R07's "vitórias, velhas,
/// derrotas").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SeriesScore {
    /// Games won.
    pub wins: u32,
    /// Games drawn ("velhas").
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

/// A series of games. The right to start alternates every game (CLASSIC-R05, SUPER-R05); in
/// 2.0 X always starts, so there the sides swap symbols instead (V2-R08). The score is kept
/// for one side, whatever symbol it plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Series {
    first_starter: Player,
    /// Series stored before V2-R08 read as not swapping: their games keep the symbols they
    /// were begun with.
    #[serde(default)]
    swaps: bool,
    games: u32,
    side: Player,
    score: SeriesScore,
}

impl Series {
    /// A series whose first game `first_starter` starts (X in the classic game; the coin
    /// toss in Super), scored for `side` (the person against the computer), who plays the
    /// same symbol every game.
    pub const fn new(first_starter: Player, side: Player) -> Series {
        Series {
            first_starter,
            swaps: false,
            games: 0,
            side,
            score: SeriesScore {
                wins: 0,
                draws: 0,
                losses: 0,
            },
        }
    }

    /// A 2.0 series (V2-R08): X starts every game and the sides swap symbols each game, so
    /// the side whose turn it is to start plays X. Scored for `side`, the symbol that side
    /// plays in the first game.
    pub const fn swapping(side: Player) -> Series {
        let mut series = Series::new(Player::X, side);
        series.swaps = true;
        series
    }

    /// Who starts game `game` (0 for the first).
    pub const fn starter_of(&self, game: u32) -> Player {
        if self.swaps || game.is_multiple_of(2) {
            self.first_starter
        } else {
            self.first_starter.opponent()
        }
    }

    /// The symbol the scored side plays in game `game` (0 for the first).
    pub const fn side_in(&self, game: u32) -> Player {
        if self.swaps && !game.is_multiple_of(2) {
            self.side.opponent()
        } else {
            self.side
        }
    }

    /// Who starts the next game.
    pub const fn next_starter(&self) -> Player {
        self.starter_of(self.games)
    }

    /// The symbol the scored side plays in the next game.
    pub const fn next_side(&self) -> Player {
        self.side_in(self.games)
    }

    /// Games finished so far.
    pub const fn games_played(&self) -> u32 {
        self.games
    }

    /// The score of the side the series is kept for.
    pub const fn score(&self) -> SeriesScore {
        self.score
    }

    /// The series as one line, `first-starter swaps games side wins draws losses`, as a device
    /// keeps it between visits; [`Series::from_line`] reads it back.
    pub fn line(&self) -> String {
        let s = self.score;
        format!(
            "{} {} {} {} {} {} {}",
            self.first_starter,
            u8::from(self.swaps),
            self.games,
            self.side,
            s.wins,
            s.draws,
            s.losses
        )
    }

    /// A series written by [`Series::line`]; `None` for anything else.
    pub fn from_line(line: &str) -> Option<Series> {
        // By hand, not `Player`'s parser: its explanations for people would come along into
        // the app's first download, which reads a kept series before anything else.
        let player = |text: Option<&str>| match text? {
            "X" => Some(Player::X),
            "O" => Some(Player::O),
            _ => None,
        };
        let mut fields = line.split(' ');
        let mut next = || fields.next();
        let first_starter = player(next())?;
        let swaps = match next()? {
            "0" => false,
            "1" => true,
            _ => return None,
        };
        let games = next()?.parse().ok()?;
        let side = player(next())?;
        let score = SeriesScore {
            wins: next()?.parse().ok()?,
            draws: next()?.parse().ok()?,
            losses: next()?.parse().ok()?,
        };
        let series = Series {
            first_starter,
            swaps,
            games,
            side,
            score,
        };
        let counted = u64::from(score.wins) + u64::from(score.draws) + u64::from(score.losses);
        (next().is_none() && counted == u64::from(games)).then_some(series)
    }

    /// Records a finished game, the one [`Series::next_side`] named the side's symbol for.
    /// Returns `false` and records nothing for a game still going on.
    pub fn record(&mut self, result: Status) -> bool {
        match result {
            Status::Ongoing(_) => return false,
            Status::Draw => self.score.draws += 1,
            Status::Win(p) if p == self.next_side() => self.score.wins += 1,
            Status::Win(_) => self.score.losses += 1,
        }
        self.games += 1;
        true
    }
}
