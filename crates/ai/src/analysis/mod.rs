//! Post-game analysis (docs/rules/analysis.md, ANA-…): every move of a finished game judged by
//! what the mover's winning chance was before it and became after it.
//!
//! An [`Analyst`] walks the game's positions and asks a [`Judge`] what each is worth to the
//! side to move: the classic game exactly ([`ClassicJudge`], from the solved game), Super and
//! 2.0 by the hard opponent's search ([`UltimateJudge`]), the cube by the Velha's
//! ([`CubeJudge`]), each at a fixed work budget, so an analysis is the same on every device.
//! It works in slices like [`crate::Deliberate`], so a screen draws between them.

mod game;
mod judges;

pub use game::Game;

pub use judges::{
    CUBE_NODES, CUBE_SCALE, ClassicJudge, CubeJudge, ULTIMATE_PLAYOUTS, ULTIMATE_STRETCH,
    UltimateJudge, classic_hint, cube_chance, cube_score, solved, ultimate_chance,
};

use velha_rules::{Player, Position, Status};
use web_time::Duration;

/// A drop of the mover's winning chance of at least this is an inaccuracy (ANA-03).
pub const INACCURACY: f32 = 0.10;
/// … a mistake.
pub const MISTAKE: f32 = 0.20;
/// … a blunder.
pub const BLUNDER: f32 = 0.30;
/// The game is decided once the eventual winner's chance stays at least this (ANA-07).
pub const DECIDED: f32 = 0.90;

/// What a move was (ANA-03).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// Ótima: the best move, or as good as the budget can tell.
    Best,
    /// Imprecisão.
    Inaccuracy,
    /// Erro.
    Mistake,
    /// Erro grave.
    Blunder,
}

impl Verdict {
    /// The verdict of a drop of the mover's winning chance (negative drops are gains).
    pub fn of_drop(drop: f32) -> Verdict {
        if drop >= BLUNDER {
            Verdict::Blunder
        } else if drop >= MISTAKE {
            Verdict::Mistake
        } else if drop >= INACCURACY {
            Verdict::Inaccuracy
        } else {
            Verdict::Best
        }
    }
}

/// A solved position's value for its side to move: the result with best play on both sides,
/// and in how many moves (single moves of either player) the game ends that way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exact {
    /// A win, in this many moves.
    Win(u8),
    /// A draw (velha).
    Draw,
    /// A loss, in this many moves.
    Loss(u8),
}

impl Exact {
    /// The winning chance it means: a win 1, a draw ½, a loss 0 (ANA-02).
    pub fn chance(self) -> f32 {
        match self {
            Exact::Win(_) => 1.0,
            Exact::Draw => 0.5,
            Exact::Loss(_) => 0.0,
        }
    }

    /// The same value seen by the other player.
    pub fn flip(self) -> Exact {
        match self {
            Exact::Win(n) => Exact::Loss(n),
            Exact::Draw => Exact::Draw,
            Exact::Loss(n) => Exact::Win(n),
        }
    }
}

/// What a judge says of a position for its side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The winning chance of the side to move, 0 to 1 (a draw counts ½).
    pub chance: f32,
    /// The best move, in the engine protocol's words (one action, or a cube's whole turn).
    pub best: Vec<String>,
    /// The exact value, where the game is solved.
    pub exact: Option<Exact>,
}

/// Something that can say what a position is worth, in slices of time.
pub trait Judge<P: Position> {
    /// Starts judging `position`, after the game's `earlier` positions (oldest first). It is
    /// never a position whose game is over.
    fn begin(&mut self, earlier: &[P], position: &P);

    /// Works for about `slice` more; the estimate once known.
    fn judge(&mut self, slice: Duration) -> Option<Estimate>;
}

/// One move of the game, judged (ANA-01).
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    /// Who made it.
    pub mover: Player,
    /// What the judge would have played.
    pub best: Vec<String>,
    /// The mover's winning chance before the move, with the best move.
    pub before: f32,
    /// The mover's winning chance after the move.
    pub after: f32,
    /// Exact values for the mover before and after, where the game is solved.
    pub exact: Option<(Exact, Exact)>,
    /// What the move was.
    pub verdict: Verdict,
}

/// A finished analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// X's winning chance in each position of the game, the start first (the graph's line).
    pub x_chances: Vec<f32>,
    /// Each move's review, in order; `None` for a turn lost on the clock (2.0), which is no
    /// move.
    pub reviews: Vec<Option<Review>>,
    /// The move (its index) after which the game was decided, if it was (ANA-07).
    pub decided: Option<usize>,
}

