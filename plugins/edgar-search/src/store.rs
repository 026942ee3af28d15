//! Where the ingested filings' search index lives: in the plugin's own directory (`Host::plugin_dir`, under
//! `engine.data_dir`), one `index-<fingerprint>` directory per data generation. The fingerprint is the
//! `ingested` block (rows, files, last ingest time, counts) of this dataset and of each other dataset whose
//! filings are indexed (`sources.rs`), and the index layout, so a restart on the
//! same data opens the index instead of rebuilding it, and any ingest makes the next `init` rebuild it from the
//! records. An index is built under a `building-*` name and renamed into place once complete (a `ready` marker
//! inside), so a crash mid-build never leaves a half index that a later start would open; replicas of a shared
//! PostgreSQL engine each build their own from the same records.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::query::RecordsQuery;
use datahost_plugin_api::{BoxError, Host, LogLevel};
use sha2::{Digest, Sha256};

use crate::data::Filing;
use crate::index::{BuildOptions, IndexError, SearchIndex, LAYOUT_VERSION};
use crate::sources::Others;

/// The field the filing records are looked up by (declared in the manifest).
pub const ACCESSION_FIELD: &str = "accession";
const INDEX_PREFIX: &str = "index-";
const BUILDING_PREFIX: &str = "building-";
/// Inside a complete index directory: its fingerprint.
const READY: &str = "ready";
/// A `building-*` directory older than this was left by a crash.
const STALE_BUILD: Duration = Duration::from_secs(3600);
/// Accessions per look-up (each a bound value of one `IN` list).
const ACCESSIONS_PER_QUERY: usize = 500;

/// The index of the ingested filings (this dataset's, when it holds ingested records, and the other
/// datasets') and how it was obtained (for the log).
pub fn ingested_index(
    host: &Host,
    own: Option<&IngestedInfo>,
    others: &Others,
) -> Result<(SearchIndex, &'static str), BoxError> {
    let dir = match host.plugin_dir() {
        Ok(dir) => dir,
        Err(e) => {
            host.log(LogLevel::Warn, &format!("edgar-search: no directory of its own ({e}); indexing in RAM"));
            let filings = all_filings(host, own.is_some(), others)?;
            return Ok((SearchIndex::build(filings)?, "indexed the ingested filings in RAM"));
        }
    };
    let fingerprint = fingerprint(own, others);
    let target = dir.join(format!("{INDEX_PREFIX}{fingerprint}"));
    if target.join(READY).is_file() {
        match SearchIndex::open(&target) {
            Ok(index) => {
                remove_others(host, &dir, &target);
                return Ok((index, "opened the index already built for this data"));
            }
            Err(e) => {
                host.log(LogLevel::Warn, &format!("edgar-search: {e}; rebuilding it"));
                remove_logged(host, &target);
            }
        }
    }
    let filings = all_filings(host, own.is_some(), others)?;
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    let building = dir.join(format!("{BUILDING_PREFIX}{}-{nanos}", std::process::id()));
    let built = SearchIndex::build_in(&building, filings, BuildOptions::default())
        .map_err(PlaceError::Build)
        .and_then(|index| {
            drop(index);
            std::fs::write(building.join(READY), &fingerprint).map_err(PlaceError::ReadyMarker)
        })
        .and_then(|()| match std::fs::rename(&building, &target) {
            Ok(()) => Ok(()),
            // Another process (a replica sharing the directory) put the same index in place first.
            Err(_) if target.join(READY).is_file() => Ok(()),
            Err(source) => Err(PlaceError::Move { target: target.clone(), source }),
        });
    if let Err(e) = built {
        remove_logged(host, &building);
        return Err(e.into());
    }
    // Still there only when another process moved the same index into place first.
    remove_logged(host, &building);
    let index = SearchIndex::open(&target)?;
    remove_others(host, &dir, &target);
    Ok((index, "indexed the ingested filings on disk"))
}

/// Why an index built on disk could not be put in place (its `building-*` directory is then removed).
#[derive(Debug, thiserror::Error)]
enum PlaceError {
    #[error(transparent)]
    Build(IndexError),
    #[error("writing the ready marker: {0}")]
    ReadyMarker(std::io::Error),
    #[error("moving the built index into {}: {source}", .target.display())]
    Move { target: PathBuf, source: std::io::Error },
}

