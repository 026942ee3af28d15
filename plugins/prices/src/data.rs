//! The in-memory index over the `prices` dataset, from either document the host serves: the demo seed
//! (`{meta, assets: [{ticker, calendar, start, closes}]}`, the SDK's [`PriceSnapshot`]) or the ingested rows
//! (`{"ingested": {...}, "closes": [CloseRow, ...]}`). Either way every asset's dates are expanded and its
//! closes written as the answers' JSON once at load, looked up by canonical (normalised) ticker, with binary
//! search for the `from`/`to` bounds. The two are never mixed: once rows are ingested the seed is not served.

use std::collections::{BTreeMap, HashMap};

use chrono::{Months, NaiveDate};
use datahost_plugin_api::dates;
use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::params::normalize_ticker;
use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_api::rows::JsonRows;
use datahost_plugin_api::ApiSchema;
use datahost_plugin_kit::market::PriceSnapshot;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ingest::{CloseRow, PriceSource};

/// How many years of closes a series holds, ending at its latest close (SPEC: a 5-year daily history).
pub const SERIES_YEARS: u32 = 5;

/// Where an ingested series comes from (absent for the demo seed).
pub struct Provenance {
    pub source: PriceSource,
    pub symbol: String,
    pub source_url: String,
    pub close_basis: &'static str,
    /// The SEC's identity of the ticker, when the host's company list knows it.
    pub cik: Option<String>,
}

/// One asset, ready to serve.
pub struct Asset {
    pub ticker: String,
    /// The seed's name, or the SEC's name for an ingested ticker (`None` when the company list lacks it).
    pub name: Option<String>,
    /// The seed's asset class; `None` for ingested rows (the price files do not say).
    pub kind: Option<String>,
    /// `weekdays` or `daily` for the seed; `trading-days` (the days the source lists) for ingested rows.
    pub calendar: &'static str,
    pub dates: Vec<NaiveDate>,
    /// Each date's close as the answers write it, written once here (`dates[i]` is `points`' row `i`).
    pub points: JsonRows<Point>,
    pub provenance: Option<Provenance>,
}

/// One daily close.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PricesPoint")]
pub struct Point {
    /// Trading day.
    #[serde(serialize_with = "dates::iso")]
    pub date: NaiveDate,
    /// Close in USD (the demo rounds to cents; ingested closes are as published).
    pub close: f64,
    /// Yahoo's `Adj Close` (splits and dividends); Yahoo series only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adj_close: Option<f64>,
}

impl Asset {
    /// The index range of closes whose date lies within the inclusive bounds.
    pub fn range(&self, from: Option<NaiveDate>, to: Option<NaiveDate>) -> std::ops::Range<usize> {
        let lo = from.map_or(0, |f| self.dates.partition_point(|d| *d < f));
        let hi = to.map_or(self.dates.len(), |t| self.dates.partition_point(|d| *d <= t));
        lo..hi.max(lo)
    }
}

pub struct Index {
    /// Sorted by ticker.
    pub assets: Vec<Asset>,
    by_key: HashMap<String, usize>,
    pub note: String,
}

/// The ingested document: the host's block plus the rows (absent when none were stored).
#[derive(Deserialize)]
struct IngestedDoc {
    #[serde(rename = "ingested")]
    _info: IngestedInfo,
    #[serde(default)]
    closes: Vec<CloseRow>,
}

/// Why the prices dataset cannot be loaded (which fails `init`).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the ingested prices are not readable: {0}")]
    Ingested(serde_json::Error),
    #[error("dataset `prices` does not match its schema: {0}")]
    Seed(serde_json::Error),
    #[error("the prices could not be written as JSON: {0}")]
    Written(serde_json::Error),
    /// What [`PriceSnapshot::problems`] found.
    #[error("the prices snapshot is invalid: {}", .0.join("; "))]
    InvalidSnapshot(Vec<String>),
}

/// Looks up company names for tickers through the host; `None` per ticker it does not know.
pub type Resolver<'a> = &'a dyn Fn(&[CompanyQuery]) -> Vec<Option<CompanyRef>>;

impl Index {
    /// Builds the index from whichever document the host served.
    pub fn load(doc: Value, resolve: Resolver<'_>) -> Result<Self, LoadError> {
        if doc.get(INGESTED_KEY).is_some() {
            let doc: IngestedDoc = serde_json::from_value(doc).map_err(LoadError::Ingested)?;
            Self::from_rows(doc.closes, resolve)
        } else {
            Self::new(serde_json::from_value(doc).map_err(LoadError::Seed)?)
        }
    }

