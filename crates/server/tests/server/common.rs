//! Real servers for the tests: the `velha-server` binary on loopback, over HTTPS, on a fresh
//! SQLite file or a fresh PostgreSQL database, with short clocks; killed with SIGKILL and
//! started again on the same port and data when a test says so.

use std::process::Stdio;
use std::time::Duration;

use sqlx::{Connection, Executor};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use velha_api::{ErrorCode, ServerMsg, Session};
use velha_load::{Client, Live};

/// Which database a server uses.
#[derive(Clone, Debug)]
pub enum Db {
    /// A SQLite file in the server's data folder.
    Sqlite,
    /// A fresh database on the PostgreSQL server the test script started.
    Postgres(String),
}

impl Db {
    /// A fresh PostgreSQL database, or None when the developer chose to skip PostgreSQL.
    pub async fn postgres() -> Option<Db> {
        let Ok(admin) = std::env::var("VELHA_TEST_POSTGRES_URL") else {
            if std::env::var("VELHA_TEST_POSTGRES").as_deref() == Ok("skip") {
                eprintln!("PostgreSQL skipped (VELHA_TEST_POSTGRES=skip)");
                return None;
            }
            panic!(
                "VELHA_TEST_POSTGRES_URL is not set: run scripts/test.sh, which starts a \
                 PostgreSQL, or set VELHA_TEST_POSTGRES=skip to run on SQLite alone"
            );
        };
        sqlx::any::install_default_drivers();
        let name = format!(
            "velha_{}",
            velha_server::token::new_id()
                .to_lowercase()
                .replace(['-', '_'], "x")
        );
        let mut conn = sqlx::AnyConnection::connect(&admin)
            .await
            .expect("connect to the test PostgreSQL");
        conn.execute(format!("CREATE DATABASE {name}").as_str())
            .await
            .expect("create a test database");
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
        Some(Db::Postgres(format!("{base}/{name}")))
    }
}

/// A running server.
pub struct Server {
    child: Option<Child>,
    /// Its data folder (SQLite file, certificate).
    pub dir: tempfile::TempDir,
    /// `https://127.0.0.1:PORT`.
    pub base: String,
    /// Its certificate, PEM.
    pub cert: Vec<u8>,
    db: Db,
    extra: Vec<String>,
    listen: String,
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_velha-server")
}

impl Server {
    /// Starts a server on a free port with these extra flags.
    pub async fn start(db: Db, extra: &[&str]) -> Server {
        Server::start_in(tempfile::tempdir().expect("temp dir"), db, extra).await
    }

    /// Starts a server on a data folder made beforehand (a restored backup's, say).
    pub async fn start_in(dir: tempfile::TempDir, db: Db, extra: &[&str]) -> Server {
        let mut server = Server {
            child: None,
            dir,
            base: String::new(),
            cert: Vec::new(),
            db,
            extra: extra.iter().map(|s| s.to_string()).collect(),
            listen: "127.0.0.1:0".to_owned(),
        };
        server.spawn().await;
        server
    }

    fn command(&self) -> Command {
        let mut c = Command::new(bin());
        c.arg("--data-dir").arg(self.dir.path());
        match &self.db {
            Db::Sqlite => c.env_remove("DATABASE_URL"),
            Db::Postgres(url) => c.env("DATABASE_URL", url),
        };
        c
    }

    async fn spawn(&mut self) {
        let mut c = self.command();
        c.args(["--listen", &self.listen]);
        if !self.extra.iter().any(|a| a == "--argon2-memory-kib") {
            c.args(["--argon2-memory-kib", "256"]);
        }
        // Only a test that reads the metrics page has one: the others leave the port alone.
        if !self.extra.iter().any(|a| a == "--metrics-listen") {
            c.args(["--metrics-listen", "off"]);
        }
        c.args(&self.extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = c.spawn().expect("start velha-server");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("the server did not start within 60 s")
            .expect("read stdout")
            .expect("the server exited before listening");
        let base = line
            .strip_prefix("velha-server listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        self.listen = base
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .to_owned();
        let plain = base.starts_with("http://");
        self.base = base;
        let cert = match self.extra.iter().position(|a| a == "--tls-cert") {
            Some(i) => std::path::PathBuf::from(&self.extra[i + 1]),
            None => self.dir.path().join("dev-cert.pem"),
        };
        if !plain {
            self.cert = std::fs::read(cert).expect("the server's certificate");
        }
        self.child = Some(child);
    }

    /// A fresh database of the same kind as this server's.
    pub async fn fresh_db(&self) -> Db {
        match &self.db {
            Db::Sqlite => Db::Sqlite,
            Db::Postgres(_) => Db::postgres().await.expect("PostgreSQL"),
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child
            .as_ref()
            .and_then(|c| c.id())
            .expect("the server is running")
    }

    /// The server's resident memory now (VmRSS), in KiB.
    pub fn resident_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("read the server's /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS in /proc status")
    }

    /// SIGKILL: no shutdown, no flushing.
    pub async fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.start_kill().expect("kill");
            let _ = child.wait().await;
        }
    }

