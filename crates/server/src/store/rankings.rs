//! The world and national rankings (online.md ON-K01 … ON-K04): each finished match is scored
//! in the transaction that ends it, and the standings read a page at a time or one player's
//! position. [`Rebuild`] recomputes everything from the matches alone, the plain oracle the
//! incremental bookkeeping is checked against.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sqlx::{AnyConnection, Row};
use velha_api::{EndHow, Seat};

use super::scoring::{DAY_MS, SCORED_PER_DAY, add_to_counts, points};
use super::{Store, corrupt, seat_from};

/// Rows a batched statement carries (well under SQLite's and PostgreSQL's limits on
/// parameters).
const BATCH: usize = 1000;

/// One player's standing at one level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// The account.
    pub account_id: String,
    /// Its player name.
    pub name: String,
    /// Its country now.
    pub country: String,
    /// Points.
    pub points: i64,
    /// Scored wins.
    pub wins: i64,
    /// Scored losses (on time and by abandonment too).
    pub losses: i64,
    /// When the current points were reached.
    pub reached_at: i64,
}

/// Where a page starts: just after this standing (its order columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct After {
    /// Points.
    pub points: i64,
    /// Wins.
    pub wins: i64,
    /// Losses.
    pub losses: i64,
    /// When the points were reached.
    pub reached_at: i64,
    /// The account.
    pub account_id: String,
}

impl From<&Standing> for After {
    fn from(s: &Standing) -> After {
        After {
            points: s.points,
            wins: s.wins,
            losses: s.losses,
            reached_at: s.reached_at,
            account_id: s.account_id.clone(),
        }
    }
}

fn standing_from(row: &sqlx::any::AnyRow) -> Result<Standing, sqlx::Error> {
    let neg_points: i64 = row.try_get("neg_points")?;
    let neg_wins: i64 = row.try_get("neg_wins")?;
    Ok(Standing {
        account_id: row.try_get("account_id")?,
        name: row.try_get("name")?,
        country: row.try_get("country")?,
        points: -neg_points,
        wins: -neg_wins,
        losses: row.try_get("losses")?,
        reached_at: row.try_get("reached_at")?,
    })
}

const STANDING_COLUMNS: &str = "s.account_id, a.name, s.country, s.neg_points, s.neg_wins, \
     s.losses, s.reached_at FROM standings s JOIN accounts a ON a.id = s.account_id";
const ORDER: &str = "s.neg_points, s.neg_wins, s.losses, s.reached_at, s.account_id";
const KEY: &str = "(s.neg_points, s.neg_wins, s.losses, s.reached_at, s.account_id)";

/// The name of the secret that ranking cursors are sealed under.
const CURSOR_SECRET: &str = "ranking_cursor";

/// Where `standing_counts`, with the changes not yet added to them, differs from the standings
/// it counts (a missing row counts 0).
async fn count_differences(
    tx: &mut AnyConnection,
) -> Result<Vec<(i64, String, i64, i64, i64)>, sqlx::Error> {
    let mut both: BTreeMap<(i64, String, i64), (i64, i64)> = BTreeMap::new();
    for (sql, stored) in [
        (
            "SELECT level, country, neg_points, players FROM standing_counts",
            true,
        ),
        (
            "SELECT level, country, neg_points, CAST(SUM(players) AS BIGINT) AS players \
             FROM standing_count_changes GROUP BY level, country, neg_points",
            true,
        ),
        (
            "SELECT level, country, neg_points, COUNT(*) AS players FROM standings \
             GROUP BY level, country, neg_points",
            false,
        ),
    ] {
        for r in sqlx::query(sql).fetch_all(&mut *tx).await? {
            let key = (
                r.try_get("level")?,
                r.try_get("country")?,
                r.try_get("neg_points")?,
            );
            let players: i64 = r.try_get("players")?;
            let entry = both.entry(key).or_insert((0, 0));
            if stored {
                entry.0 += players;
            } else {
                entry.1 = players;
            }
        }
    }
    Ok(both
        .into_iter()
        .filter(|(_, (stored, counted))| stored != counted)
        .map(|((level, country, neg), (stored, counted))| (level, country, neg, stored, counted))
        .collect())
}

/// A finished match as the rebuild reads it.
struct Finished {
    id: String,
    x: String,
    o: String,
    level: i64,
    winner: Seat,
    how: EndHow,
    ended_at: i64,
    scored: Option<bool>,
}

/// The standings and scored flags recomputed from the matches alone, and how they differ from
/// what is stored.
#[derive(Debug, Default)]
pub struct Rebuild {
    /// Matches whose stored flag differs: (match id, stored, recomputed).
    pub flags: Vec<(String, Option<bool>, bool)>,
    /// Standings that differ: (account id, level, stored, recomputed), `None` for no row.
    pub standings: Vec<(String, i64, Option<Tally>, Option<Tally>)>,
    /// Matches read.
    pub matches: usize,
    /// Standings recomputed.
    pub players: usize,
    /// Counts of players per points that differ from the stored standings: (level, country,
    /// neg_points, stored, counted).
    pub counts: Vec<(i64, String, i64, i64, i64)>,
}

