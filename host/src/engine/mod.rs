//! The records engine: where datasets live. Plugins read each dataset as one document; it is the plugin's
//! shipped demo seed until records of the dataset have been ingested, then the document assembled from those
//! records (`records.rs`), never a mix. The embedded engine keeps ingested records in a SQLite file under
//! `engine.data_dir` (`sqlite.rs`) and needs nothing installed; the PostgreSQL engine (`postgres/`) keeps them in
//! tables shared by every replica and answers parameterised queries for datasets too large for memory. Either
//! way, plugins reach data only through the host services backed by this type, and the engine reports which
//! datasets changed ([`Engine::refresh`]) without knowing who listens.
//!
//! This file is the facade, the `Engine` the rest of the host holds; the folder holds what it is made of:
//! `records` (engine-neutral ingest rules), `words` (word indexes), `sqlite`, `postgres/`, and `companies`
//! (the company reference index). Nothing here imports a higher layer: only `config` and `tls` below it.

pub mod companies;
pub mod error;
pub mod postgres;
pub mod records;
pub mod sqlite;
pub mod words;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use datahost_plugin_api::ingest::IngestedInfo;
#[cfg(test)]
use datahost_plugin_api::query::RecordsPage;
use datahost_plugin_api::query::{RecordIndex, RecordsQuery};
use datahost_plugin_api::words::{WordHits, WordIndex, WordPage, WordSearch, WORDS_CALL, WORD_PAGE_CALL};

use crate::config::{redact_url, Config};
use crate::engine::companies::CompanyIndex;
pub use crate::engine::error::EngineError;
use crate::engine::postgres::pool::PgEngine;
use crate::engine::sqlite::SqliteStore;

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
    /// Per dataset, the record indexes its owner declared: the only lookups `records.query` runs.
    indexes: RwLock<HashMap<String, Vec<RecordIndex>>>,
    /// The word index each table-backed dataset's owner declared (`records.words`).
    word_indexes: RwLock<HashMap<String, WordIndex>>,
    /// The totals of word searches counted before, for their later pages (`words::KeptTotals`).
    kept_totals: words::KeptTotals,
    /// `engine.data_dir`: where plugins get a directory of their own for derived files (a search index)
    /// that can be rebuilt from the records. Local to this host in either engine; `None` for an engine that
    /// keeps nothing.
    data_dir: Option<std::path::PathBuf>,
}

impl Engine {
    /// An embedded engine that keeps nothing (seeds only): for commands that just inspect plugins.
    pub fn embedded() -> Self {
        Self::with_pg("embedded".into(), None)
    }

    /// The embedded engine with its durable store under `data_dir`.
    pub fn embedded_at(data_dir: &std::path::Path) -> Result<Self, EngineError> {
        let store = SqliteStore::open(data_dir)?;
        let mut engine = Self::with_pg("embedded".into(), None);
        engine.sqlite = Some(store);
        engine.data_dir = Some(data_dir.to_path_buf());
        Ok(engine)
    }

    fn with_pg(address: String, pg: Option<PgEngine>) -> Self {
        Self {
            sqlite: None,
            ingested: RwLock::new(HashMap::new()),
            companies: RwLock::new(Arc::new(CompanyIndex::default())),
            indexes: RwLock::new(HashMap::new()),
            word_indexes: RwLock::new(HashMap::new()),
            kept_totals: words::KeptTotals::default(),
            datasets: RwLock::new(HashMap::new()),
            seeds: RwLock::new(HashMap::new()),
            address,
            healthy: AtomicBool::new(true),
            checksums: RwLock::new(HashMap::new()),
            degraded: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            pg,
            data_dir: None,
        }
    }

