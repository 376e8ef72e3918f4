//! The post-game analysis (docs/rules/analysis.md): exact for the classic game, checked against
//! a plain minimax on every position; an estimate for Super, 2.0 and the cube, checked to find
//! a random mover's faults far more often than the strong side's, and to be the same in slices.

use std::collections::HashMap;
use std::time::Duration;

use velha_ai::analysis::{
    Analysis, Analyst, CUBE_SCALE, ClassicJudge, CubeJudge, Exact, Game, Judge, ULTIMATE_PLAYOUTS,
    UltimateJudge, Verdict, cube_chance, cube_score, solved, ultimate_chance,
};
use velha_ai::{Difficulty, Limits, MATE, Opponent, RandomPlayer, Rng, UltimateAi, Velha};
use velha_rules::{Cell, Classic, Cube, Level, Player, Position, Status, Ultimate, Variant};

/// A result and its distance in moves, for the side to move: 1 a win, 0 a velha, -1 a loss.
type Solved = (i8, u8);

/// Plain minimax: every line of play, remembered per position only so it ends in seconds.
/// A win is best soonest, a loss latest.
fn minimax(board: &Classic, memo: &mut HashMap<Classic, Solved>) -> Solved {
    if let Some(&known) = memo.get(board) {
        return known;
    }
    let value = match board.status() {
        Status::Win(_) => (-1, 0),
        Status::Draw => (0, 0),
        Status::Ongoing(_) => board
            .legal_actions()
            .into_iter()
            .map(|c| {
                let mut next = *board;
                next.play(c).unwrap();
                let (o, d) = minimax(&next, memo);
                (-o, d + 1)
            })
            .max_by_key(|&(o, d)| (o, if o > 0 { -i32::from(d) } else { i32::from(d) }))
            .unwrap(),
    };
    memo.insert(*board, value);
    value
}

/// Every position reachable from the empty board, whoever starts.
fn reachable() -> Vec<Classic> {
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<Classic> = Player::BOTH.iter().map(|&p| Classic::new(p)).collect();
    while let Some(board) = stack.pop() {
        if !seen.insert(board) {
            continue;
        }
        for c in board.legal_actions() {
            let mut next = board;
            next.play(c).unwrap();
            stack.push(next);
        }
    }
    seen.into_iter().collect()
}

fn analyse<P: Position, J: Judge<P>>(judge: J, game: Game<P>) -> Analysis {
    Analyst::new(judge, game)
        .unwrap()
        .step(Duration::MAX)
        .unwrap()
}

#[test]
fn ana_04_the_classic_analysis_agrees_with_plain_minimax_on_every_reachable_position() {
    let mut memo = HashMap::new();
    let positions = reachable();
    assert_eq!(
        positions.len(),
        2 * 5478,
        "the classic game's positions, per starter"
    );
    let mut moves = 0;
    for board in positions {
        if board.status().is_over() {
            continue;
        }
        let (o, d) = minimax(&board, &mut memo);
        let expected = match o {
            1 => Exact::Win(d),
            0 => Exact::Draw,
            _ => Exact::Loss(d),
        };
        assert_eq!(solved(&board), expected, "{board}");
        for c in board.legal_actions() {
            let mut next = board;
            next.play(c).unwrap();
            let (after_o, after_d) = minimax(&next, &mut memo);
            let (after_o, after_d) = (-after_o, after_d + 1);
            let oracle = if after_o < o {
                Verdict::Blunder
            } else if (o > 0 && after_d > d) || (o < 0 && after_d < d) {
                Verdict::Inaccuracy
            } else {
                Verdict::Best
            };
            let game = Game {
                positions: vec![board, next],
                played: vec![Some(vec![c.to_string()])],
                winner: None,
            };
            let review = analyse(ClassicJudge::default(), game).reviews[0]
                .clone()
                .unwrap();
            assert_eq!(review.verdict, oracle, "{c} from {board}");
            let best: Cell = review.best[0].parse().unwrap();
            let mut after_best = board;
            after_best.play(best).unwrap();
            let (bo, bd) = minimax(&after_best, &mut memo);
            assert_eq!((-bo, bd + 1), (o, d), "the best move {best} from {board}");
            moves += 1;
        }
    }
    assert!(moves > 15_000, "{moves} moves judged");
}

