//! Everything the server holds about a player, for them to download (LGPD art. 18, V): one
//! section per kind of thing, each a query of the rows that are theirs. Every table of the
//! schema is either read by a section or named in [`NOBODYS`] with the reason it holds
//! nothing of a person; a test fails on a table that is neither, so a new table cannot be
//! forgotten.

use serde_json::{Map, Value};
use sqlx::any::AnyRow;
use sqlx::{Column, Row};

use super::Store;

/// A section of the export: its name, the query of the player's rows (`$1` is the account's
/// id) and the tables it reads.
pub struct Section {
    /// Its key in the export.
    pub name: &'static str,
    /// The rows; a column whose name ends in `_json` holds JSON and is given as such.
    pub sql: &'static str,
    /// The tables whose rows of the player it gives.
    pub tables: &'static [&'static str],
}

/// The sections, in the order the export lists them. Other players appear only by the name
/// they played under; secrets (password and token hashes, push keys) never.
pub const SECTIONS: &[Section] = &[
    Section {
        name: "account",
        sql: "SELECT id, name, email, country, country_chosen, created_at, email_verified_at, \
              subscribed_until, google_sub, banned_at, ban_reason, renamed_from, \
              CASE WHEN password_hash IS NULL THEN 0 ELSE 1 END AS has_password \
              FROM accounts WHERE id = $1",
        tables: &["accounts"],
    },
    Section {
        name: "sessions",
        sql: "SELECT created_at, expires_at, seen_at, device, country FROM sessions \
              WHERE account_id = $1 ORDER BY created_at",
        tables: &["sessions"],
    },
    Section {
        name: "email_links",
        sql: "SELECT purpose, email, created_at, expires_at, used_at FROM email_tokens \
              WHERE account_id = $1 ORDER BY created_at",
        tables: &["email_tokens"],
    },
    Section {
        name: "matches",
        sql: "SELECT m.id, m.game, m.scope, m.level, m.group_id, m.against_velha, \
              CASE WHEN m.x_id = $1 THEN 'X' ELSE 'O' END AS seat, \
              CASE WHEN m.x_id = $1 THEN ao.name ELSE ax.name END AS opponent, \
              m.state, m.winner, m.ending, m.scored, m.position, m.ply, \
              m.created_at, m.started_at, m.ended_at, \
              m.x_rating_before, m.x_rating_after, m.o_rating_before, m.o_rating_after \
              FROM matches m JOIN accounts ax ON ax.id = m.x_id \
              LEFT JOIN accounts ao ON ao.id = m.o_id \
              WHERE m.x_id = $1 OR m.o_id = $1 ORDER BY m.created_at, m.id",
        tables: &["matches"],
    },
    Section {
        name: "moves",
        sql: "SELECT v.match_id, v.ply, v.seat, v.actions, v.played_at FROM moves v \
              JOIN matches m ON m.id = v.match_id WHERE m.x_id = $1 OR m.o_id = $1 \
              ORDER BY v.match_id, v.ply",
        tables: &["moves"],
    },
    Section {
        name: "playing_now",
        sql: "SELECT match_id FROM active_players WHERE account_id = $1",
        tables: &["active_players"],
    },
    Section {
        name: "standings",
        sql: "SELECT level, country, -neg_points AS points, -neg_wins AS wins, losses, \
              reached_at FROM standings WHERE account_id = $1 ORDER BY level",
        tables: &["standings"],
    },
    Section {
        name: "rating_2_0",
        sql: "SELECT rating, games, wins, draws, losses, updated_at FROM v2_ratings \
              WHERE account_id = $1",
        tables: &["v2_ratings"],
    },
    Section {
        name: "queue_2_0",
        sql: "SELECT rating, joined_at FROM v2_queue WHERE account_id = $1",
        tables: &["v2_queue"],
    },
    Section {
        name: "group_created",
        sql: "SELECT id, name, with_velha, created_at FROM mini_groups WHERE creator_id = $1",
        tables: &["mini_groups"],
    },
    Section {
        name: "groups",
        sql: "SELECT g.id, g.name, m.seat, m.place, m.joined_at FROM group_members m \
              JOIN mini_groups g ON g.id = m.group_id WHERE m.account_id = $1 \
              ORDER BY m.place",
        tables: &["group_members"],
    },
    Section {
        name: "group_invitations",
        sql: "SELECT g.id, g.name, i.invited_at FROM group_invitations i \
              JOIN mini_groups g ON g.id = i.group_id WHERE i.account_id = $1 \
              ORDER BY i.invited_at",
        tables: &["group_invitations"],
    },
    Section {
        name: "rooms",
        sql: "SELECT r.id, s.seat, r.created_at, r.last_activity, r.state AS room_json \
              FROM room_seats s JOIN rooms r ON r.id = s.room_id WHERE s.account_id = $1 \
              ORDER BY r.created_at, r.id",
        tables: &["room_seats", "rooms"],
    },
    Section {
        name: "room_moves",
        sql: "SELECT v.room_id, v.game, v.ply, v.seat, v.action, v.played_at FROM room_moves v \
              JOIN room_seats s ON s.room_id = v.room_id WHERE s.account_id = $1 \
              ORDER BY v.room_id, v.game, v.ply",
        tables: &["room_moves"],
    },
    Section {
        name: "subscription_grant",
        sql: "SELECT until FROM subscription_grants WHERE account_id = $1",
        tables: &["subscription_grants"],
    },
    Section {
        name: "payment_customers",
        sql: "SELECT provider, customer_id FROM payment_customers WHERE account_id = $1",
        tables: &["payment_customers"],
    },
    Section {
        name: "paid_subscriptions",
        sql: "SELECT provider, subscription_id, status, cancel_at_period_end, ended_at, \
              access_until, state_at FROM paid_subscriptions WHERE account_id = $1 \
              ORDER BY state_at",
        tables: &["paid_subscriptions"],
    },
    Section {
        name: "invoices",
        sql: "SELECT i.provider, i.invoice_id, i.subscription_id, i.payment_id, i.period_end, \
              i.paid FROM invoices i JOIN paid_subscriptions s ON s.provider = i.provider \
              AND s.subscription_id = i.subscription_id WHERE s.account_id = $1 \
              ORDER BY i.period_end",
        tables: &["invoices"],
    },
    Section {
        name: "payments_taken_back",
        sql: "SELECT w.provider, w.payment_id, w.reason, w.withdrawn, w.state_at \
              FROM withdrawn_payments w WHERE EXISTS (SELECT 1 FROM invoices i \
              JOIN paid_subscriptions s ON s.provider = i.provider \
              AND s.subscription_id = i.subscription_id \
              WHERE i.provider = w.provider AND i.payment_id = w.payment_id \
              AND s.account_id = $1) ORDER BY w.state_at",
        tables: &["withdrawn_payments"],
    },
    Section {
        name: "checkout",
        sql: "SELECT session_id, url, expires_at, created_at FROM checkouts WHERE account_id = $1",
        tables: &["checkouts"],
    },
    Section {
        name: "push_subscriptions",
        // A device signed in as someone else later is theirs, whatever seats of this
        // player's it still holds.
        sql: "SELECT id, kind, endpoint, language, created_at, failures FROM push_subscriptions \
              WHERE account_id = $1 OR (account_id IS NULL AND id IN (SELECT p.subscription_id \
              FROM push_seats p JOIN room_seats s ON s.credential_hash = p.credential_hash \
              WHERE s.account_id = $1)) ORDER BY created_at, id",
        tables: &["push_subscriptions"],
    },
    Section {
        name: "push_seats",
        sql: "SELECT p.subscription_id, s.room_id, s.seat FROM push_seats p \
              JOIN room_seats s ON s.credential_hash = p.credential_hash \
              WHERE s.account_id = $1 ORDER BY p.subscription_id, s.room_id",
        tables: &["push_seats"],
    },
    Section {
        name: "reports_made",
        sql: "SELECT at, reported_name, context, reason, note FROM reports \
              WHERE reporter_id = $1 ORDER BY at, id",
        tables: &["reports"],
    },
    Section {
        // Who reported the player is theirs to keep: only when, where and why.
        name: "reports_about_you",
        sql: "SELECT at, context, reason FROM reports WHERE reported_id = $1 ORDER BY at, id",
        tables: &["reports"],
    },
    Section {
        name: "moderation",
        sql: "SELECT at, action, account_name, detail FROM admin_actions \
              WHERE account_id = $1 ORDER BY at, id",
        tables: &["admin_actions"],
    },
    Section {
        name: "connected_through",
        sql: "SELECT process FROM presence WHERE account_id = $1",
        tables: &["presence"],
    },
];

