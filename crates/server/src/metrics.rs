//! What an operator watches (docs/deploy.md, "Metrics"): Prometheus's text format at
//! `/metrics` on a listener of its own (`--metrics-listen`), apart from the players' port so it
//! is never exposed with it.
//!
//! Every label takes a bounded set of values: a route is the router's template (`/api/rooms/{id}`,
//! never the id), a method one of the standard ones, a limit one of the server's own names. So
//! no client can make the page, or the memory behind it, grow.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Where the page is served when `--metrics-listen` is not given: loopback only.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9464";

/// Seconds: from half a millisecond (a move's commit on SQLite) to ten seconds.
const SECONDS: &[f64] = &[
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0,
];
/// How many writes one commit of SQLite's writer carries.
const WRITES: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

/// Whether this process records metrics (its page is served).
static ON: AtomicBool = AtomicBool::new(false);

/// Whether this process records metrics: what costs a query is measured only then.
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Installs the process's recorder; the handle renders the page.
pub fn install() -> Result<PrometheusHandle, String> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS)
        .and_then(|b| b.set_buckets_for_metric(Matcher::Full(BATCH_WRITES.into()), WRITES))
        .and_then(|b| b.install_recorder())
        .map_err(|e| format!("cannot record metrics: {e}"))?;
    describe();
    ON.store(true, Ordering::Relaxed);
    let upkeep = handle.clone();
    // Histograms keep their samples until drained; this bounds them between scrapes.
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(5)).await;
            upkeep.run_upkeep();
        }
    });
    Ok(handle)
}

/// Requests answered, by route, method and status.
pub const REQUESTS: &str = "velha_http_requests_total";
/// How long requests took, by route.
pub const REQUEST_SECONDS: &str = "velha_http_request_seconds";
/// Live WebSocket connections on this process: players' and rooms'.
pub const CONNECTIONS: &str = "velha_live_connections";
/// Matches being played (the whole service's, read from the database).
pub const LIVE_MATCHES: &str = "velha_live_matches";
/// Rooms not closed (the whole service's, read from the database).
pub const OPEN_ROOMS: &str = "velha_open_rooms";
/// Moves committed by this process, by game.
pub const MOVES: &str = "velha_moves_committed_total";
/// How long a move's commit took.
pub const COMMIT_SECONDS: &str = "velha_move_commit_seconds";
/// Writes in each commit of SQLite's writer.
pub const BATCH_WRITES: &str = "velha_sqlite_batch_writes";
/// From an event's writing on one process to its arrival on another (PostgreSQL's NOTIFY).
pub const NOTIFY_SECONDS: &str = "velha_notify_lag_seconds";
/// The Velha's positions waiting for a thread.
pub const VELHA_QUEUE: &str = "velha_velha_queue";
/// Requests (and connections over an address's share) refused by a limit, by limit.
pub const RATE_LIMITED: &str = "velha_rate_limited_total";
/// Push notices waiting to be sent (the whole service's).
pub const PUSH_PENDING: &str = "velha_push_pending";
/// E-mails waiting to be sent by this process.
pub const MAIL_QUEUE: &str = "velha_mail_queue";
/// Push notices this process dropped because its queue was full.
pub const PUSH_DROPPED: &str = "velha_push_dropped_total";

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(REQUESTS, "Requests answered, by route, method and status");
    describe_histogram!(REQUEST_SECONDS, Unit::Seconds, "Time to answer, by route");
    describe_gauge!(
        CONNECTIONS,
        "Live WebSocket connections on this process, by kind"
    );
    describe_gauge!(LIVE_MATCHES, "Matches being played (the service's)");
    describe_gauge!(OPEN_ROOMS, "Rooms not closed (the service's)");
    describe_counter!(MOVES, "Moves committed by this process, by game");
    describe_histogram!(COMMIT_SECONDS, Unit::Seconds, "Time to commit a move");
    describe_histogram!(BATCH_WRITES, "Writes in each commit of SQLite's writer");
    describe_histogram!(
        NOTIFY_SECONDS,
        Unit::Seconds,
        "From an event's writing to its arrival on another process"
    );
    describe_gauge!(VELHA_QUEUE, "The Velha's positions waiting for a thread");
    describe_counter!(
        RATE_LIMITED,
        "Requests (and connections over an address's share) refused by a limit, by limit"
    );
    describe_gauge!(
        PUSH_PENDING,
        "Push notices waiting to be sent (the service's)"
    );
    describe_gauge!(MAIL_QUEUE, "E-mails waiting to be sent by this process");
    describe_counter!(
        PUSH_DROPPED,
        "Push notices this process dropped because its queue was full"
    );
}

/// Counts every request and times it, labelled by the route it matched.
pub async fn record_request(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| p.as_str())
        .to_owned();
    let method = match *request.method() {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        // A live socket over HTTP/2 (RFC 8441).
        Method::CONNECT => "CONNECT",
        _ => "other",
    };
    let started = Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    metrics::histogram!(REQUEST_SECONDS, "route" => route.clone())
        .record(started.elapsed().as_secs_f64());
    metrics::counter!(REQUESTS, "route" => route, "method" => method, "status" => status)
        .increment(1);
    response
}

/// Serves the page at `/metrics` on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, handle: PrometheusHandle) {
    let page = axum::Router::new()
        .route(
            "/metrics",
            axum::routing::get(move || {
                let handle = handle.clone();
                async move {
                    (
                        [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
                        handle.render(),
                    )
                }
            }),
        )
        .fallback(|| async { (StatusCode::NOT_FOUND, "only /metrics is here").into_response() });
    if let Err(e) = axum::serve(listener, page).await {
        tracing::error!(error = %e, "the metrics listener stopped");
    }
}

/// The metrics listener as configured: `None` when turned off. The default address is tried
/// only: taken (another process on this host), the server serves without its page and says so.
pub async fn listener(configured: Option<&str>) -> Result<Option<tokio::net::TcpListener>, String> {
    let (address, insist) = match configured {
        Some("off") => return Ok(None),
        Some(address) => (address, true),
        None => (DEFAULT_LISTEN, false),
    };
    let address: SocketAddr = address
        .parse()
        .map_err(|_| format!("--metrics-listen {address:?} is not an address and port, nor off"))?;
    match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => Ok(Some(listener)),
        Err(e) if !insist => {
            tracing::warn!(%address, error = %e, "no metrics page: give --metrics-listen another address");
            Ok(None)
        }
        Err(e) => Err(format!("cannot serve the metrics on {address}: {e}")),
    }
}