/// A game of a random mover against the hard opponent, who plays `strong`.
fn random_against_hard(
    variant: Variant,
    strong: Player,
    playouts: u64,
    seed: u64,
) -> Game<Ultimate> {
    let mut rng = Rng::new(seed);
    let mut hard = UltimateAi::new(Difficulty::Hard);
    Game::play(Ultimate::new(variant, Player::X), usize::MAX, |_, p| {
        if p.side_to_move() == strong {
            hard.choose(p, Limits::work(playouts), &mut rng)
        } else {
            RandomPlayer.choose(p, Limits::work(1), &mut rng)
        }
        .unwrap()
    })
}

fn random_against_velha(level: Level, strong: Player, nodes: u64, seed: u64) -> Game<Cube> {
    let mut rng = Rng::new(seed);
    let mut velha = Velha::new();
    Game::play(Cube::new(level), 60, |earlier, p| {
        if p.side_to_move() == strong {
            velha.choose_in_game(earlier, p, Limits::work(nodes), &mut rng)
        } else {
            RandomPlayer.choose(p, Limits::work(1), &mut rng)
        }
        .unwrap()
    })
}

/// Faults (any verdict but ótima) per move of the random side and of the strong side.
fn fault_rates(games: &[(Analysis, Player)]) -> (f64, f64) {
    let mut counts = [[0u32; 2]; 2];
    for (analysis, strong) in games {
        for r in analysis.reviews.iter().flatten() {
            let side = usize::from(r.mover == *strong);
            counts[side][0] += 1;
            counts[side][1] += u32::from(r.verdict > Verdict::Best);
        }
    }
    let rate = |c: [u32; 2]| f64::from(c[1]) / f64::from(c[0].max(1));
    (rate(counts[0]), rate(counts[1]))
}

#[test]
fn ana_05_a_random_mover_errs_far_more_often_than_the_hard_opponent_in_super_and_2_0() {
    for variant in [Variant::Super, Variant::V2] {
        // Random playouts make most single moves of Super look harmless; the analysis budget
        // still tells the random mover's apart (velha-ai-analysis errors has more games).
        let games: Vec<(Analysis, Player)> = (0..4)
            .map(|g| {
                let strong = if g % 2 == 0 { Player::O } else { Player::X };
                let game = random_against_hard(variant, strong, 4_000, g);
                (
                    analyse(UltimateJudge::new(ULTIMATE_PLAYOUTS, g), game),
                    strong,
                )
            })
            .collect();
        let (random, strong) = fault_rates(&games);
        assert!(
            random > 0.05 && random > 3.0 * strong,
            "{variant:?}: faults per move, random {random:.3}, hard {strong:.3}"
        );
    }
}

#[test]
fn ana_06_a_random_mover_errs_far_more_often_than_the_velha_on_the_cube() {
    for level in [Level::One, Level::Two] {
        let games: Vec<(Analysis, Player)> = (0..4)
            .map(|g| {
                let strong = if g % 2 == 0 { Player::O } else { Player::X };
                let game = random_against_velha(level, strong, 8_000, g);
                (analyse(CubeJudge::new(8_000, g), game), strong)
            })
            .collect();
        let (random, strong) = fault_rates(&games);
        assert!(
            random > 0.2 && random > 3.0 * strong,
            "level {}: faults per move, random {random:.3}, Velha {strong:.3}",
            level.number()
        );
    }
}

#[test]
fn ana_06_the_velhas_score_becomes_a_chance_that_grows_with_it() {
    assert_eq!(cube_chance(0), 0.5);
    assert_eq!(cube_chance(MATE - 3), 1.0);
    assert_eq!(cube_chance(-(MATE - 3)), 0.0);
    assert!((cube_chance(CUBE_SCALE as i32) - 0.731).abs() < 0.01);
    assert!((cube_chance(-30) + cube_chance(30) - 1.0).abs() < 1e-6);
    let mut last = 0.0;
    for score in (-2_000..=2_000).step_by(50) {
        let c = cube_chance(score);
        assert!(c >= last && (0.0..=1.0).contains(&c), "{score}: {c}");
        last = c;
    }
}

