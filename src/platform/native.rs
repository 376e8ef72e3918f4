//! Desktop and phones through Blitz: a file per value in the app's data folder, the system
//! locale, the system clock.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The system's preferred language tag (`pt-BR`, `en-US`, …).
pub fn locale() -> String {
    sys_locale::get_locale().unwrap_or_else(|| "pt-BR".into())
}

pub(super) fn path(key: &str) -> Option<PathBuf> {
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

/// Forgets a value kept on this device.
pub fn forget(key: &str) {
    if let Some(path) = path(key) {
        let _ = std::fs::remove_file(path);
    }
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

/// `VELHA_CLOCK=N` in the environment: 2.0's turn clock in whole seconds, for tests.
pub fn turn_seconds_override() -> Option<u32> {
    std::env::var("VELHA_CLOCK").ok()?.parse().ok()
}

/// Gives the window time to draw a frame before work goes on (Blitz draws from its own loop,
/// between the app's tasks).
pub async fn after_next_frame() {
    sleep_ms(8).await;
}

/// A short buzz where the device can; desktops cannot.
pub fn vibrate(_ms: u32) {}

/// Where the app finds the server unless `VELHA_SERVER` says otherwise (tests).
const DEFAULT_SERVER: &str = "https://cubodavelha.com.br";

/// The server's address.
pub(super) fn server_base() -> String {
    std::env::var("VELHA_SERVER")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| DEFAULT_SERVER.into())
        .trim_end_matches('/')
        .to_owned()
}

/// A certificate authority to trust besides the system's (`VELHA_SERVER_CA`, a PEM file): a
/// test server's own.
fn server_ca() -> Option<Vec<u8>> {
    std::fs::read(std::env::var_os("VELHA_SERVER_CA")?).ok()
}

/// TLS for the live connection: the usual web roots, and `VELHA_SERVER_CA` when set.
pub(super) fn tls() -> Option<std::sync::Arc<rustls::ClientConfig>> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(pem) = server_ca() {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        for cert in CertificateDer::pem_slice_iter(&pem) {
            roots.add(cert.ok()?).ok()?;
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Some(std::sync::Arc::new(config))
}

/// The system as a User-Agent names it (the server's device names read these words).
fn system_name() -> &'static str {
    match std::env::consts::OS {
        "android" => "Android",
        "ios" => "iPhone",
        "windows" => "Windows",
        "macos" => "Macintosh",
        _ => "Linux",
    }
}

/// One client for the app's life, so connections are reused; `None` if it cannot be built (a
/// bad `VELHA_SERVER_CA`), which every request then reports as no answer.
pub(super) fn client() -> Option<&'static reqwest::Client> {
    static CLIENT: std::sync::OnceLock<Option<reqwest::Client>> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            let mut builder = reqwest::Client::builder()
                .use_rustls_tls()
                // The player's list of devices names the app and the system by it.
                .user_agent(format!(
                    "CuboDaVelha/{} ({})",
                    env!("CARGO_PKG_VERSION"),
                    system_name()
                ))
                .timeout(Duration::from_secs(20));
            if let Some(pem) = server_ca() {
                builder = builder.add_root_certificate(reqwest::Certificate::from_pem(&pem).ok()?);
            }
            builder.build().ok()
        })
        .as_ref()
}

/// Saves `text` as a file named `name` in the Downloads folder (the home folder without
/// one), never over another file: the path it was saved at, or None when it could not be.
pub fn save_file(name: &str, text: &str) -> Option<String> {
    let folder = dirs::download_dir().or_else(dirs::home_dir)?;
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    for n in 0..100 {
        let file = match n {
            0 => name.to_owned(),
            n => format!("{stem} ({n}).{extension}"),
        };
        let path = folder.join(file);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                use std::io::Write;
                return f
                    .write_all(text.as_bytes())
                    .ok()
                    .map(|()| path.display().to_string());
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) => return None,
        }
    }
    None
}