    /// Builds the engine the config names. For PostgreSQL this connects (or fails with the redacted address,
    /// unless `engine.degraded_start` allows starting without it).
    pub async fn from_config(config: &Config) -> Result<Arc<Self>, EngineError> {
        if config.engine_is_embedded() {
            return Ok(Arc::new(Self::embedded_at(&config.engine.data_dir)?));
        }
        let address = redact_url(&config.engine.url);
        let pg = PgEngine::connect(config).await?;
        let reachable = pg.ping().await;
        let mut engine = Self::with_pg(address.clone(), Some(pg));
        engine.data_dir = Some(config.engine.data_dir.clone());
        if let Err(e) = reachable {
            if !config.engine.degraded_start {
                return Err(EngineError::Unreachable(format!(
                    "{e} (start anyway with engine.degraded_start = true to serve the shipped seeds until it returns)"
                )));
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

    /// A directory of the plugin's own under `engine.data_dir` (`plugins/<slug>`, created, owner-only), for
    /// files derived from the records that are worth keeping across restarts.
    pub fn plugin_dir(&self, slug: &str) -> Result<std::path::PathBuf, EngineError> {
        let base = self
            .data_dir
            .as_ref()
            .ok_or(EngineError::Unsupported("this engine keeps no files (no engine.data_dir)"))?;
        let dir = base.join("plugins").join(slug);
        std::fs::create_dir_all(&dir).map_err(|source| EngineError::Io {
            doing: "creating",
            path: dir.clone(),
            source,
        })?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // The folder still serves; said, since others on the machine may then read it.
            if let Err(e) = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)) {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot make the plugin folder owner-only");
            }
        }
        Ok(dir)
    }

    /// A serving host on PostgreSQL opens, in the background, the connections one word search runs its
    /// statements on at once, plus one for the rest of the host ([`PgEngine::warm`]). Nothing on the embedded
    /// engine.
    pub fn warm(self: &Arc<Self>) {
        if self.pg.is_none() || self.is_degraded() {
            return;
        }
        let engine = self.clone();
        tokio::spawn(async move {
            if let Some(pg) = engine.pg() {
                pg.warm(words::statements_at_once(records::Dialect::Postgres) + 1).await;
            }
        });
    }

    pub fn pg(&self) -> Option<&PgEngine> {
        self.pg.as_ref()
    }

