//! `GET /v1/patents`: each covered company's grant counts over the last and prior twelve months.

use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, respond};
use serde::Serialize;

use crate::data::{Entry, GrantRef, Index};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompanyOut<'a> {
    name: &'a str,
    ticker: &'a str,
    assignee_matched: &'a str,
    note: &'a str,
    #[serde(rename = "grantedLast12mo")]
    granted_last: usize,
    #[serde(rename = "grantedPrior12mo")]
    granted_prior: usize,
    /// Additive fields, served for ingested data only (the demo seed's grants are invented).
    #[serde(flatten)]
    ingested: Option<IngestedOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct IngestedOut<'a> {
    cik: Option<&'a str>,
    assignee_names: &'a [String],
    grants_held: usize,
    recent_grants: &'a [GrantRef],
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
