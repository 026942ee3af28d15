//! SEC EDGAR: `files/company_tickers.json` (-> `companies`, conditional), and the daily form index
//! `Archives/edgar/daily-index/<YYYY>/QTR<n>/form.<YYYYMMDD>.idx`, from which every Form 4 and 4/A
//! (-> `insiders`) and 13F-HR and 13F-HR/A (-> `institutional-holdings`) submission is fetched as
//! `Archives/<File Name>` (the `.txt` with header and documents).
//!
//! The cursor per dataset is the last index date read in full (`index_date:<dataset>`): a day advances it only
//! once every wanted filing of that day is kept. The first run starts at `start_date` (default: today minus 7
//! days). Weekends have no index; a missing index for a past day is a holiday, for today it is not out yet.
//! Submissions never change once published, so a kept one is never requested again.

use chrono::{Datelike, Duration as Days, NaiveDate, Weekday};

use crate::config::SecSource;

use super::error::SourceError;
use super::http::Download;
use super::source_run::SourceRun;

/// One row of a daily form index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    pub form: String,
    pub company: String,
    pub cik: String,
    pub date_filed: String,
    pub file_name: String,
}

/// The dataset a form type feeds, if any.
fn dataset_of(form: &str) -> Option<&'static str> {
    match form {
        "4" | "4/A" => Some("insiders"),
        "13F-HR" | "13F-HR/A" => Some("institutional-holdings"),
        _ => None,
    }
}

/// Reads a `form.<date>.idx`: header lines, a line of dashes, then fixed-width rows (Form Type, Company
/// Name, CIK, Date Filed, File Name). Form types may hold single spaces ("SC 13G/A"), company names too, so
/// the row is read from its right end (file name, date, CIK) and the form type is the text before the first
/// run of two spaces.
pub fn parse_index(text: &str) -> Vec<IndexEntry> {
    let mut rows = Vec::new();
    let mut in_body = false;
    for line in text.lines() {
        if !in_body {
            in_body = line.starts_with("---");
            continue;
        }
        let Some((rest, file_name)) = split_last(line) else { continue };
        let Some((rest, date_filed)) = split_last(rest) else { continue };
        let Some((rest, cik)) = split_last(rest) else { continue };
        let rest = rest.trim();
        let (form, company) = match rest.find("  ") {
            Some(at) => (rest[..at].trim(), rest[at..].trim()),
            None => (rest, ""),
        };
        if !file_name.starts_with("edgar/") || !cik.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        rows.push(IndexEntry {
            form: form.to_string(),
            company: company.to_string(),
            cik: cik.to_string(),
            date_filed: date_filed.to_string(),
            file_name: file_name.to_string(),
        });
    }
    rows
}

/// `"a b   c"` -> `("a b", "c")`: the last whitespace-separated token and what comes before it.
fn split_last(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_end();
    let at = s.rfind(char::is_whitespace)?;
    Some((&s[..at], &s[at + 1..]))
}

/// The index path of a day.
pub fn index_path(day: NaiveDate) -> String {
    format!(
        "Archives/edgar/daily-index/{}/QTR{}/form.{}.idx",
        day.year(),
        (day.month() - 1) / 3 + 1,
        day.format("%Y%m%d")
    )
}

/// The last index day read for `dataset`, as stored. An unreadable cursor is said in the log and read as none:
/// the source starts over from its start date (files already kept are not fetched again).
fn read_cursor(dataset: &str, stored: &str) -> Option<NaiveDate> {
    match NaiveDate::parse_from_str(stored, "%Y-%m-%d") {
        Ok(day) => Some(day),
        Err(e) => {
            tracing::warn!(source = "sec", dataset, cursor = stored, "unreadable index cursor, starting over: {e}");
            None
        }
    }
}

