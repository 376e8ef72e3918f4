//! The server: shared state, the routes with their OpenAPI document, and serving them over
//! HTTPS until a shutdown signal.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{Extensions, HeaderMap, HeaderValue, StatusCode, Version};
use axum::response::IntoResponse;
use axum::routing::{any, connect, get};
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use velha_api::{
    ClientMsg, ErrorCode, GoogleDesktop, GoogleOptions, Period, Plan, RoomClientMsg, RoomServerMsg,
    ServerMsg, SignInOptions,
};

use crate::admission::{self, Admission};
use crate::config::{PaymentsProvider, PlanPeriod, Serve, Storage};
use crate::error::AppError;
use crate::google::Google;
use crate::headers;
use crate::limits::{Limits, Turns, Window};
use crate::live::{Clocks, Hub, VelhaPool};
use crate::mail::Mailer;
use crate::passwords::Passwords;
use crate::payments::stripe::Stripe;
use crate::payments::{Payments, Provider};
use crate::push::Push;
use crate::routes::{
    accounts, competitive, deletion, email, export, groups, lobby, push as push_routes, rankings,
    replays, reports, room_socket, rooms, sessions, socket, subscription,
};
use crate::store::Store;
use crate::tls;
use crate::tls_stream;
use crate::vapid::Vapid;
use crate::webpush::{self, WebPush};

/// What every request handler shares.
pub struct App {
    /// The database.
    pub store: Store,
    /// Connections and live matches.
    pub hub: Arc<Hub>,
    /// Password hashing.
    pub passwords: Passwords,
    /// Rate limits.
    pub limits: Limits,
    /// Google ID token verification.
    pub google: Google,
    /// Move and reconnection times.
    pub clocks: Clocks,
    /// How long a session lasts.
    pub session_ms: i64,
    /// How long a live connection (a player's or a room's) may say nothing before it is closed.
    pub silence: Duration,
    /// The proxy's header naming the client's country, if any.
    pub country_header: Option<axum::http::HeaderName>,
    /// The sessions whose use was written lately.
    pub sessions_seen: crate::devices::Seen,
    /// What the app is told of the ways to sign in.
    pub sign_in: SignInOptions,
    /// Turn notices for closed apps (docs/push.md).
    pub push: Box<dyn Push>,
    /// Seals the rankings' page cursors.
    pub cursors: rankings::Cursors,
    /// The subscription's seller, if one is configured.
    pub payments: Option<Payments>,
    /// The key Web Push requests are signed with.
    pub vapid: Arc<Vapid>,
    /// The push services devices' endpoints may be on.
    pub push_services: Vec<String>,
    /// E-mail to players, when an SMTP server is configured.
    pub mail: Option<Mailer>,
    /// Where each move's stages are written, when asked (`move_trace.rs`).
    pub move_trace: Option<crate::move_trace::MoveTrace>,
}

/// Google sign-in as configured: the web button needs the web client; the desktop client is
/// offered only beside it.
pub fn sign_in_options(serve: &Serve) -> SignInOptions {
    let google = serve
        .google_client_id
        .as_ref()
        .map(|client_id| GoogleOptions {
            client_id: client_id.clone(),
            script_url: serve.google_script_url.to_string(),
            desktop: serve
                .google_desktop_client_id
                .as_ref()
                .map(|desktop| GoogleDesktop {
                    client_id: desktop.clone(),
                    client_secret: serve.google_desktop_client_secret.clone(),
                    authorization_url: serve.google_authorization_url.to_string(),
                    token_url: serve.google_token_url.to_string(),
                }),
        });
    SignInOptions {
        google,
        email: serve.smtp_url.is_some(),
    }
}

struct SessionAuth;

