//! Prepared writes: the writes the server makes most (a move, a room's change), each a few
//! statements spelled once, each returning a row when it did its part (SQLite runs them one
//! after the other without it, and counts the rows each changed). The write is kept only when
//! every statement did; one that breaks a unique constraint declines it (someone else came
//! first).
//!
//! On PostgreSQL the same statements run chained in one `WITH` statement derived from them:
//! one round trip and a transaction of its own, where running them one by one took a round trip
//! each plus BEGIN and COMMIT. The chain also records the change's event (`events.rs`), which
//! is announced once the change is kept (`announcer.rs`), and never one that was declined. On
//! SQLite the committer runs them (`sqlite_writer`).

use std::sync::OnceLock;

use sqlx::{AnyConnection, AnyPool};

use super::events::{self, RECORD_EVENT};

/// One kind of write: its statements and, derived once, PostgreSQL's chained forms.
pub(super) struct PreparedWrite {
    /// In order. The first may be any `INSERT` or `UPDATE`; each later one is an
    /// `INSERT … VALUES (…)`, which the chained form turns into `INSERT … SELECT … FROM` the
    /// step before, so it runs only on the row that step returned. Each ends in `RETURNING`.
    steps: &'static [&'static str],
    /// The highest argument its statements name, read once: every write on PostgreSQL needs it.
    arity: OnceLock<usize>,
    chained: OnceLock<String>,
    chained_telling: OnceLock<String>,
    /// SQLite's statements, without their `RETURNING`: one runs in the committer's transaction,
    /// where how many rows it changed says whether it did its part, and SQLite gathers the rows
    /// a statement returns in a table of their own before it hands the first one over.
    counted: OnceLock<Vec<String>>,
}

/// An argument of a prepared write.
pub(super) enum Value {
    /// Text.
    Text(String),
    /// An integer.
    Int(i64),
    /// Text or NULL.
    MaybeText(Option<String>),
    /// An integer or NULL.
    MaybeInt(Option<i64>),
}

/// A prepared write given its arguments (`$1`… of its statements) and the event to tell.
pub(super) struct BoundWrite {
    write: &'static PreparedWrite,
    args: Vec<Value>,
    /// The change's event (id, payload); PostgreSQL records it with the change.
    told: Option<(String, String)>,
}

impl PreparedWrite {
    /// A write of these statements.
    pub(super) const fn new(steps: &'static [&'static str]) -> PreparedWrite {
        PreparedWrite {
            steps,
            arity: OnceLock::new(),
            chained: OnceLock::new(),
            chained_telling: OnceLock::new(),
            counted: OnceLock::new(),
        }
    }

    /// This write with its arguments and, on PostgreSQL, the event it tells.
    pub(super) fn bind(
        &'static self,
        args: Vec<Value>,
        told: Option<&(String, String)>,
    ) -> BoundWrite {
        BoundWrite {
            write: self,
            args,
            told: told.cloned(),
        }
    }

    /// The arguments its statements name.
    fn arity(&self) -> usize {
        *self.arity.get_or_init(|| {
            self.steps
                .iter()
                .map(|s| highest_argument(s))
                .max()
                .unwrap_or(0)
        })
    }

    /// PostgreSQL's one statement, telling of the change or not; it returns a row when the
    /// write is kept.
    fn chained(&self, telling: bool) -> &str {
        let cell = if telling {
            &self.chained_telling
        } else {
            &self.chained
        };
        cell.get_or_init(|| chain(self.steps, telling.then(|| self.arity())))
    }

    /// SQLite's statements, which change a row each when they do their part.
    fn counted(&self) -> &[String] {
        self.counted
            .get_or_init(|| self.steps.iter().map(|s| unreturning(s)).collect())
    }
}

/// `… RETURNING r` as `…`.
fn unreturning(step: &str) -> String {
    step.rsplit_once(" RETURNING ")
        .unwrap_or_else(|| panic!("a step of a prepared write returns its row: {step}"))
        .0
        .to_owned()
}

/// The statements `steps` as one `WITH` statement; with `event_at`, the event's arguments
/// follow the steps' own from `$event_at + 1`.
fn chain(steps: &[&str], event_at: Option<usize>) -> String {
    let mut sql = String::from("WITH ");
    for (i, step) in steps.iter().enumerate() {
        let step = match i {
            0 => (*step).to_owned(),
            _ => values_from(step, &format!("s{}", i - 1)),
        };
        sql += &format!("s{i} AS ({step}), ");
    }
    let last = format!("s{}", steps.len() - 1);
    match event_at {
        Some(n) => {
            let record = values_from(&renumber(RECORD_EVENT, n), &last);
            sql += &format!("told AS ({record}) SELECT 1 FROM told");
        }
        None => {
            sql.truncate(sql.len() - 2);
            sql += &format!(" SELECT 1 FROM {last}");
        }
    }
    sql
}

/// `INSERT … VALUES (v) RETURNING r` as `INSERT … SELECT v FROM from RETURNING r`.
fn values_from(insert: &str, from: &str) -> String {
    let (head, rest) = insert
        .split_once(" VALUES (")
        .unwrap_or_else(|| panic!("a later step of a prepared write is an INSERT: {insert}"));
    let (values, returning) = rest
        .rsplit_once(") RETURNING ")
        .unwrap_or_else(|| panic!("a step of a prepared write returns its row: {insert}"));
    format!("{head} SELECT {values} FROM {from} RETURNING {returning}")
}