pub async fn run(run: &mut SourceRun<'_>, cfg: &SecSource) -> Result<(), SourceError> {
    if run.wants("companies") {
        let (url, rel) = (run.url("files/company_tickers.json"), run.rel("files/company_tickers.json"));
        super::sources::fetch_plain(run, "companies", &url, &rel).await;
    }
    let wanted: Vec<&'static str> =
        ["insiders", "institutional-holdings"].into_iter().filter(|d| run.wants(d)).collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let today = chrono::Utc::now().date_naive();
    // An empty start date means a week back; any other was checked when the configuration loaded.
    let start = NaiveDate::parse_from_str(&cfg.start_date, "%Y-%m-%d").unwrap_or(today - Days::days(7));
    // Per dataset: the first day still to read.
    let mut next: Vec<(&str, NaiveDate)> = Vec::new();
    for d in &wanted {
        let cursor = run.store.get("sec", &format!("index_date:{d}")).await?;
        let from = cursor.and_then(|c| read_cursor(d, &c)).map(|c| c + Days::days(1)).unwrap_or(start).max(start);
        next.push((d, from));
    }
    let Some(mut day) = next.iter().map(|(_, n)| *n).min() else { return Ok(()) };
    while day <= today {
        let due: Vec<&str> = next.iter().filter(|(_, n)| *n <= day).map(|(d, _)| *d).collect();
        if matches!(day.weekday(), Weekday::Sat | Weekday::Sun) {
            advance(run, &due, day, None).await?;
            day += Days::days(1);
            continue;
        }
        let path = index_path(day);
        let (url, rel) = (run.url(&path), run.rel(&path));
        let dest = run.abs(&rel);
        let text = if dest.exists() && run.store.known(&url).await? {
            tokio::fs::read_to_string(&dest).await.map_err(SourceError::read("sec", &dest))?
        } else {
            match run.client.download(&url, &dest, None).await {
                Ok(Download::Done { sha256, size, .. }) => {
                    run.keep("", &url, &rel, &sha256, size, "index").await?;
                    run.report.fetched += 1;
                    tokio::fs::read_to_string(&dest).await.map_err(SourceError::read("sec", &dest))?
                }
                Ok(Download::NotFound | Download::NotModified) if day < today => {
                    // No index that day (a holiday): nothing to read.
                    advance(run, &due, day, None).await?;
                    day += Days::days(1);
                    continue;
                }
                Ok(_) => break, // today's index is not published yet
                Err(e) => {
                    run.error(e.to_string());
                    break;
                }
            }
        };
        let entries = parse_index(&text);
        let mut failed = false;
        let mut last_accession = None;
        for entry in &entries {
            let Some(dataset) = dataset_of(&entry.form).filter(|d| due.contains(d)) else { continue };
            let url = run.url(&format!("Archives/{}", entry.file_name));
            let rel = run.rel(&format!("Archives/{}", entry.file_name));
            match run.fetch_immutable(&url, &rel, dataset).await {
                Ok(_) => last_accession = accession(&entry.file_name),
                Err(e) => {
                    run.error(e.to_string());
                    failed = true;
                }
            }
        }
        if failed {
            // The day is read again next run; what was kept is not fetched twice.
            break;
        }
        advance(run, &due, day, last_accession.as_deref()).await?;
        day += Days::days(1);
    }
    for d in &wanted {
        if let Some(c) = run.store.get("sec", &format!("index_date:{d}")).await? {
            run.report.cursor.insert(format!("index_date:{d}"), c);
        }
        if let Some(c) = run.store.get("sec", &format!("last_accession:{d}")).await? {
            run.report.cursor.insert(format!("last_accession:{d}"), c);
        }
    }
    Ok(())
}

/// Moves the cursors of `due` datasets to `day`.
async fn advance(
    run: &mut SourceRun<'_>,
    due: &[&str],
    day: NaiveDate,
    accession: Option<&str>,
) -> Result<(), SourceError> {
    for d in due {
        run.store.set("sec", &format!("index_date:{d}"), &day.format("%Y-%m-%d").to_string()).await?;
        if let Some(a) = accession {
            run.store.set("sec", &format!("last_accession:{d}"), a).await?;
        }
    }
    Ok(())
}

/// `edgar/data/320193/0000320193-22-000061.txt` -> `0000320193-22-000061`.
fn accession(file_name: &str) -> Option<String> {
    let name = file_name.rsplit('/').next()?;
    Some(name.strip_suffix(".txt").unwrap_or(name).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_index_cursor_is_logged_and_read_as_none() {
        let (day, logs) = crate::log_capture::logged(|| read_cursor("insiders", "2025-13-40"));
        assert_eq!(day, None);
        assert!(logs.contains("unreadable index cursor") && logs.contains("2025-13-40"), "{logs}");
        assert_eq!(read_cursor("insiders", "2025-01-06"), NaiveDate::from_ymd_opt(2025, 1, 6));
    }

    const SAMPLE: &str = "Description:           Daily Index of EDGAR Dissemination Feed by Form Type
Last Data Received:    Jan 06, 2025
Comments:              webmaster@sec.gov
Anonymous FTP:         ftp://ftp.sec.gov/edgar/

Form Type   Company Name                                                  CIK         Date Filed  File Name
---------------------------------------------------------------------------------------------------------------------------------------------
13F-HR      Abacus Capital LLC                                            1894188     20250106    edgar/data/1894188/0001894188-25-000001.txt
4           Apple Inc.                                                    320193      20250106    edgar/data/320193/0000320193-25-000001.txt
4/A         COOK TIMOTHY D                                                1214156     20250106    edgar/data/1214156/0000320193-25-000002.txt
SC 13G/A    Some  Fund  LP                                                1000001     20250106    edgar/data/1000001/0001000001-25-000003.txt
";

    #[test]
    fn the_daily_index_is_read_by_its_columns() {
        let rows = parse_index(SAMPLE);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].form, "13F-HR");
        assert_eq!(rows[1].form, "4");
        assert_eq!(rows[1].company, "Apple Inc.");
        assert_eq!(rows[1].cik, "320193");
        assert_eq!(rows[1].file_name, "edgar/data/320193/0000320193-25-000001.txt");
        assert_eq!(rows[2].form, "4/A");
        assert_eq!(rows[3].form, "SC 13G/A");
        let wanted: Vec<_> = rows.iter().filter_map(|r| dataset_of(&r.form)).collect();
        assert_eq!(wanted, ["institutional-holdings", "insiders", "insiders"]);
        assert_eq!(accession(&rows[1].file_name).as_deref(), Some("0000320193-25-000001"));
    }

    #[test]
    fn index_paths_name_the_quarter() {
        let d = |s| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert_eq!(index_path(d("2025-01-06")), "Archives/edgar/daily-index/2025/QTR1/form.20250106.idx");
        assert_eq!(index_path(d("2024-12-31")), "Archives/edgar/daily-index/2024/QTR4/form.20241231.idx");
        assert_eq!(index_path(d("2024-07-01")), "Archives/edgar/daily-index/2024/QTR3/form.20240701.idx");
    }
}
