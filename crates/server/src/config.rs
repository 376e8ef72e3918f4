//! Configuration: command-line flags, each also read from an environment variable.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The Cubo da Velha server: accounts, the lobby and live cube matches over HTTPS and
/// WebSocket. Without a subcommand it serves.
#[derive(Debug, Parser)]
#[command(name = "velha-server", version, about, long_about = None)]
pub struct Cli {
    /// Storage settings.
    #[command(flatten)]
    pub storage: Storage,
    /// Serving settings.
    #[command(flatten)]
    pub serve: Serve,
    /// Administration instead of serving.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Where the data lives.
#[derive(Debug, Args)]
pub struct Storage {
    /// Folder for the SQLite database and the development certificate; made if missing.
    #[arg(
        long,
        env = "VELHA_DATA_DIR",
        default_value = "velha-data",
        global = true
    )]
    pub data_dir: PathBuf,
    /// postgres://user:password@host:port/database to use PostgreSQL, or sqlite:PATH for
    /// another SQLite file. Default: the SQLite file velha.db in the data folder.
    #[arg(long, env = "DATABASE_URL", global = true)]
    pub database_url: Option<String>,
}

/// How to serve.
#[derive(Debug, Args)]
pub struct Serve {
    /// Address and port to listen on (HTTPS and WebSocket). Port 0 picks a free one; the
    /// address taken is printed.
    #[arg(long, env = "VELHA_LISTEN", default_value = "127.0.0.1:8443")]
    pub listen: SocketAddr,
    /// Address and port of the metrics page (Prometheus's text format at /metrics, plain
    /// HTTP), or `off`. Not given: 127.0.0.1:9464 when free, else none (and a warning).
    #[arg(long, env = "VELHA_METRICS_LISTEN")]
    pub metrics_listen: Option<String>,
    /// PEM certificate chain. Without it (and --tls-key), a self-signed development
    /// certificate is made in the data folder on the first run.
    #[arg(long, env = "VELHA_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key of the certificate.
    #[arg(long, env = "VELHA_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Serve plain HTTP and WebSocket instead: only behind a load balancer that ends TLS, on a
    /// network nobody else reaches (browsers keep the Secure session cookie for HTTPS only, so
    /// HTTPS must be in front). Needs --forwarded-for-header, as only a proxy reaches it.
    #[arg(
        long,
        env = "VELHA_PLAIN_HTTP",
        conflicts_with = "tls_cert",
        requires = "forwarded_for_header"
    )]
    pub plain_http: bool,
    /// Offers HTTP/2 over HTTPS: a browser then loads the page, calls the API and opens its
    /// live sockets (RFC 8441) on one connection, with one TLS handshake rather than one more
    /// for each socket: 15 to 37 % less CPU a match in the peer bench (docs/benchmarks.md).
    /// The price is memory: an idle player's connection holds about 32 KiB rather than 10
    /// (HTTP/2's codec keeps its buffers for the connection's life).
    /// The app's own builds and clients that do not offer HTTP/2 speak HTTP/1.1 either way;
    /// without the flag a client that speaks HTTP/2 anyway is let go.
    #[arg(long, env = "VELHA_HTTP2", conflicts_with = "plain_http")]
    pub http2: bool,
    /// Folder of the web build of the app, served at /. Without it only the API is served.
    #[arg(long, env = "VELHA_WEB_ROOT")]
    pub web_root: Option<PathBuf>,
    /// Time for each move, in milliseconds (ON-M03: one minute).
    #[arg(long, env = "VELHA_MOVE_TIME_MS", default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub move_time_ms: u64,
    /// Time a player whose connection dropped has to come back, in milliseconds (ON-M04).
    #[arg(long, env = "VELHA_RECONNECT_GRACE_MS", default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub reconnect_grace_ms: u64,
    /// Threads on which the server's Velha thinks (ON-G05), apart from the async runtime's;
    /// 0 for one per core.
    #[arg(long, env = "VELHA_AI_THREADS", default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=256))]
    pub velha_threads: u16,
    /// How often Jogo da Velha 2.0's queue is paired (ON-V01), in milliseconds.
    #[arg(long, env = "VELHA_PAIR_EVERY_MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(50..=60_000))]
    pub pair_every_ms: u64,
    /// How long a session lasts, in days.
    #[arg(long, env = "VELHA_SESSION_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub session_days: u32,
    /// The OAuth client id Google ID tokens must be issued to. Without it, Google sign-in
    /// answers that it is not configured.
    #[arg(long, env = "VELHA_GOOGLE_CLIENT_ID")]
    pub google_client_id: Option<String>,
    /// Where Google publishes its token signing keys.
    #[arg(
        long,
        env = "VELHA_GOOGLE_JWKS_URL",
        default_value = "https://www.googleapis.com/oauth2/v3/certs"
    )]
    pub google_jwks_url: String,
    /// The OAuth client id of the desktop app, which signs in through the system browser
    /// (authorization code with PKCE, loopback redirect); its ID tokens are accepted too.
    #[arg(long, env = "VELHA_GOOGLE_DESKTOP_CLIENT_ID")]
    pub google_desktop_client_id: Option<String>,
    /// The desktop client's "secret", which Google's token endpoint asks of installed apps;
    /// it is no secret (every copy of the app carries it), so the server hands it out.
    #[arg(long, env = "VELHA_GOOGLE_DESKTOP_CLIENT_SECRET")]
    pub google_desktop_client_secret: Option<String>,
    /// The Google Identity Services script the web app loads for its sign-in button (its
    /// origin is allowed by the Content-Security-Policy).
    #[arg(
        long,
        env = "VELHA_GOOGLE_SCRIPT_URL",
        default_value = "https://accounts.google.com/gsi/client"
    )]
    pub google_script_url: reqwest::Url,
    /// Google's authorization endpoint, where the desktop app sends the player.
    #[arg(
        long,
        env = "VELHA_GOOGLE_AUTHORIZATION_URL",
        default_value = "https://accounts.google.com/o/oauth2/v2/auth"
    )]
    pub google_authorization_url: reqwest::Url,
    /// Google's token endpoint, where the desktop app trades its code for an ID token.
    #[arg(
        long,
        env = "VELHA_GOOGLE_TOKEN_URL",
        default_value = "https://oauth2.googleapis.com/token"
    )]
    pub google_token_url: reqwest::Url,
    /// Who sells the subscription (docs/payments.md). Without one the app is told nothing is
    /// on sale, and only `admin subscription grant` makes subscribers.
    #[arg(long, env = "VELHA_PAYMENTS_PROVIDER", value_enum, default_value_t = PaymentsProvider::None)]
    pub payments_provider: PaymentsProvider,
    /// File holding Stripe's secret API key (sk_live_… or a restricted key), read at start.
    #[arg(long, env = "VELHA_STRIPE_SECRET_KEY_FILE")]
    pub stripe_secret_key_file: Option<PathBuf>,
    /// File holding the webhook endpoint's signing secret (whsec_…), read at start.
    #[arg(long, env = "VELHA_STRIPE_WEBHOOK_SECRET_FILE")]
    pub stripe_webhook_secret_file: Option<PathBuf>,
    /// Stripe's API; the tests point it at their stand-in.
    #[arg(
        long,
        env = "VELHA_STRIPE_API_URL",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_url: reqwest::Url,
    /// The Stripe price (price_…) of the plan on sale.
    #[arg(long, env = "VELHA_STRIPE_PRICE")]
    pub stripe_price: Option<String>,
    /// The plan's price as the app shows it, in the currency's minor unit (990 is 9,90); it
    /// must be the Stripe price's.
    #[arg(long, env = "VELHA_PLAN_AMOUNT", default_value_t = 990, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub plan_amount: u64,
    /// The plan's currency, ISO 4217.
    #[arg(long, env = "VELHA_PLAN_CURRENCY", default_value = "BRL")]
    pub plan_currency: String,
    /// How often the plan is charged.
    #[arg(long, env = "VELHA_PLAN_PERIOD", value_enum, default_value_t = PlanPeriod::Month)]
    pub plan_period: PlanPeriod,
    /// How long access outlasts a paid period, in hours, while a renewal's payment is retried.
    #[arg(long, env = "VELHA_PAYMENTS_GRACE_HOURS", default_value_t = 72, value_parser = clap::value_parser!(u32).range(0..=720))]
    pub payments_grace_hours: u32,
    /// File holding the VAPID private key (PKCS#8, PEM or DER, P-256) that signs Web Push
    /// requests. Without it, one is made once and kept in the database, shared by every process.
    #[arg(long, env = "VELHA_VAPID_PRIVATE_KEY_FILE")]
    pub vapid_private_key_file: Option<PathBuf>,
    /// Who push services may contact about this server's pushes (a mailto: or https: URL),
    /// named in every VAPID signature.
    #[arg(
        long,
        env = "VELHA_VAPID_SUBJECT",
        default_value = "mailto:contato@cubodavelha.com.br"
    )]
    pub vapid_subject: String,
    /// The SMTP server e-mail goes through (`smtps://user:pass@host:465`, or
    /// `smtp://user:pass@host:587?tls=required` for STARTTLS); without it the server sends
    /// no e-mail, and the app offers nothing that needs it (docs/mail.md).
    #[arg(long, env = "VELHA_SMTP_URL")]
    pub smtp_url: Option<String>,
    /// The sender of the server's e-mail, as `Name <address>`; needed with `--smtp-url`.
    #[arg(long, env = "VELHA_MAIL_FROM")]
    pub mail_from: Option<String>,
    /// The push services a device's endpoint may be on, comma-separated origins
    /// (`https://*.example.com` for any host under one): the server posts only there.
    #[arg(
        long,
        env = "VELHA_PUSH_SERVICES",
        value_delimiter = ',',
        default_value = "https://fcm.googleapis.com,https://updates.push.services.mozilla.com,https://*.push.apple.com,https://*.notify.windows.com"
    )]
    pub push_services: Vec<String>,
    /// The app's public address (https://cubodavelha.com.br), which the provider's pages
    /// return to. Without it, the address the request came to.
    #[arg(long, env = "VELHA_PUBLIC_URL")]
    pub public_url: Option<reqwest::Url>,
    /// Connections one client address may hold at once (an IPv6 address counts as its /64),
    /// and as many static files being sent; more are closed before their handshake (a file:
    /// 503). 0: no limit. Not behind a balancer (with
    /// `--forwarded-for-header`), whose own address every connection has: its limit applies.
    #[arg(long, env = "VELHA_CONNECTIONS_PER_ADDRESS", default_value_t = 256)]
    pub connections_per_address: usize,
    /// Connections one IPv6 /48 may hold at once, whatever its /64s; 0: no limit. Like
    /// `--connections-per-address`, only where clients reach the server directly.
    #[arg(long, env = "VELHA_CONNECTIONS_PER_NETWORK", default_value_t = 4096)]
    pub connections_per_network: usize,
    /// Connections the process holds at once, a static file being sent counting as one more
    /// (it holds a descriptor); more connections are closed as soon as they are accepted, more
    /// files answered 503. Lowered, if need be, to leave 256 of the open-files limit (which
    /// the server raises to its hard limit) to the database, e-mail and pushes.
    #[arg(long, env = "VELHA_MAX_CONNECTIONS", default_value_t = 50_000,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Failed sign-ins allowed per account in the window.
    #[arg(long, env = "VELHA_LOGIN_FAILURES_PER_ACCOUNT", default_value_t = 5)]
    pub login_failures_per_account: usize,
    /// Failed sign-ins allowed per client address in the window.
    #[arg(long, env = "VELHA_LOGIN_FAILURES_PER_ADDRESS", default_value_t = 30)]
    pub login_failures_per_address: usize,
    /// E-mails a client address may ask for in an hour ("Esqueci a senha", "Reenviar").
    #[arg(long, env = "VELHA_MAILS_PER_ADDRESS_PER_HOUR", default_value_t = 20)]
    pub mails_per_address_per_hour: usize,
    /// New accounts allowed per client address in an hour.
    #[arg(long, env = "VELHA_SIGNUPS_PER_ADDRESS_PER_HOUR", default_value_t = 20)]
    pub signups_per_address_per_hour: usize,
    /// New invitation rooms allowed per client address in an hour (rooms need no account).
    #[arg(long, env = "VELHA_ROOMS_PER_ADDRESS_PER_HOUR", default_value_t = 60)]
    pub rooms_per_address_per_hour: usize,
    /// Behind a reverse proxy: the header in which it writes the client's address (for example
    /// X-Forwarded-For); its last entry is what the address limits count. Set it only when every
    /// request comes through that proxy, or clients could pick their own address.
    #[arg(long, env = "VELHA_FORWARDED_FOR_HEADER")]
    pub forwarded_for_header: Option<axum::http::HeaderName>,
    /// Behind a proxy that looks up the client's country (Cloudflare's CF-IPCountry, nginx's
    /// geoip2 module): the header in which it writes the ISO code. A session keeps that country
    /// to show the player where they are signed in; the address itself is never kept.
    #[arg(long, env = "VELHA_COUNTRY_HEADER")]
    pub country_header: Option<axum::http::HeaderName>,
    /// How many keys (accounts, addresses) each rate limit remembers at most. Past it the key
    /// nearest to expiring is forgotten, so memory stays bounded whatever the traffic (a key
    /// costs about 40 bytes).
    #[arg(long, env = "VELHA_LIMITER_KEYS", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub limiter_keys: u64,
    /// The window of the sign-in limits, in seconds.
    #[arg(long, env = "VELHA_LOGIN_WINDOW_S", default_value_t = 900)]
    pub login_window_s: u32,
    /// Memory of each argon2id password hash, in KiB. Keep the default in production (19 MiB,
    /// OWASP's advice); tests and the load bench lower it to make accounts fast.
    #[arg(long, env = "VELHA_ARGON2_MEMORY_KIB", default_value_t = 19_456, value_parser = clap::value_parser!(u32).range(8..))]
    pub argon2_memory_kib: u32,
    /// How long a request may take before it is answered `408 timeout`, in milliseconds
    /// (the live WebSocket, once open, is not a request and has no such limit).
    #[arg(long, env = "VELHA_REQUEST_TIMEOUT_MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout_ms: u64,
    /// Log lines as text or as JSON objects (RUST_LOG filters them, default info).
    #[arg(long, env = "VELHA_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// How long a live connection (a player's or a room's) may say nothing — not even the
    /// answer to the pings the server sends every third of it — before it is closed, in
    /// milliseconds: a phone that lost its signal is not present in its matches (so its seat's
    /// grace time starts, ON-M04), holds no spectator's place, and does not count as looking at
    /// a room (so is sent its turn notices), for longer than this.
    #[arg(long, alias = "room-silence-ms", env = "VELHA_SILENCE_MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(300..))]
    pub silence_ms: u64,
    /// On SIGTERM or Ctrl-C, how long open connections get to finish, in seconds.
    #[arg(long, env = "VELHA_SHUTDOWN_GRACE_S", default_value_t = 5)]
    pub shutdown_grace_s: u64,
    /// Writes, for every move a live connection carries, when the server read it, committed
    /// it and told it, to this file (`move_trace.rs`; the load bench reads it).
    #[arg(long, env = "VELHA_TRACE_MOVES")]
    pub trace_moves: Option<PathBuf>,
}

