//! The browser: localStorage, the navigator's language, `Date.now`, `setTimeout`.

/// The browser's preferred language tag (`pt-BR`, `en-US`, …).
pub fn locale() -> String {
    web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_else(|| "pt-BR".into())
}

/// The device's storage (`localStorage`), or the visit's (`sessionStorage`: the tab's life,
/// so a reload, the back button and a tab the browser discarded keep it, a closed tab forgets
/// it).
fn storage(visit: bool) -> Option<web_sys::Storage> {
    let window = web_sys::window()?;
    if visit {
        window.session_storage().ok()?
    } else {
        window.local_storage().ok()?
    }
}

fn get(visit: bool, key: &str) -> Option<String> {
    storage(visit)?.get_item(key).ok()?
}

/// Storage that is full or disabled loses only this value.
fn set(visit: bool, key: &str, value: &str) {
    if let Some(s) = storage(visit) {
        let _ = s.set_item(key, value);
    }
}

fn remove(visit: bool, key: &str) {
    if let Some(s) = storage(visit) {
        let _ = s.remove_item(key);
    }
}

/// A value kept on this device, if any.
pub fn load(key: &str) -> Option<String> {
    get(false, key)
}

/// Keeps a value on this device.
pub fn save(key: &str, value: &str) {
    set(false, key, value);
}

/// Forgets a value kept on this device.
pub fn forget(key: &str) {
    remove(false, key);
}

/// A value kept for this visit, if any.
pub fn load_draft(key: &str) -> Option<String> {
    get(true, key)
}

/// Keeps a value for this visit.
pub fn save_draft(key: &str, value: &str) {
    set(true, key, value);
}

/// Forgets a value kept for this visit.
pub fn forget_draft(key: &str) {
    remove(true, key);
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// A seed for the opponents' random choices: different every game.
pub fn random_seed() -> u64 {
    (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64
}

/// Waits `ms` milliseconds without blocking the page.
pub async fn sleep_ms(ms: u32) {
    gloo_timers::future::TimeoutFuture::new(ms).await;
}

/// `?clock=N` in the address: 2.0's turn clock in whole seconds, for tests. (Whole: parsing
/// a fraction would bring the float parser's tables, some 12 KB, into the first download.)
pub fn turn_seconds_override() -> Option<u32> {
    let query = web_sys::window()?.location().search().ok()?;
    query
        .split(['?', '&'])
        .find_map(|kv| kv.strip_prefix("clock=")?.parse().ok())
}

/// Waits until the browser has drawn its next frame, so work done in between never costs a
/// frame; a hidden page draws none, so after 100 ms it goes on anyway.
pub async fn after_next_frame() {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    let Some(window) = web_sys::window() else {
        return sleep_ms(0).await;
    };
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        // From the frame callback, a zero timeout runs once the frame is painted.
        let later = window.clone();
        let after_paint = resolve.clone();
        let on_frame = Closure::once_into_js(move || {
            let _ = later.set_timeout_with_callback(after_paint.unchecked_ref());
        });
        let _ = window.request_animation_frame(on_frame.unchecked_ref());
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 100);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// A short buzz where the device can (phones); nothing elsewhere.
pub fn vibrate(ms: u32) {
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().vibrate_with_duration(ms);
    }
}

/// The device's region as the browser tells it: the first preferred language that names a
/// country (`pt-BR`), else the first language (ON-A02).
pub fn region() -> String {
    let Some(navigator) = web_sys::window().map(|w| w.navigator()) else {
        return String::new();
    };
    let languages: Vec<String> = navigator
        .languages()
        .iter()
        .filter_map(|l| l.as_string())
        .collect();
    languages
        .iter()
        .find(|l| velha_api::country_of(l).is_some())
        .or(languages.first())
        .cloned()
        .or_else(|| navigator.language())
        .unwrap_or_default()
}

/// The web keeps no session token: the server's HttpOnly cookie is the session.
pub fn keep_session_token(_token: Option<&str>) {}

/// See [`keep_session_token`]: the WebSocket's `hello` names no token, the cookie speaks.
pub fn session_token() -> Option<String> {
    None
}

/// One HTTP request to the server (the page's own origin): the status and the body's text,
/// or `Err` when no answer came (no connection, 20 s without one). The browser sends the
/// session cookie itself. `fetch` rather than an HTTP crate: the first load stays small.
pub async fn http(method: &str, path: &str, json: Option<String>) -> super::Answer {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;

    let window = web_sys::window().ok_or(())?;
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    init.set_credentials(web_sys::RequestCredentials::SameOrigin);
    init.set_signal(Some(&web_sys::AbortSignal::timeout_with_u32(20_000)));
    if let Some(json) = json {
        let headers = web_sys::Headers::new().map_err(drop)?;
        headers
            .set("Content-Type", "application/json")
            .map_err(drop)?;
        init.set_headers(&headers);
        init.set_body(&wasm_bindgen::JsValue::from_str(&json));
    }
    let response = JsFuture::from(window.fetch_with_str_and_init(path, &init))
        .await
        .map_err(drop)?;
    let response: web_sys::Response = response.dyn_into().map_err(drop)?;
    let text = JsFuture::from(response.text().map_err(drop)?)
        .await
        .map_err(drop)?;
    Ok((response.status(), text.as_string().unwrap_or_default()))
}

/// The address the app is at: the link or reload it was opened with, at first.
pub fn opened_path() -> String {
    web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_else(|| "/".into())
}

/// The address's fragment without its `#` (the e-mail links carry their tokens there).
pub fn fragment() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix('#').map(str::to_owned)
}

