//! The match model (`velha_rules::game`): whole moves, the ply and the move clock, the same
//! for every game and every holder (app, server, AI).

use velha_rules::game::{Clock, Ending, Event, Refusal};
use velha_rules::{
    Classic, Cube, CubeAction, CubeIllegal, Level, Match, Player, Position, Ultimate, Variant,
};

const MINUTE: Option<Clock> = Some(Clock { move_ms: 60_000 });

fn a(text: &str) -> CubeAction {
    text.parse().unwrap()
}

#[test]
fn cube_r02_a_free_turn_and_its_main_action_are_one_move() {
    let mut m = Match::new(Cube::new(Level::Two), MINUTE, 0);
    let events = m.play_move(Player::X, &[a("S+"), a("b2")], 1_000).unwrap();
    assert_eq!(
        events,
        vec![Event::Moved {
            by: Player::X,
            ply: 1
        }]
    );
    assert_eq!((m.ply(), m.to_move()), (1, Some(Player::O)));
    assert_eq!(
        m.earlier().len(),
        2,
        "the start and the position after the free turn"
    );
    assert_eq!(
        m.deadline(),
        Some(61_000),
        "the clock restarts with the turn"
    );

    // The same move action by action: the free turn keeps the turn and the clock.
    let events = m.act(Player::O, a("B+"), 2_000).unwrap();
    assert_eq!(
        events,
        vec![Event::Continued {
            by: Player::O,
            action: a("B+"),
            ply: 2
        }]
    );
    assert_eq!(
        (m.ply(), m.to_move(), m.deadline()),
        (2, Some(Player::O), Some(61_000))
    );
    let before = m.clone();
    assert_eq!(
        m.act(Player::O, a("S+"), 3_000),
        Err(Refusal::Illegal {
            index: 0,
            reason: CubeIllegal::SecondFreeTurn
        })
    );
    assert_eq!(m, before, "a refusal changes nothing");
    m.act(Player::O, a("a1"), 4_000).unwrap();
    assert_eq!(
        (m.ply(), m.to_move(), m.deadline()),
        (3, Some(Player::X), Some(64_000))
    );
}

#[test]
fn cube_r02_a_move_must_end_the_turn_and_nothing_after_it() {
    let mut m = Match::new(Cube::new(Level::One), MINUTE, 0);
    let before = m.clone();
    assert_eq!(
        m.play_move(Player::X, &[a("S+")], 1),
        Err(Refusal::Unfinished)
    );
    assert_eq!(m.play_move(Player::X, &[], 1), Err(Refusal::Unfinished));
    assert_eq!(
        m.play_move(Player::X, &[a("a1"), a("b1")], 1),
        Err(Refusal::TooLong)
    );
    assert_eq!(
        m.play_move(Player::X, &[a("S+"), a("S+")], 1),
        Err(Refusal::Illegal {
            index: 1,
            reason: CubeIllegal::SecondFreeTurn
        })
    );
    assert_eq!(
        m.play_move(Player::O, &[a("a1")], 1),
        Err(Refusal::NotYourTurn)
    );
    assert_eq!(m, before, "refusals change nothing");
}

#[test]
fn cube_r11_a_winning_move_ends_the_match_and_stops_the_clock() {
    let mut m = Match::new(Cube::new(Level::One), MINUTE, 0);
    for (i, cell) in ["a1", "b1", "a2", "b2"].into_iter().enumerate() {
        let by = if i % 2 == 0 { Player::X } else { Player::O };
        m.play_move(by, &[a(cell)], 10).unwrap();
    }
    let events = m.play_move(Player::X, &[a("a3")], 20).unwrap();
    assert_eq!(
        events,
        vec![
            Event::Moved {
                by: Player::X,
                ply: 5
            },
            Event::Ended {
                winner: Some(Player::X),
                ending: Ending::Line
            },
        ]
    );
    assert_eq!((m.to_move(), m.deadline()), (None, None));
    assert!(m.tick(1_000_000).is_empty(), "no clock after the end");
    assert_eq!(m.play_move(Player::O, &[a("c1")], 30), Err(Refusal::Over));
    assert_eq!(m.abandon(Player::O), Err(Refusal::Over));
}

#[test]
fn on_m03_the_side_to_move_loses_when_its_minute_runs_out() {
    let mut m = Match::new(Cube::new(Level::Two), MINUTE, 1_000);
    m.play_move(Player::X, &[a("b2")], 31_000).unwrap();
    assert_eq!(m.deadline(), Some(91_000), "each move has its own minute");
    assert!(m.tick(90_999).is_empty());
    assert_eq!(m.time_left(90_001), Some(999));
    let before = m.clone();
    assert_eq!(
        m.play_move(Player::O, &[a("a1")], 91_000),
        Err(Refusal::TimeUp)
    );
    assert_eq!(m, before, "a late move changes nothing: the clock decides");
    assert_eq!(
        m.tick(91_000),
        vec![
            Event::TurnLost {
                by: Player::O,
                ply: 2
            },
            Event::Ended {
                winner: Some(Player::X),
                ending: Ending::Time
            },
        ]
    );
    assert_eq!(m.ended(), Some((Some(Player::X), Ending::Time)));
}

