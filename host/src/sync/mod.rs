//! `datahost sync [dataset...]`: fetches what is new at the official sources and feeds it through exactly the
//! path `datahost ingest` uses (`crate::plugins::ingest::ingest_files`).
//!
//! A run, per selected source: build the polite client (`http.rs`: rate cap, retries, timeout, resume,
//! conditional requests, `.part` then rename, SHA-256), let the source (`sec.rs`, `house.rs`, `senate.rs`,
//! `fec.rs`, `nhtsa.rs`, `prices.rs`, `directory.rs`) decide what to fetch from its cursor in the engine
//! (`state.rs`), keep every file under `<engine.data_dir>/raw/<source>/...` with a provenance row, then ingest
//! the rows still `pending` and record what the ingest made of each. Finally the raw folder is trimmed to
//! `sync.retention_mb` and each dataset's freshness is written for `/health`.
//!
//! Why it survives being killed anywhere: a file becomes visible only by an atomic rename after its length and
//! checksum are known; its provenance row is written after that; a version's validators (ETag...) and a
//! source's cursor move only once everything they cover is stored; pending rows are ingested by the next run;
//! and the ingest itself is idempotent (same key, same data: unchanged). So re-running finishes the job without
//! duplicates.

mod directory;
mod fec;
mod house;
pub mod http;
mod nhtsa;
mod prices;
mod raw;
pub mod schedule;
mod sec;
mod senate;
mod sources;
pub mod state;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::{Config, SourceSettings, SyncConfig};
use crate::engine::Engine;
use crate::plugins::OpenedPlugins;
use http::{Download, HttpError, HttpSettings, PoliteClient, Validators};
use state::SyncStore;

/// Every source and the datasets it feeds (`directory` feeds the dataset named in its config).
pub const SOURCES: &[(&str, &[&str])] = &[
    ("sec", &["insiders", "institutional-holdings", "companies"]),
    ("house", &["congress-trades"]),
    ("senate", &["senate-trades"]),
    ("fec", &["donors"]),
    ("nhtsa", &["vin"]),
    ("prices", &["prices"]),
    ("directory", &[]),
];

/// Why `sync` stopped before fetching anything (exit status 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// What one source did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceReport {
    pub source: String,
    pub base_url: String,
    pub datasets: Vec<String>,
    /// HTTP requests sent (retries included).
    pub requests: u64,
    pub retries: u64,
    /// Files downloaded whole and kept (new versions).
    pub fetched: u64,
    /// Files the server confirmed unchanged (304) or that came back byte-identical.
    pub unchanged: u64,
    /// Immutable files already held, not requested again.
    pub skipped: u64,
    pub bytes: u64,
    /// Records the ingest added, replaced or removed.
    pub records: u64,
    pub ingest: Vec<DatasetIngest>,
    /// Where the source stands now (for example the last EDGAR index date read in full).
    pub cursor: BTreeMap<String, String>,
    /// Every failure, naming the source, the address (without credentials) and the status or cause.
    pub errors: Vec<String>,
    pub seconds: f64,
}

/// What the ingest made of one dataset's new files.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetIngest {
    pub dataset: String,
    /// `ingested`, or `not ingested: no parser` (the raw files are kept for a later parser).
    pub status: String,
    pub files: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<crate::plugins::ingest::Report>,
}

/// Raw-folder housekeeping.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retention {
    pub limit_bytes: u64,
    pub kept_bytes: u64,
    pub deleted_files: u64,
}

/// The whole run (`--json` prints it).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    pub engine: String,
    pub raw_dir: String,
    pub sources: Vec<SourceReport>,
    pub retention: Retention,
    /// Failures in all sources (files that could not be fetched, stored, extracted or were refused by ingest).
    pub errors: usize,
    /// Set when the run did nothing because another sync held the PostgreSQL lock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    pub seconds: f64,
}

impl SyncReport {
    pub fn ok(&self) -> bool {
        self.errors == 0
    }
}

/// `"90s"`, `"15m"`, `"1h"`, `"1d"` (or plain seconds).
pub fn parse_interval(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 =
        digits.parse().map_err(|_| format!("`{text}` is not an interval such as \"90s\", \"15m\", \"1h\", \"1d\""))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => return Err(format!("`{text}`: the unit must be s, m, h or d")),
    };
    if secs == 0 {
        return Err(format!("`{text}`: the interval must be positive"));
    }
    Ok(Duration::from_secs(secs))
}

