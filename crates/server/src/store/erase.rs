//! Deleting an account (docs/accounts.md, LGPD art. 18): one transaction ends what the player
//! is in the middle of, leaves what they belong to and strips the account of what identified
//! them, keeping the row so that every game they played keeps both its players.

use sqlx::{AnyConnection, Row};
use velha_api::{EndHow, REMOVED_PLAYER, Seat};
use velha_rules::Player;

use super::groups::{GroupError, finalize_in};
use super::matches::{LobbyList, end_live, release_players, withdraw_open_matches};
use super::{Backend, Store, seat_from};

/// A live match the deletion ended as the player's abandonment.
#[derive(Debug)]
pub struct Abandoned {
    /// The match.
    pub match_id: String,
    /// Its players, X and O (the Velha's seat is empty).
    pub players: [String; 2],
    /// Who won: the other seat.
    pub winner: Seat,
    /// The position it ended on.
    pub position: String,
    /// Its group, if any.
    pub group: Option<String>,
    /// Whether finalizing the player's group deleted the match with the rest of the group:
    /// there is then no row to read its end from, and its players are told it as it was.
    pub gone: bool,
}

/// What deleting an account changed that other players are told of.
#[derive(Debug, Default)]
pub struct Erased {
    /// Live matches ended as the player's abandonment.
    pub ended: Vec<Abandoned>,
    /// Open matches withdrawn, and the lobby list of each.
    pub withdrawn: Vec<(String, LobbyList)>,
    /// The group the player created, finalized, and everyone who was in it or invited.
    pub finalized: Option<(String, Vec<String>)>,
    /// The other groups the player left.
    pub left: Vec<String>,
    /// The rooms whose seat now shows [`REMOVED_PLAYER`].
    pub rooms: Vec<String>,
}

/// Why an account was not deleted.
#[derive(Debug)]
pub enum EraseError {
    /// It was deleted already (another request won).
    Gone,
    /// A match of the group the player created is being played by two others (ON-G09 waits
    /// for it).
    GroupMatchLive,
    /// A subscription the provider was not asked to end started meanwhile (a checkout paid
    /// a moment before): it is to be ended first.
    NewSubscription,
    /// The database failed.
    Db(sqlx::Error),
}

impl From<sqlx::Error> for EraseError {
    fn from(e: sqlx::Error) -> Self {
        EraseError::Db(e)
    }
}

/// What is deleted outright: rows that only served the player while they had an account.
const FORGOTTEN: &[&str] = &[
    "DELETE FROM sessions WHERE account_id = $1",
    "DELETE FROM email_tokens WHERE account_id = $1",
    // A device subscribed for the player's room seats, signed in or not, is told of them no
    // more (`forget_seat_pushes` then drops those left with nothing to tell).
    "DELETE FROM push_seats WHERE subscription_id IN \
     (SELECT id FROM push_subscriptions WHERE account_id = $1) \
     OR credential_hash IN (SELECT credential_hash FROM room_seats WHERE account_id = $1)",
    "DELETE FROM push_subscriptions WHERE account_id = $1",
    "DELETE FROM checkouts WHERE account_id = $1",
    "DELETE FROM subscription_grants WHERE account_id = $1",
    "DELETE FROM payment_customers WHERE account_id = $1",
    "DELETE FROM v2_queue WHERE account_id = $1",
    "DELETE FROM group_invitations WHERE account_id = $1",
    "DELETE FROM presence WHERE account_id = $1",
];

impl Store {
    /// Deletes `account` at `now`: its live matches end as its abandonment (told through
    /// `tell`, which encodes each end for the other processes), its open matches are
    /// withdrawn, the group it created is finalized and the others left, its rooms' seats
    /// show [`REMOVED_PLAYER`], and the account keeps only its id, country and deletion time
    /// (and its name's key through the quarantine). `ended_at_provider`: the subscriptions
    /// the provider was asked to end; another one still running refuses the deletion.
    pub async fn erase_account(
        &self,
        account: &str,
        now: i64,
        ended_at_provider: &[(String, String)],
        tell: impl Fn(&[Abandoned]) -> Vec<(String, String)>,
    ) -> Result<Erased, EraseError> {
        let mut tx = self.write().await?;
        // Taking the row first makes a second deletion wait for this one and then find it
        // done, and a payment notice for the player wait until it is (its own lock is the
        // same row). Not a key lock: a match ending meanwhile may still add the player's
        // first standing, which refers to the row.
        let lock = match self.backend() {
            Backend::Postgres => " FOR NO KEY UPDATE",
            Backend::Sqlite => "",
        };
        let found = sqlx::query(&format!(
            "SELECT id FROM accounts WHERE id = $1 AND deleted_at IS NULL{lock}"
        ))
        .bind(account)
        .fetch_optional(&mut *tx)
        .await?;
        if found.is_none() {
            return tx.refuse(EraseError::Gone).await;
        }
        let running: Vec<(String, String)> = sqlx::query_as(super::payments::RUNNING_SUBSCRIPTIONS)
            .bind(account)
            .fetch_all(&mut *tx)
            .await?;
        if running.iter().any(|s| !ended_at_provider.contains(s)) {
            return tx.refuse(EraseError::NewSubscription).await;
        }
        match erase_in(&mut tx, self.backend(), account, now).await {
            Ok(erased) => {
                self.tell(&mut tx, &tell(&erased.ended)).await?;
                tx.commit().await?;
                for room in &erased.rooms {
                    self.forget_room(room);
                }
                Ok(erased)
            }
            Err(e) => tx.refuse(e).await,
        }
    }