/// A position's value as the analyst keeps it: from X's side, so it needs no side to move
/// (a finished game has none).
#[derive(Clone, Debug, PartialEq)]
struct Valued {
    x_chance: f32,
    best: Vec<String>,
    x_exact: Option<Exact>,
}

impl Valued {
    fn chance_of(&self, p: Player) -> f32 {
        match p {
            Player::X => self.x_chance,
            Player::O => 1.0 - self.x_chance,
        }
    }

    fn exact_of(&self, p: Player) -> Option<Exact> {
        match p {
            Player::X => self.x_exact,
            Player::O => self.x_exact.map(Exact::flip),
        }
    }
}

/// Why a game cannot be analysed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotAnalysable {
    /// No position, or not one more position than moves.
    Shape,
    /// A move begins from a position whose game was over.
    MoveAfterTheEnd,
}

/// An analysis in progress: the game's positions judged one by one, then every move reviewed.
///
/// Where the judge only estimates, a move that was not the best one is compared with the best
/// move judged the same way: the position after each is judged for the opponent, so whatever
/// a search over- or under-rates in the side to move cancels out (a search's best move looks
/// better to it than the position after it looks to the opponent).
pub struct Analyst<P: Position, J: Judge<P>> {
    positions: Vec<P>,
    /// Each move's actions as played; `None` for a turn lost on the clock.
    played: Vec<Option<Vec<String>>>,
    winner: Option<Player>,
    judge: J,
    valued: Vec<Valued>,
    /// What each move checked so far needed besides its two positions.
    checked: Vec<Checked>,
    /// Whether the judge is working on the current job.
    judging: bool,
}

/// What a move needed besides the positions before and after it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Checked {
    /// Nothing: a solved game, a lost turn, or a move that differs from the best one in
    /// ways the positions already say.
    Nothing,
    /// The move was the best one: by its words, or by the position it led to (two turns of
    /// the cube can make the same position).
    Best,
    /// The mover's chance after the best move, judged apart.
    AfterBest(f32),
}

/// The next thing an analyst does.
enum Job<P> {
    /// Judges the next position.
    Position(usize),
    /// Judges the position after move `i`'s best move, `after`, for the mover.
    AfterBest(usize, P),
    /// Move `i` is checked: this is what it needed.
    Checked(Checked),
}

impl<P: Position, J: Judge<P>> Analyst<P, J> {
    /// An analysis of `game` by `judge`.
    pub fn new(judge: J, game: Game<P>) -> Result<Self, NotAnalysable> {
        let Game {
            positions,
            played,
            winner,
        } = game;
        if positions.is_empty() || positions.len() != played.len() + 1 {
            return Err(NotAnalysable::Shape);
        }
        if positions[..positions.len() - 1]
            .iter()
            .any(|p| p.status().is_over())
        {
            return Err(NotAnalysable::MoveAfterTheEnd);
        }
        Ok(Analyst {
            valued: Vec::with_capacity(positions.len()),
            checked: Vec::with_capacity(played.len()),
            positions,
            played,
            winner,
            judge,
            judging: false,
        })
    }

    /// Positions judged so far, and how many there are.
    pub fn progress(&self) -> (usize, usize) {
        (self.valued.len(), self.positions.len())
    }

    fn finished(&self) -> bool {
        self.valued.len() == self.positions.len() && self.checked.len() == self.played.len()
    }

    /// What to do next: every judged move is checked before the next position is judged.
    fn next_job(&self) -> Job<P> {
        let i = self.checked.len();
        if i >= self.valued.len() || i == self.played.len() {
            return Job::Position(self.valued.len());
        }
        let now = &self.valued[i];
        let Some(played) = &self.played[i] else {
            return Job::Checked(Checked::Nothing);
        };
        if played == &now.best {
            return Job::Checked(Checked::Best);
        }
        if now.x_exact.is_some() || now.best.is_empty() {
            return Job::Checked(Checked::Nothing);
        }
        let mut after = self.positions[i];
        for action in &now.best {
            let Ok(action) = action.parse::<P::Action>() else {
                return Job::Checked(Checked::Nothing);
            };
            if after.play(action).is_err() {
                return Job::Checked(Checked::Nothing);
            }
        }
        if after == self.positions[i + 1] {
            return Job::Checked(Checked::Best);
        }
        Job::AfterBest(i, after)
    }

