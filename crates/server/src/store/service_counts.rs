//! The service's sizes the metrics show: live matches, open rooms, push notices waiting. Read
//! from the database, so every process shows the whole service's.

use velha_rules::room::IDLE_CLOSE_MS;

use super::Store;

/// The service's sizes at a moment.
pub struct ServiceCounts {
    /// Matches being played.
    pub live_matches: i64,
    /// Rooms played in within the idle close.
    pub open_rooms: i64,
    /// Push notices waiting to be sent.
    pub push_pending: i64,
}

impl Store {
    /// The service's sizes at `now`.
    pub async fn service_counts(&self, now: i64) -> Result<ServiceCounts, sqlx::Error> {
        let count = |sql: &'static str| sqlx::query_scalar::<_, i64>(sql);
        let since = now - i64::try_from(IDLE_CLOSE_MS).unwrap_or(i64::MAX);
        Ok(ServiceCounts {
            live_matches: count("SELECT COUNT(*) FROM matches WHERE state = 'live'")
                .fetch_one(&self.pool)
                .await?,
            open_rooms: count("SELECT COUNT(*) FROM rooms WHERE last_activity >= $1")
                .bind(since)
                .fetch_one(&self.pool)
                .await?,
            push_pending: count("SELECT COUNT(*) FROM push_pending")
                .fetch_one(&self.pool)
                .await?,
        })
    }
}