    /// At the end of a process (a stopping server, a finished command): PostgreSQL's connections end the
    /// regular way (`PgEngine::close`, waiting up to two seconds). Nothing to do for the embedded engine, whose
    /// writes are committed as they are made.
    pub async fn close(&self) {
        if let Some(pg) = &self.pg {
            pg.close(std::time::Duration::from_secs(2)).await;
        }
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
            let info = crate::engine::records::ingested_info(&snapshot);
            {
                let mut ingested = self.ingested.write().unwrap_or_else(|e| e.into_inner());
                match info {
                    Some(info) => ingested.insert(dataset.to_string(), info),
                    None => ingested.remove(dataset),
                };
            }
            if dataset == crate::engine::companies::DATASET {
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
    pub async fn refresh(&self) -> Result<Vec<String>, EngineError> {
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
    pub fn load_dataset(&self, dataset: &str) -> Result<Arc<str>, EngineError> {
        if let Some(s) = self.datasets.read().unwrap_or_else(|e| e.into_inner()).get(dataset) {
            return Ok(s.clone());
        }
        Err(EngineError::NoDataset { dataset: dataset.to_string(), engine: self.kind() })
    }

    pub fn dataset_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.datasets.read().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect();
        v.sort();
        v
    }

    /// Records the indexes a plugin declared for the dataset it owns and builds them in the store. A build
    /// that fails (the engine is unreachable) is retried by the next declaration; queries still run, slower.
    pub fn declare_indexes(&self, dataset: &str, indexes: &[RecordIndex]) -> Result<(), EngineError> {
        if indexes.is_empty() {
            return Ok(());
        }
        self.indexes.write().unwrap_or_else(|e| e.into_inner()).insert(dataset.to_string(), indexes.to_vec());
        for index in indexes {
            match (&self.pg, &self.sqlite) {
                (Some(pg), _) => pg.ensure_index(dataset, index)?,
                (None, Some(store)) => store.ensure_index(dataset, index)?,
                (None, None) => {}
            }
        }
        Ok(())
    }

    /// Records the word index a plugin declared for the dataset it owns and makes sure its table is built (from
    /// the records held, the first time: minutes for tens of millions of records). A build that fails is retried
    /// by the next declaration; searches fail until then.
    pub fn declare_word_index(&self, dataset: &str, index: &WordIndex) -> Result<(), EngineError> {
        self.word_indexes.write().unwrap_or_else(|e| e.into_inner()).insert(dataset.to_string(), index.clone());
        match (&self.pg, &self.sqlite) {
            (Some(pg), _) => pg.ensure_word_index(dataset, index),
            (None, Some(store)) => store.ensure_word_index(dataset, index),
            (None, None) => Ok(()),
        }
    }

    /// The word index declared for `dataset`, which every ingested file of it refreshes.
    pub fn word_index(&self, dataset: &str) -> Option<WordIndex> {
        self.word_indexes.read().unwrap_or_else(|e| e.into_inner()).get(dataset).cloned()
    }

    /// Answers `records.words` for a plugin that may read `readable` datasets, on the declared word index only.
    pub fn search_words(&self, readable: &[String], q: &WordSearch) -> Result<WordHits, EngineError> {
        Ok(self.search(readable, q, false)?.hits)
    }

    /// Answers `records.words.page`: the hits of [`Engine::search_words`] and each document's records.
    pub fn search_word_page(&self, readable: &[String], q: &WordSearch) -> Result<WordPage, EngineError> {
        self.search(readable, q, true)
    }

    fn search(&self, readable: &[String], q: &WordSearch, with_records: bool) -> Result<WordPage, EngineError> {
        if !readable.iter().any(|d| d == &q.dataset) {
            return Err(EngineError::NotReadable(q.dataset.clone()));
        }
        if let Some(problem) = q.problem(self.word_index(&q.dataset).as_ref()) {
            let call = if with_records { WORD_PAGE_CALL } else { WORDS_CALL };
            return Err(EngineError::Undeclared { call, dataset: q.dataset.clone(), problem });
        }
        match (&self.pg, &self.sqlite) {
            (Some(pg), _) => pg.search_words(q, with_records, &self.kept_totals),
            (None, Some(store)) => store.search_words(q, with_records, &self.kept_totals),
            (None, None) => Ok(WordPage::default()),
        }
    }

    /// Builds every declared index again (idempotent): after host migrations have created the records table
    /// on a fresh PostgreSQL database, where the first attempt at plugin load found no table yet.
    pub fn build_declared_indexes(&self) -> Result<(), EngineError> {
        let declared = self.indexes.read().unwrap_or_else(|e| e.into_inner()).clone();
        for (dataset, indexes) in declared {
            self.declare_indexes(&dataset, &indexes)?;
        }
        let words = self.word_indexes.read().unwrap_or_else(|e| e.into_inner()).clone();
        for (dataset, index) in words {
            self.declare_word_index(&dataset, &index)?;
        }
        Ok(())
    }

    /// The collections of `dataset` kept in the table (its owner declared record indexes on them): they stay
    /// out of the dataset's document and the plugin queries the records it needs.
    pub fn table_collections(&self, dataset: &str) -> Vec<String> {
        let indexes = self.indexes.read().unwrap_or_else(|e| e.into_inner());
        let mut collections: Vec<String> =
            indexes.get(dataset).into_iter().flatten().map(|i| i.collection.clone()).collect();
        collections.sort();
        collections.dedup();
        collections
    }

    /// Answers `records.query` for a plugin that may read `readable` datasets: only on a declared index, and
    /// only over ingested records (a dataset serving its demo seed has none; its plugin reads the seed). The page's
    /// JSON text, the stored records written into it as they are.
    pub fn query_records_json(&self, readable: &[String], q: &RecordsQuery) -> Result<String, EngineError> {
        records::page_json(q, self.query_rows(readable, q)?)
    }

    /// The same page read into values: the tests' oracle for [`Self::query_records_json`].
    #[cfg(test)]
    pub fn query_records(&self, readable: &[String], q: &RecordsQuery) -> Result<RecordsPage, EngineError> {
        records::page(q, self.query_rows(readable, q)?)
    }

    fn query_rows(&self, readable: &[String], q: &RecordsQuery) -> Result<Vec<String>, EngineError> {
        if !readable.iter().any(|d| d == &q.dataset) {
            return Err(EngineError::NotReadable(q.dataset.clone()));
        }
        let declared = self.indexes.read().unwrap_or_else(|e| e.into_inner()).get(&q.dataset).cloned();
        if let Some(problem) = q.problem(declared.as_deref().unwrap_or_default()) {
            return Err(EngineError::Undeclared { call: "records.query", dataset: q.dataset.clone(), problem });
        }
        match (&self.pg, &self.sqlite) {
            (Some(pg), _) => pg.query_rows(q),
            (None, Some(store)) => store.query_rows(q),
            (None, None) => Ok(Vec::new()),
        }
    }

    /// Runs a plugin's parameterised query (`{"sql", "params"}`), answering `{"rows": [...]}`.
    pub fn query(&self, plugin_slug: &str, request_json: &str) -> Result<String, EngineError> {
        match &self.pg {
            Some(pg) => pg.plugin_query(plugin_slug, request_json),
            None => Err(EngineError::Unsupported("the embedded records engine does not run SQL; use load_dataset")),
        }
    }
}

impl Engine {
    /// Brings the dataset cache in line with PostgreSQL: seeds datasets that are missing (when
    /// `engine.seed_on_start`), then loads every stored snapshot. Runs before any plugin `init`.
    pub async fn sync_datasets(&self, pg: &PgEngine, config: &Config) -> Result<(), EngineError> {
        if config.engine.seed_on_start {
            for (name, snapshot) in self.seeds() {
                if pg.put_dataset_if_missing(&name, &snapshot).await? {
                    tracing::info!(dataset = %name, "seeded missing dataset into the records engine");
                }
            }
        }
        let sums = pg.dataset_checksums().await?;
        for name in sums.keys() {
            if let Some(snapshot) = pg.fetch_dataset(name).await? {
                self.set_dataset_with_checksum(name, Arc::from(snapshot.as_str()), sums[name].clone());
            }
        }
        Ok(())
    }
}

/// A migrated PostgreSQL engine on a new database `<prefix>_<pid>` of the local server, for the engine's tests.
#[cfg(test)]
pub(crate) struct TestPg {
    pub engine: Arc<Engine>,
    /// A connection of its own to the new database, for reading plans and the catalogue.
    pub client: tokio_postgres::Client,
    admin: tokio_postgres::Client,
    name: String,
    _config_dir: tempfile::TempDir,
}

#[cfg(test)]
impl TestPg {
    pub async fn create(prefix: &str) -> Self {
        let name = format!("{prefix}_{}", std::process::id());
        let admin = Self::connect("postgres").await;
        Self::drop_left_behind(&admin, prefix).await;
        admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name}")).await.unwrap();
        admin.batch_execute(&format!("CREATE DATABASE {name}")).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pg.toml");
        std::fs::write(&file, format!("[engine]\nurl = \"postgres://postgres@127.0.0.1:5432/{name}\"\n")).unwrap();
        let engine = Engine::from_config(&Config::load(Some(&file)).unwrap()).await.unwrap();
        engine.pg().unwrap().migrate().await.unwrap();
        let client = Self::connect(&name).await;
        Self { engine, client, admin, name, _config_dir: dir }
    }

    /// Drops the databases of this prefix that runs no longer alive left behind: a test that fails panics
    /// before its [`TestPg::drop_database`], so each failed run left one (`prefix_<process id>`).
    async fn drop_left_behind(admin: &tokio_postgres::Client, prefix: &str) {
        let like = format!("{}\\_%", prefix.replace('_', "\\_"));
        let rows = admin.query("SELECT datname FROM pg_database WHERE datname LIKE $1", &[&like]).await.unwrap();
        for name in rows.iter().map(|r| r.get::<_, String>(0)) {
            let pid =
                name.strip_prefix(prefix).and_then(|rest| rest.strip_prefix('_')).and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|pid| !std::path::Path::new(&format!("/proc/{pid}")).exists()) {
                admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await.unwrap();
            }
        }
    }

