//! The post-game analysis on the player's device (ANA-08): a finished game turned into what
//! `velha_ai::analysis` judges, judged in slices between frames, and kept on the device once
//! done. The server spends nothing on it.

pub mod cache;
pub mod texts;

use std::time::Duration;

use velha_ai::analysis::{
    Analysis, Analyst, CUBE_NODES, ClassicJudge, CubeJudge, Game, ULTIMATE_PLAYOUTS, UltimateJudge,
};
use velha_rules::{Classic, Cube, Ultimate};

/// A finished game of one of the four games, as the analysis takes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    /// Jogo da Velha: solved, judged exactly.
    Classic(Game<Classic>),
    /// Super Jogo da Velha or 2.0.
    Ultimate(Game<Ultimate>),
    /// Cubo da Velha.
    Cube(Game<Cube>),
}

impl Record {
    /// Whether its analysis is exact rather than an estimate.
    pub fn exact(&self) -> bool {
        matches!(self, Record::Classic(_))
    }

    /// How many moves it has.
    pub fn moves(&self) -> usize {
        match self {
            Record::Classic(g) => g.played.len(),
            Record::Ultimate(g) => g.played.len(),
            Record::Cube(g) => g.played.len(),
        }
    }

    /// The game, if it is Jogo da Velha.
    pub fn classic(&self) -> Option<&Game<Classic>> {
        match self {
            Record::Classic(g) => Some(g),
            _ => None,
        }
    }

    /// The game, if it is Super or 2.0.
    pub fn ultimate(&self) -> Option<&Game<Ultimate>> {
        match self {
            Record::Ultimate(g) => Some(g),
            _ => None,
        }
    }

    /// The game, if it is the cube.
    pub fn cube(&self) -> Option<&Game<Cube>> {
        match self {
            Record::Cube(g) => Some(g),
            _ => None,
        }
    }

    /// Starts analysing it; `None` when the game does not hold together.
    pub fn analyst(&self) -> Option<Running> {
        // A fixed seed: the same game gets the same analysis on every device, and again.
        const SEED: u64 = 0x5EED;
        Some(match self {
            Record::Classic(g) => {
                Running::Classic(Analyst::new(ClassicJudge::default(), g.clone()).ok()?)
            }
            Record::Ultimate(g) => Running::Ultimate(
                Analyst::new(UltimateJudge::new(ULTIMATE_PLAYOUTS, SEED), g.clone()).ok()?,
            ),
            Record::Cube(g) => {
                Running::Cube(Analyst::new(CubeJudge::new(CUBE_NODES, SEED), g.clone()).ok()?)
            }
        })
    }
}

/// An analysis under way.
pub enum Running {
    Classic(Analyst<Classic, ClassicJudge>),
    Ultimate(Analyst<Ultimate, UltimateJudge>),
    Cube(Analyst<Cube, CubeJudge>),
}

impl Running {
    /// Works for about `slice`; the analysis once done.
    pub fn step(&mut self, slice: Duration) -> Option<Analysis> {
        match self {
            Running::Classic(a) => a.step(slice),
            Running::Ultimate(a) => a.step(slice),
            Running::Cube(a) => a.step(slice),
        }
    }

    /// Positions judged, and how many there are.
    pub fn progress(&self) -> (usize, usize) {
        match self {
            Running::Classic(a) => a.progress(),
            Running::Ultimate(a) => a.progress(),
            Running::Cube(a) => a.progress(),
        }
    }
}
