//! Matches, their moves, and the one-match-per-player seats (ON-M02).

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};
use velha_api::{EndHow, MatchGame, MatchState, RatingChange, RatingChanges, Scope, Seat};

use super::prepared_write::{BoundWrite, PreparedWrite, Value};
use super::{Backend, Store, Write, corrupt, seat_from, seat_str};

/// A match as stored, with its players' names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchRow {
    /// Random id.
    pub id: String,
    /// The cube, or 2.0's competitive mode.
    pub game: MatchGame,
    /// Mundial or Nacional.
    pub scope: Scope,
    /// 1 or 2.
    pub level: u8,
    /// X's account id.
    pub x_id: String,
    /// X's player name.
    pub x_name: String,
    /// X's country when the match was made.
    pub x_country: String,
    /// O's account id, once joined.
    pub o_id: Option<String>,
    /// O's player name.
    pub o_name: Option<String>,
    /// Where the match is in its life.
    pub state: MatchState,
    /// The cube's state line after the last committed move.
    pub position: String,
    /// Moves committed.
    pub ply: u32,
    /// When the side to move loses on time, ms since the epoch, while live.
    pub deadline: Option<i64>,
    /// The winner, once over.
    pub winner: Option<Seat>,
    /// How it ended.
    pub ending: Option<EndHow>,
    /// When it was created.
    pub created_at: i64,
    /// Whether it scored, once over (ON-K03).
    pub scored: Option<bool>,
    /// The mini-ranking group it belongs to (ON-G04).
    pub group: Option<String>,
    /// Whether O is the server's Velha (ON-G05); she has no account.
    pub velha: bool,
    /// 2.0: both ratings before and after, once rated (V2-R06).
    pub ratings: Option<RatingChanges>,
    /// When each seat (X, O) must be back by, while its player has no connection (ON-M04).
    pub away: [Option<i64>; 2],
}

/// The name the Velha plays under.
pub const VELHA_NAME: &str = "Velha";

/// One list of the lobby: a scope and level outside groups, or one group's matches at a
/// level (where the scope plays no part).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LobbyList {
    /// Mundial or Nacional.
    pub scope: Scope,
    /// 1 or 2.
    pub level: u8,
    /// The group, if any.
    pub group: Option<String>,
}

impl LobbyList {
    /// Whether an open match of `scope`, `level` and `group` is in this list.
    pub fn holds(&self, scope: Scope, level: u8, group: Option<&str>) -> bool {
        self.level == level
            && self.group.as_deref() == group
            && (self.group.is_some() || self.scope == scope)
    }
}

/// A move to commit together with the match's new state.
#[derive(Clone, Debug)]
pub struct MoveCommit<'a> {
    /// The match.
    pub match_id: &'a str,
    /// The ply before the move; the commit fails if the stored one differs.
    pub ply_before: u32,
    /// Who moved.
    pub seat: Seat,
    /// The actions, space separated.
    pub actions: &'a str,
    /// The state line after the move.
    pub position: &'a str,
    /// When it was played.
    pub now: i64,
    /// The new deadline (None when the move ended the match).
    pub deadline: Option<i64>,
    /// The result, when the move ended the match: the winner (none for a draw) and how.
    pub ending: Option<(Option<Seat>, EndHow)>,
    /// What to tell the other processes (id, payload), told in the same transaction
    /// (PostgreSQL).
    pub events: &'a [(String, String)],
}

/// Why a player could not take a seat in a match.
#[derive(Debug)]
pub enum SeatError {
    /// The player already has an open or live match (ON-M02).
    AlreadyPlaying,
    /// The match is no longer open: taken, withdrawn, or the player's own.
    Gone,
    /// The match's group was finalized meanwhile (ON-G09).
    GroupGone,
    /// What the player asked for kept changing under the request (a queue place taken away by
    /// leaves racing the join): asking again settles it.
    Raced,
    /// The database failed.
    Db(sqlx::Error),
}

impl From<sqlx::Error> for SeatError {
    fn from(e: sqlx::Error) -> Self {
        // A match names its group, and finalizing deletes the group whatever races it: the
        // foreign key is what decides that the race was lost.
        match e {
            sqlx::Error::Database(d) if d.is_foreign_key_violation() => SeatError::GroupGone,
            e => SeatError::Db(e),
        }
    }
}

