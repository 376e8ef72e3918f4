//! Mini-ranking groups (ON-G01 … ON-G09): the limits are constraints of the tables (see
//! `0004_groups.sql`); a join that loses a race for a seat or a place tries again and then
//! finds the group full or the player at their limit.

use sqlx::{AnyConnection, Row};

use super::Store;
use super::matches::{LobbyList, lobby_list};

/// A seat race is lost at most this many times in a row before the answer is "try again".
const SEAT_TRIES: usize = 8;
/// ON-G01.
const SEATS: i64 = 25;
/// ON-G01.
const PLACES: i64 = 2;

/// Why a group change was refused.
#[derive(Debug)]
pub enum GroupError {
    /// The player already created a group.
    AlreadyCreated,
    /// The player already takes part in 2 groups.
    TooMany,
    /// The group has 25 participants.
    Full,
    /// No such invitation for this player.
    NotInvited,
    /// The player is already a participant.
    AlreadyMember,
    /// The player is not a participant.
    NotMember,
    /// A match of the group is live (ON-G09 waits for it).
    MatchLive,
    /// The group was finalized meanwhile.
    Gone,
    /// The database failed (or a race was lost too many times).
    Db(sqlx::Error),
}

impl From<sqlx::Error> for GroupError {
    fn from(e: sqlx::Error) -> Self {
        // Whatever names the group refers to it by a foreign key: a write that raced its
        // finalizing and lost meets that key.
        match e {
            sqlx::Error::Database(d) if d.is_foreign_key_violation() => GroupError::Gone,
            e => GroupError::Db(e),
        }
    }
}

/// A group with its participants, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupRow {
    /// Random id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The creator's account.
    pub creator_id: String,
    /// The creator's name.
    pub creator: String,
    /// Whether the Velha plays in it.
    pub with_velha: bool,
    /// Participants' names, in seat order.
    pub members: Vec<String>,
    /// Invited players' names, oldest first.
    pub invited: Vec<String>,
}

/// An invitation a player holds: (group id, group name, creator name, participants).
pub type InvitationRow = (String, String, String, i64);

fn unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation() || d.is_check_violation())
}

/// The smallest free value 1 … `most` of `column` among the rows of `group_members` where
/// `key` = $1; `None` when all are taken.
async fn free(
    tx: &mut AnyConnection,
    column: &str,
    key: &str,
    value: &str,
    most: i64,
) -> Result<Option<i64>, sqlx::Error> {
    let sql = format!(
        "SELECT MIN(c) AS free FROM (SELECT 1 AS c UNION SELECT {column} + 1 FROM group_members \
         WHERE {key} = $1) AS candidates WHERE c <= $2 AND c NOT IN \
         (SELECT {column} FROM group_members WHERE {key} = $1)"
    );
    let row = sqlx::query(&sql)
        .bind(value)
        .bind(most)
        .fetch_one(&mut *tx)
        .await?;
    row.try_get("free")
}