    /// Works for about `slice` (at least one unit of work); the analysis once it is done.
    pub fn step(&mut self, slice: Duration) -> Option<Analysis> {
        let end = web_time::Instant::now().checked_add(slice);
        while !self.finished() {
            match self.next_job() {
                Job::Checked(what) => self.checked.push(what),
                Job::Position(i) => {
                    let (earlier, position) = (&self.positions[..i], &self.positions[i]);
                    let valued =
                        value_of(&mut self.judge, &mut self.judging, earlier, position, end)?;
                    self.valued.push(valued);
                }
                Job::AfterBest(i, after) => {
                    let Status::Ongoing(mover) = self.positions[i].status() else {
                        unreachable!("new() refuses moves after the end");
                    };
                    let earlier = &self.positions[..=i];
                    let valued =
                        value_of(&mut self.judge, &mut self.judging, earlier, &after, end)?;
                    self.checked
                        .push(Checked::AfterBest(valued.chance_of(mover)));
                }
            }
            if end.is_some_and(|e| web_time::Instant::now() >= e) {
                break;
            }
        }
        self.finished().then(|| self.review())
    }

    fn review(&self) -> Analysis {
        let reviews: Vec<Option<Review>> = self
            .played
            .iter()
            .enumerate()
            .map(|(i, played)| {
                played.as_ref()?;
                let Status::Ongoing(mover) = self.positions[i].status() else {
                    unreachable!("new() refuses moves after the end");
                };
                let (now, next) = (&self.valued[i], &self.valued[i + 1]);
                Some(review(mover, now, next, self.checked[i]))
            })
            .collect();
        // The move from the last position where the winner was not yet sure of it.
        let decided = self
            .winner
            .filter(|_| !self.played.is_empty())
            .and_then(
                |w| match self.valued.iter().rposition(|v| v.chance_of(w) < DECIDED) {
                    None => Some(0),
                    Some(i) if i < self.played.len() => Some(i),
                    Some(_) => None,
                },
            );
        Analysis {
            x_chances: self.valued.iter().map(|v| v.x_chance).collect(),
            reviews,
            decided,
        }
    }
}

/// The value of `position` (after the game's `earlier` positions), once `judge` has it;
/// `judging` says whether it has begun.
fn value_of<P: Position, J: Judge<P>>(
    judge: &mut J,
    judging: &mut bool,
    earlier: &[P],
    position: &P,
    end: Option<web_time::Instant>,
) -> Option<Valued> {
    Some(match position.status() {
        Status::Ongoing(side) => {
            if !*judging {
                judge.begin(earlier, position);
                *judging = true;
            }
            let left = end.map_or(Duration::MAX, |e| {
                e.saturating_duration_since(web_time::Instant::now())
            });
            let estimate = judge.judge(left)?;
            *judging = false;
            let from_x = |e: Exact| if side == Player::X { e } else { e.flip() };
            Valued {
                x_chance: if side == Player::X {
                    estimate.chance
                } else {
                    1.0 - estimate.chance
                },
                best: estimate.best,
                x_exact: estimate.exact.map(from_x),
            }
        }
        Status::Win(p) => {
            let x_exact = if p == Player::X {
                Exact::Win(0)
            } else {
                Exact::Loss(0)
            };
            Valued {
                x_chance: x_exact.chance(),
                best: Vec::new(),
                x_exact: Some(x_exact),
            }
        }
        Status::Draw => Valued {
            x_chance: 0.5,
            best: Vec::new(),
            x_exact: Some(Exact::Draw),
        },
    })
}

/// The review of `mover`'s move from a position valued `now` to one valued `next`, checked
/// as `checked` says.
fn review(mover: Player, now: &Valued, next: &Valued, checked: Checked) -> Review {
    let after = next.chance_of(mover);
    // The best move's chance is the one it led to, judged as any move is (ANA-03).
    let before = match checked {
        Checked::Best => after,
        Checked::AfterBest(chance) => chance,
        Checked::Nothing => now.chance_of(mover),
    };
    let exact = now.exact_of(mover).zip(next.exact_of(mover));
    let verdict = if checked == Checked::Best {
        Verdict::Best
    } else {
        let by_chance = Verdict::of_drop(before - after);
        match exact {
            // Same result, but further from a win or closer to a loss than the best move
            // (which takes one move off the distance): ANA-04.
            Some((Exact::Win(b), Exact::Win(a))) if a + 1 > b => by_chance.max(Verdict::Inaccuracy),
            Some((Exact::Loss(b), Exact::Loss(a))) if a + 1 < b => {
                by_chance.max(Verdict::Inaccuracy)
            }
            _ => by_chance,
        }
    };
    Review {
        mover,
        best: now.best.clone(),
        before,
        after,
        exact,
        verdict,
    }
}

#[cfg(test)]
mod tests;
