//! The plugin's parser: USAspending.gov contract awards into records.
//!
//! Formats, detected from the content (never the file name):
//! - `usaspending-spending-by-award`: a `POST /api/v2/search/spending_by_award/` response (`{results: [{"Award
//!   ID", "Recipient Name", "Recipient UEI", "Award Amount", "Contract Award Type", "Awarding Agency", "Start
//!   Date", "generated_internal_id", ...}], page_metadata, ...}`), one award per result;
//! - `usaspending-award`: a `GET /api/v2/awards/<generated id>/` award detail (`{generated_unique_award_id,
//!   piid, type, total_obligation, date_signed, recipient: {recipient_name, recipient_uei, parent_...},
//!   awarding_agency: {toptier_agency: {name}}, ...}`).
//!
//! Records: collection `awards`, key = USAspending's generated award id (`CONT_AWD_<PIID>_<agency>_...`, the
//! same for both formats, so the detail and the search row of one award are one record), group = the
//! recipient's UEI. Only contract awards are read; an assistance award or an IDV is kept with its type (it is
//! not counted by the SPEC window, which takes award types A-D).

use datahost_plugin_api::ingest::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use datahost_plugin_api::params::parse_date;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const SEARCH: &str = "usaspending-spending-by-award";
pub const DETAIL: &str = "usaspending-award";
pub const FORMATS: &[&str] = &[SEARCH, DETAIL];
pub const AWARDS: &str = "awards";

/// One contract award as USAspending reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AwardRecord {
    /// The PIID (`Award ID`).
    pub award_id: String,
    /// USAspending's award key, `CONT_AWD_...`.
    pub generated_id: String,
    /// `A` BPA call, `B` purchase order, `C` delivery order, `D` definitive contract; empty for any other type
    /// (IDVs), which the window does not count.
    pub award_type: String,
    /// The type as USAspending names it (`DEFINITIVE CONTRACT`).
    pub award_type_description: String,
    /// Obligated dollars: `Award Amount` of a search result, `total_obligation` of a detail.
    pub amount: f64,
    pub agency: String,
    pub sub_agency: String,
    pub description: String,
    /// The award's start: `Start Date` (period of performance) of a search result, `date_signed` of a detail.
    pub date: String,
    pub end_date: Option<String>,
    pub recipient_name: String,
    pub recipient_uei: String,
    /// The recipient's parent, when the detail names one.
    pub parent_name: Option<String>,
    pub parent_uei: Option<String>,
    /// The award's page on usaspending.gov.
    pub source_url: String,
}

/// USAspending's contract type names and their award type codes.
const TYPE_CODES: [(&str, &str); 4] =
    [("BPA CALL", "A"), ("PURCHASE ORDER", "B"), ("DELIVERY ORDER", "C"), ("DEFINITIVE CONTRACT", "D")];

pub fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let text = file.text()?;
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        Refusal::at(format!("line {}", e.line()), format!("not a USAspending response: the JSON does not parse: {e}"))
    })?;
    if let Some(results) = doc.get("results").and_then(Value::as_array) {
        return Ok(search_results(results));
    }
    if doc.get("generated_unique_award_id").is_some() && doc.get("category").is_some() {
        let mut batch = IngestBatch { format: DETAIL.into(), ..Default::default() };
        match award_detail(&doc) {
            Ok(record) => batch.records.push(record),
            Err(problem) => batch.problems.push(problem),
        }
        return Ok(batch);
    }
    Err(Refusal::at(
        "$",
        "not a USAspending contract file: expected a spending_by_award search response (`results`) or an award \
         detail (`generated_unique_award_id`)",
    ))
}

