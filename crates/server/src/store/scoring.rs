//! What a finished match changes, written in the transaction that ends it: whether it scores
//! and the points on both players' standings (the rankings, ON-K02 … ON-K03), or on 2.0's
//! competitive mode both ratings (V2-R06).

use std::collections::BTreeMap;

use sqlx::{AnyConnection, Row};
use velha_api::{EndHow, MatchGame, Seat};
use velha_rules::{INITIAL_RATING, RatedResult, ranking_points, rating_after};

use super::{corrupt, seat_from};

pub(super) const DAY_MS: i64 = 86_400_000;
/// ON-K03: matches a day against the same opponent, per level, that score.
pub(super) const SCORED_PER_DAY: i64 = 2;

/// Points for the winner and for the loser of a match that ended `how` (ON-K02).
pub(super) fn points(how: EndHow) -> (i64, i64) {
    // A cube match has a winner; only 2.0's draw, which is rated, not scored, has none.
    if how == EndHow::Draw {
        return (0, 0);
    }
    let (win, loss) = ranking_points(how.into());
    (i64::from(win), i64::from(loss))
}

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
    // Under the account's row lock on PostgreSQL: a ban committing meanwhile (which takes the
    // standing away in its transaction) is seen by the insert below, whose snapshot is then
    // taken, and no standing comes back behind it. SQLite writes one at a time.
    if tx.backend_name() == "PostgreSQL" {
        sqlx::query("SELECT id FROM accounts WHERE id = $1 FOR SHARE")
            .bind(account)
            .fetch_optional(&mut *tx)
            .await?;
    }
    let row = sqlx::query(
        "INSERT INTO standings (account_id, level, country, neg_points, neg_wins, losses, reached_at) \
         SELECT id, $2, country, $3, $4, $5, $6 FROM accounts WHERE id = $1 \
         AND banned_at IS NULL \
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
    .fetch_optional(&mut *tx)
    .await?;
    // A banned player holds no standing: their opponents' results count all the same.
    let Some(row) = row else {
        return Ok(Vec::new());
    };
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

/// Records changes to the counts of players per points, for the next fold to add to them
/// (`Store::fold_standing_counts`): appended rows, which no other transaction waits for.
pub(super) async fn apply_counts(
    tx: &mut AnyConnection,
    changes: Vec<CountChange>,
) -> Result<(), sqlx::Error> {
    let head = "INSERT INTO standing_count_changes (id, level, country, neg_points, players)";
    insert_merged(tx, head, "", changes).await
}

/// Adds changes to the counts of players per points in one statement, each count once and in
/// one order for every transaction (so two folds at once never wait for each other in a
/// circle).
pub(super) async fn add_to_counts(
    tx: &mut AnyConnection,
    changes: Vec<CountChange>,
) -> Result<(), sqlx::Error> {
    let head = "INSERT INTO standing_counts (level, country, neg_points, players)";
    let tail = " ON CONFLICT (level, country, neg_points) \
                DO UPDATE SET players = standing_counts.players + excluded.players";
    insert_merged(tx, head, tail, changes).await
}

/// `head VALUES … tail` with a row per count the changes change; a new id first in each row
/// when `head` names an id.
async fn insert_merged(
    tx: &mut AnyConnection,
    head: &str,
    tail: &str,
    changes: Vec<CountChange>,
) -> Result<(), sqlx::Error> {
    let merged = merge(changes);
    if merged.is_empty() {
        return Ok(());
    }
    let with_id = head.contains("(id, ");
    let columns = if with_id { 5 } else { 4 };
    let sql = format!(
        "{head} VALUES {}{tail}",
        placeholders(merged.len(), columns)
    );
    let mut query = sqlx::query(&sql);
    for (((level, country), neg_points), players) in merged {
        if with_id {
            query = query.bind(crate::token::random_text(12));
        }
        query = query
            .bind(level)
            .bind(country)
            .bind(neg_points)
            .bind(players);
    }
    query.execute(&mut *tx).await?;
    Ok(())
}

/// The changes summed per count, in the counts' order, without those that cancel out.
fn merge(changes: Vec<CountChange>) -> BTreeMap<((i64, String), i64), i64> {
    let mut merged: BTreeMap<((i64, String), i64), i64> = BTreeMap::new();
    for (list, neg_points, players) in changes {
        *merged.entry((list, neg_points)).or_insert(0) += players;
    }
    merged.retain(|_, players| *players != 0);
    merged
}

/// `($1, $2), ($3, $4)` for `rows` rows of `columns` values.
fn placeholders(rows: usize, columns: usize) -> String {
    (0..rows)
        .map(|r| {
            let row: Vec<String> = (1..=columns)
                .map(|c| format!("${}", r * columns + c))
                .collect();
            format!("({})", row.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
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
        rate(tx, match_id).await?;
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

/// Applies a finished rated match to both ratings (+30 / 0 / −20, floor 0, V2-R06) and keeps
/// the before and after on the match, inside the transaction that ended it.
pub(super) async fn rate(tx: &mut AnyConnection, match_id: &str) -> Result<(), sqlx::Error> {
    let m = sqlx::query("SELECT x_id, o_id, winner, ended_at FROM matches WHERE id = $1")
        .bind(match_id)
        .fetch_one(&mut *tx)
        .await?;
    let x: String = m.try_get("x_id")?;
    let o: Option<String> = m.try_get("o_id")?;
    let o = o.ok_or_else(|| corrupt("rated match without O", match_id))?;
    let winner: Option<String> = m.try_get("winner")?;
    let winner = match winner {
        Some(w) => Some(seat_from(&w).ok_or_else(|| corrupt("winner", &w))?),
        None => None,
    };
    let at: i64 = m.try_get::<Option<i64>, _>("ended_at")?.unwrap_or(0);
    let mut changes = Vec::with_capacity(2);
    for (account, seat) in [(&x, Seat::X), (&o, Seat::O)] {
        let result = match winner {
            None => RatedResult::Draw,
            Some(w) if w == seat => RatedResult::Win,
            Some(_) => RatedResult::Loss,
        };
        let before = rating_on(tx, account).await?;
        let after = rating_after(before, result);
        let (w, d, l) = match result {
            RatedResult::Win => (1, 0, 0),
            RatedResult::Draw => (0, 1, 0),
            RatedResult::Loss => (0, 0, 1),
        };
        sqlx::query(
            "INSERT INTO v2_ratings (account_id, rating, games, wins, draws, losses, updated_at) \
             VALUES ($1, $2, 1, $3, $4, $5, $6) ON CONFLICT (account_id) DO UPDATE SET \
             rating = $2, games = v2_ratings.games + 1, wins = v2_ratings.wins + $3, \
             draws = v2_ratings.draws + $4, losses = v2_ratings.losses + $5, updated_at = $6",
        )
        .bind(account)
        .bind(i64::from(after))
        .bind(w)
        .bind(d)
        .bind(l)
        .bind(at)
        .execute(&mut *tx)
        .await?;
        changes.push((before, after));
    }
    sqlx::query(
        "UPDATE matches SET scored = 1, x_rating_before = $1, x_rating_after = $2, \
         o_rating_before = $3, o_rating_after = $4 WHERE id = $5",
    )
    .bind(i64::from(changes[0].0))
    .bind(i64::from(changes[0].1))
    .bind(i64::from(changes[1].0))
    .bind(i64::from(changes[1].1))
    .bind(match_id)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// A player's rating, 1000 before their first rated match (V2-R06).
pub(super) async fn rating_on(conn: &mut AnyConnection, account: &str) -> Result<u32, sqlx::Error> {
    let row = sqlx::query("SELECT rating FROM v2_ratings WHERE account_id = $1")
        .bind(account)
        .fetch_optional(conn)
        .await?;
    Ok(match row {
        Some(r) => rating_u32(r.try_get("rating")?),
        None => INITIAL_RATING,
    })
}

pub(super) fn rating_u32(r: i64) -> u32 {
    u32::try_from(r.max(0)).unwrap_or(u32::MAX)
}
