//! `GET /v1/prices`: without `ticker`, the covered universe; with it, that ticker's daily closes sorted by
//! date, bounded by the inclusive `from`/`to` dates. Both are whole without `limit` (SPEC); with it they are
//! paged by `cursor` (tickers in ticker order, closes in date order).

use chrono::NaiveDate;
use datahost_plugin_api::dates;
use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::{DateRange, DEFAULT_MAX_LIMIT};
use datahost_plugin_api::rows::JsonArray;
use datahost_plugin_api::{ApiError, ApiSchema, Params, RequestEnvelope, Response, RouteSpec, TickerFilter};
use serde::Serialize;
use serde_json::Value;

use crate::data::{Asset, Index, Point};

/// Query parameters of `GET /v1/prices`.
#[derive(Params)]
struct Selection {
    /// Ticker, case-insensitive (for example `SPY`, `xlk`, `BRK.B` or `btc-usd`). When omitted, the list of
    /// covered tickers is returned.
    #[param(example = "SPY")]
    ticker: TickerFilter,
    /// Inclusive lower bound on the close date, `YYYY-MM-DD`. Only used with `ticker`.
    #[param(example = "2026-01-02")]
    from: Option<NaiveDate>,
    /// Inclusive upper bound on the close date, `YYYY-MM-DD`. Only used with `ticker`.
    #[param(example = "2026-03-31")]
    to: Option<NaiveDate>,
    #[param(page_or_all(
        max = DEFAULT_MAX_LIMIT,
        of = "tickers (without `ticker`) or closes (with it)",
        whole = "the whole list or series is returned"
    ))]
    page: PageRequest,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Selection::specs())
}

/// Where an ingested series comes from; absent for the demo seed.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PricesProvenance")]
struct ProvenanceOut<'a> {
    /// The price source the series is read from.
    #[schema(with = source_schema)]
    source: &'static str,
    /// The source's own symbol, for example `SPY.US` at Stooq.
    symbol: &'a str,
    /// The source's history page for the symbol.
    #[schema(format = "uri")]
    source_url: &'a str,
    /// Which close is served: Yahoo `Close` (split-adjusted only; `adjClose` is the dividend-adjusted one) or Stooq
    /// `Close` (split- and dividend-adjusted).
    close_basis: &'static str,
    /// SEC CIK of the ticker when the host's company list knows it.
    cik: Option<&'a str>,
}

impl<'a> ProvenanceOut<'a> {
    fn of(asset: &'a Asset) -> Option<Self> {
        asset.provenance.as_ref().map(|p| ProvenanceOut {
            source: p.source.as_str(),
            symbol: &p.symbol,
            source_url: &p.source_url,
            close_basis: p.close_basis,
            cik: p.cik.as_deref(),
        })
    }
}

/// One covered ticker: what it is and which closes are held.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PricesUniverseEntry")]
struct UniverseEntry<'a> {
    /// Canonical ticker, for example `BRK.B` or `BTC-USD`.
    ticker: &'a str,
    #[schema(with = name_schema)]
    name: Option<&'a str>,
    #[schema(with = kind_schema)]
    kind: Option<&'a str>,
    /// `daily` (demo crypto) has a close every calendar day; `weekdays` (demo) one Monday to Friday;
    /// `trading-days` (ingested) the days the source lists.
    #[schema(with = calendar_schema)]
    calendar: &'static str,
    /// Date of the first close; null when the asset has none.
    #[serde(serialize_with = "dates::iso_opt")]
    first_date: Option<NaiveDate>,
    /// Date of the last close; null when the asset has none.
    #[serde(serialize_with = "dates::iso_opt")]
    last_date: Option<NaiveDate>,
    /// Number of closes held.
    count: usize,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    provenance: Option<ProvenanceOut<'a>>,
}