fn search_results(results: &[Value]) -> IngestBatch {
    let mut batch = IngestBatch { format: SEARCH.into(), ..Default::default() };
    for (i, r) in results.iter().enumerate() {
        let at = |field: &str| format!("/results[{i}]/{field}");
        let text = |field: &str| r.get(field).and_then(Value::as_str).map(str::trim).unwrap_or_default().to_string();
        let row = (|| {
            let generated_id = required(&text("generated_internal_id"), &at("generated_internal_id"))?;
            let type_description = text("Contract Award Type");
            let amount = r
                .get("Award Amount")
                .and_then(Value::as_f64)
                .ok_or_else(|| RowProblem::new(at("Award Amount"), "no obligated amount"))?;
            let record = AwardRecord {
                award_id: required(&text("Award ID"), &at("Award ID"))?,
                award_type: type_code(&type_description),
                award_type_description: type_description,
                amount,
                agency: text("Awarding Agency"),
                sub_agency: text("Awarding Sub Agency"),
                description: text("Description"),
                date: date(&text("Start Date"), &at("Start Date"))?,
                end_date: optional_date(&text("End Date"), &at("End Date"))?,
                recipient_name: required(&text("Recipient Name"), &at("Recipient Name"))?,
                recipient_uei: text("Recipient UEI"),
                parent_name: None,
                parent_uei: None,
                source_url: award_url(&generated_id),
                generated_id,
            };
            record_of(record, &at("generated_internal_id"))
        })();
        match row {
            Ok(record) => batch.records.push(record),
            Err(problem) => batch.problems.push(problem),
        }
    }
    batch
}

fn award_detail(doc: &Value) -> Result<IngestRecord, RowProblem> {
    let text =
        |pointer: &str| doc.pointer(pointer).and_then(Value::as_str).map(str::trim).unwrap_or_default().to_string();
    let category = text("/category");
    if category != "contract" {
        return Err(RowProblem::new("/category", format!("a `{category}` award, not a contract: not read")));
    }
    let generated_id = required(&text("/generated_unique_award_id"), "/generated_unique_award_id")?;
    let amount = doc
        .get("total_obligation")
        .and_then(Value::as_f64)
        .ok_or_else(|| RowProblem::new("/total_obligation", "no obligated amount"))?;
    let code = text("/type");
    let record = AwardRecord {
        award_id: required(&text("/piid"), "/piid")?,
        award_type: if TYPE_CODES.iter().any(|(_, c)| *c == code) { code } else { String::new() },
        award_type_description: text("/type_description"),
        amount,
        agency: text("/awarding_agency/toptier_agency/name"),
        sub_agency: text("/awarding_agency/subtier_agency/name"),
        description: text("/description"),
        date: date(&text("/date_signed"), "/date_signed")?,
        end_date: optional_date(&text("/period_of_performance/end_date"), "/period_of_performance/end_date")?,
        recipient_name: required(&text("/recipient/recipient_name"), "/recipient/recipient_name")?,
        recipient_uei: text("/recipient/recipient_uei"),
        parent_name: Some(text("/recipient/parent_recipient_name")).filter(|n| !n.is_empty()),
        parent_uei: Some(text("/recipient/parent_recipient_uei")).filter(|n| !n.is_empty()),
        source_url: award_url(&generated_id),
        generated_id,
    };
    record_of(record, "/generated_unique_award_id")
}

fn record_of(record: AwardRecord, at: &str) -> Result<IngestRecord, RowProblem> {
    let group =
        if record.recipient_uei.is_empty() { record.recipient_name.clone() } else { record.recipient_uei.clone() };
    IngestRecord::new(AWARDS, record.generated_id.clone(), group, &record).map_err(|r| RowProblem::new(at, r.reason))
}

fn type_code(description: &str) -> String {
    TYPE_CODES.iter().find(|(name, _)| description.eq_ignore_ascii_case(name)).map_or("", |(_, c)| c).to_string()
}

fn required(value: &str, at: &str) -> Result<String, RowProblem> {
    if value.is_empty() {
        Err(RowProblem::new(at, "is empty"))
    } else {
        Ok(value.to_string())
    }
}

/// A date the source may leave empty: empty is none, anything else must be a date (a row problem otherwise,
/// never a date silently dropped).
fn optional_date(value: &str, at: &str) -> Result<Option<String>, RowProblem> {
    if value.is_empty() {
        return Ok(None);
    }
    date(value, at).map(|_| Some(value.to_string()))
}

fn date(value: &str, at: &str) -> Result<String, RowProblem> {
    parse_date(value)
        .map(|d| d.to_string())
        .ok_or_else(|| RowProblem::new(at, format!("`{value}` is not a YYYY-MM-DD date")))
}

/// The award's page on usaspending.gov.
pub fn award_url(generated_id: &str) -> String {
    format!("https://www.usaspending.gov/award/{generated_id}/")
}
