//! Start-up and shutdown of `datahost serve`: config → records engine → plugins → keys → limiter → router,
//! then the public and metrics listeners, a "listening" line on stdout, and a graceful stop on SIGTERM/SIGINT
//! that lets in-flight requests finish.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::net::TcpListener;

use crate::access::error::AccessError;
use crate::access::keys::KeyRing;
use crate::access::limiter::Limiter;
use crate::access::ratelimit::{LocalLimiter, SystemClock};
use crate::access::redis::RedisLimiter;
use crate::config::{Config, ConfigError};
use crate::engine::{Engine, EngineError};
use crate::http::app::Api;
use crate::http::state::AppState;
use crate::plugins::{init_all, PluginError, PluginRegistry};

/// Why `datahost serve` (or a command that loads the plugins) cannot start: the layer that failed, in its own
/// words, or a listener that cannot bind.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Plugins(#[from] PluginError),
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Access(#[from] AccessError),
    /// `server.listen` or `metrics.listen` cannot be bound (in use, not an address of this machine).
    #[error("cannot listen on {key} {addr}: {source}")]
    Listen {
        key: &'static str,
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

/// Milliseconds of each start-up phase since `serve` began, logged once listening (`datahost listening` at
/// info), so a slow start says which phase to look at.
pub struct Phases {
    started: Instant,
    marks: Mutex<Vec<(&'static str, u64)>>,
}

impl Phases {
    pub fn new() -> Self {
        Self { started: Instant::now(), marks: Mutex::new(Vec::new()) }
    }

    /// Records that `phase` ended now.
    pub fn mark(&self, phase: &'static str) {
        let ms = self.started.elapsed().as_millis() as u64;
        self.marks.lock().unwrap_or_else(|e| e.into_inner()).push((phase, ms));
    }

    /// `engine=3 plugins_open=40 ...`: the end of each phase, in ms since the start.
    pub fn summary(&self) -> String {
        let marks = self.marks.lock().unwrap_or_else(|e| e.into_inner());
        marks.iter().map(|(phase, ms)| format!("{phase}={ms}")).collect::<Vec<_>>().join(" ")
    }
}

impl Default for Phases {
    fn default() -> Self {
        Self::new()
    }
}

/// Loads the plugins: open them, prepare the PostgreSQL engine for them (their migrations, missing seeds,
/// the dataset cache), then run their `init` on a blocking thread.
pub async fn load_plugins(config: &Config, engine: &Arc<Engine>) -> Result<Arc<PluginRegistry>, StartupError> {
    load_plugins_timed(config, engine, &Phases::new()).await
}

async fn load_plugins_timed(
    config: &Config,
    engine: &Arc<Engine>,
    phases: &Phases,
) -> Result<Arc<PluginRegistry>, StartupError> {
    let opened = crate::plugins::open_plugins(config, engine).await?;
    phases.mark("plugins_open");
    if let Some(slug) =
        config.plugin_options()?.keys().find(|slug| !opened.knows(slug) && !config.plugins.disabled.contains(slug))
    {
        let dir = config.plugins_dir();
        let problem = format!("names no plugin: no plugin in {} has the slug `{slug}`", dir.display());
        return Err(ConfigError::invalid(format!("plugins.{slug}"), problem).into());
    }
    if let (Some(pg), false) = (engine.pg(), engine.is_degraded()) {
        if config.engine.migrate_on_start {
            pg.migrate().await?;
            pg.migrate_plugins(&opened.migrations()).await?;
            // The plugins' record indexes, now that the records table surely exists.
            let engine = engine.clone();
            let built = tokio::task::spawn_blocking(move || engine.build_declared_indexes()).await;
            match built {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "record indexes not built"),
                Err(e) => tracing::warn!(error = %e, "record indexes not built: the task ended abnormally"),
            }
        }
        engine.sync_datasets(pg, config).await?;
    }
    if let Some(store) = engine.sqlite() {
        // A `datahost ingest` cut off between its last file and the assembly leaves a stale document.
        for dataset in store.stale_datasets()? {
            store.assemble_if_changed(&dataset, &engine.table_collections(&dataset))?;
        }
        let ingested = engine.refresh().await?;
        if !ingested.is_empty() {
            tracing::info!(datasets = ?ingested, store = %store.path().display(), "serving ingested records");
        }
    }
    phases.mark("engine_prepare");
    let engine = engine.clone();
    let settings = config.plugins.settings.clone();
    let policies = config.plugin_policies()?;
    let registry = tokio::task::spawn_blocking(move || init_all(opened, &engine, &settings, &policies))
        .await
        .map_err(|e| PluginError::LoaderCrashed(e.to_string()))?;
    phases.mark("plugins_init");
    for p in &registry.plugins {
        metrics::gauge!("datahost_plugin_loaded", "plugin" => p.slug().to_string()).set(1.0);
    }
    for f in &registry.failures {
        metrics::gauge!("datahost_plugin_loaded", "plugin" => f.plugin.clone()).set(0.0);
    }
    crate::http::metrics::register_plugins(registry.plugins.iter().map(|p| p.slug()));
    Ok(Arc::new(registry))
}

pub fn limiter(config: &Config) -> Result<Limiter, AccessError> {
    Ok(match config.redis_url() {
        None => Limiter::Local(LocalLimiter::new(Arc::new(SystemClock))),
        Some(url) => Limiter::Redis(RedisLimiter::new(
            url,
            &config.ratelimit.redis_prefix,
            config.ratelimit.redis_timeout_ms,
            config.ratelimit.fail_mode,
            Some(config.ratelimit.redis_tls_ca_file.as_path()).filter(|p| !p.as_os_str().is_empty()),
            config.ratelimit.redis_lease_max,
        )?),
    })
}

/// Builds the full application state from a config.
pub async fn build_state(config: Config) -> Result<Arc<AppState>, StartupError> {
    build_state_timed(config, &Phases::new()).await
}

async fn build_state_timed(config: Config, phases: &Phases) -> Result<Arc<AppState>, StartupError> {
    let config = Arc::new(config);
    let engine = Engine::from_config(&config).await?;
    phases.mark("engine_open");
    let registry = load_plugins_timed(&config, &engine, phases).await?;
    let keys = Arc::new(KeyRing::new(crate::access::keys::key_source(&config, &engine)));
    if let Err(e) = keys.refresh_if_due(Duration::ZERO).await {
        if !engine.is_degraded() {
            return Err(e.into());
        }
        tracing::warn!(error = %e, "no API keys until the records engine returns");
    }
    phases.mark("keys");
    let limiter = Arc::new(limiter(&config)?);
    let state = Arc::new(AppState::new(config, registry, engine, keys, limiter));
    phases.mark("state");
    Ok(state)
}

/// Runs the server until SIGTERM or SIGINT.
pub async fn serve(config: Config) -> Result<(), StartupError> {
    let phases = Phases::new();
    let metrics_handle = crate::http::metrics::install();
    let grace = Duration::from_secs(config.server.shutdown_grace_secs);
    let bind = |key: &'static str, addr: SocketAddr| async move {
        TcpListener::bind(addr).await.map_err(|source| StartupError::Listen { key, addr, source })
    };
    let api_listener = bind("server.listen", config.server.listen).await?;
    let metrics_listener = bind("metrics.listen", config.metrics.listen).await?;

    let state = build_state_timed(config, &phases).await?;
    if state.keys.cache.is_empty() {
        tracing::warn!("no API keys issued yet: run `datahost keys issue --tier owner`");
    }
    crate::lifecycle::watch::spawn_background(state.clone());
    state.engine.warm();
    crate::sync::schedule::spawn(Arc::new(crate::sync::schedule::Scheduled {
        config: state.config.clone(),
        engine: state.engine.clone(),
        sync_freshness: state.sync_freshness.clone(),
    }));

    let limits = crate::http::conn::Limits::from_config(&state.config.server);
    let api = Api::new(state.clone());
    phases.mark("router");
    let bound = |key: &'static str, listener: &TcpListener, addr: SocketAddr| {
        listener.local_addr().map_err(|source| StartupError::Listen { key, addr, source })
    };
    let api_addr = bound("server.listen", &api_listener, state.config.server.listen)?;
    let metrics_addr = bound("metrics.listen", &metrics_listener, state.config.metrics.listen)?;
    // The stop signals are registered before the server says it is listening: a SIGTERM sent the moment it
    // does (a supervisor, a test harness) is then kept until the accept loop looks, never lost in between.
    let stop = stop_signals();
    crate::http::conn::watch_stop_signals();
    tracing::info!(api = %api_addr, metrics = %metrics_addr, plugins = state.registry.plugins.len(),
        failures = state.registry.failures.len(), engine = state.engine.address(), startup_ms = %phases.summary(),
        "datahost listening");
    println!(
        "{}",
        serde_json::json!({"event": "listening", "api": api_addr.to_string(), "metrics": metrics_addr.to_string()})
    );

    let metrics_app = crate::http::scrape::router(metrics_handle, state.clone());
    tokio::spawn(async move {
        if let Err(e) = axum::serve(metrics_listener, metrics_app).await {
            tracing::error!(error = %e, "metrics listener stopped");
        }
    });

    tracing::info!(
        max_connections = limits.max_connections,
        per_client = limits.max_connections_per_client,
        header_read_timeout_secs = limits.header_read_timeout.as_secs(),
        "connection limits"
    );
    let shutdown = async {
        stop.await;
        tracing::info!(
            grace_secs = grace.as_secs(),
            "shutting down: closing idle connections, finishing in-flight requests"
        );
    };
    let finished = crate::http::conn::serve(api_listener, api, limits, shutdown, grace).await;
    if let Some(log) = &state.access_log {
        log.flush();
    }
    if !finished {
        tracing::warn!("grace period over; exiting with requests still in flight");
        std::process::exit(1);
    }
    state.engine.close().await;
    tracing::info!("stopped");
    Ok(())
}

