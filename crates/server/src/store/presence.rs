//! Which server processes are alive and which of them hold each player's connections
//! (docs/deploy.md): the `processes`, `presence`, `room_spectators` and
//! `room_seat_presence` tables, and the away deadlines of live matches' seats they set.

use std::collections::HashMap;

use sqlx::{AnyConnection, Row};
use velha_api::Seat;

use super::{Backend, Store, seat_str};

/// The most a burial's catch-up reads back (ms).
const CATCH_UP_AT_MOST_MS: i64 = 60_000;

/// A seat whose player's presence changed in a live match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatChange {
    /// The match.
    pub match_id: String,
    /// Whose seat.
    pub seat: Seat,
    /// Both players (the Velha's seat is empty).
    pub players: [String; 2],
}

fn seat_changes(rows: &[sqlx::any::AnyRow], seat: Seat) -> Result<Vec<SeatChange>, sqlx::Error> {
    rows.iter()
        .map(|r| {
            Ok(SeatChange {
                match_id: r.try_get("id")?,
                seat,
                players: [
                    r.try_get("x_id")?,
                    r.try_get::<Option<String>, _>("o_id")?.unwrap_or_default(),
                ],
            })
        })
        .collect()
}

impl Store {
    /// This process is alive at `now`; false when it had been given up for dead (its
    /// players' presence was taken away and must be written again).
    pub async fn heartbeat(&self, process: &str, now: i64) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let seen = sqlx::query("UPDATE processes SET seen_at = $1 WHERE id = $2")
            .bind(now)
            .bind(process)
            .execute(&mut *tx)
            .await?;
        if seen.rows_affected() == 1 {
            tx.commit().await?;
            return Ok(true);
        }
        sqlx::query("INSERT INTO processes (id, seen_at) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(process)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(false)
    }

