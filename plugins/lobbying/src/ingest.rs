//! The plugin's parser: Senate Lobbying Disclosure Act filings from the LDA REST API into records.
//!
//! Formats, detected from the content (never the file name):
//! - `lda-filings`: a page of `GET https://lda.senate.gov/api/v1/filings/` (`{count, next, previous, results:
//!   [filing]}`);
//! - `lda-filing`: one filing, `GET .../api/v1/filings/<filing_uuid>/`.
//!
//! Records: collection `filings`, key = `filing_uuid`, group = `filing_uuid` (each filing is its own document). A quarterly report (LD-2: filing
//! types `Q1`-`Q4`, `1T`-`4T`, their amendments `1A`-`4A`, `1AT`...`4AY`) declares the lineage
//! `<registrant id>/<client id>/<year>/Q<n>` and the revision `dt_posted`; an amendment (a type with `A` after
//! the quarter digit) replaces what it amends, whatever order the files arrive in. Registrations (`RR`, `RA`)
//! carry no amount and are kept unlinked. The amount of a report is the registrant's `income` from the client
//! (an outside firm) or its `expenses` (a company lobbying for itself); LDA reports null when under $5,000.

use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const PAGE: &str = "lda-filings";
pub const SINGLE: &str = "lda-filing";
pub const FORMATS: &[&str] = &[PAGE, SINGLE];
pub const FILINGS: &str = "filings";

/// One LDA filing as the Senate's API reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LdaFilingRecord {
    pub filing_uuid: String,
    /// `Q1`, `4A`, `RR`...
    pub filing_type: String,
    pub filing_type_display: String,
    pub year: i32,
    /// 1-4 for a quarterly report; null for a registration.
    pub quarter: Option<u8>,
    /// Income or expenses in USD; null when the filing reports neither (a registration, or under $5,000).
    pub amount: Option<f64>,
    /// `income` or `expenses`: which one `amount` is.
    pub amount_kind: Option<String>,
    pub amendment: bool,
    pub registrant_id: u64,
    pub registrant: String,
    pub client_id: u64,
    pub client: String,
    pub client_description: String,
    /// `dt_posted`, RFC 3339.
    pub posted_at: String,
    /// The filing's printable page on lda.senate.gov.
    pub source_url: String,
}

pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        Refusal::at(format!("line {}", e.line()), format!("not an LDA API response: the JSON does not parse: {e}"))
    })?;
    let (format, filings): (&str, Vec<(String, &Value)>) = match (doc.get("results"), doc.get("filing_uuid")) {
        (Some(Value::Array(results)), _) => {
            (PAGE, results.iter().enumerate().map(|(i, f)| (format!("/results[{i}]"), f)).collect())
        }
        (_, Some(_)) => (SINGLE, vec![(String::new(), &doc)]),
        _ => {
            return Err(Refusal::at(
                "$",
                "not an LDA filings response: expected a page of /api/v1/filings/ (`results`) or one filing \
                 (`filing_uuid`)",
            ))
        }
    };
    let mut batch = IngestBatch { format: format.into(), ..Default::default() };
    for (at, filing) in filings {
        match record(filing, &at) {
            Ok(r) => batch.records.push(r),
            Err(p) => batch.problems.push(p),
        }
    }
    Ok(batch)
}

fn record(f: &Value, at: &str) -> Result<IngestRecord, RowProblem> {
    let text =
        |pointer: &str| f.pointer(pointer).and_then(Value::as_str).map(str::trim).unwrap_or_default().to_string();
    let number = |pointer: &str| f.pointer(pointer).and_then(Value::as_u64);
    let missing = |field: &str| RowProblem::new(format!("{at}/{field}"), "is missing");
    let filing_uuid = Some(text("/filing_uuid")).filter(|u| !u.is_empty()).ok_or_else(|| missing("filing_uuid"))?;
    let filing_type = text("/filing_type");
    let year = f
        .get("filing_year")
        .and_then(Value::as_i64)
        .and_then(|y| i32::try_from(y).ok())
        .ok_or_else(|| missing("filing_year"))?;
    let quarter = quarter_of(&filing_type, &text("/filing_period"));
    let money = |field: &str| -> Result<Option<f64>, RowProblem> {
        match f.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => s
                .parse::<f64>()
                .map(Some)
                .map_err(|_| RowProblem::new(format!("{at}/{field}"), format!("`{s}` is not an amount"))),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(other) => Err(RowProblem::new(format!("{at}/{field}"), format!("`{other}` is not an amount"))),
        }
    };
    let (income, expenses) = (money("income")?, money("expenses")?);
    let (amount, amount_kind) = match (income, expenses) {
        (Some(i), _) => (Some(i), Some("income")),
        (None, Some(e)) => (Some(e), Some("expenses")),
        (None, None) => (None, None),
    };
    let registrant_id = number("/registrant/id").ok_or_else(|| missing("registrant/id"))?;
    let client_id = number("/client/id").ok_or_else(|| missing("client/id"))?;
    // An amendment of a quarterly report: the quarter digit followed by `A` (`1A`, `4AY`, `2AT`).
    let amendment = quarter.is_some() && filing_type.get(1..2) == Some("A");
    let source_url = Some(text("/filing_document_url"))
        .filter(|u| u.starts_with("https://lda.senate.gov/"))
        .unwrap_or_else(|| format!("https://lda.senate.gov/filings/public/filing/{filing_uuid}/print/"));
    let data = LdaFilingRecord {
        filing_type_display: text("/filing_type_display"),
        year,
        quarter,
        amount,
        amount_kind: amount_kind.map(str::to_string),
        amendment,
        registrant_id,
        registrant: text("/registrant/name"),
        client_id,
        client: text("/client/name"),
        client_description: text("/client/general_description"),
        posted_at: text("/dt_posted"),
        source_url,
        filing_uuid: filing_uuid.clone(),
        filing_type,
    };
    let record = IngestRecord::new(FILINGS, &filing_uuid, &filing_uuid, &data)
        .map_err(|r| RowProblem::new(format!("{at}/filing_uuid"), r.reason))?;
    Ok(match quarter {
        Some(q) => {
            let lineage = format!("{registrant_id}/{client_id}/{year}/Q{q}");
            record.amending(lineage, &data.posted_at, amendment)
        }
        None => record,
    })
}

/// The quarter of an LD-2 report, from its type (`Q3`, `3A`, `4T`) or its period (`third_quarter`); `None` for
/// a registration.
fn quarter_of(filing_type: &str, period: &str) -> Option<u8> {
    let digit = match filing_type.as_bytes() {
        [b'Q', d, ..] | [d, ..] if d.is_ascii_digit() => Some(d - b'0'),
        _ => None,
    }?;
    let from_period = ["first_quarter", "second_quarter", "third_quarter", "fourth_quarter"]
        .iter()
        .position(|p| *p == period)
        .map(|i| i as u8 + 1);
    (1..=4).contains(&digit).then_some(from_period.unwrap_or(digit))
}