/// A standing's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    /// Points.
    pub points: i64,
    /// Wins.
    pub wins: i64,
    /// Losses.
    pub losses: i64,
    /// When the points were reached.
    pub reached_at: i64,
}

impl Tally {
    fn add(tally: Option<Tally>, (points, wins, losses): (i64, i64, i64), at: i64) -> Tally {
        match tally {
            None => Tally {
                points,
                wins,
                losses,
                reached_at: at,
            },
            Some(t) => Tally {
                points: t.points + points,
                wins: t.wins + wins,
                losses: t.losses + losses,
                reached_at: if points > 0 { at } else { t.reached_at },
            },
        }
    }
}

impl Store {
    /// Adds the changes that finished matches, bans and moves to another country recorded to
    /// the counts of players per points, up to [`BATCH`] of them in one transaction; answers
    /// whether a whole batch was folded (there may be more). Every process does it about once
    /// a second; two at once take different rows.
    pub async fn fold_standing_counts(&self) -> Result<bool, sqlx::Error> {
        // A look first, on a reading connection: on SQLite a fold of nothing would still take
        // the write lock.
        let pending = sqlx::query("SELECT id FROM standing_count_changes LIMIT 1")
            .fetch_optional(&self.pool)
            .await?;
        if pending.is_none() {
            return Ok(false);
        }
        let mut tx = self.write().await?;
        let skip = if tx.backend_name() == "PostgreSQL" {
            " FOR UPDATE SKIP LOCKED"
        } else {
            ""
        };
        let rows = sqlx::query(&format!(
            "DELETE FROM standing_count_changes WHERE id IN \
             (SELECT id FROM standing_count_changes LIMIT {BATCH}{skip}) \
             RETURNING level, country, neg_points, players"
        ))
        .fetch_all(&mut *tx)
        .await?;
        let mut changes = Vec::with_capacity(rows.len());
        for r in &rows {
            changes.push((
                (r.try_get("level")?, r.try_get("country")?),
                r.try_get("neg_points")?,
                r.try_get("players")?,
            ));
        }
        add_to_counts(&mut tx, changes).await?;
        tx.commit().await?;
        Ok(rows.len() == BATCH)
    }

    /// Whether a finished match scored (`None` while it is not over).
    pub async fn scored(&self, match_id: &str) -> Result<Option<bool>, sqlx::Error> {
        let row = sqlx::query("SELECT scored FROM matches WHERE id = $1")
            .bind(match_id)
            .fetch_optional(&self.pool)
            .await?;
        let scored: Option<i64> = match row {
            Some(r) => r.try_get("scored")?,
            None => None,
        };
        Ok(scored.map(|s| s != 0))
    }

    /// Up to `limit` standings of a level — of one country's players when `country` is given —
    /// in ranking order, after `after` when given.
    pub async fn ranking_page(
        &self,
        level: u8,
        country: Option<&str>,
        after: Option<&After>,
        limit: u32,
    ) -> Result<Vec<Standing>, sqlx::Error> {
        let mut sql = format!("SELECT {STANDING_COLUMNS} WHERE s.level = $1");
        let mut next = 2;
        if country.is_some() {
            sql.push_str(&format!(" AND s.country = ${next}"));
            next += 1;
        }
        if after.is_some() {
            sql.push_str(&format!(
                " AND {KEY} > (${}, ${}, ${}, ${}, ${})",
                next,
                next + 1,
                next + 2,
                next + 3,
                next + 4
            ));
            next += 5;
        }
        sql.push_str(&format!(" ORDER BY {ORDER} LIMIT ${next}"));
        let mut query = sqlx::query(&sql).bind(i64::from(level));
        if let Some(c) = country {
            query = query.bind(c);
        }
        if let Some(a) = after {
            query = query
                .bind(-a.points)
                .bind(-a.wins)
                .bind(a.losses)
                .bind(a.reached_at)
                .bind(&a.account_id);
        }
        let rows = query.bind(i64::from(limit)).fetch_all(&self.pool).await?;
        rows.iter().map(standing_from).collect()
    }

