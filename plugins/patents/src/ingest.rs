//! The plugin's parser: detects the format of one PatentsView file from its content and turns it into
//! `patents` and `assignees` records (see `records.rs`).
//!
//! Formats:
//! - `patentsview-g-patent-tsv`: the bulk table `g_patent.tsv` (tab-separated, text in double quotes; header
//!   with `patent_id` and `patent_date`). One `patents` record per row.
//! - `patentsview-g-assignee-tsv`: the bulk table `g_assignee_disambiguated.tsv` (header with `patent_id` and
//!   `assignee_sequence`). One `assignees` record per row.
//! - `patentsview-api-json`: a PatentSearch API response (`{"patents": [{"patent_id", "patent_date",
//!   "assignees": [...]}]}`; the legacy API's `patent_number` is read as the id). One `patents` record per
//!   patent that carries its `patent_date`, one `assignees` record per element of its `assignees`.
//!
//! The two bulk tables must both be ingested for grants to be counted: they join on `patent_id`. Keys:
//! `patents` `<patent_id>`, `assignees` `<patent_id>/<assignee_sequence>`; group = the patent id (the grant is
//! the document both come from). PatentsView publishes no amendments: a later release of a table replaces the
//! same keys, so no lineage is declared.

use chrono::NaiveDate;
use datahost_plugin_api::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use serde_json::{Map, Value};

use crate::records::{patent_url, AssigneeRecord, PatentRecord, ASSIGNEES, PATENTS};

pub const G_PATENT_TSV: &str = "patentsview-g-patent-tsv";
pub const G_ASSIGNEE_TSV: &str = "patentsview-g-assignee-tsv";
pub const API_JSON: &str = "patentsview-api-json";
/// The formats `ingest` detects.
pub const FORMATS: &[&str] = &[G_PATENT_TSV, G_ASSIGNEE_TSV, API_JSON];

/// Parses one source file (see the module documentation).
pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    if text.trim_start().starts_with('{') {
        return api_json(text);
    }
    let header_line = text.lines().next().unwrap_or_default();
    let header: Vec<String> = header_line.split('\t').map(|h| h.trim().trim_matches('"').to_string()).collect();
    let has = |name: &str| header.iter().any(|h| h == name);
    if has("patent_id") && has("patent_date") {
        tsv(text, G_PATENT_TSV, patent_row)
    } else if has("patent_id") && has("assignee_sequence") {
        tsv(text, G_ASSIGNEE_TSV, assignee_row)
    } else {
        let shown: String = header_line.chars().take(120).collect();
        Err(Refusal::at(
            "line 1",
            format!(
                "not a PatentsView file: expected a PatentSearch API JSON response or a tab-separated g_patent / \
                 g_assignee_disambiguated table (header with patent_id and patent_date or assignee_sequence); \
                 the file starts with `{shown}`"
            ),
        ))
    }
}

/// One readable row of a table, or the reason it cannot be read (with the column when one is at fault).
type RowResult = Result<IngestRecord, (Option<&'static str>, RowError)>;

/// Reads a tab-separated bulk table whose header was recognised, one record per row via `read_row`.
fn tsv(text: &str, format: &str, read_row: fn(&Row<'_>, &str) -> RowResult) -> Result<IngestBatch, Refusal> {
    let mut reader = csv::ReaderBuilder::new().delimiter(b'\t').quote(b'"').flexible(true).from_reader(text.as_bytes());
    let header =
        reader.headers().map_err(|e| Refusal::at("line 1", format!("the header row cannot be read: {e}")))?.clone();
    let mut batch = IngestBatch { format: format.to_string(), ..Default::default() };
    for (index, result) in reader.records().enumerate() {
        let record = match result {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map(|p| p.line() as usize).unwrap_or(index + 2);
                batch.problems.push(RowProblem::line(line, format!("the row cannot be read: {e}")));
                continue;
            }
        };
        let line = record.position().map(|p| p.line() as usize).unwrap_or(index + 2);
        if record.len() != header.len() {
            batch.problems.push(RowProblem::line(
                line,
                format!("{} fields where the header has {} (a truncated or shifted row)", record.len(), header.len()),
            ));
            continue;
        }
        match read_row(&Row { header: &header, record: &record }, format) {
            Ok(r) => batch.records.push(r),
            Err((Some(column), error)) => {
                batch.problems.push(RowProblem::new(format!("line {line}, column {column}"), error.to_string()))
            }
            Err((None, error)) => batch.problems.push(RowProblem::line(line, error.to_string())),
        }
    }
    if batch.records.is_empty() && batch.problems.is_empty() {
        batch.notes.push("the table has a header and no rows".to_string());
    }
    Ok(batch)
}

/// One row of a table, with access by column name.
struct Row<'a> {
    header: &'a csv::StringRecord,
    record: &'a csv::StringRecord,
}

