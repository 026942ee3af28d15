//! The close-price snapshot format of the `prices` dataset, shared by the plugin that owns it and by plugins
//! that read it through the records engine (predictions). Plugin crates may not depend on each other, so the
//! format and its date arithmetic live here once.
//!
//! Document: `{"meta": {...}, "assets": [{ticker, name, kind, calendar, start, closes}]}`. Each asset stores
//! only its first trading date, its calendar and its closes; the date of `closes[i]` is the `i`-th trading
//! day of the calendar counted from `start` (which must itself be a trading day).

use chrono::{Datelike, Days, NaiveDate, Weekday};
use serde::{Deserialize, Serialize};

use datahost_plugin_api::params::normalize_ticker;

/// Which days an asset has a close on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Calendar {
    /// Monday to Friday (exchange-traded assets; the demo seed has no holiday calendar).
    Weekdays,
    /// Every calendar day (crypto).
    Daily,
}

impl Calendar {
    /// The JSON spelling: `weekdays` or `daily`.
    pub fn as_str(self) -> &'static str {
        match self {
            Calendar::Weekdays => "weekdays",
            Calendar::Daily => "daily",
        }
    }

    /// Whether the asset has a close on `date`: every day for [`Calendar::Daily`], Monday to Friday otherwise (no
    /// holidays).
    pub fn trades_on(self, date: NaiveDate) -> bool {
        match self {
            Calendar::Weekdays => !matches!(date.weekday(), Weekday::Sat | Weekday::Sun),
            Calendar::Daily => true,
        }
    }

    /// The first trading day strictly after `date`.
    pub fn next_after(self, date: NaiveDate) -> NaiveDate {
        let mut d = date;
        loop {
            d = d.checked_add_days(Days::new(1)).unwrap_or(NaiveDate::MAX);
            if d == NaiveDate::MAX || self.trades_on(d) {
                return d;
            }
        }
    }

    /// The first trading day on or after `date`.
    pub fn on_or_after(self, date: NaiveDate) -> NaiveDate {
        if self.trades_on(date) {
            date
        } else {
            self.next_after(date)
        }
    }

    /// The trading day `n` trading days after `date` (`n = 0` gives `date`).
    pub fn advance(self, date: NaiveDate, n: usize) -> NaiveDate {
        (0..n).fold(date, |d, _| self.next_after(d))
    }

    /// `count` consecutive trading days starting at `start` (which should be a trading day).
    pub fn dates(self, start: NaiveDate, count: usize) -> Vec<NaiveDate> {
        let mut out = Vec::with_capacity(count);
        let mut d = start;
        for _ in 0..count {
            out.push(d);
            d = self.next_after(d);
        }
        out
    }
}

/// One asset's close history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssetSeries {
    /// Canonical ticker as displayed, for example `BRK.B` or `BTC-USD`.
    pub ticker: String,
    /// Display name of the asset (a company, fund or coin name), served beside the ticker.
    pub name: String,
    /// `equity`, `sector-fund`, `major` or `crypto`.
    pub kind: String,
    /// Which days have a close (JSON `"weekdays"` or `"daily"`); `start` must be one of them.
    pub calendar: Calendar,
    /// Date of `closes[0]`.
    pub start: NaiveDate,
    /// Daily closes in USD, one per trading day of `calendar` from `start`.
    pub closes: Vec<f64>,
}

impl AssetSeries {
    /// The date of every close, in order.
    pub fn dates(&self) -> Vec<NaiveDate> {
        self.calendar.dates(self.start, self.closes.len())
    }

    /// The date of the last close (`None` when there are no closes).
    pub fn last_date(&self) -> Option<NaiveDate> {
        let n = self.closes.len();
        (n > 0).then(|| self.calendar.advance(self.start, n - 1))
    }
}

/// The whole `prices` snapshot.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PriceSnapshot {
    /// Free-form snapshot metadata (for example `note`, `caveat`, `demo`); the SDK does not read it.
    pub meta: serde_json::Value,
    /// One close series per asset; tickers must be unique after normalisation (see [`PriceSnapshot::problems`]).
    pub assets: Vec<AssetSeries>,
}

impl PriceSnapshot {
    /// Problems that make the snapshot unusable: duplicate tickers (after normalisation), a start that is not
    /// a trading day of the asset's calendar, non-positive or non-finite closes. Empty when valid.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for a in &self.assets {
            if !seen.insert(normalize_ticker(&a.ticker)) {
                problems.push(format!("ticker `{}` appears twice", a.ticker));
            }
            if !a.calendar.trades_on(a.start) {
                problems.push(format!(
                    "`{}` starts on {}, not a {} trading day",
                    a.ticker,
                    a.start,
                    a.calendar.as_str()
                ));
            }
            if let Some(i) = a.closes.iter().position(|c| !c.is_finite() || *c <= 0.0) {
                problems.push(format!("`{}` has a non-positive close at index {i}", a.ticker));
            }
        }
        problems
    }

    /// The asset with this ticker, compared case- and class-separator-insensitively.
    pub fn asset(&self, ticker: &str) -> Option<&AssetSeries> {
        let want = normalize_ticker(ticker);
        self.assets.iter().find(|a| normalize_ticker(&a.ticker) == want)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn weekday_calendar_skips_weekends() {
        let fri = d("2026-10-30");
        assert_eq!(Calendar::Weekdays.next_after(fri), d("2026-11-02"));
        assert_eq!(Calendar::Daily.next_after(fri), d("2026-10-31"));
        assert_eq!(Calendar::Weekdays.on_or_after(d("2021-10-31")), d("2021-11-01"));
        assert_eq!(Calendar::Weekdays.advance(fri, 10), d("2026-11-13"));
        assert_eq!(
            Calendar::Weekdays.dates(d("2026-10-29"), 4),
            vec![d("2026-10-29"), d("2026-10-30"), d("2026-11-02"), d("2026-11-03")]
        );
    }

    #[test]
    fn snapshot_round_trips_and_validates() {
        let json = r#"{"meta": {"demo": true}, "assets": [
            {"ticker": "BTC-USD", "name": "Bitcoin", "kind": "crypto", "calendar": "daily",
             "start": "2026-10-31", "closes": [1.5, 2.0]},
            {"ticker": "SPY", "name": "SPDR S&P 500", "kind": "major", "calendar": "weekdays",
             "start": "2026-10-31", "closes": [0.0]}]}"#;
        let snap: PriceSnapshot = serde_json::from_str(json).unwrap();
        assert_eq!(snap.asset("btc-usd").unwrap().last_date(), Some(d("2026-11-01")));
        assert_eq!(
            snap.problems(),
            vec![
                "`SPY` starts on 2026-10-31, not a weekdays trading day".to_string(),
                "`SPY` has a non-positive close at index 0".to_string()
            ]
        );
    }
}
