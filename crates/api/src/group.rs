//! Mini-ranking groups (online.md ON-G01 … ON-G09): made by a subscriber, joined by invitation.

use serde::{Deserialize, Serialize};

/// A new group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreateGroup {
    /// Its name, 3 to 40 characters.
    pub name: String,
    /// Whether the Velha plays in it (ON-G05).
    #[serde(default)]
    pub with_velha: bool,
}

/// An invitation to send, by player name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Invite {
    /// The invited player's name.
    pub name: String,
}

/// A group as a participant sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Group {
    /// The group id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The creator's player name.
    pub creator: String,
    /// Whether the Velha plays in it.
    pub with_velha: bool,
    /// The participants' names, in the order they joined (the creator first).
    pub members: Vec<String>,
    /// Names invited who have not answered (shown to the creator only; empty for others).
    #[serde(default)]
    pub invited: Vec<String>,
}

/// An invitation the player has received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Invitation {
    /// The group id.
    pub group: String,
    /// The group's name.
    pub name: String,
    /// Who invited (the creator).
    pub creator: String,
    /// Participants now.
    pub members: u32,
}

/// The player's groups and invitations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MyGroups {
    /// Groups the player takes part in (at most 2).
    pub groups: Vec<Group>,
    /// Invitations waiting for an answer.
    pub invitations: Vec<Invitation>,
}