/// Seats a player in their one match, inside the transaction that changes the match.
pub(super) async fn claim_player(
    tx: &mut AnyConnection,
    account: &str,
    match_id: &str,
) -> Result<(), SeatError> {
    // A request that began before its player's account was deleted seats nobody.
    let claimed = sqlx::query(
        "INSERT INTO active_players (account_id, match_id) SELECT $1, $2 \
         WHERE EXISTS (SELECT 1 FROM accounts WHERE id = $1 AND deleted_at IS NULL)",
    )
    .bind(account)
    .bind(match_id)
    .execute(&mut *tx)
    .await;
    match claimed {
        Ok(done) if done.rows_affected() == 0 => Err(SeatError::Gone),
        Ok(_) => Ok(()),
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Err(SeatError::AlreadyPlaying),
        Err(e) => Err(e.into()),
    }
}

/// Frees the players of a match that is leaving the open and live states.
pub(super) async fn release_players(
    tx: &mut AnyConnection,
    match_id: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM active_players WHERE match_id = $1")
        .bind(match_id)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Ends the transaction that took a match out of the open and live states: frees its players
/// and commits, or, when the change touched no row, writes nothing. Whether it changed.
async fn release_if_changed(
    mut tx: Write<'_>,
    changed: u64,
    match_id: &str,
) -> Result<bool, sqlx::Error> {
    if changed != 1 {
        tx.rollback().await?;
        return Ok(false);
    }
    release_players(&mut tx, match_id).await?;
    tx.commit().await?;
    Ok(true)
}

const MATCH_COLUMNS: &str = "m.id, m.scope, m.level, m.x_id, ax.name AS x_name, m.x_country, \
     m.o_id, ao.name AS o_name, m.state, m.position, m.ply, m.deadline, m.winner, m.ending, \
     m.created_at, m.scored, m.group_id, m.against_velha, m.game, m.x_rating_before, \
     m.x_rating_after, m.o_rating_before, m.o_rating_after, m.x_away_until, m.o_away_until \
     FROM matches m \
     JOIN accounts ax ON ax.id = m.x_id \
     LEFT JOIN accounts ao ON ao.id = m.o_id";

/// The `scope`, `level` and `group_id` columns of a row: which lobby list a match is in.
pub(super) fn lobby_list(row: &AnyRow) -> Result<LobbyList, sqlx::Error> {
    let scope: String = row.try_get("scope")?;
    let level: i64 = row.try_get("level")?;
    Ok(LobbyList {
        scope: Scope::from_str_opt(&scope).ok_or_else(|| corrupt("scope", &scope))?,
        level: u8::try_from(level).map_err(|_| corrupt("level", &level.to_string()))?,
        group: row.try_get("group_id")?,
    })
}

/// A match as stored.
async fn find_match(conn: &mut AnyConnection, id: &str) -> Result<Option<MatchRow>, sqlx::Error> {
    let sql = format!("SELECT {MATCH_COLUMNS} WHERE m.id = $1");
    let row = sqlx::query(&sql).bind(id).fetch_optional(conn).await?;
    row.as_ref().map(match_from).transpose()
}

/// A match that exists, read inside a transaction.
pub(super) async fn match_from_id(
    tx: &mut AnyConnection,
    id: &str,
) -> Result<MatchRow, sqlx::Error> {
    find_match(tx, id).await?.ok_or(sqlx::Error::RowNotFound)
}

fn match_from(row: &AnyRow) -> Result<MatchRow, sqlx::Error> {
    let velha = row.try_get::<i64, _>("against_velha")? != 0;
    let o_name: Option<String> = row.try_get("o_name")?;
    let scope: String = row.try_get("scope")?;
    let state: String = row.try_get("state")?;
    let winner: Option<String> = row.try_get("winner")?;
    let ending: Option<String> = row.try_get("ending")?;
    let level: i64 = row.try_get("level")?;
    let ply: i64 = row.try_get("ply")?;
    let game: String = row.try_get("game")?;
    let rating = |name: &str| -> Result<Option<u32>, sqlx::Error> {
        Ok(row
            .try_get::<Option<i64>, _>(name)?
            .map(|r| u32::try_from(r).unwrap_or(0)))
    };
    let ratings = match (
        rating("x_rating_before")?,
        rating("x_rating_after")?,
        rating("o_rating_before")?,
        rating("o_rating_after")?,
    ) {
        (Some(xb), Some(xa), Some(ob), Some(oa)) => Some(RatingChanges {
            x: RatingChange {
                before: xb,
                after: xa,
            },
            o: RatingChange {
                before: ob,
                after: oa,
            },
        }),
        _ => None,
    };
    Ok(MatchRow {
        id: row.try_get("id")?,
        game: MatchGame::from_str_opt(&game).ok_or_else(|| corrupt("game", &game))?,
        scope: Scope::from_str_opt(&scope).ok_or_else(|| corrupt("scope", &scope))?,
        level: u8::try_from(level).map_err(|_| corrupt("level", &level.to_string()))?,
        x_id: row.try_get("x_id")?,
        x_name: row.try_get("x_name")?,
        x_country: row.try_get("x_country")?,
        o_id: row.try_get("o_id")?,
        o_name: if velha {
            Some(VELHA_NAME.to_owned())
        } else {
            o_name
        },
        state: MatchState::from_str_opt(&state).ok_or_else(|| corrupt("state", &state))?,
        position: row.try_get("position")?,
        ply: u32::try_from(ply).map_err(|_| corrupt("ply", &ply.to_string()))?,
        deadline: row.try_get("deadline")?,
        winner: match winner {
            Some(w) => Some(seat_from(&w).ok_or_else(|| corrupt("winner", &w))?),
            None => None,
        },
        ending: match ending {
            Some(e) => Some(EndHow::from_str_opt(&e).ok_or_else(|| corrupt("ending", &e))?),
            None => None,
        },
        created_at: row.try_get("created_at")?,
        scored: row.try_get::<Option<i64>, _>("scored")?.map(|s| s != 0),
        group: row.try_get("group_id")?,
        velha,
        ratings,
        away: [row.try_get("x_away_until")?, row.try_get("o_away_until")?],
    })
}

impl Store {
    /// Puts a new match in the lobby, unless its creator already has an open or live match.
    pub async fn insert_open_match(&self, m: &MatchRow) -> Result<(), SeatError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO matches (id, scope, level, x_id, x_country, state, position, ply, \
             created_at, group_id) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9)",
        )
        .bind(&m.id)
        .bind(m.scope.as_str())
        .bind(i64::from(m.level))
        .bind(&m.x_id)
        .bind(&m.x_country)
        .bind(MatchState::Open.as_str())
        .bind(&m.position)
        .bind(m.created_at)
        .bind(&m.group)
        .execute(&mut *tx)
        .await?;
        if let Err(e) = claim_player(&mut tx, &m.x_id, &m.id).await {
            return tx.refuse(e).await;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Open matches of a lobby list, oldest first: of a scope and level outside groups
    /// (Nacional ones only of `country`), or of one group at a level.
    pub async fn open_matches(
        &self,
        list: &LobbyList,
        country: &str,
    ) -> Result<Vec<MatchRow>, sqlx::Error> {
        let rows = match &list.group {
            None => {
                let sql = format!(
                    "SELECT {MATCH_COLUMNS} WHERE m.state = 'open' AND m.scope = $1 \
                     AND m.level = $2 AND m.group_id IS NULL \
                     AND (m.scope = 'mundial' OR m.x_country = $3) \
                     ORDER BY m.created_at LIMIT 200"
                );
                sqlx::query(&sql)
                    .bind(list.scope.as_str())
                    .bind(i64::from(list.level))
                    .bind(country)
                    .fetch_all(&self.pool)
                    .await?
            }
            Some(group) => {
                let sql = format!(
                    "SELECT {MATCH_COLUMNS} WHERE m.state = 'open' AND m.group_id = $1 \
                     AND m.level = $2 ORDER BY m.created_at LIMIT 200"
                );
                sqlx::query(&sql)
                    .bind(group)
                    .bind(i64::from(list.level))
                    .fetch_all(&self.pool)
                    .await?
            }
        };
        rows.iter().map(match_from).collect()
    }

    /// Starts a match of `player` against the Velha in a group (ON-G05), unless the player
    /// already has an open or live match.
    pub async fn insert_velha_match(&self, m: &MatchRow, now: i64) -> Result<(), SeatError> {
        let mut tx = self.write().await?;
        sqlx::query(
            "INSERT INTO matches (id, scope, level, x_id, x_country, state, position, ply, \
             deadline, created_at, started_at, group_id, against_velha) \
             VALUES ($1, $2, $3, $4, $5, 'live', $6, 0, $7, $8, $8, $9, 1)",
        )
        .bind(&m.id)
        .bind(m.scope.as_str())
        .bind(i64::from(m.level))
        .bind(&m.x_id)
        .bind(&m.x_country)
        .bind(&m.position)
        .bind(m.deadline)
        .bind(now)
        .bind(&m.group)
        .execute(&mut *tx)
        .await?;
        if let Err(e) = claim_player(&mut tx, &m.x_id, &m.id).await {
            return tx.refuse(e).await;
        }
        tx.commit().await?;
        Ok(())
    }

    /// One match.
    pub async fn get_match(&self, id: &str) -> Result<Option<MatchRow>, sqlx::Error> {
        find_match(&mut *self.pool.acquire().await?, id).await
    }

    /// The player's open and live matches.
    pub async fn active_matches_of(&self, account: &str) -> Result<Vec<MatchRow>, sqlx::Error> {
        let sql = format!(
            "SELECT {MATCH_COLUMNS} WHERE m.state IN ('open', 'live') \
             AND (m.x_id = $1 OR m.o_id = $1) ORDER BY m.created_at"
        );
        let rows = sqlx::query(&sql)
            .bind(account)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(match_from).collect()
    }

    /// Every live match (to resume them after a restart).
    pub async fn live_matches(&self) -> Result<Vec<MatchRow>, sqlx::Error> {
        let sql = format!("SELECT {MATCH_COLUMNS} WHERE m.state = 'live'");
        let rows = sqlx::query(&sql).fetch_all(&self.pool).await?;
        rows.iter().map(match_from).collect()
    }

    /// Creators of open matches.
    pub async fn open_match_creators(&self) -> Result<Vec<String>, sqlx::Error> {
        let rows = sqlx::query("SELECT DISTINCT x_id FROM matches WHERE state = 'open'")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| r.try_get("x_id")).collect()
    }

    /// Withdraws an open match of its creator: the lobby list it left, or `None` if it is not
    /// open or not theirs.
    pub async fn cancel_open_match(
        &self,
        id: &str,
        creator: &str,
        now: i64,
    ) -> Result<Option<LobbyList>, sqlx::Error> {
        let mut tx = self.write().await?;
        let row = sqlx::query(
            "UPDATE matches SET state = 'cancelled', ended_at = $1 \
             WHERE id = $2 AND x_id = $3 AND state = 'open' RETURNING scope, level, group_id",
        )
        .bind(now)
        .bind(id)
        .bind(creator)
        .fetch_optional(&mut *tx)
        .await?;
        let list = row.as_ref().map(lobby_list).transpose()?;
        release_if_changed(tx, u64::from(list.is_some()), id).await?;
        Ok(list)
    }

    /// Withdraws every open match of a creator: each one's id and the lobby list it left.
    pub async fn cancel_open_matches_of(
        &self,
        creator: &str,
        now: i64,
    ) -> Result<Vec<(String, LobbyList)>, sqlx::Error> {
        let mut tx = self.write().await?;
        let withdrawn = withdraw_open_matches(&mut tx, creator, now).await?;
        tx.commit().await?;
        Ok(withdrawn)
    }

    /// Seats `player` as O in an open match and starts it, unless the player already has an
    /// open or live match or the match is no longer open (taken, withdrawn, their own).
    pub async fn join_match(
        &self,
        id: &str,
        player: &str,
        country: &str,
        now: i64,
        deadline: i64,
    ) -> Result<(), SeatError> {
        let mut tx = self.write().await?;
        // The match first: one that finalizing its group deleted meanwhile is simply gone,
        // and a group's match seats only a participant still in it (ON-G08).
        let done = sqlx::query(
            "UPDATE matches SET o_id = $1, o_country = $2, state = 'live', started_at = $3, \
             deadline = $4 WHERE id = $5 AND state = 'open' AND x_id <> $1 \
             AND (group_id IS NULL OR EXISTS (SELECT 1 FROM group_members g \
             WHERE g.group_id = matches.group_id AND g.account_id = $1))",
        )
        .bind(player)
        .bind(country)
        .bind(now)
        .bind(deadline)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            tx.rollback().await?;
            return Err(SeatError::Gone);
        }
        if let Err(e) = claim_player(&mut tx, player, id).await {
            return tx.refuse(e).await;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Commits a move and the match's new state in one transaction; false (and nothing
    /// written) if the match is no longer live at `ply_before`.
    pub async fn commit_move(&self, m: &MoveCommit<'_>) -> Result<bool, sqlx::Error> {
        // Nearly every move: one hand-off to SQLite's committer, one round trip to PostgreSQL.
        if m.ending.is_none() && m.events.len() <= 1 {
            return self.run_prepared(move_write(m)).await;
        }
        let mut tx = self.write().await?;
        if !move_write(m).run_in(&mut tx).await? {
            tx.rollback().await?;
            return Ok(false);
        }
        if let Some((winner, how)) = m.ending {
            end_live(&mut tx, m.match_id, winner, how, m.now).await?;
            release_players(&mut tx, m.match_id).await?;
            super::scoring::score_match(&mut tx, m.match_id).await?;
        }
        self.tell(&mut tx, m.events).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Ends a live match without a move (time, abandonment); false if it was not live.
    pub async fn end_match(
        &self,
        id: &str,
        winner: Option<Seat>,
        how: EndHow,
        at: i64,
        events: &[(String, String)],
    ) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let ended = end_live(&mut tx, id, winner, how, at).await?;
        if ended {
            super::scoring::score_match(&mut tx, id).await?;
            self.tell(&mut tx, events).await?;
        }
        release_if_changed(tx, u64::from(ended), id).await
    }

    /// The committed moves of a match, in order: (ply, seat, actions).
    pub async fn moves_of(&self, id: &str) -> Result<Vec<(u32, Seat, String)>, sqlx::Error> {
        let rows =
            sqlx::query("SELECT ply, seat, actions FROM moves WHERE match_id = $1 ORDER BY ply")
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|r| {
                let ply: i64 = r.try_get("ply")?;
                let seat: String = r.try_get("seat")?;
                Ok((
                    u32::try_from(ply).map_err(|_| corrupt("ply", &ply.to_string()))?,
                    seat_from(&seat).ok_or_else(|| corrupt("seat", &seat))?,
                    r.try_get("actions")?,
                ))
            })
            .collect()
    }
}

