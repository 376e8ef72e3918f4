//! Pieces shared by screens.

pub mod analysis_panel;
pub mod character;
pub mod country_picker;
pub mod cube_stage;
pub mod cube_table;
pub mod google_button;
pub mod hint;
pub mod push_row;
pub mod rename_notice;
pub mod report;
pub mod review;
pub mod room_list;
pub mod scope_tabs;
pub mod stop_button;
pub mod ultimate_grid;
pub mod warning;
