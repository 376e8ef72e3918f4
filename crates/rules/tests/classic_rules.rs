//! Jogo da Velha: tests named after the rule ids of `docs/rules/classic.md` that the rules
//! core holds (the opponents, rooms and help texts are tested where they live).

use velha_rules::{
    Cell, Classic, ClassicIllegal, LINES, Player, Position, Series, SeriesScore, Status,
};

fn play(game: &mut Classic, cells: &str) -> Status {
    let mut status = game.status();
    for c in cells.split_whitespace() {
        status = game
            .play(c.parse().unwrap())
            .unwrap_or_else(|e| panic!("{c}: {e}"));
    }
    status
}

#[test]
fn classic_r01_a_3x3_board_of_a1_to_c3_whose_pieces_never_move() {
    let names: Vec<String> = Cell::ALL.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        names,
        ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    );
    for bad in ["d1", "a4", "a0", "A1", "", "a", "a10", "b 2"] {
        assert!(bad.parse::<Cell>().is_err(), "{bad:?}");
    }
    let mut g = Classic::new(Player::X);
    play(&mut g, "b2 a1 c3");
    play(&mut g, "c1 a3");
    for (cell, p) in [
        ("b2", Player::X),
        ("a1", Player::O),
        ("c3", Player::X),
        ("c1", Player::O),
    ] {
        assert_eq!(g.piece(cell.parse().unwrap()), Some(p), "{cell}");
    }
}

#[test]
fn classic_r02_one_piece_on_an_empty_cell_no_pass() {
    let mut g = Classic::new(Player::X);
    play(&mut g, "b2");
    let before = g;
    assert_eq!(g.play("b2".parse().unwrap()), Err(ClassicIllegal::Occupied));
    assert_eq!(g, before);
    assert_eq!(g.legal_count(), 8);
    assert!(!g.legal_actions().contains(&"b2".parse().unwrap()));
    assert_eq!(
        g.timeout(),
        Err(ClassicIllegal::NoClock),
        "no clock, so no way to skip a turn"
    );
}

/// A position from a board of 9 characters (`.XO`, reading order) and the side to move.
fn position(board: &str, side: char) -> Classic {
    format!("{board} {side}").parse().unwrap()
}

#[test]
fn classic_r03_each_of_the_eight_lines_wins_at_once() {
    for line in LINES {
        let cells: Vec<Cell> = Cell::ALL
            .into_iter()
            .filter(|c| line & c.bit() != 0)
            .collect();
        let others: Vec<Cell> = Cell::ALL
            .into_iter()
            .filter(|c| line & c.bit() == 0)
            .collect();
        let mut board = ['.'; 9];
        board[cells[0].index()] = 'X';
        board[cells[1].index()] = 'X';
        board[others[0].index()] = 'O';
        board[others[1].index()] = 'O';
        let mut g = position(&board.iter().collect::<String>(), 'X');
        assert_eq!(g.status(), Status::Ongoing(Player::X));
        assert_eq!(g.winning_cells(), 0, "no line yet");
        assert_eq!(
            g.play(cells[2]),
            Ok(Status::Win(Player::X)),
            "line {line:09b}"
        );
        assert_eq!(
            g.winning_cells(),
            line,
            "the line shown is the one completed"
        );
        assert_eq!(g.legal_count(), 0);
        assert_eq!(g.play(others[2]), Err(ClassicIllegal::GameOver));
    }
}

#[test]
fn classic_r04_nine_cells_and_no_line_is_a_draw() {
    let mut g = Classic::new(Player::X);
    assert_eq!(play(&mut g, "a1 b2 c3 b1 b3 a3 c1 c2 a2"), Status::Draw);
    assert_eq!(g.to_string(), "XOXXOOOXX O");
    assert_eq!(g.winning_cells(), 0, "a draw shows no line");
    // A line made with the ninth piece is a win, not a draw.
    let won = position("XOXOXOO.X", 'O');
    assert_eq!(won.status(), Status::Win(Player::X));
    // Two lines at once (a1-b2-c3 and c1-b2-a3 share b2): both are shown, O's cells never.
    let both = position("XOXOXOXOX", 'O');
    assert_eq!(both.winning_cells(), 0b101_010_101);
    let mut last = position("XOXOO.XXO", 'X');
    assert_eq!(last.play("c2".parse().unwrap()), Ok(Status::Draw));
}

#[test]
fn classic_r05_x_starts_the_series_then_the_starter_alternates() {
    let mut series = Series::new(Player::X, Player::X);
    let mut starters = vec![];
    for game in 0..6 {
        let starter = series.next_starter();
        starters.push(starter);
        let mut g = Classic::new(starter);
        assert_eq!(g.status(), Status::Ongoing(starter));
        // Rematches count like any game: finish each one before the next starts.
        let moves = if game % 2 == 0 {
            "a1 b1 a2 b2 a3"
        } else {
            "a1 b2 c3 b1 b3 a3 c1 c2 a2"
        };
        let status = play(&mut g, moves);
        assert!(series.record(status));
    }
    use Player::{O, X};
    assert_eq!(starters, [X, O, X, O, X, O]);
}

#[test]
fn classic_r07_the_series_score_counts_wins_draws_and_losses() {
    let mut series = Series::new(Player::X, Player::X);
    assert!(
        !series.record(Status::Ongoing(Player::O)),
        "an unfinished game is not recorded"
    );
    for result in [
        Status::Win(Player::X),
        Status::Draw,
        Status::Win(Player::O),
        Status::Draw,
    ] {
        assert!(series.record(result));
    }
    assert_eq!(
        series.score(),
        SeriesScore {
            wins: 1,
            draws: 2,
            losses: 1
        }
    );
    assert_eq!(series.games_played(), 4);
}
