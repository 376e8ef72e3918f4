//! Telling a player of their turn while the app is closed: the next step of CLASSIC-R09,
//! designed in docs/push.md. Every change that hands a room's turn to a seat goes through
//! [`Push::turn`]; a delivery service implements the trait: Web Push (`webpush.rs`) today,
//! FCM and APNs for phone apps later.

use serde::{Deserialize, Serialize};
use velha_rules::Ending;
use velha_rules::room::{ABSENCE_MS, IDLE_CLOSE_MS, Room, RoomGame};
use velha_rules::{Player, Status};

/// What a seat of a room is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RoomAbout {
    /// The other moved: the seat's turn.
    Turn,
    /// The other joined the room: the first game began, the seat to move.
    Joined,
    /// The other accepted the rematch: the next game began, the seat to move.
    Began,
    /// The other's move ended the game on the board: whether this seat won (None: a draw).
    Ended(Option<bool>),
    /// The other asked for a rematch.
    Rematch,
    /// The other resigned: the seat won.
    Resigned,
    /// The other claimed the game for this seat's absence.
    Absent,
    /// The other, to move, has been away long enough for this seat to claim the game.
    MayClaim,
    /// The room closes tomorrow without a move (day 6 of 7); whether a game is being played
    /// (else only a new game keeps it).
    ClosesTomorrow(bool),
}

impl RoomAbout {
    /// A turn handed to the seat, which is news only while nothing was played since; the rest
    /// stays news whatever came after.
    pub fn is_a_turn(self) -> bool {
        matches!(self, RoomAbout::Turn | RoomAbout::Joined | RoomAbout::Began)
    }
}

/// A notice for a room's seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomNotice {
    /// The room.
    pub room: String,
    /// The seat to tell.
    pub seat: Player,
    /// The other seat's name, as the notification names them.
    pub other: String,
    /// The room's board, which the notification names.
    pub game: RoomGame,
    /// What happened.
    pub about: RoomAbout,
    /// The room's last activity (a move, the join, a rematch begun) when it happened: a turn
    /// is still news only if nothing was played since.
    pub activity: u64,
    /// The room's version after the change: a room's changes are committed in the order of
    /// their versions. 0 in a notice kept by a version of the server before it.
    #[serde(default)]
    pub version: i64,
}

/// What an account is told of a mini-ranking group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GroupAbout {
    /// Invited to the group.
    Invited,
    /// The match the account opened in the group was joined: it is on.
    MatchJoined,
}

/// A notice for an account, of a group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupNotice {
    /// The account to tell.
    pub account: String,
    /// The group's id.
    pub group: String,
    /// The group's name.
    pub name: String,
    /// Who invited, or joined.
    pub other: String,
    /// What happened.
    pub about: GroupAbout,
}

/// Something a player is told while the app may be closed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Notice {
    /// Of a room's seat.
    Room(RoomNotice),
    /// Of a group, to an account.
    Group(GroupNotice),
}

/// Delivers notices to the devices subscribed for a seat or an account (see docs/push.md).
/// Called on the request's task after the change is committed: it must hand the work off,
/// not wait.
pub trait Push: Send + Sync {
    /// Tells the notice's seat or account.
    fn tell(&self, notice: Notice);
}

/// What a room's quiet days tell, swept for by the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quiet {
    /// The room closes within a day (day 6 of 7 without a move).
    Closing,
    /// The player to move has been away long enough for the other to claim the game.
    Away,
}

impl Quiet {
    /// The sweeps in the order they tell: a room about to close matters most.
    pub const ALL: [Quiet; 2] = [Quiet::Closing, Quiet::Away];

    /// How long a room has been quiet when this is told (ms).
    pub fn after_ms(self) -> u64 {
        match self {
            Quiet::Closing => IDLE_CLOSE_MS - 24 * 60 * 60 * 1000,
            Quiet::Away => ABSENCE_MS + 1,
        }
    }

    /// Its name in the database.
    pub fn name(self) -> &'static str {
        match self {
            Quiet::Closing => "closing",
            Quiet::Away => "away",
        }
    }
}

