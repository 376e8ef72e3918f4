//! `velha-server admin …`: subscriptions (online.md ON-A03).

use crate::config::SubscriptionAction;
use crate::dates::{end_of_day_ms, last_day};
use crate::store::Store;
use crate::token::now_ms;

/// Carries out a subscription command; the text to print, or why it failed.
pub async fn subscription(store: &Store, action: &SubscriptionAction) -> Result<String, String> {
    let db = |e: sqlx::Error| format!("storage failed: {e}");
    let missing = |name: &str| format!("no player is named {name:?}");
    match action {
        SubscriptionAction::Grant { name, until } => {
            let end = end_of_day_ms(until)?;
            if end <= now_ms() {
                return Err(format!("{until} is already past; give a later date"));
            }
            if !store.set_subscription(name, Some(end)).await.map_err(db)? {
                return Err(missing(name));
            }
            Ok(format!("{name} subscribes through {} (UTC)", last_day(end)))
        }
        SubscriptionAction::Revoke { name } => {
            if !store.set_subscription(name, None).await.map_err(db)? {
                return Err(missing(name));
            }
            Ok(format!("{name} no longer subscribes"))
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
