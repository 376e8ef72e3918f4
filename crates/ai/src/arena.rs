//! Games between two opponents, for the tests and the strength table.

use velha_rules::{Player, Position, Status};

use crate::{Greedy, Limits, Opponent, RandomPlayer, Rng};

/// One side of a game: who plays and how long it may think.
pub struct Seat<'a, P: Position> {
    /// The opponent in this seat.
    pub player: &'a mut dyn Opponent<P>,
    /// Its limits per decision.
    pub limits: Limits,
}

/// Plays one game from `start`, X's seat against O's, for at most `max_actions` actions.
/// Returns the final status (still `Ongoing` if the cap was reached).
pub fn play_game<'a, P: Position>(
    start: P,
    x: Seat<'a, P>,
    o: Seat<'a, P>,
    rng: &mut Rng,
    max_actions: usize,
) -> Status {
    let (mut x, mut o) = (x, o);
    let mut position = start;
    for _ in 0..max_actions {
        let Status::Ongoing(side) = position.status() else {
            break;
        };
        let seat = if side == Player::X { &mut x } else { &mut o };
        let action = seat
            .player
            .choose(&position, seat.limits, rng)
            .expect("an ongoing game has a move");
        position.play(action).expect("opponents play legal actions");
    }
    position.status()
}

/// Results of a match, from the first opponent's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchScore {
    /// Games the first opponent won.
    pub wins: u32,
    /// Drawn games, and games stopped at the action cap.
    pub draws: u32,
    /// Games the first opponent lost.
    pub losses: u32,
}

impl MatchScore {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Share of games won, 0–1.
    pub fn win_rate(&self) -> f64 {
        f64::from(self.wins) / f64::from(self.games().max(1))
    }
}

/// Plays `games` games between `a` and `b`, alternating who is X, from `start`, seeded by
/// `seed`; each game gets its own random stream.
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
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(u64::from(game)));
        let a_is_x = game % 2 == 0;
        let a_seat = Seat {
            player: &mut *a.player,
            limits: a.limits,
        };
        let b_seat = Seat {
            player: &mut *b.player,
            limits: b.limits,
        };
        let (x, o) = if a_is_x {
            (a_seat, b_seat)
        } else {
            (b_seat, a_seat)
        };
        let a_side = if a_is_x { Player::X } else { Player::O };
        match play_game(start, x, o, &mut rng, max_actions) {
            Status::Win(p) if p == a_side => score.wins += 1,
            Status::Win(_) => score.losses += 1,
            _ => score.draws += 1,
        }
    }
    score
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
