//! `GET /v1/predictions`: the backtest's rows (newest window first), filtered by `open` and capped by
//! `limit` (a page: `cursor` continues after the last window served), with the aggregate score (always over
//! every window, whatever the filters).

use std::cmp::Reverse;

use chrono::NaiveDate;
use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, ParamSpec, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::backtest::{Backtest, Row, Score};
use crate::data::{Strategy, BENCHMARK, POOL};

pub const DEFAULT_LIMIT: usize = 100;

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(
        crate::ROUTE,
        vec![
            ParamSpec::boolean(
                "open",
                "`true` returns only open windows (ending after the data's last date); `false` only closed \
                 windows. When omitted, both.",
            )
            .example(false),
            ParamSpec::limit(DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, "rows (newest window first)"),
            paging::cursor_param(),
        ],
    )
}

/// Percentages and rates are shown to 4 decimal places; aggregates are computed before rounding.
fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RowOut<'a> {
    window_start: NaiveDate,
    window_end: NaiveDate,
    first_logged_at: NaiveDate,
    chosen_id: &'a str,
    chosen_label: &'a str,
    pool: &'a str,
    trailing_score: f64,
    realized_return_pct: f64,
    spy_return_pct: f64,
    predicted_long: bool,
    open: bool,
    backfilled: bool,
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScoreOut {
    total_windows: usize,
    live_closed: usize,
    live_open: usize,
    backfilled: usize,
    hit_rate: Option<f64>,
    beat_spy_rate: Option<f64>,
    cumulative_return_pct: Option<f64>,
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StrategyOut<'a> {
    pool: &'a str,
    members: &'a [String],
    benchmark: &'a str,
    lookback_days: usize,
    window_days: usize,
    live_since: NaiveDate,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    as_of: NaiveDate,
    data_end: NaiveDate,
    count: usize,
    rows: Vec<RowOut<'a>>,
    next: Option<&'a str>,
    score: ScoreOut,
    strategy: StrategyOut<'a>,
    note: &'a str,
}

pub fn handle(
    backtest: &Backtest,
    strategy: &Strategy,
    note: &str,
    request: &RequestEnvelope,
) -> Result<Response, ApiError> {
    let q = request.params();
    let open = q.bool("open")?;
    let page = PageRequest::parse(request, DEFAULT_LIMIT, DEFAULT_MAX_LIMIT)?;
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
