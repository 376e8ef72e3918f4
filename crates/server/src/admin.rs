//! `velha-server admin …`: subscriptions (online.md ON-A03), the rankings (ON-K01 …
//! ON-K04) and moderation (docs/moderation.md).

use std::fmt::Write;

use crate::config::{PlayerAction, RankingsAction, SubscriptionAction};
use crate::dates::{end_of_day_ms, last_day, moment_of};
use crate::store::{ModerationError, Store};
use crate::token::now_ms;

/// Carries out a subscription command; the text to print, or why it failed.
pub async fn subscription(
    store: &Store,
    action: &SubscriptionAction,
    by: Option<&str>,
) -> Result<String, String> {
    let said = subscription_change(store, action).await?;
    let (account, what) = match action {
        SubscriptionAction::Grant { names, until } => (
            None,
            format!("granted through {until}: {}", names.join(", ")),
        ),
        SubscriptionAction::Revoke { name } => (Some(name.as_str()), "grant revoked".to_owned()),
        SubscriptionAction::Show { .. } => return Ok(said),
    };
    audit_line(store, by, "subscription", account, &what).await?;
    Ok(said)
}

/// Writes an operator's action outside moderation in the audit, under the player's account
/// when it names one.
async fn audit_line(
    store: &Store,
    by: Option<&str>,
    action: &str,
    name: Option<&str>,
    detail: &str,
) -> Result<(), String> {
    let db = |e: sqlx::Error| format!("done, but the audit was not written: {e}");
    let account = match name {
        Some(n) => store.account_by_name(n).await.map_err(db)?,
        None => None,
    };
    store
        .audit_action(
            (now_ms(), &operator(by)),
            action,
            account.as_ref().map(|a| (a.id.as_str(), a.name.as_str())),
            detail,
        )
        .await
        .map_err(db)
}

async fn subscription_change(store: &Store, action: &SubscriptionAction) -> Result<String, String> {
    let db = |e: sqlx::Error| format!("storage failed: {e}");
    let missing = |name: &str| format!("no player is named {name:?}");
    match action {
        SubscriptionAction::Grant { names, until } => {
            let end = end_of_day_ms(until)?;
            if end <= now_ms() {
                return Err(format!("{until} is already past; give a later date"));
            }
            let mut said = String::new();
            let mut unknown = Vec::new();
            for name in names {
                if store.set_grant(name, Some(end)).await.map_err(db)? {
                    let _ = writeln!(
                        said,
                        "{name} is granted a subscription through {} (UTC)",
                        last_day(end)
                    );
                } else {
                    unknown.push(missing(name));
                }
            }
            if unknown.is_empty() {
                Ok(said.trim_end().to_owned())
            } else {
                Err(format!("{said}{}", unknown.join("\n")))
            }
        }
        SubscriptionAction::Revoke { name } => {
            if !store.set_grant(name, None).await.map_err(db)? {
                return Err(missing(name));
            }
            // What the player paid for is the provider's to end (a refund), not this command's.
            let paid = store
                .account_by_name(name)
                .await
                .map_err(db)?
                .and_then(|a| a.subscribed_until)
                .filter(|end| *end > now_ms());
            Ok(match paid {
                Some(end) => format!(
                    "{name}'s grant is revoked; a paid subscription lasts through {} (UTC)",
                    last_day(end)
                ),
                None => format!("{name} no longer subscribes"),
            })
        }
        SubscriptionAction::Show { name } => {
            let account = store
                .account_by_name(name)
                .await
                .map_err(db)?
                .ok_or_else(|| missing(name))?;
            Ok(match account.subscribed_until {
                Some(end) if end > now_ms() => {
                    format!(
                        "{} subscribes through {} (UTC)",
                        account.name,
                        last_day(end)
                    )
                }
                Some(end) => format!("{}'s subscription ended on {}", account.name, last_day(end)),
                None => format!("{} has no subscription", account.name),
            })
        }
    }
}

/// At most this many differences are listed one by one.
const LISTED: usize = 20;

/// Carries out a rankings command; the report, or why it failed (with --check, differences
/// are a failure, so scripts see them in the exit status).
pub async fn rankings(
    store: &Store,
    action: &RankingsAction,
    by: Option<&str>,
) -> Result<String, String> {
    let report = rankings_rebuild(store, action).await?;
    let RankingsAction::Rebuild { check } = action;
    if !check {
        audit_line(store, by, "rankings", None, "rebuilt").await?;
    }
    Ok(report)
}

