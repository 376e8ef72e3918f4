//! Telling the player it is their turn on the desktop (CLASSIC-R09): a notification through the
//! freedesktop notification service on Linux (D-Bus, over the zbus the window already links).
//! Other desktops show the turn in the window only, for now.

use super::AlertPermission;

/// Desktop notifications need no permission; where there are none, there is nothing to ask.
pub fn alert_permission() -> AlertPermission {
    if cfg!(target_os = "linux") {
        AlertPermission::Granted
    } else {
        AlertPermission::Refused
    }
}

/// Nothing to ask on the desktop.
pub async fn ask_alert_permission() -> AlertPermission {
    alert_permission()
}

/// Shows a desktop notification; `tag` (the room) replaces an older one of the same room only
/// on platforms that can. Whether it was sent to the desktop.
pub fn alert_turn(title: &str, body: &str, _tag: &str) -> bool {
    #[cfg(target_os = "linux")]
    {
        let (title, body) = (title.to_owned(), body.to_owned());
        // The call waits on the session bus: off the window's thread.
        std::thread::spawn(move || {
            if let Err(e) = freedesktop_notify(&title, &body) {
                eprintln!("cubo-da-velha: no desktop notification: {e}");
            }
        });
        true
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (title, body);
        false
    }
}

#[cfg(target_os = "linux")]
fn freedesktop_notify(title: &str, body: &str) -> zbus::Result<()> {
    use std::collections::HashMap;
    let bus = zbus::blocking::Connection::session()?;
    let hints: HashMap<&str, zbus::zvariant::Value<'_>> = HashMap::new();
    bus.call_method(
        Some("org.freedesktop.Notifications"),
        "/org/freedesktop/Notifications",
        Some("org.freedesktop.Notifications"),
        "Notify",
        // app name, id to replace (none), icon, summary, body, actions, hints, timeout (default)
        &(
            "Cubo da Velha",
            0u32,
            "",
            title,
            body,
            Vec::<&str>::new(),
            hints,
            -1i32,
        ),
    )?;
    Ok(())
}
