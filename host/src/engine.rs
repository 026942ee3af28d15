//! The records engine: where datasets live. The embedded engine keeps dataset snapshots in memory, seeded from
//! the plugins' shipped snapshots, and needs nothing installed. The PostgreSQL engine (`pg.rs`) stores them
//! in tables, serves them to every replica, and answers parameterised queries for datasets too large for
//! memory. Either way, plugins reach data only through the host services backed by this type.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::config::{redact_url, Config};
use crate::pg::PgEngine;

/// The records engine of one host process.
pub struct Engine {
    /// Dataset snapshots as JSON text, the view plugins read (in engine mode, a cache of PostgreSQL).
    datasets: RwLock<HashMap<String, Arc<str>>>,
    /// Seed snapshots shipped by plugins, kept for `load-seeds` and for degraded starts.
    seeds: RwLock<HashMap<String, Arc<str>>>,
    address: String,
    healthy: AtomicBool,
    /// SHA-256 of each cached snapshot as stored in PostgreSQL, to spot changes cheaply.
    checksums: RwLock<HashMap<String, String>>,
    /// Started without its PostgreSQL engine (`engine.degraded_start`): serving seeds until it returns.
    degraded: AtomicBool,
    /// Bumped whenever a dataset changes, so the host knows to re-initialise the plugins that read it.
    generation: AtomicU64,
    pg: Option<PgEngine>,
}

impl Engine {
    /// The embedded engine.
    pub fn embedded() -> Self {
        Self::with_pg("embedded".into(), None)
    }

    fn with_pg(address: String, pg: Option<PgEngine>) -> Self {
        Self {
            datasets: RwLock::new(HashMap::new()),
            seeds: RwLock::new(HashMap::new()),
            address,
            healthy: AtomicBool::new(true),
            checksums: RwLock::new(HashMap::new()),
            degraded: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            pg,
        }
    }

    /// Builds the engine the config names. For PostgreSQL this connects (or fails with the redacted address,
    /// unless `engine.degraded_start` allows starting without it).
    pub async fn from_config(config: &Config) -> Result<Arc<Self>, String> {
        if config.engine_is_embedded() {
            return Ok(Arc::new(Self::embedded()));
        }
        let address = redact_url(&config.engine.url);
        let pg = PgEngine::connect(config).await?;
        let reachable = pg.ping().await;
        let engine = Self::with_pg(address.clone(), Some(pg));
        if let Err(e) = reachable {
            if !config.engine.degraded_start {
                return Err(format!(
                    "{e} (start anyway with engine.degraded_start = true to serve the shipped seeds until it returns)"
                ));
            }
            tracing::error!(error = %e, "records engine unreachable at start; degraded: serving shipped seeds");
            engine.degraded.store(true, Ordering::Relaxed);
            engine.set_healthy(false);
        }
        Ok(Arc::new(engine))
    }

    pub fn kind(&self) -> &'static str {
        if self.pg.is_some() {
            "postgres"
        } else {
            "embedded"
        }
    }

    pub fn pg(&self) -> Option<&PgEngine> {
        self.pg.as_ref()
    }

    /// The configured address without credentials (shown by /health).
    pub fn address(&self) -> &str {
        &self.address
    }

    pub fn is_healthy(&self) -> bool {
        self.healthy.load(Ordering::Relaxed)
    }

    pub fn set_healthy(&self, healthy: bool) {
        self.healthy.store(healthy, Ordering::Relaxed);
    }

    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    /// Registers a plugin's seed snapshot. In embedded mode it becomes the dataset.
    pub fn register_seed(&self, dataset: &str, snapshot: Arc<str>) {
        self.seeds.write().unwrap_or_else(|e| e.into_inner()).insert(dataset.to_string(), snapshot.clone());
        if self.pg.is_none() || self.is_degraded() {
            self.datasets.write().unwrap_or_else(|e| e.into_inner()).insert(dataset.to_string(), snapshot);
        }
    }

    pub fn seeds(&self) -> Vec<(String, Arc<str>)> {
        let mut v: Vec<_> =
            self.seeds.read().unwrap_or_else(|e| e.into_inner()).iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    pub fn is_degraded(&self) -> bool {
        self.degraded.load(Ordering::Relaxed)
    }

    /// The checksum of the cached snapshot as PostgreSQL reported it.
    pub fn checksum(&self, dataset: &str) -> Option<String> {
        self.checksums.read().unwrap_or_else(|e| e.into_inner()).get(dataset).cloned()
    }

    /// Replaces the cached snapshot with one read from PostgreSQL.
    pub fn set_dataset_with_checksum(&self, dataset: &str, snapshot: Arc<str>, checksum: String) -> bool {
        self.checksums.write().unwrap_or_else(|e| e.into_inner()).insert(dataset.to_string(), checksum);
        self.degraded.store(false, Ordering::Relaxed);
        self.set_dataset(dataset, snapshot)
    }

    /// Replaces the cached snapshot of a dataset; returns whether it changed.
    pub fn set_dataset(&self, dataset: &str, snapshot: Arc<str>) -> bool {
        let mut map = self.datasets.write().unwrap_or_else(|e| e.into_inner());
        let changed = map.get(dataset).is_none_or(|old| **old != *snapshot);
        if changed {
            map.insert(dataset.to_string(), snapshot);
            self.generation.fetch_add(1, Ordering::Relaxed);
        }
        changed
    }

    /// The snapshot of a dataset.
    pub fn load_dataset(&self, dataset: &str) -> Result<Arc<str>, String> {
        if let Some(s) = self.datasets.read().unwrap_or_else(|e| e.into_inner()).get(dataset) {
            return Ok(s.clone());
        }
        Err(format!("dataset `{dataset}` is not in the records engine ({})", self.kind()))
    }

    pub fn dataset_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.datasets.read().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect();
        v.sort();
        v
    }

    /// Runs a plugin's parameterised query (`{"sql", "params"}`), answering `{"rows": [...]}`.
    pub fn query(&self, plugin_slug: &str, request_json: &str) -> Result<String, String> {
        match &self.pg {
            Some(pg) => pg.plugin_query(plugin_slug, request_json),
            None => Err("the embedded records engine does not run SQL; use load_dataset".into()),
        }
    }
}
