//! SUPER-R04 and V2-R07: the computer plays both ultimate games at three levels, each
//! clearly stronger than the one below.

use velha_ai::arena::{Seat, play_match};
use velha_ai::{Difficulty, Limits, Opponent, Rng, UltimateAi};
use velha_rules::ultimate::BoardState;
use velha_rules::{Player, Position, Status, Ultimate, Variant};

fn ladder(variant: Variant) {
    let start = Ultimate::new(variant, Player::X);
    let mut hard = UltimateAi::new(Difficulty::Hard);
    let mut medium = UltimateAi::new(Difficulty::Medium);
    let mut easy = UltimateAi::new(Difficulty::Easy);
    let top = play_match(
        start,
        Seat {
            player: &mut hard,
            limits: Limits::work(3_000),
        },
        Seat {
            player: &mut medium,
            limits: Limits::work(3_000),
        },
        10,
        21,
        100,
    );
    assert!(top.win_rate() >= 0.8, "{variant:?} hard vs medium: {top:?}");
    let bottom = play_match(
        start,
        Seat {
            player: &mut medium,
            limits: Limits::work(3_000),
        },
        Seat {
            player: &mut easy,
            limits: Limits::work(3_000),
        },
        10,
        22,
        100,
    );
    assert!(
        bottom.win_rate() >= 0.8,
        "{variant:?} medium vs easy: {bottom:?}"
    );
}

#[test]
fn super_r04_the_computer_plays_super_at_three_levels() {
    ladder(Variant::Super);
}

#[test]
fn v2_r07_the_computer_plays_2_0_at_three_levels_by_its_own_scoring() {
    ladder(Variant::V2);
}

/// Positions from games of two easy players.
fn positions(count: usize) -> Vec<Ultimate> {
    let mut rng = Rng::new(5);
    let mut easy = UltimateAi::new(Difficulty::Easy);
    let mut found = vec![];
    let mut p = Ultimate::new(Variant::Super, Player::X);
    while found.len() < count {
        if p.status().is_over() {
            p = Ultimate::new(Variant::Super, Player::X);
        }
        found.push(p);
        let c = easy.choose(&p, Limits::work(1), &mut rng).unwrap();
        p.play(c).unwrap();
    }
    found
}

#[test]
fn easy_grabs_small_boards_often_but_not_always() {
    let mut easy = UltimateAi::new(Difficulty::Easy);
    let mut rng = Rng::new(9);
    let (mut chances, mut grabbed) = (0, 0);
    for p in positions(3000) {
        let me = p.side_to_move();
        let grabs = |c| {
            let mut q = p;
            q.play(c).is_ok() && q.board(c.board()) == BoardState::Won(me) && !q.status().is_over()
        };
        if p.legal_cells().any(grabs)
            && !p.legal_cells().any(|c| {
                let mut q = p;
                q.play(c) == Ok(Status::Win(me))
            })
        {
            chances += 1;
            let c = easy.choose(&p, Limits::work(1), &mut rng).unwrap();
            grabbed += usize::from(grabs(c));
        }
    }
    assert!(chances > 200, "{chances}");
    let rate = grabbed as f64 / chances as f64;
    assert!((0.55..0.85).contains(&rate), "grab rate {rate}");
}

/// True when the side to move in `p` can win the game with one move.
fn can_win_at_once(p: &Ultimate) -> bool {
    let Status::Ongoing(me) = p.status() else {
        return false;
    };
    p.legal_cells().any(|c| {
        let mut q = *p;
        q.play(c) == Ok(Status::Win(me))
    })
}

/// The oracle is two plies of plain enumeration: where a move wins the game, the tree search
/// (medium and hard) plays one; otherwise, where some move leaves the opponent no win in one,
/// it plays such a move. Checked on thousands of positions of both games, including positions
/// from greedy play, where threats are everywhere.
#[test]
fn super_r04_v2_r07_the_tree_search_never_misses_a_win_in_one_nor_allows_an_avoidable_loss_in_one()
{
    let (mut wins, mut dangers) = (0, 0);
    for variant in [Variant::Super, Variant::V2] {
        let sampled =
            velha_ai::arena::sample_positions(Ultimate::new(variant, Player::X), 1_500, 31);
        for difficulty in [Difficulty::Medium, Difficulty::Hard] {
            let mut ai = UltimateAi::new(difficulty);
            let mut rng = Rng::new(4);
            for p in &sampled {
                if p.status().is_over() {
                    continue;
                }
                let me = p.side_to_move();
                let c = ai.choose(p, Limits::work(60), &mut rng).unwrap();
                assert!(p.legal_cells().contains(c), "{p}");
                let mut q = *p;
                q.play(c).unwrap();
                if can_win_at_once(p) {
                    wins += 1;
                    assert_eq!(
                        q.status(),
                        Status::Win(me),
                        "{difficulty:?} missed a win: {p}"
                    );
                    continue;
                }
                let some_safe = p.legal_cells().any(|d| {
                    let mut r = *p;
                    r.play(d).unwrap();
                    !can_win_at_once(&r)
                });
                let all_safe = p.legal_cells().all(|d| {
                    let mut r = *p;
                    r.play(d).unwrap();
                    !can_win_at_once(&r)
                });
                if some_safe && !all_safe {
                    dangers += 1;
                    assert!(
                        !can_win_at_once(&q),
                        "{difficulty:?} allowed a loss in one: {p} → {c}"
                    );
                }
            }
        }
    }
    // Both rules must have been put to the test many times.
    assert!(
        wins > 100 && dangers > 100,
        "wins {wins}, dangers {dangers}"
    );
}

#[test]
fn the_same_seed_and_work_give_the_same_move() {
    let p = positions(40)[39];
    for difficulty in Difficulty::ALL {
        let pick =
            |seed| UltimateAi::new(difficulty).choose(&p, Limits::work(500), &mut Rng::new(seed));
        assert_eq!(pick(8), pick(8), "{difficulty:?}");
    }
}
