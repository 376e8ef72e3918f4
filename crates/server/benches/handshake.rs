//! What the server's CPU pays for one TLS handshake, and so for a match whose two players each
//! open a live connection of their own over HTTP/1.1 (the peer bench's workload): the server's
//! own configuration (`tls::server_config`, the development certificate), a client that keeps
//! its tickets as a browser does, both in memory, so that only the server's side is timed and
//! no socket or scheduler adds to it. Prints the median of many handshakes of each kind: a
//! first one (the certificate signed) and a resumed one (a ticket, and still a fresh X25519
//! key exchange, which TLS 1.3 makes every time), and the key exchange alone. Asserts nothing
//! about time.
//!
//!   cargo bench -p velha-server --bench handshake

use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};
use velha_server::tls::{cert_files, server_config};

/// Handshakes of each kind timed; the median is printed.
const ROUNDS: usize = 2_000;

/// One handshake between a fresh client connection and a fresh server connection, moving the
/// bytes in memory; returns the time spent in the server's calls and whether it resumed.
fn handshake(
    server_config: &Arc<ServerConfig>,
    client_config: &Arc<ClientConfig>,
) -> (Duration, bool) {
    let name = ServerName::try_from("localhost").expect("a server name");
    let mut client = ClientConnection::new(client_config.clone(), name).expect("a client");
    let mut server_time = Duration::ZERO;
    let started = Instant::now();
    let mut server = ServerConnection::new(server_config.clone()).expect("a server");
    server_time += started.elapsed();
    let mut wire = Vec::new();
    // Until both are done and the server's ticket has reached the client.
    while client.is_handshaking() || server.is_handshaking() || server.wants_write() {
        wire.clear();
        while client.wants_write() {
            client.write_tls(&mut wire).expect("the client writes");
        }
        let started = Instant::now();
        let mut from_client = &wire[..];
        while !from_client.is_empty() {
            server.read_tls(&mut from_client).expect("the server reads");
            server
                .process_new_packets()
                .expect("the server takes the client's records");
        }
        let mut to_client = Vec::new();
        while server.wants_write() {
            server.write_tls(&mut to_client).expect("the server writes");
        }
        server_time += started.elapsed();
        let mut from_server = &to_client[..];
        while !from_server.is_empty() {
            client.read_tls(&mut from_server).expect("the client reads");
            client
                .process_new_packets()
                .expect("the client takes the server's records");
        }
    }
    let resumed = server.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
    (server_time, resumed)
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort_unstable();
    times[times.len() / 2].as_secs_f64() * 1e6
}

fn main() {
    let dir = tempfile::tempdir().expect("a folder for the development certificate");
    let files = cert_files(None, None, dir.path()).expect("the development certificate");
    let server_config = server_config(&files, false).expect("the server's configuration");
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(&files.cert).expect("the certificate's file") {
        roots.add(cert.expect("a certificate")).expect("a root");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let client_config = |resumes: bool| {
        let mut config = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("the client's versions")
            .with_root_certificates(roots.clone())
            .with_no_client_auth();
        if !resumes {
            config.resumption = rustls::client::Resumption::disabled();
        }
        Arc::new(config)
    };

    let first = client_config(false);
    let mut full = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let (time, resumed) = handshake(&server_config, &first);
        assert!(!resumed, "a client without tickets made a full handshake");
        full.push(time);
    }
    // One client, as one browser: each handshake resumes with the ticket of the one before.
    let returning = client_config(true);
    handshake(&server_config, &returning);
    let mut resumed = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let (time, was) = handshake(&server_config, &returning);
        assert!(was, "a client with a ticket resumed");
        resumed.push(time);
    }
    // The key exchange every TLS 1.3 handshake makes: the server's key pair and its agreement
    // with the client's share.
    let group = rustls::crypto::ring::kx_group::X25519;
    let peer = group.start().expect("a client's key pair");
    let mut exchange = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let started = Instant::now();
        let ours = group.start().expect("a key pair");
        ours.complete(peer.pub_key()).expect("an agreement");
        exchange.push(started.elapsed());
    }

    let (full, resumed, exchange) = (median(full), median(resumed), median(exchange));
    println!("the server's CPU, median of {ROUNDS} each (µs):");
    println!("  a first handshake (the certificate signed)        {full:8.1}");
    println!("  a resumed handshake (a ticket, a fresh key share) {resumed:8.1}");
    println!("  of which the X25519 key pair and agreement        {exchange:8.1}");
    println!(
        "  a match over HTTP/1.1 (two live connections, both resumed) {:8.1}",
        2.0 * resumed
    );
}
