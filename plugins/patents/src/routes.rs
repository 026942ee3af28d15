//! `GET /v1/patents`: each covered company's grant counts over the last and prior twelve months.

use datahost_plugin_api::{ApiError, ApiSchema, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, respond};
use serde::Serialize;

use crate::data::{Entry, GrantRef, Index};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

/// One covered company's patent grant counts.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PatentsCompany")]
pub struct CompanyOut<'a> {
    /// Company name.
    name: &'a str,
    /// Stock ticker.
    ticker: &'a str,
    /// The first-applicant (first assignee) name counted, as one entity.
    assignee_matched: &'a str,
    /// What the count covers, e.g. subsidiaries whose grants are not counted.
    note: &'a str,
    /// Grants in the 12 months ending at the end of meta.windows.last12mo.
    #[serde(rename = "grantedLast12mo")]
    granted_last: usize,
    /// Grants in the 12 months before those (meta.windows.prior12mo).
    #[serde(rename = "grantedPrior12mo")]
    granted_prior: usize,
    /// Additive fields, served for ingested data only (the demo seed's grants are invented).
    #[serde(flatten)]
    ingested: Option<IngestedOut<'a>>,
}

/// What ingested data adds to a company.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PatentsIngested")]
struct IngestedOut<'a> {
    /// Ingested data: SEC CIK of the matched company; null when none matched.
    cik: Option<&'a str>,
    /// Ingested data: every first-assignee name counted.
    assignee_names: &'a [String],
    /// Ingested data: every counted grant held, whatever its date.
    grants_held: usize,
    /// Ingested data: the newest counted grants (at most 10).
    recent_grants: &'a [GrantRef],
    /// Ingested data: patents first-assigned to these names whose g_patent row is not ingested yet.
    awaiting_grant_record: usize,
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    respond(&index.companies, &index.meta, request, |e: &Entry| CompanyOut {
        name: &e.name,
        ticker: &e.ticker,
        assignee_matched: &e.assignee_matched,
        note: &e.note,
        granted_last: e.granted_last_12mo,
        granted_prior: e.granted_prior_12mo,
        ingested: e.ingested.as_ref().map(|d| IngestedOut {
            cik: d.cik.as_deref(),
            assignee_names: &d.assignee_names,
            grants_held: d.grants_held,
            recent_grants: &d.recent_grants,
            awaiting_grant_record: d.awaiting_grant_record,
        }),
    })
}
