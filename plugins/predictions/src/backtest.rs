//! The strategy backtest, computed from the prices dataset when the plugin initialises.
//!
//! Calendar: the benchmark's (SPY's) trading days `D[0..N-1]`. With lookback `L` and window length `W`,
//! window `k` starts at index `s = L + k*W` for every `s <= N-1` and ends at index `s + W`; consecutive windows
//! share their boundary day (close-to-close returns, no overlap). At the start close, each pool asset is
//! scored by its trailing return `close(D[s]) / close(D[s-L]) - 1` (in percent, closes taken as of those
//! dates); the highest score is chosen (ties: alphabetical ticker) and `predictedLong = score > 0`.
//! `realizedReturnPct` is the chosen asset's return from the start close to the end close and `spyReturnPct`
//! the benchmark's over the same dates. A window whose end index is beyond `N-1` is open: its end date is
//! projected on the benchmark calendar and its returns run to the last close `D[N-1]`.
//!
//! Logging: windows starting before `live_since` were backfilled on `live_since` (`firstLoggedAt =
//! live_since`); later windows were logged live on their start date. The score covers closed live windows.

use chrono::NaiveDate;
use datahost_plugin_kit::market::Calendar;

use crate::data::{Market, Series, Strategy, BENCHMARK, POOL};
use crate::error::BacktestError;

/// One window's prediction. Percentages are unrounded here; the route rounds them for display.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub window_start: NaiveDate,
    pub window_end: NaiveDate,
    pub first_logged_at: NaiveDate,
    pub chosen_id: String,
    pub chosen_label: String,
    pub pool: &'static str,
    pub trailing_score: f64,
    pub realized_return_pct: f64,
    pub spy_return_pct: f64,
    pub predicted_long: bool,
    pub open: bool,
    pub backfilled: bool,
    /// The date the realized returns run to: `window_end` when closed, the data's last date when open.
    pub realized_through: NaiveDate,
}

impl Row {
    /// SPEC hit rule: a long call that went up, or a not-long call that did not.
    pub fn hit(&self) -> bool {
        (self.predicted_long && self.realized_return_pct > 0.0)
            || (!self.predicted_long && self.realized_return_pct <= 0.0)
    }
    pub fn beat_spy(&self) -> bool {
        self.realized_return_pct > self.spy_return_pct
    }
}

/// Aggregates over the closed live windows (`None` when there are none).
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    pub total_windows: usize,
    pub live_closed: usize,
    pub live_open: usize,
    pub backfilled: usize,
    /// Share of closed live windows that were hits, in [0, 1].
    pub hit_rate: Option<f64>,
    /// Share of closed live windows whose realized return beat the benchmark's, in [0, 1].
    pub beat_spy_rate: Option<f64>,
    /// Compounded realized return over closed live windows, in percent.
    pub cumulative_return_pct: Option<f64>,
    /// Compounded benchmark return over the same windows, in percent.
    pub cumulative_spy_pct: Option<f64>,
}

impl Score {
    pub fn of(rows: &[Row]) -> Score {
        let closed_live: Vec<&Row> = rows.iter().filter(|r| !r.backfilled && !r.open).collect();
        let n = closed_live.len();
        let share =
            |pred: fn(&Row) -> bool| (n > 0).then(|| closed_live.iter().filter(|r| pred(r)).count() as f64 / n as f64);
        let compound = |pct: fn(&Row) -> f64| {
            (n > 0).then(|| (closed_live.iter().map(|r| 1.0 + pct(r) / 100.0).product::<f64>() - 1.0) * 100.0)
        };
        Score {
            total_windows: rows.len(),
            live_closed: n,
            live_open: rows.iter().filter(|r| !r.backfilled && r.open).count(),
            backfilled: rows.iter().filter(|r| r.backfilled).count(),
            hit_rate: share(Row::hit),
            beat_spy_rate: share(Row::beat_spy),
            cumulative_return_pct: compound(|r| r.realized_return_pct),
            cumulative_spy_pct: compound(|r| r.spy_return_pct),
        }
    }
}

/// The result of one backtest run.
#[derive(Debug, Clone)]
pub struct Backtest {
    /// The date of the data the run used (= `data_end`).
    pub as_of: NaiveDate,
    /// The benchmark's last close date.
    pub data_end: NaiveDate,
    /// Chronological (oldest window first).
    pub rows: Vec<Row>,
    pub score: Score,
    /// Tickers of the pool, sorted.
    pub members: Vec<String>,
}

fn pct(from: f64, to: f64) -> f64 {
    (to / from - 1.0) * 100.0
}

/// Runs the strategy over the prices.
pub fn run(market: &Market, strategy: &Strategy) -> Result<Backtest, BacktestError> {
    let bench = market.get(BENCHMARK).ok_or(BacktestError::NoBenchmark)?;
    let days = &bench.dates;
    let last = days.len().checked_sub(1).ok_or(BacktestError::NoBenchmarkCloses)?;
    let data_end = days[last];

    let mut pool: Vec<&Series> = market.series.iter().filter(|s| s.in_pool()).collect();
    // Alphabetical, so the first of equal scores wins the tie.
    pool.sort_by(|a, b| a.ticker.cmp(&b.ticker));

    let (lookback, window) = (strategy.lookback_days, strategy.window_days);
    let mut rows = Vec::new();
    let mut s = lookback;
    while s <= last {
        let start = days[s];
        let end_index = s + window;
        let open = end_index > last;
        let through = days[end_index.min(last)];
        // Projected on the weekday calendar: the data holds no future exchange holidays.
        let window_end = if open { Calendar::Weekdays.advance(data_end, end_index - last) } else { through };

        let mut best: Option<(&Series, f64, f64)> = None;
        for asset in &pool {
            let (Some(then), Some(now)) = (asset.close_as_of(days[s - lookback]), asset.close_as_of(start)) else {
                continue;
            };
            let score = pct(then, now);
            if best.is_none_or(|(_, top, _)| score > top) {
                best = Some((asset, score, now));
            }
        }
        if let Some((chosen, score, entry)) = best {
            let exit = chosen.close_as_of(through).unwrap_or(entry);
            let backfilled = start < strategy.live_since;
            rows.push(Row {
                window_start: start,
                window_end,
                first_logged_at: if backfilled { strategy.live_since } else { start },
                chosen_id: chosen.ticker.clone(),
                chosen_label: chosen.name.clone(),
                pool: POOL,
                trailing_score: score,
                realized_return_pct: pct(entry, exit),
                spy_return_pct: pct(bench.closes[s], bench.closes[end_index.min(last)]),
                predicted_long: score > 0.0,
                open,
                backfilled,
                realized_through: through,
            });
        }
        s += window;
    }
    let score = Score::of(&rows);
    let members = pool.iter().map(|p| p.ticker.clone()).collect();
    Ok(Backtest { as_of: data_end, data_end, rows, score, members })
}
