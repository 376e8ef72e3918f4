//! The app's online half: talking to the server with `velha-api`'s types, who is signed in,
//! and what every refusal means in the player's words.

pub mod check;
pub mod client;
pub mod competitive_texts;
pub mod connection;
pub mod email_texts;
pub mod form_draft;
pub mod group_texts;
pub mod live;
pub mod live_state;
#[cfg(not(target_arch = "wasm32"))]
pub mod masking;
pub mod membership;
pub mod moderation_texts;
pub mod my_data_texts;
pub mod push;
pub mod replay_texts;
pub mod room_live;
pub mod room_texts;
pub mod security_texts;
pub mod subscription_texts;
pub mod texts;