    async fn connect(db: &str) -> tokio_postgres::Client {
        let url = format!("host=127.0.0.1 user=postgres dbname={db}");
        let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("PostgreSQL on 127.0.0.1:5432 (CI starts it)");
        tokio::spawn(conn);
        client
    }

    /// The plan lines of `sql` with these parameters.
    pub async fn explain(&self, sql: &str, params: &[&(dyn tokio_postgres::types::ToSql + Sync)]) -> Vec<String> {
        self.client.query(&format!("EXPLAIN {sql}"), params).await.unwrap().iter().map(|r| r.get(0)).collect()
    }

    /// The first column of every row `sql` answers, as text (a catalogue query's names).
    pub async fn texts(&self, sql: &str) -> Vec<String> {
        self.client.query(sql, &[]).await.unwrap().iter().map(|r| r.get(0)).collect()
    }

    pub async fn drop_database(self) {
        let Self { engine, client, admin, name, .. } = self;
        drop((client, engine));
        let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::records;
    use datahost_plugin_api::{IngestBatch, IngestRecord};
    use serde_json::json;

    fn recall(campaign: &str, make: &str, model: &str, year: i64) -> IngestRecord {
        let row = json!({"campaign": campaign, "makeKey": make, "modelKey": model, "year": year});
        IngestRecord::new("recalls", format!("{campaign}:{year}"), campaign, row).unwrap()
    }

    fn batch() -> IngestBatch {
        IngestBatch {
            format: "t".into(),
            records: vec![
                recall("24V001", "HONDA", "ACCORD", 2019),
                recall("24V002", "HONDA", "CIVIC", 2019),
                recall("24V003", "HONDA", "ACCORD", 2020),
                recall("24V004", "FORD", "F-150", 2019),
            ],
            ..Default::default()
        }
    }

    fn index() -> Vec<RecordIndex> {
        vec![RecordIndex { collection: "recalls".into(), fields: vec!["makeKey".into(), "modelKey".into()] }]
    }

    fn campaigns(page: &RecordsPage) -> Vec<&str> {
        page.records.iter().map(|r| r["campaign"].as_str().unwrap()).collect()
    }

    /// Test access to `query_records` that also asks for the page's JSON text (what `records.query` answers) and
    /// checks it reads as the same page, or fails alike.
    struct BothWays<'e>(&'e Engine);