/// Seats `account` in `group` within the transaction: the smallest free seat and place.
async fn seat(
    tx: &mut AnyConnection,
    group: &str,
    account: &str,
    now: i64,
) -> Result<(), GroupError> {
    let Some(place) = free(tx, "place", "account_id", account, PLACES).await? else {
        return Err(GroupError::TooMany);
    };
    let Some(seat) = free(tx, "seat", "group_id", group, SEATS).await? else {
        return Err(GroupError::Full);
    };
    sqlx::query(
        "INSERT INTO group_members (group_id, account_id, seat, place, joined_at) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(group)
    .bind(account)
    .bind(seat)
    .bind(place)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

impl Store {
    /// Makes a group with its creator as first participant (ON-G01: one per creator, and the
    /// creator's own counts among their 2).
    pub async fn create_group(
        &self,
        id: &str,
        name: &str,
        creator: &str,
        with_velha: bool,
        now: i64,
    ) -> Result<(), GroupError> {
        let mut tx = self.write().await?;
        let made = sqlx::query(
            "INSERT INTO mini_groups (id, name, creator_id, with_velha, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(name)
        .bind(creator)
        .bind(i64::from(with_velha))
        .bind(now)
        .execute(&mut *tx)
        .await;
        match made {
            Err(e) if unique_violation(&e) => return tx.refuse(GroupError::AlreadyCreated).await,
            other => other?,
        };
        match seat(&mut tx, id, creator, now).await {
            Err(GroupError::Db(e)) if unique_violation(&e) => tx.refuse(GroupError::TooMany).await,
            Err(e) => tx.refuse(e).await,
            Ok(()) => Ok(tx.commit().await?),
        }
    }

    /// The group, when `viewer` takes part in it (ON-G08: to anyone else it does not exist).
    pub async fn group_for(&self, id: &str, viewer: &str) -> Result<Option<GroupRow>, sqlx::Error> {
        let row = sqlx::query(
            "SELECT g.id, g.name, g.creator_id, c.name AS creator, g.with_velha \
             FROM mini_groups g JOIN accounts c ON c.id = g.creator_id \
             JOIN group_members m ON m.group_id = g.id AND m.account_id = $2 WHERE g.id = $1",
        )
        .bind(id)
        .bind(viewer)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let names = |sql: &'static str| {
            let pool = self.pool.clone();
            async move {
                let rows = sqlx::query(sql).bind(id).fetch_all(&pool).await?;
                rows.iter()
                    .map(|r| r.try_get::<String, _>("name"))
                    .collect::<Result<Vec<_>, _>>()
            }
        };
        let with_velha: i64 = row.try_get("with_velha")?;
        Ok(Some(GroupRow {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            creator_id: row.try_get("creator_id")?,
            creator: row.try_get("creator")?,
            with_velha: with_velha != 0,
            members: names(
                "SELECT a.name FROM group_members m JOIN accounts a ON a.id = m.account_id \
                 WHERE m.group_id = $1 ORDER BY m.seat",
            )
            .await?,
            invited: names(
                "SELECT a.name FROM group_invitations i JOIN accounts a ON a.id = i.account_id \
                 WHERE i.group_id = $1 ORDER BY i.invited_at, a.name",
            )
            .await?,
        }))
    }

    /// The ids of the groups `account` takes part in.
    pub async fn groups_of(&self, account: &str) -> Result<Vec<String>, sqlx::Error> {
        let rows =
            sqlx::query("SELECT group_id FROM group_members WHERE account_id = $1 ORDER BY place")
                .bind(account)
                .fetch_all(&self.pool)
                .await?;
        rows.iter().map(|r| r.try_get("group_id")).collect()
    }

    /// The invitations `account` holds.
    pub async fn invitations_of(&self, account: &str) -> Result<Vec<InvitationRow>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT g.id, g.name, c.name AS creator, \
             (SELECT COUNT(*) FROM group_members m WHERE m.group_id = g.id) AS members \
             FROM group_invitations i JOIN mini_groups g ON g.id = i.group_id \
             JOIN accounts c ON c.id = g.creator_id WHERE i.account_id = $1 \
             ORDER BY i.invited_at",
        )
        .bind(account)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("id")?,
                    r.try_get("name")?,
                    r.try_get("creator")?,
                    r.try_get("members")?,
                ))
            })
            .collect()
    }

    /// Invites `account` to `group` (again is fine). Refused when they already take part, or
    /// when the group is full or they are in 2 groups now (accepting checks again). Whether the
    /// invitation is new: inviting again changes nothing, and tells nobody.
    pub async fn invite(&self, group: &str, account: &str, now: i64) -> Result<bool, GroupError> {
        let mut tx = self.write().await?;
        let member =
            sqlx::query("SELECT 1 AS x FROM group_members WHERE group_id = $1 AND account_id = $2")
                .bind(group)
                .bind(account)
                .fetch_optional(&mut *tx)
                .await?;
        if member.is_some() {
            return tx.refuse(GroupError::AlreadyMember).await;
        }
        if free(&mut tx, "seat", "group_id", group, SEATS)
            .await?
            .is_none()
        {
            return tx.refuse(GroupError::Full).await;
        }
        if free(&mut tx, "place", "account_id", account, PLACES)
            .await?
            .is_none()
        {
            return tx.refuse(GroupError::TooMany).await;
        }
        let made = sqlx::query(
            "INSERT INTO group_invitations (group_id, account_id, invited_at) \
             VALUES ($1, $2, $3) ON CONFLICT (group_id, account_id) DO NOTHING",
        )
        .bind(group)
        .bind(account)
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(made)
    }

    /// `account` accepts their invitation to `group` and takes a seat (ON-G01, ON-G02). A
    /// refused accept keeps the invitation.
    pub async fn accept(&self, group: &str, account: &str, now: i64) -> Result<(), GroupError> {
        for _ in 0..SEAT_TRIES {
            let mut tx = self.write().await?;
            let taken = sqlx::query(
                "DELETE FROM group_invitations WHERE group_id = $1 AND account_id = $2",
            )
            .bind(group)
            .bind(account)
            .execute(&mut *tx)
            .await?;
            if taken.rows_affected() != 1 {
                return tx.refuse(GroupError::NotInvited).await;
            }
            match seat(&mut tx, group, account, now).await {
                Ok(()) => return Ok(tx.commit().await?),
                // Another accept took that seat or place first: look again.
                Err(GroupError::Db(e)) if unique_violation(&e) => {
                    tx.rollback().await?;
                }
                Err(e) => return tx.refuse(e).await,
            }
        }
        Err(GroupError::Db(sqlx::Error::Protocol(
            "lost the race for a seat too many times".into(),
        )))
    }

    /// `account` declines their invitation to `group`.
    pub async fn decline(&self, group: &str, account: &str) -> Result<(), GroupError> {
        let sql = "DELETE FROM group_invitations WHERE group_id = $1 AND account_id = $2";
        match self.delete_one(sql, group, account).await? {
            true => Ok(()),
            false => Err(GroupError::NotInvited),
        }
    }

    /// `account` leaves `group`.
    pub async fn leave(&self, group: &str, account: &str) -> Result<(), GroupError> {
        let sql = "DELETE FROM group_members WHERE group_id = $1 AND account_id = $2";
        match self.delete_one(sql, group, account).await? {
            true => Ok(()),
            false => Err(GroupError::NotMember),
        }
    }

    /// Runs a delete of one (group, account) row; whether there was one.
    async fn delete_one(&self, sql: &str, group: &str, account: &str) -> Result<bool, sqlx::Error> {
        let mut tx = self.write().await?;
        let gone = sqlx::query(sql)
            .bind(group)
            .bind(account)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(gone.rows_affected() == 1)
    }

    /// The group's table (ON-G07): each participant's points, wins and losses in the group
    /// (ON-G04; against the Velha win 3, loss 0, ON-G05) and their finished matches against
    /// participants and against the Velha, in the rankings' order.
    pub async fn group_table(&self, group: &str) -> Result<Vec<TableLine>, sqlx::Error> {
        // Each finished match gives one line per human player: what it counts for them.
        let rows = sqlx::query(
            "SELECT a.name, \
             CAST(COALESCE(SUM(r.points), 0) AS BIGINT) AS points, CAST(COALESCE(SUM(r.won), 0) AS BIGINT) AS wins, \
             CAST(COALESCE(SUM(r.lost), 0) AS BIGINT) AS losses, CAST(COALESCE(SUM(1 - r.velha), 0) AS BIGINT) AS matches, \
             CAST(COALESCE(SUM(r.velha), 0) AS BIGINT) AS velha_matches \
             FROM group_members gm JOIN accounts a ON a.id = gm.account_id \
             LEFT JOIN ( \
               SELECT x_id AS account_id, against_velha AS velha, \
                 CASE WHEN winner = 'X' THEN 1 ELSE 0 END * scored AS won, \
                 CASE WHEN winner = 'O' THEN 1 ELSE 0 END * scored AS lost, \
                 scored * CASE WHEN winner = 'X' THEN 3 WHEN against_velha = 1 THEN 0 \
                   WHEN ending IN ('time', 'abandonment') THEN 0 ELSE 1 END AS points \
               FROM matches WHERE group_id = $1 AND state = 'over' \
               UNION ALL \
               SELECT o_id, 0, \
                 CASE WHEN winner = 'O' THEN 1 ELSE 0 END * scored, \
                 CASE WHEN winner = 'X' THEN 1 ELSE 0 END * scored, \
                 scored * CASE WHEN winner = 'O' THEN 3 \
                   WHEN ending IN ('time', 'abandonment') THEN 0 ELSE 1 END \
               FROM matches WHERE group_id = $1 AND state = 'over' AND o_id IS NOT NULL \
             ) r ON r.account_id = gm.account_id \
             WHERE gm.group_id = $1 GROUP BY gm.account_id, a.name",
        )
        .bind(group)
        .fetch_all(&self.pool)
        .await?;
        let mut lines = rows
            .iter()
            .map(|r| {
                Ok(TableLine {
                    name: r.try_get("name")?,
                    points: r.try_get("points")?,
                    wins: r.try_get("wins")?,
                    losses: r.try_get("losses")?,
                    matches: r.try_get("matches")?,
                    velha_matches: r.try_get("velha_matches")?,
                })
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()?;
        lines.sort_by(|a, b| {
            (b.points, b.wins, a.losses, &a.name).cmp(&(a.points, a.wins, b.losses, &b.name))
        });
        Ok(lines)
    }

    /// The accounts taking part in a group, and those invited to it.
    pub async fn group_people(
        &self,
        group: &str,
    ) -> Result<(Vec<String>, Vec<String>), sqlx::Error> {
        people(&mut *self.pool.acquire().await?, group).await
    }

    /// Deletes the group and all its history — its matches with their moves included — in
    /// one transaction (ON-G09): refused while one of its matches is live. Answers the open
    /// matches deleted, to take them out of the lobby, and everyone who took part in it or
    /// was invited, to tell them.
    pub async fn finalize_group(&self, group: &str) -> Result<Finalized, GroupError> {
        let mut tx = self.write().await?;
        match finalize_in(&mut tx, self.backend(), group).await {
            Ok(finalized) => {
                tx.commit().await?;
                Ok(finalized)
            }
            Err(e) => tx.refuse(e).await,
        }
    }
}

/// Finalizes `group` inside a transaction the caller commits, or rolls back on an error.
pub(super) async fn finalize_in(
    tx: &mut AnyConnection,
    backend: super::Backend,
    group: &str,
) -> Result<Finalized, GroupError> {
    // On PostgreSQL a match or a member being added holds a share of the group's row until
    // it commits: taking the row first waits for those, whose rows the statements below then
    // see, and makes any that come later find the group gone. (SQLite's writes run one at a
    // time.)
    if backend == super::Backend::Postgres {
        let found = sqlx::query("SELECT id FROM mini_groups WHERE id = $1 FOR UPDATE")
            .bind(group)
            .fetch_optional(&mut *tx)
            .await?;
        if found.is_none() {
            return Err(GroupError::Gone);
        }
    }
    let open = sqlx::query(
        "SELECT id, scope, level, group_id FROM matches WHERE group_id = $1 AND state = 'open'",
    )
    .bind(group)
    .fetch_all(&mut *tx)
    .await?
    .iter()
    .map(|r| Ok((r.try_get("id")?, lobby_list(r)?)))
    .collect::<Result<Vec<_>, sqlx::Error>>()?;
    for sql in [
        "DELETE FROM active_players WHERE match_id IN \
         (SELECT id FROM matches WHERE group_id = $1 AND state = 'open')",
        "DELETE FROM moves WHERE match_id IN \
         (SELECT id FROM matches WHERE group_id = $1 AND state <> 'live')",
        "DELETE FROM matches WHERE group_id = $1 AND state <> 'live'",
    ] {
        sqlx::query(sql).bind(group).execute(&mut *tx).await?;
    }
    // A match that went live meanwhile keeps the group (and its foreign key would refuse).
    let live = sqlx::query("SELECT id FROM matches WHERE group_id = $1")
        .bind(group)
        .fetch_optional(&mut *tx)
        .await?;
    if live.is_some() {
        return Err(GroupError::MatchLive);
    }
    let (members, invited) = people(&mut *tx, group).await?;
    for sql in [
        "DELETE FROM group_invitations WHERE group_id = $1",
        "DELETE FROM group_members WHERE group_id = $1",
        "DELETE FROM mini_groups WHERE id = $1",
    ] {
        sqlx::query(sql).bind(group).execute(&mut *tx).await?;
    }
    Ok(Finalized {
        open,
        people: members.into_iter().chain(invited).collect(),
    })
}

/// What finalizing a group deleted.
pub struct Finalized {
    /// Its open matches, and the lobby list of each.
    pub open: Vec<(String, LobbyList)>,
    /// Who took part in it or was invited.
    pub people: Vec<String>,
}

async fn people(
    conn: &mut AnyConnection,
    group: &str,
) -> Result<(Vec<String>, Vec<String>), sqlx::Error> {
    let mut ids = Vec::new();
    for sql in [
        "SELECT account_id FROM group_members WHERE group_id = $1",
        "SELECT account_id FROM group_invitations WHERE group_id = $1",
    ] {
        let rows = sqlx::query(sql).bind(group).fetch_all(&mut *conn).await?;
        ids.push(
            rows.iter()
                .map(|r| r.try_get("account_id"))
                .collect::<Result<Vec<String>, _>>()?,
        );
    }
    let invited = ids.pop().unwrap_or_default();
    let members = ids.pop().unwrap_or_default();
    Ok((members, invited))
}

/// One participant's numbers in a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableLine {
    /// Their name.
    pub name: String,
    /// Points.
    pub points: i64,
    /// Scored wins.
    pub wins: i64,
    /// Scored losses.
    pub losses: i64,
    /// Finished matches against participants.
    pub matches: i64,
    /// Finished matches against the Velha.
    pub velha_matches: i64,
}
