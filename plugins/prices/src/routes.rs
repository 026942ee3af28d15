//! `GET /v1/prices`: without `ticker`, the covered universe; with it, that ticker's daily closes sorted by
//! date, bounded by the inclusive `from`/`to` dates.

use chrono::NaiveDate;
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
        ],
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UniverseEntry<'a> {
    ticker: &'a str,
    name: &'a str,
    kind: &'a str,
    calendar: &'static str,
    first_date: Option<NaiveDate>,
    last_date: Option<NaiveDate>,
    count: usize,
}

#[derive(Serialize)]
struct ListBody<'a> {
    tickers: Vec<&'a str>,
    note: &'a str,
    count: usize,
    universe: Vec<UniverseEntry<'a>>,
}

#[derive(Serialize)]
struct Point {
    date: NaiveDate,
    close: f64,
}

#[derive(Serialize)]
struct SeriesBody<'a> {
    ticker: &'a str,
    name: &'a str,
    kind: &'a str,
    count: usize,
    series: Vec<Point>,
    note: &'a str,
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let q = request.params();
    let ticker = q.ticker()?;
    // Validated even without a ticker, so a malformed bound is never silently ignored.
    let range = q.date_range()?;
    let Some(key) = ticker.value() else {
        return Response::json(&ListBody {
            tickers: index.assets.iter().map(|a| a.ticker.as_str()).collect(),
            note: &index.note,
            count: index.assets.len(),
            universe: index.assets.iter().map(universe_entry).collect(),
        });
    };
    let asset = index.get(key).ok_or_else(|| {
        ApiError::not_found(format!(
            "unknown ticker `{}`: GET /v1/prices without ticker lists the covered tickers",
            q.str("ticker").unwrap_or(key)
        ))
    })?;
    let series: Vec<Point> =
        asset.range(range.from, range.to).map(|i| Point { date: asset.dates[i], close: asset.closes[i] }).collect();
    Response::json(&SeriesBody {
        ticker: &asset.ticker,
        name: &asset.name,
        kind: &asset.kind,
        count: series.len(),
        series,
        note: &index.note,
    })
}

fn universe_entry(a: &Asset) -> UniverseEntry<'_> {
    UniverseEntry {
        ticker: &a.ticker,
        name: &a.name,
        kind: &a.kind,
        calendar: a.calendar.as_str(),
        first_date: a.dates.first().copied(),
        last_date: a.dates.last().copied(),
        count: a.closes.len(),
    }
}
