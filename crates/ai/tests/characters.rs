//! CLASSIC-R06: the three characters of the Vila Quintal play as described.

use std::collections::HashSet;

use velha_ai::{Character, Limits, Opponent, Rng};
use velha_rules::{Cell, Classic, Player, Position, Status, has_line};

fn after(board: &Classic, cell: Cell) -> Classic {
    let mut next = *board;
    next.play(cell).unwrap();
    next
}

/// Walks every line of play from `board` where Vó Quelônia is `her`: at her turns, each of
/// the moves she may pick; at the person's, every move. Fails if she ever loses. Returns the
/// number of finished games seen.
fn walk(board: &Classic, her: Player, seen: &mut HashSet<Classic>) -> u64 {
    match board.status() {
        Status::Win(p) => {
            assert_eq!(p, her, "Vó Quelônia lost: {board}");
            return 1;
        }
        Status::Draw => return 1,
        Status::Ongoing(_) => {}
    }
    if !seen.insert(*board) {
        return 0;
    }
    let moves: Vec<Cell> = if board.side_to_move() == her {
        Character::quelonia_candidates(board)
    } else {
        board.legal_actions().into_iter().collect()
    };
    assert!(!moves.is_empty());
    moves
        .iter()
        .map(|&c| walk(&after(board, c), her, seen))
        .sum()
}

/// Every position reachable from the empty board with either starter.
fn reachable() -> Vec<Classic> {
    let mut all = HashSet::new();
    let mut stack: Vec<Classic> = Player::BOTH.iter().map(|&p| Classic::new(p)).collect();
    while let Some(b) = stack.pop() {
        if all.insert(b) {
            stack.extend(b.legal_actions().into_iter().map(|c| after(&b, c)));
        }
    }
    all.into_iter().collect()
}

/// Whether the side to move can avoid losing with perfect play (plain minimax).
fn not_lost(board: &Classic) -> bool {
    fn value(b: &Classic) -> i8 {
        match b.status() {
            Status::Win(_) => -1,
            Status::Draw => 0,
            Status::Ongoing(_) => b
                .legal_actions()
                .into_iter()
                .map(|c| -value(&after(b, c)))
                .max()
                .unwrap(),
        }
    }
    value(board) >= 0
}

#[test]
fn classic_r06_quelonia_never_loses_from_the_empty_board_as_x_or_o() {
    for starter in Player::BOTH {
        for her in Player::BOTH {
            let games = walk(&Classic::new(starter), her, &mut HashSet::new());
            assert!(games > 0);
        }
    }
}

#[test]
fn classic_r06_quelonia_never_loses_from_any_reachable_position_she_can_hold() {
    let mut checked = 0;
    for board in reachable() {
        let Status::Ongoing(side) = board.status() else {
            continue;
        };
        // Positions where she moves and a draw or better is still possible.
        if not_lost(&board) {
            walk(&board, side, &mut HashSet::new());
            checked += 1;
        }
    }
    assert!(checked > 3000, "{checked}");
}

