//! The records engine: where datasets live. Plugins read each dataset as one document; it is the plugin's
//! shipped demo seed until records of the dataset have been ingested, then the document assembled from those
//! records (`records.rs`), never a mix. The embedded engine keeps ingested records in a SQLite file under
//! `engine.data_dir` (`sqlite.rs`) and needs nothing installed; the PostgreSQL engine (`pg.rs`) keeps them in
//! tables shared by every replica and answers parameterised queries for datasets too large for memory. Either
//! way, plugins reach data only through the host services backed by this type, and the engine reports which
//! datasets changed ([`Engine::refresh`]) without knowing who listens.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use datahost_plugin_api::ingest::IngestedInfo;

use crate::companies::CompanyIndex;
use crate::config::{redact_url, Config};
use crate::pg::PgEngine;
use crate::sqlite::SqliteStore;

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
    /// The embedded engine's durable store (absent for throw-away engines such as `datahost openapi`).
    sqlite: Option<SqliteStore>,
    /// Per dataset, what the host knows of its ingested records; absent: the dataset serves its demo seed.
    ingested: RwLock<HashMap<String, IngestedInfo>>,
    /// The `companies` reference dataset, indexed.
    companies: RwLock<Arc<CompanyIndex>>,
}

impl Engine {
    /// An embedded engine that keeps nothing (seeds only): for commands that just inspect plugins.
    pub fn embedded() -> Self {
        Self::with_pg("embedded".into(), None)
    }

    /// The embedded engine with its durable store under `data_dir`.
    pub fn embedded_at(data_dir: &std::path::Path) -> Result<Self, String> {
        let store = SqliteStore::open(data_dir)?;
        let mut engine = Self::with_pg("embedded".into(), None);
        engine.sqlite = Some(store);
        Ok(engine)
    }

    fn with_pg(address: String, pg: Option<PgEngine>) -> Self {
        Self {
            sqlite: None,
            ingested: RwLock::new(HashMap::new()),
            companies: RwLock::new(Arc::new(CompanyIndex::default())),
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
            return Ok(Arc::new(Self::embedded_at(&config.engine.data_dir)?));
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

    pub fn sqlite(&self) -> Option<&SqliteStore> {
        self.sqlite.as_ref()
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
            let info = crate::records::ingested_info(&snapshot);
            {
                let mut ingested = self.ingested.write().unwrap_or_else(|e| e.into_inner());
                match info {
                    Some(info) => ingested.insert(dataset.to_string(), info),
                    None => ingested.remove(dataset),
                };
            }
            if dataset == crate::companies::DATASET {
                match CompanyIndex::from_document(&snapshot) {
                    Ok(index) => *self.companies.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(index),
                    Err(e) => tracing::error!(error = %e, "keeping the previous company list"),
                }
            }
            map.insert(dataset.to_string(), snapshot);
            self.generation.fetch_add(1, Ordering::Relaxed);
        }
        changed
    }

    /// What is known of a dataset's ingested records; `None` while it serves its demo seed.
    pub fn ingested(&self, dataset: &str) -> Option<IngestedInfo> {
        self.ingested.read().unwrap_or_else(|e| e.into_inner()).get(dataset).cloned()
    }

    /// The company reference index (empty until `companies` is ingested).
    pub fn companies(&self) -> Arc<CompanyIndex> {
        self.companies.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Brings the cached documents in line with the durable store (SQLite or PostgreSQL) and returns the
    /// names of the datasets that changed. Errors mean the store could not be read; nothing cached is lost.
    pub async fn refresh(&self) -> Result<Vec<String>, String> {
        let sums = match (&self.pg, &self.sqlite) {
            (Some(pg), _) => pg.dataset_checksums().await?,
            (None, Some(store)) => store.dataset_checksums()?,
            (None, None) => return Ok(Vec::new()),
        };
        let mut changed = Vec::new();
        for (name, sum) in &sums {
            if self.checksum(name).as_deref() == Some(sum.as_str()) {
                continue;
            }
            let document = match (&self.pg, &self.sqlite) {
                (Some(pg), _) => pg.fetch_dataset(name).await?,
                (None, Some(store)) => store.fetch_dataset(name)?,
                (None, None) => None,
            };
            if let Some(document) = document {
                self.set_dataset_with_checksum(name, Arc::from(document.as_str()), sum.clone());
                changed.push(name.clone());
            }
        }
        Ok(changed)
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
