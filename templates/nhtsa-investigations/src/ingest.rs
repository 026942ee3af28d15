//! Parser of NHTSA's investigation flat file `FLAT_INV.txt` (format `nhtsa-flat-inv`): tab-separated, CRLF, no
//! header, 11 fields per NHTSA's data dictionary `INV.txt`: action number, make, model, year, component,
//! manufacturer, open date, close date (`YYYYMMDD`), recall campaign, subject, summary. Older extracts are
//! Latin-1, so bytes that are not UTF-8 are read as Latin-1.
//!
//! One `investigations` record per row, key `<action>:<make>:<model>:<year>:<campaign>` (an investigation has a
//! row per vehicle, and one per recall campaign it led to), group the action number. NHTSA updates rows in
//! place: a newer file replaces a row with the same key.

use datahost_plugin_api::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};

use crate::Investigation;

pub const FORMAT: &str = "nhtsa-flat-inv";
const FIELDS: usize = 11;

pub fn parse(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text: String = match std::str::from_utf8(file.bytes) {
        Ok(text) => text.to_string(),
        Err(_) => file.bytes.iter().map(|&b| b as char).collect(),
    };
    let first = text.lines().find(|l| !l.trim().is_empty()).ok_or("the file is empty")?;
    if first.split('\t').count() < FIELDS || !is_action_number(first.split('\t').next().unwrap_or("")) {
        return Err(Refusal::at("line 1", "not a FLAT_INV row: 11 tab-separated fields, an action number first"));
    }
    let mut batch = IngestBatch { format: FORMAT.into(), ..Default::default() };
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match row(line, &format!("{} line {}", file.name, i + 1)) {
            Ok(investigation) => {
                let v = &investigation;
                let year = v.year.map(|y| y.to_string()).unwrap_or_default();
                let campaign = v.recall_campaign.as_deref().unwrap_or("");
                let key = format!("{}:{}:{}:{year}:{campaign}", v.action_number, v.make, v.model);
                match IngestRecord::new("investigations", key, &v.action_number, v) {
                    Ok(record) => batch.records.push(record),
                    Err(refusal) => batch.problems.push(RowProblem::line(i + 1, refusal.reason)),
                }
            }
            Err(problem) => batch.problems.push(RowProblem::line(i + 1, problem.to_string())),
        }
    }
    Ok(batch)
}

/// What is wrong with one row: its text is the row problem reported at the row's line.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("{0} fields, FLAT_INV has {FIELDS}")]
    FieldCount(usize),
    #[error("field 1 (action number) `{0}` is not an NHTSA action number")]
    ActionNumber(String),
    #[error("field 4 (year) `{0}` is not a year")]
    Year(String),
    #[error("field {field} `{text}` is not a YYYYMMDD date")]
    Date { field: &'static str, text: String },
}

fn row(line: &str, source: &str) -> Result<Investigation, RowError> {
    let f: Vec<&str> = line.trim_end_matches('\r').split('\t').map(str::trim).collect();
    if f.len() < FIELDS {
        return Err(RowError::FieldCount(f.len()));
    }
    if !is_action_number(f[0]) {
        return Err(RowError::ActionNumber(f[0].into()));
    }
    let year = match f[3] {
        "9999" | "" => None,
        y => Some(y.parse::<u16>().map_err(|_| RowError::Year(y.into()))?),
    };
    let optional = |s: &str| Some(s.to_string()).filter(|s| !s.is_empty());
    Ok(Investigation {
        action_number: f[0].into(),
        make: f[1].into(),
        model: f[2].into(),
        year,
        component: f[4].into(),
        manufacturer: f[5].into(),
        opened_on: date(f[6], "7 (open date)")?,
        closed_on: date(f[7], "8 (close date)")?,
        recall_campaign: optional(f[8]),
        subject: f[9].into(),
        summary: f[10].into(),
        source: source.into(),
    })
}

/// Two letters at most, then digits: `PE04016`, `RQ97017`, `C85007`.
fn is_action_number(s: &str) -> bool {
    let digits = s.trim_start_matches(|c: char| c.is_ascii_uppercase());
    (1..=2).contains(&(s.len() - digits.len())) && digits.len() >= 5 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `YYYYMMDD` as `YYYY-MM-DD`; empty is `None`. `field` names the field in the error.
fn date(s: &str, field: &'static str) -> Result<Option<String>, RowError> {
    if s.is_empty() {
        return Ok(None);
    }
    let iso = format!("{}-{}-{}", s.get(..4).unwrap_or(""), s.get(4..6).unwrap_or(""), s.get(6..).unwrap_or(""));
    match datahost_plugin_api::params::parse_date(&iso) {
        Some(_) => Ok(Some(iso)),
        None => Err(RowError::Date { field, text: s.into() }),
    }
}
