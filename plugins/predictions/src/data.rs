//! The strategy's parameters (defaults, overridable from the plugin's config table) and the price view the
//! backtest reads: each asset's closes with their dates, looked up "as of" a date.

use chrono::NaiveDate;
use datahost_plugin_api::market::AssetSeries;
use datahost_plugin_api::params::parse_date;
use serde_json::Value;

/// The pool name rows carry.
pub const POOL: &str = "trend-preferred";
/// Asset kinds that make up the pool (the benchmark itself is left out).
pub const POOL_KINDS: &[&str] = &["sector-fund", "major"];
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
    pub fn from_config(config: &Value) -> Result<Self, String> {
        let mut s = Self::default();
        let positive = |key: &str| -> Result<Option<usize>, String> {
            match config.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => match v.as_u64() {
                    Some(n) if (1..=10_000).contains(&n) => Ok(Some(n as usize)),
                    _ => Err(format!("predictions config `{key}` must be an integer from 1 to 10000, got {v}")),
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
                s.live_since = v
                    .as_str()
                    .and_then(parse_date)
                    .ok_or_else(|| format!("predictions config `live_since` must be a YYYY-MM-DD date, got {v}"))?
            }
        }
        Ok(s)
    }
}

/// One asset's closes with their dates.
pub struct Priced<'a> {
    pub asset: &'a AssetSeries,
    pub dates: Vec<NaiveDate>,
}

impl<'a> Priced<'a> {
    pub fn new(asset: &'a AssetSeries) -> Self {
        Self { dates: asset.dates(), asset }
    }

    /// The last close on or before `date`; `None` before the first close.
    pub fn close_as_of(&self, date: NaiveDate) -> Option<f64> {
        let n = self.dates.partition_point(|d| *d <= date);
        n.checked_sub(1).map(|i| self.asset.closes[i])
    }
}
