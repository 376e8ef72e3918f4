//! Pieces shared by screens.

pub mod cube_stage;
