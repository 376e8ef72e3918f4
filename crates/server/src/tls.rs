//! HTTPS: the configured certificate, or a self-signed development certificate made on the
//! first run and kept in the data folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// Where the certificate and key come from.
pub struct CertFiles {
    /// PEM certificate chain.
    pub cert: PathBuf,
    /// PEM private key.
    pub key: PathBuf,
}

/// The configured files, or the development pair in `data_dir` (made if missing).
pub fn cert_files(
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    data_dir: &Path,
) -> Result<CertFiles, String> {
    match (cert, key) {
        (Some(cert), Some(key)) => Ok(CertFiles { cert, key }),
        (None, None) => {
            let cert = data_dir.join("dev-cert.pem");
            let key = data_dir.join("dev-key.pem");
            if !cert.exists() || !key.exists() {
                make_dev_cert(&cert, &key)?;
                tracing::info!(cert = %cert.display(), "made a self-signed development certificate");
            }
            Ok(CertFiles { cert, key })
        }
        _ => Err("--tls-cert and --tls-key go together: give both or neither".to_owned()),
    }
}

fn make_dev_cert(cert: &Path, key: &Path) -> Result<(), String> {
    let names = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    let made = rcgen::generate_simple_self_signed(names).map_err(|e| e.to_string())?;
    let write = |path: &Path, text: String| {
        // Written beside and renamed, so a crash never leaves half a certificate.
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(key, made.key_pair.serialize_pem())?;
    write(cert, made.cert.pem())
}

/// The rustls configuration for these files: HTTP/1.1, and HTTP/2 first when `http2`.
pub fn server_config(files: &CertFiles, http2: bool) -> Result<Arc<ServerConfig>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&files.cert)
        .and_then(|it| it.collect())
        .map_err(|e| {
            format!(
                "cannot read certificates from {}: {e}",
                files.cert.display()
            )
        })?;
    if certs.is_empty() {
        return Err(format!("{} holds no certificate", files.cert.display()));
    }
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| {
        format!(
            "cannot read a private key from {}: {e}",
            files.key.display()
        )
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("the certificate and key do not fit: {e}"))?;
    // A browser offered HTTP/2 takes it: the page's files, the API and the live sockets (RFC
    // 8441) then share one connection and one handshake (config.rs's --http2 says the price).
    config.alpn_protocols = if http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    // Tickets the server keeps nothing of (sealed with a key rotated every 6 hours), so that a
    // player coming back resumes however many connected since: rustls's default remembers the
    // last 256 sessions, a few seconds' worth of a busy server's connections, and a cache of
    // 4 096 took 10 MB more at the peer bench's peak. The price, as with nginx's own
    // tickets: a TLS 1.2 client's ticket carries its session's secret under that key, so
    // whoever took the key from the process's memory could read such a recorded session. A
    // TLS 1.3 one (every browser and the app) resumes with a fresh key exchange and is not.
    config.ticketer = rustls::crypto::ring::Ticketer::new()
        .map_err(|e| format!("cannot make the TLS tickets' key: {e}"))?;
    // A client resumes with one ticket and gets a fresh one with each connection; the default
    // second ticket was a key derivation, a cache entry and a record for every connection,
    // used by nobody.
    config.send_tls13_tickets = 1;
    Ok(Arc::new(config))
}