    impl BothWays<'_> {
        fn query_records(&self, readable: &[String], q: &RecordsQuery) -> Result<RecordsPage, EngineError> {
            let values = self.0.query_records(readable, q);
            let text = self.0.query_records_json(readable, q);
            match (&values, &text) {
                (Ok(page), Ok(text)) => {
                    assert_eq!(&serde_json::from_str::<RecordsPage>(text).unwrap(), page, "{q:?}: {text}")
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{q:?}"),
                _ => panic!("{q:?}: {values:?} against {text:?}"),
            }
            values
        }
    }

    /// The same answers from either engine.
    fn check_queries(engine: &Engine) {
        let engine = &BothWays(engine);
        let readable = vec!["vin".to_string()];
        let accords = RecordsQuery::new("vin", "recalls").eq("makeKey", "HONDA").eq("modelKey", "ACCORD");
        let page = engine.query_records(&readable, &accords).unwrap();
        assert_eq!((campaigns(&page), page.truncated), (vec!["24V001", "24V003"], false), "ingest order");
        let page = engine.query_records(&readable, &accords.clone().eq("year", 2020)).unwrap();
        assert_eq!(campaigns(&page), ["24V003"], "an integer field compares as an integer");
        let page = engine.query_records(&readable, &accords.clone().limit(1)).unwrap();
        assert_eq!((campaigns(&page), page.truncated), (vec!["24V001"], true));
        let page = engine.query_records(&readable, &accords.clone().limit(1).offset(1)).unwrap();
        assert_eq!((campaigns(&page), page.truncated), (vec!["24V003"], false), "the next page, in ingest order");
        let page = engine.query_records(&readable, &accords.clone().offset(2)).unwrap();
        assert_eq!((campaigns(&page), page.truncated), (vec![], false), "past the end");
        let makes = RecordsQuery::new("vin", "recalls").distinct("makeKey");
        assert_eq!(engine.query_records(&readable, &makes).unwrap().records, [json!("FORD"), json!("HONDA")]);
        let hondas = RecordsQuery::new("vin", "recalls").eq("makeKey", "HONDA").distinct("year");
        assert_eq!(engine.query_records(&readable, &hondas).unwrap().records, [json!(2019), json!(2020)], "typed");
        let page = engine.query_records(&readable, &makes.clone().limit(1).offset(1)).unwrap();
        assert_eq!((page.records, page.truncated), (vec![json!("HONDA")], false));
        let any = RecordsQuery::new("vin", "recalls").any_of("makeKey", vec![json!("FORD"), json!("HONDA")]);
        assert_eq!(engine.query_records(&readable, &any).unwrap().records.len(), 4);
        let none = RecordsQuery::new("vin", "recalls").eq("makeKey", "HONDA'; DROP TABLE records; --");
        assert!(engine.query_records(&readable, &none).unwrap().records.is_empty(), "values are bound, not spliced");

        let err = engine.query_records(&[], &accords).unwrap_err().to_string();
        assert_eq!(err, "dataset `vin` is neither owned nor declared in `reads` by this plugin");
        let scan = RecordsQuery::new("vin", "recalls").eq("year", 2019);
        assert_eq!(
            engine.query_records(&readable, &scan).unwrap_err().to_string(),
            "records.query on `vin`: no declared index of `recalls` starts with a field this query filters on (year)"
        );
    }

