//! The plugin's parser: SEC EDGAR submissions JSON (`https://data.sec.gov/submissions/CIK##########.json`) into
//! filing records, so every filing an entity has made is found by its metadata (form, entity, CIK, accession,
//! filing date) even where the document text is not held.
//!
//! Format `edgar-submissions`: `{cik, name, tickers, filings: {recent: {accessionNumber: [...], filingDate:
//! [...], form: [...], primaryDocument: [...], primaryDocDescription: [...], items: [...]}, files: [...]}}`, the
//! columns of one filing at the same position of each array. Records: collection `filings`, key = group =
//! accession number, in the index's own shape (`data::Filing`); `text` holds what the metadata says of the
//! document (its description and 8-K items), not the document itself. Older filings listed in `files` (further
//! pages) are named in a note, not guessed.

use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use datahost_plugin_api::params::parse_date;
use serde_json::Value;

use crate::data::Filing;

pub const SUBMISSIONS: &str = "edgar-submissions";
pub const FORMATS: &[&str] = &[SUBMISSIONS];
pub const FILINGS: &str = "filings";

pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        Refusal::at(
            format!("line {}", e.line()),
            format!("not an EDGAR submissions file: the JSON does not parse: {e}"),
        )
    })?;
    let recent = doc
        .pointer("/filings/recent")
        .and_then(Value::as_object)
        .ok_or_else(|| Refusal::at("/filings/recent", "not an EDGAR submissions file: there is no filings.recent"))?;
    let cik_digits = match doc.get("cik") {
        Some(Value::String(s)) => s.trim_start_matches('0').to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    let cik_number: u64 = cik_digits.parse().map_err(|_| Refusal::at("/cik", "the file names no CIK"))?;
    let cik = format!("{cik_number:010}");
    let entity = doc.get("name").and_then(Value::as_str).unwrap_or_default().trim().to_string();
    let column = |name: &str| -> Result<&Vec<Value>, Refusal> {
        recent
            .get(name)
            .and_then(Value::as_array)
            .ok_or_else(|| Refusal::at(format!("/filings/recent/{name}"), "the column is missing"))
    };
    let (accessions, dates, forms) = (column("accessionNumber")?, column("filingDate")?, column("form")?);
    let documents = column("primaryDocument")?;
    if dates.len() != accessions.len() || forms.len() != accessions.len() || documents.len() != accessions.len() {
        return Err(Refusal::at(
            "/filings/recent",
            "the columns have different lengths: the filings cannot be told apart (a cut or damaged file?)",
        ));
    }
    let optional = |name: &str, i: usize| -> String {
        recent.get(name).and_then(|c| c.get(i)).and_then(Value::as_str).unwrap_or_default().trim().to_string()
    };
    let mut batch = IngestBatch { format: SUBMISSIONS.into(), ..Default::default() };
    for i in 0..accessions.len() {
        let at = |name: &str| format!("/filings/recent/{name}[{i}]");
        let text_of = |v: &Value| v.as_str().unwrap_or_default().trim().to_string();
        let accession = text_of(&accessions[i]);
        let digits: String = accession.chars().filter(|c| *c != '-').collect();
        if digits.len() != 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            batch
                .problems
                .push(RowProblem::new(at("accessionNumber"), format!("`{accession}` is not an accession number")));
            continue;
        }
        let filed = text_of(&dates[i]);
        if parse_date(&filed).is_none() {
            batch.problems.push(RowProblem::new(at("filingDate"), format!("`{filed}` is not a YYYY-MM-DD date")));
            continue;
        }
        let document = text_of(&documents[i]);
        let url = if document.is_empty() {
            format!("https://www.sec.gov/Archives/edgar/data/{cik_number}/{digits}/{accession}-index.htm")
        } else {
            format!("https://www.sec.gov/Archives/edgar/data/{cik_number}/{digits}/{document}")
        };
        let description = [optional("primaryDocDescription", i), optional("items", i)]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let filing = Filing {
            form: text_of(&forms[i]),
            entity: entity.clone(),
            cik: cik.clone(),
            accession: accession.clone(),
            url,
            filed_date: filed,
            text: description,
        };
        match IngestRecord::new(FILINGS, &accession, &accession, &filing) {
            Ok(r) => batch.records.push(r),
            Err(r) => batch.problems.push(RowProblem::new(at("accessionNumber"), r.reason)),
        }
    }
    if let Some(files) = doc.pointer("/filings/files").and_then(Value::as_array).filter(|f| !f.is_empty()) {
        let names: Vec<&str> = files.iter().filter_map(|f| f.get("name").and_then(Value::as_str)).collect();
        batch.notes.push(format!(
            "older filings of CIK {cik} are listed in {} further file(s) ({}), not in this one",
            names.len(),
            names.join(", ")
        ));
    }
    Ok(batch)
}
