//! FEC bulk data (-> `donors`): `<base>/<cycle>/<kind><yy>.zip` for each configured kind and two-year cycle,
//! each holding one pipe-delimited `.txt` (`itpas2.txt`, `cm.txt`, `cn.txt`, `ccl.txt`). Fetched
//! conditionally; a new version is extracted and its `.txt` ingested.

use chrono::Datelike;

use crate::config::FecSource;

use super::source_run::SourceRun;

/// The two-year cycle a year belongs to (named by its even year).
pub fn cycle_of(year: i32) -> i32 {
    year + year.rem_euclid(2)
}

fn accept(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".txt")
}

pub async fn run(run: &mut SourceRun<'_>, cfg: &FecSource) -> Result<(), super::error::SourceError> {
    let cycles = if cfg.cycles.is_empty() { vec![cycle_of(chrono::Utc::now().year())] } else { cfg.cycles.clone() };
    for cycle in cycles {
        for kind in &cfg.files {
            let path = format!("{cycle}/{kind}{:02}.zip", cycle.rem_euclid(100));
            let (url, rel) = (run.url(&path), run.rel(&path));
            super::sources::fetch_zip(run, "donors", &url, &rel, accept).await;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn cycles_are_named_by_their_even_year() {
        assert_eq!(super::cycle_of(2025), 2026);
        assert_eq!(super::cycle_of(2026), 2026);
    }
}
