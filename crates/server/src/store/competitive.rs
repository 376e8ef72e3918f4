//! Jogo da Velha 2.0's competitive mode in the database (ON-V01, V2-R06): the queue, pairing
//! by rating, the ratings changed in the transaction that ends a match, and the leaderboard.

use std::collections::BTreeSet;

use sqlx::{AnyConnection, Row};
use velha_api::{MatchGame, MatchState, RatingRow, Scope, accepted_difference};

use super::matches::{claim_player, match_from_id};
use super::scoring::{rating_on, rating_u32};
use super::{MatchRow, SeatError, Store};

/// A player waiting in the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// Their account.
    pub account_id: String,
    /// Their rating when they joined.
    pub rating: u32,
    /// When they joined (ms since the epoch).
    pub joined_at: i64,
}

/// Two waiting players whose difference both accept at `now`, oldest waiting first: each
/// player, in the order they joined, takes the closest rating among those not yet taken (the
/// earlier joined on a tie). Each player looks outwards from their own rating only as far as
/// they accept, so a long queue costs about n log n, not n² (every process pairs every round).
pub fn pairs(waiting: &[Waiting], now: i64) -> Vec<(usize, usize)> {
    let accepts: Vec<u32> = waiting
        .iter()
        .map(|w| accepted_difference(u64::try_from(now - w.joined_at).unwrap_or(0)))
        .collect();
    let mut order: Vec<usize> = (0..waiting.len()).collect();
    order.sort_by_key(|&i| (waiting[i].joined_at, waiting[i].account_id.clone()));
    // Not yet taken, by (rating, rank in joining order): ties of rating go to the earlier.
    let mut free: BTreeSet<(u64, usize)> = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| (u64::from(waiting[i].rating), rank))
        .collect();
    let mut found = Vec::new();
    for (rank, &a) in order.iter().enumerate() {
        let rating = u64::from(waiting[a].rating);
        if !free.remove(&(rating, rank)) {
            continue;
        }
        let reach = u64::from(accepts[a]);
        let mut below = free.range(..(rating + 1, 0)).rev().peekable();
        let mut above = free.range((rating + 1, 0)..).peekable();
        let mut best = None;
        loop {
            let gap = |&&(r, _): &&(u64, usize)| r.abs_diff(rating);
            let Some(d) = [below.peek().map(gap), above.peek().map(gap)]
                .into_iter()
                .flatten()
                .min()
            else {
                break;
            };
            if d > reach {
                break;
            }
            // Everyone this far away, on either side; the earliest joined who accepts it.
            let mut at_d = Vec::new();
            while let Some(&&c) = below.peek().filter(|c| gap(c) == d) {
                at_d.push(c);
                below.next();
            }
            while let Some(&&c) = above.peek().filter(|c| gap(c) == d) {
                at_d.push(c);
                above.next();
            }
            best = at_d
                .into_iter()
                .filter(|&(_, r)| d <= u64::from(accepts[order[r]]))
                .min_by_key(|&(_, r)| r);
            if best.is_some() {
                break;
            }
        }
        if let Some(b) = best {
            free.remove(&b);
            found.push((a, order[b.1]));
        }
    }
    found
}

impl Store {
    /// A player's rating: 1000 before their first rated match (V2-R06).
    pub async fn rating(&self, account: &str) -> Result<u32, sqlx::Error> {
        rating_on(&mut *self.pool.acquire().await?, account).await
    }

    /// Puts the player in the queue (or leaves them where they are): when they joined.
    /// Refused while they have an open or live match.
    pub async fn queue_join(&self, account: &str, now: i64) -> Result<Waiting, SeatError> {
        let mut tx = self.write().await?;
        // Read with the write: on SQLite (one writer) a match ending meanwhile cannot leave a
        // stale rating queued. On PostgreSQL one that ends between this read and the insert
        // can, which costs a pairing's closeness, never a second seat.
        let rating = rating_on(&mut tx, account).await?;
        // On PostgreSQL each statement sees what committed before it began, so a pairing may
        // commit between any two of them: the seat is read after the queue, and a place that
        // vanished meanwhile (a pairing or a leave) is asked for again.
        for _ in 0..3 {
            // The primary key keeps one place a player, however many requests race.
            sqlx::query(
                "INSERT INTO v2_queue (account_id, rating, joined_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (account_id) DO NOTHING",
            )
            .bind(account)
            .bind(i64::from(rating))
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let waiting = place_in_queue(&mut tx, account).await?;
            let playing = sqlx::query("SELECT match_id FROM active_players WHERE account_id = $1")
                .bind(account)
                .fetch_optional(&mut *tx)
                .await?;
            if playing.is_some() {
                return tx.refuse(SeatError::AlreadyPlaying).await;
            }
            if let Some(waiting) = waiting {
                tx.commit().await?;
                return Ok(waiting);
            }
        }
        tx.refuse(SeatError::Raced).await
    }

