//! The world and national rankings per level (online.md ON-K01 … ON-K04).

use serde::{Deserialize, Serialize};

use crate::Scope;

/// Which page of which ranking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams, utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", into_params(parameter_in = Query))]
pub struct RankingQuery {
    /// Mundial (every player) or Nacional (one country's players).
    pub scope: Scope,
    /// 1 or 2.
    #[cfg_attr(
        feature = "openapi",
        param(minimum = 1, maximum = 2),
        schema(minimum = 1, maximum = 2)
    )]
    pub level: u8,
    /// Nacional: the country (ISO 3166 two letters); the signed-in player's own when absent.
    #[serde(default)]
    pub country: Option<String>,
    /// Where the page starts: the `next` of the page before; the top when absent.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Rows in the page, 1 to 100 (50 when absent).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// A player's row in a ranking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankingRow {
    /// The place, 1 for the first.
    pub rank: u64,
    /// The player name.
    pub name: String,
    /// The player's country.
    pub country: String,
    /// Points: win 3, loss 1, loss on time or by abandonment 0 (ON-K02).
    pub points: i64,
    /// Wins that scored.
    pub wins: i64,
    /// Losses that scored.
    pub losses: i64,
}

/// A page of a ranking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RankingPage {
    /// The rows, best first.
    pub rows: Vec<RankingRow>,
    /// The cursor of the next page, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// The signed-in player's place in one ranking.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MyPosition {
    /// Mundial or Nacional.
    pub scope: Scope,
    /// 1 or 2.
    pub level: u8,
    /// The player's row; absent before their first match that scored at this level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<RankingRow>,
}
