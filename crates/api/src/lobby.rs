//! The lobby of online cube matches (online.md ON-M01, ON-M02).

use serde::{Deserialize, Serialize};

/// Who may meet whom (ON-M01).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Opponents from any country.
    Mundial,
    /// Only players of the same country.
    Nacional,
}

impl Scope {
    /// The word stored and sent.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::Mundial => "mundial",
            Scope::Nacional => "nacional",
        }
    }

    /// The scope a stored word names.
    pub fn from_str_opt(s: &str) -> Option<Scope> {
        match s {
            "mundial" => Some(Scope::Mundial),
            "nacional" => Some(Scope::Nacional),
            _ => None,
        }
    }
}

/// Which open matches to list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::IntoParams, utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", into_params(parameter_in = Query))]
pub struct LobbyQuery {
    /// Mundial or Nacional.
    pub scope: Scope,
    /// 1 or 2.
    #[cfg_attr(
        feature = "openapi",
        param(minimum = 1, maximum = 2),
        schema(minimum = 1, maximum = 2)
    )]
    pub level: u8,
    /// A mini-ranking group's id: its matches instead (ON-G03); the scope is then ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// A new match waiting for an opponent; its creator plays X (ON-M02).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateMatch {
    /// Mundial or Nacional.
    pub scope: Scope,
    /// 1 or 2.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 2))]
    pub level: u8,
    /// A mini-ranking group's id: a match of that group, scored only there (ON-G03, ON-G04).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// A match waiting in the lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OpenMatch {
    /// The match id.
    pub id: String,
    /// The creator's player name; they will play X.
    pub creator: String,
    /// The creator's country.
    pub country: String,
    /// Mundial or Nacional.
    pub scope: Scope,
    /// 1 or 2.
    pub level: u8,
    /// How long it has waited, in milliseconds.
    pub waiting_ms: u64,
    /// The mini-ranking group it belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}
