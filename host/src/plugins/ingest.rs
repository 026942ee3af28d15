//! `datahost ingest <dataset> <path>...`: reads official source files into the records engine.
//!
//! Paths are files or folders (recursed, in name order). Each file is parsed by the plugin that owns the
//! dataset (the format is detected from the content) and applied in one transaction of its own: a file that
//! cannot be read is refused whole, by name, and changes nothing, while the others still apply. At the end the
//! dataset's document is assembled once; running servers (embedded, or every PostgreSQL replica) pick it up
//! within `engine.reload_interval_secs`. Progress goes to stderr on a terminal; the report to stdout, as text or
//! (`--json`) as one JSON document. Exit status: 0 every file applied or unchanged, 1 some file refused,
//! 2 a usage error.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use crate::config::Config;
use crate::engine::records::Counts;
use crate::engine::{Engine, EngineError};
use crate::plugins::{ParseOutcome, Parser};

/// Why `ingest` stopped before reading any file (exit status 2).
#[derive(Debug)]
pub struct UsageError(pub String);

/// What happened to one file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    pub file: String,
    /// `applied`, `unchanged` or `refused`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    pub counts: Counts,
    /// Why the whole file was refused, with where reading stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every row that could not be read: `file:line` (or XML path) and the message.
    pub problems: Vec<String>,
    pub notes: Vec<String>,
}

/// The whole run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub dataset: String,
    pub plugin: String,
    pub engine: String,
    pub files: Vec<FileReport>,
    pub totals: Counts,
    pub applied: usize,
    pub unchanged: usize,
    pub refused: usize,
    pub seconds: f64,
    /// Records read per second (parsed and compared or written).
    pub records_per_second: f64,
}

/// Lists the files under `paths` (folders recursed, hidden files skipped), keeping the order given and sorting
/// inside folders. A path that does not exist is returned as is (and refused when read).
pub fn collect_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let walker = walkdir::WalkDir::new(path).sort_by_file_name().into_iter();
            for entry in walker.filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.')) {
                match entry {
                    Ok(e) if e.file_type().is_file() => files.push(e.into_path()),
                    Ok(_) => {}
                    Err(e) => files.push(e.path().map(Path::to_path_buf).unwrap_or_else(|| path.clone())),
                }
            }
        } else {
            files.push(path.clone());
        }
    }
    files
}

/// Where a problem is, as `file:line` when the parser gave a line.
fn locate(file: &str, location: &str) -> String {
    match location.strip_prefix("line ") {
        Some(rest) => format!("{file}:{rest}"),
        None => format!("{file}: {location}"),
    }
}

/// Runs the command. `Err(UsageError)` before any file is touched; otherwise the report.
pub async fn run(config: &Config, dataset: &str, paths: &[PathBuf]) -> Result<Report, UsageError> {
    if paths.is_empty() {
        return Err(UsageError("name at least one file or folder to ingest".into()));
    }
    let engine = Engine::from_config(config).await.map_err(|e| UsageError(e.to_string()))?;
    let done = run_on(config, &engine, dataset, paths).await;
    engine.close().await;
    done
}

