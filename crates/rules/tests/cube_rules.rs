//! Cubo da Velha: one test (at least) per rule id of `docs/rules/cube.md`.

mod reference;

use reference::TestRng;
use velha_rules::Ending;
use velha_rules::cube::{OneWayRule, Sticker, TapKind, TurnKind};
use velha_rules::{Cell, Cube, CubeAction, CubeIllegal, Level, Player, Position, Status, Turn};

const FACES: &str = "URFDLB";

/// Facelet index of a name like `F1` or `U9` (cube.md's facelet order).
fn facelet(name: &str) -> usize {
    let face = FACES.find(&name[..1]).expect("a face letter");
    let n: usize = name[1..].parse().expect("a sticker number");
    face * 9 + n - 1
}

/// A cube position from a few stickers (`X`, `O`, `*`) by facelet name, the rest blank.
fn cube(stickers: &[(&str, char)], side: char, level: u8, free: bool, counts: (u32, u32)) -> Cube {
    let mut board = ['.'; 54];
    for &(name, c) in stickers {
        board[facelet(name)] = c;
    }
    let line = format!(
        "{} {side} L{level} {} x={} o={}",
        board.iter().collect::<String>(),
        if free { "free" } else { "-" },
        counts.0,
        counts.1
    );
    line.parse().unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn act(text: &str) -> CubeAction {
    text.parse().unwrap()
}

fn play(cube: &mut Cube, actions: &str) {
    for a in actions.split_whitespace() {
        cube.play(act(a))
            .unwrap_or_else(|e| panic!("{a} refused: {e}"));
    }
}

fn at(cube: &Cube, name: &str) -> Sticker {
    cube.sticker(facelet(name))
}

fn refused(cube: &mut Cube, action: &str, reason: CubeIllegal) {
    let before = *cube;
    assert_eq!(cube.play(act(action)), Err(reason), "{action}");
    assert_eq!(*cube, before, "a refused {action} changed the position");
}

const X: Sticker = Sticker::Mark(Player::X);
const O: Sticker = Sticker::Mark(Player::O);

#[test]
fn cube_r01_start_is_blank_x_first_level_fixed() {
    for level in [Level::One, Level::Two] {
        let mut c = Cube::new(level);
        assert!((0..54).all(|i| c.sticker(i) == Sticker::Blank));
        assert_eq!(c.status(), Status::Ongoing(Player::X));
        play(&mut c, "a1 b2 F+ U+");
        assert_eq!(c.level(), level, "the level never changes during a game");
    }
    assert_eq!(
        Cube::new(Level::Two).to_string(),
        "...................................................... X L2 - x=0 o=0"
    );
}

#[test]
fn cube_r02_free_turn_keeps_the_turn_and_only_one_per_turn() {
    let mut c = Cube::new(Level::One);
    assert_eq!(c.play(act("S+")), Ok(Status::Ongoing(Player::X)));
    assert!(c.free_turn_made());
    refused(&mut c, "B+", CubeIllegal::SecondFreeTurn);
    refused(&mut c, "S+", CubeIllegal::SecondFreeTurn);
    assert!(
        c.legal_actions()
            .all(|a| !matches!(a, CubeAction::Turn(t) if !t.is_counted()))
    );
    // The main action passes the turn and the next player may make a free turn again.
    assert_eq!(c.play(act("a1")), Ok(Status::Ongoing(Player::O)));
    assert!(!c.free_turn_made());
    assert_eq!(c.play(act("B+")), Ok(Status::Ongoing(Player::O)));
    assert_eq!(c.play(act("U+")), Ok(Status::Ongoing(Player::X)));
}

#[test]
fn cube_r02_a_tap_or_a_counted_turn_passes_the_turn() {
    let mut c = Cube::new(Level::Two);
    assert_eq!(c.play(act("b2")), Ok(Status::Ongoing(Player::O)));
    assert_eq!(c.play(act("R-")), Ok(Status::Ongoing(Player::X)));
    assert_eq!(c.play(act("F+")), Ok(Status::Ongoing(Player::O)));
}

#[test]
fn cube_r03_tap_on_blank_marks_unless_four_symbols() {
    let mut c = Cube::new(Level::One);
    play(&mut c, "a1");
    assert_eq!(c.cell("a1".parse().unwrap()), X);
    let mut full = cube(
        &[("F1", 'X'), ("F2", 'X'), ("F6", 'X'), ("F7", 'X')],
        'X',
        1,
        false,
        (0, 0),
    );
    assert_eq!(full.symbols_on_side1(Player::X), 4);
    refused(&mut full, "b2", CubeIllegal::SymbolLimit(Player::X));
    assert_eq!(full.tap_kind("b2".parse().unwrap()), TapKind::Mark);
}

#[test]
fn cube_r04_tap_on_own_symbol_erases_it_and_spends_the_cell() {
    let mut c = cube(&[("F5", 'X')], 'X', 1, false, (0, 0));
    assert_eq!(c.tap_kind("b2".parse().unwrap()), TapKind::Reset1);
    play(&mut c, "b2");
    assert_eq!(c.cell("b2".parse().unwrap()), Sticker::Spent);
    assert_eq!(c.symbols_on_side1(Player::X), 0);
    assert_eq!(c.side_to_move(), Player::O);
}

#[test]
fn cube_r05_reset2_clears_only_the_spent_cells_of_side1() {
    let mut c = cube(
        &[
            ("F1", '*'),
            ("F5", '*'),
            ("F9", 'O'),
            ("F3", 'X'),
            ("U1", '*'),
            ("R5", '*'),
            ("U2", 'X'),
        ],
        'X',
        1,
        false,
        (0, 0),
    );
    assert_eq!(c.tap_kind("a1".parse().unwrap()), TapKind::Reset2);
    play(&mut c, "b2");
    assert_eq!(at(&c, "F1"), Sticker::Blank);
    assert_eq!(at(&c, "F5"), Sticker::Blank);
    assert_eq!(at(&c, "F9"), O, "symbols are untouched");
    assert_eq!(at(&c, "F3"), X);
    assert_eq!(at(&c, "U1"), Sticker::Spent, "other faces are untouched");
    assert_eq!(at(&c, "R5"), Sticker::Spent);
    assert_eq!(at(&c, "U2"), X);
}

#[test]
fn cube_r06_the_opponents_symbol_cannot_be_erased() {
    let mut c = cube(&[("F5", 'O')], 'X', 2, false, (0, 0));
    assert_eq!(c.tap_kind("b2".parse().unwrap()), TapKind::Opponent);
    refused(&mut c, "b2", CubeIllegal::OpponentSymbol);
    assert!(!c.legal_actions().contains(act("b2")));
}

#[test]
fn cube_r07_stickers_keep_their_state_off_side1_and_back() {
    let mut c = cube(
        &[("F1", 'X'), ("F4", '*'), ("F7", 'O')],
        'X',
        1,
        false,
        (0, 0),
    );
    // L+ takes side 1's left column down onto D, and back after four quarter turns.
    play(&mut c, "L+");
    assert_eq!(
        (at(&c, "D1"), at(&c, "D4"), at(&c, "D7")),
        (X, Sticker::Spent, O)
    );
    assert_eq!(at(&c, "F1"), Sticker::Blank);
    play(&mut c, "L+ L+ L+");
    assert_eq!(
        (at(&c, "F1"), at(&c, "F4"), at(&c, "F7")),
        (X, Sticker::Spent, O)
    );
}

#[test]
fn cube_r08_level1_turns_only_go_the_canonical_way() {
    let mut c = Cube::new(Level::One);
    for turn in Turn::ALL.iter().filter(|t| !t.canonical) {
        let reason = if turn.is_counted() {
            OneWayRule::Level1
        } else {
            OneWayRule::FreeTurn
        };
        refused(
            &mut c,
            &turn.to_string(),
            CubeIllegal::WrongDirection(reason),
        );
    }
    for turn in Turn::ALL.iter().filter(|t| t.canonical) {
        assert!(c.check(CubeAction::Turn(*turn)).is_ok(), "{turn}");
    }
}

#[test]
fn cube_r08_level2_counted_turns_alternate_per_player() {
    let mut c = Cube::new(Level::Two);
    assert_eq!(c.next_turn_kind(Player::X), TurnKind::Either);
    play(&mut c, "U-"); // X's 1st counted turn: either way
    assert_eq!(c.next_turn_kind(Player::X), TurnKind::OneWay);
    assert_eq!(
        c.next_turn_kind(Player::O),
        TurnKind::Either,
        "O's count is its own"
    );
    play(&mut c, "R-"); // O's 1st
    refused(
        &mut c,
        "D-",
        CubeIllegal::WrongDirection(OneWayRule::Alternation),
    );
    // Taps and free turns do not advance the alternation.
    play(&mut c, "S+ a1 b2");
    refused(
        &mut c,
        "D-",
        CubeIllegal::WrongDirection(OneWayRule::Alternation),
    );
    play(&mut c, "D+"); // X's 2nd: canonical
    assert_eq!(c.next_turn_kind(Player::X), TurnKind::Either);
    play(&mut c, "F+"); // O's 2nd
    play(&mut c, "E-"); // X's 3rd: either way again
    assert_eq!(
        (c.counted_turns(Player::X), c.counted_turns(Player::O)),
        (3, 2)
    );
    refused(
        &mut c,
        "S-",
        CubeIllegal::WrongDirection(OneWayRule::FreeTurn),
    );
}

#[test]
fn cube_r09_a_turn_may_not_give_any_player_a_fifth_symbol_on_side1() {
    // O has four on side 1; U4 holds a fifth O that L+ would bring onto a2. X turns.
    let mut c = cube(
        &[
            ("F2", 'O'),
            ("F3", 'O'),
            ("F5", 'O'),
            ("F6", 'O'),
            ("U4", 'O'),
            ("R2", 'X'),
            ("B5", 'X'),
        ],
        'X',
        1,
        false,
        (0, 0),
    );
    refused(&mut c, "L+", CubeIllegal::SymbolLimit(Player::O));
    // Symbols on other faces do not count: many X stay off side 1 and X can still tap.
    assert_eq!(c.symbols_on_side1(Player::X), 0);
    assert!(c.check(act("a1")).is_ok());
    // M+ brings U's middle column (blank) over b1, b2, b3 and pushes two O off: legal.
    play(&mut c, "M+");
    assert_eq!(c.symbols_on_side1(Player::O), 2);
}

#[test]
fn cube_r10_every_line_a_turn_makes_on_other_faces_loses_its_middle() {
    // F+ turns L's right column into U's bottom row: L6 → U8 completes U2 U5 U8 and L9 → U7
    // completes U1 U4 U7. Both middles (U5, U4) become spent; the rest keep their X.
    let mut c = cube(
        &[
            ("U1", 'X'),
            ("U2", 'X'),
            ("U4", 'X'),
            ("U5", 'X'),
            ("L6", 'X'),
            ("L9", 'X'),
        ],
        'O',
        1,
        false,
        (0, 0),
    );
    play(&mut c, "F+");
    assert_eq!(
        (at(&c, "U5"), at(&c, "U4")),
        (Sticker::Spent, Sticker::Spent)
    );
    assert_eq!(
        (at(&c, "U1"), at(&c, "U2"), at(&c, "U7"), at(&c, "U8")),
        (X, X, X, X)
    );
}

#[test]
fn cube_r10_free_turns_clear_lines_too() {
    // S+ brings L's centre to U's centre, completing U2 U5 U8.
    let mut c = cube(
        &[("U2", 'O'), ("U8", 'O'), ("L5", 'O')],
        'X',
        2,
        false,
        (0, 0),
    );
    play(&mut c, "S+");
    assert_eq!(at(&c, "U5"), Sticker::Spent);
    assert_eq!((at(&c, "U2"), at(&c, "U8")), (O, O));
}

#[test]
fn cube_r10_side1_lines_are_never_cleared() {
    // X taps c1 to complete a1 b1 c1: the line stays (and wins).
    let mut c = cube(&[("F1", 'X'), ("F2", 'X')], 'X', 1, false, (0, 0));
    play(&mut c, "c1");
    assert_eq!((at(&c, "F1"), at(&c, "F2"), at(&c, "F3")), (X, X, X));
}

#[test]
fn cube_r11_a_tap_that_completes_a_line_wins_at_once() {
    let mut c = cube(
        &[("F1", 'O'), ("F5", 'O'), ("F2", 'X'), ("F3", 'X')],
        'O',
        1,
        false,
        (0, 0),
    );
    assert_eq!(c.play(act("c3")), Ok(Status::Win(Player::O)));
    assert_eq!(c.ending(), Some(Ending::Line));
    assert!(c.legal_actions().is_empty());
    refused(&mut c, "a3", CubeIllegal::GameOver);
}

#[test]
fn cube_r12_a_turn_line_of_one_symbol_wins_for_its_owner_even_the_opponent() {
    // R+ brings U3 onto c1, completing X's a1 b1 c1; O made the turn, X wins.
    let mut c = cube(
        &[("F1", 'X'), ("F2", 'X'), ("U3", 'X')],
        'O',
        1,
        false,
        (0, 0),
    );
    assert_eq!(c.play(act("R+")), Ok(Status::Win(Player::X)));
    assert_eq!(c.ending(), Some(Ending::Line));
}

#[test]
fn cube_r12_lines_of_both_symbols_lose_for_the_player_who_turned() {
    // R+ completes X's top row (from U3) and O's bottom row (from U9); X turned, O wins.
    let mut c = cube(
        &[
            ("F1", 'X'),
            ("F2", 'X'),
            ("U3", 'X'),
            ("F7", 'O'),
            ("F8", 'O'),
            ("U9", 'O'),
        ],
        'X',
        1,
        false,
        (0, 0),
    );
    assert_eq!(c.play(act("R+")), Ok(Status::Win(Player::O)));
    assert_eq!(c.ending(), Some(Ending::BothLines));
    // The state line alone tells the same result.
    let back: Cube = c.to_string().parse().unwrap();
    assert_eq!(back.status(), Status::Win(Player::O));
}

/// The cells named (`a1 b2 c3`) as a 9-bit mask, bit = the cell's index.
fn cells(names: &str) -> u16 {
    names
        .split_whitespace()
        .map(|n| 1 << n.parse::<Cell>().unwrap().index())
        .sum()
}

#[test]
fn cube_r11_the_winning_line_is_the_tapped_line_and_only_once_it_is_made() {
    let mut c = cube(
        &[("F1", 'O'), ("F5", 'O'), ("F2", 'X'), ("F3", 'X')],
        'O',
        1,
        false,
        (0, 0),
    );
    assert_eq!(
        c.winning_lines().count(),
        0,
        "no line while the game goes on"
    );
    play(&mut c, "c3");
    assert_eq!(
        c.winning_lines().collect::<Vec<_>>(),
        [(Player::O, cells("a1 b2 c3"))]
    );
}

#[test]
fn cube_r12_the_winning_lines_of_a_turn_are_both_symbols_lines_when_it_made_both() {
    // R+ completes X's top row only: O turned, X's line is the winning one.
    let mut one = cube(
        &[("F1", 'X'), ("F2", 'X'), ("U3", 'X'), ("F4", 'X')],
        'O',
        1,
        false,
        (0, 0),
    );
    play(&mut one, "R+");
    assert_eq!(
        one.winning_lines().collect::<Vec<_>>(),
        [(Player::X, cells("a1 b1 c1"))],
        "X's fourth symbol, a2, is on no line"
    );
    // R+ completes X's top row and O's bottom row: both lines ended the game.
    let mut both = cube(
        &[
            ("F1", 'X'),
            ("F2", 'X'),
            ("U3", 'X'),
            ("F7", 'O'),
            ("F8", 'O'),
            ("U9", 'O'),
        ],
        'X',
        1,
        false,
        (0, 0),
    );
    play(&mut both, "R+");
    let lines = [
        (Player::X, cells("a1 b1 c1")),
        (Player::O, cells("a3 b3 c3")),
    ];
    assert_eq!(both.winning_lines().collect::<Vec<_>>(), lines);
    let back: Cube = both.to_string().parse().unwrap();
    assert_eq!(
        back.winning_lines().collect::<Vec<_>>(),
        lines,
        "the state line tells them too"
    );
    // A game the clock ended has no line to show.
    let mut timed = Cube::new(Level::One);
    play(&mut timed, "a1");
    timed.timeout().unwrap();
    assert_eq!(timed.winning_lines().count(), 0);
}

#[test]
fn cube_r13_no_draw_and_always_a_main_action() {
    let mut rng = TestRng(13);
    for game in 0..200 {
        let mut c = Cube::new(if game % 2 == 0 {
            Level::One
        } else {
            Level::Two
        });
        for _ in 0..300 {
            match c.status() {
                Status::Draw => panic!("a cube game never draws"),
                Status::Win(_) => break,
                Status::Ongoing(_) => {}
            }
            let legal = c.legal_actions();
            let main = legal.filter(|a| !matches!(a, CubeAction::Turn(t) if !t.is_counted()));
            assert!(main.count() > 0, "{c}");
            assert!(c.check(act("F+")).is_ok(), "F+ is always legal: {c}");
            c.play(legal.nth_action(rng.below(legal.len())).unwrap())
                .unwrap();
        }
    }
}

#[test]
fn cube_r13_on_m03_the_clock_ends_games_nobody_ends() {
    let mut c = Cube::new(Level::One);
    play(&mut c, "a1");
    assert_eq!(c.timeout(), Ok(Status::Win(Player::X)), "O ran out of time");
    assert_eq!(c.ending(), Some(Ending::Time));
    assert_eq!(c.timeout(), Err(CubeIllegal::GameOver));
}

#[test]
fn cube_r14_direction_is_checked_before_the_symbol_limit() {
    // L- is both against the canonical way (level 1) and over O's limit: direction first.
    let mut c = cube(
        &[
            ("F2", 'O'),
            ("F3", 'O'),
            ("F5", 'O'),
            ("F6", 'O'),
            ("D4", 'O'),
        ],
        'X',
        1,
        false,
        (0, 0),
    );
    refused(
        &mut c,
        "L-",
        CubeIllegal::WrongDirection(OneWayRule::Level1),
    );
    let mut c2 = cube(
        &[
            ("F2", 'O'),
            ("F3", 'O'),
            ("F5", 'O'),
            ("F6", 'O'),
            ("D4", 'O'),
        ],
        'X',
        2,
        false,
        (0, 0),
    );
    refused(&mut c2, "L-", CubeIllegal::SymbolLimit(Player::O));
}

#[test]
fn cube_r14_a_winning_turn_also_clears_the_lines_it_makes_elsewhere() {
    // R+ brings U3 onto c1 (X's top row on side 1) and F9's X onto D9, completing D7 D8 D9.
    let mut c = cube(
        &[
            ("F1", 'X'),
            ("F2", 'X'),
            ("F9", 'X'),
            ("U3", 'X'),
            ("D7", 'X'),
            ("D8", 'X'),
        ],
        'O',
        1,
        false,
        (0, 0),
    );
    assert_eq!(c.play(act("R+")), Ok(Status::Win(Player::X)));
    assert_eq!(at(&c, "D8"), Sticker::Spent);
    assert_eq!((at(&c, "D7"), at(&c, "D9")), (X, X));
}

#[test]
fn cube_v01_side1_stickers_tell_blank_spent_and_each_symbol_apart() {
    let c = cube(
        &[("F1", 'X'), ("F2", 'O'), ("F3", '*')],
        'X',
        1,
        false,
        (0, 0),
    );
    let cells: Vec<Sticker> = Cell::ALL.iter().take(4).map(|&cell| c.cell(cell)).collect();
    assert_eq!(cells, [X, O, Sticker::Spent, Sticker::Blank]);
}

#[test]
fn cube_v02_level1_every_layer_turns_canonically_and_never_back() {
    let c = Cube::new(Level::One);
    let legal = c.legal_actions();
    let turns: Vec<String> = legal
        .filter(|a| matches!(a, CubeAction::Turn(_)))
        .map(|a| a.to_string())
        .collect();
    assert_eq!(
        turns,
        ["L+", "M+", "R+", "U+", "E+", "D+", "F+", "S+", "B+"]
    );
}

#[test]
fn cube_v03_level2_shows_each_players_next_counted_turn() {
    let mut c = Cube::new(Level::Two);
    let kinds = |c: &Cube| (c.next_turn_kind(Player::X), c.next_turn_kind(Player::O));
    assert_eq!(kinds(&c), (TurnKind::Either, TurnKind::Either));
    play(&mut c, "L-");
    assert_eq!(kinds(&c), (TurnKind::OneWay, TurnKind::Either));
    play(&mut c, "a1");
    assert_eq!(kinds(&c), (TurnKind::OneWay, TurnKind::Either));
    assert_eq!(
        Cube::new(Level::One).next_turn_kind(Player::X),
        TurnKind::OneWay
    );
}

#[test]
fn cube_v04_every_refusal_names_its_reason_and_changes_nothing() {
    let mut c = cube(
        &[
            ("F1", 'O'),
            ("F2", 'X'),
            ("F3", 'X'),
            ("F5", 'X'),
            ("F9", 'X'),
        ],
        'X',
        2,
        true,
        (1, 0),
    );
    let cases = [
        ("a1", CubeIllegal::OpponentSymbol, "opponent"),
        ("a2", CubeIllegal::SymbolLimit(Player::X), "4 symbols"),
        (
            "L-",
            CubeIllegal::WrongDirection(OneWayRule::Alternation),
            "wrong direction",
        ),
        ("B+", CubeIllegal::SecondFreeTurn, "second free turn"),
    ];
    for (action, reason, words) in cases {
        refused(&mut c, action, reason);
        assert!(reason.to_string().contains(words), "{reason}");
    }
}