#[test]
fn v2_r05_a_lost_turn_passes_the_move_and_the_third_in_a_row_loses() {
    let mut m = Match::new(Ultimate::new(Variant::V2, Player::X), MINUTE, 0);
    assert_eq!(
        m.tick(60_000),
        vec![Event::TurnLost {
            by: Player::X,
            ply: 1
        }]
    );
    assert_eq!(m.to_move(), Some(Player::O));
    assert_eq!(
        m.deadline(),
        Some(120_000),
        "the next turn starts when the last ran out"
    );
    m.play_move(Player::O, &["e5".parse().unwrap()], 100_000)
        .unwrap();
    assert_eq!(m.deadline(), Some(160_000));
    // X is away: two more lost turns in a row, each after O's move.
    assert_eq!(
        m.tick(160_000),
        vec![Event::TurnLost {
            by: Player::X,
            ply: 3
        }]
    );
    let cell = m.position().legal_actions().into_iter().next().unwrap();
    m.play_move(Player::O, &[cell], 170_000).unwrap();
    assert_eq!(
        m.tick(230_000),
        vec![
            Event::TurnLost {
                by: Player::X,
                ply: 5
            },
            Event::Ended {
                winner: Some(Player::O),
                ending: Ending::Time
            },
        ]
    );
}

#[test]
fn v2_r05_a_clock_left_alone_catches_up_turn_by_turn() {
    // Nobody plays for six minutes: X, O, X, O lose a turn each, then X's third ends it.
    let mut m = Match::new(Ultimate::new(Variant::V2, Player::X), MINUTE, 0);
    let events = m.tick(360_000);
    let lost: Vec<Player> = events
        .iter()
        .filter_map(|e| match e {
            Event::TurnLost { by, .. } => Some(*by),
            _ => None,
        })
        .collect();
    assert_eq!(
        lost,
        [Player::X, Player::O, Player::X, Player::O, Player::X]
    );
    assert_eq!(
        events.last(),
        Some(&Event::Ended {
            winner: Some(Player::O),
            ending: Ending::Time
        })
    );
    assert_eq!(m.ply(), 5);
}

#[test]
fn on_m04_leaving_is_a_loss_by_abandonment() {
    let mut m = Match::new(Cube::new(Level::One), MINUTE, 0);
    assert_eq!(
        m.abandon(Player::X),
        Ok((Some(Player::O), Ending::Abandonment))
    );
    assert_eq!((m.to_move(), m.deadline()), (None, None));
    assert_eq!(m.play_move(Player::O, &[a("a1")], 1), Err(Refusal::Over));
}

#[test]
fn classic_r01_games_without_a_clock_never_time_out() {
    let mut m = Match::new(Classic::new(Player::X), None, 0);
    assert_eq!(m.deadline(), None);
    assert!(m.tick(u64::MAX).is_empty());
    m.play_move(Player::X, &["b2".parse().unwrap()], u64::MAX)
        .unwrap();
    assert_eq!(m.to_move(), Some(Player::O));
}

#[test]
fn a_match_resumed_from_storage_keeps_its_ply_and_deadline() {
    let mut live = Match::new(Cube::new(Level::Two), MINUTE, 0);
    live.play_move(Player::X, &[a("b2")], 5_000).unwrap();
    let resumed = Match::resume(*live.position(), live.ply(), MINUTE, live.deadline());
    assert_eq!(
        (resumed.ply(), resumed.deadline(), resumed.to_move()),
        (live.ply(), live.deadline(), live.to_move())
    );
}

#[test]
fn cube_r13_a_match_resumed_with_its_earlier_positions_keeps_the_last_of_them() {
    let mut live = Match::new(Cube::new(Level::One), None, 0);
    for i in 0..10 {
        let by = if i % 2 == 0 { Player::X } else { Player::O };
        live.play_move(by, &[a("F+")], 0).unwrap();
    }
    let resumed = Match::resume(*live.position(), live.ply(), None, None)
        .with_earlier(live.earlier().to_vec());
    assert_eq!(resumed, live);
    // More than a match keeps: only the most recent are.
    let many = vec![*live.position(); velha_rules::game::EARLIER_KEPT + 5];
    let mut start = Cube::new(Level::One);
    start.play(a("b2")).unwrap();
    let mut earlier = vec![start];
    earlier.extend(many);
    let bounded = Match::resume(*live.position(), 0, None, None).with_earlier(earlier);
    assert_eq!(bounded.earlier().len(), velha_rules::game::EARLIER_KEPT);
    assert!(!bounded.earlier().contains(&start), "the oldest went first");
}

#[test]
fn cube_r13_a_game_without_end_keeps_a_bounded_memory() {
    // Two players turning F+ forever: no move limit, and no unbounded growth either.
    let mut m = Match::new(Cube::new(Level::One), None, 0);
    for i in 0..3 * velha_rules::game::EARLIER_KEPT {
        let by = if i % 2 == 0 { Player::X } else { Player::O };
        m.play_move(by, &[a("F+")], 0).unwrap();
        assert!(m.earlier().len() <= velha_rules::game::EARLIER_KEPT);
    }
    assert_eq!(m.ply() as usize, 3 * velha_rules::game::EARLIER_KEPT);
    // The memory is the most recent part of the game: its last position led to this one.
    let mut last = *m.earlier().last().unwrap();
    last.play(a("F+")).unwrap();
    assert_eq!(last, *m.position());
}
