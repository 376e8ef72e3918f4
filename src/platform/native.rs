//! Desktop and phones through Blitz: a file per value in the app's data folder, the system
//! locale, the system clock.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The system's preferred language tag (`pt-BR`, `en-US`, …).
pub fn locale() -> String {
    sys_locale::get_locale().unwrap_or_else(|| "pt-BR".into())
}

fn path(key: &str) -> Option<PathBuf> {
    // Keys are the app's own constants; keep only safe characters all the same.
    let name: String = key
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
        .collect();
    Some(dirs::data_dir()?.join("cubo-da-velha").join(name))
}

/// A value kept on this device, if any.
pub fn load(key: &str) -> Option<String> {
    std::fs::read_to_string(path(key)?).ok()
}

/// Keeps a value on this device; a full or read-only disk loses only this value. The value is
/// written beside and renamed over, so a crash never leaves half a file.
pub fn save(key: &str, value: &str) {
    let Some(path) = path(key) else { return };
    let Some(dir) = path.parent() else { return };
    let temporary = path.with_extension("new");
    let _ = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&temporary, value))
        .and_then(|()| std::fs::rename(&temporary, &path));
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// A seed for the opponents' random choices: different every game.
pub fn random_seed() -> u64 {
    fastrand::u64(..)
}

/// Waits `ms` milliseconds without blocking the interface.
pub async fn sleep_ms(ms: u32) {
    futures_timer::Delay::new(Duration::from_millis(u64::from(ms))).await;
}

/// `VELHA_CLOCK=N` in the environment: 2.0's turn clock in seconds, for tests.
pub fn turn_seconds_override() -> Option<f64> {
    std::env::var("VELHA_CLOCK").ok()?.parse().ok()
}

/// Gives the window time to draw a frame before work goes on (Blitz draws from its own loop,
/// between the app's tasks).
pub async fn after_next_frame() {
    sleep_ms(8).await;
}

/// A short buzz where the device can; desktops cannot.
pub fn vibrate(_ms: u32) {}
