//! What a player sees of a match ([`MatchView`]), built in one place: from the stored row,
//! and while the match runs, with its referee's position, ply, clock and absences.

use velha_api::{Away, EndHow, Ending, MatchGame, MatchState, MatchView, Seat};
use velha_rules::{Cube, Player, Ultimate, Variant};

use crate::store::MatchRow;
use crate::token::ms_until;

/// What the referee of a running match knows beyond its stored row.
pub struct Running {
    /// The position's state line.
    pub position: String,
    /// Changes committed.
    pub ply: u32,
    /// Who moves, while the match goes on.
    pub to_move: Option<Player>,
    /// When the side to move runs out of time (ms since the epoch).
    pub deadline: Option<u64>,
    /// When each absent player's reconnection grace ends (ON-M04).
    pub away: [Option<i64>; 2],
}

/// A stored state line of `game` as the protocol writes it (a 2.0 line is stored with its
/// lost-turn counts even when none is lost), and its side to move.
fn read_position(game: MatchGame, position: &str) -> Option<(String, Player)> {
    match game {
        MatchGame::Cube => position
            .parse::<Cube>()
            .ok()
            .map(|c| (c.to_string(), c.side_to_move())),
        MatchGame::V2 => Ultimate::from_state_line(Variant::V2, position)
            .ok()
            .map(|u| (u.to_string(), u.side_to_move())),
    }
}

/// A stored state line of `game` as the protocol writes it, for a player to read.
pub fn wire_position(game: MatchGame, stored: &str) -> String {
    read_position(game, stored).map_or_else(|| stored.to_owned(), |(line, _)| line)
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
pub fn match_view(row: &MatchRow, seat: Seat, running: Option<Running>, now: i64) -> MatchView {
    let left = |t: i64| ms_until(t, now);
    let read = read_position(row.game, &row.position);
    let mut view = MatchView {
        id: row.id.clone(),
        game: row.game,
        scope: row.scope,
        level: row.level,
        x: row.x_name.clone(),
        o: row.o_name.clone(),
        seat,
        state: row.state,
        position: read
            .as_ref()
            .map_or_else(|| row.position.clone(), |(line, _)| line.clone()),
        ply: row.ply,
        to_move: (row.state == MatchState::Live)
            .then(|| Seat::from(read.as_ref().map_or(Player::X, |(_, side)| *side))),
        clock_ms: row
            .deadline
            .filter(|_| row.state == MatchState::Live)
            .map(left),
        away: Vec::new(),
        ending: row.ending.map(|how: EndHow| Ending {
            winner: row.winner,
            how,
        }),
        scored: row.scored,
        group: row.group.clone(),
        velha: row.velha,
        ratings: row.ratings,
    };
    if let Some(Running {
        position,
        ply,
        to_move,
        deadline,
        away,
    }) = running
    {
        view.state = MatchState::Live;
        view.position = position;
        view.ply = ply;
        view.to_move = to_move.map(Seat::from);
        view.clock_ms = deadline.map(|d| left(d as i64));
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