impl Modify for SessionAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
        components.add_security_scheme(
            "session_cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(
                crate::auth::SESSION_COOKIE,
            ))),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Cubo da Velha",
        description = "Accounts, the lobby, live cube matches and the rankings. Every error answers an ApiError \
            body, also those any request may get besides the ones listed with it: 405 \
            method_not_allowed, 408 timeout (the request took longer than the server allows), \
            413 too_large (a body over 2 MB), 415 unsupported_media_type (a body that is not \
            application/json). API answers are never to be cached (Cache-Control: no-store). \
            A session is a bearer token, or for the web app the HttpOnly session cookie that \
            signing in with `cookie: true` sets; a request that changes anything and is signed \
            in only by the cookie must come from this site's pages (403 forbidden otherwise). \
            Live play is the WebSocket at /api/live (ClientMsg and ServerMsg); a room's, at \
            /api/rooms/{id}/live (RoomClientMsg and RoomServerMsg)."
    ),
    modifiers(&SessionAuth),
    components(schemas(ClientMsg, ServerMsg, RoomClientMsg, RoomServerMsg)),
    tags(
        (name = "accounts", description = "Sign up, sign in, the player's account (ON-A01, ON-A02)"),
        (name = "lobby", description = "Open cube matches (ON-M01, ON-M02); subscribers only (ON-A03)"),
        (name = "live", description = "The WebSocket of live matches (ON-M03 … ON-M05)"),
        (name = "rankings", description = "World and national rankings per level (ON-K01 … ON-K04); signed-in players"),
        (name = "groups", description = "Mini-ranking groups and their matches (ON-G01 … ON-G09); subscribers only"),
        (name = "rooms", description = "Invitation rooms (ON-R01 … ON-R05, CLASSIC-R08 … R13); free, no account needed"),
        (name = "competitive", description = "Jogo da Velha 2.0's competitive mode: the queue by rating and the leaderboard (ON-V01, ON-V02); signed-in players"),
        (name = "replays", description = "Finished games move by move (ON-P01); public to whoever holds the link"),
        (name = "push", description = "Turn notices while the app is closed (docs/push.md): the VAPID key and a device's push subscription"),
        (name = "subscription", description = "Buying the subscription (ON-A03): the plan, checkout, the provider's portal, and the provider's signed notices"),
        (name = "moderation", description = "Players' reports of other players (docs/moderation.md); signed-in players"),
    )
)]
struct ApiDoc;

/// Whether the process is up (liveness: restart it if not); the database is not asked.
#[utoipa::path(
    get,
    path = "/api/health",
    tag = "accounts",
    responses((status = 200, description = "The process answers", body = String))
)]
async fn health() -> &'static str {
    "ok"
}

/// Whether the process can serve players (readiness: send it players only if so): its
/// database answers and holds every migration this version knows.
#[utoipa::path(
    get,
    path = "/api/ready",
    tag = "accounts",
    responses(
        (status = 200, description = "Ready", body = String),
        (status = 503, description = "The database does not answer, or is not up to date", body = velha_api::ApiError),
    )
)]
async fn ready(
    axum::extract::State(app): axum::extract::State<Arc<App>>,
) -> Result<&'static str, AppError> {
    let unready = |why: String| AppError::new(ErrorCode::NotReady, why);
    if app.hub.drain.is_on() {
        return Err(unready("this process is stopping".into()));
    }
    let schema = app.store.schema_version().await.map_err(|e| {
        tracing::warn!(error = %e, "not ready: the database does not answer");
        unready("the database does not answer".into())
    })?;
    let latest = crate::store::latest_migration();
    if schema < latest {
        return Err(unready(format!(
            "the database is at migration {schema}, this version needs {latest}"
        )));
    }
    Ok("ready")
}

async fn no_such_path() -> AppError {
    AppError::new(ErrorCode::NotFound, "no such API path")
}

/// How the routes answer besides their handlers.
pub struct Answering {
    /// The connections at once, among which a file being sent takes a place too.
    pub admission: Arc<Admission>,
    /// Folder of the web build, served at /.
    pub web_root: Option<PathBuf>,
    /// Whether to send HSTS (only with a real certificate: a browser that saw it would refuse
    /// a self-signed one for a year).
    pub hsts: bool,
    /// How long a request may take.
    pub timeout: Duration,
    /// The Content-Security-Policy of every answer.
    pub policy: HeaderValue,
}