/// What identifies one generation of the data and the index layout.
pub fn fingerprint(own: Option<&IngestedInfo>, others: &Others) -> String {
    let mut hash = Sha256::new();
    hash.update(format!("layout {LAYOUT_VERSION}\n"));
    hash.update(serde_json::to_vec(&(own, others.generation())).unwrap_or_default());
    hash.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// This dataset's filings (when it holds ingested records) and the other datasets', one per accession: a
/// filing known both from its EDGAR submissions metadata and from its ingested document keeps the metadata
/// (its primary document's address) and adds the document's facts to its text.
fn all_filings(host: &Host, own: bool, others: &Others) -> Result<Vec<Filing>, BoxError> {
    let mut filings = if own { read_filings(host)? } else { Vec::new() };
    let (theirs, left_out) = others.filings()?;
    if left_out > 0 {
        host.log(
            LogLevel::Info,
            &format!("edgar-search: {left_out} ingested Form 4 filings have no accession number or filed date (bare XML without its EDGAR header): not searchable"),
        );
    }
    let mut by_accession: std::collections::HashMap<String, usize> =
        filings.iter().enumerate().map(|(i, f)| (f.accession.clone(), i)).collect();
    for f in theirs {
        match by_accession.get(&f.accession) {
            Some(&i) => {
                let held = &mut filings[i];
                held.text = if held.text.is_empty() { f.text } else { format!("{} {}", held.text, f.text) };
            }
            None => {
                by_accession.insert(f.accession.clone(), filings.len());
                filings.push(f);
            }
        }
    }
    Ok(filings)
}

/// Every filing record, read by accession in pages (the accessions come from the declared index, not a
/// table scan).
fn read_filings(host: &Host) -> Result<Vec<Filing>, BoxError> {
    let accessions =
        host.query_all_records(&RecordsQuery::new(crate::SLUG, crate::ingest::FILINGS).distinct(ACCESSION_FIELD))?;
    let mut filings = Vec::with_capacity(accessions.len());
    for chunk in accessions.chunks(ACCESSIONS_PER_QUERY) {
        let query = RecordsQuery::new(crate::SLUG, crate::ingest::FILINGS).any_of(ACCESSION_FIELD, chunk.to_vec());
        for record in host.query_all_records(&query)? {
            filings.push(serde_json::from_value(record).map_err(|e| format!("a stored filing is not readable: {e}"))?);
        }
    }
    Ok(filings)
}

/// Removes the indexes of other data generations and builds a crash left behind; an index another instance
/// still has open stays readable (its files are unlinked, not truncated). What cannot be removed is logged, so
/// old generations never pile up on disk unsaid.
fn remove_others(host: &Host, dir: &Path, keep: &Path) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            host.log(LogLevel::Warn, &format!("edgar-search: cannot list {} for old indexes: {e}", dir.display()));
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                host.log(LogLevel::Warn, &format!("edgar-search: an entry of {} is not readable: {e}", dir.display()));
                continue;
            }
        };
        let path: PathBuf = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        let stale_build = name.starts_with(BUILDING_PREFIX)
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_BUILD);
        if (name.starts_with(INDEX_PREFIX) && path != keep) || stale_build {
            remove_logged(host, &path);
        }
    }
}

/// Removes an index folder; a failure is logged with the folder (it would otherwise stay on disk unsaid). One
/// already gone (never created, or removed by a replica sharing the directory) is no failure.
fn remove_logged(host: &Host, path: &Path) {
    match std::fs::remove_dir_all(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => host.log(LogLevel::Warn, &format!("edgar-search: cannot remove {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datahost_plugin_api::testing::TestHost;

    fn filing(accession: &str, text: &str) -> serde_json::Value {
        serde_json::json!({"form": "8-K", "entity": "Acme Corp", "cik": "0000000001", "accession": accession,
            "url": format!("https://www.sec.gov/Archives/edgar/data/1/{accession}.txt"), "filedDate": "2024-01-02",
            "text": text})
    }

    fn dataset(host: &TestHost, files: u64, filings: &[serde_json::Value]) -> IngestedInfo {
        let info = IngestedInfo { rows: filings.len() as u64, files, ..Default::default() };
        let doc = serde_json::json!({"ingested": info, "filings": filings});
        host.set_dataset(crate::SLUG, &doc.to_string());
        info
    }

    fn index_dirs(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn the_index_is_built_once_per_data_generation_and_reopened_after() {
        let host = TestHost::new();
        let info = dataset(&host, 1, &[filing("0000000001-24-000001", "material weakness in controls")]);
        let none = Others::default();
        let (index, how) = ingested_index(&host.host(), Some(&info), &none).unwrap();
        assert_eq!((index.len(), how), (1, "indexed the ingested filings on disk"));
        let dir = host.host().plugin_dir().unwrap();
        assert_eq!(index_dirs(&dir), [format!("{INDEX_PREFIX}{}", fingerprint(Some(&info), &none))]);

        // A restart on the same data opens it; the hits come from the stored fields.
        let (again, how) = ingested_index(&host.host(), Some(&info), &none).unwrap();
        assert_eq!(how, "opened the index already built for this data");
        let req = crate::index::SearchRequest { query: "weakness".into(), limit: 5, ..Default::default() };
        let hit = &again.search(&req).unwrap().hits[0];
        assert_eq!((hit.filing().accession.as_str(), hit.filing().form.as_str()), ("0000000001-24-000001", "8-K"));
        assert_eq!(hit.filing().text, "material weakness in controls");

        // New data: a new index replaces the old one.
        let info = dataset(
            &host,
            2,
            &[filing("0000000001-24-000001", "material weakness in controls"), filing("0000000001-24-000002", "x")],
        );
        let (index, how) = ingested_index(&host.host(), Some(&info), &none).unwrap();
        assert_eq!((index.len(), how), (2, "indexed the ingested filings on disk"));
        assert_eq!(index_dirs(&dir), [format!("{INDEX_PREFIX}{}", fingerprint(Some(&info), &none))]);
    }

    #[test]
    fn a_damaged_index_is_rebuilt_and_a_half_build_is_never_opened() {
        let host = TestHost::new();
        let info = dataset(&host, 1, &[filing("0000000001-24-000001", "going concern doubt")]);
        let dir = host.host().plugin_dir().unwrap();
        // A build a crash cut off: no `ready` marker, not under the final name; a damaged final directory.
        std::fs::create_dir_all(dir.join(format!("{BUILDING_PREFIX}1-1"))).unwrap();
        let none = Others::default();
        let target = dir.join(format!("{INDEX_PREFIX}{}", fingerprint(Some(&info), &none)));
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join(READY), "x").unwrap();
        std::fs::write(target.join("meta.json"), "not json").unwrap();
        let (index, how) = ingested_index(&host.host(), Some(&info), &none).unwrap();
        assert_eq!((index.len(), how), (1, "indexed the ingested filings on disk"));
        assert!(dir.join(format!("{BUILDING_PREFIX}1-1")).exists(), "a recent build of another process is left alone");
    }
}
