//! The in-memory index over the `prices` snapshot: every asset's dates expanded once at load, looked up by
//! canonical (normalised) ticker, with binary search for the `from`/`to` bounds.

use std::collections::HashMap;

use chrono::NaiveDate;
use datahost_plugin_api::market::{Calendar, PriceSnapshot};
use datahost_plugin_api::params::normalize_ticker;

/// One asset, ready to serve.
pub struct Asset {
    pub ticker: String,
    pub name: String,
    pub kind: String,
    pub calendar: Calendar,
    pub dates: Vec<NaiveDate>,
    pub closes: Vec<f64>,
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

impl Index {
    pub fn new(snapshot: PriceSnapshot) -> Result<Self, String> {
        let problems = snapshot.problems();
        if !problems.is_empty() {
            return Err(format!("the prices snapshot is invalid: {}", problems.join("; ")));
        }
        let note = snapshot.meta.get("note").and_then(|v| v.as_str()).unwrap_or("Daily close prices.").to_string();
        let mut assets: Vec<Asset> = snapshot
            .assets
            .into_iter()
            .map(|a| Asset {
                dates: a.dates(),
                ticker: a.ticker,
                name: a.name,
                kind: a.kind,
                calendar: a.calendar,
                closes: a.closes,
            })
            .collect();
        assets.sort_by(|a, b| a.ticker.cmp(&b.ticker));
        let by_key = assets.iter().enumerate().map(|(i, a)| (normalize_ticker(&a.ticker), i)).collect();
        Ok(Self { assets, by_key, note })
    }

    /// The asset for a normalised ticker (as [`datahost_plugin_api::Query::ticker`] returns it).
    pub fn get(&self, normalized: &str) -> Option<&Asset> {
        self.by_key.get(normalized).map(|&i| &self.assets[i])
    }
}
