use super::*;
use velha_rules::{Cell, Classic};

/// A judge that says what it is told of each position, named by its cells (X first): the
/// analyst's own bookkeeping checked apart from any search.
struct Scripted {
    said: Vec<(&'static [&'static str], f32, &'static str)>,
    now: Option<Classic>,
}

fn board(cells: &[&str]) -> Classic {
    let mut b = Classic::new(Player::X);
    for c in cells {
        b.play(c.parse::<Cell>().unwrap()).unwrap();
    }
    b
}

impl Judge<Classic> for Scripted {
    fn begin(&mut self, _earlier: &[Classic], position: &Classic) {
        self.now = Some(*position);
    }

    fn judge(&mut self, _slice: Duration) -> Option<Estimate> {
        let asked = self.now.take()?;
        let &(_, chance, best) = self
            .said
            .iter()
            .find(|(cells, _, _)| board(cells) == asked)
            .unwrap_or_else(|| panic!("nothing said of {asked}"));
        Some(Estimate {
            chance,
            best: vec![best.to_owned()],
            exact: None,
        })
    }
}

/// The positions and moves of a classic game from its cells, X first.
fn classic_game(cells: &[&str]) -> Game<Classic> {
    let mut board = Classic::new(Player::X);
    let mut positions = vec![board];
    for c in cells {
        board.play(c.parse::<Cell>().unwrap()).unwrap();
        positions.push(board);
    }
    let winner = match board.status() {
        Status::Win(p) => Some(p),
        _ => None,
    };
    Game {
        positions,
        played: cells.iter().map(|c| Some(vec![c.to_string()])).collect(),
        winner,
    }
}

#[test]
fn ana_03_a_drop_of_a_tenth_a_fifth_and_three_tenths_make_the_three_faults() {
    assert_eq!(Verdict::of_drop(-0.4), Verdict::Best, "a gain is no fault");
    assert_eq!(Verdict::of_drop(0.0999), Verdict::Best);
    assert_eq!(Verdict::of_drop(0.10), Verdict::Inaccuracy);
    assert_eq!(Verdict::of_drop(0.1999), Verdict::Inaccuracy);
    assert_eq!(Verdict::of_drop(0.20), Verdict::Mistake);
    assert_eq!(Verdict::of_drop(0.2999), Verdict::Mistake);
    assert_eq!(Verdict::of_drop(0.30), Verdict::Blunder);
    assert_eq!(Verdict::of_drop(1.0), Verdict::Blunder);
}

#[test]
fn ana_02_a_win_is_worth_one_a_velha_a_half_and_the_other_side_sees_the_rest() {
    assert_eq!(Exact::Win(3).chance(), 1.0);
    assert_eq!(Exact::Draw.chance(), 0.5);
    assert_eq!(Exact::Loss(2).chance(), 0.0);
    assert_eq!(Exact::Win(3).flip(), Exact::Loss(3));
    assert_eq!(Exact::Draw.flip(), Exact::Draw);
    // O's chance of 0.7 is X's 0.3 on the graph.
    let game = classic_game(&["a1", "b2"]);
    let judge = Scripted {
        said: vec![
            (&[], 0.5, "a1"),
            (&["a1"], 0.7, "b2"),
            (&["a1", "b2"], 0.5, "c3"),
        ],
        now: None,
    };
    let a = Analyst::new(judge, game)
        .unwrap()
        .step(Duration::MAX)
        .unwrap();
    assert_eq!(a.x_chances, vec![0.5, 0.3, 0.5]);
}

#[test]
fn ana_03_the_best_move_is_ótima_whatever_the_estimates_say_and_the_rest_by_their_drop() {
    // X's a1 when b2 was best: after b2 O's chance would be 0.2, after a1 it is 0.55, so X's
    // went from 0.8 to 0.45, a drop of 0.35. O's b2 was its best move, whatever the figures.
    // X's c1 when c3 was best: O's chance 0.3 after c3, 0.45 after c1: a drop of 0.15.
    let game = classic_game(&["a1", "b2", "c1"]);
    let judge = Scripted {
        said: vec![
            (&[], 0.6, "b2"),
            (&["b2"], 0.2, "a1"),
            (&["a1"], 0.55, "b2"),
            (&["a1", "b2"], 0.6, "c3"),
            (&["a1", "b2", "c3"], 0.3, "a3"),
            (&["a1", "b2", "c1"], 0.45, "a2"),
        ],
        now: None,
    };
    let a = Analyst::new(judge, game)
        .unwrap()
        .step(Duration::MAX)
        .unwrap();
    let verdicts: Vec<Verdict> = a
        .reviews
        .iter()
        .map(|r| r.as_ref().unwrap().verdict)
        .collect();
    assert_eq!(
        verdicts,
        [Verdict::Blunder, Verdict::Best, Verdict::Inaccuracy]
    );
    let first = a.reviews[0].as_ref().unwrap();
    assert_eq!(first.mover, Player::X);
    assert_eq!(first.best, ["b2"]);
    assert!((first.before - 0.8).abs() < 1e-6 && (first.after - 0.45).abs() < 1e-6);
    assert_eq!(a.x_chances, vec![0.6, 0.45, 0.6, 0.55]);
}