/// SIGTERM or SIGINT, registered with tokio by this call (not when the future is first polled): one that
/// arrives after the call and before the future is awaited still completes it. Until this call a stop signal
/// has its default action; after [`watch_stop_signals`](crate::http::conn::watch_stop_signals) it has none, so
/// a signal not registered here by then would be swallowed and the server would never stop.
fn stop_signals() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{signal, SignalKind};
    let registered = |kind: SignalKind| {
        signal(kind).map_err(|e| tracing::warn!(error = %e, signal = kind.as_raw_value(), "cannot watch a stop signal"))
    };
    let (term, interrupt) = (registered(SignalKind::terminate()), registered(SignalKind::interrupt()));
    let received = |stream: Result<tokio::signal::unix::Signal, ()>| async move {
        match stream {
            Ok(mut stream) => {
                stream.recv().await;
            }
            Err(()) => std::future::pending::<()>().await,
        }
    };
    async move {
        tokio::select! {
            _ = received(term) => {},
            _ = received(interrupt) => {},
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stop signals are registered by the call: a SIGTERM raised between the call and the first poll of its
    /// future completes that future. In `serve`'s order (the direct watch after the call), as here: registered
    /// only at the first poll, as they once were, the SIGTERM reached the direct watch alone and the future never
    /// completed (the server ran on).
    #[tokio::test]
    async fn a_stop_signal_before_the_first_poll_is_kept() {
        let stop = stop_signals();
        crate::http::conn::watch_stop_signals();
        // SAFETY: raise only sends a signal to this thread; the action tokio registered handles it.
        assert_eq!(unsafe { libc::raise(libc::SIGTERM) }, 0);
        let stopped = tokio::time::timeout(Duration::from_secs(10), stop).await;
        assert!(stopped.is_ok(), "the SIGTERM raised before the first poll stops the server");
    }
}