/// `sql` with every argument `$k` named `$k + by`.
fn renumber(sql: &str, by: usize) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out += &rest[..=at];
        rest = &rest[at + 1..];
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        match rest[..digits].parse::<usize>() {
            Ok(k) => out += &(k + by).to_string(),
            Err(_) => out += &rest[..digits],
        }
        rest = &rest[digits..];
    }
    out + rest
}

/// The highest `$N` a statement names.
pub(super) fn highest_argument(sql: &str) -> usize {
    sql.split('$')
        .skip(1)
        .filter_map(|after| {
            let digits = after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len());
            after[..digits].parse().ok()
        })
        .max()
        .unwrap_or(0)
}

pub(super) fn bound<'q>(
    sql: &'q str,
    args: &'q [Value],
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    args.iter().fold(sqlx::query(sql), |q, arg| match arg {
        Value::Text(s) => q.bind(s.as_str()),
        Value::Int(i) => q.bind(*i),
        Value::MaybeText(s) => q.bind(s.as_deref()),
        Value::MaybeInt(i) => q.bind(*i),
    })
}

impl BoundWrite {
    /// Its statements, in order, as SQLite runs them: each did its part when it changed a row.
    pub(super) fn counted_steps(&self) -> &'static [String] {
        self.write.counted()
    }

    /// Its arguments, `$1` first.
    pub(super) fn args(&self) -> &[Value] {
        &self.args
    }

    /// Its event, for announcing once it is kept.
    pub(super) fn told(&self) -> Option<&(String, String)> {
        self.told.as_ref()
    }

    /// Runs it on PostgreSQL as one statement, with its event; whether it was kept.
    pub(super) async fn run_chained(mut self, pool: &AnyPool) -> Result<bool, sqlx::Error> {
        let sql = self.write.chained(self.told.is_some());
        // PostgreSQL keeps each statement prepared with as many arguments as it was first
        // given: every use of this one gives the same number.
        self.args.truncate(self.write.arity());
        if let Some((id, payload)) = &self.told {
            self.args.extend(events::event_args(id, payload));
        }
        match bound(sql, &self.args).fetch_all(pool).await {
            Ok(rows) => Ok(!rows.is_empty()),
            Err(sqlx::Error::Database(d)) if d.is_unique_violation() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Runs its statements one by one in the caller's transaction, without its event (the
    /// caller tells it): whether every one did its part. When not, the caller must undo the
    /// transaction.
    pub(super) async fn run_in(&self, tx: &mut AnyConnection) -> Result<bool, sqlx::Error> {
        for step in self.write.steps {
            let args = &self.args[..highest_argument(step).min(self.args.len())];
            match bound(step, args).fetch_all(&mut *tx).await {
                Ok(rows) if !rows.is_empty() => {}
                Ok(_) => return Ok(false),
                Err(sqlx::Error::Database(d)) if d.is_unique_violation() => return Ok(false),
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::{chain, highest_argument, renumber, unreturning};

    #[test]
    fn the_highest_argument_named_counts_every_digit() {
        let sql = "INSERT INTO s (a, b) VALUES ($5, 'O', $12, $3) RETURNING a";
        assert_eq!(highest_argument(sql), 12);
        assert_eq!(highest_argument("SELECT 1"), 0);
    }

    #[test]
    fn sqlite_counts_what_a_step_changed_instead_of_what_it_returns() {
        assert_eq!(
            unreturning("UPDATE t SET v = 'a RETURNING b' WHERE id = $1 RETURNING id"),
            "UPDATE t SET v = 'a RETURNING b' WHERE id = $1"
        );
    }

    #[test]
    fn renumbering_moves_every_argument_and_nothing_else() {
        assert_eq!(
            renumber("VALUES ($1, '$x', $10) RETURNING $2", 9),
            "VALUES ($10, '$x', $19) RETURNING $11"
        );
    }

    #[test]
    fn a_chain_runs_each_later_step_on_the_row_of_the_one_before_and_tells_after_the_last() {
        let steps = [
            "UPDATE t SET v = $1 WHERE id = $2 RETURNING id",
            "INSERT INTO u (id, v) VALUES ($2, $1) RETURNING id",
        ];
        assert_eq!(
            chain(&steps, None),
            "WITH s0 AS (UPDATE t SET v = $1 WHERE id = $2 RETURNING id), \
             s1 AS (INSERT INTO u (id, v) SELECT $2, $1 FROM s0 RETURNING id) SELECT 1 FROM s1"
        );
        assert_eq!(
            chain(&steps, Some(2)),
            "WITH s0 AS (UPDATE t SET v = $1 WHERE id = $2 RETURNING id), \
             s1 AS (INSERT INTO u (id, v) SELECT $2, $1 FROM s0 RETURNING id), \
             told AS (INSERT INTO events (id, at, payload) SELECT $3, $4, $5 FROM s1 \
             RETURNING id) SELECT 1 FROM told"
        );
    }
}
