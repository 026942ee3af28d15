//! `GET /v1/prices`: without `ticker`, the covered universe; with it, that ticker's daily closes sorted by
//! date, bounded by the inclusive `from`/`to` dates. Both are whole without `limit` (SPEC); with it they are
//! paged by `cursor` (tickers in ticker order, closes in date order).

use chrono::NaiveDate;
use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, ParamSpec, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::data::{Asset, Index};

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(
        crate::ROUTE,
        vec![
            ParamSpec::string(
                "ticker",
                "Ticker, case-insensitive (for example `SPY`, `xlk`, `BRK.B` or `btc-usd`). When omitted, the \
                 list of covered tickers is returned.",
            )
            .example("SPY"),
            ParamSpec::date("from", "Inclusive lower bound on the close date, `YYYY-MM-DD`. Only used with `ticker`.")
                .example("2026-01-02"),
            ParamSpec::date("to", "Inclusive upper bound on the close date, `YYYY-MM-DD`. Only used with `ticker`.")
                .example("2026-03-31"),
            ParamSpec::integer(
                "limit",
                &format!(
                    "Page size: caps the number of tickers (without `ticker`) or closes (with it) returned, the \
                     rest following through `next`. When omitted, the whole list or series is returned; values \
                     above {DEFAULT_MAX_LIMIT} are clamped to {DEFAULT_MAX_LIMIT}."
                ),
            )
            .schema(serde_json::json!({ "maximum": DEFAULT_MAX_LIMIT })),
            paging::cursor_param(),
        ],
    )
}

/// Where an ingested series comes from; absent for the demo seed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProvenanceOut<'a> {
    source: &'static str,
    symbol: &'a str,
    source_url: &'a str,
    close_basis: &'static str,
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UniverseEntry<'a> {
    ticker: &'a str,
    name: Option<&'a str>,
    kind: Option<&'a str>,
    calendar: &'static str,
    first_date: Option<NaiveDate>,
    last_date: Option<NaiveDate>,
    count: usize,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    provenance: Option<ProvenanceOut<'a>>,
}

#[derive(Serialize)]
struct ListBody<'a> {
    tickers: Vec<&'a str>,
    note: &'a str,
    count: usize,
    universe: Vec<UniverseEntry<'a>>,
    next: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Point {
    date: NaiveDate,
    close: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    adj_close: Option<f64>,
}

#[derive(Serialize)]
struct SeriesBody<'a> {
    ticker: &'a str,
    name: Option<&'a str>,
    kind: Option<&'a str>,
    count: usize,
    series: Vec<Point>,
    next: Option<&'a str>,
    note: &'a str,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    provenance: Option<ProvenanceOut<'a>>,
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let q = request.params();
    let ticker = q.ticker()?;
    // Validated even without a ticker, so a malformed bound is never silently ignored.
    let range = q.date_range()?;
    let page = PageRequest::parse_or_all(request, DEFAULT_MAX_LIMIT)?;
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
            q.str("ticker").unwrap_or(key)
        ))
    })?;
    // One close per date, in date order.
    let points = page.page(asset.range(range.from, range.to), |i| asset.dates[*i])?;
    let series: Vec<Point> = points
        .items
        .into_iter()
        .map(|i| Point { date: asset.dates[i], close: asset.closes[i], adj_close: asset.adj_closes[i] })
        .collect();
    let body = SeriesBody {
        ticker: &asset.ticker,
        name: asset.name.as_deref(),
        kind: asset.kind.as_deref(),
        count: series.len(),
        series,
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
        count: a.closes.len(),
        provenance: ProvenanceOut::of(a),
    }
}