/// Whom a room quiet this long tells: both players that it closes tomorrow, or the player
/// waiting that the other, to move, has been away long enough to be claimed.
pub fn quiet_notices(room: &Room, quiet: Quiet) -> Vec<(Player, RoomAbout)> {
    match quiet {
        Quiet::Closing if room.seat(Player::O).is_some() => {
            let playing = room.ending().is_none();
            vec![
                (Player::X, RoomAbout::ClosesTomorrow(playing)),
                (Player::O, RoomAbout::ClosesTomorrow(playing)),
            ]
        }
        Quiet::Closing => Vec::new(),
        Quiet::Away => to_move(room)
            .map(|absent| vec![(room.seat_playing(!absent), RoomAbout::MayClaim)])
            .unwrap_or_default(),
    }
}

/// The notice for a seat of room `id`, naming the player in the other seat.
pub fn room_notice(id: &str, room: &Room, version: i64, seat: Player, about: RoomAbout) -> Notice {
    Notice::Room(RoomNotice {
        room: id.to_owned(),
        version,
        seat,
        other: room.seat(!seat).map(|s| s.name.clone()).unwrap_or_default(),
        game: room.game(),
        about,
        activity: room.last_activity_ms(),
    })
}

/// Whether a room's notice still holds when it is sent, moments after: a turn is told only if
/// nothing was played since (played, and maybe handed back, it is the newer notice's to tell).
pub fn still_holds(room: &Room, notice: &RoomNotice) -> bool {
    !notice.about.is_a_turn()
        || room.last_activity_ms() == notice.activity
            && to_move(room).is_some_and(|symbol| room.seat_playing(symbol) == notice.seat)
}

/// Who moves now, when the game goes on with both seats taken.
fn to_move(r: &Room) -> Option<Player> {
    match (r.board().status(), r.seat(Player::O), r.ending()) {
        (Status::Ongoing(p), Some(_), None) => Some(p),
        _ => None,
    }
}

/// What a change tells each seat (the creator's X, the guest's O): the turn it handed over (a
/// move, the other's joining, a rematch begun), a rematch asked, the game ended by the other's
/// move, resignation, or claim of this seat's absence.
pub fn room_notices(before: &Room, after: &Room) -> Vec<(Player, RoomAbout)> {
    let mut told = Vec::new();
    if let Some(now) = to_move(after) {
        let began = before.series().games_played() != after.series().games_played()
            || before.ending().is_some();
        let about = if before.seat(Player::O).is_none() {
            Some(RoomAbout::Joined)
        } else if began {
            Some(RoomAbout::Began)
        } else {
            (to_move(before) != Some(now)).then_some(RoomAbout::Turn)
        };
        if let Some(about) = about {
            told.push((after.seat_playing(now), about));
        }
    }
    if before.ending().is_none() {
        match after.ending() {
            Some((Some(winner), Ending::Resigned)) => {
                told.push((after.seat_playing(winner), RoomAbout::Resigned));
            }
            Some((Some(winner), Ending::Absent)) => {
                told.push((after.seat_playing(!winner), RoomAbout::Absent));
            }
            Some((winner, _)) => {
                // The seat that did not make the last move: the one that was waiting.
                if let Some(mover) = to_move(before) {
                    let waiting = !before.seat_playing(mover);
                    let won = winner.map(|w| after.seat_playing(w) == waiting);
                    told.push((waiting, RoomAbout::Ended(won)));
                }
            }
            None => {}
        }
    }
    if after.ending().is_some() {
        let [was_x, was_o] = before.rematch_asked();
        let [x, o] = after.rematch_asked();
        if x && !was_x {
            told.push((Player::O, RoomAbout::Rematch));
        }
        if o && !was_o {
            told.push((Player::X, RoomAbout::Rematch));
        }
    }
    told
}

#[cfg(test)]
mod tests {
    use super::*;
    use velha_rules::room::{Avatar, RoomGame};