/// The covered tickers (without `ticker`).
#[derive(Serialize, ApiSchema)]
#[schema(name = "PricesTickerList")]
pub struct ListBody<'a> {
    /// Every covered ticker (one page of them with `limit`), sorted alphabetically.
    tickers: Vec<&'a str>,
    /// What the data is (demo data) and how to ask for a series.
    note: &'a str,
    /// Number of tickers returned (every covered ticker without `limit`).
    #[schema(optional)]
    count: usize,
    /// Per-ticker details, same order.
    #[schema(optional)]
    universe: Vec<UniverseEntry<'a>>,
    #[schema(with = paging::next_schema)]
    next: Option<&'a str>,
}

/// One ticker's closes (with `ticker`).
#[derive(Serialize, ApiSchema)]
#[schema(name = "PricesSeries")]
pub struct SeriesBody<'a> {
    /// The canonical ticker, whatever case or separator was asked for.
    ticker: &'a str,
    #[schema(optional, with = name_schema)]
    name: Option<&'a str>,
    #[schema(optional, with = kind_schema)]
    kind: Option<&'a str>,
    /// Number of closes returned.
    count: usize,
    /// Daily closes sorted by date ascending.
    series: JsonArray<'a, Point>,
    #[schema(with = paging::next_schema)]
    next: Option<&'a str>,
    /// What the data is.
    #[schema(optional)]
    note: &'a str,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    provenance: Option<ProvenanceOut<'a>>,
}

/// The asset classes of the demo universe (`PricesAssetKind`).
pub const KINDS: &[&str] = &["equity", "sector-fund", "major", "crypto"];

fn source_schema() -> Value {
    schema::string_enum(&["yahoo", "stooq"])
}

fn calendar_schema() -> Value {
    schema::string_enum(&["weekdays", "daily", "trading-days"])
}

fn name_schema() -> Value {
    schema::describe(
        schema::nullable(schema::string()),
        "Name: the seed's, or the SEC's for an ingested ticker (null when unknown).",
    )
}

fn kind_schema() -> Value {
    schema::describe(
        schema::nullable(schema::reference("PricesAssetKind")),
        "Asset class; null for ingested series (the price files do not say).",
    )
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Selection { ticker, from, to, page } = Selection::parse(request.params())?;
    // Validated even without a ticker, so a malformed bound is never silently ignored.
    let range = DateRange::new(from, to)?;
    let Some(key) = ticker.value() else {
        // `assets` is sorted by ticker, each once.
        let assets = page.page(&index.assets, |a| a.ticker.clone())?;
        let body = ListBody {
            tickers: assets.items.iter().map(|a| a.ticker.as_str()).collect(),
            note: &index.note,
            count: assets.items.len(),
            universe: assets.items.iter().map(|a| universe_entry(a)).collect(),
            next: assets.next.as_deref(),
        };
        return paging::respond(&body, body.next);
    };
    let asset = index.get(key).ok_or_else(|| {
        ApiError::not_found(format!(
            "unknown ticker `{}`: GET /v1/prices without ticker lists the covered tickers",
            request.params().str("ticker").unwrap_or(key)
        ))
    })?;
    // One close per date, in date order.
    let points = page.page(asset.range(range.from, range.to), |i| asset.dates[*i])?;
    // A page of a run of closes is a run itself: its first index and its length say which.
    let run = points.items.first().map_or(0..0, |&first| first..first + points.items.len());
    debug_assert!(points.items.iter().zip(run.clone()).all(|(&i, j)| i == j), "a page of a range is a run");
    let body = SeriesBody {
        ticker: &asset.ticker,
        name: asset.name.as_deref(),
        kind: asset.kind.as_deref(),
        count: run.len(),
        series: asset.points.slice(run),
        next: points.next.as_deref(),
        note: &index.note,
        provenance: ProvenanceOut::of(asset),
    };
    paging::respond(&body, body.next)
}

fn universe_entry(a: &Asset) -> UniverseEntry<'_> {
    UniverseEntry {
        ticker: &a.ticker,
        name: a.name.as_deref(),
        kind: a.kind.as_deref(),
        calendar: a.calendar,
        first_date: a.dates.first().copied(),
        last_date: a.dates.last().copied(),
        count: a.points.len(),
        provenance: ProvenanceOut::of(a),
    }
}