    /// A player's standing at a level and their place (1 = first) in the world ranking, or in
    /// their country's when `national`; `None` before their first scored match there. The
    /// players ahead are those with more points, summed from `standing_counts` and the changes
    /// not yet added to them (one statement, so one snapshot of both), and those
    /// with as many points ahead in the order, counted on the ranking's own index.
    pub async fn ranking_position(
        &self,
        account: &str,
        level: u8,
        national: bool,
    ) -> Result<Option<(u64, Standing)>, sqlx::Error> {
        let row = sqlx::query(&format!(
            "SELECT {STANDING_COLUMNS} WHERE s.account_id = $1 AND s.level = $2"
        ))
        .bind(account)
        .bind(i64::from(level))
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let mine = standing_from(&row)?;
        // Ahead: everyone with more points (from the counts), then those with as many points
        // earlier in the order (a range of the index that equal points share).
        let (counted, ranked) = if national {
            (" AND country = $7", " AND s.country = $7")
        } else {
            ("", "")
        };
        let sql = format!(
            "SELECT (SELECT CAST(COALESCE(SUM(players), 0) AS BIGINT) FROM standing_counts \
             WHERE level = $1 AND neg_points < $2{counted}) + \
             (SELECT CAST(COALESCE(SUM(players), 0) AS BIGINT) FROM standing_count_changes \
             WHERE level = $1 AND neg_points < $2{counted}) + \
             (SELECT COUNT(*) FROM standings s WHERE s.level = $1 AND s.neg_points = $2 \
             AND (s.neg_wins, s.losses, s.reached_at, s.account_id) < ($3, $4, $5, $6){ranked})"
        );
        let mut query = sqlx::query_as::<_, (i64,)>(&sql)
            .bind(i64::from(level))
            .bind(-mine.points)
            .bind(-mine.wins)
            .bind(mine.losses)
            .bind(mine.reached_at)
            .bind(&mine.account_id);
        if national {
            query = query.bind(&mine.country);
        }
        let (ahead,) = query.fetch_one(&self.pool).await?;
        Ok(Some((u64::try_from(ahead).unwrap_or(0) + 1, mine)))
    }

