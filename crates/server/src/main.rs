//! `velha-server`: serves, or administers (see `--help`).

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;
use velha_server::config::{Cli, Command, LogFormat};
use velha_server::{admin, app, store::Store};

// Under load glibc's malloc cost about a tenth of the server's CPU (perf during `velha-load
// --peer-matches`); mimalloc cut the CPU per match by about a fifth, for some 15 MB more peak.
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
        Some(Command::Admin { what }) => run_admin(&cli, what).await,
    };
    if let Err(e) = result {
        eprintln!("velha-server: {e}");
        std::process::exit(1);
    }
}

async fn run_admin(cli: &Cli, what: &velha_server::config::Admin) -> Result<(), String> {
    use velha_server::config::Admin;
    let url = app::database_url(&cli.storage)?;
    let store = Store::open(&url)
        .await
        .map_err(|e| format!("cannot open the database: {e}"))?;
    let result = match what {
        Admin::Subscription { action } => admin::subscription(&store, action).await,
        Admin::Rankings { action } => admin::rankings(&store, action).await,
    };
    store.close().await;
    println!("{}", result?);
    Ok(())
}
