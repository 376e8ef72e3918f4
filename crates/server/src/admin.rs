//! `velha-server admin …`: subscriptions (online.md ON-A03) and the rankings (ON-K01 …
//! ON-K04).

use std::fmt::Write;

use crate::config::{RankingsAction, SubscriptionAction};
use crate::dates::{end_of_day_ms, last_day};
use crate::store::Store;
use crate::token::now_ms;

/// Carries out a subscription command; the text to print, or why it failed.
pub async fn subscription(store: &Store, action: &SubscriptionAction) -> Result<String, String> {
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
pub async fn rankings(store: &Store, action: &RankingsAction) -> Result<String, String> {
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
