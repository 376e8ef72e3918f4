//! Games between two opponents, for the tests and the strength table.

use velha_rules::{Match, Player, Position, Status};

use crate::{Greedy, Limits, Opponent, RandomPlayer, Rng};

/// One side of a game: who plays and how long it may think.
pub struct Seat<'a, P: Position> {
    /// The opponent in this seat.
    pub player: &'a mut dyn Opponent<P>,
    /// Its limits per decision.
    pub limits: Limits,
}

/// Plays one game from `start`, X's seat against O's, for at most `max_actions` actions; each
/// seat sees the game so far ([`Opponent::choose_in_game`]). Returns the final status (still
/// `Ongoing` if the cap was reached).
pub fn play_game<'a, P: Position>(
    start: P,
    x: Seat<'a, P>,
    o: Seat<'a, P>,
    rng: &mut Rng,
    max_actions: usize,
) -> Status {
    let (mut x, mut o) = (x, o);
    let mut game = Match::new(start, None, 0);
    for _ in 0..max_actions {
        let Some(side) = game.to_move() else {
            break;
        };
        let seat = if side == Player::X { &mut x } else { &mut o };
        let action = seat
            .player
            .choose_in_game(game.earlier(), game.position(), seat.limits, rng)
            .expect("an ongoing game has a move");
        game.act(side, action, 0)
            .expect("opponents play legal actions");
    }
    game.position().status()
}

/// Results of a match, from the first opponent's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchScore {
    /// Games the first opponent won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games stopped at the action cap with no result.
    pub unfinished: u32,
    /// Games the first opponent lost.
    pub losses: u32,
}

impl MatchScore {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.unfinished + self.losses
    }

    /// Share of games won, 0–1.
    pub fn win_rate(&self) -> f64 {
        f64::from(self.wins) / f64::from(self.games().max(1))
    }

    /// The first opponent's score, 0–1: a win is 1, a draw or an unfinished game ½.
    pub fn score(&self) -> f64 {
        (f64::from(self.wins) + 0.5 * f64::from(self.draws + self.unfinished))
            / f64::from(self.games().max(1))
    }

    /// Share of games stopped at the cap, 0–1.
    pub fn unfinished_rate(&self) -> f64 {
        f64::from(self.unfinished) / f64::from(self.games().max(1))
    }

    /// The Elo difference this score implies, and the half-width of its 95% interval (from
    /// the games' spread of results, draws and unfinished games counted as ½). `None` at 0%
    /// or 100%, where the difference is unbounded.
    pub fn elo(&self) -> Option<(f64, f64)> {
        let n = f64::from(self.games());
        let s = self.score();
        if n < 2.0 || s <= 0.0 || s >= 1.0 {
            return None;
        }
        let halves = f64::from(self.draws + self.unfinished) / n;
        let wins = f64::from(self.wins) / n;
        let variance = (wins * (1.0 - s).powi(2)
            + halves * (0.5 - s).powi(2)
            + (1.0 - wins - halves) * s.powi(2))
            / n;
        let elo = |p: f64| -400.0 * (1.0 / p.clamp(1e-9, 1.0 - 1e-9) - 1.0).log10();
        let spread = 1.96 * variance.sqrt();
        Some((elo(s), (elo(s + spread) - elo(s - spread)) / 2.0))
    }
}

impl std::ops::Add for MatchScore {
    type Output = MatchScore;

    /// The two matches' games together.
    fn add(self, other: MatchScore) -> MatchScore {
        MatchScore {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            unfinished: self.unfinished + other.unfinished,
            losses: self.losses + other.losses,
        }
    }
}

impl std::ops::AddAssign for MatchScore {
    fn add_assign(&mut self, other: MatchScore) {
        *self = *self + other;
    }
}

/// Plays `games` games between `a` and `b`, alternating who is X, from `start`, seeded by
/// `seed`; each game gets its own random stream. The opponents keep what they learn (their
/// tables) from game to game.
pub fn play_match<P: Position>(
    start: P,
    a: Seat<'_, P>,
    b: Seat<'_, P>,
    games: u32,
    seed: u64,
    max_actions: usize,
) -> MatchScore {
    let mut score = MatchScore::default();
    for game in 0..games {
        let a_seat = Seat {
            player: &mut *a.player,
            limits: a.limits,
        };
        let b_seat = Seat {
            player: &mut *b.player,
            limits: b.limits,
        };
        score += play_numbered(start, a_seat, b_seat, game, seed, max_actions);
    }
    score
}

/// Random actions before each pair of games when measuring the Velha ([`random_opening`]).
/// From the first position alone, level 1 measures mostly who plays X: in sampled games
/// between 256 k and 64 k nodes, X won every decided game whatever its budget.
pub const OPENING: usize = 8;