    /// Whether two others are playing a match of the group `account` created, which refuses
    /// deleting the account: asked before the provider is, so that a refusal changes nothing.
    pub async fn own_group_busy(&self, account: &str) -> Result<bool, sqlx::Error> {
        let busy = sqlx::query(
            "SELECT m.id FROM matches m JOIN mini_groups g ON g.id = m.group_id \
             WHERE g.creator_id = $1 AND m.state = 'live' AND m.x_id <> $1 \
             AND (m.o_id IS NULL OR m.o_id <> $1)",
        )
        .bind(account)
        .fetch_optional(&self.pool)
        .await?;
        Ok(busy.is_some())
    }
}

async fn erase_in(
    tx: &mut AnyConnection,
    backend: Backend,
    account: &str,
    now: i64,
) -> Result<Erased, EraseError> {
    let mut erased = Erased {
        ended: abandon_live(tx, backend, account, now).await?,
        ..Erased::default()
    };
    erased.withdrawn = withdraw_open_matches(tx, account, now).await?;
    let created: Option<String> =
        sqlx::query_scalar("SELECT id FROM mini_groups WHERE creator_id = $1")
            .bind(account)
            .fetch_optional(&mut *tx)
            .await?;
    if let Some(group) = created {
        match finalize_in(tx, backend, &group).await {
            Ok(finalized) => {
                for ended in &mut erased.ended {
                    ended.gone = ended.group.as_ref() == Some(&group);
                }
                erased.withdrawn.extend(finalized.open);
                erased.finalized = Some((group, finalized.people));
            }
            // Finalized by another request meanwhile.
            Err(GroupError::Gone) => {}
            Err(GroupError::MatchLive) => return Err(EraseError::GroupMatchLive),
            Err(GroupError::Db(e)) => return Err(EraseError::Db(e)),
            Err(other) => {
                return Err(EraseError::Db(sqlx::Error::Protocol(format!(
                    "finalizing the group failed: {other:?}"
                ))));
            }
        }
    }
    erased.left =
        sqlx::query_scalar("DELETE FROM group_members WHERE account_id = $1 RETURNING group_id")
            .bind(account)
            .fetch_all(&mut *tx)
            .await?;
    let seat_pushes: Vec<String> = sqlx::query_scalar(
        "SELECT DISTINCT p.subscription_id FROM push_seats p JOIN room_seats s \
         ON s.credential_hash = p.credential_hash WHERE s.account_id = $1",
    )
    .bind(account)
    .fetch_all(&mut *tx)
    .await?;
    for sql in FORGOTTEN {
        sqlx::query(sql).bind(account).execute(&mut *tx).await?;
    }
    // A signed-out device subscribed for the player's seats alone is the player's device.
    for id in &seat_pushes {
        sqlx::query(
            "DELETE FROM push_subscriptions WHERE id = $1 AND account_id IS NULL \
             AND NOT EXISTS (SELECT 1 FROM push_seats WHERE subscription_id = $1)",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
    }
    erased.rooms = rename_room_seats(tx, backend, account).await?;
    // What the moderation kept of the player goes too: the name a rename replaced, the ban's
    // words (a ban stays a ban, so a deleted player stays out of the rankings), and their names
    // in the reports and the audit. The reports they filed were theirs to write.
    sqlx::query("DELETE FROM reports WHERE reporter_id = $1")
        .bind(account)
        .execute(&mut *tx)
        .await?;
    sqlx::query("UPDATE reports SET reported_name = $1 WHERE reported_id = $2")
        .bind(REMOVED_PLAYER)
        .bind(account)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE admin_actions SET account_name = $1, \
         detail = CASE WHEN action = 'rename' THEN '' ELSE detail END WHERE account_id = $2",
    )
    .bind(REMOVED_PLAYER)
    .bind(account)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE accounts SET name = $1, email = NULL, password_hash = NULL, google_sub = NULL, \
         email_verified_at = NULL, subscribed_until = NULL, ban_reason = NULL, \
         renamed_from = NULL, deleted_at = $2 WHERE id = $3",
    )
    .bind(REMOVED_PLAYER)
    .bind(now)
    .bind(account)
    .execute(&mut *tx)
    .await?;
    Ok(erased)
}