#[test]
fn ana_07_decided_at_the_move_after_which_the_winner_stays_sure() {
    // X wins a1 b1 a2 b2 a3. X's chance at the start 0.5, then 0.6, 0.95, 0.8, 0.97 (after
    // O's b2), then the win: from b2 on X stays above 0.9.
    let game = classic_game(&["a1", "b1", "a2", "b2", "a3"]);
    // The side to move's chances; each move was its best, so nothing else is judged.
    let judge = Scripted {
        said: vec![
            (&[], 0.5, "a1"),
            (&["a1"], 0.4, "b1"),
            (&["a1", "b1"], 0.95, "a2"),
            (&["a1", "b1", "a2"], 0.2, "b2"),
            (&["a1", "b1", "a2", "b2"], 0.97, "a3"),
        ],
        now: None,
    };
    let a = Analyst::new(judge, game)
        .unwrap()
        .step(Duration::MAX)
        .unwrap();
    assert_eq!(a.decided, Some(3));
    assert_eq!(a.x_chances.last(), Some(&1.0));
}

#[test]
fn ana_07_a_draw_is_decided_by_nobody_and_a_sure_start_is_the_first_move() {
    let drawn = classic_game(&["b2", "a1", "c3", "a3", "a2", "c2", "b1", "b3", "c1"]);
    assert_eq!(drawn.winner, None);
    let a = Analyst::new(ClassicJudge::default(), drawn)
        .unwrap()
        .step(Duration::MAX)
        .unwrap();
    assert_eq!(a.decided, None);
    let judge = Scripted {
        said: vec![
            (&[], 0.95, "a1"),
            (&["a1"], 0.05, "b1"),
            (&["a1", "b1"], 0.95, "a2"),
            (&["a1", "b1", "a2"], 0.05, "b2"),
            (&["a1", "b1", "a2", "b2"], 0.95, "a3"),
        ],
        now: None,
    };
    let a = Analyst::new(judge, classic_game(&["a1", "b1", "a2", "b2", "a3"]))
        .unwrap()
        .step(Duration::MAX)
        .unwrap();
    assert_eq!(a.decided, Some(0));
}

#[test]
fn ana_01_a_game_that_does_not_hold_together_is_refused() {
    let mut game = classic_game(&["a1", "b1"]);
    game.played.pop();
    assert_eq!(
        Analyst::new(ClassicJudge::default(), game).err(),
        Some(NotAnalysable::Shape)
    );
    let mut game = classic_game(&["a1", "b1", "a2", "b2", "a3"]);
    let end = *game.positions.last().unwrap();
    game.positions.push(end);
    game.played.push(Some(vec!["c3".into()]));
    assert_eq!(
        Analyst::new(ClassicJudge::default(), game).err(),
        Some(NotAnalysable::MoveAfterTheEnd)
    );
}

#[test]
fn ana_07_a_winner_never_sure_of_it_decided_nothing() {
    // O resigned after two moves: X won a game nobody was sure of.
    let mut game = classic_game(&["a1", "b1"]);
    game.winner = Some(Player::X);
    let judge = Scripted {
        said: vec![
            (&[], 0.5, "a1"),
            (&["a1"], 0.5, "b1"),
            (&["a1", "b1"], 0.7, "b2"),
        ],
        now: None,
    };
    let a = Analyst::new(judge, game)
        .unwrap()
        .step(Duration::MAX)
        .unwrap();
    assert_eq!(a.decided, None);
}

/// A judge of the cube that says the same of every position, and counts what it is asked.
struct Even {
    asked: usize,
    best: &'static [&'static str],
}

impl Judge<velha_rules::Cube> for Even {
    fn begin(&mut self, _earlier: &[velha_rules::Cube], _position: &velha_rules::Cube) {
        self.asked += 1;
    }

    fn judge(&mut self, _slice: Duration) -> Option<Estimate> {
        Some(Estimate {
            chance: 0.6,
            best: self.best.iter().map(|a| a.to_string()).collect(),
            exact: None,
        })
    }
}

#[test]
fn ana_03_a_move_to_the_best_moves_position_is_the_best_move_in_other_words() {
    use velha_rules::{Cube, Level};
    // On a blank cube L+ and L- make the same position: playing one when the other was best
    // is the best move, and needs no second opinion.
    let start = Cube::new(Level::Two);
    let mut after = start;
    after.play("L+".parse().unwrap()).unwrap();
    let mut other = start;
    other.play("L-".parse().unwrap()).unwrap();
    assert_eq!(after, other);
    let game = Game {
        positions: vec![start, after],
        played: vec![Some(vec!["L+".into()])],
        winner: None,
    };
    let mut analyst = Analyst::new(
        Even {
            asked: 0,
            best: &["L-"],
        },
        game,
    )
    .unwrap();
    let a = analyst.step(Duration::MAX).unwrap();
    let r = a.reviews[0].as_ref().unwrap();
    assert_eq!(r.verdict, Verdict::Best);
    assert_eq!(r.before, r.after, "the best move's chance is where it led");
    assert_eq!(analyst.judge.asked, 2, "the two positions, nothing more");
}
