//! Senate periodic transaction reports (-> `senate-trades`): the aggregate JSON of Senate Stock Watcher
//! (`sync.sources.senate.path` below `base_url`), fetched conditionally and ingested when it changed.

use crate::config::SenateSource;

use super::source_run::SourceRun;

pub async fn run(run: &mut SourceRun<'_>, cfg: &SenateSource) -> Result<(), super::error::SourceError> {
    let url = run.url(&cfg.path);
    let rel = run.rel(&cfg.path);
    super::sources::fetch_plain(run, "senate-trades", &url, &rel).await;
    Ok(())
}
