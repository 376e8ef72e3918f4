//! Cubo da Velha, the app: one Dioxus component tree on two renderers — the web (wasm32),
//! which players use first, and native (Blitz) for the desktop and, as Blitz's touch support
//! lands, Android and iOS.

mod analysis;
mod app;
mod components;
mod countries;
mod i18n;
mod lazy;
mod local;
mod online;
mod platform;
mod request;
mod route;
mod screens;
mod thinking;

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    dioxus::launch(app::App);
}

/// Blitz runs the app on this thread; the runtime entered here carries the app's requests to
/// the server (Blitz's own network provider, which would bring one, is left out).
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cubo-da-velha: cannot start its runtime: {e}");
            std::process::exit(1);
        }
    };
    let _entered = runtime.enter();
    dioxus_native::launch(app::App);
}