/// How many times an hour a player may download their data.
const EXPORTS_PER_HOUR: usize = 3;
/// How many other players a player may report in an hour.
const REPORTS_PER_HOUR: usize = 10;

/// The routes and the OpenAPI document that describes exactly them.
pub fn router(app: Arc<App>, answering: Answering) -> (Router, utoipa::openapi::OpenApi) {
    let (router, doc) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(accounts::sign_up))
        .routes(routes!(accounts::log_in))
        .routes(routes!(accounts::google))
        .routes(routes!(accounts::log_out))
        .routes(routes!(accounts::me, deletion::delete))
        .routes(routes!(accounts::set_region))
        .routes(routes!(accounts::set_country))
        .routes(routes!(accounts::link_google))
        .routes(routes!(accounts::rename_notice_seen))
        .routes(routes!(accounts::sign_in_options))
        .routes(routes!(sessions::list, sessions::end_others))
        .routes(routes!(sessions::end))
        .routes(routes!(sessions::change_password))
        .routes(routes!(export::export))
        .routes(routes!(email::verify))
        .routes(routes!(email::resend))
        .routes(routes!(email::forgot))
        .routes(routes!(email::reset))
        .routes(routes!(lobby::list, lobby::create))
        .routes(routes!(lobby::cancel))
        .routes(routes!(lobby::join))
        .routes(routes!(lobby::get))
        .routes(routes!(lobby::playing))
        .routes(routes!(rankings::page))
        .routes(routes!(rankings::mine))
        .routes(routes!(groups::mine, groups::create))
        .routes(routes!(groups::get, groups::finalize))
        .routes(routes!(groups::invite))
        .routes(routes!(groups::accept))
        .routes(routes!(groups::decline))
        .routes(routes!(groups::leave))
        .routes(routes!(groups::play_velha))
        .routes(routes!(rooms::mine, rooms::create))
        .routes(routes!(rooms::get))
        .routes(routes!(rooms::join))
        .routes(routes!(rooms::act_route))
        .routes(routes!(rooms::lookup))
        .routes(routes!(
            competitive::join,
            competitive::get,
            competitive::leave
        ))
        .routes(routes!(competitive::leaderboard))
        .routes(routes!(replays::of_match))
        .routes(routes!(replays::of_room_game))
        .routes(routes!(reports::file))
        .routes(routes!(room_socket::live))
        .routes(routes!(socket::live))
        .routes(routes!(push_routes::key))
        .routes(routes!(push_routes::subscribe))
        .routes(routes!(push_routes::unsubscribe))
        .routes(routes!(subscription::get))
        .routes(routes!(subscription::checkout))
        .routes(routes!(subscription::portal))
        .routes(routes!(subscription::webhook))
        .routes(routes!(health))
        .routes(routes!(ready))
        .with_state(app.clone())
        .split_for_parts();
    // Shared by every answer: a copy each (187 KB) was held for as long as a client left its
    // answer unread, 32 of them on each HTTP/2 connection.
    let json = axum::body::Bytes::from(doc.to_pretty_json().unwrap_or_default());
    let mut router = router
        .route(
            "/api/openapi.json",
            get(move || async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    json,
                )
            }),
        )
        // The live sockets as streams of an HTTP/2 connection (RFC 8441's extended CONNECT),
        // which a browser that holds one for the page uses instead of a connection (and a TLS
        // handshake) of their own. The document names their HTTP/1.1 upgrade: the same socket.
        .route("/api/live", connect(socket::live).with_state(app.clone()))
        .route(
            "/api/rooms/{id}/live",
            connect(room_socket::live).with_state(app),
        )
        .route("/api/{*rest}", any(no_such_path));
    router = match answering.web_root {
        Some(root) => {
            // Unknown paths get the app, which routes them itself (invitation links).
            let index = ServeFile::new(root.join("index.html"))
                .precompressed_br()
                .precompressed_gzip();
            // The build writes .br and .gz beside every asset: sent as they are.
            let files = ServeDir::new(root)
                .precompressed_br()
                .precompressed_gzip()
                .fallback(index);
            let files =
                Router::new()
                    .fallback_service(files)
                    .layer(axum::middleware::from_fn_with_state(
                        answering.admission,
                        admission::file_places,
                    ));
            router.fallback_service(files)
        }
        None => router.fallback(|| async { (StatusCode::NOT_FOUND, "not found").into_response() }),
    };
    let router = router
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            answering.timeout,
        ))
        .layer(axum::middleware::map_response(headers::error_bodies))
        // The API's JSON compressed on the fly; files are already (their .br/.gz), and the
        // live socket's upgrade must stay untouched. Outside the error rewrite, which must
        // read the framework's words as written and whose JSON is then compressed like any.
        .layer(
            CompressionLayer::new().compress_when(DefaultPredicate::new().and(
                |status: StatusCode, _: Version, _: &HeaderMap, _: &Extensions| {
                    status != StatusCode::SWITCHING_PROTOCOLS
                },
            )),
        )
        .layer(axum::middleware::from_fn_with_state(
            headers::Protection {
                hsts: answering.hsts,
                policy: answering.policy,
            },
            headers::protection,
        ))
        .layer(axum::middleware::from_fn(crate::metrics::record_request))
        .layer(axum::middleware::map_request(headers::host_from_authority))
        .layer(TraceLayer::new_for_http());
    (router, doc)
}