/// The sweeper's query for [`Store::overdue_matches`] on each database (`$1` now, `$2` the
/// most). Each clock is a range of a partial index of live matches (migrations 9, 24 and 25),
/// so a sweep reads the overdue matches only; one `OR` of the three read every live match,
/// four times a second in each process. SQLite, which keeps no statistics here, would search
/// each branch by `state` instead, three times the old work: it is told the indexes.
pub fn overdue_matches_sql(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => {
            "SELECT id, deadline FROM matches WHERE state = 'live' AND deadline <= $1 \
             UNION SELECT id, deadline FROM matches \
                WHERE state = 'live' AND x_away_until IS NOT NULL AND x_away_until <= $1 \
             UNION SELECT id, deadline FROM matches \
                WHERE state = 'live' AND o_away_until IS NOT NULL AND o_away_until <= $1 \
             ORDER BY deadline LIMIT $2"
        }
        Backend::Sqlite => {
            "SELECT id, deadline FROM matches INDEXED BY matches_live_deadline \
                WHERE state = 'live' AND deadline <= $1 \
             UNION SELECT id, deadline FROM matches INDEXED BY matches_live_x_away \
                WHERE state = 'live' AND x_away_until IS NOT NULL AND x_away_until <= $1 \
             UNION SELECT id, deadline FROM matches INDEXED BY matches_live_o_away \
                WHERE state = 'live' AND o_away_until IS NOT NULL AND o_away_until <= $1 \
             ORDER BY deadline LIMIT $2"
        }
    }
}

