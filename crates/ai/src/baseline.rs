//! Two reference players to measure the real opponents against: uniformly random, and one-ply
//! greedy (takes a win, else blocks, else random).

use velha_rules::{Position, Status};

use crate::{Limits, Opponent, Rng};

/// Plays a uniformly random legal action.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomPlayer;

impl<P: Position> Opponent<P> for RandomPlayer {
    fn choose(&mut self, position: &P, _limits: Limits, rng: &mut Rng) -> Option<P::Action> {
        let legal: Vec<P::Action> = position.legal_actions().into_iter().collect();
        rng.pick(&legal)
    }
}

/// Takes an immediate win when there is one; otherwise avoids every action after which the
/// opponent can win at once (blocks); otherwise plays at random. It never plays a free turn
/// of the cube (an action that keeps the turn), which it cannot judge one ply deep.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

fn turn_passing<P: Position>(position: &P) -> Vec<(P::Action, P)> {
    let me = position.status();
    position
        .legal_actions()
        .into_iter()
        .filter_map(|a| {
            let mut next = *position;
            let status = next.play(a).ok()?;
            (status != me || status.is_over()).then_some((a, next))
        })
        .collect()
}

/// True when the side to move in `position` has an action that wins at once.
pub(crate) fn has_immediate_win<P: Position>(position: &P) -> bool {
    let Status::Ongoing(side) = position.status() else {
        return false;
    };
    position.legal_actions().into_iter().any(|a| {
        let mut next = *position;
        next.play(a) == Ok(Status::Win(side))
    })
}

impl<P: Position> Opponent<P> for Greedy {
    fn choose(&mut self, position: &P, _limits: Limits, rng: &mut Rng) -> Option<P::Action> {
        let Status::Ongoing(me) = position.status() else {
            return None;
        };
        let moves = turn_passing(position);
        let wins: Vec<P::Action> = moves
            .iter()
            .filter(|(_, p)| p.status() == Status::Win(me))
            .map(|&(a, _)| a)
            .collect();
        if let Some(win) = rng.pick(&wins) {
            return Some(win);
        }
        let safe: Vec<P::Action> = moves
            .iter()
            .filter(|(_, p)| !p.status().is_over() && !has_immediate_win(p))
            .map(|&(a, _)| a)
            .collect();
        let all: Vec<P::Action> = moves.iter().map(|&(a, _)| a).collect();
        rng.pick(&safe).or_else(|| rng.pick(&all))
    }
}