fn history() -> Option<web_sys::History> {
    web_sys::window()?.history().ok()
}

/// `path` with the address's query, which the page keeps from place to place (`?clock=N`),
/// but for the checkout's `?sessao=`: it names one return from the payment provider, not the
/// places after it.
fn with_query(path: &str) -> String {
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .filter(|q| !q.starts_with("?sessao="))
        .unwrap_or_default();
    format!("{path}{query}")
}

/// A new place in the browser's history (unless it is the one the page is at).
pub fn history_push(path: &str) {
    if opened_path() != path
        && let Some(h) = history()
    {
        let _ = h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&with_query(path)));
    }
}

/// The place the page is at, renamed (a room made is the same place as its form).
pub fn history_replace(path: &str) {
    if let Some(h) = history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&with_query(path)));
    }
}

/// Back to the previous place, as the browser's button does.
pub fn history_back() {
    if let Some(h) = history() {
        let _ = h.back();
    }
}

/// The addresses the browser goes back (or forward) to, as they happen: the phone's back
/// button and the browser's own. Called once.
pub fn history_moves() -> futures_channel::mpsc::UnboundedReceiver<String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;

    let (tx, rx) = futures_channel::mpsc::unbounded();
    if let Some(window) = web_sys::window() {
        let on_pop = Closure::<dyn FnMut()>::new(move || {
            let _ = tx.unbounded_send(opened_path());
        });
        let _ =
            window.add_event_listener_with_callback("popstate", on_pop.as_ref().unchecked_ref());
        // The listener lives as long as the page.
        on_pop.forget();
    }
    rx
}

/// Leaves the app for another site's page (the payment provider's): the tab goes there, and
/// the site sends it back to one of the app's addresses. Whether the browser took it.
pub async fn open_page(url: &str) -> bool {
    web_sys::window().is_some_and(|w| w.location().assign(url).is_ok())
}

/// The whole address of a path of this site, as a link to share.
pub fn link_to(path: &str) -> String {
    let origin = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default();
    format!("{origin}{path}")
}