    /// On SQLite, where one process is the whole server: the last run's processes are dead
    /// now, and every live match's players must come back within `until` (their connections
    /// were dropped by the restart, not by them).
    pub async fn restart_presence(&self, until: i64) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query("DELETE FROM presence")
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM processes")
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM room_spectators")
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM room_seat_presence")
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE matches SET x_away_until = $1 WHERE state = 'live' AND x_away_until IS NULL",
        )
        .bind(until)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE matches SET o_away_until = $1 WHERE state = 'live' AND against_velha = 0 \
             AND o_away_until IS NULL",
        )
        .bind(until)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }

    /// Keeps other transactions about this player's presence waiting until this one ends, so
    /// that a connection arriving on one process and one leaving another are seen in order.
    async fn lock_player(&self, tx: &mut AnyConnection, account: &str) -> Result<(), sqlx::Error> {
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE")
                .bind(account)
                .fetch_optional(&mut *tx)
                .await?;
        }
        Ok(())
    }

    /// `process` holds a connection of `account` from now on: the seats of theirs that were
    /// away are back.
    pub async fn came_back(
        &self,
        account: &str,
        process: &str,
    ) -> Result<Vec<SeatChange>, sqlx::Error> {
        let mut tx = self.write().await?;
        self.lock_player(&mut tx, account).await?;
        sqlx::query(
            "INSERT INTO presence (account_id, process) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .bind(account)
        .bind(process)
        .execute(&mut *tx)
        .await?;
        let back = set_away(&mut tx, account, None).await?;
        tx.commit().await?;
        Ok(back)
    }

    /// `process` no longer holds a connection of `account`; when no process does, the seats
    /// of their live matches are away until `until` (ON-M04).
    pub async fn went_away(
        &self,
        account: &str,
        process: &str,
        until: i64,
    ) -> Result<Vec<SeatChange>, sqlx::Error> {
        let mut tx = self.write().await?;
        self.lock_player(&mut tx, account).await?;
        sqlx::query("DELETE FROM presence WHERE account_id = $1 AND process = $2")
            .bind(account)
            .bind(process)
            .execute(&mut *tx)
            .await?;
        let away = self.mark_away_if_gone(&mut tx, account, until).await?;
        tx.commit().await?;
        Ok(away)
    }

    /// When no process holds a connection of `account` (a match was made for them while they
    /// were gone), the seats of their live matches are away until `until`.
    pub async fn away_if_offline(
        &self,
        account: &str,
        until: i64,
    ) -> Result<Vec<SeatChange>, sqlx::Error> {
        let mut tx = self.write().await?;
        self.lock_player(&mut tx, account).await?;
        let away = self.mark_away_if_gone(&mut tx, account, until).await?;
        tx.commit().await?;
        Ok(away)
    }

    async fn mark_away_if_gone(
        &self,
        tx: &mut AnyConnection,
        account: &str,
        until: i64,
    ) -> Result<Vec<SeatChange>, sqlx::Error> {
        if connected_anywhere(tx, account).await? {
            return Ok(Vec::new());
        }
        set_away(tx, account, Some(until)).await
    }

    /// Gives up for dead the processes not seen since `before`: their players' connections
    /// are gone with them, and whoever has no other connection is away until `until`.
    pub async fn bury_dead_processes(
        &self,
        before: i64,
        until: i64,
    ) -> Result<Vec<SeatChange>, sqlx::Error> {
        let dead: Vec<String> = {
            let rows = sqlx::query("SELECT id FROM processes WHERE seen_at < $1")
                .bind(before)
                .fetch_all(&self.pool)
                .await?;
            rows.iter()
                .map(|r| r.try_get("id"))
                .collect::<Result<_, _>>()?
        };
        let mut away = Vec::new();
        for process in dead {
            away.extend(self.bury(&process, Some(before), until).await?);
        }
        Ok(away)
    }

    /// Gives up a process: its players' connections, its rooms' connections and its
    /// heartbeat; whoever has no other connection is away until `until`. With `unseen_since`,
    /// only if it is still unseen since then: a process waking meanwhile keeps its rooms'
    /// connections (its heartbeat waits on the row), and one that wakes after finds its row
    /// gone and writes its connections back.
    pub async fn bury(
        &self,
        process: &str,
        unseen_since: Option<i64>,
        until: i64,
    ) -> Result<Vec<SeatChange>, sqlx::Error> {
        let accounts: Vec<String> = {
            let rows = sqlx::query("SELECT account_id FROM presence WHERE process = $1")
                .bind(process)
                .fetch_all(&self.pool)
                .await?;
            rows.iter()
                .map(|r| r.try_get("account_id"))
                .collect::<Result<_, _>>()?
        };
        let mut away = Vec::new();
        // One player at a time, each under the same lock as their connections.
        for account in accounts {
            away.extend(self.went_away(&account, process, until).await?);
        }
        let mut tx = self.write().await?;
        let seen_at: Option<i64> = sqlx::query_scalar(
            "DELETE FROM processes WHERE id = $1 AND seen_at < $2 RETURNING seen_at",
        )
        .bind(process)
        .bind(unseen_since.unwrap_or(i64::MAX))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(seen_at) = seen_at else {
            tx.rollback().await?;
            return Ok(away);
        };
        sqlx::query("DELETE FROM room_spectators WHERE process = $1")
            .bind(process)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM room_seat_presence WHERE process = $1")
            .bind(process)
            .execute(&mut *tx)
            .await?;
        if self.backend == Backend::Postgres {
            // The process may have committed changes whose notification it never sent
            // (`announcer.rs`): every process reads back what was recorded since it was last
            // seen (a minute at most: older news is stale, and the events are kept ten). With
            // the burial, so that none is buried untold.
            let since = seen_at.max(crate::token::now_ms() - CATCH_UP_AT_MOST_MS);
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(super::CHANNEL)
                .bind(format!("{}{since}", super::CATCH_UP))
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(away)
    }

    /// The players with a connection on `process` and on no other.
    pub async fn held_only_by(&self, process: &str) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT p.account_id FROM presence p WHERE p.process = $1 AND NOT EXISTS \
             (SELECT 1 FROM presence q WHERE q.account_id = p.account_id AND q.process <> $1)",
        )
        .bind(process)
        .fetch_all(&self.pool)
        .await
    }

    /// Takes one of a room's `limit` spectator places for a connection of `process`; false
    /// when every place is taken, on whichever processes.
    pub async fn spectate(
        &self,
        room: &str,
        process: &str,
        limit: u32,
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        if self.backend == Backend::Postgres {
            // Racing spectators of one room take their places one at a time.
            sqlx::query("SELECT id FROM rooms WHERE id = $1 FOR UPDATE")
                .bind(room)
                .fetch_optional(&mut *tx)
                .await?;
        }
        let watching = count_spectators(&mut tx, room).await?;
        if watching >= i64::from(limit) {
            tx.rollback().await?;
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO room_spectators (room_id, process, watching) VALUES ($1, $2, 1)              ON CONFLICT (room_id, process) DO UPDATE SET watching = room_spectators.watching + 1",
        )
        .bind(room)
        .bind(process)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Gives back a spectator place of `process` in a room.
    pub async fn unspectate(&self, room: &str, process: &str) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        sqlx::query(
            "UPDATE room_spectators SET watching = watching - 1              WHERE room_id = $1 AND process = $2",
        )
        .bind(room)
        .bind(process)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM room_spectators WHERE room_id = $1 AND process = $2 AND watching <= 0",
        )
        .bind(room)
        .bind(process)
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }

    /// A connection of a room's seat opened on `process` (`came`), or closed.
    pub async fn seat_presence(
        &self,
        room: &str,
        seat: Seat,
        process: &str,
        came: bool,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.write().await?;
        if came {
            sqlx::query(
                "INSERT INTO room_seat_presence (room_id, seat, process, connections) \
                 VALUES ($1, $2, $3, 1) ON CONFLICT (room_id, seat, process) DO UPDATE \
                 SET connections = room_seat_presence.connections + 1",
            )
            .bind(room)
            .bind(seat_str(seat))
            .bind(process)
            .execute(&mut *tx)
            .await?;
        } else {
            sqlx::query(
                "UPDATE room_seat_presence SET connections = connections - 1 \
                 WHERE room_id = $1 AND seat = $2 AND process = $3",
            )
            .bind(room)
            .bind(seat_str(seat))
            .bind(process)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "DELETE FROM room_seat_presence WHERE room_id = $1 AND seat = $2 \
                 AND process = $3 AND connections <= 0",
            )
            .bind(room)
            .bind(seat_str(seat))
            .bind(process)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await
    }

    /// Writes a process's room connections as it counts them (after it was given up for dead
    /// and its rows taken away): each seat's connections and each room's spectators.
    pub async fn rewrite_room_presence(
        &self,
        process: &str,
        seats: &HashMap<(String, Seat), i64>,
        spectators: &HashMap<String, i64>,
    ) -> Result<(), sqlx::Error> {
        if seats.is_empty() && spectators.is_empty() {
            return Ok(());
        }
        let mut tx = self.write().await?;
        for ((room, seat), connections) in seats {
            sqlx::query(
                "INSERT INTO room_seat_presence (room_id, seat, process, connections) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (room_id, seat, process) DO UPDATE \
                 SET connections = excluded.connections",
            )
            .bind(room)
            .bind(seat_str(*seat))
            .bind(process)
            .bind(*connections)
            .execute(&mut *tx)
            .await?;
        }
        for (room, watching) in spectators {
            sqlx::query(
                "INSERT INTO room_spectators (room_id, process, watching) VALUES ($1, $2, $3) \
                 ON CONFLICT (room_id, process) DO UPDATE SET watching = excluded.watching",
            )
            .bind(room)
            .bind(process)
            .bind(*watching)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await
    }

    /// Whether a process seen since `alive_since` holds a connection of the room's seat.
    pub async fn seat_looking(
        &self,
        room: &str,
        seat: Seat,
        alive_since: i64,
    ) -> Result<bool, sqlx::Error> {
        let found = sqlx::query(
            "SELECT 1 AS one FROM room_seat_presence p JOIN processes q ON q.id = p.process \
             WHERE p.room_id = $1 AND p.seat = $2 AND q.seen_at >= $3 LIMIT 1",
        )
        .bind(room)
        .bind(seat_str(seat))
        .bind(alive_since)
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }

    /// How many watch each of these rooms, on every process, in their order: one query
    /// for a player's whole list of rooms.
    pub async fn spectators(&self, rooms: &[&str]) -> Result<Vec<u32>, sqlx::Error> {
        if rooms.is_empty() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (1..=rooms.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT room_id, CAST(SUM(watching) AS BIGINT) AS n FROM room_spectators \
             WHERE room_id IN ({}) GROUP BY room_id",
            marks.join(", ")
        );
        let mut query = sqlx::query(&sql);
        for room in rooms {
            query = query.bind(*room);
        }
        let mut counts = HashMap::new();
        for row in query.fetch_all(&self.pool).await? {
            counts.insert(
                row.try_get::<String, _>("room_id")?,
                row.try_get::<i64, _>("n")?,
            );
        }
        Ok(rooms
            .iter()
            .map(|room| {
                counts
                    .get(*room)
                    .map_or(0, |n| u32::try_from(*n).unwrap_or(0))
            })
            .collect())
    }

    /// Whether any process holds a connection of `account`.
    pub async fn is_online(&self, account: &str) -> Result<bool, sqlx::Error> {
        connected_anywhere(&mut *self.pool.acquire().await?, account).await
    }
}