impl Store {
    /// Live matches with a clock run out at `now` (a move's deadline or a seat's
    /// reconnection deadline), at most `limit`, most overdue first.
    pub async fn overdue_matches(&self, now: i64, limit: i64) -> Result<Vec<String>, sqlx::Error> {
        let rows = sqlx::query(overdue_matches_sql(self.backend))
            .bind(now)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| r.try_get("id")).collect()
    }

    /// Matches against the Velha where she is to move and whose deadline is before
    /// `since_deadline` (nobody committed anything for long): the process that was deciding
    /// for her is gone. Each one's id and ply.
    pub async fn velha_waiting(
        &self,
        since_deadline: i64,
    ) -> Result<Vec<(String, u32)>, sqlx::Error> {
        // Whose turn it is is the cube's state line's, after its 54 stickers and a space: the
        // ply's parity is not, since a free turn is a ply of its own and her turn goes on.
        let rows = sqlx::query(
            "SELECT id, ply FROM matches WHERE state = 'live' AND against_velha <> 0 \
             AND substr(position, 56, 1) = 'O' AND deadline < $1",
        )
        .bind(since_deadline)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let ply: i64 = r.try_get("ply")?;
                Ok((r.try_get("id")?, u32::try_from(ply).unwrap_or(u32::MAX)))
            })
            .collect()
    }

    /// The positions a match went through before its current one, oldest first: `start`
    /// (not stored: every match of a level starts alike), then the one after each move but
    /// the last; the latest 4 096 of them (the Velha's memory of the game).
    pub async fn positions_of(&self, id: &str, start: &str) -> Result<Vec<String>, sqlx::Error> {
        const KEPT: usize = 4096;
        let rows = sqlx::query(
            "SELECT position FROM moves WHERE match_id = $1 ORDER BY ply DESC LIMIT $2",
        )
        .bind(id)
        .bind(KEPT as i64)
        .fetch_all(&self.pool)
        .await?;
        let mut positions = rows
            .iter()
            .map(|r| r.try_get("position"))
            .collect::<Result<Vec<String>, _>>()?;
        if positions.len() < KEPT {
            positions.push(start.to_owned());
        }
        positions.reverse();
        positions.pop();
        Ok(positions)
    }
}

