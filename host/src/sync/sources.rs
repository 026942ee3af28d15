//! What the source modules share: a source's common `[sync.sources.<name>]` keys, and fetching a plain file or a
//! zip for a dataset. `sync/mod.rs` dispatches from a source's name to its module.

use crate::config::{CommonSource, SourceSettings, SyncConfig};

use super::source_run::{Fetch, SourceRun};

/// The keys every source has.
pub fn common<'a>(config: &'a SyncConfig, source: &str) -> CommonSource<'a> {
    let s = &config.sources;
    match source {
        "sec" => s.sec.common(),
        "house" => s.house.common(),
        "senate" => s.senate.common(),
        "fec" => s.fec.common(),
        "nhtsa" => s.nhtsa.common(),
        "prices" => s.prices.common(),
        _ => s.directory.common(),
    }
}

/// Fetches a file that changes in place and queues it for `dataset` as it is (no archive to open).
pub async fn fetch_plain(run: &mut SourceRun<'_>, dataset: &str, url: &str, rel: &str) {
    match run.fetch_mutable(url, rel).await {
        Ok(Fetch::New { rel, sha256, size, validators, .. }) => {
            let kept = async {
                run.keep(dataset, url, &rel, &sha256, size, "pending").await?;
                run.commit(url, &validators, &sha256).await
            }
            .await;
            if let Err(e) = kept {
                run.error(e.to_string());
            }
        }
        Ok(Fetch::Unchanged) => {}
        Ok(Fetch::NotFound) => run.error(format!("{}: GET {} answered 404", run.name, super::http::display_url(url))),
        Err(e) => run.error(e.to_string()),
    }
}

/// Fetches a zip that changes in place and queues the members `accept` wants for `dataset`. Returns whether
/// the extracted members are in place (new or from an earlier run).
pub async fn fetch_zip(run: &mut SourceRun<'_>, dataset: &str, url: &str, rel: &str, accept: fn(&str) -> bool) -> bool {
    match run.fetch_mutable(url, rel).await {
        Ok(Fetch::New { path, rel, sha256, size, validators }) => {
            match run.extract(dataset, url, (&path, &rel, &sha256, size, &validators), accept).await {
                Ok(_) => true,
                Err(e) => {
                    // Not kept after all: the report counts only files that are usable.
                    run.report.fetched = run.report.fetched.saturating_sub(1);
                    run.error(e.to_string());
                    false
                }
            }
        }
        Ok(Fetch::Unchanged) => {
            let (zip, dir) = (run.abs(rel), run.abs(&format!("{rel}.d")));
            let members_gone = std::fs::read_dir(&dir).map_or(true, |mut d| d.next().is_none());
            if !members_gone || !zip.exists() {
                return true;
            }
            // Retention deleted the extracted members but kept the zip: extract them again.
            match restore(run, dataset, url, rel, accept).await {
                Ok(()) => true,
                Err(e) => {
                    run.error(e.to_string());
                    false
                }
            }
        }
        Ok(Fetch::NotFound) => {
            run.error(format!("{}: GET {} answered 404", run.name, super::http::display_url(url)));
            false
        }
        Err(e) => {
            run.error(e.to_string());
            false
        }
    }
}

/// Extracts a kept, unchanged zip again (its members were removed by retention).
async fn restore(
    run: &mut SourceRun<'_>,
    dataset: &str,
    url: &str,
    rel: &str,
    accept: fn(&str) -> bool,
) -> Result<(), super::http::HttpError> {
    let zip = run.abs(rel);
    let io = |message: String| super::http::HttpError::Io {
        source_name: run.name,
        url: super::http::display_url(url),
        message,
    };
    let (sha256, size) =
        super::http::hash_file(&zip).await.map_err(|e| io(format!("cannot read {}: {e}", zip.display())))?;
    let validators =
        run.store.validators(url).await.map_err(|e| io(e.to_string()))?.map(|(v, _)| v).unwrap_or_default();
    run.extract(dataset, url, (&zip, rel, &sha256, size, &validators), accept).await.map(drop)
}
