//! The `datahost` command line: `serve`, `ingest`, `sync`, `keys issue|list|revoke`, `plugins list`, `openapi`,
//! and `engine migrate|load-seeds`; the hidden `plugin-host` runs one plugin in a child process for `serve`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use datahost::config::{Config, LogFormat};
use datahost::engine::postgres::pool::PgEngine;
use datahost::engine::Engine;
use datahost::lifecycle::server::StartupError;
use datahost_plugin_api::Tier;

/// Why a command (other than `ingest` and `sync`, which report per file) failed: printed as `datahost: ...`
/// with exit status 1.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// A lower layer's error (configuration, plugins, engine, keys): `StartupError` already wraps each.
    #[error(transparent)]
    Layer(#[from] StartupError),
    #[error("no plugin loaded from {}", .0.display())]
    NoPlugins(PathBuf),
    #[error("the records engine at {0} is unreachable")]
    EngineUnreachable(String),
    #[error("engine.url is \"embedded\": there is nothing to migrate or seed")]
    NotPostgres,
    #[error("no key with id {0}")]
    NoSuchKey(String),
    #[error("cannot print the OpenAPI document: {0}")]
    Print(#[from] serde_json::Error),
}

/// Lifts a lower layer's result into the CLI's error through [`StartupError`] (one `From` hop is all `?` takes).
trait Lift<T> {
    fn lift(self) -> Result<T, CliError>;
}

impl<T, E: Into<StartupError>> Lift<T> for Result<T, E> {
    fn lift(self) -> Result<T, CliError> {
        self.map_err(|e| CliError::Layer(e.into()))
    }
}

/// A `--tier` that is not one of the four.
#[derive(Debug, thiserror::Error)]
#[error("unknown tier `{0}`; use free, pro, rapidapi or owner")]
struct UnknownTier(String);

/// mimalloc for everything the host allocates (plugins keep their own allocator: every buffer that crosses the ABI
/// carries its own deallocator). With glibc's, malloc and free took about 15% of the host's CPU while it answered
/// cached queries (perf record; BENCHMARKS.md, "Allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "datahost", version, about = "Public-records and market-intelligence data API server")]
struct Cli {
    /// Config file layered over config/default.toml (instead of DATAHOST_CONFIG).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the API server.
    Serve,
    /// Manage API keys.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Inspect plugins.
    Plugins {
        #[command(subcommand)]
        command: PluginsCommand,
    },
    /// Print the assembled OpenAPI document for the plugins in plugins.dir.
    Openapi,
    /// Read official source files (or folders of them) into the records engine. The format of each file is
    /// detected from its content. Exit status: 0 every file applied or unchanged, 1 some file refused,
    /// 2 usage error.
    Ingest {
        /// The dataset, for example `insiders`, `institutional-holdings`, `congress-trades`, `companies`.
        dataset: String,
        /// Files or folders (recursed).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Print the report as one JSON document.
        #[arg(long)]
        json: bool,
    },
    /// Download what is new at the official sources ([sync] in the configuration) and ingest it. With no
    /// dataset, every enabled source. Exit status: 0 everything fetched and ingested (or nothing new), 1 some
    /// file could not be fetched, stored or was refused, 2 usage or configuration error.
    Sync {
        /// Datasets to sync, for example `insiders`, `donors`, `congress-trades`; none: all enabled sources.
        datasets: Vec<String>,
        /// Print the report as one JSON document.
        #[arg(long)]
        json: bool,
    },
    /// Records engine maintenance (PostgreSQL).
    Engine {
        #[command(subcommand)]
        command: EngineCommand,
    },
    /// Internal: runs one plugin library for a `serve` that isolates it (`plugins.<slug>.isolation = "process"`).
    /// Started by the host, which passes the socket and token in the environment; not for people.
    #[command(hide = true)]
    PluginHost { library: PathBuf },
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Issue a key. Prints the key, and only the key, on stdout; it is never shown again.
    Issue {
        #[arg(long, default_value = "free", value_parser = parse_tier)]
        tier: Tier,
        #[arg(long, default_value = "")]
        label: String,
    },
    /// List keys (ids, tiers, labels, dates; never the keys).
    List,
    /// Revoke a key by id.
    Revoke { id: String },
}

#[derive(Subcommand)]
enum PluginsCommand {
    /// Load every plugin in plugins.dir and report what loaded and what failed.
    List,
}

#[derive(Subcommand)]
enum EngineCommand {
    /// Apply the schema migrations of the host and the plugins.
    Migrate,
    /// Copy the plugins' seed snapshots into the engine (idempotent).
    LoadSeeds,
}

fn parse_tier(s: &str) -> Result<Tier, UnknownTier> {
    Tier::parse(s).ok_or_else(|| UnknownTier(s.to_string()))
}

fn init_tracing(format: LogFormat) {
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info,tokio_postgres=warn".into());
    // Colour codes only for a person at a terminal, never in a file or a log collector.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    match format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The plugin child reads no configuration: everything it needs comes from its host.
    if let Command::PluginHost { library } = &cli.command {
        return ExitCode::from(datahost::plugins::child::run(library));
    }
    let config = match Config::load(cli.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("datahost: {e}");
            return ExitCode::from(2);
        }
    };
    init_tracing(config.server.log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("datahost: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Command::Ingest { dataset, paths, json } = &cli.command {
        return runtime.block_on(ingest(&config, dataset, paths, *json));
    }
    if let Command::Sync { datasets, json } = &cli.command {
        return runtime.block_on(sync(&config, datasets, *json));
    }
    match runtime.block_on(run(cli.command, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("datahost: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(command: Command, config: Config) -> Result<(), CliError> {
    match command {
        Command::Serve => Ok(datahost::lifecycle::server::serve(config).await?),
        Command::Keys { command } => keys(command, config).await,
        Command::Plugins { command: PluginsCommand::List } => {
            let engine = Arc::new(Engine::embedded());
            let registry = datahost::lifecycle::server::load_plugins(&config, &engine).await?;
            print!("{}", datahost::plugins::describe(&registry));
            if registry.plugins.is_empty() {
                return Err(CliError::NoPlugins(config.plugins_dir()));
            }
            Ok(())
        }
        Command::Openapi => {
            let engine = Arc::new(Engine::embedded());
            let registry = datahost::lifecycle::server::load_plugins(&config, &engine).await?;
            let doc = datahost::http::openapi::assemble(&registry, config.base_url());
            println!("{}", serde_json::to_string_pretty(&doc)?);
            Ok(())
        }
        Command::Ingest { .. } | Command::Sync { .. } | Command::PluginHost { .. } => {
            unreachable!("handled in main: it has exit statuses of its own")
        }
        Command::Engine { command } => {
            let engine = Engine::from_config(&config).await.lift()?;
            let pg = engine.pg().ok_or(CliError::NotPostgres)?;
            let done = match command {
                EngineCommand::Migrate => migrate_cli(pg, &config, &engine).await,
                EngineCommand::LoadSeeds => load_seeds_cli(pg, &config, &engine).await,
            };
            engine.close().await;
            done
        }
    }
}

async fn keys(command: KeysCommand, config: Config) -> Result<(), CliError> {
    let engine = if config.engine_is_embedded() {
        Arc::new(Engine::embedded())
    } else {
        Engine::from_config(&config).await.lift()?
    };
    let done = keys_on(command, &config, &engine).await;
    engine.close().await;
    done
}

async fn keys_on(command: KeysCommand, config: &Config, engine: &Arc<Engine>) -> Result<(), CliError> {
    if let Some(pg) = engine.pg() {
        if engine.is_degraded() {
            return Err(CliError::EngineUnreachable(engine.address().to_string()));
        }
        // The key table is created by the host migrations; applying them is idempotent.
        pg.migrate().await.lift()?;
    }
    let source = datahost::keys::key_source(config, engine);
    match command {
        KeysCommand::Issue { tier, label } => {
            let (key, record) = datahost::keys::generate(tier, &label);
            source.insert(record.clone()).await.lift()?;
            eprintln!("issued {} ({} tier); store the key now: it is not shown again", record.id, tier.as_str());
            println!("{key}");
        }
        KeysCommand::List => {
            for k in source.load().await.lift()? {
                let state = match &k.revoked_at {
                    Some(at) => format!("revoked {at}"),
                    None => "active".into(),
                };
                println!("{}\t{}\t{}\t{}\t{}", k.id, k.tier.as_str(), k.created_at, state, k.label);
            }
        }
        KeysCommand::Revoke { id } => {
            if !source.revoke(&id).await.lift()? {
                return Err(CliError::NoSuchKey(id));
            }
            eprintln!("revoked {id}");
        }
    }
    Ok(())
}

/// `datahost engine migrate`: host migrations, then every plugin's.
async fn migrate_cli(pg: &PgEngine, config: &Config, engine: &Arc<Engine>) -> Result<(), CliError> {
    for line in pg.migrate().await.lift()? {
        println!("applied {line}");
    }
    let opened = datahost::plugins::open_plugins(config, engine).await.lift()?;
    for line in pg.migrate_plugins(&opened.migrations()).await.lift()? {
        println!("applied {line}");
    }
    println!("migrations up to date");
    Ok(())
}

/// `datahost engine load-seeds`: copies every plugin's seed snapshots into the engine. Idempotent: an
/// unchanged snapshot is not rewritten (and so wakes no replica).
async fn load_seeds_cli(pg: &PgEngine, config: &Config, engine: &Arc<Engine>) -> Result<(), CliError> {
    pg.migrate().await.lift()?;
    let opened = datahost::plugins::open_plugins(config, engine).await.lift()?;
    pg.migrate_plugins(&opened.migrations()).await.lift()?;
    let mut changed = 0;
    for (name, snapshot) in engine.seeds() {
        let did = pg.put_dataset(&name, &snapshot, "seed").await.lift()?;
        changed += did as usize;
        println!("{name}: {}", if did { "loaded" } else { "unchanged" });
    }
    println!("{changed} dataset(s) changed");
    Ok(())
}

/// Prints a command's report as JSON or text; false when it could not be printed.
fn print_report(command: &str, report: &impl serde::Serialize, json: bool, text: impl FnOnce() -> String) -> bool {
    if !json {
        print!("{}", text());
        return true;
    }
    match serde_json::to_string_pretty(report) {
        Ok(doc) => {
            println!("{doc}");
            true
        }
        Err(e) => {
            eprintln!("datahost {command}: cannot print the report: {e}");
            false
        }
    }
}

/// `datahost ingest`: exit 0 every file applied or unchanged, 1 some file refused, 2 usage error.
async fn ingest(config: &Config, dataset: &str, paths: &[PathBuf], json: bool) -> ExitCode {
    let report = match datahost::plugins::ingest::run(config, dataset, paths).await {
        Ok(report) => report,
        Err(datahost::plugins::ingest::UsageError(message)) => {
            eprintln!("datahost ingest: {message}");
            return ExitCode::from(2);
        }
    };
    if !print_report("ingest", &report, json, || datahost::plugins::ingest::render(&report)) {
        return ExitCode::FAILURE;
    }
    if report.refused > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `datahost sync`: exit 0 everything fetched and ingested (or nothing new), 1 some file failed or was refused,
/// 2 usage or configuration error.
async fn sync(config: &Config, datasets: &[String], json: bool) -> ExitCode {
    let report = match datahost::sync::run(config, datasets).await {
        Ok(report) => report,
        Err(datahost::sync::UsageError(message)) => {
            eprintln!("datahost sync: {message}");
            return ExitCode::from(2);
        }
    };
    if !print_report("sync", &report, json, || datahost::sync::render(&report)) {
        return ExitCode::FAILURE;
    }
    if let Some(why) = &report.skipped {
        eprintln!("datahost sync: skipped: {why}");
    }
    if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