/// [`run`] on an open engine (which the caller closes, whatever this returns).
async fn run_on(config: &Config, engine: &Arc<Engine>, dataset: &str, paths: &[PathBuf]) -> Result<Report, UsageError> {
    if let Some(pg) = engine.pg() {
        if engine.is_degraded() {
            return Err(UsageError(format!("the records engine at {} is unreachable", engine.address())));
        }
        pg.migrate().await.map_err(|e| UsageError(e.to_string()))?;
    }
    let opened = crate::plugins::open_plugins(config, engine).await.map_err(|e| UsageError(e.to_string()))?;
    let ingestible = opened.ingestible();
    let known = || {
        ingestible
            .iter()
            .map(|(slug, formats)| format!("{slug} ({})", formats.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let parser = opened.parser(dataset).ok_or_else(|| {
        UsageError(format!(
            "no plugin in {} owns a dataset `{dataset}`; datasets that ingest: {}",
            config.plugins_dir().display(),
            known()
        ))
    })?;
    if parser.formats.is_empty() {
        return Err(UsageError(format!(
            "dataset `{dataset}` (plugin {}) reads no source files yet; datasets that ingest: {}",
            parser.slug,
            known()
        )));
    }
    let files = collect_files(paths);
    let dataset = dataset.to_string();
    let engine_label = engine.address().to_string();
    let engine = engine.clone();
    let report = tokio::task::spawn_blocking(move || ingest_files(&engine, &parser, &dataset, &files, &engine_label))
        .await
        .map_err(|e| UsageError(format!("ingest crashed: {e}")))?;
    Ok(report)
}

/// Ingests `files` into `dataset` with `parser`, one transaction per file, then assembles the dataset's
/// document once. Call from a blocking thread of the runtime. `datahost sync` feeds its downloads through here.
pub fn ingest_files(
    engine: &Arc<Engine>,
    parser: &Parser,
    dataset: &str,
    files: &[PathBuf],
    engine_label: &str,
) -> Report {
    let started = Instant::now();
    let bar =
        indicatif::ProgressBar::with_draw_target(Some(files.len() as u64), indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} files  {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut reports = Vec::with_capacity(files.len());
    for path in files {
        let name = path.display().to_string();
        bar.set_message(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        reports.push(ingest_one(engine, parser, dataset, path, &name));
        bar.inc(1);
    }
    bar.finish_and_clear();
    // One assembly at the end, not one per file: a run of thousands of filings stays linear.
    let assembled = match (engine.pg(), engine.sqlite()) {
        (Some(pg), _) => tokio::runtime::Handle::current()
            .block_on(pg.assemble_if_changed(dataset, &engine.table_collections(dataset))),
        (None, Some(store)) => store.assemble_if_changed(dataset, &engine.table_collections(dataset)),
        (None, None) => Ok(false),
    };
    if let Err(e) = assembled {
        // Records are committed; the next ingest or server start assembles the document.
        tracing::error!(error = %e, "records saved but the dataset document could not be rebuilt yet");
    }
    let mut totals = Counts::default();
    for r in &reports {
        totals.add(&r.counts);
    }
    let count = |s: &str| reports.iter().filter(|r| r.status == s).count();
    let seconds = started.elapsed().as_secs_f64();
    let records = totals.added + totals.replaced + totals.unchanged + totals.removed + totals.superseded;
    Report {
        dataset: dataset.to_string(),
        plugin: parser.slug.clone(),
        engine: engine_label.to_string(),
        applied: count("applied"),
        unchanged: count("unchanged"),
        refused: count("refused"),
        files: reports,
        totals,
        seconds,
        records_per_second: if seconds > 0.0 { records as f64 / seconds } else { 0.0 },
    }
}

fn refused(name: &str, reason: String) -> FileReport {
    FileReport {
        file: name.to_string(),
        status: "refused",
        format: None,
        sha256: None,
        counts: Counts::default(),
        reason: Some(reason),
        problems: Vec::new(),
        notes: Vec::new(),
    }
}

fn ingest_one(engine: &Engine, parser: &Parser, dataset: &str, path: &Path, name: &str) -> FileReport {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return refused(name, format!("cannot read the file: {e}")),
    };
    let sha256 = crate::engine::records::checksum(&bytes);
    let batch = match parser.parse(name, &bytes) {
        ParseOutcome::Batch(b) => b,
        ParseOutcome::Refused(r) => {
            let mut report = refused(name, r.reason.clone());
            if let Some(at) = &r.location {
                report.reason = Some(format!("{}: {}", locate(name, at), r.reason));
            }
            report.sha256 = Some(sha256);
            return report;
        }
    };
    if !parser.formats.contains(&batch.format) {
        return refused(
            name,
            format!("the parser reported format `{}`, which the {} plugin does not declare", batch.format, parser.slug),
        );
    }
    let words = engine.word_index(dataset);
    let applied = match (engine.pg(), engine.sqlite()) {
        (Some(pg), _) => pg.apply_file(dataset, name, &sha256, &batch, words.as_ref()),
        (None, Some(store)) => store.apply_file(dataset, name, &sha256, &batch, words.as_ref()),
        (None, None) => Err(EngineError::Unsupported("this engine keeps nothing")),
    };
    let problems: Vec<String> =
        batch.problems.iter().map(|p| format!("{}: {}", locate(name, &p.location), p.message)).collect();
    match applied {
        Ok(counts) => FileReport {
            file: name.to_string(),
            status: if counts.changed() { "applied" } else { "unchanged" },
            format: Some(batch.format.clone()),
            sha256: Some(sha256),
            counts,
            reason: None,
            problems,
            notes: batch.notes.clone(),
        },
        Err(e) => FileReport {
            reason: Some(format!("nothing written: {e}")),
            format: Some(batch.format.clone()),
            sha256: Some(sha256),
            problems,
            ..refused(name, String::new())
        },
    }
}

/// The text report: a line per file, the first problem of each file, then totals.
pub fn render(report: &Report) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for f in &report.files {
        let c = &f.counts;
        let _ = write!(out, "{:<9} {}", f.status, f.file);
        if let Some(format) = &f.format {
            let _ = write!(out, " ({format})");
        }
        if f.status != "refused" {
            let _ = write!(
                out,
                ": added {}, replaced {}, unchanged {}, removed {}, superseded {}, refused rows {}",
                c.added, c.replaced, c.unchanged, c.removed, c.superseded, c.refused
            );
        }
        out.push('\n');
        if let Some(reason) = &f.reason {
            let _ = writeln!(out, "          reason: {reason}");
        }
        if let Some(first) = f.problems.first() {
            let more = f.problems.len() - 1;
            let tail = if more > 0 { format!(" (and {more} more; --json lists them all)") } else { String::new() };
            let _ = writeln!(out, "          first unreadable row: {first}{tail}");
        }
        for note in &f.notes {
            let _ = writeln!(out, "          note: {note}");
        }
    }
    let t = &report.totals;
    let _ = writeln!(
        out,
        "{}: {} file(s): {} applied, {} unchanged, {} refused; records: added {}, replaced {}, unchanged {}, removed {}, superseded {}, refused rows {}; {:.2}s ({:.0} records/s) into {}",
        report.dataset,
        report.files.len(),
        report.applied,
        report.unchanged,
        report.refused,
        t.added,
        t.replaced,
        t.unchanged,
        t.removed,
        t.superseded,
        t.refused,
        report.seconds,
        report.records_per_second,
        report.engine
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_recursed_in_name_order_and_hidden_files_skipped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("b/c")).unwrap();
        for f in ["b/c/2.xml", "b/1.xml", "a.txt", "b/.hidden"] {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
        let files = collect_files(&[dir.path().to_path_buf(), dir.path().join("missing.txt")]);
        let names: Vec<String> =
            files.iter().map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string()).collect();
        assert_eq!(names, ["a.txt", "b/1.xml", "b/c/2.xml", "missing.txt"]);
    }

    #[test]
    fn problems_point_at_file_and_line() {
        assert_eq!(locate("f.txt", "line 12"), "f.txt:12");
        assert_eq!(locate("f.xml", "/a/b[2]"), "f.xml: /a/b[2]");
    }
}
