//! A game as an analysis takes it: its positions and the moves between them.

use velha_rules::{Player, Position, Status};

/// A game's positions (the start first) and the moves that led from each to the next.
#[derive(Clone, Debug, PartialEq)]
pub struct Game<P> {
    /// The start, then the position after each move.
    pub positions: Vec<P>,
    /// Each move's actions in the engine protocol's words (a cube's free turn and main action
    /// are one move); `None` for a turn lost on the clock (2.0).
    pub played: Vec<Option<Vec<String>>>,
    /// The winner; none for a draw or a game that stopped unfinished.
    pub winner: Option<Player>,
}

impl<P: Position> Game<P> {
    /// The game that went through `all` positions, one action apart (what a match keeps:
    /// its earlier positions and the one now). The action between two positions is the one
    /// legal action that leads from the first to the second; a player's actions in a row
    /// make one move; a change no action makes is a turn lost on the clock (2.0). `None`
    /// when there is no position.
    pub fn from_positions(all: &[P]) -> Option<Game<P>> {
        let mut positions = vec![*all.first()?];
        let mut played: Vec<Option<Vec<String>>> = Vec::new();
        // The mover of the move being gathered, while one is.
        let mut gathering: Option<Player> = None;
        for pair in all.windows(2) {
            let (from, to) = (pair[0], pair[1]);
            let Status::Ongoing(mover) = from.status() else {
                break;
            };
            let action = from.legal_actions().into_iter().find(|&a| {
                let mut next = from;
                next.play(a).is_ok() && next == to
            });
            match action {
                Some(action) => {
                    if gathering == Some(mover) {
                        if let Some(Some(actions)) = played.last_mut() {
                            actions.push(action.to_string());
                        }
                        *positions.last_mut().expect("the start at least") = to;
                    } else {
                        played.push(Some(vec![action.to_string()]));
                        positions.push(to);
                    }
                    gathering = (to.status() == Status::Ongoing(mover)).then_some(mover);
                }
                None => {
                    played.push(None);
                    positions.push(to);
                    gathering = None;
                }
            }
        }
        let winner = match positions.last()?.status() {
            Status::Win(p) => Some(p),
            _ => None,
        };
        Some(Game {
            positions,
            played,
            winner,
        })
    }

    /// Plays a game from `start`, asking `choose` for each action given the game's earlier
    /// positions and the position now, for at most `max_moves` moves. A player's actions in a
    /// row (a free turn, then the main action) make one move.
    pub fn play(
        start: P,
        max_moves: usize,
        mut choose: impl FnMut(&[P], &P) -> P::Action,
    ) -> Game<P> {
        let mut positions = vec![start];
        let mut played = Vec::new();
        let mut position = start;
        // Every position the game went through, single actions included: what an opponent
        // that avoids repetitions remembers.
        let mut seen = Vec::new();
        while let Status::Ongoing(mover) = position.status() {
            if played.len() == max_moves {
                break;
            }
            let mut actions = Vec::new();
            while position.status() == Status::Ongoing(mover) {
                let action = choose(&seen, &position);
                seen.push(position);
                position
                    .play(action)
                    .expect("the chooser plays legal actions");
                actions.push(action.to_string());
            }
            positions.push(position);
            played.push(Some(actions));
        }
        let winner = match position.status() {
            Status::Win(p) => Some(p),
            _ => None,
        };
        Game {
            positions,
            played,
            winner,
        }
    }
}
