//! `GET /v1/congress-trades`: the shared disclosure parameters and selection rules (ticker filter that trims
//! each filing's trades, member substring, limit on filings), applied by the SDK's disclosure index. The House
//! response adds `filingsWithTrades` to the snapshot's meta.

use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::rows::{JsonRow, JsonText, Slot};
use datahost_plugin_api::{ApiError, ApiSchema, Params, RequestEnvelope, Response, RouteSpec, TickerFilter};
use datahost_plugin_kit::disclosure::{self, DisclosureIndex, DisclosureQuery, WithAmountBounds};
use serde::Serialize;

use crate::data::{Filing, FilingHead, Meta, Trade};
use crate::CongressTrades;

pub const DEFAULT_LIMIT: usize = 100;

/// Query parameters of `GET /v1/congress-trades`.
#[derive(Params)]
struct Selection {
    /// Stock ticker, case-insensitive (for example `AAPL` or `aapl`).
    ticker: TickerFilter,
    /// Case-insensitive substring of the member's name.
    #[param(example = "hollister", max_chars = disclosure::MEMBER_MAX_CHARS)]
    member: Option<String>,
    #[param(page(default = DEFAULT_LIMIT, max = DEFAULT_MAX_LIMIT, of = "filings"))]
    page: PageRequest,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Selection::specs())
}

/// Where the filings come from, how they were read, and how many there are.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "CongressTradesMeta")]
pub(crate) struct ResponseMeta<'a> {
    #[serde(flatten)]
    meta: &'a Meta,
    /// Filings in the snapshot holding at least one trade.
    filings_with_trades: usize,
}

/// One transaction line of a House report, with the numeric bounds of its amount bucket.
#[derive(Serialize, ApiSchema)]
#[schema(name = "CongressTrade")]
pub(crate) struct TradeOut<'a> {
    #[serde(flatten)]
    trade: WithAmountBounds<'a, Trade>,
}

impl<'a> TradeOut<'a> {
    fn of(trade: &'a Trade) -> Self {
        TradeOut { trade: WithAmountBounds::new(trade, &trade.base.amount_range) }
    }
}

/// A selected filing: its header as stored, and only the trades the request keeps, with their amount bounds.
#[derive(Serialize, ApiSchema)]
#[schema(name = "CongressFiling")]
pub(crate) struct FilingOut<'a> {
    #[serde(flatten)]
    head: &'a FilingHead,
    trades: Slot<Vec<TradeOut<'static>>>,
}

/// The meta, the filings and the in-memory trades as every answer writes them (`disclosure::Written`).
pub(crate) type Written = disclosure::Written<ResponseMeta<'static>, FilingOut<'static>, TradeOut<'static>>;

/// Writes what [`Written`] keeps, at `init`.
pub(crate) fn written(
    meta: &Meta,
    filings_with_trades: usize,
    index: &DisclosureIndex<Filing>,
) -> Result<Written, serde_json::Error> {
    Written::new(&ResponseMeta { meta, filings_with_trades }, index, FilingOut::of, TradeOut::of)
}

impl<'a> FilingOut<'a> {
    /// The filing as served, its trades left open.
    fn of(f: &'a Filing) -> Self {
        FilingOut { head: &f.head, trades: Slot::new() }
    }
}

/// House filings, newest first.
#[derive(Serialize, ApiSchema)]
#[schema(name = "CongressTradesResponse")]
pub(crate) struct Body<'a> {
    meta: JsonRow<'a, ResponseMeta<'static>>,
    /// Number of filings returned.
    count: usize,
    filings: JsonText<Vec<FilingOut<'static>>>,
    #[schema(with = paging::next_schema)]
    next: Option<&'a str>,
}

pub fn handle(plugin: &CongressTrades, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Selection { ticker, member, page } = Selection::parse(request.params())?;
    let query = DisclosureQuery::new(ticker, member, page)?;
    let served = plugin
        .index
        .select_served(&query, plugin.pdf_trades.as_ref())
        .map_err(|e| ApiError::unavailable(format!("the PTR trades could not be read: {e}")))?;
    let written = &plugin.written;
    let filings = written.filings(&served.items, TradeOut::of)?;
    let next = served.next.as_deref();
    let body = Body { meta: written.meta(), count: served.items.len(), filings, next };
    paging::respond(&body, next)
}