    /// The name the index of [`index`] had when it was named per dataset: `rx_` and 16 hex digits of the SHA-256
    /// of `<dataset> NUL recalls NUL makeKey,modelKey`.
    fn per_dataset_name(dataset: &str) -> String {
        format!("rx_{}", &records::checksum(format!("{dataset}\0recalls\0makeKey,modelKey"))[..16])
    }

    #[test]
    fn records_queries_run_on_declared_indexes_in_the_embedded_engine() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::embedded_at(dir.path()).unwrap();
        // An index as an earlier version named it (per dataset), which the declaration replaces.
        let old = per_dataset_name("vin");
        engine.sqlite().unwrap().with_conn(|c| {
            c.execute_batch(&format!("CREATE INDEX {old} ON records (dataset, collection, key)")).unwrap()
        });
        engine.declare_indexes("vin", &index()).unwrap();
        engine.declare_indexes("vin", &index()).unwrap();
        // Another dataset, or another collection, declaring the same lookup shares the index (dataset and
        // collection are its first columns).
        let other_collection = RecordIndex { collection: "campaigns".into(), ..index()[0].clone() };
        engine.declare_indexes("vin-archive", &[index()[0].clone(), other_collection]).unwrap();
        let names: Vec<String> = engine.sqlite().unwrap().with_conn(|c| {
            let mut stmt = c
                .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'rx_%' ORDER BY 1")
                .unwrap();
            stmt.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect()
        });
        assert_eq!(names.len(), 1, "one index for one definition, the per-dataset one dropped: {names:?}");
        assert!(!names.contains(&old));
        engine.sqlite().unwrap().apply_file("vin", "FLAT_RCL.txt", "sha", &batch(), None).unwrap();
        check_queries(&engine);

