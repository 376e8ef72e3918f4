//! The world and national rankings (online.md ON-K01 … ON-K04): each finished match is scored
//! in the transaction that ends it, and the standings read a page at a time or one player's
//! position. [`Rebuild`] recomputes everything from the matches alone, the plain oracle the
//! incremental bookkeeping is checked against.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sqlx::{AnyConnection, Row};
use velha_api::{EndHow, MatchGame, Seat};

use super::{Store, corrupt, seat_from};

const DAY_MS: i64 = 86_400_000;
/// ON-K03: matches a day against the same opponent, per level, that score.
const SCORED_PER_DAY: i64 = 2;
/// Values a batched statement of the rebuild carries (well under SQLite's and PostgreSQL's
/// limits on parameters).
const BATCH: usize = 1000;

/// Points for the winner and for the loser of a match that ended `how` (ON-K02).
pub fn points(how: EndHow) -> (i64, i64) {
    match how {
        EndHow::Line | EndHow::BothLines => (3, 1),
        EndHow::Time | EndHow::Abandonment => (3, 0),
        // A cube match has a winner; only 2.0's draw, which is rated, not scored, has none.
        EndHow::Draw => (0, 0),
    }
}

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

/// A change to `standing_counts`: (level, country, neg_points) gains `players` (or loses).
pub(super) type CountChange = ((i64, String), i64, i64);

/// Adds a result to a player's standing; answers the changes it makes to the counts of players
/// per points, for [`apply_counts`].
async fn add_to_standing(
    tx: &mut AnyConnection,
    account: &str,
    level: i64,
    (points, wins, losses): (i64, i64, i64),
    at: i64,
) -> Result<Vec<CountChange>, sqlx::Error> {
    let row = sqlx::query(
        "INSERT INTO standings (account_id, level, country, neg_points, neg_wins, losses, reached_at) \
         SELECT id, $2, country, $3, $4, $5, $6 FROM accounts WHERE id = $1 \
         ON CONFLICT (account_id, level) DO UPDATE SET \
         neg_points = standings.neg_points + excluded.neg_points, \
         neg_wins = standings.neg_wins + excluded.neg_wins, \
         losses = standings.losses + excluded.losses, \
         reached_at = CASE WHEN excluded.neg_points < 0 THEN excluded.reached_at \
                      ELSE standings.reached_at END \
         RETURNING country, neg_points, neg_wins, losses",
    )
    .bind(account)
    .bind(level)
    .bind(-points)
    .bind(-wins)
    .bind(losses)
    .bind(at)
    .fetch_one(&mut *tx)
    .await?;
    let country: String = row.try_get("country")?;
    let now: i64 = row.try_get("neg_points")?;
    let (neg_wins, all_losses): (i64, i64) = (row.try_get("neg_wins")?, row.try_get("losses")?);
    // Every standing holds a scored win or loss, so one with none before this was new.
    let existed = neg_wins + wins != 0 || all_losses - losses != 0;
    let before = now + points;
    let mut changes = Vec::with_capacity(2);
    if existed && before != now {
        changes.push(((level, country.clone()), before, -1));
    }
    if !existed || before != now {
        changes.push(((level, country), now, 1));
    }
    Ok(changes)
}

/// Applies changes to the counts of players per points in one statement, each count once and
/// in one order for every transaction (so two results being recorded at once never wait for
/// each other in a circle).
pub(super) async fn apply_counts(
    tx: &mut AnyConnection,
    changes: Vec<CountChange>,
) -> Result<(), sqlx::Error> {
    let mut merged: BTreeMap<((i64, String), i64), i64> = BTreeMap::new();
    for (list, neg_points, players) in changes {
        *merged.entry((list, neg_points)).or_insert(0) += players;
    }
    merged.retain(|_, players| *players != 0);
    if merged.is_empty() {
        return Ok(());
    }
    let rows: Vec<String> = (0..merged.len())
        .map(|i| {
            format!(
                "(${}, ${}, ${}, ${})",
                4 * i + 1,
                4 * i + 2,
                4 * i + 3,
                4 * i + 4
            )
        })
        .collect();
    let sql = format!(
        "INSERT INTO standing_counts (level, country, neg_points, players) VALUES {} \
         ON CONFLICT (level, country, neg_points) \
         DO UPDATE SET players = standing_counts.players + excluded.players",
        rows.join(", ")
    );
    let mut query = sqlx::query(&sql);
    for (((level, country), neg_points), players) in merged {
        query = query
            .bind(level)
            .bind(country)
            .bind(neg_points)
            .bind(players);
    }
    query.execute(&mut *tx).await?;
    Ok(())
}

