//! What a player sees of a match ([`MatchView`]), built in one place: from the stored row,
//! and while the match runs, with its task's position, ply, clock and absences.

use velha_api::{Away, EndHow, Ending, MatchState, MatchView, Seat};
use velha_rules::{Cube, Match, Player};

use crate::store::MatchRow;
use crate::token::ms_until;

/// What only the task of a running match knows.
pub struct Running<'a> {
    /// The match model: position, ply, clock.
    pub game: &'a Match<Cube>,
    /// When each absent player's reconnection grace ends (ON-M04).
    pub away: [Option<i64>; 2],
}

/// The seat of `account` in the match (X for anyone who is not O).
pub fn seat_of(row: &MatchRow, account: &str) -> Seat {
    if row.o_id.as_deref() == Some(account) {
        Seat::O
    } else {
        Seat::X
    }
}

/// The match as `seat` sees it at `now` (ms since the epoch).
pub fn match_view(row: &MatchRow, seat: Seat, running: Option<Running<'_>>, now: i64) -> MatchView {
    let left = |t: i64| ms_until(t, now);
    let seat_of_player = |p: Player| match p {
        Player::X => Seat::X,
        Player::O => Seat::O,
    };
    let mut view = MatchView {
        id: row.id.clone(),
        scope: row.scope,
        level: row.level,
        x: row.x_name.clone(),
        o: row.o_name.clone(),
        seat,
        state: row.state,
        position: row.position.clone(),
        ply: row.ply,
        to_move: (row.state == MatchState::Live).then(|| {
            match row.position.parse::<Cube>().map(|c| c.side_to_move()) {
                Ok(p) => seat_of_player(p),
                Err(_) => Seat::X,
            }
        }),
        clock_ms: row
            .deadline
            .filter(|_| row.state == MatchState::Live)
            .map(left),
        away: Vec::new(),
        ending: row
            .winner
            .zip(row.ending)
            .map(|(winner, how): (Seat, EndHow)| Ending { winner, how }),
        scored: row.scored,
        group: row.group.clone(),
        velha: row.velha,
    };
    if let Some(Running { game, away }) = running {
        view.state = MatchState::Live;
        view.position = game.position().to_string();
        view.ply = game.ply();
        view.to_move = game.to_move().map(seat_of_player);
        view.clock_ms = game.deadline().map(|d| left(d as i64));
        view.away = [Seat::X, Seat::O]
            .into_iter()
            .zip(away)
            .filter_map(|(seat, until)| {
                until.map(|t| Away {
                    seat,
                    grace_ms: left(t),
                })
            })
            .collect();
    }
    view
}