/// Whether any process holds a connection of `account`.
async fn connected_anywhere(conn: &mut AnyConnection, account: &str) -> Result<bool, sqlx::Error> {
    let row = sqlx::query("SELECT process FROM presence WHERE account_id = $1 LIMIT 1")
        .bind(account)
        .fetch_optional(conn)
        .await?;
    Ok(row.is_some())
}

async fn count_spectators(tx: &mut AnyConnection, room: &str) -> Result<i64, sqlx::Error> {
    let row = sqlx::query(
        "SELECT CAST(COALESCE(SUM(watching), 0) AS BIGINT) AS n FROM room_spectators \
         WHERE room_id = $1",
    )
    .bind(room)
    .fetch_one(&mut *tx)
    .await?;
    row.try_get("n")
}

/// Sets when each live seat of `account` must be back by, where it changes: `Some` for the
/// seats not away yet, `None` (back) for the seats away. The seats changed.
async fn set_away(
    tx: &mut AnyConnection,
    account: &str,
    until: Option<i64>,
) -> Result<Vec<SeatChange>, sqlx::Error> {
    let mut changed = Vec::new();
    for seat in [Seat::X, Seat::O] {
        let column = away_column(seat);
        let player = player_column(seat);
        let was = if until.is_some() {
            "IS NULL"
        } else {
            "IS NOT NULL"
        };
        let rows = sqlx::query(&format!(
            "UPDATE matches SET {column} = $1 WHERE state = 'live' AND {player} = $2 \
             AND {column} {was} RETURNING id, x_id, o_id"
        ))
        .bind(until)
        .bind(account)
        .fetch_all(&mut *tx)
        .await?;
        changed.extend(seat_changes(&rows, seat)?);
    }
    Ok(changed)
}

fn away_column(seat: Seat) -> &'static str {
    match seat {
        Seat::X => "x_away_until",
        Seat::O => "o_away_until",
    }
}

fn player_column(seat: Seat) -> &'static str {
    match seat {
        Seat::X => "x_id",
        Seat::O => "o_id",
    }
}