    /// Recomputes every scored flag and standing from the finished matches, in the order they
    /// ended, and compares them with what is stored; with `write`, replaces what is stored by
    /// the recomputation, in one transaction.
    pub async fn rebuild_rankings(&self, write: bool) -> Result<Rebuild, sqlx::Error> {
        // A check reads under the write lock too, so no match ends halfway through it; on
        // PostgreSQL, where writes run side by side, the lock on the counts' recorded changes
        // keeps the matches that end and the folds out until this commits.
        let mut tx = self.write().await?;
        if tx.backend_name() == "PostgreSQL" {
            sqlx::query("LOCK TABLE standing_count_changes IN EXCLUSIVE MODE")
                .execute(&mut *tx)
                .await?;
        }
        let rows = sqlx::query(
            "SELECT id, x_id, o_id, level, winner, ending, ended_at, scored FROM matches \
             WHERE state = 'over' AND o_id IS NOT NULL AND group_id IS NULL AND game = 'cube' \
             ORDER BY ended_at, id",
        )
        .fetch_all(&mut *tx)
        .await?;
        let mut finished = Vec::with_capacity(rows.len());
        for r in &rows {
            let winner: String = r.try_get("winner")?;
            let ending: String = r.try_get("ending")?;
            let scored: Option<i64> = r.try_get("scored")?;
            finished.push(Finished {
                id: r.try_get("id")?,
                x: r.try_get("x_id")?,
                o: r.try_get("o_id")?,
                level: r.try_get("level")?,
                winner: seat_from(&winner).ok_or_else(|| corrupt("winner", &winner))?,
                how: EndHow::from_str_opt(&ending).ok_or_else(|| corrupt("ending", &ending))?,
                ended_at: r.try_get("ended_at")?,
                scored: scored.map(|s| s != 0),
            });
        }
        let mut result = Rebuild {
            matches: finished.len(),
            ..Rebuild::default()
        };
        // (pair, level, day) → scored so far; the pair in a fixed order.
        let mut per_day: HashMap<(String, String, i64, i64), i64> = HashMap::new();
        let mut tallies: BTreeMap<(String, i64), Tally> = BTreeMap::new();
        for m in &finished {
            let pair = if m.x < m.o {
                (m.x.clone(), m.o.clone())
            } else {
                (m.o.clone(), m.x.clone())
            };
            let count = per_day
                .entry((pair.0, pair.1, m.level, m.ended_at.div_euclid(DAY_MS)))
                .or_insert(0);
            let scored = *count < SCORED_PER_DAY;
            if scored {
                *count += 1;
                let (win, loss) = points(m.how);
                let (won, lost) = match m.winner {
                    Seat::X => (&m.x, &m.o),
                    Seat::O => (&m.o, &m.x),
                };
                for (account, numbers) in [(won, (win, 1, 0)), (lost, (loss, 0, 1))] {
                    let key = (account.clone(), m.level);
                    let tally = Tally::add(tallies.get(&key).copied(), numbers, m.ended_at);
                    tallies.insert(key, tally);
                }
            }
            if m.scored != Some(scored) {
                result.flags.push((m.id.clone(), m.scored, scored));
            }
        }
        // A banned player holds no standing while banned (their matches still count for
        // the others, above).
        let banned: BTreeSet<String> =
            sqlx::query_scalar("SELECT id FROM accounts WHERE banned_at IS NOT NULL")
                .fetch_all(&mut *tx)
                .await?
                .into_iter()
                .collect();
        tallies.retain(|(account, _), _| !banned.contains(account));
        result.players = tallies.len();
        let stored = sqlx::query(
            "SELECT account_id, level, neg_points, neg_wins, losses, reached_at FROM standings",
        )
        .fetch_all(&mut *tx)
        .await?;
        let mut stored_tallies = BTreeMap::new();
        for r in &stored {
            let neg_points: i64 = r.try_get("neg_points")?;
            let neg_wins: i64 = r.try_get("neg_wins")?;
            stored_tallies.insert(
                (
                    r.try_get::<String, _>("account_id")?,
                    r.try_get::<i64, _>("level")?,
                ),
                Tally {
                    points: -neg_points,
                    wins: -neg_wins,
                    losses: r.try_get("losses")?,
                    reached_at: r.try_get("reached_at")?,
                },
            );
        }
        let keys: BTreeSet<&(String, i64)> = stored_tallies.keys().chain(tallies.keys()).collect();
        for key in keys {
            let (old, new) = (stored_tallies.get(key), tallies.get(key));
            if old != new {
                result
                    .standings
                    .push((key.0.clone(), key.1, old.copied(), new.copied()));
            }
        }
        result.counts = count_differences(&mut tx).await?;
        if !write {
            tx.rollback().await?;
            return Ok(result);
        }
        // In batches: a rebuild after an upgrade can touch a million matches.
        for value in [false, true] {
            let ids: Vec<&String> = result
                .flags
                .iter()
                .filter(|(_, _, scored)| *scored == value)
                .map(|(id, ..)| id)
                .collect();
            for chunk in ids.chunks(BATCH) {
                let marks: Vec<String> = (2..chunk.len() + 2).map(|i| format!("${i}")).collect();
                let sql = format!(
                    "UPDATE matches SET scored = $1 WHERE id IN ({})",
                    marks.join(", ")
                );
                let mut query = sqlx::query(&sql).bind(i64::from(value));
                for id in chunk {
                    query = query.bind(*id);
                }
                query.execute(&mut *tx).await?;
            }
        }
        sqlx::query("DELETE FROM standings")
            .execute(&mut *tx)
            .await?;
        let all: Vec<(&(String, i64), &Tally)> = tallies.iter().collect();
        for chunk in all.chunks(BATCH / 6) {
            let rows: Vec<String> = (0..chunk.len())
                .map(|i| {
                    let marks: Vec<String> = (1..=6).map(|k| format!("${}", i * 6 + k)).collect();
                    format!("({})", marks.join(", "))
                })
                .collect();
            // VALUES columns are column1 … column6 in both databases.
            let sql = format!(
                "INSERT INTO standings (account_id, level, country, neg_points, neg_wins, losses, \
                 reached_at) SELECT v.column1, v.column2, a.country, v.column3, v.column4, \
                 v.column5, v.column6 FROM (VALUES {}) AS v JOIN accounts a ON a.id = v.column1",
                rows.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for ((account, level), t) in chunk {
                query = query
                    .bind(account)
                    .bind(level)
                    .bind(-t.points)
                    .bind(-t.wins)
                    .bind(t.losses)
                    .bind(t.reached_at);
            }
            query.execute(&mut *tx).await?;
        }
        for sql in [
            "DELETE FROM standing_count_changes",
            "DELETE FROM standing_counts",
            "INSERT INTO standing_counts (level, country, neg_points, players) \
             SELECT level, country, neg_points, COUNT(*) FROM standings \
             GROUP BY level, country, neg_points",
        ] {
            sqlx::query(sql).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(result)
    }

    /// The secret that ranking cursors are sealed under: made by the first process that asks,
    /// then read back by every other one on this database, so a cursor one process gave opens
    /// on any other and after a restart.
    pub async fn ranking_cursor_secret(&self) -> Result<String, sqlx::Error> {
        self.secret(CURSOR_SECRET, crate::token::random_text(32))
            .await
    }

    /// Whether some finished match was never scored (it ended before the rankings existed).
    pub async fn has_unscored_matches(&self) -> Result<bool, sqlx::Error> {
        let found = sqlx::query(
            "SELECT id FROM matches WHERE state = 'over' AND o_id IS NOT NULL \
             AND group_id IS NULL AND game = 'cube' AND scored IS NULL LIMIT 1",
        )
        .fetch_optional(&self.pool)
        .await?;
        Ok(found.is_some())
    }
}
