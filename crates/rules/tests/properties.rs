//! Invariants over random positions of every game (proptest).

mod reference;

use proptest::prelude::*;
use reference::TestRng;
use velha_rules::cube::geometry::F_MASK;
use velha_rules::{
    Cell, Classic, Cube, CubeAction, Level, Player, Position, Turn, UltCell, Ultimate, Variant,
};

/// A position after `plies` random legal actions (and, with `timeouts`, some clock runs out).
fn random_play<P: Position>(mut p: P, plies: usize, seed: u64, timeouts: bool) -> P {
    let mut rng = TestRng(seed);
    for _ in 0..plies {
        let legal: Vec<P::Action> = p.legal_actions().into_iter().collect();
        if legal.is_empty() {
            break;
        }
        if timeouts && rng.below(8) == 0 {
            p.timeout().unwrap();
        } else {
            p.play(legal[rng.below(legal.len())]).unwrap();
        }
    }
    p
}

/// Every action of a game's vocabulary is either listed and plays, or refused without change.
fn legal_and_illegal_partition<P: Position>(p: P, universe: &[P::Action]) {
    let legal: Vec<P::Action> = p.legal_actions().into_iter().collect();
    assert_eq!(legal.len(), p.legal_count());
    for &action in universe {
        let mut copy = p;
        let result = copy.play(action);
        assert_eq!(result.is_ok(), legal.contains(&action), "{action} in {p}");
        assert_eq!(p.check(action).is_ok(), result.is_ok());
        match result {
            Ok(status) => assert_eq!(status, copy.status()),
            Err(_) => assert_eq!(copy, p, "refused {action} changed {p}"),
        }
    }
}

fn cube_universe() -> Vec<CubeAction> {
    Cell::ALL
        .map(CubeAction::Tap)
        .into_iter()
        .chain(Turn::ALL.map(CubeAction::Turn))
        .collect()
}

fn ult_universe() -> Vec<UltCell> {
    (0..81)
        .map(|i| UltCell::in_board(i / 9, i % 9).unwrap())
        .collect()
}

fn level(two: bool) -> Level {
    if two { Level::Two } else { Level::One }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn classic_actions_partition_and_lines_round_trip(plies in 0usize..10, seed: u64) {
        let p = random_play(Classic::new(Player::X), plies, seed, false);
        legal_and_illegal_partition(p, &Cell::ALL);
        prop_assert_eq!(p.to_string().parse::<Classic>().unwrap(), p);
        let json = serde_json::to_string(&p).unwrap();
        prop_assert_eq!(serde_json::from_str::<Classic>(&json).unwrap(), p);
    }

    #[test]
    fn ultimate_actions_partition_and_lines_round_trip(plies in 0usize..90, seed: u64, v2: bool) {
        let variant = if v2 { Variant::V2 } else { Variant::Super };
        let p = random_play(Ultimate::new(variant, Player::X), plies, seed, v2);
        legal_and_illegal_partition(p, &ult_universe());
        let text = Ultimate::from_state_line(variant, &p.to_string()).unwrap();
        prop_assert_eq!(text.to_string(), p.to_string());
        // 2.0's line holds the turns lost in a row: a position reads back whole.
        prop_assert_eq!(text, p);
        let json = serde_json::to_string(&p).unwrap();
        prop_assert_eq!(serde_json::from_str::<Ultimate>(&json).unwrap(), p);
    }

    #[test]
    fn cube_actions_partition_and_lines_round_trip(plies in 0usize..200, seed: u64, two: bool) {
        let p = random_play(Cube::new(level(two)), plies, seed, false);
        legal_and_illegal_partition(p, &cube_universe());
        prop_assert_eq!(p.to_string().parse::<Cube>().unwrap(), p);
        let json = serde_json::to_string(&p).unwrap();
        prop_assert_eq!(serde_json::from_str::<Cube>(&json).unwrap(), p);
    }

    #[test]
    fn cube_timeouts_survive_serde(plies in 0usize..60, seed: u64) {
        let mut p = random_play(Cube::new(Level::Two), plies, seed, false);
        if p.timeout().is_ok() {
            let json = serde_json::to_string(&p).unwrap();
            prop_assert_eq!(serde_json::from_str::<Cube>(&json).unwrap(), p);
        }
    }

    #[test]
    fn cube_symbol_limit_always_holds(plies in 0usize..300, seed: u64, two: bool) {
        let mut p = Cube::new(level(two));
        let mut rng = TestRng(seed);
        for _ in 0..plies {
            prop_assert!(p.symbols_on_side1(Player::X) <= 4);
            prop_assert!(p.symbols_on_side1(Player::O) <= 4);
            let legal = p.legal_actions();
            if legal.is_empty() {
                break;
            }
            p.play(legal.nth_action(rng.below(legal.len())).unwrap()).unwrap();
        }
    }

    #[test]
    fn cube_turn_then_its_inverse_restores_when_nothing_is_cleared(plies in 0usize..80, seed: u64, t in 0usize..18) {
        // Level 2 and a fresh alternation make both directions legal for a counted turn.
        let p = random_play(Cube::new(Level::Two), plies, seed, false);
        let turn = Turn::ALL[t];
        let stickers = |c: &Cube| (0..54).map(|i| c.sticker(i)).collect::<Vec<_>>();
        let mut q = p;
        if q.play(CubeAction::Turn(turn)).is_ok() {
            let spent_before = (0..54).filter(|&i| p.sticker(i) == velha_rules::cube::Sticker::Spent).count();
            let spent_after = (0..54).filter(|&i| q.sticker(i) == velha_rules::cube::Sticker::Spent).count();
            if spent_before == spent_after && q.ending().is_none() {
                // Apply the inverse permutation on a copy of the stickers, rules aside.
                let table = turn.inverse().table();
                let mut back = stickers(&q);
                for i in 0..54 {
                    back[table.dest[i] as usize] = q.sticker(i);
                }
                prop_assert_eq!(back, stickers(&p));
            }
        }
    }

    #[test]
    fn parsers_never_panic_and_explain_errors(text in "\\PC{0,120}") {
        for result in [
            text.parse::<Cell>().map(|_| ()).map_err(|e| e.to_string()),
            text.parse::<UltCell>().map(|_| ()).map_err(|e| e.to_string()),
            text.parse::<CubeAction>().map(|_| ()).map_err(|e| e.to_string()),
            text.parse::<Classic>().map(|_| ()).map_err(|e| e.to_string()),
            text.parse::<Cube>().map(|_| ()).map_err(|e| e.to_string()),
            Ultimate::from_state_line(Variant::V2, &text).map(|_| ()).map_err(|e| e.to_string()),
        ] {
            if let Err(message) = result {
                prop_assert!(!message.is_empty());
            }
        }
    }

    #[test]
    fn corrupted_state_lines_are_refused_or_read_consistently(plies in 0usize..100, seed: u64, at in 0usize..80, c in "[.*XO xLo=0-9a-z]") {
        let p = random_play(Cube::new(Level::Two), plies, seed, false);
        let mut line: Vec<char> = p.to_string().chars().collect();
        let at = at % line.len();
        line[at] = c.chars().next().unwrap();
        let line: String = line.into_iter().collect();
        if let Ok(q) = line.parse::<Cube>() {
            prop_assert_eq!(q.to_string(), line);
        }
    }
}

