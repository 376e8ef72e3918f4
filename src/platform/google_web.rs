//! Google sign-in on the web: the Google Identity Services script (its address comes from the
//! server) and the button it draws, which hands back ID tokens.

use futures_channel::mpsc;
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// How long the script may take before the button is given up as unavailable.
const SCRIPT_TIMEOUT_MS: i32 = 10_000;

/// `google.accounts.id`, once the script has defined it.
fn accounts_id(window: &web_sys::Window) -> Option<JsValue> {
    let google = Reflect::get(window, &"google".into()).ok()?;
    let accounts = Reflect::get(&google, &"accounts".into()).ok()?;
    Reflect::get(&accounts, &"id".into())
        .ok()
        .filter(|id| id.is_object())
}

/// Adds the script to the page and waits for it (once per page: a failed load is tried again
/// the next time the button is wanted).
async fn load_script(window: &web_sys::Window, url: &str) -> Result<JsValue, ()> {
    if let Some(id) = accounts_id(window) {
        return Ok(id);
    }
    let document = window.document().ok_or(())?;
    let script: web_sys::HtmlScriptElement = document
        .create_element("script")
        .map_err(drop)?
        .dyn_into()
        .map_err(drop)?;
    script.set_src(url);
    script.set_async(true);
    let loaded = js_sys::Promise::new(&mut |resolve, reject| {
        script.set_onload(Some(&resolve));
        script.set_onerror(Some(&reject));
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(&reject, SCRIPT_TIMEOUT_MS);
    });
    document
        .head()
        .ok_or(())?
        .append_child(&script)
        .map_err(drop)?;
    JsFuture::from(loaded).await.map_err(drop)?;
    accounts_id(window).ok_or(())
}

fn object(pairs: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (key, value) in pairs {
        let _ = Reflect::set(&o, &(*key).into(), value);
    }
    o
}

fn call(on: &JsValue, method: &str, args: &[&JsValue]) -> Result<(), ()> {
    let f: Function = Reflect::get(on, &method.into())
        .map_err(drop)?
        .dyn_into()
        .map_err(drop)?;
    match args {
        [a] => f.call1(on, a),
        [a, b] => f.call2(on, a, b),
        _ => f.call0(on),
    }
    .map(drop)
    .map_err(drop)
}

/// Draws Google's sign-in button into the element `container` (by id) and answers the ID
/// tokens of the sign-ins it makes; `Err` when the script did not load (blocked, offline,
/// too slow).
pub async fn google_button(
    container: &str,
    client_id: &str,
    script_url: &str,
    locale: &str,
) -> Result<mpsc::UnboundedReceiver<String>, ()> {
    let window = web_sys::window().ok_or(())?;
    let id = load_script(&window, script_url).await?;
    let element = window
        .document()
        .and_then(|d| d.get_element_by_id(container))
        .ok_or(())?;
    let (tokens, received) = mpsc::unbounded();
    let callback = Closure::<dyn FnMut(JsValue)>::new(move |answer: JsValue| {
        if let Some(token) = Reflect::get(&answer, &"credential".into())
            .ok()
            .and_then(|c| c.as_string())
        {
            let _ = tokens.unbounded_send(token);
        }
    });
    let config = object(&[
        ("client_id", client_id.into()),
        ("callback", callback.as_ref().clone()),
        ("ux_mode", "popup".into()),
        ("auto_select", false.into()),
    ]);
    call(&id, "initialize", &[&config])?;
    // The script keeps the callback for the page's life; one is made per button shown.
    callback.forget();
    let options = object(&[
        ("type", "standard".into()),
        ("theme", "outline".into()),
        ("size", "large".into()),
        ("text", "signin_with".into()),
        ("shape", "pill".into()),
        ("width", 296.into()),
        ("locale", locale.into()),
    ]);
    call(&id, "renderButton", &[&element.into(), &options])?;
    Ok(received)
}
