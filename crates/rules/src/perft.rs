//! Counting action sequences: the standard correctness and speed check of move generators.

use crate::Position;

/// The number of legal action sequences of exactly `depth` actions from `position` (a finished
/// game has no legal actions, so it adds nothing). Depth 0 counts the position itself.
pub fn perft<P: Position>(position: &P, depth: u32) -> u64 {
    position.perft(depth)
}

/// The generic walk behind [`Position::perft`]: every action of every position above the last
/// ply played, the last ply counted.
pub(crate) fn walk<P: Position>(position: &P, depth: u32) -> u64 {
    match depth {
        0 => 1,
        // Counting the last ply instead of playing it: the usual "bulk counting".
        1 => position.legal_count() as u64,
        _ => position
            .legal_actions()
            .into_iter()
            .map(|action| {
                let mut next = *position;
                next.play_legal(action);
                walk(&next, depth - 1)
            })
            .sum(),
    }
}
