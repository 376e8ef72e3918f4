//! Invitation rooms (ON-R01 … ON-R05): the rules' `Room` as JSON, changed by compare-and-set
//! on its version; the seats with their credentials; every action for the replay.

use sqlx::Row;
use sqlx::any::AnyRow;
use velha_api::Seat;
use velha_rules::room::Room;

use super::prepared_write::{PreparedWrite, Value};
use super::{Store, corrupt, seat_from, seat_str};

/// A room as stored.
#[derive(Clone, Debug)]
pub struct RoomRow {
    /// Its id, the link's secret.
    pub id: String,
    /// The rules' room.
    pub room: Room,
    /// Changes so far; a save names the version it read.
    pub version: i64,
    /// Games started before the current one.
    pub game: i64,
    /// Moves in the current game.
    pub ply: i64,
}

/// A change to save: the room after it, and the action to record for the replay.
pub struct RoomSave<'a> {
    /// The room as read.
    pub before: &'a RoomRow,
    /// The room after the change.
    pub after: &'a Room,
    /// Who did what (`b2`, `resign`, `absent`), when it is a game's action.
    pub action: Option<(Seat, &'a str)>,
    /// Whether a new game started (a rematch).
    pub new_game: bool,
    /// When.
    pub now: i64,
    /// The event telling the other processes of it, recorded in its transaction
    /// (PostgreSQL; none on SQLite, whose one process delivers its own events).
    pub told: Option<&'a (String, String)>,
}

impl RoomSave<'_> {
    /// Which game and ply of it the room is at after the change.
    fn game_and_ply(&self) -> (i64, i64) {
        let before = self.before;
        match (self.new_game, self.action) {
            (true, _) => (before.game + 1, 0),
            (false, Some(_)) => (before.game, before.ply + 1),
            (false, None) => (before.game, before.ply),
        }
    }

    /// The room as stored once the change is saved (the event telling of it shows this).
    pub fn row_after(&self) -> RoomRow {
        let (game, ply) = self.game_and_ply();
        saved(self.before, self.after, game, ply)
    }
}

/// The room as stored once O's seat is taken (`Store::take_room_seat`).
pub fn row_after_join(before: &RoomRow, after: &Room) -> RoomRow {
    saved(before, after, before.game, before.ply)
}

pub(super) fn room_from(row: &AnyRow) -> Result<RoomRow, sqlx::Error> {
    let state: String = row.try_get("state")?;
    let id: String = row.try_get("id")?;
    Ok(RoomRow {
        room: serde_json::from_str(&state).map_err(|_| corrupt("room", &id))?,
        id,
        version: row.try_get("version")?,
        game: row.try_get("game")?,
        ply: row.try_get("ply")?,
    })
}

pub(super) fn json(room: &Room) -> String {
    // The rules' plain types always serialise.
    serde_json::to_string(room).unwrap_or_default()
}

pub(super) const ROOM_COLUMNS: &str = "r.id, r.state, r.version, r.game, r.ply";

impl Store {
    /// Stores a new room with its creator's seat (X): the room as stored.
    pub async fn create_room(
        &self,
        id: &str,
        board: &str,
        room: &Room,
        credential_hash: &str,
        account: Option<&str>,
        now: i64,
    ) -> Result<RoomRow, sqlx::Error> {
        let args = vec![
            Value::Text(id.to_owned()),
            Value::Text(board.to_owned()),
            Value::Text(json(room)),
            Value::Int(now),
            Value::Text(credential_hash.to_owned()),
            Value::MaybeText(account.map(str::to_owned)),
        ];
        let kept = self.run_prepared(CREATE.bind(args, None)).await?;
        if !kept {
            return Err(sqlx::Error::Protocol(format!("room id {id} is taken")));
        }
        let row = RoomRow {
            id: id.to_owned(),
            room: room.clone(),
            version: 0,
            game: 0,
            ply: 0,
        };
        if let Some(cache) = self.room_cache() {
            cache.put(&row);
            cache.put_seat(id, credential_hash, Seat::X);
        }
        Ok(row)
    }