    /// Takes the player out of the queue; whether they were in it.
    pub async fn queue_leave(&self, account: &str) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let left = leave_queue(&mut tx, account).await?;
        tx.commit().await?;
        Ok(left)
    }

    /// The player's place in the queue, if they have one.
    pub async fn queued(&self, account: &str) -> Result<Option<Waiting>, sqlx::Error> {
        place_in_queue(&mut *self.pool.acquire().await?, account).await
    }

    /// Everyone waiting with a connection open on some process (someone who closed the app
    /// is not paired: they would lose by abandonment), oldest first.
    pub async fn waiting(&self) -> Result<Vec<Waiting>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT q.account_id, q.rating, q.joined_at FROM v2_queue q \
             WHERE EXISTS (SELECT 1 FROM presence p WHERE p.account_id = q.account_id) \
             ORDER BY q.joined_at, q.account_id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Waiting {
                    account_id: r.try_get("account_id")?,
                    rating: rating_u32(r.try_get("rating")?),
                    joined_at: r.try_get("joined_at")?,
                })
            })
            .collect()
    }

    /// Makes the live match of two waiting players, X the one who waited longer, in one
    /// transaction: both leave the queue, both take their one seat. None (nothing written)
    /// when either has left the queue or has another match meanwhile.
    pub async fn start_rated_match(
        &self,
        x: &Waiting,
        o: &Waiting,
        id: &str,
        position: &str,
        now: i64,
        deadline: i64,
    ) -> Result<Option<MatchRow>, sqlx::Error> {
        let mut tx = self.write().await?;
        for w in [x, o] {
            if !leave_queue(&mut tx, &w.account_id).await? {
                tx.rollback().await?;
                return Ok(None);
            }
        }
        let country = |account: &str| {
            sqlx::query("SELECT country FROM accounts WHERE id = $1").bind(account.to_owned())
        };
        let x_country: String = country(&x.account_id)
            .fetch_one(&mut *tx)
            .await?
            .try_get("country")?;
        let o_country: String = country(&o.account_id)
            .fetch_one(&mut *tx)
            .await?
            .try_get("country")?;
        sqlx::query(
            "INSERT INTO matches (id, scope, level, x_id, o_id, x_country, o_country, state, \
             position, ply, deadline, created_at, started_at, game) \
             VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, 0, $9, $10, $10, $11)",
        )
        .bind(id)
        .bind(Scope::Mundial.as_str())
        .bind(&x.account_id)
        .bind(&o.account_id)
        .bind(&x_country)
        .bind(&o_country)
        .bind(MatchState::Live.as_str())
        .bind(position)
        .bind(deadline)
        .bind(now)
        .bind(MatchGame::V2.as_str())
        .execute(&mut *tx)
        .await?;
        for w in [x, o] {
            match claim_player(&mut tx, &w.account_id, id).await {
                Ok(()) => {}
                Err(SeatError::Db(e)) => return Err(e),
                Err(_) => {
                    // One of them started another match meanwhile: the queue keeps neither
                    // (the other joins again at once, from the app's screen).
                    tx.rollback().await?;
                    let _ = self.queue_leave(&w.account_id).await;
                    return Ok(None);
                }
            }
        }
        let row = match_from_id(&mut tx, id).await?;
        tx.commit().await?;
        Ok(Some(row))
    }

    /// A page of the leaderboard, best first, and the player's own line.
    pub async fn leaderboard(
        &self,
        offset: u32,
        limit: u32,
        me: &str,
    ) -> Result<(Vec<RatingRow>, Option<RatingRow>), sqlx::Error> {
        // Banned players are left out of the list and of everyone's position.
        const COLUMNS: &str = "a.name, r.rating, r.games, r.wins, r.draws, r.losses, \
             (SELECT COUNT(*) FROM v2_ratings b JOIN accounts c ON c.id = b.account_id \
              WHERE b.rating > r.rating AND c.banned_at IS NULL) AS ahead \
             FROM v2_ratings r JOIN accounts a ON a.id = r.account_id AND a.banned_at IS NULL";
        let line = |r: &sqlx::any::AnyRow| -> Result<RatingRow, sqlx::Error> {
            let count = |name: &str| -> Result<u32, sqlx::Error> {
                Ok(rating_u32(r.try_get::<i64, _>(name)?))
            };
            Ok(RatingRow {
                position: u64::try_from(r.try_get::<i64, _>("ahead")?).unwrap_or(0) + 1,
                name: r.try_get("name")?,
                rating: count("rating")?,
                games: count("games")?,
                wins: count("wins")?,
                draws: count("draws")?,
                losses: count("losses")?,
            })
        };
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} ORDER BY r.rating DESC, a.name, r.account_id LIMIT $1 OFFSET $2"
        ))
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        let mine = sqlx::query(&format!("SELECT {COLUMNS} WHERE r.account_id = $1"))
            .bind(me)
            .fetch_optional(&self.pool)
            .await?;
        Ok((
            rows.iter().map(line).collect::<Result<_, _>>()?,
            mine.as_ref().map(line).transpose()?,
        ))
    }
}

