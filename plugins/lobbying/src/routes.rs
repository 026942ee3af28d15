//! `GET /v1/lobbying`: each covered company's lobbying spend in filing years 2025 and 2026, by quarter.

use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompanyOut<'a> {
    name: &'a str,
    ticker: &'a str,
    client_name: &'a str,
    year: i32,
    total_spend_usd: f64,
    filing_count: usize,
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