    fn turn_passed(before: &Room, after: &Room) -> Option<Player> {
        let told = room_notices(before, after);
        told.iter()
            .find(|(_, about)| {
                matches!(
                    about,
                    RoomAbout::Turn | RoomAbout::Joined | RoomAbout::Began
                )
            })
            .map(|(seat, _)| *seat)
    }

    #[test]
    fn classic_r09_a_move_hands_the_turn_and_nothing_else_does() {
        let mut room =
            Room::create(RoomGame::Classic, "Ana", Some(Avatar::Nino), Player::X, 0).unwrap();
        let alone = room.clone();
        room.join("Bia", Some(Avatar::Rabisco), 1).unwrap();
        // Bia's joining gives Ana (X) her first turn.
        assert_eq!(turn_passed(&alone, &room), Some(Player::X));
        let before = room.clone();
        room.play(Player::X, "a1", 2).unwrap();
        assert_eq!(turn_passed(&before, &room), Some(Player::O));
        // A spectator arriving changes no turn.
        let before = room.clone();
        room.join("Caio", None, 3).unwrap();
        assert_eq!(turn_passed(&before, &room), None);
        // A resignation ends the game: nobody's turn.
        let before = room.clone();
        room.resign(Player::O, 4).unwrap();
        assert_eq!(turn_passed(&before, &room), None);
        // The rematch starts the next game with O: her turn.
        room.rematch(Player::X, 5).unwrap();
        let before = room.clone();
        room.rematch(Player::O, 6).unwrap();
        assert_eq!(turn_passed(&before, &room), Some(Player::O));
    }

    #[test]
    fn v2_r08_the_guest_is_told_of_the_rematch_they_begin_as_x() {
        let mut room = Room::create(RoomGame::V2, "Ana", None, Player::X, 0).unwrap();
        room.join("Bia", None, 1).unwrap();
        room.resign(Player::X, 2).unwrap();
        room.rematch(Player::X, 3).unwrap();
        let before = room.clone();
        room.rematch(Player::O, 4).unwrap();
        // X begins, and X is now Bia's: her seat (the guest's, O) is told.
        assert_eq!(
            room.board().status(),
            velha_rules::Status::Ongoing(Player::X)
        );
        assert_eq!(turn_passed(&before, &room), Some(Player::O));
    }

    #[test]
    fn classic_r10_r11_r12_an_ending_and_a_rematch_are_told_to_the_other_seat() {
        let mut room =
            Room::create(RoomGame::Classic, "Ana", Some(Avatar::Nino), Player::X, 0).unwrap();
        room.join("Bia", Some(Avatar::Rabisco), 1).unwrap();
        // Bia (O) resigns: Ana is told she won, Bia nothing.
        let before = room.clone();
        room.resign(Player::O, 2).unwrap();
        assert_eq!(
            room_notices(&before, &room),
            vec![(Player::X, RoomAbout::Resigned)]
        );
        // Ana asks for the rematch: Bia is told; asking again tells nobody.
        let before = room.clone();
        room.rematch(Player::X, 3).unwrap();
        assert_eq!(
            room_notices(&before, &room),
            vec![(Player::O, RoomAbout::Rematch)]
        );
        let before = room.clone();
        room.rematch(Player::X, 4).unwrap();
        assert_eq!(room_notices(&before, &room), vec![]);
        // Bia accepts: the game begins, with Bia (O) to move, and nobody hears of a rematch.
        let before = room.clone();
        room.rematch(Player::O, 5).unwrap();
        assert_eq!(
            room_notices(&before, &room),
            vec![(Player::O, RoomAbout::Began)]
        );
        // Bia is away more than 2 days; Ana claims: Bia (absent) is told.
        let before = room.clone();
        let later = 5 + velha_rules::room::ABSENCE_MS + 1;
        room.claim_absence(Player::X, later).unwrap();
        assert_eq!(
            room_notices(&before, &room),
            vec![(Player::O, RoomAbout::Absent)]
        );
    }