#[test]
fn ana_05_the_playouts_mean_is_stretched_into_a_chance_and_sure_results_stay_sure() {
    assert_eq!(ultimate_chance(0.5), 0.5);
    assert_eq!(ultimate_chance(1.0), 1.0);
    assert_eq!(ultimate_chance(0.0), 0.0);
    assert!(ultimate_chance(0.7) > 0.8 && ultimate_chance(0.3) < 0.2);
    assert!((ultimate_chance(0.6) + ultimate_chance(0.4) - 1.0).abs() < 1e-6);
    let mut last = 0.0;
    for k in 0..=100 {
        let c = ultimate_chance(k as f32 / 100.0);
        assert!(c >= last, "{k}");
        last = c;
    }
}

#[test]
fn ana_06_the_best_cube_move_is_a_whole_turn_that_can_be_played() {
    let game = random_against_velha(Level::Two, Player::O, 4_000, 7);
    let positions = game.positions.clone();
    let analysis = analyse(CubeJudge::new(4_000, 1), game);
    for (i, review) in analysis.reviews.iter().enumerate() {
        let review = review.as_ref().unwrap();
        let mut cube = positions[i];
        let mover = cube.side_to_move();
        for action in &review.best {
            assert_eq!(cube.side_to_move(), mover, "one player's turn");
            cube.play(action.parse().unwrap()).unwrap();
        }
        assert!(
            cube.status().is_over() || cube.side_to_move() != mover,
            "the best move ends the turn: {:?}",
            review.best
        );
    }
    assert!(!analysis.reviews.is_empty());
}

#[test]
fn ana_05_a_turn_lost_on_the_clock_is_no_move_and_gets_no_verdict() {
    let mut position = Ultimate::new(Variant::V2, Player::X);
    let mut positions = vec![position];
    position.play("e5".parse().unwrap()).unwrap();
    positions.push(position);
    position.timeout().unwrap();
    positions.push(position);
    assert_eq!(position.side_to_move(), Player::X, "O lost its turn");
    position.play("d4".parse().unwrap()).unwrap();
    positions.push(position);
    let game = Game {
        positions,
        played: vec![Some(vec!["e5".into()]), None, Some(vec!["d4".into()])],
        winner: None,
    };
    let a = analyse(UltimateJudge::new(500, 3), game);
    assert_eq!(a.x_chances.len(), 4);
    assert!(a.reviews[0].is_some() && a.reviews[1].is_none() && a.reviews[2].is_some());
    assert_eq!(a.reviews[2].as_ref().unwrap().mover, Player::X);
}

/// Steps the analysis in slices of nothing (a few units of work each) to the end.
fn in_slices<P: Position, J: Judge<P>>(judge: J, game: Game<P>) -> (Analysis, u32) {
    let mut analyst = Analyst::new(judge, game).unwrap();
    let mut slices = 1;
    let mut done = 0;
    loop {
        if let Some(a) = analyst.step(Duration::ZERO) {
            return (a, slices);
        }
        let (now, total) = analyst.progress();
        assert!(now >= done && now < total, "progress only grows");
        done = now;
        slices += 1;
    }
}

#[test]
fn ana_08_an_analysis_in_slices_is_the_analysis_at_once() {
    let game = random_against_hard(Variant::Super, Player::O, 300, 5);
    let at_once = analyse(UltimateJudge::new(1_000, 9), game.clone());
    let (sliced, slices) = in_slices(UltimateJudge::new(1_000, 9), game);
    assert_eq!(sliced, at_once);
    assert!(slices > at_once.x_chances.len() as u32, "{slices} slices");

    let game = random_against_velha(Level::One, Player::X, 2_000, 5);
    let at_once = analyse(CubeJudge::new(3_000, 2), game.clone());
    let (sliced, slices) = in_slices(CubeJudge::new(3_000, 2), game);
    assert_eq!(sliced, at_once);
    assert!(slices > at_once.x_chances.len() as u32, "{slices} slices");
}

