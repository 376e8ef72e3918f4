//! Cubo da Velha, the app: one Dioxus component tree. The web build (wasm32) is the one
//! players use first; the native build (Blitz) joins it with its own platform glue.

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod components;
#[cfg(target_arch = "wasm32")]
mod i18n;
#[cfg(target_arch = "wasm32")]
mod platform;
#[cfg(target_arch = "wasm32")]
mod screens;

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    dioxus::launch(app::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "This build of Cubo da Velha runs in the browser: `bash scripts/run.sh` builds and serves it."
    );
    std::process::exit(2);
}