/// A payment provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PaymentsProvider {
    /// Nothing on sale.
    None,
    /// Stripe Billing.
    Stripe,
}

/// How often a plan is charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlanPeriod {
    /// Monthly.
    Month,
    /// Yearly.
    Year,
}

/// Log line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Administration of accounts.
    Admin {
        /// What to administer.
        #[command(subcommand)]
        what: Admin,
        /// Who does it, for the audit (default: the login name running the command).
        #[arg(long, global = true)]
        by: Option<String>,
    },
}

/// Administration.
#[derive(Debug, Subcommand)]
pub enum Admin {
    /// Subscriptions to online cube play (ON-A03).
    Subscription {
        /// What to do.
        #[command(subcommand)]
        action: SubscriptionAction,
    },
    /// The world and national rankings (ON-K01 … ON-K04).
    Rankings {
        /// What to do.
        #[command(subcommand)]
        action: RankingsAction,
    },
    /// Moderation of a player: ban, unban, rename (docs/moderation.md).
    Player {
        /// What to do.
        #[command(subcommand)]
        action: PlayerAction,
    },
    /// Every moderation action, newest first.
    Audit {
        /// At most this many.
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// The players' reports of other players, newest first.
    Reports {
        /// At most this many.
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Copies the SQLite database to a new file while the server serves: one consistent
    /// snapshot (SQLite's online backup). On PostgreSQL, use pg_dump (docs/deploy.md).
    Backup {
        /// The new file; an existing one is never overwritten.
        #[arg(long)]
        to: PathBuf,
    },
    /// Puts a backup in place of the data folder's SQLite database. Stop the server first; the
    /// database it replaces is kept beside it (velha.db.replaced-<time>).
    Restore {
        /// The backup.
        #[arg(long)]
        from: PathBuf,
        /// Replace the database that is there.
        #[arg(long)]
        replace: bool,
    },
}

/// What to do to a player.
#[derive(Debug, Subcommand)]
pub enum PlayerAction {
    /// Bans NAME: their sessions and connections end at once, they cannot sign in, and they
    /// leave the lobby, the 2.0 queue and the rankings (their past matches stay for the
    /// others). A live match goes on without them, and they lose it when their time to come
    /// back runs out.
    Ban {
        /// The player name.
        name: String,
        /// Why, as the player is told when they try to sign in.
        #[arg(long)]
        reason: String,
    },
    /// Lifts NAME's ban and gives them back their standings (the rankings are rebuilt).
    Unban {
        /// The player name.
        name: String,
    },
    /// Renames NAME to NEW; the player is told when they next open the app.
    Rename {
        /// The player name.
        name: String,
        /// The new name (checked as a name chosen at sign-up is).
        new: String,
    },
}

/// What to do to the rankings.
#[derive(Debug, Subcommand)]
pub enum RankingsAction {
    /// Recomputes every standing from the finished matches and replaces the stored ones; with
    /// --check, only reports where the stored ones differ (and exits with 1 if they do).
    Rebuild {
        /// Compare only; change nothing.
        #[arg(long)]
        check: bool,
    },
}

/// What to do to a subscription.
#[derive(Debug, Subcommand)]
pub enum SubscriptionAction {
    /// Grants each NAME a subscription through the end of DATE (UTC), beside any paid one
    /// (the longer counts).
    Grant {
        /// The player names.
        #[arg(required = true, num_args = 1..)]
        names: Vec<String>,
        /// The last day of the subscription, YYYY-MM-DD.
        #[arg(long)]
        until: String,
    },
    /// Ends NAME's grant now; a paid subscription stands (refund it at the provider).
    Revoke {
        /// The player name.
        name: String,
    },
    /// Prints NAME's subscription.
    Show {
        /// The player name.
        name: String,
    },
}