    #[test]
    fn classic_r09_the_move_that_ends_a_game_tells_the_one_who_waited() {
        let mut room =
            Room::create(RoomGame::Classic, "Ana", Some(Avatar::Nino), Player::X, 0).unwrap();
        let alone = room.clone();
        room.join("Bia", Some(Avatar::Rabisco), 1).unwrap();
        assert_eq!(
            room_notices(&alone, &room),
            vec![(Player::X, RoomAbout::Joined)]
        );
        for (seat, cell) in [
            (Player::X, "a1"),
            (Player::O, "b1"),
            (Player::X, "a2"),
            (Player::O, "b2"),
        ] {
            room.play(seat, cell, 2).unwrap();
        }
        let before = room.clone();
        room.play(Player::X, "a3", 3).unwrap();
        // Ana's line: Bia, who waited, hears she lost; nobody's turn.
        assert_eq!(
            room_notices(&before, &room),
            vec![(Player::O, RoomAbout::Ended(Some(false)))]
        );
    }

    #[test]
    fn v2_r08_an_ending_tells_the_seat_whatever_symbol_it_plays() {
        let mut room = Room::create(RoomGame::V2, "Ana", None, Player::X, 0).unwrap();
        room.join("Bia", None, 1).unwrap();
        room.resign(Player::X, 2).unwrap();
        room.rematch(Player::X, 3).unwrap();
        room.rematch(Player::O, 4).unwrap();
        // Bia's seat (O) plays X now; Ana (the creator, X's seat) resigns playing O.
        let before = room.clone();
        room.resign(Player::X, 5).unwrap();
        assert_eq!(
            room_notices(&before, &room),
            vec![(Player::O, RoomAbout::Resigned)]
        );
    }

    #[test]
    fn classic_r12_quiet_days_tell_the_waiting_player_and_then_both() {
        let mut room =
            Room::create(RoomGame::Classic, "Ana", Some(Avatar::Nino), Player::X, 0).unwrap();
        assert_eq!(
            quiet_notices(&room, Quiet::Closing),
            vec![],
            "nobody to tell yet"
        );
        room.join("Bia", Some(Avatar::Rabisco), 1).unwrap();
        let joined = room.clone();
        room.play(Player::X, "a1", 2).unwrap();
        // A turn told moments after it was handed over still holds only if not played since.
        let told = |at: &Room, seat, about| match room_notice("r", at, 1, seat, about) {
            Notice::Room(n) => n,
            Notice::Group(_) => unreachable!("a room's notice"),
        };
        let turn = told(&room, Player::O, RoomAbout::Turn);
        assert!(still_holds(&room, &turn));
        let join = told(&joined, Player::X, RoomAbout::Joined);
        assert!(!still_holds(&room, &join));
        assert!(still_holds(
            &room,
            &told(&joined, Player::X, RoomAbout::Rematch)
        ));
        // Played and handed back: Ana's turn again, but the notice of the join is old news.
        let mut again = room.clone();
        again.play(Player::O, "b1", 3).unwrap();
        assert!(!still_holds(&again, &join));
        assert!(!still_holds(&again, &turn));
        // Bia (O) is to move: Ana may claim once she has been away.
        assert_eq!(
            quiet_notices(&room, Quiet::Away),
            vec![(Player::X, RoomAbout::MayClaim)]
        );
        assert_eq!(
            quiet_notices(&room, Quiet::Closing),
            vec![
                (Player::X, RoomAbout::ClosesTomorrow(true)),
                (Player::O, RoomAbout::ClosesTomorrow(true))
            ]
        );
        let Notice::Room(n) = room_notice("r", &room, 1, Player::X, RoomAbout::MayClaim) else {
            panic!("a room's notice")
        };
        assert_eq!(n.other, "Bia");
        // A finished game has nobody to claim.
        room.resign(Player::O, 3).unwrap();
        assert_eq!(quiet_notices(&room, Quiet::Away), vec![]);
        // The claim is open just after 2 days; the room closes on day 7, told on day 6.
        assert_eq!(Quiet::Away.after_ms(), 2 * 24 * 3_600_000 + 1);
        assert_eq!(Quiet::Closing.after_ms(), 6 * 24 * 3_600_000);
    }
}
