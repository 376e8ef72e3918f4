//! The edges of the web platform: the device's language and storage kept on the device.

/// The browser's preferred language tag (`pt-BR`, `en-US`, …).
pub fn locale() -> String {
    web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_else(|| "pt-BR".into())
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// A value kept on this device, if any.
pub fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok()?
}

/// Keeps a value on this device; storage that is full or disabled loses only this value.
pub fn save(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

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