/// Every position a match keeps: the start and the position after each single action.
fn single_actions<P: Position>(game: &Game<P>) -> Vec<P> {
    let mut all = vec![game.positions[0]];
    for (i, actions) in game.played.iter().enumerate() {
        let mut p = game.positions[i];
        for a in actions.as_ref().unwrap() {
            p.play(a.parse().unwrap()).unwrap();
            all.push(p);
        }
        assert_eq!(p, game.positions[i + 1]);
    }
    all
}

/// `rebuilt` is `game`: the same positions and winner, and moves that lead from each position
/// to the next (two turns of a cube can make the same position: either is the move).
fn same_game<P: Position>(rebuilt: &Game<P>, game: &Game<P>) {
    assert_eq!(rebuilt.positions, game.positions);
    assert_eq!(rebuilt.winner, game.winner);
    assert_eq!(rebuilt.played.len(), game.played.len());
    for (i, actions) in rebuilt.played.iter().enumerate() {
        let mut p = rebuilt.positions[i];
        for a in actions.as_ref().unwrap() {
            p.play(a.parse().unwrap()).unwrap();
        }
        assert_eq!(p, rebuilt.positions[i + 1], "move {i}: {actions:?}");
        let original = game.played[i].as_ref().unwrap();
        let count = actions.as_ref().unwrap().len();
        assert_eq!(
            count,
            original.len(),
            "move {i}: a free turn and a main action"
        );
    }
}

#[test]
fn ana_11_a_local_game_is_rebuilt_from_the_positions_its_match_kept() {
    // The cube: free turns and main actions gathered back into whole turns.
    let mut free_turns = 0;
    for (level, seed) in [
        (Level::One, 3),
        (Level::Two, 4),
        (Level::Two, 5),
        (Level::Two, 8),
    ] {
        let game = random_against_velha(level, Player::O, 2_000, seed);
        let rebuilt = Game::from_positions(&single_actions(&game)).unwrap();
        same_game(&rebuilt, &game);
        free_turns += game
            .played
            .iter()
            .flatten()
            .filter(|m| m.len() == 2)
            .count();
    }
    assert!(free_turns > 0, "the games have whole turns of two actions");
    let game = random_against_hard(Variant::Super, Player::X, 200, 6);
    let rebuilt = Game::from_positions(&single_actions(&game)).unwrap();
    assert_eq!(rebuilt, game, "a cell is the only action that fills it");
    // 2.0: a turn lost on the clock is a change no move makes.
    let mut p = Ultimate::new(Variant::V2, Player::X);
    let mut all = vec![p];
    p.play("e5".parse().unwrap()).unwrap();
    all.push(p);
    p.timeout().unwrap();
    all.push(p);
    p.play("d4".parse().unwrap()).unwrap();
    all.push(p);
    let game = Game::from_positions(&all).unwrap();
    assert_eq!(
        game.played,
        vec![
            Some(vec!["e5".to_string()]),
            None,
            Some(vec!["d4".to_string()])
        ]
    );
    assert_eq!(game.positions, all);
    assert_eq!(Game::<Classic>::from_positions(&[]), None);
}

#[test]
fn ana_06_the_cube_is_judged_by_the_mean_of_the_velhas_last_two_depths() {
    // Positions from a few games; each searched to a fixed depth, then one shallower.
    let game = random_against_velha(Level::Two, Player::O, 2_000, 11);
    for (i, position) in game.positions.iter().enumerate().take(6) {
        if position.status().is_over() {
            continue;
        }
        let earlier = &game.positions[..i];
        let mut deep = Velha::new();
        let (_, score) = deep.analyse(earlier, position, 3).unwrap();
        let (_, shallower) = Velha::new().analyse(earlier, position, 2).unwrap();
        assert_eq!(deep.stats.score, score);
        if score.abs() >= velha_ai::MATE_BOUND {
            continue;
        }
        assert_eq!(deep.stats.shallower, Some(shallower), "position {i}");
        assert_eq!(cube_score(&deep.stats), (score + shallower) / 2);
    }
    // One depth only: nothing shallower to take.
    let mut once = Velha::new();
    once.analyse(&[], &Cube::new(Level::One), 1).unwrap();
    assert_eq!(once.stats.shallower, None);
    assert_eq!(cube_score(&once.stats), once.stats.score);
}
