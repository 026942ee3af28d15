//! `GET /v1/donors`: each covered company's PAC with totals computed from its contributions.

use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, respond};
use serde::Serialize;

use crate::data::{Entry, Index, Provenance};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompanyOut<'a> {
    name: &'a str,
    ticker: &'a str,
    pac_name: &'a str,
    committee_id: &'a str,
    cycle: &'a str,
    note: &'a str,
    total_contributions_usd: f64,
    dem_pct: f64,
    rep_pct: f64,
    contribution_count: usize,
    /// Ingested data only: sourceUrl, connectedOrganization, cik, matchedBy, unattributedUsd, reports.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    provenance: Option<&'a Provenance>,
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    respond(&index.companies, &index.meta, request, |e: &Entry| CompanyOut {
        name: &e.company.name,
        ticker: &e.company.ticker,
        pac_name: &e.company.pac_name,
        committee_id: &e.company.committee_id,
        cycle: &e.company.cycle,
        note: &e.company.note,
        total_contributions_usd: e.totals.total_usd,
        dem_pct: e.totals.dem_pct,
        rep_pct: e.totals.rep_pct,
        contribution_count: e.totals.count,
        provenance: e.company.provenance.as_ref(),
    })
}