async fn rankings_rebuild(store: &Store, action: &RankingsAction) -> Result<String, String> {
    let RankingsAction::Rebuild { check } = action;
    let found = store
        .rebuild_rankings(!check)
        .await
        .map_err(|e| format!("storage failed: {e}"))?;
    let mut report = format!(
        "{} finished matches, {} standings recomputed; {} match flags, {} standings and {} \
         counts of players per points differ",
        found.matches,
        found.players,
        found.flags.len(),
        found.standings.len(),
        found.counts.len()
    );
    for (id, stored, recomputed) in found.flags.iter().take(LISTED) {
        let _ = write!(
            report,
            "\nmatch {id}: scored stored {stored:?}, recomputed {recomputed}"
        );
    }
    for (account, level, stored, recomputed) in found.standings.iter().take(LISTED) {
        let _ = write!(
            report,
            "\naccount {account} level {level}: stored {stored:?}, recomputed {recomputed:?}"
        );
    }
    for (level, country, neg_points, stored, counted) in found.counts.iter().take(LISTED) {
        let _ = write!(
            report,
            "\nlevel {level} {country} with {} points: {stored} players counted, {counted} standing",
            -neg_points
        );
    }
    let differs =
        !found.flags.is_empty() || !found.standings.is_empty() || !found.counts.is_empty();
    if *check && differs {
        return Err(report);
    }
    if !check && differs {
        report.push_str("\nthe stored rankings were replaced by the recomputed ones");
    }
    Ok(report)
}

/// The longest reason a ban may give: the player reads it on the sign-in screen.
const MAX_REASON: usize = 300;

/// Who runs the command, for the audit: `--by`, else the login name.
fn operator(by: Option<&str>) -> String {
    by.map(str::to_owned)
        .or_else(|| std::env::var("SUDO_USER").ok())
        .or_else(|| std::env::var("USER").ok())
        .or_else(|| std::env::var("LOGNAME").ok())
        .map(|o| o.trim().to_owned())
        .filter(|o| !o.is_empty())
        .unwrap_or_else(|| "operator".to_owned())
}

/// Carries out a moderation command on a player; what to print, or why it changed nothing.
pub async fn player(
    store: &Store,
    action: &PlayerAction,
    by: Option<&str>,
) -> Result<String, String> {
    let by = operator(by);
    let now = now_ms();
    let failed = |name: &str, e: ModerationError, already: &str| match e {
        ModerationError::NoSuchPlayer => format!("no player is named {name:?}"),
        ModerationError::Already => format!("{name} {already}"),
        ModerationError::NameTaken => "another player has that name".to_owned(),
        ModerationError::Db(e) => format!("storage failed: {e}"),
    };
    match action {
        PlayerAction::Ban { name, reason } => {
            let reason = reason.trim();
            if reason.is_empty() || reason.chars().any(char::is_control) {
                return Err("give the reason, in words the player can read".into());
            }
            if reason.chars().count() > MAX_REASON {
                return Err(format!("a reason has at most {MAX_REASON} characters"));
            }
            store
                .ban(name, reason, (now, &by))
                .await
                .map_err(|e| failed(name, e, "is banned already"))?;
            Ok(format!(
                "{name} is banned ({reason}): their sessions are ended, and every server closes \
                 their connections within a second"
            ))
        }
        PlayerAction::Unban { name } => {
            store
                .unban(name, (now, &by))
                .await
                .map_err(|e| failed(name, e, "is not banned"))?;
            let rebuilt = store.rebuild_rankings(true).await.map_err(|e| {
                format!("{name} is unbanned, but the rankings were not rebuilt: {e}")
            })?;
            Ok(format!(
                "{name} is unbanned; the rankings were rebuilt from {} matches",
                rebuilt.matches
            ))
        }
        PlayerAction::Rename { name, new } => {
            let new = crate::auth::check_name(new).map_err(|e| e.0.message)?;
            store
                .moderation_rename(name, &new, (now, &by))
                .await
                .map_err(|e| failed(name, e, "already has that name"))?;
            Ok(format!(
                "{name} is now {new}; they are told when they next open the app"
            ))
        }
    }
}

/// The audit: every moderation action, newest first.
pub async fn audit(store: &Store, limit: u32) -> Result<String, String> {
    let rows = store
        .audit(i64::from(limit))
        .await
        .map_err(|e| format!("storage failed: {e}"))?;
    if rows.is_empty() {
        return Ok("no moderation action yet".into());
    }
    let mut said = String::new();
    for r in rows {
        let _ = writeln!(
            said,
            "{} UTC  {}  {} {}  {}",
            moment_of(r.at),
            r.operator,
            r.action,
            r.account_name.as_deref().unwrap_or("-"),
            r.detail
        );
    }
    Ok(said.trim_end().to_owned())
}

/// The players' reports, newest first.
pub async fn reports(store: &Store, limit: u32) -> Result<String, String> {
    let rows = store
        .reports(i64::from(limit))
        .await
        .map_err(|e| format!("storage failed: {e}"))?;
    if rows.is_empty() {
        return Ok("no report yet".into());
    }
    let mut said = String::new();
    for r in rows {
        let _ = writeln!(
            said,
            "{} UTC  {} reported {}{} for {} ({}){}",
            moment_of(r.at),
            r.reporter,
            r.reported,
            if r.reported_banned { " [banned]" } else { "" },
            r.reason,
            r.context,
            r.note.map(|n| format!(": {n:?}")).unwrap_or_default()
        );
    }
    Ok(said.trim_end().to_owned())
}
