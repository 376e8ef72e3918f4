//! Cubo da Velha, the app: one Dioxus component tree on two renderers — the web (wasm32),
//! which players use first, and native (Blitz) for the desktop and, as Blitz's touch support
//! lands, Android and iOS.

mod app;
mod components;
mod i18n;
mod online;
mod platform;
mod screens;
mod thinking;

fn main() {
    #[cfg(target_arch = "wasm32")]
    console_error_panic_hook::set_once();
    dioxus::launch(app::App);
}
