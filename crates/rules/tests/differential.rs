//! The library against the naive reference implementation: perft counts, and thousands of
//! random games compared move by move (legal actions, state lines, status, refusals).

mod reference;

use reference::{RefClassic, RefCube, RefGame, RefUltimate, TestRng};
use velha_rules::{Classic, Cube, Level, Player, Position, Ultimate, Variant, perft};

fn sorted_legal<P: Position>(p: &P) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_actions()
        .into_iter()
        .map(|a| a.to_string())
        .collect();
    v.sort();
    v
}

/// Every action text any game could be asked to play, legal or not.
fn all_action_texts() -> Vec<String> {
    let mut texts = vec![];
    for col in b'a'..=b'i' {
        for row in b'1'..=b'9' {
            texts.push(format!("{}{}", col as char, row as char));
        }
    }
    for layer in "LMRUEDFSB".chars() {
        texts.push(format!("{layer}+"));
        texts.push(format!("{layer}-"));
    }
    texts
}

/// Plays `games` random games in both implementations and compares them after every step.
/// `reparse` reads a state line back (None where the line cannot hold the whole position).
fn compare_random_games<P: Position, R: RefGame>(
    new_lib: impl Fn() -> P,
    new_ref: impl Fn() -> R,
    reparse: impl Fn(&P) -> Option<P>,
    games: usize,
    max_steps: usize,
    timeout_rate: usize,
    seed: u64,
) -> usize {
    let mut rng = TestRng(seed);
    let texts = all_action_texts();
    let mut steps = 0;
    for game in 0..games {
        let (mut lib, mut reference) = (new_lib(), new_ref());
        for step in 0..max_steps {
            let context = format!("game {game} step {step} state {}", reference.state());
            assert_eq!(lib.to_string(), reference.state(), "{context}");
            assert_eq!(lib.status().to_string(), reference.status(), "{context}");
            let legal = sorted_legal(&lib);
            assert_eq!(legal, reference.legal(), "{context}");
            assert_eq!(lib.legal_count(), legal.len(), "{context}");
            if let Some(back) = reparse(&lib) {
                assert_eq!(
                    back, lib,
                    "{context}: the state line reads back to the same position"
                );
            }
            // An illegal action (when one exists among a few tries) is refused by both and
            // changes nothing.
            for _ in 0..3 {
                let text = &texts[rng.below(texts.len())];
                if legal.contains(text) {
                    continue;
                }
                let before = lib;
                if let Ok(action) = text.parse::<P::Action>() {
                    assert!(
                        lib.play(action).is_err(),
                        "{context}: {text} must be refused"
                    );
                }
                assert_eq!(
                    lib, before,
                    "{context}: a refused {text} changed the position"
                );
                assert!(
                    !reference.clone().play(text),
                    "{context}: reference accepts {text}"
                );
            }
            if legal.is_empty() {
                break;
            }
            steps += 1;
            if timeout_rate > 0 && rng.below(timeout_rate) == 0 {
                assert_eq!(
                    lib.timeout().is_ok(),
                    reference.timeout(),
                    "{context}: timeout"
                );
                continue;
            }
            let choice = &legal[rng.below(legal.len())];
            let action: P::Action = choice.parse().expect("a listed action parses");
            let status = lib.play(action).expect("a listed action plays");
            assert_eq!(status, lib.status());
            assert!(
                reference.play(choice),
                "{context}: reference refuses {choice}"
            );
        }
    }
    steps
}

#[test]
fn classic_random_games_agree_with_the_reference() {
    let steps = compare_random_games(
        || Classic::new(Player::X),
        RefClassic::new,
        |p| Some(p.to_string().parse().unwrap()),
        2000,
        20,
        0,
        1,
    );
    assert!(steps > 10_000);
}

#[test]
fn super_random_games_agree_with_the_reference() {
    compare_random_games(
        || Ultimate::new(Variant::Super, Player::X),
        || RefUltimate::new(false),
        |p| Some(Ultimate::from_state_line(Variant::Super, &p.to_string()).unwrap()),
        300,
        100,
        0,
        2,
    );
}

#[test]
fn v2_random_games_with_lost_turns_agree_with_the_reference() {
    compare_random_games(
        || Ultimate::new(Variant::V2, Player::X),
        || RefUltimate::new(true),
        |p| Some(Ultimate::from_state_line(Variant::V2, &p.to_string()).unwrap()),
        300,
        120,
        4,
        3,
    );
}

fn cube_games(level: u8, seed: u64) {
    let lvl = Level::from_number(level).unwrap();
    let steps = compare_random_games(
        || Cube::new(lvl),
        || RefCube::new(level),
        |p| {
            p.ending()
                .is_none_or(|e| e != velha_rules::Ending::Time)
                .then(|| p.to_string().parse().unwrap())
        },
        150,
        200,
        400,
        seed,
    );
    assert!(steps > 3000, "only {steps} steps played");
}

