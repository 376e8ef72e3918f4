//! serde forms of positions: the state line, plus the few facts it cannot hold.
//!
//! The protocol's state lines do not say that a cube game was lost on time, nor whether a
//! grid is Super or 2.0. The records add exactly those, so storage and the network lose
//! nothing.

use serde::{Deserialize, Serialize};

use super::ParseError;
use crate::game::Ending;
use crate::{Classic, Cube, Player, Position, Ultimate, Variant};

#[derive(Serialize, Deserialize)]
struct ClassicRecord {
    state: String,
}

impl Serialize for Classic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ClassicRecord {
            state: self.to_string(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Classic {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Classic, D::Error> {
        let record = ClassicRecord::deserialize(d)?;
        record.state.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(Serialize, Deserialize)]
struct CubeRecord {
    state: String,
    /// The player who lost on time, when the game ended that way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lost_on_time: Option<Player>,
}

impl Serialize for Cube {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let lost_on_time = (self.ending() == Some(Ending::Time)).then(|| self.side_to_move());
        CubeRecord {
            state: self.to_string(),
            lost_on_time,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Cube {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Cube, D::Error> {
        let record = CubeRecord::deserialize(d)?;
        let mut cube: Cube = record.state.parse().map_err(serde::de::Error::custom)?;
        if let Some(loser) = record.lost_on_time {
            if cube.side_to_move() != loser {
                return Err(serde::de::Error::custom(
                    "lost_on_time must name the side to move",
                ));
            }
            cube.timeout().map_err(serde::de::Error::custom)?;
        }
        Ok(cube)
    }
}

#[derive(Serialize, Deserialize)]
struct UltimateRecord {
    variant: Variant,
    state: String,
    /// Turns X and O had lost in a row to the clock, in records written before 2.0's state
    /// line held them.
    #[serde(default, skip_serializing)]
    lost_turns: [u8; 2],
}

impl Serialize for Ultimate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        UltimateRecord {
            variant: self.variant(),
            state: self.to_string(),
            lost_turns: [0, 0],
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Ultimate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ultimate, D::Error> {
        let record = UltimateRecord::deserialize(d)?;
        let line = Ultimate::from_state_line(record.variant, &record.state)
            .map_err(serde::de::Error::custom)?;
        if record.lost_turns == [0, 0] {
            return Ok(line);
        }
        line.with_lost_turns(record.lost_turns)
            .map_err(|e| serde::de::Error::custom(ParseError::new(e)))
    }
}
