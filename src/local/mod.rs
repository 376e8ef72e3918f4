//! The games played on one device, each as one plain value: who plays, the series, the game
//! on the board. Each thing that happens on a local screen is one method, so the games are
//! tested without a screen, and the screens only draw them and do what a value cannot
//! (think in slices, animate, buzz, keep the Velha's score on the device).

pub mod classic;
pub mod cube;
pub mod ultimate;
