//! The operator's page (docs/deploy.md, "Metrics"): Prometheus's text format on a listener of
//! its own, its counters moving with the traffic, readiness apart from liveness, and nothing
//! else served there.

use std::collections::HashMap;
use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::common::{Db, Server, bin, limited_at_once};
use crate::live::{meet, moved};

/// A loopback port free now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The page's samples: `name{labels}` → value. Every line that is not a comment must be one.
async fn scrape(port: u16) -> HashMap<String, f64> {
    let answer = reqwest::get(format!("http://127.0.0.1:{port}/metrics"))
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let kind = answer.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(kind.starts_with("text/plain; version=0.0.4"), "{kind}");
    let page = answer.text().await.unwrap();
    page.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (sample, value) = l.rsplit_once(' ').unwrap_or_else(|| panic!("{l:?}"));
            let value: f64 = value.parse().unwrap_or_else(|_| panic!("{l:?}"));
            (sample.to_owned(), value)
        })
        .collect()
}

/// The page once `done` holds of it, or after `tries` scrapes 100 ms apart.
async fn scrape_until(
    port: u16,
    tries: usize,
    done: impl Fn(&HashMap<String, f64>) -> bool,
) -> HashMap<String, f64> {
    let mut page = scrape(port).await;
    for _ in 1..tries {
        if done(&page) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        page = scrape(port).await;
    }
    page
}

/// The sum of the samples of `name` whose labels hold every one of `labels`.
fn sum(page: &HashMap<String, f64>, name: &str, labels: &[&str]) -> f64 {
    page.iter()
        .filter(|(k, _)| k.split('{').next() == Some(name) && labels.iter().all(|l| k.contains(l)))
        .map(|(_, v)| v)
        .sum()
}

async fn metrics_counters_move_with_the_traffic(db: Db) {
    let sqlite = matches!(db, Db::Sqlite);
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let server = Server::start(
        db,
        &[
            "--metrics-listen",
            &listen,
            "--rooms-per-address-per-hour",
            "2",
            "--forwarded-for-header",
            "x-forwarded-for",
        ],
    )
    .await;
    let before = scrape(port).await;
    let health = ["route=\"/api/health\"", "status=\"200\""];
    let c = server.client();
    for _ in 0..3 {
        let (status, _) = c.raw(Method::GET, "/api/health", None).await.unwrap();
        assert_eq!(status, 200);
    }
    let (status, _) = c.raw(Method::GET, "/api/ready", None).await.unwrap();
    assert_eq!(status, 200, "ready: the database answers and is up to date");
    // A path nobody routes is counted under its route's template, never the path itself.
    for path in ["/api/no-such-1", "/api/no-such-2"] {
        let (status, _) = c.raw(Method::GET, path, None).await.unwrap();
        assert_eq!(status, 404);
    }
    // A live match: two connections, three moves committed.
    let (_x, mut xl, _o, mut ol, id) = meet(&server, 1).await;
    moved(&mut xl, &mut ol, &id, 0, &["a1"]).await;
    moved(&mut ol, &mut xl, &id, 1, &["c3"]).await;
    moved(&mut xl, &mut ol, &id, 2, &["a2"]).await;
    // Rooms refused by the rate limit.
    let room = json!({ "board": "super", "name": "Ana" }).to_string();
    limited_at_once(&server, "/api/rooms", "203.0.113.9", vec![room; 5], 2).await;

    // The service's sizes are counted every 5 s: a count from after the rooms were made.
    let after = scrape_until(port, 150, |page| {
        sum(page, "velha_live_matches", &[]) >= 1.0 && sum(page, "velha_open_rooms", &[]) >= 2.0
    })
    .await;
    let grew = |name: &str, labels: &[&str]| sum(&after, name, labels) - sum(&before, name, labels);
    assert!(grew("velha_http_requests_total", &health) >= 3.0);
    assert!(grew("velha_http_requests_total", &["status=\"404\""]) >= 2.0);
    assert!(
        !after.keys().any(|k| k.contains("no-such")),
        "no path as a label"
    );
    assert!(grew("velha_http_request_seconds_count", &health[..1]) >= 3.0);
    assert_eq!(grew("velha_moves_committed_total", &["game=\"cube\""]), 3.0);
    assert!(grew("velha_move_commit_seconds_count", &[]) >= 3.0);
    assert_eq!(
        sum(&after, "velha_live_connections", &["kind=\"player\""]),
        2.0
    );
    assert_eq!(
        grew(
            "velha_rate_limited_total",
            &["limit=\"too many new rooms from this address\""]
        ),
        3.0
    );
    assert!(sum(&after, "velha_live_matches", &[]) >= 1.0);
    assert!(sum(&after, "velha_open_rooms", &[]) >= 2.0);
    if sqlite {
        assert!(grew("velha_sqlite_batch_writes_count", &[]) >= 3.0);
    }
    drop((xl, ol));
    let gone = scrape_until(port, 50, |page| {
        sum(page, "velha_live_connections", &["kind=\"player\""]) == 0.0
    })
    .await;
    assert_eq!(
        sum(&gone, "velha_live_connections", &["kind=\"player\""]),
        0.0
    );

    // Only the page is served there.
    let plain = reqwest::Client::new();
    let other = plain
        .get(format!("http://127.0.0.1:{port}/api/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 404);
    let post = plain
        .post(format!("http://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 405);
}
on_both!(metrics_counters_move_with_the_traffic);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_a_listen_address_that_is_none_is_refused_clearly() {
    for (value, said) in [
        ("nonsense", "not an address and port"),
        ("127.0.0.1:99999", "not an address and port"),
    ] {
        let data = tempfile::tempdir().unwrap();
        let out = tokio::process::Command::new(bin())
            .args(["--data-dir"])
            .arg(data.path())
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", value])
            .env_remove("DATABASE_URL")
            .output()
            .await
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && text.contains(said),
            "{value}: {text}"
        );
    }
    // An address in use, asked for by name, is an error too; off starts without the page.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let data = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(bin())
        .arg("--data-dir")
        .arg(data.path())
        .args(["--listen", "127.0.0.1:0", "--metrics-listen"])
        .arg(format!("127.0.0.1:{port}"))
        .env_remove("DATABASE_URL")
        .output()
        .await
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && text.contains("cannot serve the metrics"),
        "{text}"
    );
    let server = Server::start(Db::Sqlite, &["--metrics-listen", "off"]).await;
    let (status, _) = server
        .client()
        .raw(Method::GET, "/api/ready", None)
        .await
        .unwrap();
    assert_eq!(status, 200);
}
