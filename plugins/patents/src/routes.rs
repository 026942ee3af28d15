//! `GET /v1/patents`: each covered company's grant counts over the last and prior twelve months.

use datahost_plugin_api::companies::{self, respond, CompaniesMeta};
use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::data::{Entry, Index, Windows};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

#[derive(Serialize)]
struct MetaOut<'a> {
    #[serde(flatten)]
    meta: &'a CompaniesMeta,
    windows: &'a Windows,
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
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let meta = MetaOut { meta: &index.dataset.meta, windows: &index.windows };
    respond(&index.dataset.companies, &meta, request, |e: &Entry| CompanyOut {
        name: &e.company.name,
        ticker: &e.company.ticker,
        assignee_matched: &e.company.assignee_matched,
        note: &e.company.note,
        granted_last: e.granted_last_12mo,
        granted_prior: e.granted_prior_12mo,
    })
}