#[test]
fn cube_level1_random_games_agree_with_the_reference() {
    cube_games(1, 4);
}

#[test]
fn cube_level2_random_games_agree_with_the_reference() {
    cube_games(2, 5);
}

/// The same random game in both implementations, `plies` actions long (or to its end).
fn random_pair<P: Position, R: RefGame>(
    mut lib: P,
    mut reference: R,
    plies: usize,
    rng: &mut TestRng,
) -> (P, R) {
    for _ in 0..plies {
        let legal = sorted_legal(&lib);
        if legal.is_empty() {
            break;
        }
        let choice = &legal[rng.below(legal.len())];
        lib.play(choice.parse().unwrap()).unwrap();
        assert!(reference.play(choice));
    }
    (lib, reference)
}

/// Perft of both implementations from random positions of one game.
fn perft_from_random_positions<P: Position, R: RefGame>(
    lib: P,
    reference: R,
    plies: &[usize],
    depth: u32,
    seed: u64,
) {
    let mut rng = TestRng(seed);
    for &n in plies {
        let (l, r) = random_pair(lib, reference.clone(), n, &mut rng);
        for d in 0..=depth {
            assert_eq!(
                perft(&l, d),
                reference::perft(&r, d),
                "perft {d} from {}",
                r.state()
            );
        }
    }
}

#[test]
fn classic_perft_matches_the_reference() {
    let reference = RefClassic::new();
    for depth in 0..=9 {
        assert_eq!(
            perft(&Classic::new(Player::X), depth),
            reference::perft(&reference, depth)
        );
    }
    // Known total: 127 872 games of tic-tac-toe last all nine moves.
    assert_eq!(perft(&Classic::new(Player::X), 9), 127_872);
}

#[test]
fn ultimate_perft_matches_the_reference() {
    for (variant, v2) in [(Variant::Super, false), (Variant::V2, true)] {
        let start = Ultimate::new(variant, Player::X);
        for depth in 0..=3 {
            assert_eq!(
                perft(&start, depth),
                reference::perft(&RefUltimate::new(v2), depth)
            );
        }
        perft_from_random_positions(start, RefUltimate::new(v2), &[10, 25, 40, 55, 70], 3, 7);
    }
    // Published totals for ultimate tic-tac-toe from the empty grid.
    let start = Ultimate::new(Variant::Super, Player::X);
    assert_eq!(
        [1, 2, 3, 4, 5].map(|d| perft(&start, d)),
        [81, 720, 6336, 55_080, 473_256]
    );
}

/// Perft that plays every action, the last ply included: the plain walk the counted perft
/// must agree with.
fn perft_playing_everything<P: Position>(position: &P, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for action in position.legal_actions() {
        let mut next = *position;
        next.play(action).unwrap();
        total += perft_playing_everything(&next, depth - 1);
    }
    total
}

#[test]
fn ultimate_counted_perft_matches_playing_every_move() {
    // Ultimate's perft counts the last two plies from tables and per-board counts; the plain
    // walk plays them. Positions from the first move to the end of the game, with 2.0's lost
    // turns (which send the next move anywhere) among the moves.
    let mut rng = TestRng(38);
    // (going on, sent anywhere): the cases the counting treats apart must be among them.
    let (mut going_on, mut anywhere) = (0, 0);
    for variant in [Variant::Super, Variant::V2] {
        for _ in 0..150 {
            let mut position = Ultimate::new(variant, Player::X);
            for _ in 0..rng.below(76) {
                let legal: Vec<_> = position.legal_actions().into_iter().collect();
                if legal.is_empty() {
                    break;
                }
                if variant == Variant::V2 && rng.below(12) == 0 {
                    position.timeout().unwrap();
                } else {
                    position.play(legal[rng.below(legal.len())]).unwrap();
                }
            }
            for depth in 0..=4 {
                assert_eq!(
                    perft(&position, depth),
                    perft_playing_everything(&position, depth),
                    "perft {depth} from {position}"
                );
            }
            if !position.status().is_over() {
                going_on += 1;
                anywhere += usize::from(position.sent_board().is_none());
            }
        }
    }
    assert!(
        going_on >= 200 && anywhere >= 30,
        "{going_on} going on, {anywhere} sent anywhere"
    );
}

#[test]
fn cube_perft_matches_the_reference() {
    for level in [1u8, 2] {
        let lib = Cube::new(Level::from_number(level).unwrap());
        for depth in 0..=3 {
            assert_eq!(
                perft(&lib, depth),
                reference::perft(&RefCube::new(level), depth),
                "level {level} depth {depth}"
            );
        }
        perft_from_random_positions(
            lib,
            RefCube::new(level),
            &[6, 15, 30, 60],
            2,
            11 + level as u64,
        );
    }
}
