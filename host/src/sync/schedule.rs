//! `datahost sync` inside `datahost serve`: the freshness shown by `/health` (refreshed from the engine, so a
//! sync run from the command line shows up too), the `[sync.schedule]` runner, and the PostgreSQL lock that
//! lets one replica sync at a time.
//!
//! A scheduled sync runs as a child process (`datahost sync <datasets> --json`, same config) started from a
//! background task: parsing big files never competes with the request path inside the server process, a
//! parser fault cannot take the server down, and the child takes the same advisory lock as a sync started by
//! hand. The server reads the child's JSON report for its metrics; the data itself arrives the way every
//! ingest does (the engine watch notices the new documents).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::engine::postgres::pool::PgEngine;
use crate::engine::{Engine, EngineError};

use super::state::{SyncStore, PG_LOCK_KEY};

/// The session-level advisory lock of a sync run, on a connection held for the run.
pub struct PgLock {
    client: Option<deadpool_postgres::Object>,
}

impl PgLock {
    /// `None` when another session holds it.
    pub async fn try_acquire(pg: &PgEngine) -> Result<Option<Self>, EngineError> {
        let client = pg.client().await?;
        let doing = || format!("cannot take the sync lock in the records engine at {}", pg.address());
        let row = client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&PG_LOCK_KEY])
            .await
            .map_err(|source| EngineError::Postgres { doing: doing(), source })?;
        Ok(row.get::<_, bool>(0).then_some(Self { client: Some(client) }))
    }

    pub async fn release(mut self) {
        if let Some(client) = self.client.take() {
            if client.execute("SELECT pg_advisory_unlock($1)", &[&PG_LOCK_KEY]).await.is_err() {
                // Closing the session releases it too.
                drop(deadpool_postgres::Object::take(client));
            }
        }
    }
}

impl Drop for PgLock {
    fn drop(&mut self) {
        // Never hand a connection that still holds the lock back to the pool: close it instead.
        if let Some(client) = self.client.take() {
            drop(deadpool_postgres::Object::take(client));
        }
    }
}

/// (last attempt, last success), RFC 3339.
type Times = (Option<String>, Option<String>);

/// Per dataset: when it was last synced successfully, and last attempted, from the engine.
#[derive(Debug, Default)]
pub struct Freshness {
    map: RwLock<HashMap<String, Times>>,
}

impl Freshness {
    /// The last successful sync of `dataset`.
    pub fn last_success(&self, dataset: &str) -> Option<String> {
        self.map.read().unwrap_or_else(|e| e.into_inner()).get(dataset).and_then(|(_, s)| s.clone())
    }

    fn last_attempt(&self, dataset: &str) -> Option<String> {
        self.map.read().unwrap_or_else(|e| e.into_inner()).get(dataset).and_then(|(a, _)| a.clone())
    }

    fn replace(&self, rows: Vec<(String, Option<String>, Option<String>)>) {
        let map = rows.into_iter().map(|(d, a, s)| (d, (a, s))).collect();
        *self.map.write().unwrap_or_else(|e| e.into_inner()) = map;
    }
}

/// What the refresher and the scheduler read: the server's configuration and engine, and the freshness they
/// keep up to date (the server state's `sync_freshness`, shown by `/health`).
pub struct Scheduled {
    pub config: Arc<Config>,
    pub engine: Arc<Engine>,
    pub sync_freshness: Arc<Freshness>,
}

