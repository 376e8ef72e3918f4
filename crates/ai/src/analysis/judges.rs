//! The judges of each game (ANA-04, ANA-05, ANA-06).

use velha_rules::{Cell, Classic, Cube, Ultimate};
use web_time::Duration;

use super::{Estimate, Exact, Judge};
use crate::{
    Character, Deliberate, Difficulty, Limits, MATE_BOUND, Rng, Thought, UltimateAi, Velha,
    VelhaStats,
};

/// Playouts of the hard opponent's search per position of Super or 2.0 (ANA-05): about a
/// tenth of a second per position on a phone's browser.
pub const ULTIMATE_PLAYOUTS: u64 = 8_000;

/// How much the hard opponent's mean playout result is stretched into a winning chance
/// (ANA-05): uniformly random playouts make every position look closer to even than it is
/// between good players. Fitted to its own games at [`ULTIMATE_PLAYOUTS`]
/// (`velha-ai-analysis calibrate-ultimate --games 80`: 1.86 for Super, 1.96 for 2.0).
pub const ULTIMATE_STRETCH: f32 = 1.9;

/// Nodes of the Velha's search per position of the cube (ANA-06).
pub const CUBE_NODES: u64 = 64_000;

/// The Velha's score (see [`cube_score`]) that means a winning chance of 1/(1 + e⁻¹) ≈ 73 %
/// (ANA-06), fitted to her own games at [`CUBE_NODES`] (`velha-ai-analysis calibrate-cube
/// --games 200`: 7 683 positions of 102 finished games; each range of scores within 3.6
/// points of its results).
pub const CUBE_SCALE: f32 = 40.0;

/// The classic game, exactly: every position is solved (ANA-04).
#[derive(Debug, Default)]
pub struct ClassicJudge {
    ready: Option<Estimate>,
}

impl Judge<Classic> for ClassicJudge {
    fn begin(&mut self, _earlier: &[Classic], position: &Classic) {
        let exact = solved(position);
        self.ready = Some(Estimate {
            chance: exact.chance(),
            best: classic_hint(position)
                .map(|c| vec![c.to_string()])
                .unwrap_or_default(),
            exact: Some(exact),
        });
    }

    fn judge(&mut self, _slice: Duration) -> Option<Estimate> {
        self.ready.take()
    }
}

/// The classic game's best move, as a hint (ANA-10): the analysis's best move.
pub fn classic_hint(position: &Classic) -> Option<Cell> {
    Character::quelonia_candidates(position).first().copied()
}

/// The exact value of a classic position for its side to move, with the distance in moves.
pub fn solved(position: &Classic) -> Exact {
    let v = crate::classic::value(position);
    let empty = crate::classic::empty_cells(position);
    // A value counts the cells left empty at the end, plus one.
    let moves = |v: i8| (empty - (v.abs() - 1)) as u8;
    match v {
        0 => Exact::Draw,
        v if v > 0 => Exact::Win(moves(v)),
        v => Exact::Loss(moves(v)),
    }
}

/// Super and 2.0: the hard opponent's search at a fixed number of playouts; its chosen move's
/// mean result is the winning chance (ANA-05).
#[derive(Debug)]
pub struct UltimateJudge {
    ai: UltimateAi,
    rng: Rng,
    playouts: u64,
}

impl UltimateJudge {
    /// A judge searching `playouts` per position ([`ULTIMATE_PLAYOUTS`] in the app), drawing
    /// its randomness from `seed`: the same game gets the same analysis.
    pub fn new(playouts: u64, seed: u64) -> UltimateJudge {
        UltimateJudge {
            ai: UltimateAi::new(Difficulty::Hard),
            rng: Rng::new(seed),
            playouts,
        }
    }
}

impl Judge<Ultimate> for UltimateJudge {
    fn begin(&mut self, _earlier: &[Ultimate], position: &Ultimate) {
        self.ai.start_judging(position, Limits::work(self.playouts));
    }

    fn judge(&mut self, slice: Duration) -> Option<Estimate> {
        match self.ai.think(slice, &mut self.rng) {
            Thought::Thinking => None,
            Thought::Decided(cell) => Some(Estimate {
                chance: ultimate_chance(self.ai.last_chance.unwrap_or(0.5)),
                best: cell.map(|c| vec![c.to_string()]).unwrap_or_default(),
                exact: None,
            }),
        }
    }
}

/// The winning chance a mean playout result of the hard opponent's search means: the result
/// stretched on the logistic scale by [`ULTIMATE_STRETCH`]; a sure result stays sure.
pub fn ultimate_chance(mean: f32) -> f32 {
    if mean <= 0.0 || mean >= 1.0 {
        return mean.clamp(0.0, 1.0);
    }
    let logit = (mean / (1.0 - mean)).ln();
    1.0 / (1.0 + (-ULTIMATE_STRETCH * logit).exp())
}

/// The cube: the Velha's search at a fixed number of nodes, her score turned into a winning
/// chance (ANA-06).
pub struct CubeJudge {
    velha: Velha,
    rng: Rng,
    nodes: u64,
}

impl CubeJudge {
    /// A judge searching `nodes` per position ([`CUBE_NODES`] in the app), her choices among
    /// equal moves drawn from `seed`.
    pub fn new(nodes: u64, seed: u64) -> CubeJudge {
        CubeJudge {
            velha: Velha::new(),
            rng: Rng::new(seed),
            nodes,
        }
    }
}

/// What the Velha's last search says a position is worth to its side to move: the mean of
/// her last two depths (an odd depth ends on the side to move's turn and flatters it, an even
/// one the other way), a forced result as found.
pub fn cube_score(stats: &VelhaStats) -> i32 {
    match stats.shallower {
        Some(shallower) if stats.score.abs() < MATE_BOUND && shallower.abs() < MATE_BOUND => {
            (stats.score + shallower) / 2
        }
        _ => stats.score,
    }
}

/// The winning chance a score of the Velha's means for the side it is for.
pub fn cube_chance(score: i32) -> f32 {
    if score >= MATE_BOUND {
        1.0
    } else if score <= -MATE_BOUND {
        0.0
    } else {
        1.0 / (1.0 + (-(score as f32) / CUBE_SCALE).exp())
    }
}

impl Judge<Cube> for CubeJudge {
    fn begin(&mut self, earlier: &[Cube], position: &Cube) {
        self.velha
            .start(earlier, position, Limits::work(self.nodes), &mut self.rng);
    }

    fn judge(&mut self, slice: Duration) -> Option<Estimate> {
        match self.velha.think(slice, &mut self.rng) {
            Thought::Thinking => None,
            Thought::Decided(action) => {
                let stats = self.velha.stats;
                Some(Estimate {
                    chance: cube_chance(cube_score(&stats)),
                    best: action
                        .into_iter()
                        .chain(stats.then)
                        .map(|a| a.to_string())
                        .collect(),
                    exact: None,
                })
            }
        }
    }
}
