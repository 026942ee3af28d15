//! `GET /v1/senate-trades`: the same parameters and selection rules as `/v1/congress-trades` (ticker filter
//! that trims each filing's trades, member substring, limit on filings), applied by the SDK's disclosure index.

use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::rows::{JsonRow, JsonText, Slot};
use datahost_plugin_api::{ApiError, ApiSchema, Params, RequestEnvelope, Response, RouteSpec, TickerFilter};
use datahost_plugin_kit::disclosure::{self, DisclosureIndex, DisclosureQuery, WithAmountBounds};
use serde::Serialize;
use serde_json::Value;

use crate::data::{Filing, Meta, Trade};
use crate::SenateTrades;

pub const DEFAULT_LIMIT: usize = 100;

/// Query parameters of `GET /v1/senate-trades`.
#[derive(Params)]
struct Selection {
    /// Stock ticker, case-insensitive (for example `AAPL` or `aapl`).
    ticker: TickerFilter,
    /// Case-insensitive substring of the member's name.
    #[param(example = "ravenscroft", max_chars = disclosure::MEMBER_MAX_CHARS)]
    member: Option<String>,
    #[param(page(default = DEFAULT_LIMIT, max = DEFAULT_MAX_LIMIT, of = "filings"))]
    page: PageRequest,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Selection::specs())
}

/// One transaction line of a Senate report, with the numeric bounds of its amount bucket.
#[derive(Serialize, ApiSchema)]
#[schema(name = "SenateTrade")]
pub(crate) struct TradeOut<'a> {
    #[serde(flatten)]
    trade: WithAmountBounds<'a, Trade>,
}

impl<'a> TradeOut<'a> {
    fn of(trade: &'a Trade) -> Self {
        TradeOut { trade: WithAmountBounds::new(trade, &trade.base.amount_range) }
    }
}

/// One Periodic Transaction Report of a senator, holding the trades the request keeps.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "SenateFiling")]
pub(crate) struct FilingOut<'a> {
    /// Senator who filed the report.
    member: &'a str,
    /// Always `senate` for this dataset.
    #[schema(with = chamber_schema)]
    chamber: &'a str,
    /// Report identifier in the Senate eFD system (the id in its link).
    doc_id: &'a str,
    /// Calendar year of filedDate; null when filedDate is unknown.
    year: Option<i32>,
    /// Date the report was received (eFD). Null when the ingested source does not state it; such reports are
    /// ordered by their latest trade date.
    #[schema(format = "date")]
    filed_date: Option<&'a str>,
    trades: Slot<Vec<TradeOut<'static>>>,
    /// The report on efdsearch.senate.gov (ingested reports); in the demo seed an address under the reserved
    /// https://demo.invalid/ host.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(format = "uri")]
    source_url: Option<&'a str>,
    /// True for a scanned paper report: its trades are not machine-readable, so `trades` is empty without meaning
    /// that the report has none (ingested reports).
    #[serde(skip_serializing_if = "Option::is_none")]
    paper: Option<bool>,
}

fn chamber_schema() -> Value {
    schema::string_enum(&["senate"])
}

/// Where the filings come from and how they were read.
#[derive(Serialize, ApiSchema)]
#[schema(name = "SenateTradesMeta")]
pub(crate) struct MetaOut<'a> {
    #[serde(flatten)]
    meta: &'a Meta,
}

/// The meta, the filings and the in-memory trades as every answer writes them (`disclosure::Written`).
pub(crate) type Written = disclosure::Written<MetaOut<'static>, FilingOut<'static>, TradeOut<'static>>;

/// Writes what [`Written`] keeps, at `init`.
pub(crate) fn written(meta: &Meta, index: &DisclosureIndex<Filing>) -> Result<Written, serde_json::Error> {
    Written::new(&MetaOut { meta }, index, FilingOut::of, TradeOut::of)
}

impl<'a> FilingOut<'a> {
    /// The filing as served, its trades left open.
    fn of(f: &'a Filing) -> Self {
        FilingOut {
            member: &f.member,
            chamber: &f.chamber,
            doc_id: &f.doc_id,
            year: f.year,
            filed_date: f.filed_date.as_deref(),
            trades: Slot::new(),
            source_url: f.source_url.as_deref(),
            paper: f.paper,
        }
    }
}

/// Senate filings, newest first.
#[derive(Serialize, ApiSchema)]
#[schema(name = "SenateTradesResponse")]
pub(crate) struct Body<'a> {
    meta: JsonRow<'a, MetaOut<'static>>,
    /// Number of filings returned.
    count: usize,
    filings: JsonText<Vec<FilingOut<'static>>>,
    #[schema(with = paging::next_schema)]
    next: Option<&'a str>,
}

pub fn handle(plugin: &SenateTrades, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Selection { ticker, member, page } = Selection::parse(request.params())?;
    let query = DisclosureQuery::new(ticker, member, page)?;
    let served = plugin
        .index
        .select_served(&query, plugin.stored.as_ref())
        .map_err(|e| ApiError::unavailable(format!("the Senate transactions could not be read: {e}")))?;
    let written = &plugin.written;
    let filings = written.filings(&served.items, TradeOut::of)?;
    let next = served.next.as_deref();
    paging::respond(&Body { meta: written.meta(), count: served.items.len(), filings, next }, next)
}