    /// One room.
    pub async fn room(&self, id: &str) -> Result<Option<RoomRow>, sqlx::Error> {
        if let Some(row) = self.room_cache().and_then(|c| c.get(id)) {
            return Ok(Some(row));
        }
        let sql = format!("SELECT {ROOM_COLUMNS} FROM rooms r WHERE r.id = $1");
        let row = sqlx::query(&sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        let row = row.as_ref().map(room_from).transpose()?;
        if let (Some(cache), Some(row)) = (self.room_cache(), &row) {
            cache.put(row);
        }
        Ok(row)
    }

    /// A room and how many watch it on every process, read at once (PostgreSQL: SQLite's one
    /// process counts its spectators itself, `Hub::watched_room`).
    pub async fn room_and_spectators(
        &self,
        id: &str,
    ) -> Result<Option<(RoomRow, u32)>, sqlx::Error> {
        let sql = format!(
            "SELECT {ROOM_COLUMNS}, CAST(COALESCE((SELECT SUM(s.watching) FROM room_spectators s \
             WHERE s.room_id = r.id), 0) AS BIGINT) AS watching FROM rooms r WHERE r.id = $1"
        );
        let row = sqlx::query(&sql)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            let watching: i64 = r.try_get("watching")?;
            Ok((room_from(&r)?, u32::try_from(watching).unwrap_or(0)))
        })
        .transpose()
    }

    /// The seat a credential holds in a room.
    pub async fn room_seat(
        &self,
        id: &str,
        credential_hash: &str,
    ) -> Result<Option<Seat>, sqlx::Error> {
        if let Some(seat) = self.room_cache().and_then(|c| c.seat(id, credential_hash)) {
            return Ok(Some(seat));
        }
        let row =
            sqlx::query("SELECT seat FROM room_seats WHERE room_id = $1 AND credential_hash = $2")
                .bind(id)
                .bind(credential_hash)
                .fetch_optional(&self.pool)
                .await?;
        match row {
            Some(r) => {
                let seat: String = r.try_get("seat")?;
                let seat = seat_from(&seat).ok_or_else(|| corrupt("seat", &seat))?;
                if let Some(cache) = self.room_cache() {
                    cache.put_seat(id, credential_hash, seat);
                }
                Ok(Some(seat))
            }
            None => Ok(None),
        }
    }

    /// Seats O with its credential and saves the room as the join left it: the room as
    /// stored now, or none when someone else took the seat or changed the room first (read it
    /// again).
    pub async fn take_room_seat(
        &self,
        before: &RoomRow,
        after: &Room,
        credential_hash: &str,
        account: Option<&str>,
        now: i64,
        told: Option<&(String, String)>,
    ) -> Result<Option<RoomRow>, sqlx::Error> {
        let mut args = change_args(before, after, before.game, before.ply, now);
        args.extend([
            Value::Text(credential_hash.to_owned()),
            Value::MaybeText(account.map(str::to_owned)),
        ]);
        let seated = self.run_prepared(TAKE_SEAT.bind(args, told)).await?;
        // The seat taken (it is unique) or the version moved on: someone else came first.
        if !seated {
            self.forget_room(&before.id);
            return Ok(None);
        }
        let row = saved(before, after, before.game, before.ply);
        if let Some(cache) = self.room_cache() {
            cache.put(&row);
            cache.put_seat(&row.id, credential_hash, Seat::O);
        }
        Ok(Some(row))
    }

    /// Saves a change to a room and records its action: the room as stored now, or none when
    /// it changed since it was read (read it again).
    pub async fn save_room(&self, save: &RoomSave<'_>) -> Result<Option<RoomRow>, sqlx::Error> {
        let before = save.before;
        let (game, ply) = save.game_and_ply();
        let mut args = change_args(before, save.after, game, ply, save.now);
        let write = match save.action {
            Some((seat, action)) => {
                args.extend([
                    Value::Text(seat_str(seat).to_owned()),
                    Value::Text(action.to_owned()),
                    Value::Int(save.now),
                ]);
                ACT.bind(args, save.told)
            }
            None => CHANGE.bind(args, save.told),
        };
        // Declined also when recording the action after a lost compare-and-set met the
        // winner's.
        if !self.run_prepared(write).await? {
            self.forget_room(&before.id);
            return Ok(None);
        }
        let row = save.row_after();
        if let Some(cache) = self.room_cache() {
            cache.put(&row);
        }
        Ok(Some(row))
    }

    /// The kept room proved stale: the next read goes to the database.
    pub(super) fn forget_room(&self, id: &str) {
        if let Some(cache) = self.room_cache() {
            cache.forget(id);
        }
    }

    /// The rooms whose seats these credentials hold, with the seat (a guest's list, ON-R05).
    pub async fn rooms_by_credentials(
        &self,
        hashes: &[String],
    ) -> Result<Vec<(RoomRow, Seat)>, sqlx::Error> {
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (1..=hashes.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT {ROOM_COLUMNS}, s.seat FROM room_seats s JOIN rooms r ON r.id = s.room_id \
             WHERE s.credential_hash IN ({}) ORDER BY r.last_activity DESC",
            marks.join(", ")
        );
        let mut query = sqlx::query(&sql);
        for h in hashes {
            query = query.bind(h);
        }
        rooms_with_seats(query.fetch_all(&self.pool).await?)
    }

    /// The rooms a signed-in player sits in (ON-R05), the latest first, at most 100.
    pub async fn rooms_of_account(
        &self,
        account: &str,
    ) -> Result<Vec<(RoomRow, Seat)>, sqlx::Error> {
        let sql = format!(
            "SELECT {ROOM_COLUMNS}, s.seat FROM room_seats s JOIN rooms r ON r.id = s.room_id \
             WHERE s.account_id = $1 ORDER BY r.last_activity DESC LIMIT 100"
        );
        let rows = sqlx::query(&sql)
            .bind(account)
            .fetch_all(&self.pool)
            .await?;
        rooms_with_seats(rows)
    }

    /// The recorded actions of one of a room's games (0 for the first), in order: (seat,
    /// action).
    pub async fn room_game_moves(
        &self,
        id: &str,
        game: i64,
    ) -> Result<Vec<(Seat, String)>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT seat, action FROM room_moves WHERE room_id = $1 AND game = $2 ORDER BY ply",
        )
        .bind(id)
        .bind(game)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let seat: String = r.try_get("seat")?;
                Ok((
                    seat_from(&seat).ok_or_else(|| corrupt("seat", &seat))?,
                    r.try_get("action")?,
                ))
            })
            .collect()
    }
}

