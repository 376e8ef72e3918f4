//! Bans reach the serving processes: an operator bans from the command line (`admin player
//! ban`), which ends the player's sessions in the database; each process then closes the
//! player's connections it holds (so a socket opened before the ban plays no further move)
//! and withdraws their open matches from the lobby.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::Hub;
use super::bus::{Ended, Event};
use crate::token::now_ms;

impl Hub {
    /// Acts on the bans made since the last look (those of its last millisecond again: a ban
    /// made in the same millisecond as the last one seen is not missed, and acting twice
    /// changes nothing).
    pub(super) async fn look_for_bans(self: &Arc<Self>) -> Result<(), sqlx::Error> {
        let after = self.bans_seen.load(Ordering::Relaxed);
        let banned = self.store.banned_after(after - 1).await?;
        for (account, at) in banned {
            self.bans_seen.fetch_max(at, Ordering::Relaxed);
            self.committed(vec![Event::SignedOut {
                account: account.clone(),
                sessions: Ended::AllBut(None),
            }])
            .await;
            for (id, list) in self
                .store
                .cancel_open_matches_of(&account, now_ms())
                .await?
            {
                self.lobby_closed(&id, &list).await;
            }
        }
        Ok(())
    }
}