/// The database URL: the configured one, or the SQLite file in the data folder.
pub fn database_url(storage: &Storage) -> Result<String, String> {
    match &storage.database_url {
        Some(url) => Ok(url.clone()),
        None => {
            std::fs::create_dir_all(&storage.data_dir).map_err(|e| {
                format!(
                    "cannot make the data folder {}: {e}",
                    storage.data_dir.display()
                )
            })?;
            Ok(format!(
                "sqlite://{}?mode=rwc",
                storage.data_dir.join("velha.db").display()
            ))
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

/// The provider the flags configure, its secrets read from their files.
pub fn payments(serve: &Serve) -> Result<Option<Payments>, String> {
    let secret = |flag: &str, file: &Option<PathBuf>| -> Result<String, String> {
        let path = file
            .as_ref()
            .ok_or_else(|| format!("--payments-provider stripe needs {flag}"))?;
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {flag} {}: {e}", path.display()))?;
        match text.trim() {
            "" => Err(format!("{flag} {} is empty", path.display())),
            t => Ok(t.to_owned()),
        }
    };
    let provider: Box<dyn Provider> = match serve.payments_provider {
        PaymentsProvider::None => return Ok(None),
        PaymentsProvider::Stripe => {
            let key = secret("--stripe-secret-key-file", &serve.stripe_secret_key_file)?;
            let webhook = secret(
                "--stripe-webhook-secret-file",
                &serve.stripe_webhook_secret_file,
            )?;
            let price = serve
                .stripe_price
                .as_deref()
                .ok_or("--payments-provider stripe needs --stripe-price")?;
            Box::new(Stripe::new(
                serve.stripe_api_url.as_str(),
                &key,
                &webhook,
                price,
            )?)
        }
    };
    let currency = serve.plan_currency.to_ascii_uppercase();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(format!(
            "--plan-currency {:?} is not an ISO 4217 code such as BRL",
            serve.plan_currency
        ));
    }
    Ok(Some(Payments {
        provider,
        plans: vec![Plan {
            amount: serve.plan_amount,
            currency,
            period: match serve.plan_period {
                PlanPeriod::Month => Period::Month,
                PlanPeriod::Year => Period::Year,
            },
        }],
        grace_ms: i64::from(serve.payments_grace_hours) * 3_600_000,
        public_url: serve
            .public_url
            .as_ref()
            .map(|u| u.as_str().trim_end_matches('/').to_owned()),
    }))
}

/// The e-mail sender, when `--smtp-url` is given. Its links must open the app's real address:
/// a link made from the request's Host header would let anyone ask for a victim's link
/// pointing at their own site.
fn mailer(serve: &Serve, store: &Store) -> Result<Option<Mailer>, String> {
    let Some(url) = &serve.smtp_url else {
        tracing::info!("e-mail is off (no --smtp-url): no confirmation or new-password links");
        return Ok(None);
    };
    let from = serve
        .mail_from
        .as_deref()
        .ok_or("--smtp-url needs --mail-from (the sender, as Name <address>)")?;
    let base = serve
        .public_url
        .as_ref()
        .ok_or("--smtp-url needs --public-url: the links in the messages open it")?;
    Mailer::start(url, from, base.as_str(), store.clone()).map(Some)
}

/// How long hyper waits for a request's head, on a new connection or a kept-alive one: without
/// a timer it waits forever, and a client holds the connection, and what it sent, for nothing.
const HEAD_WITHIN: Duration = Duration::from_secs(30);

fn timed(mut server: axum_server::Server) -> axum_server::Server {
    // Once hyper reads HTTP/1: before that, hyper_util waits for the bytes that tell the
    // version with no limit, which the TLS stream's own first-bytes deadline covers (over
    // plain HTTP the server sits behind a balancer, whose own limits cover it).
    server
        .http_builder()
        .http1()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEAD_WITHIN);
    server
        .http_builder()
        .http2()
        .timer(hyper_util::rt::TokioTimer::new())
        // The live sockets as streams (RFC 8441).
        .enable_connect_protocol()
        // What one connection may hold: the page's files and the live sockets fit in 32
        // streams at once (a browser queues the rest); a client that sends and does not read
        // makes it hold at most 64 KiB a stream and 256 KiB in all (hyper's default 1 MiB
        // each), and the server's unsent answers at most 16 KiB a stream, 512 KiB in all (a
        // live frame is at most 16 KiB; hyper's default 400 KiB a stream).
        .max_concurrent_streams(H2_STREAMS)
        .initial_stream_window_size(64 * 1024)
        .initial_connection_window_size(256 * 1024)
        .max_send_buf_size(16 * 1024)
        // A connection whose peer is gone, or reads nothing, is closed once a ping goes
        // unanswered for 20 s. One that answers is kept however long it has no stream: hyper
        // has no idle limit for HTTP/2 (its limit for a request's head is HTTP/1's).
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(Duration::from_secs(20));
    server
}

/// Streams at once on one HTTP/2 connection.
const H2_STREAMS: u32 = 32;

/// Serves until SIGTERM or Ctrl-C.
pub async fn serve(storage: &Storage, serve: &Serve) -> Result<(), String> {
    // First, so a bad address stops the start at once and nothing counted is missed.
    if let Some(listener) = crate::metrics::listener(serve.metrics_listen.as_deref()).await? {
        let handle = crate::metrics::install()?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        tracing::info!(%address, "metrics at /metrics");
        tokio::spawn(crate::metrics::serve(listener, handle));
    }
    std::fs::create_dir_all(&storage.data_dir).map_err(|e| {
        format!(
            "cannot make the data folder {}: {e}",
            storage.data_dir.display()
        )
    })?;
    let url = database_url(storage)?;
    let store = Store::open(&url)
        .await
        .map_err(|e| format!("cannot open the database: {e}"))?;
    let tls = if serve.plain_http {
        None
    } else {
        let files = tls::cert_files(
            serve.tls_cert.clone(),
            serve.tls_key.clone(),
            &storage.data_dir,
        )?;
        Some(tls::server_config(&files, serve.http2)?)
    };
    let clocks = Clocks {
        move_ms: i64::try_from(serve.move_time_ms).unwrap_or(i64::MAX / 4),
        grace_ms: i64::try_from(serve.reconnect_grace_ms).unwrap_or(i64::MAX / 4),
    };
    let http = reqwest::Client::builder()
        .build()
        .map_err(|e| format!("cannot make the HTTP client: {e}"))?;
    let threads = match serve.velha_threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => usize::from(n),
    };
    let velha =
        VelhaPool::new(threads).map_err(|e| format!("cannot start the Velha's threads: {e}"))?;
    let hub = Hub::new(store.clone(), clocks, velha);
    let keys = usize::try_from(serve.limiter_keys).unwrap_or(usize::MAX);
    let cursor_secret = store
        .ranking_cursor_secret()
        .await
        .map_err(|e| format!("cannot read the ranking cursors' secret: {e}"))?;
    let payments = payments(serve)?;
    let vapid = Arc::new(Vapid::load(&store, serve.vapid_private_key_file.as_deref()).await?);
    let push_http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| format!("cannot make the push client: {e}"))?;
    let (push, push_stopper) = WebPush::start(webpush::Sender {
        store: store.clone(),
        hub: hub.clone(),
        vapid: vapid.clone(),
        subject: serve.vapid_subject.clone(),
        http: push_http,
    });
    let mail = mailer(serve, &store)?;
    let move_trace = serve
        .trace_moves
        .as_deref()
        .map(crate::move_trace::MoveTrace::create)
        .transpose()?;
    let app = Arc::new(App {
        mail,
        move_trace,
        payments,
        vapid,
        push_services: serve.push_services.clone(),
        cursors: rankings::Cursors::new(cursor_secret.as_bytes()),
        push: Box::new(push),
        store: store.clone(),
        hub: hub.clone(),
        passwords: Passwords::new(serve.argon2_memory_kib)?,
        limits: Limits {
            forwarded_for: serve.forwarded_for_header.clone(),
            failures_by_account: Window::new(
                i64::from(serve.login_window_s) * 1000,
                serve.login_failures_per_account,
                keys,
                "too many failed sign-ins for this account",
            ),
            failures_by_address: Window::new(
                i64::from(serve.login_window_s) * 1000,
                serve.login_failures_per_address,
                keys,
                "too many failed sign-ins from this address",
            ),
            signups_by_address: Window::new(
                3_600_000,
                serve.signups_per_address_per_hour,
                keys,
                "too many new accounts from this address",
            ),
            rooms_by_address: Window::new(
                3_600_000,
                serve.rooms_per_address_per_hour,
                keys,
                "too many new rooms from this address",
            ),
            provider_pages_by_account: Window::new(
                3_600_000,
                30,
                keys,
                "too many payment pages asked for this account",
            ),
            mail_by_address: Window::new(
                3_600_000,
                serve.mails_per_address_per_hour,
                keys,
                "too many e-mails asked for from this address",
            ),
            exports_by_account: Window::new(
                3_600_000,
                EXPORTS_PER_HOUR,
                keys,
                "this account's data was exported 3 times in the last hour",
            ),
            reports_by_account: Window::new(
                3_600_000,
                REPORTS_PER_HOUR,
                keys,
                "this account filed 10 reports in the last hour",
            ),
            sign_in_turns: Turns::default(),
        },
        google: Google::new(
            serve
                .google_client_id
                .iter()
                .chain(&serve.google_desktop_client_id)
                .cloned()
                .collect(),
            serve.google_jwks_url.clone(),
            http,
        ),
        sign_in: sign_in_options(serve),
        clocks,
        session_ms: i64::from(serve.session_days) * 86_400_000,
        silence: Duration::from_millis(serve.silence_ms),
        country_header: serve.country_header.clone(),
        sessions_seen: crate::devices::Seen::default(),
    });
    // Matches that ended before the rankings existed are scored once, from the history.
    if store
        .has_unscored_matches()
        .await
        .map_err(|e| format!("cannot read the matches: {e}"))?
    {
        let rebuilt = store
            .rebuild_rankings(true)
            .await
            .map_err(|e| format!("cannot score the finished matches: {e}"))?;
        tracing::info!(
            matches = rebuilt.matches,
            players = rebuilt.players,
            "scored the finished matches into the rankings"
        );
    }
    let resumed = hub
        .resume()
        .await
        .map_err(|e| format!("cannot resume live matches: {e}"))?;
    hub.run(&url);
    tokio::spawn(crate::live::run_matchmaker(
        hub.clone(),
        Duration::from_millis(serve.pair_every_ms),
    ));
    let sweeper = app.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(30));
        for tick in 0u64.. {
            every.tick().await;
            let now = crate::token::now_ms();
            sweeper.limits.sweep(now);
            // Hourly: deleted players' names whose quarantine is over are freed (ON-A04).
            if tick % 120 == 0 {
                match sweeper
                    .store
                    .free_names(now - crate::store::NAME_QUARANTINE_MS)
                    .await
                {
                    Ok(0) => {}
                    Ok(freed) => tracing::info!(freed, "deleted players' names freed"),
                    Err(e) => tracing::warn!(error = %e, "cannot free deleted players' names"),
                }
            }
        }
    });
    let configured = serve.max_connections as usize;
    let descriptors = admission::raise_descriptor_limit(configured);
    let most = admission::connection_cap(configured, descriptors);
    if most < configured {
        // Info, not a warning: the default is above most machines' limit.
        tracing::info!(
            configured,
            most,
            ?descriptors,
            "fewer connections at once: the open-files limit leaves no more"
        );
    }
    // Behind a balancer every connection comes from its address: the total only.
    let shares =
        (tls.is_some() && serve.forwarded_for_header.is_none()).then_some(admission::Shares {
            address: serve.connections_per_address,
            network: serve.connections_per_network,
        });
    let admission = Admission::new(most, shares);
    let answering = Answering {
        admission: admission.clone(),
        web_root: serve.web_root.clone(),
        hsts: serve.tls_cert.is_some(),
        timeout: Duration::from_millis(serve.request_timeout_ms),
        policy: headers::content_security_policy(
            serve
                .google_client_id
                .as_ref()
                .map(|_| &serve.google_script_url),
        )?,
    };
    let (router, _) = router(app, answering);
    let handle = axum_server::Handle::new();
    let shutdown = handle.clone();
    let grace = Duration::from_secs(serve.shutdown_grace_s);
    let stopping = hub.clone();
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!("stopping: no new connections; live ones are told to come back elsewhere");
        // The grace's deadline is set before the listener is told to close, so whatever
        // waits on it has one; the connections, told at once to come back, reach another
        // process once the listener is closed (a try that lands here meanwhile is told again).
        stopping.drain.begin(grace);
        shutdown.graceful_shutdown(Some(grace));
    });
    let listening = handle.clone();
    let backend = store.backend();
    let scheme = if tls.is_some() { "https" } else { "http" };
    tokio::spawn(async move {
        if let Some(addr) = listening.listening().await {
            tracing::info!(%addr, ?backend, resumed, scheme, "serving");
            // The one line on standard output: scripts and tests read the address from it.
            println!("velha-server listening on {scheme}://{addr}");
        }
    });
    let service = router.into_make_service_with_connect_info::<SocketAddr>();
    let served = match tls {
        Some(tls) => {
            timed(axum_server::bind(serve.listen))
                .acceptor(tls_stream::TlsAcceptor::new(tls, HEAD_WITHIN, admission))
                .handle(handle)
                .serve(service)
                .await
        }
        None => {
            timed(axum_server::bind(serve.listen))
                .acceptor(admission::PlainAcceptor { admission })
                .handle(handle)
                .serve(service)
                .await
        }
    };
    served.map_err(|e| format!("cannot serve on {}: {e}", serve.listen))?;
    // The moves being answered and the Velha's turns are committed before the exit, and the
    // players handed over (`live/drain.rs`).
    if !hub.drain.finished().await {
        tracing::warn!("work still running at the end of the grace is given up");
    }
    hub.hand_over().await;
    // What is left of the grace, so the process exits within it (at least a moment).
    let left = hub
        .drain
        .deadline()
        .saturating_duration_since(tokio::time::Instant::now())
        .max(Duration::from_millis(500));
    if !push_stopper.stop(left).await {
        tracing::warn!("the pushes on their way did not all finish before the stop");
    }
    store.close().await;
    Ok(())
}