impl Row<'_> {
    /// The trimmed value of `column`; `None` when the column is absent or the value empty.
    fn get(&self, column: &str) -> Option<String> {
        let index = self.header.iter().position(|h| h == column)?;
        self.record.get(index).map(str::trim).filter(|v| !v.is_empty()).map(str::to_string)
    }

    fn required(&self, column: &'static str) -> Result<String, (Option<&'static str>, RowError)> {
        self.get(column).ok_or((Some(column), RowError::Missing(column)))
    }
}

fn patent_row(row: &Row<'_>, format: &str) -> RowResult {
    let patent_id = row.required("patent_id")?;
    let date = row.required("patent_date")?;
    let patent_date = valid_date(&date).map_err(|m| (Some("patent_date"), m))?;
    let withdrawn = match row.get("withdrawn").as_deref() {
        None => None,
        Some("0") => Some(false),
        Some("1") => Some(true),
        Some(other) => return Err((Some("withdrawn"), RowError::NotZeroOrOne(other.to_string()))),
    };
    patent_record(PatentRecord {
        source_url: patent_url(&patent_id),
        patent_type: row.get("patent_type"),
        patent_title: row.get("patent_title"),
        patent_id,
        patent_date,
        withdrawn,
        format: format.to_string(),
    })
    .map_err(|m| (None, m))
}

fn assignee_row(row: &Row<'_>, format: &str) -> RowResult {
    let patent_id = row.required("patent_id")?;
    let sequence = row.required("assignee_sequence")?;
    let sequence =
        sequence.parse::<u32>().map_err(|_| (Some("assignee_sequence"), RowError::NotASequence(sequence.clone())))?;
    assignee_record(AssigneeRecord {
        patent_id,
        sequence,
        assignee_id: row.get("assignee_id"),
        organization: row.get("disambig_assignee_organization"),
        individual_name_first: row.get("disambig_assignee_individual_name_first"),
        individual_name_last: row.get("disambig_assignee_individual_name_last"),
        assignee_type: row.get("assignee_type"),
        format: format.to_string(),
    })
    .map_err(|m| (None, m))
}

/// `YYYY-MM-DD` checked as a calendar date.
fn valid_date(value: &str) -> Result<String, RowError> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .map(|d| d.format("%Y-%m-%d").to_string())
        .map_err(|_| RowError::NotADate(value.to_string()))
}

fn patent_record(patent: PatentRecord) -> Result<IngestRecord, RowError> {
    IngestRecord::new(PATENTS, patent.patent_id.clone(), patent.patent_id.clone(), &patent)
        .map_err(|r| RowError::Unstorable(r.reason))
}

/// An assignee row must name someone: an organization or an individual.
fn assignee_record(assignee: AssigneeRecord) -> Result<IngestRecord, RowError> {
    if assignee.organization.is_none() && assignee.individual_name_last.is_none() {
        return Err(RowError::NobodyNamed { sequence: assignee.sequence, patent_id: assignee.patent_id });
    }
    let key = format!("{}/{}", assignee.patent_id, assignee.sequence);
    IngestRecord::new(ASSIGNEES, key, assignee.patent_id.clone(), &assignee).map_err(|r| RowError::Unstorable(r.reason))
}

