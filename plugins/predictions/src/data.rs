//! The strategy's parameters (defaults, overridable from the plugin's config table) and the price view the
//! backtest reads: each asset's closes with their dates, looked up "as of" a date, built from either
//! document the host serves as `prices`: the demo seed (the SDK's [`PriceSnapshot`]) or ingested rows.

use std::collections::BTreeMap;

use chrono::{Months, NaiveDate};
use datahost_plugin_api::ingest::INGESTED_KEY;
use datahost_plugin_api::params::{normalize_ticker, parse_date};
use datahost_plugin_api::reference::{CompanyQuery, CompanyRef};
use datahost_plugin_kit::market::PriceSnapshot;
use serde::Deserialize;
use serde_json::Value;

use crate::error::{ConfigError, PricesError};

/// The pool name rows carry.
pub const POOL: &str = "trend-preferred";
/// Asset kinds that make up the pool (the benchmark itself is left out).
pub const POOL_KINDS: &[&str] = &["sector-fund", "major"];
/// The same pool where the prices carry no asset class (ingested price files): the U.S. sector SPDR funds
/// and the majors.
pub const POOL_TICKERS: &[&str] =
    &["DIA", "IWM", "QQQ", "XLB", "XLC", "XLE", "XLF", "XLI", "XLK", "XLP", "XLRE", "XLU", "XLV", "XLY"];
/// Years of closes a price series holds, ending at its latest close (as `/v1/prices` serves it).
pub const SERIES_YEARS: u32 = 5;
/// The benchmark: its calendar is the backtest's calendar and its return is `spyReturnPct`.
pub const BENCHMARK: &str = "SPY";
pub const DEFAULT_LOOKBACK_DAYS: usize = 60;
pub const DEFAULT_WINDOW_DAYS: usize = 20;
/// The day the strategy started logging live; the history before it was backfilled on this day.
pub const DEFAULT_LIVE_SINCE: &str = "2026-01-02";

/// Strategy parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Strategy {
    /// Trading days of trailing momentum used to rank the pool.
    pub lookback_days: usize,
    /// Trading days each window holds the chosen asset.
    pub window_days: usize,
    /// Windows starting before this date were backfilled (logged on this date); later ones were logged live.
    pub live_since: NaiveDate,
}

impl Default for Strategy {
    fn default() -> Self {
        Self {
            lookback_days: DEFAULT_LOOKBACK_DAYS,
            window_days: DEFAULT_WINDOW_DAYS,
            live_since: parse_date(DEFAULT_LIVE_SINCE).expect("valid constant date"),
        }
    }
}

impl Strategy {
    /// Defaults overridden by the plugin's config table (`lookback_days`, `window_days`, `live_since`).
    pub fn from_config(config: &Value) -> Result<Self, ConfigError> {
        let mut s = Self::default();
        let positive = |key: &'static str| -> Result<Option<usize>, ConfigError> {
            match config.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => match v.as_u64() {
                    Some(n) if (1..=10_000).contains(&n) => Ok(Some(n as usize)),
                    _ => Err(ConfigError::DayCount { key, value: v.clone() }),
                },
            }
        };
        if let Some(n) = positive("lookback_days")? {
            s.lookback_days = n;
        }
        if let Some(n) = positive("window_days")? {
            s.window_days = n;
        }
        match config.get("live_since") {
            None | Some(Value::Null) => {}
            Some(v) => {
                s.live_since = v.as_str().and_then(parse_date).ok_or_else(|| ConfigError::LiveSince(v.clone()))?
            }
        }
        Ok(s)
    }
}

/// One asset's closes with their dates (ascending).
pub struct Series {
    pub ticker: String,
    pub name: String,
    /// The seed's asset class; `None` for ingested rows.
    pub kind: Option<String>,
    pub dates: Vec<NaiveDate>,
    pub closes: Vec<f64>,
}

impl Series {
    /// The last close on or before `date`; `None` before the first close.
    pub fn close_as_of(&self, date: NaiveDate) -> Option<f64> {
        let n = self.dates.partition_point(|d| *d <= date);
        n.checked_sub(1).map(|i| self.closes[i])
    }

    /// Whether the asset belongs to the pool: by asset class when the data has one, else by ticker.
    pub fn in_pool(&self) -> bool {
        let ticker = normalize_ticker(&self.ticker);
        ticker != normalize_ticker(BENCHMARK)
            && match &self.kind {
                Some(kind) => POOL_KINDS.contains(&kind.as_str()),
                None => POOL_TICKERS.contains(&ticker.as_str()),
            }
    }
}

