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
    /// The group's table (ON-G07): every participant, best first.
    #[serde(default)]
    pub table: Vec<GroupStanding>,
}

/// One participant's line of a group's table (ON-G07). The order is that of the rankings:
/// more points, more wins, fewer losses (ON-G04), then the name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct GroupStanding {
    /// 1 for the first; equal numbers share no place (the order is total).
    pub position: u32,
    /// The participant's name.
    pub name: String,
    /// Points in the group: group matches that scored and matches against the Velha.
    pub points: u32,
    /// Finished matches against other participants in this group.
    pub matches: u32,
    /// Finished matches against the Velha in this group.
    pub velha_matches: u32,
}

/// A match against the server's Velha in a group (ON-G05).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PlayVelha {
    /// 1 or 2.
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 2))]
    pub level: u8,
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
