//! The session token on a device with the native build: in the operating system's credential
//! store (Secret Service, Keychain, Credential Manager), or — only where there is none, as on
//! a desktop without a keyring daemon or on Android — in a file only this user can read, which
//! the log mentions. Read once and then held in memory: every request sends it.

use std::sync::Mutex;
use std::sync::mpsc;
use std::time::Duration;

const SERVICE: &str = "cubo-da-velha";
const ACCOUNT: &str = "session";
/// The file's key in the app's data folder.
const FILE_KEY: &str = "session";
/// A store that does not answer by then (a bus waiting to start a daemon that never comes) is
/// treated as absent, so the interface never waits long on it.
const STORE_PATIENCE: Duration = Duration::from_secs(3);

/// What the credential store said.
#[derive(Debug)]
enum Store<T> {
    /// It answered.
    Answered(T),
    /// There is no usable store here; why.
    Absent(String),
}

/// Runs `job` on the credential store, away from the interface's thread.
#[cfg(any(target_os = "linux", target_os = "macos", target_os = "ios", windows))]
fn store<T: Send + 'static>(
    job: impl FnOnce(&keyring::Entry) -> keyring::Result<T> + Send + 'static,
) -> Store<Option<T>> {
    let (sent, answer) = mpsc::channel();
    std::thread::spawn(move || {
        let result = keyring::Entry::new(SERVICE, ACCOUNT).and_then(|entry| job(&entry));
        let _ = sent.send(result);
    });
    match answer.recv_timeout(STORE_PATIENCE) {
        Ok(Ok(value)) => Store::Answered(Some(value)),
        Ok(Err(keyring::Error::NoEntry)) => Store::Answered(None),
        Ok(Err(e)) => Store::Absent(e.to_string()),
        Err(_) => Store::Absent("the credential store did not answer".into()),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "ios", windows)))]
fn store<T>(_job: impl FnOnce(&()) -> Result<T, ()>) -> Store<Option<T>> {
    Store::Absent("this platform has no credential store the app uses".into())
}

/// The token as last read or kept: `None` until first read.
static HELD: Mutex<Option<Option<String>>> = Mutex::new(None);

fn say_file(why: &str) {
    let file = super::native::path(FILE_KEY);
    eprintln!(
        "cubo-da-velha: no credential store ({why}); the session is kept in {} (readable only by \
         this user)",
        file.map_or_else(|| "no file".into(), |p| p.display().to_string())
    );
}

/// The session token kept on this device, if any.
pub fn session_token() -> Option<String> {
    let mut held = HELD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(token) = held.as_ref() {
        return token.clone();
    }
    let file = super::native::load(FILE_KEY).filter(|t| !t.is_empty());
    let token = match store(|entry| entry.get_password()) {
        Store::Answered(Some(token)) => Some(token),
        // A token kept in the file before the store existed (or was reachable) still counts.
        Store::Answered(None) | Store::Absent(_) => file,
    };
    *held = Some(token.clone());
    token
}

/// Keeps the session token (or forgets it), in the credential store where there is one.
pub fn keep_session_token(token: Option<&str>) {
    let mut held = HELD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *held = Some(token.map(str::to_owned));
    let kept = match token.map(str::to_owned) {
        Some(t) => store(move |entry| entry.set_password(&t)),
        None => store(|entry| entry.delete_credential()),
    };
    match (kept, token) {
        (Store::Answered(_), _) | (Store::Absent(_), None) => remove_file(),
        (Store::Absent(why), Some(token)) => {
            say_file(&why);
            write_file(token);
        }
    }
}

fn remove_file() {
    if let Some(path) = super::native::path(FILE_KEY) {
        let _ = std::fs::remove_file(path);
    }
}

/// Written beside and renamed over, created readable only by this user.
fn write_file(token: &str) {
    let Some(path) = super::native::path(FILE_KEY) else {
        return;
    };
    let Some(dir) = path.parent() else { return };
    let temporary = path.with_extension("new");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let _ = std::fs::create_dir_all(dir)
        .and_then(|()| options.open(&temporary))
        .and_then(|mut f| std::io::Write::write_all(&mut f, token.as_bytes()))
        .and_then(|()| std::fs::rename(&temporary, &path));
}