/// What is wrong with one patent or assignee row (a row problem: the table's line and column, or the API
/// response's path, say where).
#[derive(Debug, thiserror::Error)]
enum RowError {
    /// A required column is absent or empty.
    #[error("no {0}")]
    Missing(&'static str),
    #[error("patent_date `{0}` is not a YYYY-MM-DD date")]
    NotADate(String),
    /// The API gave `patent_date` as another JSON value than text.
    #[error("patent_date {0} is not a date string")]
    DateNotText(Value),
    #[error("withdrawn `{0}` is neither 0 nor 1")]
    NotZeroOrOne(String),
    #[error("`{0}` is not a sequence number")]
    NotASequence(String),
    #[error("assignee {sequence} of patent {patent_id} names neither an organization nor an individual")]
    NobodyNamed { sequence: u32, patent_id: String },
    /// The SDK would not make a record of the row; its reason.
    #[error("{0}")]
    Unstorable(String),
}

/// Reads a PatentSearch (or legacy) API response.
fn api_json(text: &str) -> Result<IngestBatch, Refusal> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        Refusal::at(format!("line {}, column {}", e.line(), e.column()), format!("not valid JSON: {e}"))
    })?;
    let Some(object) = doc.as_object() else {
        return Err(Refusal::at("/", "the JSON document is not an object"));
    };
    if object.get("error").and_then(Value::as_bool) == Some(true) {
        let reason = object.get("reason").and_then(Value::as_str).unwrap_or("no reason given");
        return Err(Refusal::at("/error", format!("the file is an API error response: {reason}")));
    }
    let Some(patents) = object.get("patents").and_then(Value::as_array) else {
        let keys: Vec<&str> = object.keys().map(String::as_str).take(8).collect();
        return Err(Refusal::at(
            "/patents",
            format!("no `patents` array: not a PatentsView patent response (keys: {})", keys.join(", ")),
        ));
    };
    let mut batch = IngestBatch { format: API_JSON.to_string(), ..Default::default() };
    let mut undated = Vec::new();
    for (i, value) in patents.iter().enumerate() {
        let at = format!("/patents[{i}]");
        let Some(patent) = value.as_object() else {
            batch.problems.push(RowProblem::new(at, "the patent is not an object"));
            continue;
        };
        let Some(patent_id) = text_field(patent, "patent_id").or_else(|| text_field(patent, "patent_number")) else {
            batch.problems.push(RowProblem::new(at, "the patent has no patent_id"));
            continue;
        };
        match api_patent(patent, &patent_id, &at) {
            Ok(Some(record)) => batch.records.push(record),
            Ok(None) => undated.push(patent_id.clone()),
            Err(problem) => batch.problems.push(problem),
        }
        api_assignees(patent, &patent_id, &at, &mut batch);
    }
    page_notes(object, patents, &undated, &mut batch.notes);
    Ok(batch)
}

/// The patent record of one API patent; `None` when the response carries no `patent_date` (the field was not
/// requested): its assignee rows are still stored and wait for the patent's grant record.
fn api_patent(patent: &Map<String, Value>, patent_id: &str, at: &str) -> Result<Option<IngestRecord>, RowProblem> {
    let date = match patent.get("patent_date") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => valid_date(s.trim()),
        Some(other) => Err(RowError::DateNotText(other.clone())),
    }
    .map_err(|e| RowProblem::new(format!("{at}/patent_date"), format!("patent {patent_id}: {e}")))?;
    let withdrawn = match patent.get("withdrawn") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::Number(n)) if n.as_u64() == Some(0) => Some(false),
        Some(Value::Number(n)) if n.as_u64() == Some(1) => Some(true),
        Some(other) => {
            return Err(RowProblem::new(format!("{at}/withdrawn"), format!("withdrawn {other} is not a boolean")))
        }
    };
    patent_record(PatentRecord {
        patent_id: patent_id.to_string(),
        patent_type: text_field(patent, "patent_type"),
        patent_date: date,
        patent_title: text_field(patent, "patent_title"),
        withdrawn,
        source_url: patent_url(patent_id),
        format: API_JSON.to_string(),
    })
    .map(Some)
    .map_err(|e| RowProblem::new(at, e.to_string()))
}