    /// The demo seed (or any snapshot in the SDK's format).
    pub fn new(snapshot: PriceSnapshot) -> Result<Self, LoadError> {
        let problems = snapshot.problems();
        if !problems.is_empty() {
            return Err(LoadError::InvalidSnapshot(problems));
        }
        let note = snapshot.meta.get("note").and_then(|v| v.as_str()).unwrap_or("Daily close prices.").to_string();
        let assets = snapshot
            .assets
            .into_iter()
            .map(|a| {
                let dates = a.dates();
                let points = points(dates.iter().zip(&a.closes).map(|(&date, &close)| (date, close, None)))?;
                Ok(Asset {
                    dates,
                    points,
                    calendar: a.calendar.as_str(),
                    ticker: a.ticker,
                    name: Some(a.name),
                    kind: Some(a.kind),
                    provenance: None,
                })
            })
            .collect::<Result<_, LoadError>>()?;
        Ok(Self::sorted(assets, note))
    }

    /// Ingested rows: per ticker, the source holding the latest close (ties: Stooq, whose close is fully
    /// adjusted), cut to the [`SERIES_YEARS`] ending at that close. Sources are never mixed in one series.
    fn from_rows(rows: Vec<CloseRow>, resolve: Resolver<'_>) -> Result<Self, LoadError> {
        let mut by_series: BTreeMap<(String, PriceSource), Vec<CloseRow>> = BTreeMap::new();
        for row in rows {
            by_series.entry((normalize_ticker(&row.ticker), row.source)).or_default().push(row);
        }
        let mut chosen: BTreeMap<String, Vec<CloseRow>> = BTreeMap::new();
        for ((ticker, _), mut series) in by_series {
            series.sort_by_key(|r| r.date);
            let last = |s: &[CloseRow]| s.last().map(|r| (r.date, r.source == PriceSource::Stooq));
            match chosen.get(&ticker) {
                Some(held) if last(held) >= last(&series) => {}
                _ => {
                    chosen.insert(ticker, series);
                }
            }
        }
        let series: Vec<Vec<CloseRow>> = chosen.into_values().filter(|s| !s.is_empty()).collect();
        let queries: Vec<CompanyQuery> = series.iter().map(|s| CompanyQuery::Ticker(s[0].ticker.clone())).collect();
        let companies = resolve(&queries);
        let assets = series
            .into_iter()
            .zip(companies.into_iter().chain(std::iter::repeat(None)))
            .map(|(rows, company)| ingested_asset(rows, company))
            .collect::<Result<_, LoadError>>()?;
        let note = "Daily closes ingested from the official price files (Yahoo Finance history downloads, Stooq \
                    daily data). Each series is the five years ending at the latest close held for its ticker, \
                    from one source; `closeBasis` says which close is served. Pass `ticker` for a series."
            .to_string();
        Ok(Self::sorted(assets, note))
    }

    fn sorted(mut assets: Vec<Asset>, note: String) -> Self {
        assets.sort_by(|a, b| a.ticker.cmp(&b.ticker));
        let by_key = assets.iter().enumerate().map(|(i, a)| (normalize_ticker(&a.ticker), i)).collect();
        Self { assets, by_key, note }
    }

    /// The asset for a normalised ticker (as [`datahost_plugin_api::Query::ticker`] returns it).
    pub fn get(&self, normalized: &str) -> Option<&Asset> {
        self.by_key.get(normalized).map(|&i| &self.assets[i])
    }
}

/// One ingested series (sorted by date, non-empty) cut to its last five years.
fn ingested_asset(rows: Vec<CloseRow>, company: Option<CompanyRef>) -> Result<Asset, LoadError> {
    let last = rows[rows.len() - 1].date;
    let first_kept = window_start(last);
    let kept: Vec<CloseRow> = rows.into_iter().filter(|r| r.date >= first_kept).collect();
    let head = &kept[0];
    let source = head.source;
    let provenance = Provenance {
        source,
        symbol: head.symbol.clone(),
        source_url: source.history_url(&head.symbol),
        close_basis: source.close_basis(),
        cik: company.as_ref().map(|c| c.cik.clone()),
    };
    Ok(Asset {
        ticker: head.ticker.clone(),
        name: company.map(|c| c.name),
        kind: None,
        calendar: "trading-days",
        dates: kept.iter().map(|r| r.date).collect(),
        points: points(kept.iter().map(|r| (r.date, r.close, r.adj_close)))?,
        provenance: Some(provenance),
    })
}

/// A series' closes as the answers write them (`date`, `close`, `adjClose`).
fn points(closes: impl Iterator<Item = (NaiveDate, f64, Option<f64>)>) -> Result<JsonRows<Point>, LoadError> {
    JsonRows::new(closes.map(|(date, close, adj_close)| Point { date, close, adj_close })).map_err(LoadError::Written)
}

/// The first day of the five-year window ending at `last`: the day after the same date five years earlier
/// (2026-10-30 -> 2021-10-31, as the demo seed's window).
pub fn window_start(last: NaiveDate) -> NaiveDate {
    last.checked_sub_months(Months::new(12 * SERIES_YEARS)).and_then(|d| d.succ_opt()).unwrap_or(NaiveDate::MIN)
}
