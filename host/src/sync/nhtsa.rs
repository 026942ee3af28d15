//! NHTSA ODI flat files (-> `vin`): the recall and complaint zips (`odi/ffdd/rcl/FLAT_RCL.zip`,
//! `odi/ffdd/cmpl/FLAT_CMPL.zip`), fetched conditionally; a new version is extracted and its `.txt` queued.

use crate::config::NhtsaSource;

use super::source_run::SourceRun;

fn accept(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".txt")
}

pub async fn run(run: &mut SourceRun<'_>, cfg: &NhtsaSource) -> Result<(), super::error::SourceError> {
    for path in &cfg.files {
        let (url, rel) = (run.url(path), run.rel(path));
        super::sources::fetch_zip(run, "vin", &url, &rel, accept).await;
    }
    Ok(())
}
