//! Bans reach the serving processes: an operator bans from the command line (`admin player
//! ban`), which ends the player's sessions in the database; each process then closes the
//! player's connections it holds (so a socket opened before the ban plays no further move)
//! and withdraws their open matches from the lobby.

use std::collections::HashSet;
use std::sync::Arc;

use super::Hub;
use super::bus::{Ended, Event};
use crate::token::now_ms;

/// How far back each look reaches. A ban's time is the command's clock, taken before its
/// transaction waited for its locks, so bans do not arrive in the order of their times: every
/// look takes the whole last minute again. Connections are closed at every look (in memory:
/// one that registered after the first look, its session read before the ban, goes too); the
/// lobby is written once per ban.
const LOOK_BACK_MS: i64 = 60_000;

/// The bans of the last minute this process withdrew from the lobby: (account, ban time).
#[derive(Default)]
pub(super) struct Handled(HashSet<(String, i64)>);

impl Hub {
    /// Acts on the bans of the last minute.
    pub(super) async fn look_for_bans(self: &Arc<Self>) -> Result<(), sqlx::Error> {
        let now = now_ms();
        let banned = self.store.banned_after(now - LOOK_BACK_MS).await?;
        for (account, at) in banned {
            self.committed(vec![Event::SignedOut {
                account: account.clone(),
                sessions: Ended::AllBut(None),
            }])
            .await;
            let first = self
                .bans_handled
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .0
                .insert((account.clone(), at));
            if first {
                for (id, list) in self.store.cancel_open_matches_of(&account, now).await? {
                    self.lobby_closed(&id, &list).await;
                }
            }
        }
        self.bans_handled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .0
            .retain(|(_, at)| *at > now - 2 * LOOK_BACK_MS);
        Ok(())
    }
}
