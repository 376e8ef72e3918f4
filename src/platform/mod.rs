//! The edges of each platform behind one small API: the device's language and region, storage
//! kept on the device, the session, the server's address, the clock, timers and random seeds.
//! `web` for browsers, `native` for Blitz.

#[cfg(not(target_arch = "wasm32"))]
mod alert_native;
#[cfg(target_arch = "wasm32")]
mod alert_web;
#[cfg(not(target_arch = "wasm32"))]
mod canvas_native;
#[cfg(target_arch = "wasm32")]
mod canvas_web;
#[cfg(not(target_arch = "wasm32"))]
mod google_native;
#[cfg(target_arch = "wasm32")]
mod google_web;
#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
mod push_native;
#[cfg(target_arch = "wasm32")]
mod push_web;
#[cfg(not(target_arch = "wasm32"))]
mod session_native;
#[cfg(target_arch = "wasm32")]
mod sketch_web;
#[cfg(not(target_arch = "wasm32"))]
mod socket_native;
#[cfg(target_arch = "wasm32")]
mod socket_web;
#[cfg(target_arch = "wasm32")]
mod web;

#[cfg(not(target_arch = "wasm32"))]
pub use google_native::{GOOGLE_IN_BROWSER, GoogleFailure, google_sign_in};
#[cfg(target_arch = "wasm32")]
pub use google_web::google_button;
/// What [`http`] heard: the status and the body's text, or `Err` when no answer came.
pub type Answer = Result<(u16, String), ()>;

/// RFC 6455's "Service Restart": the server closing a live connection with it is restarting
/// (a deploy) and another process takes the connection at once.
const RESTARTING: u16 = 1012;

#[cfg(not(target_arch = "wasm32"))]
pub use socket_native::{Socket, close_ahead, network_back, open_ahead};
#[cfg(target_arch = "wasm32")]
pub use socket_web::{Socket, close_ahead, network_back, open_ahead};

#[cfg(not(target_arch = "wasm32"))]
pub use alert_native::{alert_permission, alert_turn, ask_alert_permission};
#[cfg(target_arch = "wasm32")]
pub use alert_web::{alert_permission, alert_turn, ask_alert_permission};
#[cfg(not(target_arch = "wasm32"))]
pub use canvas_native::{CANVAS_AT_ORIGIN, CubeCanvas, fetch_painter};
#[cfg(target_arch = "wasm32")]
pub use canvas_web::{CubeCanvas, fetch_painter};
#[cfg(not(target_arch = "wasm32"))]
pub use push_native::{push_subscribe, push_supported, push_unsubscribe};
#[cfg(target_arch = "wasm32")]
pub use push_web::{push_subscribe, push_supported, push_unsubscribe};
/// The web canvas can sit anywhere: pointer events carry element coordinates.
#[cfg(target_arch = "wasm32")]
pub const CANVAS_AT_ORIGIN: bool = false;

#[cfg(not(target_arch = "wasm32"))]
pub use native::{
    after_next_frame, after_the_asked_painter, forget, fragment, history_back, history_moves,
    history_push, history_replace, http, link_to, load, locale, now_ms, online_module_settled,
    open_page, opened_path, random_seed, region, save, save_file, share_link, sleep_ms,
    turn_seconds_override, vibrate,
};
// An app has no visits: what a web tab keeps for its life, it keeps until it is forgotten.
#[cfg(not(target_arch = "wasm32"))]
pub use native::{forget as forget_draft, load as load_draft, save as save_draft};
#[cfg(not(target_arch = "wasm32"))]
pub use session_native::{keep_session_token, session_token};
#[cfg(target_arch = "wasm32")]
pub use web::{
    after_next_frame, after_the_asked_painter, forget, forget_draft, fragment, history_back,
    history_moves, history_push, history_replace, http, keep_session_token, link_to, load,
    load_draft, locale, now_ms, online_module_settled, open_page, opened_path, random_seed, region,
    save, save_draft, save_file, session_token, share_link, sleep_ms, turn_seconds_override,
    vibrate,
};

/// Whether the system may tell the player of their turn while the app is in the background.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlertPermission {
    /// It may.
    Granted,
    /// Not yet asked: ask when the player taps for it, never unprompted.
    Ask,
    /// Refused, or the platform cannot.
    Refused,
}

/// Why the device could not be subscribed to notices while the app is closed.
// The desktop has no push manager, so only `Unsupported` is made there.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushFailure {
    /// The browser (or the platform) has no push manager.
    Unsupported,
    /// The player, or the browser's settings, refused notifications.
    Denied,
    /// The browser's push service could not be reached.
    Service,
}

/// How long the device buzzes when a move is refused, and when a game ends (ms).
pub const BUZZ_REFUSED: u32 = 40;
/// See [`BUZZ_REFUSED`].
pub const BUZZ_GAME_OVER: u32 = 120;

/// The "Você × Velha" score (ON-K05): wins and losses against the Velha, on this device only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VelhaScore {
    /// Games the person won.
    pub wins: u32,
    /// Games the Velha won.
    pub losses: u32,
}

const SCORE_KEY: &str = "cubo-da-velha.score";

impl VelhaScore {
    /// The stored score; a missing or damaged value reads as 0 × 0.
    pub fn load() -> VelhaScore {
        load(SCORE_KEY)
            .and_then(|text| {
                let (w, l) = text.split_once(',')?;
                Some(VelhaScore {
                    wins: w.trim().parse().ok()?,
                    losses: l.trim().parse().ok()?,
                })
            })
            .unwrap_or_default()
    }

    /// Stores the score.
    pub fn save(self) {
        save(SCORE_KEY, &format!("{},{}", self.wins, self.losses));
    }
}