/// `plies` random actions from `start` that do not end the game: an opening both games of a
/// pair start from, so a match measures play from many positions, not only from the first.
pub fn random_opening<P: Position>(start: P, plies: usize, rng: &mut Rng) -> P {
    'again: loop {
        let mut position = start;
        for _ in 0..plies {
            let action = RandomPlayer
                .choose(&position, Limits::work(1), rng)
                .expect("an ongoing game has a move");
            position.play(action).expect("a legal action");
            if position.status().is_over() {
                continue 'again;
            }
        }
        return position;
    }
}

/// Game number `game` of a match: `a` is X in even games; the random stream is the game's own.
fn play_numbered<'a, P: Position>(
    start: P,
    a: Seat<'a, P>,
    b: Seat<'a, P>,
    game: u32,
    seed: u64,
    max_actions: usize,
) -> MatchScore {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(u64::from(game)));
    let (a_side, status) = if game.is_multiple_of(2) {
        (Player::X, play_game(start, a, b, &mut rng, max_actions))
    } else {
        (Player::O, play_game(start, b, a, &mut rng, max_actions))
    };
    let mut score = MatchScore::default();
    match status {
        Status::Win(p) if p == a_side => score.wins += 1,
        Status::Win(_) => score.losses += 1,
        Status::Draw => score.draws += 1,
        Status::Ongoing(_) => score.unfinished += 1,
    }
    score
}

/// Two opponents to be made afresh for every game, each with its limits.
pub struct Fresh<A, B> {
    /// Random actions before each pair of games ([`random_opening`]): games `2k` and `2k+1`
    /// start from the same opening, each opponent playing X in one of them.
    pub opening: usize,
    /// Makes the first opponent.
    pub a: A,
    /// The first opponent's limits per decision.
    pub a_limits: Limits,
    /// Makes the second opponent.
    pub b: B,
    /// The second opponent's limits per decision.
    pub b_limits: Limits,
}

/// [`play_match`] with new opponents for every game, each pair of games from its own opening,
/// spread over `threads` threads (for the benchmarks and tuning, never in the app). Nothing
/// carries from game to game, so the result is the same for any thread count.
pub fn play_match_fresh<P, A, B, MakeA, MakeB>(
    start: P,
    pair: &Fresh<MakeA, MakeB>,
    games: u32,
    seed: u64,
    max_actions: usize,
    threads: u32,
) -> MatchScore
where
    P: Position + Send + Sync,
    A: Opponent<P>,
    B: Opponent<P>,
    MakeA: Fn() -> A + Sync,
    MakeB: Fn() -> B + Sync,
{
    let threads = threads.clamp(1, games.max(1));
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut score = MatchScore::default();
                    for game in (t..games).step_by(threads as usize) {
                        let (mut a, mut b) = ((pair.a)(), (pair.b)());
                        let a_seat = Seat {
                            player: &mut a,
                            limits: pair.a_limits,
                        };
                        let b_seat = Seat {
                            player: &mut b,
                            limits: pair.b_limits,
                        };
                        let mut openings = Rng::new(seed ^ 0x6f70_656e ^ u64::from(game / 2));
                        let from = random_opening(start, pair.opening, &mut openings);
                        score += play_numbered(from, a_seat, b_seat, game, seed, max_actions);
                    }
                    score
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a game thread panicked"))
            .fold(MatchScore::default(), |sum, s| sum + s)
    })
}

/// Positions met in games where each action is, by a coin toss, a greedy or a random one:
/// varied, with threats, and the same for the same seed. Benchmarks and tests draw their
/// positions from here.
pub fn sample_positions<P: Position>(start: P, count: usize, seed: u64) -> Vec<P> {
    let mut rng = Rng::new(seed);
    let mut found = Vec::with_capacity(count);
    let mut position = start;
    while found.len() < count {
        if position.status().is_over() {
            position = start;
        }
        found.push(position);
        let action = if rng.chance(1, 2) {
            Greedy.choose(&position, Limits::work(1), &mut rng)
        } else {
            RandomPlayer.choose(&position, Limits::work(1), &mut rng)
        };
        position
            .play(action.expect("an ongoing game has a move"))
            .expect("opponents play legal actions");
    }
    found
}

#[cfg(test)]
mod tests {
    use super::MatchScore;

    #[test]
    fn elo_follows_the_logistic_curve_and_its_interval_narrows_with_games() {
        let score = |wins, unfinished, losses| MatchScore {
            wins,
            draws: 0,
            unfinished,
            losses,
        };
        let (elo, err) = score(75, 0, 25).elo().unwrap();
        assert!((elo - 190.8).abs() < 0.5, "{elo}");
        let (elo4, err4) = score(300, 0, 100).elo().unwrap();
        assert!((elo4 - elo).abs() < 1e-9);
        assert!((err / err4 - 2.0).abs() < 0.1, "{err} {err4}");
        assert_eq!(score(10, 20, 10).elo().unwrap().0, 0.0);
        assert!((score(10, 20, 10).score() - 0.5).abs() < 1e-12);
        assert_eq!(score(10, 0, 0).elo(), None);
    }
}
