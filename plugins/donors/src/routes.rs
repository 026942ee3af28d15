//! `GET /v1/donors`: each covered company's PAC with totals computed from its contributions.

use datahost_plugin_api::{ApiError, ApiSchema, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, respond};
use serde::Serialize;

use crate::data::{Entry, Index, Provenance};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

/// One covered company's PAC and its contributions to federal candidates in the cycle.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "DonorsCompany")]
pub struct CompanyOut<'a> {
    /// Company name (the SEC's name when matched, else the name the FEC filing gives).
    name: &'a str,
    /// Stock ticker; empty when no listed company matched the PAC (ingested data).
    ticker: &'a str,
    /// Name of the company's connected political action committee.
    pac_name: &'a str,
    /// FEC committee id of the PAC (`C` + 8 digits); `DEMO-C` + 4 digits in demo rows.
    #[schema(pattern = "^(C[0-9]{8}|DEMO-C[0-9]{4})$")]
    committee_id: &'a str,
    /// Two-year election cycle, named by its final year (e.g. `2026`).
    cycle: &'a str,
    /// What the figures cover for this company.
    note: &'a str,
    /// Sum of the PAC's contributions to federal candidates in the cycle, USD.
    total_contributions_usd: f64,
    /// Percent of totalContributionsUsd that went to Democratic candidates, one decimal. demPct and repPct need
    /// not sum to 100: contributions to independent and other-party candidates count in the total but in neither
    /// share (and rounding each share may make a two-party split show as 100.1).
    dem_pct: f64,
    /// Percent of totalContributionsUsd that went to Republican candidates, one decimal. demPct and repPct need
    /// not sum to 100: contributions to independent and other-party candidates count in the total but in neither
    /// share (and rounding each share may make a two-party split show as 100.1).
    rep_pct: f64,
    /// Number of contributions behind the totals.
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
