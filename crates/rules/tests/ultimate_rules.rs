//! Super Jogo da Velha and Jogo da Velha 2.0: tests named after the rule ids of
//! `docs/rules/ultimate.md` that the rules core holds.

use velha_rules::ultimate::{BoardState, LOST_TURNS_TO_LOSE};
use velha_rules::{
    Ending, INITIAL_RATING, Player, Position, RatedResult, Series, Status, UltCell, Ultimate,
    UltimateIllegal, Variant, rating_after,
};

fn cell(text: &str) -> UltCell {
    text.parse().unwrap()
}

fn play(g: &mut Ultimate, cells: &str) -> Status {
    let mut status = g.status();
    for c in cells.split_whitespace() {
        status = g.play(cell(c)).unwrap_or_else(|e| panic!("{c}: {e}"));
    }
    status
}

/// A 9x9 grid (reading order) with small boards filled from 9-character patterns
/// (reading order inside the board), `None` for an empty board.
fn grid(boards: [Option<&str>; 9]) -> String {
    let mut g = ['.'; 81];
    for (b, pattern) in boards.iter().enumerate() {
        if let Some(pattern) = pattern {
            for (pos, c) in pattern.chars().enumerate() {
                let cell = UltCell::in_board(b, pos).unwrap();
                g[cell.row() * 9 + cell.col()] = c;
            }
        }
    }
    g.iter().collect()
}