/// The tables that hold nothing of any person, and why.
pub const NOBODYS: &[(&str, &str)] = &[
    ("_sqlx_migrations", "the schema's history"),
    (
        "schema_floor",
        "the oldest version that may serve on the schema",
    ),
    ("processes", "the server's processes"),
    ("events", "messages between processes, kept minutes"),
    ("secrets", "the server's own keys"),
    (
        "standing_counts",
        "how many players have each number of points",
    ),
    (
        "standing_count_changes",
        "changes to those counts, added to them within a second or two",
    ),
    (
        "room_spectators",
        "how many anonymous spectators each process has in a room",
    ),
    (
        "room_seat_presence",
        "how many connections each process has to a room's seat",
    ),
    (
        "payment_events",
        "which provider notices were received: ids, kinds and times",
    ),
    ("push_sweeps", "which quiet rooms the push sender looked at"),
    (
        "push_pending",
        "notices a stopping process leaves for seconds to another",
    ),
];

impl Store {
    /// Every section's rows of `account`, as a JSON object by section name.
    pub async fn export(&self, account: &str) -> Result<Map<String, Value>, sqlx::Error> {
        // One snapshot, so that the file never holds a match without its moves: SQLite's
        // reading transaction is one; PostgreSQL's is asked for.
        let mut tx = self.pool.begin().await?;
        if self.backend() == super::Backend::Postgres {
            sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(&mut *tx)
                .await?;
        }
        let mut sections = Map::new();
        for section in SECTIONS {
            let rows = sqlx::query(section.sql)
                .bind(account)
                .fetch_all(&mut *tx)
                .await?;
            let rows = rows.iter().map(row_json).collect::<Vec<_>>();
            sections.insert(section.name.to_owned(), Value::Array(rows));
        }
        tx.rollback().await?;
        Ok(sections)
    }

