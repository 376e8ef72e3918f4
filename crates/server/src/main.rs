//! `velha-server`: serves, or administers (see `--help`).

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;
use velha_server::config::{Cli, Command, LogFormat};
use velha_server::{admin, app, backup, store::Store};

// Under load glibc's malloc cost about a tenth of the server's CPU (perf during `velha-load
// --peer-matches`); mimalloc cut the CPU per match by about a fifth. Built so that it does not
// ask the kernel for transparent huge pages (`no_thp`): where the kernel gives them only on
// request, the server held 21–36 MB more from its start with them, an idle connection counted
// 8–16 KiB instead of 9–10, and each huge page first touched stalled its thread while the
// kernel zeroed 2 MB (`clear_page_erms`: ~2 % of the samples, milliseconds a page on a virtual
// machine). Where the kernel gives them to every process, `MIMALLOC_ALLOW_THP=0` in the
// environment turns them off for this one (deploy/Containerfile does; docs/deploy.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() {
    // On a worker of the runtime, not on this thread: the accept loop runs inside, and every
    // connection accepted here would wake this thread and hand the connection to a worker.
    if let Err(e) = tokio::spawn(velha()).await {
        eprintln!("velha-server: {e}");
        std::process::exit(1);
    }
}

async fn velha() {
    let cli = Cli::parse();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Colours only for a person at a terminal, never in files or the journal.
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    match cli.serve.log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().init(),
    }
    let result = match &cli.command {
        None => app::serve(&cli.storage, &cli.serve).await,
        Some(Command::Admin { what, by }) => run_admin(&cli, what, by.as_deref()).await,
    };
    if let Err(e) = result {
        eprintln!("velha-server: {e}");
        std::process::exit(1);
    }
}

async fn run_admin(
    cli: &Cli,
    what: &velha_server::config::Admin,
    by: Option<&str>,
) -> Result<(), String> {
    use velha_server::config::Admin;
    let url = app::database_url(&cli.storage)?;
    let report = match what {
        // A backup reads the database as it is and a restore replaces it: neither opens the
        // store, which would bring an old backup's schema up to date or hold the file open.
        Admin::Backup { to } => {
            let to = to.clone();
            on_sqlite_file(&url, move |db| backup::backup(&db, &to)).await
        }
        Admin::Restore { from, replace } => {
            let (from, replace) = (from.clone(), *replace);
            let now = velha_server::token::now_ms();
            on_sqlite_file(&url, move |db| backup::restore(&db, &from, replace, now)).await
        }
        Admin::Subscription { action } => {
            let store = open_store(&url).await?;
            let report = admin::subscription(&store, action, by).await;
            store.close().await;
            report
        }
        Admin::Rankings { action } => {
            let store = open_store(&url).await?;
            let report = admin::rankings(&store, action, by).await;
            store.close().await;
            report
        }
        Admin::Player { action } => {
            let store = open_store(&url).await?;
            let report = admin::player(&store, action, by).await;
            store.close().await;
            report
        }
        Admin::Audit { limit } => {
            let store = open_store(&url).await?;
            let report = admin::audit(&store, *limit).await;
            store.close().await;
            report
        }
        Admin::Reports { limit } => {
            let store = open_store(&url).await?;
            let report = admin::reports(&store, *limit).await;
            store.close().await;
            report
        }
    };
    println!("{}", report?);
    Ok(())
}

async fn open_store(url: &str) -> Result<Store, String> {
    Store::open(url)
        .await
        .map_err(|e| format!("cannot open the database: {e}"))
}

/// Runs `job` on the SQLite file of `url`, off the runtime's threads.
async fn on_sqlite_file(
    url: &str,
    job: impl FnOnce(std::path::PathBuf) -> Result<String, String> + Send + 'static,
) -> Result<String, String> {
    let file = backup::sqlite_file(url).ok_or(
        "on PostgreSQL, back up with pg_dump and restore with pg_restore (docs/deploy.md)",
    )?;
    tokio::task::spawn_blocking(move || job(file))
        .await
        .map_err(|e| e.to_string())?
}