    /// Starts the server again on the same port and data.
    pub async fn restart(&mut self) {
        self.kill9().await;
        self.spawn().await;
    }

    /// Another process on `db` (this one's database), under this one's certificate so that
    /// one client reaches both, with these extra flags.
    pub async fn beside(&self, db: Db, extra: &[&str]) -> Server {
        let cert = self.dir.path().join("dev-cert.pem").display().to_string();
        let key = self.dir.path().join("dev-key.pem").display().to_string();
        let mut flags = vec!["--tls-cert", &cert, "--tls-key", &key];
        flags.extend_from_slice(extra);
        Server::start(db, &flags).await
    }

    /// Starts it again after `terminate` or `kill9`, on the same port and data.
    pub async fn start_again(&mut self) {
        assert!(self.child.is_none(), "still running");
        self.spawn().await;
    }

    /// Sends the running server a signal by name (`STOP`, `CONT`).
    pub fn signal(&self, name: &str) {
        let pid = self.child.as_ref().and_then(|c| c.id()).expect("running");
        let sent = std::process::Command::new("kill")
            .args(["-s", name, &pid.to_string()])
            .status()
            .expect("kill");
        assert!(sent.success(), "kill -s {name} {pid}");
    }

    /// SIGTERM, and the exit status.
    pub async fn terminate(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        let pid = child.id().expect("pid");
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        tokio::time::timeout(Duration::from_secs(30), child.wait())
            .await
            .expect("the server did not stop within 30 s")
            .expect("wait")
    }

    /// A new client, not signed in.
    pub fn client(&self) -> Client {
        Client::new(&self.base, &self.cert).expect("client")
    }

    /// Runs `velha-server admin …` on this server's database: (success, stdout + stderr).
    pub async fn admin(&self, args: &[&str]) -> (bool, String) {
        let out = self
            .command()
            .arg("admin")
            .args(args)
            .output()
            .await
            .expect("run admin");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    /// A connection to the server's database, for tests that look at what is stored.
    pub async fn database(&self) -> sqlx::AnyConnection {
        sqlx::any::install_default_drivers();
        sqlx::AnyConnection::connect(&self.database_url())
            .await
            .expect("open the database")
    }

    /// The database URL.
    pub fn database_url(&self) -> String {
        match &self.db {
            Db::Sqlite => format!("sqlite://{}", self.dir.path().join("velha.db").display()),
            Db::Postgres(url) => url.clone(),
        }
    }

    /// Signs up a player (password `cubo-gira-9`) and, when `until` is given, makes them a
    /// subscriber through that date.
    pub async fn player(&self, name: &str, region: &str, until: Option<&str>) -> Client {
        let mut c = self.client();
        let s: Session = c
            .sign_up(&format!("{name}@example.com"), "cubo-gira-9", name, region)
            .await
            .unwrap_or_else(|e| panic!("sign up {name}: {e}"));
        assert_eq!(s.account.name, name);
        if let Some(date) = until {
            let (ok, text) = self
                .admin(&["subscription", "grant", name, "--until", date])
                .await;
            assert!(ok, "{text}");
        }
        c
    }
}

/// Waits up to 5 s for a message `wanted` accepts.
pub async fn expect(live: &mut Live, what: &str, wanted: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
    live.recv_until(Duration::from_secs(5), wanted)
        .await
        .unwrap_or_else(|e| panic!("waiting for {what}: {e}"))
}

/// Waits up to 5 s for the next message, which must be a refusal with `code`; `context` says
/// which case failed.
pub async fn expect_refusal(live: &mut Live, code: ErrorCode, context: &str) {
    let refused = expect(live, "a refusal", |_| true).await;
    assert!(
        matches!(refused, ServerMsg::Error { code: got, .. } if got == code),
        "{context}: {refused:?}"
    );
}

/// Defines a test twice, on SQLite and on PostgreSQL: `rule_test::sqlite`,
/// `rule_test::postgres`.
macro_rules! on_both {
    ($name:ident) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(crate::common::Db::Sqlite).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if let Some(db) = crate::common::Db::postgres().await {
                    super::$name(db).await;
                }
            }
        }
    };
}