fn rooms_with_seats(rows: Vec<AnyRow>) -> Result<Vec<(RoomRow, Seat)>, sqlx::Error> {
    rows.iter()
        .map(|r| {
            let seat: String = r.try_get("seat")?;
            Ok((
                room_from(r)?,
                seat_from(&seat).ok_or_else(|| corrupt("seat", &seat))?,
            ))
        })
        .collect()
}

/// The row a successful compare-and-set leaves, without reading it back.
fn saved(before: &RoomRow, after: &Room, game: i64, ply: i64) -> RoomRow {
    RoomRow {
        id: before.id.clone(),
        room: after.clone(),
        version: before.version + 1,
        game,
        ply,
    }
}

/// Writes the room over the version it was read at (arguments `$1`…`$6`: `change_args`):
/// changes a row only when no other change came first.
const COMPARE_AND_SET: &str = "UPDATE rooms SET state = $1, version = version + 1, game = $2, \
     ply = $3, last_activity = $4 WHERE id = $5 AND version = $6 RETURNING id";

/// A new room (arguments `$1`…`$4`) and its creator's seat, X (`$5`, `$6`).
static CREATE: PreparedWrite = PreparedWrite::new(&[
    "INSERT INTO rooms (id, board, state, version, game, ply, last_activity, created_at) \
     VALUES ($1, $2, $3, 0, 0, 0, $4, $4) RETURNING id",
    "INSERT INTO room_seats (room_id, seat, credential_hash, account_id) \
     VALUES ($1, 'X', $5, $6) RETURNING seat",
]);

/// A change of the room that records no action.
static CHANGE: PreparedWrite = PreparedWrite::new(&[COMPARE_AND_SET]);

/// The guest's join: the change, and their seat, O (arguments `$7`, `$8`); declined when the
/// seat is taken.
static TAKE_SEAT: PreparedWrite = PreparedWrite::new(&[
    COMPARE_AND_SET,
    "INSERT INTO room_seats (room_id, seat, credential_hash, account_id) \
     VALUES ($5, 'O', $7, $8) RETURNING seat",
]);

/// A move, a resignation or a claim: the change, and its action recorded for the replay
/// (arguments `$7`…`$9`).
static ACT: PreparedWrite = PreparedWrite::new(&[
    COMPARE_AND_SET,
    "INSERT INTO room_moves (room_id, game, ply, seat, action, played_at) \
     VALUES ($5, $2, $3, $7, $8, $9) RETURNING ply",
]);

/// `COMPARE_AND_SET`'s arguments, `$1`…`$6`.
fn change_args(before: &RoomRow, after: &Room, game: i64, ply: i64, now: i64) -> Vec<Value> {
    vec![
        Value::Text(json(after)),
        Value::Int(game),
        Value::Int(ply),
        Value::Int(i64::try_from(after.last_activity_ms()).unwrap_or(now)),
        Value::Text(before.id.clone()),
        Value::Int(before.version),
    ]
}
