//! Reports of one player by another (`POST /api/reports`), read by the operators with
//! `velha-server admin reports` (docs/moderation.md).

use serde::{Deserialize, Serialize};

/// The longest note a report may carry, in characters.
pub const MAX_REPORT_NOTE: usize = 500;

/// Why a player is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReportReason {
    /// An offensive name.
    Name,
    /// Cheating (help from a program, a second account).
    Cheating,
    /// Insults, or stalling to make the other give up.
    Behaviour,
    /// Anything else: the note says what.
    Other,
}

impl ReportReason {
    /// Every reason, in the order the app offers them.
    pub const ALL: [ReportReason; 4] = [
        ReportReason::Name,
        ReportReason::Cheating,
        ReportReason::Behaviour,
        ReportReason::Other,
    ];

    /// Its name on the wire and in the operators' list.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportReason::Name => "name",
            ReportReason::Cheating => "cheating",
            ReportReason::Behaviour => "behaviour",
            ReportReason::Other => "other",
        }
    }
}

/// Where the reporter met the player they report: the server checks they did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReportAbout {
    /// A finished match the reporter played: the other player is reported.
    Match {
        /// The match.
        id: String,
    },
    /// An invitation room where the reporter holds a seat: the other seat is reported.
    Room {
        /// The room.
        id: String,
        /// The reporter's seat credential.
        credential: String,
    },
    /// A row of the rankings: the player of that name.
    Ranking {
        /// The player's name.
        name: String,
    },
}

/// A report (`POST /api/reports`, signed in).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Report {
    /// Where the reporter met the player.
    pub about: ReportAbout,
    /// Why.
    pub reason: ReportReason,
    /// What the reporter adds, at most [`MAX_REPORT_NOTE`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