/// Saves `text` as a file named `name` where the browser keeps downloads: what the player
/// is told it was saved as, or None when the browser refused. Through the page's own
/// objects (Blob, URL, an anchor's click) rather than more of web-sys, whose every binding
/// the wasm carries.
pub fn save_file(name: &str, text: &str) -> Option<String> {
    use js_sys::{Array, Function, Object, Reflect};
    use wasm_bindgen::{JsCast, JsValue};
    let global = js_sys::global();
    let get = |target: &JsValue, key: &str| Reflect::get(target, &JsValue::from_str(key)).ok();
    let blob_type = get(&global, "Blob")?.dyn_into::<Function>().ok()?;
    let options = Object::new();
    Reflect::set(&options, &"type".into(), &"application/json".into()).ok()?;
    let parts = Array::of1(&JsValue::from_str(text));
    let blob = Reflect::construct(&blob_type, &Array::of2(&parts, &options)).ok()?;
    let url_type = get(&global, "URL")?;
    let make = get(&url_type, "createObjectURL")?
        .dyn_into::<Function>()
        .ok()?;
    let url = make.call1(&url_type, &blob).ok()?.as_string()?;
    let anchor = web_sys::window()?.document()?.create_element("a").ok()?;
    anchor.set_attribute("href", &url).ok()?;
    anchor.set_attribute("download", name).ok()?;
    let click = get(&anchor, "click")?.dyn_into::<Function>().ok()?;
    click.call0(&anchor).ok()?;
    // The download has started by the time a minute is over; the blob is freed then.
    wasm_bindgen_futures::spawn_local(async move {
        sleep_ms(60_000).await;
        if let Some(revoke) =
            get(&url_type, "revokeObjectURL").and_then(|f| f.dyn_into::<Function>().ok())
        {
            let _ = revoke.call1(&url_type, &JsValue::from_str(&url));
        }
    });
    Some(name.to_owned())
}

/// Offers the link through the system's share sheet where there is one (phones), else copies
/// it; `done` learns whether either was done (a share sheet the player closed, or a clipboard
/// the browser refused, was not). One task here, not one per screen that shares.
pub fn share_link(url: &str, title: &str, mut done: dioxus::prelude::Signal<Option<bool>>) {
    use dioxus::prelude::WritableExt;
    let (url, title) = (url.to_owned(), title.to_owned());
    dioxus::prelude::spawn(async move { done.set(Some(shared(&url, &title).await)) });
}

async fn shared(url: &str, title: &str) -> bool {
    use js_sys::{Function, Object, Promise, Reflect};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    let Some(navigator) = web_sys::window().map(|w| w.navigator()) else {
        return false;
    };
    let call = |target: &JsValue, name: &str, arg: &JsValue| -> Option<Promise> {
        let f = Reflect::get(target, &JsValue::from_str(name))
            .ok()?
            .dyn_into::<Function>()
            .ok()?;
        f.call1(target, arg).ok()?.dyn_into::<Promise>().ok()
    };
    let data = Object::new();
    let _ = Reflect::set(&data, &"url".into(), &url.into());
    let _ = Reflect::set(&data, &"title".into(), &title.into());
    if let Some(shared) = call(&navigator, "share", &data) {
        // Closed by the player, or refused: the screen shows the link to copy instead.
        return JsFuture::from(shared).await.is_ok();
    }
    let Some(copied) = Reflect::get(&navigator, &"clipboard".into())
        .ok()
        .filter(|c| !c.is_undefined())
        .and_then(|clipboard| call(&clipboard, "writeText", &url.into()))
    else {
        return false;
    };
    JsFuture::from(copied).await.is_ok()
}

/// Resolves once the cube's painter, if the cube screen asked for it, has arrived or failed
/// (`assets/boot.js`): the modules fetched ahead of need wait for it.
pub async fn after_the_asked_painter() {
    use wasm_bindgen::JsCast;
    let asked = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"velhaPainterAsked".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call0(&wasm_bindgen::JsValue::NULL).ok())
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
    if let Some(asked) = asked {
        let _ = wasm_bindgen_futures::JsFuture::from(asked).await;
    }
}

/// Tells the page (`assets/boot.js`) that the online screens' and how to play's modules have
/// arrived, or could not: the cube's painter is fetched after them, so they never share the network.
pub fn online_module_settled() {
    use wasm_bindgen::JsCast;
    let settled = web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &"velhaOnlineSettled".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(settled) = settled {
        let _ = settled.call0(&wasm_bindgen::JsValue::NULL);
    }
}
