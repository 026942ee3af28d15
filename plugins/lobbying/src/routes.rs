//! `GET /v1/lobbying`: each covered company's lobbying spend in filing years 2025 and 2026, by quarter.

use datahost_plugin_api::{ApiError, ApiSchema, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, respond, CompaniesMeta};
use serde::Serialize;

use crate::data::{Entry, Index, Quarter, FILING_YEARS};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MetaOut<'a> {
    #[serde(flatten)]
    meta: &'a CompaniesMeta,
    filing_years: [i32; 2],
}

/// One covered company's lobbying spend.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "LobbyingCompany")]
pub struct CompanyOut<'a> {
    /// Company name.
    name: &'a str,
    /// Stock ticker.
    ticker: &'a str,
    /// Client name the filings were matched on.
    client_name: &'a str,
    /// The latest filing year among the counted filings.
    year: i32,
    /// Sum of every quarterly filing found for the client in filing years 2025 and 2026, USD.
    total_spend_usd: f64,
    /// Number of quarterly filings counted (filing years 2025 and 2026).
    filing_count: usize,
    /// Counted quarters, sorted by period (oldest first).
    quarters: &'a [Quarter],
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let meta = MetaOut { meta: &index.meta, filing_years: FILING_YEARS };
    respond(&index.companies, &meta, request, |e: &Entry| CompanyOut {
        name: &e.name,
        ticker: &e.ticker,
        client_name: &e.client_name,
        year: e.year,
        total_spend_usd: e.total_spend_usd,
        filing_count: e.filing_count,
        quarters: &e.quarters,
    })
}
