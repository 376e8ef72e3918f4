//! The browser's push manager (through `assets/boot.js`), for notices while no page of the app
//! is open (docs/push.md).

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::PushFailure;

/// `window.velhaPush` of `assets/boot.js`.
fn manager() -> Option<JsValue> {
    let window = web_sys::window()?;
    Reflect::get(&window, &"velhaPush".into())
        .ok()
        .filter(|m| m.is_object())
}

/// Calls one of its methods: the promise it answers.
fn call(method: &str, args: &[&JsValue]) -> Option<Promise> {
    let manager = manager()?;
    let f = Reflect::get(&manager, &method.into())
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    let answer = match args {
        [] => f.call0(&manager),
        [a] => f.call1(&manager, a),
        _ => return None,
    };
    answer.ok()?.dyn_into::<Promise>().ok()
}

/// Whether this browser can be told while the app is closed.
pub fn push_supported() -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    manager().is_some()
        && Reflect::has(&window, &"PushManager".into()).unwrap_or(false)
        && Reflect::has(&window.navigator(), &"serviceWorker".into()).unwrap_or(false)
}

/// Subscribes this browser with the server's key: the subscription's JSON (`endpoint`,
/// `keys.p256dh`, `keys.auth`). Permission must already be granted.
pub async fn push_subscribe(public_key: &str) -> Result<String, PushFailure> {
    let promise = call("subscribe", &[&public_key.into()]).ok_or(PushFailure::Unsupported)?;
    match JsFuture::from(promise).await {
        Ok(json) => json.as_string().ok_or(PushFailure::Service),
        Err(e) => {
            // A refused permission is a NotAllowedError; "unsupported" is boot.js's.
            let name = Reflect::get(&e, &"name".into())
                .ok()
                .and_then(|n| n.as_string());
            let message = Reflect::get(&e, &"message".into())
                .ok()
                .and_then(|m| m.as_string());
            Err(match (name.as_deref(), message.as_deref()) {
                (Some("NotAllowedError"), _) => PushFailure::Denied,
                (_, Some("unsupported")) => PushFailure::Unsupported,
                _ => PushFailure::Service,
            })
        }
    }
}

/// Ends this browser's subscription at its push service.
pub async fn push_unsubscribe() {
    if let Some(promise) = call("unsubscribe", &[]) {
        // Already gone or refused: the server forgets it anyway.
        let _ = JsFuture::from(promise).await;
    }
}