#[test]
fn classic_r06_quelonia_prefers_the_moves_with_most_ways_to_go_wrong() {
    // After X takes a corner, only the centre draws; she must find it.
    let mut b = Classic::new(Player::X);
    b.play("a1".parse().unwrap()).unwrap();
    assert_eq!(
        Character::quelonia_candidates(&b),
        vec!["b2".parse::<Cell>().unwrap()]
    );
    // From the empty board every move draws; she picks those that leave the person the
    // most losing replies: corners (a centre reply is forced, 7 others lose).
    let start = Character::quelonia_candidates(&Classic::new(Player::O));
    let names: HashSet<String> = start.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        names,
        ["a1", "c1", "a3", "c3"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}

/// Positions where the side to move (the character, as O) can win at once.
fn positions_with(predicate: impl Fn(&Classic) -> bool) -> Vec<Classic> {
    let mut found: Vec<Classic> = reachable()
        .into_iter()
        .filter(|b| !b.status().is_over() && b.side_to_move() == Player::O && predicate(b))
        .collect();
    found.sort_by_key(|b| b.to_string());
    found
}

fn wins_for(b: &Classic, p: Player) -> Vec<Cell> {
    b.legal_actions()
        .into_iter()
        .filter(|c| has_line(b.mask(p) | c.bit()))
        .collect()
}

/// Share of `trials` decisions per position that satisfy `hit`.
fn rate(
    character: Character,
    boards: &[Classic],
    trials: usize,
    hit: impl Fn(&Classic, Cell) -> bool,
) -> f64 {
    let mut rng = Rng::new(6);
    let mut who = character;
    let mut hits = 0;
    for b in boards {
        for _ in 0..trials {
            let c = who.choose(b, Limits::work(1), &mut rng).unwrap();
            assert!(b.legal_actions().contains(&c));
            hits += usize::from(hit(b, c));
        }
    }
    hits as f64 / (boards.len() * trials) as f64
}

#[test]
fn classic_r06_rabisco_wins_about_one_time_in_three() {
    // Where it has a choice: some cell neither wins nor blocks (otherwise not blocking, which
    // comes first, may leave only winning cells).
    let boards = positions_with(|b| {
        let (wins, blocks) = (wins_for(b, Player::O), wins_for(b, Player::X));
        !wins.is_empty()
            && b.legal_actions()
                .iter()
                .any(|c| !wins.contains(c) && !blocks.contains(c))
    });
    assert!(boards.len() > 100);
    let r = rate(Character::Rabisco, &boards, 50, |b, c| {
        wins_for(b, Player::O).contains(&c)
    });
    assert!((0.28..0.42).contains(&r), "win rate {r}");
}

#[test]
fn classic_r06_rabisco_never_blocks_when_another_cell_exists() {
    // The person threatens; Rabisco has no win of its own, and some cell is not the block.
    let boards = positions_with(|b| {
        let blocks = wins_for(b, Player::X);
        wins_for(b, Player::O).is_empty() && !blocks.is_empty() && b.legal_count() > blocks.len()
    });
    assert!(boards.len() > 100);
    let r = rate(Character::Rabisco, &boards, 20, |b, c| {
        wins_for(b, Player::X).contains(&c)
    });
    assert_eq!(r, 0.0);
}

#[test]
fn classic_r06_nino_wins_and_blocks_about_nine_times_in_ten() {
    let winnable = positions_with(|b| !wins_for(b, Player::O).is_empty());
    let r = rate(Character::Nino, &winnable, 50, |b, c| {
        wins_for(b, Player::O).contains(&c)
    });
    assert!((0.86..0.96).contains(&r), "win rate {r}");
    let blockable = positions_with(|b| {
        wins_for(b, Player::O).is_empty()
            && !wins_for(b, Player::X).is_empty()
            && b.legal_count() > 1
    });
    let r = rate(Character::Nino, &blockable, 50, |b, c| {
        wins_for(b, Player::X).contains(&c)
    });
    assert!((0.86..0.97).contains(&r), "block rate {r}");
}

#[test]
fn classic_r06_nino_ignores_forks_and_prefers_centre_corners_sides() {
    // With no win and no block, Nino's choice depends only on the cell's class, never on
    // double threats: always the best class available.
    let quiet =
        positions_with(|b| wins_for(b, Player::O).is_empty() && wins_for(b, Player::X).is_empty());
    let class = |c: Cell| match c.index() {
        4 => 0,
        0 | 2 | 6 | 8 => 1,
        _ => 2,
    };
    let r = rate(Character::Nino, &quiet, 20, |b, c| {
        let best = b.legal_actions().into_iter().map(class).min().unwrap();
        class(c) == best
    });
    assert_eq!(r, 1.0);
}

#[test]
fn the_same_seed_gives_the_same_choice() {
    let b = Classic::new(Player::O);
    for character in Character::ALL {
        let pick = |seed| {
            character
                .clone()
                .choose(&b, Limits::work(1), &mut Rng::new(seed))
        };
        assert_eq!(pick(3), pick(3));
    }
    let mut seen = HashSet::new();
    for seed in 0..50 {
        seen.insert(Character::Rabisco.choose(&b, Limits::work(1), &mut Rng::new(seed)));
    }
    assert!(seen.len() > 3, "different seeds vary the play");
}
