//! A series of games between the same two sides: who starts each game and the running score.

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

/// A series of games: the first is started by X, then the starter alternates every game
/// (CLASSIC-R05, SUPER-R05), and the score is kept for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Series {
    first_starter: Player,
    games: u32,
    side: Player,
    score: SeriesScore,
}

impl Series {
    /// A series whose first game `first_starter` starts (X in the classic game; the coin
    /// toss in Super), scored for `side` (the person against the computer).
    pub const fn new(first_starter: Player, side: Player) -> Series {
        Series {
            first_starter,
            games: 0,
            side,
            score: SeriesScore {
                wins: 0,
                draws: 0,
                losses: 0,
            },
        }
    }

    /// Who starts the next game.
    pub const fn next_starter(&self) -> Player {
        if self.games.is_multiple_of(2) {
            self.first_starter
        } else {
            self.first_starter.opponent()
        }
    }

    /// Games finished so far.
    pub const fn games_played(&self) -> u32 {
        self.games
    }

    /// The score of the side the series is kept for.
    pub const fn score(&self) -> SeriesScore {
        self.score
    }

    /// Records a finished game. Returns `false` and records nothing for a game still going on.
    pub fn record(&mut self, result: Status) -> bool {
        match result {
            Status::Ongoing(_) => return false,
            Status::Draw => self.score.draws += 1,
            Status::Win(p) if p == self.side => self.score.wins += 1,
            Status::Win(_) => self.score.losses += 1,
        }
        self.games += 1;
        true
    }
}