/// The datasets `sync` can feed with this config.
fn feedable(config: &SyncConfig) -> Vec<String> {
    let mut v: Vec<String> = SOURCES.iter().flat_map(|(_, d)| d.iter().map(|s| s.to_string())).collect();
    if !config.sources.directory.dataset.is_empty() {
        v.push(config.sources.directory.dataset.clone());
    }
    v.sort();
    v.dedup();
    v
}

/// Checks `[sync]` when the configuration loads (names the key that is wrong).
pub fn validate_config(c: &SyncConfig) -> Result<(), String> {
    let s = &c.sources;
    let all: [(&str, &dyn SourceSettings); 7] = [
        ("sec", &s.sec),
        ("house", &s.house),
        ("senate", &s.senate),
        ("fec", &s.fec),
        ("nhtsa", &s.nhtsa),
        ("prices", &s.prices),
        ("directory", &s.directory),
    ];
    for (name, source) in all {
        let common = source.common();
        let key = |k: &str| format!("sync.sources.{name}.{k}");
        if !(common.requests_per_second > 0.0 && common.requests_per_second.is_finite()) {
            return Err(format!("{} must be a positive number", key("requests_per_second")));
        }
        if common.timeout_secs == 0 {
            return Err(format!("{} must be at least 1", key("timeout_secs")));
        }
        let local_folder = name == "directory" && !common.base_url.contains("://");
        let off = name == "directory" && common.base_url.is_empty();
        if !off && !local_folder {
            let url = url::Url::parse(common.base_url).map_err(|e| {
                format!("{} `{}` is not a URL: {e}", key("base_url"), crate::config::redact_url(common.base_url))
            })?;
            if !matches!(url.scheme(), "http" | "https" | "file") {
                return Err(format!("{} must be http, https (or file for directory)", key("base_url")));
            }
        }
    }
    if s.sec.requests_per_second > 10.0 {
        return Err("sync.sources.sec.requests_per_second must be at most 10: the SEC's fair-access limit".into());
    }
    if !s.sec.start_date.is_empty() && chrono::NaiveDate::parse_from_str(&s.sec.start_date, "%Y-%m-%d").is_err() {
        return Err(format!("sync.sources.sec.start_date `{}` is not YYYY-MM-DD", s.sec.start_date));
    }
    for kind in &s.fec.files {
        if !fec::KINDS.contains(&kind.as_str()) {
            return Err(format!("sync.sources.fec.files: unknown file kind `{kind}`; use {}", fec::KINDS.join(", ")));
        }
    }
    let known = feedable(c);
    for (dataset, every) in &c.schedule {
        parse_interval(every).map_err(|e| format!("sync.schedule.{dataset}: {e}"))?;
        if !known.contains(dataset) {
            return Err(format!(
                "sync.schedule.{dataset}: no sync source feeds `{dataset}`; sources feed {}",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// The User-Agent sent to every source.
fn user_agent(config: &SyncConfig) -> String {
    if config.user_agent.trim().is_empty() {
        format!("datahost/{}", env!("CARGO_PKG_VERSION"))
    } else {
        config.user_agent.trim().to_string()
    }
}

/// Which enabled sources run for the datasets asked (all of them when none), each with its datasets.
fn select(config: &SyncConfig, asked: &[String]) -> Result<Vec<(&'static str, Vec<String>)>, UsageError> {
    let feeds = |source: &str| -> Vec<String> {
        if source == "directory" {
            let d = &config.sources.directory;
            if d.base_url.is_empty() || d.dataset.is_empty() {
                return Vec::new();
            }
            return vec![d.dataset.clone()];
        }
        SOURCES
            .iter()
            .find(|(s, _)| *s == source)
            .map(|(_, d)| d.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default()
    };
    let enabled = |source: &str| sources::common(config, source).enabled;
    let mut out = Vec::new();
    if asked.is_empty() {
        for (source, _) in SOURCES {
            let datasets = feeds(source);
            if enabled(source) && !datasets.is_empty() {
                out.push((*source, datasets));
            }
        }
        return Ok(out);
    }
    let known = feedable(config);
    for dataset in asked {
        if !known.contains(dataset) {
            return Err(UsageError(format!(
                "no sync source feeds a dataset `{dataset}`; sources feed {} (the directory source feeds \
                 the dataset set in sync.sources.directory.dataset)",
                known.join(", ")
            )));
        }
    }
    for (source, _) in SOURCES {
        let datasets: Vec<String> = feeds(source).into_iter().filter(|d| asked.contains(d)).collect();
        if !datasets.is_empty() && enabled(source) {
            out.push((*source, datasets));
        }
    }
    for dataset in asked {
        if !out.iter().any(|(_, d)| d.contains(dataset)) {
            return Err(UsageError(format!(
                "every source that feeds `{dataset}` is disabled (sync.sources.<name>.enabled = false)"
            )));
        }
    }
    Ok(out)
}

/// Runs `datahost sync`. `Err(UsageError)` before anything is fetched; otherwise the report.
pub async fn run(config: &Config, asked: &[String]) -> Result<SyncReport, UsageError> {
    let started = Instant::now();
    let selected = select(&config.sync, asked)?;
    if selected.is_empty() {
        return Err(UsageError("no sync source is enabled: see [sync.sources] in the configuration".into()));
    }
    if selected.iter().any(|(s, _)| *s == "sec") && config.sync.user_agent.trim().is_empty() {
        return Err(UsageError(
            "sync.user_agent is empty: the SEC requires a User-Agent that names you and a contact address \
             (for example \"Example Corp datahost admin@example.com\"); set it, or name datasets that do not \
             come from SEC EDGAR"
                .into(),
        ));
    }
    let engine = Engine::from_config(config).await.map_err(UsageError)?;
    if let Some(pg) = engine.pg() {
        if engine.is_degraded() {
            return Err(UsageError(format!("the records engine at {} is unreachable", engine.address())));
        }
        pg.migrate().await.map_err(UsageError)?;
    }
    let Some(store) = SyncStore::of(&engine) else {
        return Err(UsageError("this records engine keeps nothing to sync into".into()));
    };
    let mut report = SyncReport {
        engine: engine.address().to_string(),
        raw_dir: raw_root(config).display().to_string(),
        ..Default::default()
    };
    // One sync at a time across replicas: a session-level advisory lock on a connection held for the run.
    let lock = match engine.pg() {
        Some(pg) => match schedule::PgLock::try_acquire(pg).await.map_err(UsageError)? {
            Some(lock) => Some(lock),
            None => {
                report.skipped = Some("another datahost sync holds the records engine's sync lock".into());
                report.seconds = started.elapsed().as_secs_f64();
                return Ok(report);
            }
        },
        None => None,
    };
    let opened = crate::lifecycle::server::open_plugins(config, &engine).await.map_err(UsageError)?;
    let multi = indicatif::MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::stderr());
    for (name, datasets) in selected {
        let source_report = run_source(config, &engine, &store, &opened, &multi, name, datasets).await;
        report.errors += source_report.errors.len();
        record_metrics(&source_report);
        report.sources.push(source_report);
    }
    report.retention = match raw::enforce_retention(&store, &raw_root(config), config.sync.retention_mb).await {
        Ok(r) => r,
        Err(e) => {
            report.errors += 1;
            if let Some(s) = report.sources.last_mut() {
                s.errors.push(format!("retention: {e}"));
            }
            Retention::default()
        }
    };
    if let Some(lock) = lock {
        lock.release().await;
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// `<engine.data_dir>/raw`.
pub fn raw_root(config: &Config) -> PathBuf {
    config.engine.data_dir.join("raw")
}

/// Counters per source on the host's metrics recorder (in `serve`, from the scheduled run's report).
pub fn record_metrics(r: &SourceReport) {
    let source = r.source.clone();
    metrics::counter!("datahost_sync_files_total", "source" => source.clone()).increment(r.fetched);
    metrics::counter!("datahost_sync_bytes_total", "source" => source.clone()).increment(r.bytes);
    metrics::counter!("datahost_sync_records_total", "source" => source.clone()).increment(r.records);
    metrics::counter!("datahost_sync_errors_total", "source" => source.clone()).increment(r.errors.len() as u64);
    if r.errors.is_empty() {
        metrics::gauge!("datahost_sync_last_success_timestamp_seconds", "source" => source)
            .set(chrono::Utc::now().timestamp() as f64);
    }
}

#[allow(clippy::too_many_arguments)]
async fn run_source(
    config: &Config,
    engine: &Arc<Engine>,
    store: &SyncStore<'_>,
    opened: &OpenedPlugins,
    multi: &indicatif::MultiProgress,
    name: &'static str,
    datasets: Vec<String>,
) -> SourceReport {
    let started = Instant::now();
    let common = sources::common(&config.sync, name);
    let base = common.base_url.trim_end_matches('/').to_string();
    let mut report = SourceReport {
        source: name.to_string(),
        base_url: crate::config::redact_url(&base),
        datasets: datasets.clone(),
        ..Default::default()
    };
    let settings = HttpSettings {
        source: name,
        user_agent: user_agent(&config.sync),
        requests_per_second: common.requests_per_second,
        timeout: Duration::from_secs(common.timeout_secs),
        retries: common.retries,
        backoff: Duration::from_millis(common.backoff_ms),
    };
    let client = match PoliteClient::new(settings) {
        Ok(c) => c,
        Err(e) => {
            report.errors.push(e);
            return report;
        }
    };
    let bar = multi.add(indicatif::ProgressBar::new_spinner());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {prefix:>9} [{elapsed_precise}] {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.set_prefix(name);
    bar.enable_steady_tick(Duration::from_millis(200));
    let mut run = SourceRun { name, base, client, store, raw_root: raw_root(config), datasets, report, bar };
    if let Err(e) = sources::run(&mut run, &config.sync).await {
        run.report.errors.push(e);
    }
    run.bar.set_message("ingesting");
    run.ingest_pending(engine, opened).await;
    let r = &mut run.report;
    r.requests = run.client.stats.requests.load(Ordering::Relaxed);
    r.retries = run.client.stats.retries.load(Ordering::Relaxed);
    r.bytes = run.client.stats.bytes.load(Ordering::Relaxed);
    r.seconds = started.elapsed().as_secs_f64();
    let error = r.errors.first().cloned();
    for dataset in &r.datasets {
        if let Err(e) = store.dataset_done(dataset, error.as_deref()).await {
            r.errors.push(e.to_string());
        }
    }
    if r.errors.is_empty() {
        if let Err(e) = store.set(name, "last_success", &state::now()).await {
            r.errors.push(e.to_string());
        }
    }
    run.bar.finish_and_clear();
    run.report
}

/// What a mutable file's fetch found.
pub(crate) enum Fetch {
    /// A new version, kept at `path` (not yet recorded: the caller records it and commits the validators).
    New {
        path: PathBuf,
        rel: String,
        sha256: String,
        size: u64,
        validators: Validators,
    },
    Unchanged,
    NotFound,
}

/// One source's run: its client, where its raw files go, its report.
pub(crate) struct SourceRun<'a> {
    pub name: &'static str,
    base: String,
    pub client: PoliteClient,
    pub store: &'a SyncStore<'a>,
    raw_root: PathBuf,
    pub datasets: Vec<String>,
    pub report: SourceReport,
    bar: indicatif::ProgressBar,
}

impl SourceRun<'_> {
    /// `base_url` + `/` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base, path.trim_start_matches('/'))
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn wants(&self, dataset: &str) -> bool {
        self.datasets.iter().any(|d| d == dataset)
    }

    /// The raw path (relative to `raw/`) of an address path of this source, made safe for the file system.
    pub fn rel(&self, path: &str) -> String {
        let mut parts = vec![self.name.to_string()];
        parts.extend(path.split(['/', '?', '&', '=']).filter(|p| !p.is_empty() && *p != "." && *p != "..").map(|p| {
            p.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect()
        }));
        parts.join("/")
    }

    pub fn abs(&self, rel: &str) -> PathBuf {
        self.raw_root.join(rel)
    }

    fn progress(&self, what: &str) {
        self.bar.set_message(format!(
            "{what} ({} new, {} unchanged, {} bytes)",
            self.report.fetched,
            self.report.unchanged,
            self.client.stats.bytes.load(Ordering::Relaxed)
        ));
    }

    pub fn error(&mut self, message: String) {
        tracing::warn!(source = self.name, "{message}");
        self.report.errors.push(message);
    }

    /// Fetches a file that never changes once published (an EDGAR submission, a PTR PDF): not requested
    /// again once kept. Returns whether a new file was kept (pending ingest into `dataset`).
    pub async fn fetch_immutable(&mut self, url: &str, rel: &str, dataset: &str) -> Result<bool, HttpError> {
        if self.store.known(url).await.map_err(|e| self.io_error(url, e.to_string()))? {
            self.report.skipped += 1;
            return Ok(false);
        }
        self.progress(rel);
        let dest = self.abs(rel);
        match self.client.download(url, &dest, None).await? {
            Download::Done { sha256, size, .. } => {
                self.keep(dataset, url, rel, &sha256, size, "pending").await?;
                self.report.fetched += 1;
                Ok(true)
            }
            Download::NotModified => {
                self.report.unchanged += 1;
                Ok(false)
            }
            Download::NotFound => {
                Err(HttpError::Status { source_name: self.name, url: http::display_url(url), status: 404 })
            }
        }
    }

    /// Fetches a file that changes in place (a yearly index, a bulk zip, a list), conditionally. A new version
    /// is kept at its raw path; an identical one counts as unchanged. The caller records it (`keep`) and commits
    /// its validators once it has handled it, so a version that could not be handled is fetched again.
    pub async fn fetch_mutable(&mut self, url: &str, rel: &str) -> Result<Fetch, HttpError> {
        let held = self.store.validators(url).await.map_err(|e| self.io_error(url, e.to_string()))?;
        // A raw file deleted by hand (or by retention) must not be answered by a 304 for a file we lack.
        let dest = self.abs(rel);
        let conditional = held.as_ref().filter(|_| dest.exists()).map(|(v, _)| v.clone());
        self.progress(rel);
        match self.client.download(url, &dest, conditional.as_ref()).await? {
            Download::NotModified => {
                self.report.unchanged += 1;
                Ok(Fetch::Unchanged)
            }
            Download::NotFound => Ok(Fetch::NotFound),
            Download::Done { sha256, size, validators } => {
                // The same bytes again are unchanged, unless our copy had gone (then it is restored and recorded).
                if conditional.is_some() && held.as_ref().is_some_and(|(_, sha)| *sha == sha256) {
                    self.report.unchanged += 1;
                    self.commit(url, &validators, &sha256).await?;
                    return Ok(Fetch::Unchanged);
                }
                self.report.fetched += 1;
                Ok(Fetch::New { path: dest, rel: rel.to_string(), sha256, size, validators })
            }
        }
    }

    /// Records a kept file (provenance) with `status` (`pending` to ingest it, `archive` for a container).
    pub async fn keep(
        &mut self,
        dataset: &str,
        url: &str,
        rel: &str,
        sha256: &str,
        size: u64,
        status: &str,
    ) -> Result<(), HttpError> {
        let file = state::NewFile { source: self.name, dataset, url, path: rel, sha256, size, status };
        self.store.add_file(&file).await.map_err(|e| self.io_error(url, e.to_string()))
    }

    /// Remembers the version of `url` now held, for the next conditional request.
    pub async fn commit(&mut self, url: &str, v: &Validators, sha256: &str) -> Result<(), HttpError> {
        self.store.set_validators(url, self.name, v, sha256).await.map_err(|e| self.io_error(url, e.to_string()))
    }

    /// A kept zip: extracts the members `accept` wants next to it and records each as pending for `dataset`.
    /// A corrupt zip is removed and reported; nothing of it is ingested.
    pub async fn extract(
        &mut self,
        dataset: &str,
        url: &str,
        fetched: (&Path, &str, &str, u64, &Validators),
        accept: fn(&str) -> bool,
    ) -> Result<Vec<String>, HttpError> {
        let (path, rel, sha256, size, validators) = fetched;
        let dir_rel = format!("{rel}.d");
        let members = match raw::extract_zip(path.to_path_buf(), self.abs(&dir_rel), accept).await {
            Ok(m) => m,
            Err(e) => {
                let _ = tokio::fs::remove_file(path).await;
                return Err(self.io_error(url, format!("not ingested: {e}")));
            }
        };
        self.keep(dataset, url, rel, sha256, size, "archive").await?;
        let mut names = Vec::new();
        for m in &members {
            let member_rel = format!("{dir_rel}/{}", m.name);
            let member_url = format!("{url}#{}", m.name);
            self.keep(dataset, &member_url, &member_rel, &m.sha256, m.size, "pending").await?;
            names.push(m.name.clone());
        }
        self.commit(url, validators, sha256).await?;
        Ok(names)
    }

    fn io_error(&self, url: &str, message: String) -> HttpError {
        HttpError::Io { source_name: self.name, url: http::display_url(url), message }
    }

    /// Ingests this source's pending raw files through the ingest path, dataset by dataset.
    async fn ingest_pending(&mut self, engine: &Arc<Engine>, opened: &OpenedPlugins) {
        let pending = match self.store.pending(self.name).await {
            Ok(p) => p,
            Err(e) => return self.error(e.to_string()),
        };
        let mut by_dataset: BTreeMap<String, Vec<state::FileRow>> = BTreeMap::new();
        for row in pending {
            by_dataset.entry(row.dataset.clone()).or_default().push(row);
        }
        for (dataset, rows) in by_dataset {
            let parser = match opened.parser(&dataset) {
                Some(p) if !p.formats.is_empty() => p,
                _ => {
                    self.report.ingest.push(DatasetIngest {
                        dataset,
                        status: "not ingested: no parser".into(),
                        files: rows.len(),
                        report: None,
                    });
                    continue;
                }
            };
            let paths: Vec<PathBuf> = rows.iter().map(|r| self.raw_root.join(&r.path)).collect();
            let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            let engine = engine.clone();
            let label = engine.address().to_string();
            let ds = dataset.clone();
            let result = tokio::task::spawn_blocking(move || {
                crate::plugins::ingest::ingest_files(&engine, &parser, &ds, &paths, &label)
            })
            .await;
            let ingest = match result {
                Ok(r) => r,
                Err(e) => {
                    self.error(format!("{}: ingest of {dataset} crashed: {e}", self.name));
                    continue;
                }
            };
            for file in &ingest.files {
                let Some(i) = names.iter().position(|n| *n == file.file) else { continue };
                let row = &rows[i];
                if file.status == "refused" {
                    let reason = file.reason.clone().unwrap_or_default();
                    self.error(format!(
                        "{}: {} ({}) refused by the {} parser: {reason}",
                        self.name,
                        row.path,
                        http::display_url(&row.url),
                        ingest.plugin
                    ));
                }
                if let Err(e) = self.store.mark(row.id, file.status, file.reason.as_deref()).await {
                    self.error(e.to_string());
                }
            }
            let t = &ingest.totals;
            self.report.records += t.added + t.replaced + t.removed;
            self.report.ingest.push(DatasetIngest {
                dataset,
                status: "ingested".into(),
                files: ingest.files.len(),
                report: Some(ingest),
            });
        }
    }
}

/// The text report: a block per source, then the retention line.
pub fn render(report: &SyncReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if let Some(why) = &report.skipped {
        let _ = writeln!(out, "skipped: {why}");
        return out;
    }
    for s in &report.sources {
        let _ = writeln!(
            out,
            "{} ({}): {} new file(s), {} unchanged, {} already held; {} request(s), {} retr{}, {} bytes, \
             {} record(s) changed; {:.1}s",
            s.source,
            s.datasets.join(", "),
            s.fetched,
            s.unchanged,
            s.skipped,
            s.requests,
            s.retries,
            if s.retries == 1 { "y" } else { "ies" },
            s.bytes,
            s.records,
            s.seconds
        );
        for (k, v) in &s.cursor {
            let _ = writeln!(out, "          {k}: {v}");
        }
        for d in &s.ingest {
            match &d.report {
                Some(r) => {
                    let _ = writeln!(
                        out,
                        "          {}: {} file(s): {} applied, {} unchanged, {} refused; added {}, replaced {}, \
                         removed {}",
                        d.dataset,
                        d.files,
                        r.applied,
                        r.unchanged,
                        r.refused,
                        r.totals.added,
                        r.totals.replaced,
                        r.totals.removed
                    );
                }
                None => {
                    let _ = writeln!(out, "          {}: {} file(s) {} (raw files kept)", d.dataset, d.files, d.status);
                }
            }
        }
        for e in &s.errors {
            let _ = writeln!(out, "          error: {e}");
        }
    }
    let r = &report.retention;
    let _ = writeln!(
        out,
        "raw files: {} MiB kept of {} MiB allowed in {}, {} deleted; {} error(s); {:.1}s",
        r.kept_bytes / (1024 * 1024),
        r.limit_bytes / (1024 * 1024),
        report.raw_dir,
        r.deleted_files,
        report.errors,
        report.seconds
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SyncConfig {
        use figment::providers::Format;
        let c: Config = figment::Figment::new()
            .merge(figment::providers::Toml::string(crate::config::DEFAULT_TOML))
            .extract()
            .unwrap();
        c.sync
    }

    #[test]
    fn intervals_read_seconds_minutes_hours_days() {
        assert_eq!(parse_interval("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_interval("15m").unwrap(), Duration::from_secs(900));
        assert_eq!(parse_interval("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_interval("2d").unwrap(), Duration::from_secs(172_800));
        assert_eq!(parse_interval("30").unwrap(), Duration::from_secs(30));
        assert!(parse_interval("0s").is_err());
        assert!(parse_interval("1w").unwrap_err().contains("unit"));
        assert!(parse_interval("soon").is_err());
    }

    #[test]
    fn the_defaults_are_valid_and_select_every_enabled_source() {
        let c = config();
        validate_config(&c).unwrap();
        assert!(c.schedule.is_empty(), "no schedule by default");
        let all = select(&c, &[]).unwrap();
        let names: Vec<&str> = all.iter().map(|(s, _)| *s).collect();
        assert_eq!(names, ["sec", "house", "senate", "fec", "nhtsa", "prices"], "directory is off without a base_url");
        let some = select(&c, &["donors".into(), "insiders".into()]).unwrap();
        assert_eq!(some, [("sec", vec!["insiders".to_string()]), ("fec", vec!["donors".to_string()])]);
        assert!(select(&c, &["patents".into()]).unwrap_err().0.contains("no sync source feeds a dataset `patents`"));
        let mut c = c;
        c.sources.directory.base_url = "/srv/mirror".into();
        c.sources.directory.dataset = "companies".into();
        c.sources.sec.enabled = false;
        assert_eq!(select(&c, &["companies".into()]).unwrap(), [("directory", vec!["companies".to_string()])]);
        c.sources.fec.enabled = false;
        assert!(select(&c, &["donors".into()]).unwrap_err().0.contains("disabled"));
    }

    #[test]
    fn bad_settings_are_named() {
        let mut c = config();
        c.sources.sec.requests_per_second = 20.0;
        assert!(validate_config(&c).unwrap_err().contains("at most 10"));
        let mut c = config();
        c.schedule.insert("patents".into(), "1h".into());
        assert!(validate_config(&c).unwrap_err().contains("sync.schedule.patents"));
        let mut c = config();
        c.schedule.insert("insiders".into(), "hourly".into());
        assert!(validate_config(&c).unwrap_err().contains("sync.schedule.insiders"));
        let mut c = config();
        c.sources.fec.base_url = "not a url".into();
        assert!(validate_config(&c).unwrap_err().contains("sync.sources.fec.base_url"));
    }

    #[test]
    fn raw_paths_stay_inside_the_source_folder() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = crate::engine::sqlite::SqliteStore::open(dir.path()).unwrap();
        let store = SyncStore::Sqlite(&sqlite);
        let client = PoliteClient::new(HttpSettings {
            source: "prices",
            user_agent: "t".into(),
            requests_per_second: 1.0,
            timeout: Duration::from_secs(1),
            retries: 0,
            backoff: Duration::from_millis(1),
        })
        .unwrap();
        let run = SourceRun {
            name: "prices",
            base: "http://x".into(),
            client,
            store: &store,
            raw_root: dir.path().join("raw"),
            datasets: vec![],
            report: SourceReport::default(),
            bar: indicatif::ProgressBar::hidden(),
        };
        assert_eq!(run.rel("/q/d/l/?s=aapl.us&i=d"), "prices/q/d/l/s/aapl.us/i/d");
        assert_eq!(run.rel("../../etc/passwd"), "prices/etc/passwd");
        assert_eq!(run.rel("a b/c%20.zip"), "prices/a_b/c_20.zip");
        assert_eq!(run.url("/x/y"), "http://x/x/y");
    }
}