    /// The names of the schema's tables.
    pub async fn table_names(&self) -> Result<Vec<String>, sqlx::Error> {
        let sql = match self.backend() {
            super::Backend::Sqlite => {
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite_%' ORDER BY name"
            }
            super::Backend::Postgres => {
                "SELECT CAST(table_name AS TEXT) AS name FROM information_schema.tables \
                 WHERE table_schema = current_schema() ORDER BY table_name"
            }
        };
        sqlx::query_scalar(sql).fetch_all(&self.pool).await
    }
}

/// A row as a JSON object: integers as numbers, texts as strings (parsed for `_json`
/// columns), NULL as null.
fn row_json(row: &AnyRow) -> Value {
    let mut object = Map::new();
    for (i, column) in row.columns().iter().enumerate() {
        let name = column.name();
        let value = if let Ok(n) = row.try_get::<Option<i64>, _>(i) {
            n.map_or(Value::Null, Value::from)
        } else if let Ok(text) = row.try_get::<Option<String>, _>(i) {
            match (text, name.strip_suffix("_json")) {
                (Some(text), Some(_)) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
                (text, _) => text.map_or(Value::Null, Value::String),
            }
        } else {
            Value::Null
        };
        let key = name.strip_suffix("_json").unwrap_or(name);
        object.insert(key.to_owned(), value);
    }
    Value::Object(object)
}