/// Whether a room's live connection opens again within 5 s: the place of one that closed
/// comes back once the server (or the balancer) has let it go.
pub async fn room_live_again(c: &Client, room: &str) -> bool {
    for _ in 0..50 {
        if c.room_live(room, "").await.is_ok() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// POSTs every body to `path` at once, each from a client of its own, from `address` as the
/// proxy tells it: the answers, in the bodies' order.
pub async fn posted_at_once(
    server: &Server,
    path: &str,
    address: &str,
    bodies: Vec<String>,
) -> Vec<(u16, reqwest::header::HeaderMap, serde_json::Value)> {
    futures_util::future::join_all(bodies.into_iter().map(|body| {
        let c = server.client();
        async move {
            let headers = [("x-forwarded-for", address)];
            c.raw_with_headers(reqwest::Method::POST, path, &headers, Some(&body))
                .await
                .unwrap()
        }
    }))
    .await
}

/// Fires one POST of each body at once from `address` (the proxy's header says it): exactly
/// `allowed` are made (201), every other is refused as rate-limited.
pub async fn limited_at_once(
    server: &Server,
    path: &str,
    address: &str,
    bodies: Vec<String>,
    allowed: usize,
) {
    let answers = posted_at_once(server, path, address, bodies).await;
    let statuses: Vec<u16> = answers.iter().map(|(s, _, _)| *s).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        allowed,
        "{address}: {statuses:?}"
    );
    for (_, _, refusal) in answers.iter().filter(|(s, _, _)| *s != 201) {
        assert_eq!(refusal["code"], "rate_limited", "{address}: {refusal}");
    }
}

/// Sends a frame one byte over the limit and reads the close: its code and reason.
pub async fn send_oversized<Out: serde::Serialize, In: serde::de::DeserializeOwned>(
    socket: &mut velha_load::Socket<Out, In>,
) -> (u16, String) {
    let big = format!(
        r#"{{"type":"ping","pad":"{}"}}"#,
        "x".repeat(velha_api::MAX_LIVE_FRAME)
    );
    socket.send_text(&big).await.unwrap();
    socket
        .closed(Duration::from_secs(5))
        .await
        .unwrap()
        .expect("a close frame")
}

/// A stand-in of an outside service (tests/standins/<script>) run as a child process for the
/// test's length: what it printed first (a JSON line), and its calls (`POST /_standin/<method>`
/// with the keyword arguments as JSON).
pub struct StandIn {
    _child: Child,
    /// Its first line.
    pub said: serde_json::Value,
    /// Its address.
    pub url: String,
    http: reqwest::Client,
}

impl StandIn {
    pub async fn start(script: &str) -> StandIn {
        let path = format!(
            "{}/../../tests/standins/{script}",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut child = Command::new("python3")
            .arg(&path)
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("python3 runs {script}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .await
            .unwrap();
        let said: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{script}'s first line: {e}"));
        StandIn {
            _child: child,
            url: said["url"].as_str().unwrap().to_owned(),
            said,
            http: reqwest::Client::new(),
        }
    }

    pub async fn call(&self, method: &str, args: serde_json::Value) -> serde_json::Value {
        let answer = self
            .http
            .post(format!("{}/_standin/{method}", self.url))
            .json(&args)
            .send()
            .await
            .unwrap();
        assert!(
            answer.status().is_success(),
            "stand-in {method}: {answer:?}"
        );
        answer.json().await.unwrap()
    }
}

/// A web app's player: Ana signed up by a browser, which keeps her session in a cookie; the
/// client and that cookie (`name=value`).
pub async fn signed_up_by_cookie(server: &Server) -> (Client, String) {
    let web = server.client();
    let body = r#"{"email":"ana@example.com","password":"cubo-gira-9","name":"Ana","region":"pt-BR","cookie":true}"#;
    let (status, headers, _) = web
        .raw_with_headers(reqwest::Method::POST, "/api/accounts", &[], Some(body))
        .await
        .unwrap();
    assert_eq!(status, 201);
    let cookie = headers["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    (web, cookie)
}

/// A TLS connection to `server`, trusting its certificate, offering these ALPN protocols.
pub async fn tls_offering(
    server: &Server,
    offered: &[&[u8]],
) -> tokio_rustls::client::TlsStream<tokio::net::TcpStream> {
    try_tls_offering(server, offered).await.unwrap()
}

/// The same, or why the server did not take it (one past `--max-connections` is closed as
/// soon as it is accepted).
pub async fn try_tls_offering(
    server: &Server,
    offered: &[&[u8]],
) -> std::io::Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>> {
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(&server.cert) {
        roots.add(cert.unwrap()).unwrap();
    }
    let mut config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = offered.iter().map(|p| p.to_vec()).collect();
    let tcp = tokio::net::TcpStream::connect(server.base.trim_start_matches("https://")).await?;
    tokio_rustls::TlsConnector::from(std::sync::Arc::new(config))
        .connect("localhost".try_into().unwrap(), tcp)
        .await
}

/// A small deterministic generator, so a failure can be replayed.
pub struct Random(pub u64);

impl Random {
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}
