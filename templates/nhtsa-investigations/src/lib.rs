//! nhtsa-investigations: NHTSA's defect investigations (ODI's `FLAT_INV` file), one row per investigated
//! vehicle, looked up by make, model, year or action number. The template of a simple dataset plugin: the
//! route is declared from types (`Params` for the query, `ApiSchema` for the answer), so what is parsed, served
//! and documented is written once. `ingest.rs` reads the official file; `tests.rs` checks both.

mod ingest;
#[cfg(test)]
mod tests;

use datahost_plugin_api::openapi::Endpoint;
use datahost_plugin_api::*;
use serde::{Deserialize, Serialize};

pub const SLUG: &str = "nhtsa-investigations";
pub const ROUTE: &str = "/v1/nhtsa-investigations";

/// Query parameters of `GET /v1/nhtsa-investigations`.
#[derive(Params)]
struct Lookup {
    /// Vehicle make as NHTSA spells it, case-insensitive.
    #[param(example = "BUICK", max_chars = 64)]
    make: Option<String>,
    /// Vehicle model, case-insensitive.
    #[param(example = "CENTURY", max_chars = 128)]
    model: Option<String>,
    /// Model year.
    #[param(example = 1982)]
    year: Option<u64>,
    /// NHTSA action number of one investigation, case-insensitive.
    #[param(example = "C85007", max_chars = 16)]
    action: Option<String>,
    #[param(limit(default = 100, max = 1000, of = "vehicle rows"))]
    limit: usize,
}

/// Investigated vehicles matching every filter given, newest investigation first.
#[derive(Serialize, ApiSchema)]
#[schema(name = "NhtsaInvestigationsResponse")]
struct Answer<'a> {
    /// How many rows match (before `limit`).
    count: usize,
    /// The matching rows, at most `limit`.
    investigations: Vec<&'a Investigation>,
}

/// One vehicle of one NHTSA defect investigation: a row of the FLAT_INV file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "NhtsaInvestigation")]
pub struct Investigation {
    /// NHTSA action number: the investigation (PE, EA, RQ, DP... then year and number).
    pub action_number: String,
    /// Make of the investigated vehicle.
    pub make: String,
    /// Model of the investigated vehicle.
    pub model: String,
    /// Model year; null where the file says 9999 (unknown).
    pub year: Option<u16>,
    /// Component investigated, in NHTSA's component names.
    pub component: String,
    /// Manufacturer of the vehicle.
    pub manufacturer: String,
    /// Day the investigation opened.
    #[schema(format = "date")]
    pub opened_on: Option<String>,
    /// Day it closed; null while it is open.
    #[schema(format = "date")]
    pub closed_on: Option<String>,
    /// Recall campaign the investigation led to, if any.
    pub recall_campaign: Option<String>,
    /// Subject line of the investigation.
    pub subject: String,
    /// NHTSA's summary, verbatim.
    pub summary: String,
    /// The official file and line this row was read from.
    pub source: String,
}

#[derive(Deserialize)]
struct Stored {
    investigations: Vec<Investigation>,
}

pub struct NhtsaInvestigations {
    rows: Vec<Investigation>,
}

impl Plugin for NhtsaInvestigations {
    fn manifest() -> Manifest {
        let lookup = Endpoint::get::<Lookup, Answer>(
            ROUTE,
            "NHTSA defect investigations by vehicle",
            "Investigated vehicles from NHTSA's Office of Defects Investigation flat file (FLAT_INV), filtered by \
             make, model, model year or action number.",
        )
        .example(serde_json::json!({"count": 1, "investigations": [{
            "actionNumber": "C87003", "make": "FORD", "model": "E350", "year": 1984,
            "component": "VEHICLE SPEED CONTROL:LINKAGES", "manufacturer": "Ford Motor Company",
            "openedOn": "1987-04-29", "closedOn": "1987-09-01", "recallCampaign": null,
            "subject": "FILLER NECK SPURT", "summary": "There is no summary currently available",
            "source": "FLAT_INV.txt line 7"}]}));
        let description = "NHTSA defect investigations (ODI FLAT_INV), per investigated vehicle.";
        Manifest::serving(SLUG, env!("CARGO_PKG_VERSION"), Maturity::Beta, description, vec![lookup])
    }

    fn seeds() -> Vec<Seed> {
        // No demo rows: the dataset is empty until `datahost ingest nhtsa-investigations FLAT_INV.txt`.
        vec![Seed::new(SLUG, include_str!("../seed/nhtsa-investigations.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let mut rows = ctx.host.load_dataset::<Stored>(SLUG)?.investigations;
        rows.sort_by(|a, b| b.opened_on.cmp(&a.opened_on).then_with(|| a.action_number.cmp(&b.action_number)));
        Ok(Self { rows })
    }

    fn ingest_formats() -> Vec<&'static str> {
        vec![ingest::FORMAT]
    }

    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        ingest::parse(file)
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        let q = Lookup::parse(request.params())?;
        let same = |want: &Option<String>, have: &str| want.as_ref().is_none_or(|w| w.eq_ignore_ascii_case(have));
        let matching: Vec<&Investigation> = self
            .rows
            .iter()
            .filter(|r| same(&q.make, &r.make) && same(&q.model, &r.model) && same(&q.action, &r.action_number))
            .filter(|r| q.year.is_none_or(|y| r.year.map(u64::from) == Some(y)))
            .collect();
        let investigations = matching.iter().take(q.limit).copied().collect();
        Response::json(&Answer { count: matching.len(), investigations })
    }
}

export_plugin!(NhtsaInvestigations);
