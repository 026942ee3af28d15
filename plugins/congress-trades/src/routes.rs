//! `GET /v1/congress-trades`: filters by ticker (trades of other tickers are left out of each filing),
//! member name substring, and caps the number of filings.

use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::text::amount_range_bounds;
use datahost_plugin_api::{ApiError, ParamSpec, RequestEnvelope, Response, RouteSpec, Tier};
use serde::Serialize;

use crate::data::{Filing, Index, Meta, Trade};

pub const DEFAULT_LIMIT: usize = 100;

pub fn route_spec() -> RouteSpec {
    RouteSpec {
        path: crate::ROUTE.into(),
        min_tier: Tier::Free,
        params: vec![
            ParamSpec::ticker(),
            ParamSpec::string("member", "Case-insensitive substring of the member's name.").example("hollister"),
            ParamSpec::limit(DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, "filings"),
        ],
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResponseMeta<'a> {
    #[serde(flatten)]
    meta: &'a Meta,
    filings_with_trades: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TradeOut<'a> {
    #[serde(flatten)]
    trade: &'a Trade,
    amount_min: Option<f64>,
    amount_max: Option<f64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FilingOut<'a> {
    member: &'a str,
    doc_id: &'a str,
    year: i32,
    filed_date: &'a str,
    trades: Vec<TradeOut<'a>>,
}

#[derive(Serialize)]
struct Body<'a> {
    meta: ResponseMeta<'a>,
    count: usize,
    filings: Vec<FilingOut<'a>>,
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let q = request.params();
    let ticker = q.ticker()?;
    let member = q.str_max("member", 100)?.map(str::to_lowercase);
    let limit = q.limit(DEFAULT_LIMIT, DEFAULT_MAX_LIMIT)?;

    let filings: Vec<FilingOut> = index
        .filings
        .iter()
        .filter(|f| member.as_deref().is_none_or(|m| f.member_lower.contains(m)))
        .filter(|f| !ticker.is_set() || f.tickers.iter().any(|t| Some(t.as_str()) == ticker.value()))
        .take(limit)
        .map(|f| filing_out(&f.filing, &f.tickers, ticker.value()))
        .collect();

    Response::json(&Body {
        meta: ResponseMeta { meta: &index.meta, filings_with_trades: index.filings_with_trades },
        count: filings.len(),
        filings,
    })
}

fn filing_out<'a>(filing: &'a Filing, tickers: &[String], only: Option<&str>) -> FilingOut<'a> {
    let trades = filing
        .trades
        .iter()
        .zip(tickers)
        .filter(|(_, t)| only.is_none_or(|want| t.as_str() == want))
        .map(|(trade, _)| {
            let (amount_min, amount_max) = amount_range_bounds(&trade.amount_range);
            TradeOut { trade, amount_min, amount_max }
        })
        .collect();
    FilingOut {
        member: &filing.member,
        doc_id: &filing.doc_id,
        year: filing.year,
        filed_date: &filing.filed_date,
        trades,
    }
}
