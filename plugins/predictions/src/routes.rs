//! `GET /v1/predictions`: the backtest's rows (newest window first), filtered by `open` and capped by
//! `limit` (a page: `cursor` continues after the last window served), with the aggregate score (always over
//! every window, whatever the filters).

use std::cmp::Reverse;

use chrono::NaiveDate;
use datahost_plugin_api::dates;
use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, ApiSchema, Params, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::backtest::{Backtest, Row, Score};
use crate::data::{Strategy, BENCHMARK, POOL};

pub const DEFAULT_LIMIT: usize = 100;

/// Query parameters of `GET /v1/predictions`.
#[derive(Params)]
struct Selection {
    /// `true` returns only open windows (ending after the data's last date); `false` only closed windows. When
    /// omitted, both.
    #[param(example = false)]
    open: Option<bool>,
    #[param(page(default = DEFAULT_LIMIT, max = DEFAULT_MAX_LIMIT, of = "rows (newest window first)"))]
    page: PageRequest,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Selection::specs())
}

/// Percentages and rates are shown to 4 decimal places; aggregates are computed before rounding.
fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// One window of the backtest: the asset chosen at its start and how it did.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PredictionRow")]
struct RowOut<'a> {
    /// First day of the window; the entry is its close.
    #[serde(serialize_with = "dates::iso")]
    window_start: NaiveDate,
    /// Last day of the window (projected when the window is open).
    #[serde(serialize_with = "dates::iso")]
    window_end: NaiveDate,
    /// When the prediction was first logged: windowStart when live, liveSince when backfilled.
    #[serde(serialize_with = "dates::iso")]
    first_logged_at: NaiveDate,
    /// Ticker of the chosen asset.
    chosen_id: &'a str,
    /// Name of the chosen asset.
    chosen_label: &'a str,
    /// The pool the asset was chosen from; `trend-preferred`.
    pool: &'a str,
    /// Trailing return of the chosen asset over the lookback, in percent.
    trailing_score: f64,
    /// Chosen asset's return over the window (to dataEnd when open), in percent.
    realized_return_pct: f64,
    /// Benchmark (SPY) return over the same dates, in percent.
    spy_return_pct: f64,
    /// True when trailingScore > 0.
    predicted_long: bool,
    /// True when the window ends after the data's last date.
    open: bool,
    /// True when the window started before liveSince and was logged by the backfill.
    backfilled: bool,
    /// Date the realized returns run to: windowEnd, or dataEnd when open.
    #[schema(optional)]
    #[serde(serialize_with = "dates::iso")]
    realized_through: NaiveDate,
}

impl<'a> From<&'a Row> for RowOut<'a> {
    fn from(r: &'a Row) -> Self {
        RowOut {
            window_start: r.window_start,
            window_end: r.window_end,
            first_logged_at: r.first_logged_at,
            chosen_id: &r.chosen_id,
            chosen_label: &r.chosen_label,
            pool: r.pool,
            trailing_score: round4(r.trailing_score),
            realized_return_pct: round4(r.realized_return_pct),
            spy_return_pct: round4(r.spy_return_pct),
            predicted_long: r.predicted_long,
            open: r.open,
            backfilled: r.backfilled,
            realized_through: r.realized_through,
        }
    }
}

/// The aggregate score over every window.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PredictionScore")]
struct ScoreOut {
    /// Every window of the backtest.
    total_windows: usize,
    /// Closed windows logged live.
    live_closed: usize,
    /// Open windows logged live.
    live_open: usize,
    /// Windows logged by the backfill.
    backfilled: usize,
    /// Share of closed live windows whose direction call was right; null without closed live windows.
    hit_rate: Option<f64>,
    /// Share of closed live windows that beat SPY; null without closed live windows.
    beat_spy_rate: Option<f64>,
    /// Compounded realized return of the closed live windows, in percent; null without them.
    cumulative_return_pct: Option<f64>,
    /// Compounded SPY return over the same windows, in percent; null without them.
    cumulative_spy_pct: Option<f64>,
}

impl From<&Score> for ScoreOut {
    fn from(s: &Score) -> Self {
        ScoreOut {
            total_windows: s.total_windows,
            live_closed: s.live_closed,
            live_open: s.live_open,
            backfilled: s.backfilled,
            hit_rate: s.hit_rate.map(round4),
            beat_spy_rate: s.beat_spy_rate.map(round4),
            cumulative_return_pct: s.cumulative_return_pct.map(round4),
            cumulative_spy_pct: s.cumulative_spy_pct.map(round4),
        }
    }
}

/// The strategy's parameters in use.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PredictionStrategy")]
struct StrategyOut<'a> {
    pool: &'a str,
    /// Tickers in the pool.
    members: &'a [String],
    benchmark: &'a str,
    /// Trading days of trailing return used to rank the pool.
    lookback_days: usize,
    /// Trading days per window.
    window_days: usize,
    /// First day of live logging; earlier windows were backfilled on this day.
    #[serde(serialize_with = "dates::iso")]
    live_since: NaiveDate,
}

/// Backtest rows, newest window first, and the aggregate score.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PredictionsResponse")]
pub struct Body<'a> {
    /// Date of the data the backtest ran on (equals dataEnd).
    #[serde(serialize_with = "dates::iso")]
    as_of: NaiveDate,
    /// Last SPY close date in the prices data.
    #[serde(serialize_with = "dates::iso")]
    data_end: NaiveDate,
    /// Number of rows returned.
    #[schema(optional)]
    count: usize,
    /// Windows, newest first, after `open` and `limit`.
    rows: Vec<RowOut<'a>>,
    #[schema(with = paging::next_schema)]
    next: Option<&'a str>,
    score: ScoreOut,
    #[schema(optional)]
    strategy: StrategyOut<'a>,
    /// What the numbers are computed from (demo data in the demo deployment).
    #[schema(optional)]
    note: &'a str,
}

pub fn handle(
    backtest: &Backtest,
    strategy: &Strategy,
    note: &str,
    request: &RequestEnvelope,
) -> Result<Response, ApiError> {
    let Selection { open, page } = Selection::parse(request.params())?;
    // Newest window first; the chosen asset breaks a tie (none in a well-formed backtest) so the order is total.
    let mut selected: Vec<&Row> = backtest.rows.iter().filter(|r| open.is_none_or(|want| r.open == want)).collect();
    let key = |r: &&Row| (Reverse(r.window_start), Reverse(r.window_end), r.chosen_id.clone());
    selected.sort_by_key(key);
    let page = page.page(selected, key)?;
    let rows: Vec<RowOut> = page.items.into_iter().map(RowOut::from).collect();
    let body = Body {
        as_of: backtest.as_of,
        data_end: backtest.data_end,
        count: rows.len(),
        rows,
        next: page.next.as_deref(),
        score: ScoreOut::from(&backtest.score),
        strategy: StrategyOut {
            pool: POOL,
            members: &backtest.members,
            benchmark: BENCHMARK,
            lookback_days: strategy.lookback_days,
            window_days: strategy.window_days,
            live_since: strategy.live_since,
        },
        note,
    };
    paging::respond(&body, body.next)
}
