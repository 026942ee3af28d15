//! Background upkeep of a serving host: reloads API keys when their store changes, watches the records engine
//! (health; changed datasets through LISTEN/NOTIFY in PostgreSQL mode and a periodic checksum check in both
//! modes) and re-initialises the plugins that read a dataset the engine reports as changed, emptying the
//! response cache after each. This is the glue between the engine (which knows nothing of HTTP or plugins), the
//! plugin registry and the response cache.

use std::sync::Arc;
use std::time::Duration;

use datahost_plugin_api::Migration;

use crate::engine::postgres::pool::PgEngine;
use crate::http::state::AppState;

/// Starts the background tasks.
pub fn spawn_background(state: Arc<AppState>) {
    let interval = Duration::from_secs(state.config.engine.reload_interval_secs.max(1));
    let keys_state = state.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(interval).await;
            if let Err(e) = keys_state.keys.refresh_if_due(interval / 2).await {
                tracing::warn!(error = %e, "cannot reload API keys; keeping the previous set");
            }
        }
    });
    let wake = Arc::new(tokio::sync::Notify::new());
    if state.engine.pg().is_some() {
        let listen_state = state.clone();
        let listen_wake = wake.clone();
        tokio::spawn(async move {
            loop {
                if let Some(pg) = listen_state.engine.pg() {
                    match pg.listen(listen_wake.clone()).await {
                        // The engine is closing: the host stops.
                        Ok(()) => return,
                        Err(e) => tracing::debug!(error = %e, "dataset LISTEN ended; retrying"),
                    }
                }
                tokio::time::sleep(interval).await;
            }
        });
    }
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(interval) => {},
                _ = wake.notified() => {},
            }
            check_engine(&state).await;
        }
    });
}

/// After a degraded start, once the engine answers: apply migrations, seed what is missing, load the stored
/// datasets and re-initialise every plugin on them.
async fn recover_from_degraded_start(state: &Arc<AppState>, pg: &PgEngine) {
    let plugin_migrations: Vec<(String, Vec<Migration>)> =
        state.registry.plugins.iter().map(|p| (p.slug().to_string(), p.migrations.clone())).collect();
    let result = async {
        pg.ping().await?;
        if state.config.engine.migrate_on_start {
            pg.migrate().await?;
            pg.migrate_plugins(&plugin_migrations).await?;
        }
        state.engine.sync_datasets(pg, &state.config).await
    }
    .await;
    if let Err(e) = result {
        tracing::debug!(error = %e, "records engine still unavailable");
        return;
    }
    tracing::info!(engine = pg.address(), "records engine reachable: leaving degraded mode");
    state.engine.set_healthy(true);
    reinit(state, state.registry.plugins.clone(), "recovery").await;
    if let Err(e) = state.keys.refresh_if_due(Duration::ZERO).await {
        tracing::warn!(error = %e, "cannot load API keys after recovery");
    }
}

/// One round of the engine watch: health, then changed datasets.
pub async fn check_engine(state: &Arc<AppState>) {
    if let (Some(pg), true) = (state.engine.pg(), state.engine.is_degraded()) {
        recover_from_degraded_start(state, pg).await;
        return;
    }
    let changed = match state.engine.refresh().await {
        Ok(changed) => changed,
        Err(e) => {
            if state.engine.is_healthy() {
                tracing::error!(error = %e, "records engine lost; serving the datasets already loaded");
            }
            state.engine.set_healthy(false);
            return;
        }
    };
    if !state.engine.is_healthy() {
        tracing::info!(engine = state.engine.address(), "records engine reachable again");
    }
    state.engine.set_healthy(true);
    if changed.is_empty() {
        return;
    }
    tracing::info!(datasets = ?changed, "datasets changed in the records engine");
    // Every plugin may resolve companies through the host, so a new company list reaches them all.
    let everyone = changed.iter().any(|c| c == crate::engine::companies::DATASET);
    let plugins: Vec<_> = state
        .registry
        .plugins
        .iter()
        .filter(|p| everyone || p.reads().any(|d| changed.iter().any(|c| c == d)))
        .cloned()
        .collect();
    reinit(state, plugins, "a dataset change").await;
}

/// Re-initialises `plugins` one by one: those that own a dataset first, then the derived ones (owning none),
/// which read the owners' routes on their next request and must see the owners' new instances. A failed
/// reload marks the plugin degraded (`/ready` 503) until one succeeds.
async fn reinit(state: &AppState, mut plugins: Vec<Arc<crate::plugins::LoadedPlugin>>, why: &str) {
    plugins.sort_by_key(|p| p.manifest.datasets.is_empty());
    for plugin in plugins {
        let slug = plugin.slug().to_string();
        let result = tokio::task::spawn_blocking(move || plugin.reinit()).await;
        // After each re-init, even a failed one: the answers of this plugin, and of any plugin that reads it
        // through `route.get`, may have changed (one generation for the whole host keeps that simple).
        state.response_cache.invalidate();
        match result {
            Ok(Ok(())) => {
                tracing::info!(plugin = %slug, "reloaded after {why}");
                state.plugin_health.reloaded(&slug);
            }
            Ok(Err(e)) => {
                tracing::error!(plugin = %slug, error = %e, "reload failed; still serving the previous data");
                state.plugin_health.reload_failed(&slug);
            }
            Err(e) => {
                tracing::error!(plugin = %slug, error = %e, "reload crashed; still serving the previous data");
                state.plugin_health.reload_failed(&slug);
            }
        }
    }
}
