//! The games played on one device, each as one plain value: who plays, the series, the game
//! on the board. Each thing that happens on a local screen is one method, so the games are
//! tested without a screen, and the screens only draw them and do what a value cannot
//! (think in slices, animate, buzz, keep the Velha's score on the device).

pub mod classic;
pub mod cube;
pub mod kept;
pub mod ultimate;

use velha_rules::{Match, Position, Series, Status};

/// Whether PARAR would lose something: a move or a lost turn is on the board and the game has
/// no result yet (the computer's opening move counts: the game is under way).
fn mid_game<P: Position>(game: &Match<P>) -> bool {
    game.ply() > 0 && game.to_move().is_some()
}

/// Counts a finished game in the series once, `recorded` saying whether it already does:
/// true when it did so now.
fn count_once(series: &mut Series, recorded: &mut bool, status: Status) -> bool {
    if !status.is_over() || *recorded {
        return false;
    }
    series.record(status);
    *recorded = true;
    true
}
