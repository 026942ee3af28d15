//! One source's run, shared by the source modules: its `SourceRun` (client, raw folder, sync store, report,
//! progress line) with the fetch, record and ingest steps every source uses, what a fetch found (`Fetch`), and
//! the report of a source (`SourceReport`) with its metrics.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde::Serialize;

use crate::engine::Engine;
use crate::plugins::OpenedPlugins;

use super::http::{self, Download, HttpError, PoliteClient, Validators};
use super::raw;
use super::state::{self, SyncStore};

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
    pub base: String,
    pub client: PoliteClient,
    pub store: &'a SyncStore<'a>,
    pub raw_root: PathBuf,
    pub datasets: Vec<String>,
    pub report: SourceReport,
    pub bar: indicatif::ProgressBar,
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
    pub async fn ingest_pending(&mut self, engine: &Arc<Engine>, opened: &OpenedPlugins) {
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
