//! `GET /v1/contracts`: each covered company's obligations in the FY2024-to-present, A-D window.

use datahost_plugin_api::{ApiError, ApiSchema, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, respond, CompaniesMeta};
use serde::Serialize;

use crate::data::{Award, Entry, Index, AWARD_TYPES, TOP_AWARDS, WINDOW_FISCAL_YEAR, WINDOW_START};

pub fn route_spec() -> RouteSpec {
    companies::route_spec(crate::ROUTE)
}

// The window as the code applies it, so the response documents the rule rather than the seed restating it.
/// The window awards are counted in: from fiscal year 2024, award types A to D.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "ContractsWindow")]
pub struct Window {
    /// First fiscal year covered (2024).
    fiscal_year_from: i32,
    /// First action date counted: 2023-10-01, the start of fiscal year 2024.
    #[schema(format = "date")]
    start_date: &'static str,
    /// Award type codes counted: A, B, C and D.
    award_type_codes: [&'static str; 4],
    /// Most awards listed in topAwards per company.
    top_awards_cap: usize,
}

#[derive(Serialize)]
struct MetaOut<'a> {
    #[serde(flatten)]
    meta: &'a CompaniesMeta,
    window: Window,
}

/// One covered company's federal contract obligations in the window.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "ContractsCompany")]
pub struct CompanyOut<'a> {
    /// Company name.
    name: &'a str,
    /// Stock ticker.
    ticker: &'a str,
    /// Sum of the obligations of every in-window award (not only topAwards), USD.
    total_obligated_usd: f64,
    /// Number of in-window awards.
    award_count: usize,
    /// The largest in-window awards, sorted by amount descending; at most 5.
    #[schema(max_items = TOP_AWARDS)]
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