/// The assignee rows of one API patent (`assignees` absent or null: the patent has none in this response).
fn api_assignees(patent: &Map<String, Value>, patent_id: &str, at: &str, batch: &mut IngestBatch) {
    let list = match patent.get("assignees") {
        None | Some(Value::Null) => return,
        Some(Value::Array(list)) => list,
        Some(_) => {
            batch.problems.push(RowProblem::new(format!("{at}/assignees"), "assignees is not an array"));
            return;
        }
    };
    let mut seen = Vec::new();
    for (j, value) in list.iter().enumerate() {
        let at = format!("{at}/assignees[{j}]");
        let Some(assignee) = value.as_object() else {
            batch.problems.push(RowProblem::new(at, "the assignee is not an object"));
            continue;
        };
        let sequence = match assignee.get("assignee_sequence").and_then(Value::as_u64).map(u32::try_from) {
            Some(Ok(sequence)) => sequence,
            _ => {
                batch.problems.push(RowProblem::new(
                    format!("{at}/assignee_sequence"),
                    format!("assignee of patent {patent_id} has no assignee_sequence number"),
                ));
                continue;
            }
        };
        if seen.contains(&sequence) {
            batch.problems.push(RowProblem::new(
                format!("{at}/assignee_sequence"),
                format!("patent {patent_id} lists assignee_sequence {sequence} twice"),
            ));
            continue;
        }
        seen.push(sequence);
        let record = assignee_record(AssigneeRecord {
            patent_id: patent_id.to_string(),
            sequence,
            assignee_id: text_field(assignee, "assignee_id"),
            organization: text_field(assignee, "assignee_organization"),
            individual_name_first: text_field(assignee, "assignee_individual_name_first")
                .or_else(|| text_field(assignee, "assignee_first_name")),
            individual_name_last: text_field(assignee, "assignee_individual_name_last")
                .or_else(|| text_field(assignee, "assignee_last_name")),
            assignee_type: match assignee.get("assignee_type") {
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => text_field(assignee, "assignee_type"),
            },
            format: API_JSON.to_string(),
        });
        match record {
            Ok(record) => batch.records.push(record),
            Err(error) => batch.problems.push(RowProblem::new(at, error.to_string())),
        }
    }
}

/// Facts about the response as a whole: a page of a larger result, patents without their grant date.
fn page_notes(object: &Map<String, Value>, patents: &[Value], undated: &[String], notes: &mut Vec<String>) {
    let total = object.get("total_hits").or_else(|| object.get("total_patent_count")).and_then(Value::as_u64);
    if let Some(total) = total.filter(|&t| t > patents.len() as u64) {
        notes.push(format!(
            "this response is one page: it holds {} of the {total} patents its query matched; the others are not \
             in this file",
            patents.len()
        ));
    }
    if !undated.is_empty() {
        let shown: Vec<&str> = undated.iter().take(5).map(String::as_str).collect();
        notes.push(format!(
            "{} patents carry no patent_date (the field was not requested), e.g. {}: no grant record is stored for \
             them; their assignee rows are, and are counted once g_patent rows or a response with patent_date \
             for the same patents are ingested",
            undated.len(),
            shown.join(", ")
        ));
    }
    if patents.is_empty() {
        notes.push("the response holds no patents".to_string());
    }
}

/// A non-empty string field (numbers are read as their decimal text, as PatentsView ids sometimes are).
fn text_field(object: &Map<String, Value>, key: &str) -> Option<String> {
    match object.get(key)? {
        Value::String(s) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
