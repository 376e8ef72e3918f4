//! Telling the player it is their turn while the page is in the background (CLASSIC-R09): the
//! Notifications API, asked for only when the player taps to be told; the count of turns
//! waiting on the tab's title and the installed app's badge until the page is seen again.

use std::cell::{Cell, RefCell};

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::AlertPermission;

thread_local! {
    /// Turns told while the page was hidden.
    static UNSEEN: Cell<u32> = const { Cell::new(0) };
    /// The page's own title, and whether the listener that resets it is in place.
    static TITLE: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn notification_class() -> Option<Function> {
    let window = web_sys::window()?;
    Reflect::get(&window, &"Notification".into())
        .ok()?
        .dyn_into::<Function>()
        .ok()
}

fn read(text: Option<String>) -> AlertPermission {
    match text.as_deref() {
        Some("granted") => AlertPermission::Granted,
        Some("default") => AlertPermission::Ask,
        _ => AlertPermission::Refused,
    }
}

/// Whether the browser may show notifications, or will ask.
pub fn alert_permission() -> AlertPermission {
    read(
        notification_class().and_then(|c| Reflect::get(&c, &"permission".into()).ok()?.as_string()),
    )
}

/// Asks the browser (the player just tapped for it); what they answered.
pub async fn ask_alert_permission() -> AlertPermission {
    let Some(class) = notification_class() else {
        return AlertPermission::Refused;
    };
    let asked = Reflect::get(&class, &"requestPermission".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .and_then(|f| f.call0(&class).ok())
        .and_then(|p| p.dyn_into::<Promise>().ok());
    match asked {
        Some(promise) => read(
            JsFuture::from(promise)
                .await
                .ok()
                .and_then(|v| v.as_string()),
        ),
        None => alert_permission(),
    }
}

fn page_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden())
}

fn call_navigator(name: &str, arg: Option<u32>) {
    let Some(navigator) = web_sys::window().map(|w| w.navigator()) else {
        return;
    };
    if let Some(f) = Reflect::get(&navigator, &name.into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
    {
        // A promise the page need not wait for; a refusal changes nothing.
        let _ = match arg {
            Some(n) => f.call1(&navigator, &n.into()),
            None => f.call0(&navigator),
        };
    }
}

/// Shows the count of turns waiting on the title and the badge, and clears both once the page
/// is seen.
fn count_unseen() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let first = TITLE.with(|t| {
        let mut t = t.borrow_mut();
        let first = t.is_none();
        if first {
            *t = Some(document.title());
        }
        first
    });
    if first {
        let seen = Closure::<dyn FnMut()>::new(|| {
            if page_hidden() {
                return;
            }
            UNSEEN.with(|u| u.set(0));
            if let Some(document) = web_sys::window().and_then(|w| w.document()) {
                TITLE.with(|t| document.set_title(t.borrow().as_deref().unwrap_or_default()));
            }
            call_navigator("clearAppBadge", None);
        });
        let _ = document
            .add_event_listener_with_callback("visibilitychange", seen.as_ref().unchecked_ref());
        // Listens for the page's whole life.
        seen.forget();
    }
    let n = UNSEEN.with(|u| {
        u.set(u.get() + 1);
        u.get()
    });
    TITLE.with(|t| {
        document.set_title(&format!(
            "({n}) {}",
            t.borrow().as_deref().unwrap_or_default()
        ))
    });
    call_navigator("setAppBadge", Some(n));
}

/// Tells the player it is their turn when the page is hidden: a system notification (when
/// allowed; `tag` replaces an older one of the same room) and the count on the title and badge.
/// Whether the page was hidden.
pub fn alert_turn(title: &str, body: &str, tag: &str) -> bool {
    if !page_hidden() {
        return false;
    }
    count_unseen();
    if alert_permission() == AlertPermission::Granted
        && let Some(class) = notification_class()
    {
        let options = Object::new();
        let _ = Reflect::set(&options, &"body".into(), &body.into());
        let _ = Reflect::set(&options, &"tag".into(), &tag.into());
        let _ = Reflect::set(&options, &"icon".into(), &"/icons/icon-192.png".into());
        let args = Array::of2(&JsValue::from_str(title), &options);
        let _ = Reflect::construct(&class, &args);
    }
    true
}
