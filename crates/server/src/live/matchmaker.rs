//! Pairs Jogo da Velha 2.0's waiting players (ON-V01): every round, the players in the queue
//! who are connected are paired by rating ([`crate::store::pairs`]), each pair's live match is
//! made in one transaction and started; both players hear `started`.

use std::sync::Arc;
use std::time::Duration;

use velha_rules::{Player, Ultimate, Variant};

use super::Hub;
use crate::store::pairs;
use crate::token::{new_id, now_ms};

/// One round of pairing at `now`: the matches started.
pub async fn pair_waiting(hub: &Arc<Hub>, now: i64) -> Result<usize, sqlx::Error> {
    let waiting = hub.store.waiting().await?;
    let start = Ultimate::new(Variant::V2, Player::X).state_line_with_counts();
    let mut started = 0;
    // The one who waited longer is X and moves first (V2-R05's clock starts now).
    for (older, newer) in pairs(&waiting, now) {
        let (x, o) = (&waiting[older], &waiting[newer]);
        let deadline = now + hub.clocks.move_ms;
        let made = hub
            .store
            .start_rated_match(x, o, &new_id(), &start, now, deadline)
            .await?;
        if let Some(row) = made {
            tracing::info!(match_id = %row.id, x = x.rating, o = o.rating, "2.0 players paired");
            match hub.start(&row, &row.x_id).await {
                Ok(_) => started += 1,
                Err(e) => tracing::error!(error = %e, "a paired match could not start"),
            }
        }
    }
    Ok(started)
}

/// Pairs every `every` for as long as the server runs.
pub async fn run(hub: Arc<Hub>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        if let Err(e) = pair_waiting(&hub, now_ms()).await {
            tracing::error!(error = %e, "pairing 2.0 players failed; trying again");
        }
    }
}
