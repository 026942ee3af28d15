//! Why the plugin cannot start (each fails `init` with its message): its config table, the prices dataset the
//! backtest reads, or the backtest itself.

use serde_json::Value;

use crate::data::BENCHMARK;

/// A config value the strategy cannot take.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `lookback_days` or `window_days` is not an integer from 1 to 10000.
    #[error("predictions config `{key}` must be an integer from 1 to 10000, got {value}")]
    DayCount { key: &'static str, value: Value },
    #[error("predictions config `live_since` must be a YYYY-MM-DD date, got {0}")]
    LiveSince(Value),
}

/// The prices dataset does not read as closes.
#[derive(Debug, thiserror::Error)]
pub enum PricesError {
    #[error("the ingested prices are not readable: {0}")]
    Ingested(serde_json::Error),
    #[error("dataset `prices` does not match its schema: {0}")]
    Seed(serde_json::Error),
    /// What the SDK's `PriceSnapshot::problems` found.
    #[error("the prices dataset is invalid: {}", .0.join("; "))]
    InvalidSnapshot(Vec<String>),
}

/// The prices hold no benchmark calendar to run the strategy on.
#[derive(Debug, thiserror::Error)]
pub enum BacktestError {
    #[error("the prices dataset has no {BENCHMARK} series")]
    NoBenchmark,
    #[error("the {BENCHMARK} series has no closes")]
    NoBenchmarkCloses,
}
