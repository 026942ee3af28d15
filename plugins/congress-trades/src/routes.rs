//! `GET /v1/congress-trades`: the shared disclosure parameters and selection rules (ticker filter that trims
//! each filing's trades, member substring, limit on filings), applied by the SDK's disclosure index. The House
//! response adds `filingsWithTrades` to the snapshot's meta.

use datahost_plugin_api::disclosure::{self, DisclosureQuery, WithAmountBounds};
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::data::{FilingHead, Meta, Trade};
use crate::CongressTrades;

pub const DEFAULT_LIMIT: usize = 100;

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, disclosure::params(DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, "hollister"))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResponseMeta<'a> {
    #[serde(flatten)]
    meta: &'a Meta,
    filings_with_trades: usize,
}

/// A selected filing: its header as stored, and only the trades the request keeps, with their amount bounds.
#[derive(Serialize)]
struct FilingOut<'a> {
    #[serde(flatten)]
    head: &'a FilingHead,
    trades: Vec<WithAmountBounds<'a, Trade>>,
}

#[derive(Serialize)]
struct Body<'a> {
    meta: ResponseMeta<'a>,
    count: usize,
    filings: Vec<FilingOut<'a>>,
}

pub fn handle(plugin: &CongressTrades, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let query = DisclosureQuery::parse(&request.params(), DEFAULT_LIMIT, DEFAULT_MAX_LIMIT)?;
    let filings: Vec<FilingOut> = plugin
        .index
        .select(&query)
        .into_iter()
        .map(|s| FilingOut {
            head: &s.filing.head,
            trades: s.trades.into_iter().map(|t| WithAmountBounds::new(t, &t.base.amount_range)).collect(),
        })
        .collect();
    Response::json(&Body {
        meta: ResponseMeta { meta: &plugin.meta, filings_with_trades: plugin.filings_with_trades },
        count: filings.len(),
        filings,
    })
}