/// A move that keeps its match live: written over the ply it was played at, so only when no
/// other move came first, and recorded for the replay (one already at this ply is another
/// move's, which came first). Arguments `$1`…`$8`: `move_write`.
static PLAY_MOVE: PreparedWrite = PreparedWrite::new(&[
    "UPDATE matches SET position = $1, ply = $2, deadline = $3 \
     WHERE id = $4 AND ply = $5 AND state = 'live' RETURNING id",
    "INSERT INTO moves (match_id, ply, seat, actions, position, played_at) \
     VALUES ($4, $2, $6, $7, $1, $8) RETURNING ply",
]);

/// `PLAY_MOVE` of this move, telling its first event.
fn move_write(m: &MoveCommit<'_>) -> BoundWrite {
    let args = vec![
        Value::Text(m.position.to_owned()),
        Value::Int(i64::from(m.ply_before) + 1),
        Value::MaybeInt(m.deadline),
        Value::Text(m.match_id.to_owned()),
        Value::Int(i64::from(m.ply_before)),
        Value::Text(seat_str(m.seat).to_owned()),
        Value::Text(m.actions.to_owned()),
        Value::Int(m.now),
    ];
    PLAY_MOVE.bind(args, m.events.first())
}

/// Ends a live match `how`, won by `winner` (none for a draw); false when it was not live.
pub(super) async fn end_live(
    tx: &mut AnyConnection,
    id: &str,
    winner: Option<Seat>,
    how: EndHow,
    at: i64,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE matches SET state = 'over', winner = $1, ending = $2, ended_at = $3, \
         deadline = NULL WHERE id = $4 AND state = 'live'",
    )
    .bind(winner.map(seat_str))
    .bind(how.as_str())
    .bind(at)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Withdraws every open match of `creator`: each one's id and the lobby list it left.
pub(super) async fn withdraw_open_matches(
    tx: &mut AnyConnection,
    creator: &str,
    now: i64,
) -> Result<Vec<(String, LobbyList)>, sqlx::Error> {
    sqlx::query(
        "DELETE FROM active_players WHERE match_id IN \
         (SELECT id FROM matches WHERE x_id = $1 AND state = 'open')",
    )
    .bind(creator)
    .execute(&mut *tx)
    .await?;
    let rows = sqlx::query(
        "UPDATE matches SET state = 'cancelled', ended_at = $1 \
         WHERE x_id = $2 AND state = 'open' RETURNING id, scope, level, group_id",
    )
    .bind(now)
    .bind(creator)
    .fetch_all(&mut *tx)
    .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("id")?, lobby_list(row)?)))
        .collect()
}
