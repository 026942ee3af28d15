//! `GET /v1/senate-trades`: the same parameters and selection rules as `/v1/congress-trades` (ticker filter
//! that trims each filing's trades, member substring, limit on filings), applied by the SDK's disclosure index.

use datahost_plugin_api::paging;
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::disclosure::{self, DisclosureQuery, WithAmountBounds};
use serde::Serialize;

use crate::data::{Meta, Trade};
use crate::SenateTrades;

pub const DEFAULT_LIMIT: usize = 100;

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, disclosure::params(DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, "ravenscroft"))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FilingOut<'a> {
    member: &'a str,
    chamber: &'a str,
    doc_id: &'a str,
    year: Option<i32>,
    filed_date: Option<&'a str>,
    trades: Vec<WithAmountBounds<'a, Trade>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    paper: Option<bool>,
}

#[derive(Serialize)]
struct Body<'a> {
    meta: &'a Meta,
    count: usize,
    filings: Vec<FilingOut<'a>>,
    next: Option<&'a str>,
}

pub fn handle(plugin: &SenateTrades, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let query = DisclosureQuery::parse(request, DEFAULT_LIMIT, DEFAULT_MAX_LIMIT)?;
    let served = plugin
        .index
        .select_served(&query, plugin.stored.as_ref())
        .map_err(|e| ApiError::unavailable(format!("the Senate transactions could not be read: {e}")))?;
    let filings: Vec<FilingOut> = served
        .items
        .iter()
        .map(|s| FilingOut {
            member: &s.filing.member,
            chamber: &s.filing.chamber,
            doc_id: &s.filing.doc_id,
            year: s.filing.year,
            filed_date: s.filing.filed_date.as_deref(),
            trades: s.trades.iter().map(|t| WithAmountBounds::new(t.as_ref(), &t.base.amount_range)).collect(),
            source_url: s.filing.source_url.as_deref(),
            paper: s.filing.paper,
        })
        .collect();
    let next = served.next.as_deref();
    paging::respond(&Body { meta: &plugin.meta, count: filings.len(), filings, next }, next)
}
