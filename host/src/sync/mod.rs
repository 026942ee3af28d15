//! `datahost sync [dataset...]`: fetches what is new at the official sources and feeds it through exactly the
//! path `datahost ingest` uses (`crate::plugins::ingest::ingest_files`).
//!
//! A run, per selected source: build the polite client (`http.rs`: rate cap, retries, timeout, resume,
//! conditional requests, `.part` then rename, SHA-256), let the source (`sec.rs`, `house.rs`, `senate.rs`,
//! `fec.rs`, `nhtsa.rs`, `prices.rs`, `directory.rs`; a failure that stops one is an `error.rs` `SourceError`)
//! decide what to fetch from its cursor in the engine
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
mod error;
mod fec;
mod house;
pub mod http;
mod nhtsa;
mod prices;
mod raw;
pub mod schedule;
mod sec;
mod senate;
mod source_run;
mod sources;
pub mod state;

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::{feedable, Config, SyncConfig, SYNC_SOURCES};
use crate::engine::Engine;
use crate::plugins::OpenedPlugins;
use http::{HttpSettings, PoliteClient};
use raw::Retention;
use source_run::{record_metrics, SourceReport, SourceRun};
use state::SyncStore;

pub use error::SourceError;

/// Why `sync` stopped before fetching anything (exit status 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

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
        SYNC_SOURCES
            .iter()
            .find(|(s, _)| *s == source)
            .map(|(_, d)| d.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default()
    };
    let enabled = |source: &str| sources::common(config, source).enabled;
    let mut out = Vec::new();
    if asked.is_empty() {
        for (source, _) in SYNC_SOURCES {
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
    for (source, _) in SYNC_SOURCES {
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
    let engine = Engine::from_config(config).await.map_err(|e| UsageError(e.to_string()))?;
    let done = run_on(config, &engine, selected, started).await;
    engine.close().await;
    done
}

/// [`run`] on an open engine (which the caller closes, whatever this returns).
async fn run_on(
    config: &Config,
    engine: &Arc<Engine>,
    selected: Vec<(&'static str, Vec<String>)>,
    started: Instant,
) -> Result<SyncReport, UsageError> {
    if let Some(pg) = engine.pg() {
        if engine.is_degraded() {
            return Err(UsageError(format!("the records engine at {} is unreachable", engine.address())));
        }
        pg.migrate().await.map_err(|e| UsageError(e.to_string()))?;
    }
    let Some(store) = SyncStore::of(engine) else {
        return Err(UsageError("this records engine keeps nothing to sync into".into()));
    };
    let mut report = SyncReport {
        engine: engine.address().to_string(),
        raw_dir: raw_root(config).display().to_string(),
        ..Default::default()
    };
    // One sync at a time across replicas: a session-level advisory lock on a connection held for the run.
    let lock = match engine.pg() {
        Some(pg) => match schedule::PgLock::try_acquire(pg).await.map_err(|e| UsageError(e.to_string()))? {
            Some(lock) => Some(lock),
            None => {
                report.skipped = Some("another datahost sync holds the records engine's sync lock".into());
                report.seconds = started.elapsed().as_secs_f64();
                return Ok(report);
            }
        },
        None => None,
    };
    let opened = crate::plugins::open_plugins(config, engine).await.map_err(|e| UsageError(e.to_string()))?;
    let multi = indicatif::MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::stderr());
    for (name, datasets) in selected {
        let source_report = run_source(config, engine, &store, &opened, &multi, name, datasets).await;
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
            report.errors.push(e.to_string());
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
    if let Err(e) = fetch(&mut run, &config.sync).await {
        run.report.errors.push(e.to_string());
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

/// Runs the fetch phase of one source. Per-file failures go into the report and the source carries on;
/// `Err` is a failure that stopped the source.
async fn fetch(run: &mut SourceRun<'_>, config: &SyncConfig) -> Result<(), SourceError> {
    let s = &config.sources;
    match run.name {
        "sec" => sec::run(run, &s.sec).await,
        "house" => house::run(run, &s.house).await,
        "senate" => senate::run(run, &s.senate).await,
        "fec" => fec::run(run, &s.fec).await,
        "nhtsa" => nhtsa::run(run, &s.nhtsa).await,
        "prices" => prices::run(run, &s.prices).await,
        _ => directory::run(run, &s.directory).await,
    }
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
        assert_eq!(crate::config::parse_interval("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(crate::config::parse_interval("15m").unwrap(), Duration::from_secs(900));
        assert_eq!(crate::config::parse_interval("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(crate::config::parse_interval("2d").unwrap(), Duration::from_secs(172_800));
        assert_eq!(crate::config::parse_interval("30").unwrap(), Duration::from_secs(30));
        assert!(crate::config::parse_interval("0s").is_err());
        assert!(crate::config::parse_interval("1w").unwrap_err().to_string().contains("unit"));
        assert!(crate::config::parse_interval("soon").is_err());
    }

    #[test]
    fn the_defaults_are_valid_and_select_every_enabled_source() {
        let c = config();
        crate::config::validate_sync(&c).unwrap();
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
        assert!(crate::config::validate_sync(&c).unwrap_err().to_string().contains("at most 10"));
        let mut c = config();
        c.schedule.insert("patents".into(), "1h".into());
        assert_eq!(crate::config::validate_sync(&c).unwrap_err().key(), Some("sync.schedule.patents"));
        let mut c = config();
        c.schedule.insert("insiders".into(), "hourly".into());
        assert_eq!(crate::config::validate_sync(&c).unwrap_err().key(), Some("sync.schedule.insiders"));
        let mut c = config();
        c.sources.fec.base_url = "not a url".into();
        assert_eq!(crate::config::validate_sync(&c).unwrap_err().key(), Some("sync.sources.fec.base_url"));
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