        // SQLite's planner answers the lookup from the declared expression index, not a table scan.
        let q = RecordsQuery::new("vin", "recalls").eq("makeKey", "HONDA").eq("modelKey", "ACCORD");
        let (sql, _) = records::query_sql(records::Dialect::Sqlite, "records", &q);
        let plan: Vec<String> = engine.sqlite().unwrap().with_conn(|c| {
            let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = stmt
                .query_map(rusqlite::params!["vin", "recalls", "HONDA", "ACCORD"], |r| r.get::<_, String>(3))
                .unwrap();
            rows.map(Result::unwrap).collect()
        });
        assert!(plan.iter().any(|step| step.contains("USING INDEX rx_")), "{plan:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn records_queries_run_on_declared_indexes_in_postgresql() {
        let db = TestPg::create("dh_records_query").await;
        let engine = db.engine.clone();
        let e = engine.clone();
        let old = per_dataset_name("vin");
        db.client
            .batch_execute(&format!("CREATE INDEX {old} ON datahost.records (dataset, collection, key)"))
            .await
            .unwrap();
        tokio::task::spawn_blocking(move || {
            e.declare_indexes("vin", &index()).unwrap();
            let other_collection = RecordIndex { collection: "campaigns".into(), ..index()[0].clone() };
            e.declare_indexes("vin-archive", &[index()[0].clone(), other_collection]).unwrap();
            e.pg().unwrap().apply_file("vin", "FLAT_RCL.txt", "sha", &batch(), None).unwrap();
            check_queries(&e);
        })
        .await
        .unwrap();
        let names =
            db.texts("SELECT indexname FROM pg_indexes WHERE schemaname = 'datahost' AND indexname LIKE 'rx_%'").await;
        assert_eq!(names.len(), 1, "one index for one definition, the per-dataset one dropped: {names:?}");
        assert!(!names.contains(&old));
        // The index exists and the planner can use it (a tiny table is scanned otherwise, so forbid that).
        let q = RecordsQuery::new("vin", "recalls").eq("makeKey", "HONDA").eq("modelKey", "ACCORD");
        let (sql, _) = records::query_sql(records::Dialect::Postgres, "datahost.records", &q);
        db.client.batch_execute("SET enable_seqscan = off").await.unwrap();
        let (make, model) = (vec!["HONDA"], vec!["ACCORD"]);
        let plan = db.explain(&sql, &[&"vin", &"recalls", &make, &model, &2_i64, &0_i64]).await;
        assert!(plan.iter().any(|l| l.contains("rx_")), "{plan:?}");
        drop(engine);
        db.drop_database().await;
    }

    /// A file large against the records' statistics (a first ingest: none at all) takes them again in its own
    /// transaction, so what follows in it (the word refresh) is planned for the rows it holds; a small file
    /// keeps the statistics there are.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_file_that_outgrows_the_statistics_is_applied_with_new_ones() {
        let db = TestPg::create("dh_records_analyze").await;
        // Only the ingest may take statistics here.
        db.client.batch_execute("ALTER TABLE datahost.records SET (autovacuum_enabled = false)").await.unwrap();
        let known = || async {
            let sql = "SELECT reltuples FROM pg_class WHERE oid = 'datahost.records'::regclass";
            db.client.query_one(sql, &[]).await.unwrap().get::<_, f32>(0)
        };
        assert_eq!(known().await, -1.0, "a new table has never been analysed");
        let file = |from: usize, to: usize| IngestBatch {
            format: "t".into(),
            records: (from..to).map(|i| recall(&format!("24V{i:05}"), "HONDA", "ACCORD", 2019)).collect(),
            ..Default::default()
        };
        let apply = |name: &'static str, batch: IngestBatch| {
            let e = db.engine.clone();
            tokio::task::spawn_blocking(move || e.pg().unwrap().apply_file("vin", name, name, &batch, None).unwrap())
        };
        apply("small", file(0, 100)).await.unwrap();
        assert_eq!(known().await, -1.0, "100 records: no new statistics");
        apply("large", file(100, 6_100)).await.unwrap();
        assert_eq!(known().await, 6_100.0, "6,000 records on 100: statistics taken, the file's own rows counted");
        db.drop_database().await;
    }
}