/// Every series of the prices dataset, and whether it is demo data.
pub struct Market {
    pub series: Vec<Series>,
    pub demo: bool,
}

/// One ingested price row, as the prices plugin stores it (only the fields the backtest needs).
#[derive(Deserialize)]
struct IngestedClose {
    ticker: String,
    source: String,
    date: NaiveDate,
    close: f64,
}

#[derive(Deserialize)]
struct IngestedPrices {
    #[serde(default)]
    closes: Vec<IngestedClose>,
}

/// Looks up company names for tickers through the host; `None` per ticker it does not know.
pub type Resolver<'a> = &'a dyn Fn(&[CompanyQuery]) -> Vec<Option<CompanyRef>>;

impl Market {
    pub fn load(doc: Value, resolve: Resolver<'_>) -> Result<Self, PricesError> {
        if doc.get(INGESTED_KEY).is_some() {
            let doc: IngestedPrices = serde_json::from_value(doc).map_err(PricesError::Ingested)?;
            return Ok(Self::from_rows(doc.closes, resolve));
        }
        Self::from_snapshot(serde_json::from_value(doc).map_err(PricesError::Seed)?)
    }

    pub fn from_snapshot(snapshot: PriceSnapshot) -> Result<Self, PricesError> {
        let problems = snapshot.problems();
        if !problems.is_empty() {
            return Err(PricesError::InvalidSnapshot(problems));
        }
        let demo = snapshot.meta.get("demo").and_then(Value::as_bool).unwrap_or(false);
        let series = snapshot
            .assets
            .into_iter()
            .map(|a| Series { dates: a.dates(), ticker: a.ticker, name: a.name, kind: Some(a.kind), closes: a.closes })
            .collect();
        Ok(Self { series, demo })
    }

    /// The series `/v1/prices` serves from the same rows: per ticker the source holding the latest close
    /// (ties: Stooq, whose close is fully adjusted), cut to the five years ending there. The rule is the
    /// prices plugin's (`plugins/prices/src/data.rs`); plugin crates cannot share code outside the SDK.
    fn from_rows(rows: Vec<IngestedClose>, resolve: Resolver<'_>) -> Self {
        let mut by_source: BTreeMap<(String, String), Vec<IngestedClose>> = BTreeMap::new();
        for row in rows {
            by_source.entry((normalize_ticker(&row.ticker), row.source.clone())).or_default().push(row);
        }
        let mut chosen: BTreeMap<String, Vec<IngestedClose>> = BTreeMap::new();
        for ((ticker, _), mut rows) in by_source {
            rows.sort_by_key(|r| r.date);
            let last = |s: &[IngestedClose]| s.last().map(|r| (r.date, r.source == "stooq"));
            if chosen.get(&ticker).is_none_or(|held| last(held) < last(&rows)) {
                chosen.insert(ticker, rows);
            }
        }
        let tickers: Vec<String> = chosen.keys().cloned().collect();
        let queries: Vec<CompanyQuery> = tickers.iter().map(|t| CompanyQuery::Ticker(t.clone())).collect();
        let names = resolve(&queries);
        let series = chosen
            .into_values()
            .zip(names.into_iter().chain(std::iter::repeat(None)))
            .filter_map(|(rows, company)| {
                let last = rows.last()?.date;
                let first_kept = last
                    .checked_sub_months(Months::new(12 * SERIES_YEARS))
                    .and_then(|d| d.succ_opt())
                    .unwrap_or(NaiveDate::MIN);
                let kept: Vec<&IngestedClose> = rows.iter().filter(|r| r.date >= first_kept).collect();
                let ticker = kept.first()?.ticker.to_ascii_uppercase();
                Some(Series {
                    // Without the host's company list the label is the ticker itself, never a guessed name.
                    name: company.map_or_else(|| ticker.clone(), |c| c.name),
                    ticker,
                    kind: None,
                    dates: kept.iter().map(|r| r.date).collect(),
                    closes: kept.iter().map(|r| r.close).collect(),
                })
            })
            .collect();
        Self { series, demo: false }
    }

    pub fn get(&self, ticker: &str) -> Option<&Series> {
        let want = normalize_ticker(ticker);
        self.series.iter().find(|s| normalize_ticker(&s.ticker) == want)
    }
}