/// The player's place in the queue, if they have one.
async fn place_in_queue(
    conn: &mut AnyConnection,
    account: &str,
) -> Result<Option<Waiting>, sqlx::Error> {
    let row = sqlx::query("SELECT rating, joined_at FROM v2_queue WHERE account_id = $1")
        .bind(account)
        .fetch_optional(conn)
        .await?;
    row.map(|r| {
        Ok(Waiting {
            account_id: account.to_owned(),
            rating: rating_u32(r.try_get("rating")?),
            joined_at: r.try_get("joined_at")?,
        })
    })
    .transpose()
}

/// Takes the player out of the queue; whether they were in it.
async fn leave_queue(tx: &mut AnyConnection, account: &str) -> Result<bool, sqlx::Error> {
    let done = sqlx::query("DELETE FROM v2_queue WHERE account_id = $1")
        .bind(account)
        .execute(tx)
        .await?;
    Ok(done.rows_affected() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(name: &str, rating: u32, joined_at: i64) -> Waiting {
        Waiting {
            account_id: name.into(),
            rating,
            joined_at,
        }
    }

    /// Random numbers, the same on every run.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// ON-V01 against a plain oracle: every pair made is accepted by both players, nobody is in
    /// two pairs, and no two players left unpaired would accept each other.
    #[test]
    fn on_v01_pairs_are_accepted_by_both_and_leave_no_acceptable_pair() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        for _ in 0..2_000 {
            let n = (next() % 12) as usize;
            let now = 1_000_000;
            let waiting: Vec<Waiting> = (0..n)
                .map(|i| {
                    w(
                        &format!("p{i}"),
                        (next() % 1_600) as u32,
                        now - (next() % 120_000) as i64,
                    )
                })
                .collect();
            let accepts = |x: &Waiting| accepted_difference((now - x.joined_at) as u64);
            let ok = |a: &Waiting, b: &Waiting| {
                a.rating.abs_diff(b.rating) <= accepts(a).min(accepts(b))
            };
            let made = pairs(&waiting, now);
            let mut used = vec![false; n];
            for &(a, b) in &made {
                assert!(
                    ok(&waiting[a], &waiting[b]),
                    "{:?} {:?}",
                    waiting[a],
                    waiting[b]
                );
                assert!(!used[a] && !used[b], "in two pairs");
                used[a] = true;
                used[b] = true;
            }
            for a in 0..n {
                for b in a + 1..n {
                    assert!(
                        used[a] || used[b] || !ok(&waiting[a], &waiting[b]),
                        "{:?} and {:?} were left waiting",
                        waiting[a],
                        waiting[b]
                    );
                }
            }
        }
    }

    /// The plain pairing: each player in joining order scans everyone left.
    fn pairs_plain(waiting: &[Waiting], now: i64) -> Vec<(usize, usize)> {
        let accepts =
            |w: &Waiting| accepted_difference(u64::try_from(now - w.joined_at).unwrap_or(0));
        let mut order: Vec<usize> = (0..waiting.len()).collect();
        order.sort_by_key(|&i| (waiting[i].joined_at, waiting[i].account_id.clone()));
        let mut taken = vec![false; waiting.len()];
        let mut found = Vec::new();
        for &a in &order {
            if taken[a] {
                continue;
            }
            let best = order
                .iter()
                .copied()
                .filter(|&b| b != a && !taken[b])
                .filter(|&b| {
                    let diff = waiting[a].rating.abs_diff(waiting[b].rating);
                    diff <= accepts(&waiting[a]).min(accepts(&waiting[b]))
                })
                .min_by_key(|&b| {
                    (
                        waiting[a].rating.abs_diff(waiting[b].rating),
                        waiting[b].joined_at,
                    )
                });
            if let Some(b) = best {
                taken[a] = true;
                taken[b] = true;
                found.push((a, b));
            }
        }
        found
    }

    #[test]
    fn on_v01_pairing_matches_the_plain_scan_of_everyone() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        for round in 0..3_000 {
            let n = (next() % 80) as usize;
            let now = 1_000_000;
            // Few distinct ratings and join times in some rounds: ties everywhere.
            let (ratings, joins) = if round % 3 == 0 { (8, 4) } else { (2_400, 200) };
            let waiting: Vec<Waiting> = (0..n)
                .map(|_| {
                    w(
                        &format!("p{}", next() % 1_000),
                        400 + (next() % ratings) as u32 * (2_400 / ratings as u32),
                        now - (next() % joins) as i64 * 1_000,
                    )
                })
                .collect();
            assert_eq!(
                pairs(&waiting, now),
                pairs_plain(&waiting, now),
                "{waiting:?}"
            );
        }
    }

    #[test]
    fn on_v01_the_longest_waiting_takes_the_closest_rating() {
        let now = 100_000;
        let waiting = [w("a", 1000, 0), w("b", 1200, 99_000), w("c", 1040, 99_500)];
        // a has waited 100 s (accepts 1100), c joined just now (accepts 100): a and c.
        assert_eq!(pairs(&waiting, now), [(0, 2)]);
        // Far apart and both new: nobody is paired.
        assert!(pairs(&[w("a", 1000, now), w("b", 1300, now)], now).is_empty());
    }
}
