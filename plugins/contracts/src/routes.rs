//! `GET /v1/contracts`: each covered company's obligations in the FY2024-to-present, A-D window.

use datahost_plugin_api::{ApiError, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, respond, CompaniesMeta};
use serde::Serialize;

use crate::data::{Award, Entry, Index, AWARD_TYPES, TOP_AWARDS, WINDOW_FISCAL_YEAR, WINDOW_START};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

/// The window as the code applies it, so the response documents the rule rather than the seed restating it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Window {
    fiscal_year_from: i32,
    start_date: &'static str,
    award_type_codes: [&'static str; 4],
    top_awards_cap: usize,
}

#[derive(Serialize)]
struct MetaOut<'a> {
    #[serde(flatten)]
    meta: &'a CompaniesMeta,
    window: Window,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompanyOut<'a> {
    name: &'a str,
    ticker: &'a str,
    total_obligated_usd: f64,
    award_count: usize,
    top_awards: &'a [Award],
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let meta = MetaOut {
        meta: &index.meta,
        window: Window {
            fiscal_year_from: WINDOW_FISCAL_YEAR,
            start_date: WINDOW_START,
            award_type_codes: AWARD_TYPES,
            top_awards_cap: TOP_AWARDS,
        },
    };
    respond(&index.companies, &meta, request, |e: &Entry| CompanyOut {
        name: &e.name,
        ticker: &e.ticker,
        total_obligated_usd: e.total_obligated_usd,
        award_count: e.award_count,
        top_awards: &e.top_awards,
    })
}