fn position(variant: Variant, boards: [Option<&str>; 9], side: char, sent: char) -> Ultimate {
    let line = format!("{} {side} {sent}", grid(boards));
    Ultimate::from_state_line(variant, &line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

const X_WON: &str = "XXXOO....";
const O_WON: &str = "OOOXX.X..";
const DRAWN: &str = "XOXXOOOXX";
/// Drawn once X fills its last cell (position 9): X O X / X O O / O X _.
const X_DRAWS_NEXT: &str = "XOXXOOOX.";
/// Drawn once O fills its last cell: O X O / O X X / X O _.
const O_DRAWS_NEXT: &str = "OXOOXXXO.";

#[test]
fn ult_r01_cells_a1_to_i9_and_each_cell_sends_to_its_position() {
    assert_eq!(
        (cell("e5").board(), cell("e5").pos()),
        (4, 4),
        "e5 is the centre of the centre"
    );
    assert_eq!((cell("a1").board(), cell("a1").pos()), (0, 0));
    assert_eq!((cell("i9").board(), cell("i9").pos()), (8, 8));
    assert_eq!((cell("d4").board(), cell("d4").pos()), (4, 0));
    assert_eq!((cell("c7").board(), cell("c7").pos()), (6, 2));
    for bad in ["j1", "a0", "a10", "e", "E5"] {
        assert!(bad.parse::<UltCell>().is_err(), "{bad}");
    }
    let mut g = Ultimate::new(Variant::Super, Player::X);
    play(&mut g, "c7"); // position 3 of board 7 sends to board 3
    assert_eq!(g.sent_board(), Some(2));
}

#[test]
fn ult_r02_the_starter_plays_first_anywhere() {
    for starter in [Player::X, Player::O] {
        let g = Ultimate::new(Variant::Super, starter);
        assert_eq!(g.status(), Status::Ongoing(starter));
        assert_eq!(g.legal_count(), 81);
    }
}

#[test]
fn ult_r03_the_next_move_goes_in_the_board_sent_to() {
    let mut g = Ultimate::new(Variant::V2, Player::X);
    play(&mut g, "e5");
    let legal: Vec<String> = g.legal_actions().map(|c| c.to_string()).collect();
    assert_eq!(legal.len(), 8);
    assert!(legal.iter().all(|c| cell(c).board() == 4));
    let before = g;
    assert_eq!(
        g.play(cell("a1")),
        Err(UltimateIllegal::WrongBoard { sent: 4 })
    );
    assert_eq!(g, before);
}

#[test]
fn ult_r04_a_decided_board_frees_the_next_move() {
    // Board 1 (top-left) is won by X; O is sent there by X's a1 in board 5 … so anywhere.
    let mut g = position(
        Variant::Super,
        [Some(X_WON), None, None, None, None, None, None, None, None],
        'X',
        '*',
    );
    play(&mut g, "d4"); // position 1 of board 5: sends to board 1, which is decided
    assert_eq!(g.sent_board(), None);
    let legal: Vec<UltCell> = g.legal_actions().collect();
    assert!(
        legal.iter().all(|c| c.board() != 0),
        "nothing in the decided board"
    );
    assert_eq!(legal.len(), 81 - 9 - 1);
}

#[test]
fn ult_r05_won_and_drawn_boards_accept_no_more_moves() {
    let mut g = position(
        Variant::Super,
        [
            Some(X_WON),
            Some(DRAWN),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        ],
        'O',
        '*',
    );
    assert_eq!(g.board(0), BoardState::Won(Player::X));
    assert_eq!(g.board(1), BoardState::Drawn);
    let before = g;
    assert_eq!(
        g.play(cell("a3")),
        Err(UltimateIllegal::BoardDecided),
        "an empty cell of a won board"
    );
    assert_eq!(g, before);
    // Winning a board with its first line decides it even with empty cells left.
    let mut h = position(
        Variant::Super,
        [
            Some("OO.XX...."),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        ],
        'O',
        '1',
    );
    play(&mut h, "c1");
    assert_eq!(h.board(0), BoardState::Won(Player::O));
    assert_eq!(
        h.to_string().matches('.').count(),
        81 - 5,
        "cells were left empty"
    );
}

#[test]
fn super_r01_a_drawn_board_belongs_to_nobody() {
    // Boards 1 and 2 won by X, board 3 drawn: no line for anybody in Super.
    let g = position(
        Variant::Super,
        [
            Some(X_WON),
            Some(X_WON),
            Some(DRAWN),
            None,
            None,
            None,
            None,
            None,
            None,
        ],
        'O',
        '*',
    );
    assert_eq!(g.status(), Status::Ongoing(Player::O));
    assert_eq!((g.points(Player::X), g.points(Player::O)), (2, 0));
}

#[test]
fn super_r02_three_won_boards_in_a_line_win() {
    // X owns boards 1 and 5; board 9 needs one more X at its position 3 (i7).
    let mut g = position(
        Variant::Super,
        [
            Some(X_WON),
            None,
            None,
            None,
            Some(X_WON),
            None,
            None,
            None,
            Some("XX.OO...."),
        ],
        'X',
        '9',
    );
    assert_eq!(g.winning_boards(), 0, "no line of boards yet");
    assert_eq!(g.play(cell("i7")), Ok(Status::Win(Player::X)));
    assert_eq!(g.winning_boards(), 0b100_010_001, "boards 1, 5 and 9");
    assert_eq!(g.legal_count(), 0);
}

#[test]
fn super_r03_all_boards_decided_without_a_line_is_a_draw() {
    // Big board X O X / X O O / O X X (no line); the last board is won by X's move.
    let mut g = position(
        Variant::Super,
        [
            Some(X_WON),
            Some(O_WON),
            Some(X_WON),
            Some(X_WON),
            Some(O_WON),
            Some(O_WON),
            Some(O_WON),
            Some(X_WON),
            Some("XX.OO...."),
        ],
        'X',
        '9',
    );
    assert_eq!(g.play(cell("i7")), Ok(Status::Draw));
    assert_eq!(g.winning_boards(), 0, "a draw shows no line");
}

#[test]
fn super_r05_the_coin_toss_picks_the_first_starter_then_it_alternates() {
    for toss in [Player::X, Player::O] {
        let mut series = Series::new(toss, Player::X);
        let mut starters = vec![];
        for _ in 0..4 {
            let starter = series.next_starter();
            starters.push(starter);
            assert_eq!(
                Ultimate::new(Variant::Super, starter).side_to_move(),
                starter
            );
            series.record(Status::Draw);
        }
        assert_eq!(starters, [toss, !toss, toss, !toss]);
    }
}

#[test]
fn v2_r01_a_drawn_board_is_a_state_of_its_own() {
    let g = position(
        Variant::V2,
        [Some(DRAWN), None, None, None, None, None, None, None, None],
        'X',
        '*',
    );
    assert_eq!(g.board(0), BoardState::Drawn);
    assert_eq!(g.big_board(), "=........");
}

#[test]
fn v2_r02_won_boards_score_for_the_winner_drawn_boards_for_both() {
    let g = position(
        Variant::V2,
        [
            Some(X_WON),
            Some(DRAWN),
            Some(O_WON),
            None,
            Some(DRAWN),
            None,
            None,
            None,
            None,
        ],
        'X',
        '*',
    );
    assert_eq!((g.points(Player::X), g.points(Player::O)), (3, 3));
}

#[test]
fn v2_r03_a_line_of_points_wins_even_on_the_opponents_move() {
    // X owns boards 1 and 2; O must draw board 3, which completes X's top line.
    let mut g = position(
        Variant::V2,
        [
            Some(X_WON),
            Some(X_WON),
            Some(O_DRAWS_NEXT),
            None,
            None,
            None,
            None,
            None,
            None,
        ],
        'O',
        '3',
    );
    assert_eq!(g.play(cell("i3")), Ok(Status::Win(Player::X)));
    assert_eq!(
        g.winning_boards(),
        0b000_000_111,
        "the top row, the drawn board with it"
    );
    // The same move in Super wins nothing.
    let mut s = position(
        Variant::Super,
        [
            Some(X_WON),
            Some(X_WON),
            Some(O_DRAWS_NEXT),
            None,
            None,
            None,
            None,
            None,
            None,
        ],
        'O',
        '3',
    );
    assert_eq!(s.play(cell("i3")), Ok(Status::Ongoing(Player::X)));
}

#[test]
fn v2_r03_lines_for_both_at_once_are_a_draw() {
    // Boards 4 and 5 drawn; X draws board 6: the middle row gives both players a line.
    let mut g = position(
        Variant::V2,
        [
            None,
            None,
            None,
            Some(DRAWN),
            Some(DRAWN),
            Some(X_DRAWS_NEXT),
            None,
            None,
            None,
        ],
        'X',
        '6',
    );
    assert_eq!(g.play(cell("i6")), Ok(Status::Draw));
    assert_eq!(
        g.winning_boards(),
        0,
        "a line for both wins nothing, so none is shown"
    );
}

#[test]
fn v2_r04_all_boards_decided_without_a_line_is_a_draw_whatever_the_points() {
    // Big board X X O / O X X / X O O: no line, X has 5 points and O 4 when O wins the last.
    let mut g = position(
        Variant::V2,
        [
            Some(X_WON),
            Some(X_WON),
            Some(O_WON),
            Some(O_WON),
            Some(X_WON),
            Some(X_WON),
            Some(X_WON),
            Some(O_WON),
            Some("OO.XX...."),
        ],
        'O',
        '9',
    );
    assert_eq!(g.play(cell("i7")), Ok(Status::Draw));
    assert_eq!((g.points(Player::X), g.points(Player::O)), (5, 4));
}

#[test]
fn v2_r05_a_lost_turn_passes_the_move_anywhere_and_three_in_a_row_lose() {
    let mut g = Ultimate::new(Variant::V2, Player::X);
    play(&mut g, "e5");
    assert_eq!(g.sent_board(), Some(4));
    assert_eq!(
        g.timeout(),
        Ok(Status::Ongoing(Player::X)),
        "O lost the turn"
    );
    assert_eq!(g.sent_board(), None, "X may play anywhere open");
    assert_eq!(g.legal_count(), 80);
    play(&mut g, "a1"); // X plays; O is sent to board 1
    assert_eq!(g.timeout(), Ok(Status::Ongoing(Player::X)));
    play(&mut g, "i9");
    assert_eq!(g.lost_turns(Player::O), 2);
    assert_eq!(
        g.timeout(),
        Ok(Status::Win(Player::X)),
        "O's third lost turn in a row"
    );
    assert_eq!(g.lost_turns(Player::O), LOST_TURNS_TO_LOSE);
    // A move in between resets the count.
    let mut h = Ultimate::new(Variant::V2, Player::X);
    h.timeout().unwrap();
    h.timeout().unwrap();
    play(&mut h, "a1");
    h.timeout().unwrap();
    assert_eq!(h.lost_turns(Player::X), 0, "X's move reset its count");
    assert_eq!(h.lost_turns(Player::O), 2, "O lost both of its turns");
    // Super has no clock.
    assert_eq!(
        Ultimate::new(Variant::Super, Player::X).timeout(),
        Err(UltimateIllegal::NoClock)
    );
}

#[test]
fn v2_r05_the_state_line_holds_the_turns_lost_in_a_row() {
    let mut g = Ultimate::new(Variant::V2, Player::X);
    play(&mut g, "e5");
    g.timeout().unwrap();
    play(&mut g, "a1");
    g.timeout().unwrap();
    let line = g.to_string();
    assert!(line.ends_with(" X * x=0 o=2"), "{line}");
    let read = Ultimate::from_state_line(Variant::V2, &line).unwrap();
    assert_eq!(read, g);
    // Its third lost turn in a row ends the game from the line alone.
    let mut third = read;
    play(&mut third, "i9");
    assert_eq!(third.timeout(), Ok(Status::Win(Player::X)));
    assert_eq!(third.ending(), Some(Ending::Time));
    // Without counts, none is lost: the line of a position that lost none has none, and the
    // counts may be written anyway (a store that must tell its lines from older ones does).
    let old = line.trim_end_matches(" x=0 o=2");
    let old = Ultimate::from_state_line(Variant::V2, old).unwrap();
    assert_eq!(
        (old.lost_turns(Player::X), old.lost_turns(Player::O)),
        (0, 0)
    );
    assert_eq!(old.to_string().split(' ').count(), 3);
    let counted = old.state_line_with_counts();
    assert!(counted.ends_with(" x=0 o=0"), "{counted}");
    assert_eq!(Ultimate::from_state_line(Variant::V2, &counted), Ok(old));
    // Counts no game reaches, and counts on Super (no clock), are refused: beyond three, the
    // third on the side that waits, a lost turn of the side that waits while a board is sent.
    let board = &line[..line.find(' ').unwrap()];
    for bad in [
        format!("{board} X * x=0 o=4"),
        format!("{board} X * x=0 o=3"),
        format!("{board} X 5 x=0 o=2"),
        format!("{board} X * x=0 o=300"),
        format!("{board} X * x=0"),
        format!("{board} X * x=00 o=1"),
        format!("{board} X * o=1 x=0"),
    ] {
        assert!(
            Ultimate::from_state_line(Variant::V2, &bad).is_err(),
            "{bad}"
        );
    }
    assert!(Ultimate::from_state_line(Variant::Super, &line).is_err());
    let fresh_super = Ultimate::new(Variant::Super, Player::X).to_string();
    assert_eq!(fresh_super.split(' ').count(), 3, "{fresh_super}");
    // A record stored before the line held the counts kept them beside it.
    let record = format!(r#"{{"variant":"v2","state":"{old}","lost_turns":[0,2]}}"#);
    assert_eq!(serde_json::from_str::<Ultimate>(&record).unwrap(), g);
}

#[test]
fn v2_r06_rating_moves_plus30_0_minus20_from_1000_never_below_0() {
    assert_eq!(INITIAL_RATING, 1000);
    assert_eq!(rating_after(1000, RatedResult::Win), 1030);
    assert_eq!(rating_after(1000, RatedResult::Draw), 1000);
    assert_eq!(rating_after(1000, RatedResult::Loss), 980);
    assert_eq!(rating_after(15, RatedResult::Loss), 0);
    assert_eq!(rating_after(0, RatedResult::Loss), 0);
}

#[test]
fn v2_r08_x_always_starts_and_the_players_swap_symbols_so_the_score_stays_each_players() {
    use Player::{O, X};
    let mut series = Series::swapping(X);
    let mut starters = vec![];
    let mut person = vec![];
    // The person wins the first game as X and the second as O, then loses the third as X.
    for winner in [X, O, O] {
        starters.push(series.next_starter());
        person.push(series.next_side());
        assert_eq!(
            Ultimate::new(Variant::V2, series.next_starter()).side_to_move(),
            X
        );
        assert!(series.record(Status::Win(winner)));
    }
    assert_eq!(starters, [X, X, X]);
    assert_eq!(person, [X, O, X]);
    assert_eq!((series.side_in(1), series.starter_of(1)), (O, X));
    let score = series.score();
    assert_eq!((score.wins, score.draws, score.losses), (2, 0, 1));
    // Super keeps the symbols and alternates the starter instead (SUPER-R05).
    let kept = Series::new(X, X);
    assert_eq!((kept.side_in(1), kept.starter_of(1)), (X, O));
}

#[test]
fn v2_r08_a_series_written_as_a_line_reads_back_the_same() {
    use Player::{O, X};
    let mut swapping = Series::swapping(X);
    let mut alternating = Series::new(O, X);
    for winner in [Status::Win(X), Status::Draw, Status::Win(O)] {
        assert!(swapping.record(winner));
        assert!(alternating.record(winner));
    }
    for series in [swapping, alternating, Series::new(X, O)] {
        let line = series.line();
        let read = Series::from_line(&line).expect("a series line");
        assert_eq!(read, series, "{line}");
        assert_eq!(
            (read.next_starter(), read.next_side()),
            (series.next_starter(), series.next_side())
        );
    }
    assert_eq!(swapping.line(), "X 1 3 X 1 1 1");
    // Anything else is no series: a missing, extra or foreign field, or a score that does
    // not add up to the games played.
    for damaged in [
        "",
        "X 1 3 X 1 1",
        "X 1 3 X 1 1 1 0",
        "Z 1 3 X 1 1 1",
        "X 2 3 X 1 1 1",
        "X 1 3 X 1 1 2",
        "X 1 -3 X 1 1 1",
    ] {
        assert_eq!(Series::from_line(damaged), None, "{damaged:?}");
    }
}