/// Seconds since an RFC 3339 time.
pub fn age_secs(at: &str) -> Option<i64> {
    let t = chrono::DateTime::parse_from_rfc3339(at).ok()?;
    Some((chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_seconds().max(0))
}

async fn refresh(state: &Scheduled) {
    let Some(store) = SyncStore::of(&state.engine) else { return };
    match store.freshness().await {
        Ok(rows) => {
            for (dataset, _, success) in &rows {
                let Some(success) = success.as_deref() else { continue };
                match chrono::DateTime::parse_from_rfc3339(success) {
                    Ok(t) => {
                        let name = "datahost_sync_dataset_last_success_timestamp_seconds";
                        metrics::gauge!(name, "dataset" => dataset.clone()).set(t.timestamp() as f64);
                    }
                    // Said: the gauge and /health's `syncAgeSecs` stay empty for it.
                    Err(e) => tracing::warn!(dataset, last_success_at = success, "unreadable sync time: {e}"),
                }
            }
            state.sync_freshness.replace(rows);
        }
        Err(e) => tracing::debug!(error = %e, "cannot read sync freshness"),
    }
}

/// Starts the freshness refresher and, when `[sync.schedule]` names datasets, the scheduler.
pub fn spawn(state: Arc<Scheduled>) {
    let every = Duration::from_secs(state.config.engine.reload_interval_secs.max(1));
    let fresh_state = state.clone();
    tokio::spawn(async move {
        loop {
            refresh(&fresh_state).await;
            tokio::time::sleep(every).await;
        }
    });
    let mut plan: Vec<(String, Duration)> = Vec::new();
    for (dataset, text) in &state.config.sync.schedule {
        match crate::config::parse_interval(text) {
            Ok(d) => plan.push((dataset.clone(), d)),
            Err(e) => tracing::error!(dataset = %dataset, error = %e, "sync.schedule entry ignored"),
        }
    }
    if plan.is_empty() {
        return;
    }
    tracing::info!(schedule = ?plan, "scheduled sync on");
    tokio::spawn(async move {
        let mut tried: HashMap<String, Instant> = HashMap::new();
        loop {
            refresh(&state).await;
            let due: Vec<String> = plan
                .iter()
                .filter(|(dataset, every)| {
                    let here = tried.get(dataset).is_some_and(|t| t.elapsed() < *every);
                    let anywhere = state
                        .sync_freshness
                        .last_attempt(dataset)
                        .and_then(|a| age_secs(&a))
                        .is_some_and(|age| (age as u64) < every.as_secs());
                    !here && !anywhere
                })
                .map(|(d, _)| d.clone())
                .collect();
            if !due.is_empty() {
                for d in &due {
                    tried.insert(d.clone(), Instant::now());
                }
                run_child(&state, &due).await;
                refresh(&state).await;
            }
            // Each pass of the scheduler, due or not: shows it is alive (and lets a test wait for passes).
            metrics::counter!("datahost_sync_schedule_checks_total").increment(1);
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    });
}

/// Runs `datahost sync <due> --json` as a child process and records its report's metrics.
async fn run_child(state: &Scheduled, due: &[String]) {
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return tracing::error!(error = %e, "scheduled sync: cannot find the datahost executable"),
    };
    let mut cmd = tokio::process::Command::new(exe);
    if let Some(file) = &state.config.source_file {
        cmd.arg("--config").arg(file);
    }
    cmd.arg("sync").args(due).arg("--json");
    cmd.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::inherit());
    cmd.kill_on_drop(true);
    tracing::info!(datasets = ?due, "scheduled sync starting");
    let output = match cmd.output().await {
        Ok(o) => o,
        Err(e) => return tracing::error!(error = %e, "scheduled sync: cannot start the child process"),
    };
    match serde_json::from_slice::<serde_json::Value>(&output.stdout) {
        Ok(report) => {
            if let Some(why) = report.get("skipped").and_then(|s| s.as_str()) {
                return tracing::info!(datasets = ?due, "scheduled sync skipped: {why}");
            }
            for source in report.get("sources").and_then(|s| s.as_array()).into_iter().flatten() {
                let r = match serde_json::from_value::<ReportForMetrics>(source.clone()) {
                    Ok(r) => r,
                    Err(e) => {
                        tracing::warn!(datasets = ?due, "a source of the sync report does not read, no metrics: {e}");
                        continue;
                    }
                };
                super::source_run::record_metrics(&super::source_run::SourceReport {
                    source: r.source,
                    fetched: r.fetched,
                    bytes: r.bytes,
                    records: r.records,
                    errors: r.errors,
                    ..Default::default()
                });
            }
            let errors = report.get("errors").and_then(|e| e.as_u64()).unwrap_or(0);
            tracing::info!(datasets = ?due, errors, status = ?output.status.code(), "scheduled sync finished");
        }
        Err(_) => tracing::error!(datasets = ?due, status = ?output.status.code(), "scheduled sync failed (no report)"),
    }
}

#[derive(serde::Deserialize)]
struct ReportForMetrics {
    source: String,
    #[serde(default)]
    fetched: u64,
    #[serde(default)]
    bytes: u64,
    #[serde(default)]
    records: u64,
    #[serde(default)]
    errors: Vec<String>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn ages_are_counted_from_rfc3339_times() {
        let an_hour_ago = (chrono::Utc::now() - chrono::Duration::hours(1)).to_rfc3339();
        let age = super::age_secs(&an_hour_ago).unwrap();
        assert!((3599..=3601).contains(&age), "{age}");
        assert_eq!(super::age_secs("yesterday"), None);
    }
}
