//! CUBE-V05: the Velha plays the cube by the same rules at both levels, and plays it well.

use velha_ai::arena::{Fresh, OPENING, Seat, play_match, play_match_fresh, sample_positions};
use velha_ai::{Greedy, Limits, Opponent, RandomPlayer, Rng, Velha};
use velha_rules::{Cube, CubeAction, Level, Position, Status};

fn opponent_can_win(p: &Cube) -> bool {
    let Status::Ongoing(side) = p.status() else {
        return false;
    };
    p.legal_actions().any(|a| {
        let mut q = *p;
        q.play(a) == Ok(Status::Win(side))
    })
}

/// Every whole turn of the side to move: a main action, or a free turn then a main action.
fn whole_turns(p: &Cube) -> Vec<Cube> {
    let side = p.side_to_move();
    let mut ends = vec![];
    for a in p.legal_actions() {
        let mut q = *p;
        q.play(a).unwrap();
        if q.side_to_move() == side && !q.status().is_over() {
            ends.extend(q.legal_actions().map(|b| {
                let mut r = q;
                r.play(b).unwrap();
                r
            }));
        } else {
            ends.push(q);
        }
    }
    ends
}

#[test]
fn cube_v05_velha_plays_legally_takes_wins_and_never_allows_an_avoidable_loss() {
    let mut velha = Velha::new();
    for level in [Level::One, Level::Two] {
        for (n, p) in sample_positions(Cube::new(level), 150, 7)
            .into_iter()
            .enumerate()
        {
            let me = p.side_to_move();
            let mut rng = Rng::new(n as u64);
            // Its whole turn: a free turn is followed by another decision.
            let mut q = p;
            let first = velha.choose(&q, Limits::work(2_000), &mut rng).unwrap();
            assert!(p.legal_actions().contains(first), "{p}: {first}");
            q.play(first).unwrap();
            if q.side_to_move() == me && !q.status().is_over() {
                assert!(matches!(first, CubeAction::Turn(t) if !t.is_counted()));
                let second = velha.choose(&q, Limits::work(2_000), &mut rng).unwrap();
                q.play(second).unwrap();
            }
            let could_win = whole_turns(&p)
                .iter()
                .any(|r| r.status() == Status::Win(me));
            if could_win {
                assert_eq!(q.status(), Status::Win(me), "missed a win from {p}");
                continue;
            }
            let could_be_safe = whole_turns(&p)
                .iter()
                .any(|r| !r.status().is_over() && !opponent_can_win(r));
            if could_be_safe {
                assert!(
                    !q.status().is_over() && !opponent_can_win(&q),
                    "allowed a loss from {p}"
                );
            }
        }
    }
}

#[test]
fn cube_v05_velha_beats_random_and_greedy_players_at_both_levels() {
    for level in [Level::One, Level::Two] {
        let mut velha = Velha::new();
        let vs_random = play_match(
            Cube::new(level),
            Seat {
                player: &mut velha,
                limits: Limits::work(3_000),
            },
            Seat {
                player: &mut RandomPlayer,
                limits: Limits::work(1),
            },
            40,
            11,
            400,
        );
        assert!(
            vs_random.win_rate() >= 0.99,
            "level {}: {vs_random:?}",
            level.number()
        );
        let vs_greedy = play_match(
            Cube::new(level),
            Seat {
                player: &mut velha,
                limits: Limits::work(3_000),
            },
            Seat {
                player: &mut Greedy,
                limits: Limits::work(1),
            },
            40,
            12,
            400,
        );
        assert!(
            vs_greedy.win_rate() >= 0.9,
            "level {}: {vs_greedy:?}",
            level.number()
        );
    }
}

#[test]
fn cube_v05_the_same_seed_and_work_give_the_same_move() {
    let p = sample_positions(Cube::new(Level::Two), 30, 3)[29];
    let pick = |seed| Velha::new().choose(&p, Limits::work(5_000), &mut Rng::new(seed));
    assert_eq!(pick(1), pick(1));
}

/// CUBE-V05: she is stronger the longer she thinks. Work budgets (nodes per decision) make
/// the games the same on every machine; unfinished games at the 400-action cap count half;
/// each pair of games starts from its own random opening, each Velha playing X once.
/// The full table, up to the app's budget, is `velha-ai-arena ladder`.
#[test]
fn cube_v05_four_times_the_budget_scores_at_least_65_percent() {
    for level in [Level::One, Level::Two] {
        for small in [1_000, 4_000] {
            let large = 4 * small;
            let pair = Fresh {
                opening: OPENING,
                a: Velha::new,
                a_limits: Limits::work(large),
                b: Velha::new,
                b_limits: Limits::work(small),
            };
            let r = play_match_fresh(Cube::new(level), &pair, 100, large, 400, 2);
            eprintln!(
                "level {}: {large} against {small}: {r:?}, score {:.3}",
                level.number(),
                r.score()
            );
            assert!(
                r.score() >= 0.65,
                "level {}: {large} nodes against {small}: {r:?}",
                level.number()
            );
        }
    }
}