/// Ends every live match of `account` as its abandonment, scored as any other: the other
/// player (or the Velha) wins. The player's open and live matches are locked first, so a join
/// or a last move racing the deletion either finishes before it or finds the match over.
async fn abandon_live(
    tx: &mut AnyConnection,
    backend: Backend,
    account: &str,
    now: i64,
) -> Result<Vec<Abandoned>, sqlx::Error> {
    let lock = match backend {
        Backend::Postgres => " FOR UPDATE",
        Backend::Sqlite => "",
    };
    let rows = sqlx::query(&format!(
        "SELECT id, x_id, o_id, state, position, group_id FROM matches \
         WHERE (x_id = $1 OR o_id = $1) \
         AND state IN ('open', 'live'){lock}"
    ))
    .bind(account)
    .fetch_all(&mut *tx)
    .await?;
    let mut ended = Vec::new();
    for row in &rows {
        if row.try_get::<String, _>("state")? != "live" {
            continue;
        }
        let id: String = row.try_get("id")?;
        let x: String = row.try_get("x_id")?;
        let o: Option<String> = row.try_get("o_id")?;
        let winner = if x == account { Seat::O } else { Seat::X };
        if !end_live(tx, &id, Some(winner), EndHow::Abandonment, now).await? {
            continue;
        }
        super::scoring::score_match(tx, &id).await?;
        release_players(tx, &id).await?;
        ended.push(Abandoned {
            match_id: id,
            players: [x, o.unwrap_or_default()],
            winner,
            position: row.try_get("position")?,
            group: row.try_get("group_id")?,
            gone: false,
        });
    }
    Ok(ended)
}

/// Replaces the name the player wrote in each room they sat in, and unties the seat from the
/// account: the seat's credential still lets the device that holds it in. Each room is
/// rewritten by compare-and-set on its version, as every save is (on PostgreSQL after taking
/// its row, so a move saved meanwhile is waited for and then kept).
async fn rename_room_seats(
    tx: &mut AnyConnection,
    backend: Backend,
    account: &str,
) -> Result<Vec<String>, sqlx::Error> {
    let lock = match backend {
        Backend::Postgres => " FOR UPDATE OF r",
        Backend::Sqlite => "",
    };
    let seats = sqlx::query(&format!(
        "SELECT r.id, r.state, r.version, s.seat FROM room_seats s \
         JOIN rooms r ON r.id = s.room_id WHERE s.account_id = $1 ORDER BY r.id{lock}"
    ))
    .bind(account)
    .fetch_all(&mut *tx)
    .await?;
    // Both seats of a room may be the player's: each room is written once.
    let mut rooms: std::collections::BTreeMap<String, (velha_rules::room::Room, i64)> =
        std::collections::BTreeMap::new();
    for row in &seats {
        let id: String = row.try_get("id")?;
        let player = match seat_from(&row.try_get::<String, _>("seat")?) {
            Some(seat) => Player::from(seat),
            None => return Err(super::corrupt("room seat", &id)),
        };
        if !rooms.contains_key(&id) {
            let state: String = row.try_get("state")?;
            let room = serde_json::from_str(&state).map_err(|_| super::corrupt("room", &id))?;
            rooms.insert(id.clone(), (room, row.try_get("version")?));
        }
        if let Some((room, _)) = rooms.get_mut(&id) {
            room.rename_seat(player, REMOVED_PLAYER);
        }
    }
    for (id, (room, version)) in &rooms {
        let saved = sqlx::query(
            "UPDATE rooms SET state = $1, version = version + 1 WHERE id = $2 AND version = $3",
        )
        .bind(super::rooms::json(room))
        .bind(id)
        .bind(version)
        .execute(&mut *tx)
        .await?;
        if saved.rows_affected() != 1 {
            return Err(sqlx::Error::Protocol(format!(
                "room {id} changed while its seat was renamed; nothing was deleted"
            )));
        }
    }
    sqlx::query("UPDATE room_seats SET account_id = NULL WHERE account_id = $1")
        .bind(account)
        .execute(&mut *tx)
        .await?;
    Ok(rooms.into_keys().collect())
}