#[test]
fn cube_turns_are_permutations_and_four_quarters_are_the_identity() {
    for turn in Turn::ALL {
        let table = turn.table();
        let mut seen = [false; 54];
        for &d in &table.dest {
            assert!(!seen[d as usize], "{turn} sends two stickers to {d}");
            seen[d as usize] = true;
        }
        // On bit planes: four applications give back any plane, and + then - too.
        let mut rng = TestRng(turn.index() as u64);
        for _ in 0..100 {
            let plane = rng.next() & ((1 << 54) - 1);
            let four = (0..4).fold(plane, |p, _| table.apply(p));
            assert_eq!(four, plane, "{turn}");
            assert_eq!(
                turn.inverse().table().apply(table.apply(plane)),
                plane,
                "{turn}"
            );
            assert_eq!(table.apply(plane).count_ones(), plane.count_ones());
            // The shift groups move every sticker where the plain permutation sends it.
            let one_by_one = (0..54)
                .filter(|&i| plane >> i & 1 != 0)
                .fold(0u64, |out, i| out | 1 << table.dest[i]);
            assert_eq!(table.apply(plane), one_by_one, "{turn}");
        }
        // Free turns never touch side 1; counted turns always do.
        assert_eq!(table.moved & F_MASK == 0, !turn.is_counted(), "{turn}");
    }
}

#[test]
fn cube_turns_match_singmaster_on_known_stickers() {
    // Facelets by name (cube.md's order): U1..U9 = 0..8, R = 9.., F = 18.., D = 27.., L = 36.., B = 45..
    let idx = |name: &str| {
        "URFDLB".find(&name[..1]).unwrap() * 9 + name[1..].parse::<usize>().unwrap() - 1
    };
    let goes = |turn: &str, from: &str, to: &str| {
        let turn: Turn = turn.parse().unwrap();
        assert_eq!(
            turn.table().dest[idx(from)] as usize,
            idx(to),
            "{turn}: {from} → {to}"
        );
    };
    // U+ = U (clockwise from above): side 1's top row goes to L's top row.
    goes("U+", "F1", "L1");
    goes("U+", "F3", "L3");
    // F+ = F: U's bottom row goes to R's left column, top edge to the right.
    goes("F+", "U7", "R1");
    goes("F+", "U9", "R7");
    goes("F+", "F1", "F3");
    // R+ = R': side 1's right column goes down onto D.
    goes("R+", "F3", "D3");
    goes("R+", "F9", "D9");
    goes("R+", "U3", "F3");
    // L+ = L: side 1's left column goes down too; E+ = E' moves the middle row left.
    goes("L+", "F1", "D1");
    goes("E+", "F6", "F6".replace('F', "L").as_str());
    // B+ = B': seen from the front, clockwise: U's top row goes to R's right column.
    goes("B+", "U1", "R3");
}

proptest! {
    #[test]
    fn random_choice_by_index_matches_iteration(plies in 0usize..120, seed: u64) {
        let cube = random_play(Cube::new(Level::Two), plies, seed, false);
        let listed: Vec<CubeAction> = cube.legal_actions().collect();
        for (k, &action) in listed.iter().enumerate() {
            prop_assert_eq!(cube.legal_actions().nth_action(k), Some(action));
            prop_assert!(cube.legal_actions().contains(action));
        }
        prop_assert_eq!(cube.legal_actions().nth_action(listed.len()), None);
        let grid = random_play(Ultimate::new(Variant::V2, Player::X), plies.min(80), seed, true);
        let cells: Vec<UltCell> = grid.legal_cells().collect();
        for (k, &cell) in cells.iter().enumerate() {
            prop_assert_eq!(grid.legal_cells().nth_cell(k), Some(cell));
            prop_assert!(grid.legal_cells().contains(cell));
        }
        prop_assert_eq!(grid.legal_cells().nth_cell(cells.len()), None);
    }
}