/// One HTTP request to the server: the status and the body's text, or `Err` when no answer
/// came (no connection, 20 s without one). The session token goes as a bearer header.
pub async fn http(method: &str, path: &str, json: Option<String>) -> super::Answer {
    let method = reqwest::Method::from_bytes(method.as_bytes()).map_err(drop)?;
    let mut request = client()
        .ok_or(())?
        .request(method, format!("{}{path}", server_base()));
    if let Some(token) = super::session_token() {
        request = request.bearer_auth(token);
    }
    if let Some(json) = json {
        request = request
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(json);
    }
    let response = request.send().await.map_err(drop)?;
    let status = response.status().as_u16();
    Ok((status, response.text().await.map_err(drop)?))
}

/// The device's region: the first system locale that names a country (ON-A02).
pub fn region() -> String {
    let locales: Vec<String> = sys_locale::get_locales().collect();
    locales
        .iter()
        .find(|l| velha_api::country_of(l).is_some())
        .or(locales.first())
        .cloned()
        .unwrap_or_default()
}

/// The link's fragment, when the app was opened with one (`cubo-da-velha https://…#token`).
pub fn fragment() -> Option<String> {
    let link = std::env::args().nth(1)?;
    link.split_once('#').map(|(_, f)| f.to_owned())
}

/// The path of the link the app was started with (`cubo-da-velha https://…/partida/<id>`, as
/// a desktop's link handler starts it), else `/`.
pub fn opened_path() -> String {
    let Some(link) = std::env::args().nth(1) else {
        return "/".into();
    };
    let link = link.split(['#', '?']).next().unwrap_or_default().to_owned();
    match link.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |at| &rest[at..]).to_owned(),
        None => link,
    }
}

/// The desktop's own back stack: the places visited, the current one last.
struct BackStack {
    places: Vec<String>,
    moves: Option<futures_channel::mpsc::UnboundedSender<String>>,
}

/// Places kept to go back to; the oldest are forgotten first.
const MOST_PLACES: usize = 64;

fn back_stack() -> std::sync::MutexGuard<'static, BackStack> {
    static STACK: std::sync::Mutex<BackStack> = std::sync::Mutex::new(BackStack {
        places: Vec::new(),
        moves: None,
    });
    STACK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A new place on the back stack (unless it is the current one).
pub fn history_push(path: &str) {
    let mut stack = back_stack();
    if stack.places.last().map(String::as_str) != Some(path) {
        if stack.places.len() == MOST_PLACES {
            stack.places.remove(0);
        }
        stack.places.push(path.to_owned());
    }
}

/// The current place, renamed.
pub fn history_replace(path: &str) {
    let mut stack = back_stack();
    stack.places.pop();
    stack.places.push(path.to_owned());
}

/// Back to the previous place, if there is one: it arrives from [`history_moves`].
pub fn history_back() {
    let mut stack = back_stack();
    if stack.places.len() > 1 {
        stack.places.pop();
        let to = stack.places.last().cloned().unwrap_or_else(|| "/".into());
        if let Some(moves) = &stack.moves {
            let _ = moves.unbounded_send(to);
        }
    }
}

/// The places [`history_back`] goes back to, as it does. Called once.
pub fn history_moves() -> futures_channel::mpsc::UnboundedReceiver<String> {
    let (tx, rx) = futures_channel::mpsc::unbounded();
    back_stack().moves = Some(tx);
    rx
}

/// Opens a page in the system browser (the payment provider's, Google's); whether one opened.
pub async fn open_page(url: &str) -> bool {
    let url = url.to_owned();
    matches!(
        tokio::task::spawn_blocking(move || webbrowser::open(&url)).await,
        Ok(Ok(()))
    )
}

/// The whole address of a path of the server, as a link to share.
pub fn link_to(path: &str) -> String {
    format!("{}{path}", server_base())
}

/// The desktop has no share sheet here: the link is shown to copy.
pub fn share_link(_url: &str, _title: &str, mut done: dioxus::prelude::Signal<Option<bool>>) {
    use dioxus::prelude::WritableExt;
    done.set(Some(false));
}

/// Nothing is fetched after the start on native.
pub fn online_module_settled() {}

/// The painter is part of the app on native: nothing to wait for.
pub async fn after_the_asked_painter() {}