/// Scores the match that this transaction just ended: whether it scores (ON-K03, ON-G04;
/// always against the Velha, ON-G05) goes on the match, and the points of a match outside
/// groups on both players' standings (ON-K02). A group's table is read from its matches.
/// Answers whether it scored.
pub(super) async fn score_match(
    tx: &mut AnyConnection,
    match_id: &str,
) -> Result<bool, sqlx::Error> {
    // 2.0's competitive matches change ratings, never the cube's standings (V2-R06).
    let game: String = sqlx::query("SELECT game FROM matches WHERE id = $1")
        .bind(match_id)
        .fetch_one(&mut *tx)
        .await?
        .try_get("game")?;
    if game == MatchGame::V2.as_str() {
        super::competitive::rate(tx, match_id).await?;
        return Ok(true);
    }
    // One statement decides and records whether it scores (ON-K03, ON-G04: fewer than two
    // scored matches that UTC day between the same two players at this level, counted among
    // the matches outside groups, or among the same group's) and reads the match.
    let row = sqlx::query(
        "UPDATE matches SET scored = CASE WHEN against_velha = 1 THEN 1 \
         WHEN (SELECT COUNT(*) FROM matches p \
         WHERE p.level = matches.level AND p.scored = 1 AND p.id <> matches.id \
         AND p.ended_at >= matches.ended_at - (matches.ended_at % $2) \
         AND p.ended_at < matches.ended_at - (matches.ended_at % $2) + $2 \
         AND ((p.group_id IS NULL AND matches.group_id IS NULL) OR p.group_id = matches.group_id) \
         AND ((p.x_id = matches.x_id AND p.o_id = matches.o_id) \
           OR (p.x_id = matches.o_id AND p.o_id = matches.x_id))) < $3 THEN 1 ELSE 0 END \
         WHERE id = $1 RETURNING scored, x_id, o_id, level, winner, ending, ended_at, group_id",
    )
    .bind(match_id)
    .bind(DAY_MS)
    .bind(SCORED_PER_DAY)
    .fetch_one(&mut *tx)
    .await?;
    let scored: i64 = row.try_get("scored")?;
    let scored = scored == 1;
    let group: Option<String> = row.try_get("group_id")?;
    if group.is_some() {
        return Ok(scored);
    }
    let x: String = row.try_get("x_id")?;
    let o: Option<String> = row.try_get("o_id")?;
    let level: i64 = row.try_get("level")?;
    let winner: Option<String> = row.try_get("winner")?;
    let ending: Option<String> = row.try_get("ending")?;
    let ended_at: Option<i64> = row.try_get("ended_at")?;
    let (Some(o), Some(winner), Some(ending), Some(ended_at)) = (o, winner, ending, ended_at)
    else {
        return Err(corrupt("finished match", match_id));
    };
    let winner = seat_from(&winner).ok_or_else(|| corrupt("winner", &winner))?;
    let how = EndHow::from_str_opt(&ending).ok_or_else(|| corrupt("ending", &ending))?;
    if scored {
        let (win, loss) = points(how);
        let (won, lost) = match winner {
            Seat::X => (&x, &o),
            Seat::O => (&o, &x),
        };
        let mut changes = add_to_standing(tx, won, level, (win, 1, 0), ended_at).await?;
        changes.extend(add_to_standing(tx, lost, level, (loss, 0, 1), ended_at).await?);
        apply_counts(tx, changes).await?;
    }
    Ok(scored)
}

/// Where `standing_counts` differs from the standings it counts (a missing row counts 0).
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
                entry.0 = players;
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
    /// players ahead are those with more points, summed from `standing_counts`, and those
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
        // A check reads under the write lock too, so no match ends halfway through it.
        let mut tx = self.write().await?;
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
