//! The OpenAPI fragment of `/v1/predictions`: the full response schema and the exact strategy description.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::data::{BENCHMARK, DEFAULT_LIVE_SINCE, DEFAULT_LOOKBACK_DAYS, DEFAULT_WINDOW_DAYS, POOL};
use crate::routes::route_spec;

/// The strategy, stated exactly as `backtest.rs` computes it.
pub fn description() -> String {
    format!(
        "Rows of the in-house `{POOL}` strategy backtest, computed when the service loads from the `/v1/prices` \
         data (not stored rows), newest window first, plus the aggregate `score`.\n\n\
         **Calendar and windows.** The calendar is {BENCHMARK}'s trading days D[0..N-1]. With lookback L = \
         {DEFAULT_LOOKBACK_DAYS} and window length W = {DEFAULT_WINDOW_DAYS} trading days (the defaults; \
         `strategy` echoes the values in use), window k starts at \
         index s = L + k·W (for every s ≤ N-1) and ends at index s + W: consecutive windows share their boundary \
         day, and each return runs from the close on `windowStart` to the close on `windowEnd`.\n\n\
         **Choice.** The `{POOL}` pool is every sector fund and major in the prices data except {BENCHMARK} \
         (listed in `strategy.members`): by asset class in the demo seed; for ingested price files, which carry \
         none, the U.S. sector SPDR funds (XLB, XLC, XLE, XLF, XLI, XLK, XLP, XLRE, XLU, XLV, XLY) and the \
         majors QQQ, DIA and IWM that were ingested. Ingested series are the ones `/v1/prices` serves (per \
         ticker the source with the latest close, the five years ending there). At each window start every pool asset is scored by its trailing \
         return `trailingScore` = (close on D[s] / close on D[s-L] - 1) × 100 (closes as of those dates; assets \
         without a close by D[s-L] are skipped). The highest score is chosen (ties: alphabetical ticker); \
         `chosenId` is its ticker, `chosenLabel` its name, and `predictedLong` = `trailingScore` > 0.\n\n\
         **Returns.** `realizedReturnPct` = (chosen close on `windowEnd` / chosen close on `windowStart` - 1) \
         × 100; `spyReturnPct` is the same for {BENCHMARK} over the same dates.\n\n\
         **Open windows.** A window whose end index is beyond N-1 ends after the data's last date \
         (`dataEnd`): it is `open`, its `windowEnd` is projected on the weekday calendar, and its returns run to \
         the close on `dataEnd` (`realizedThrough`). `asOf` = `dataEnd`, the date of the data the backtest ran on.\n\n\
         **Backfilled and live.** The strategy logs live since {DEFAULT_LIVE_SINCE} (default; `strategy.liveSince`). \
         Windows starting before it were backfilled on that day: `backfilled` = true and `firstLoggedAt` = \
         liveSince (later than `windowStart`). Later windows were logged live at their start: `backfilled` = \
         false and `firstLoggedAt` = `windowStart`.\n\n\
         **Score** (over every window, whatever `open` and `limit` are). `totalWindows` = all windows = \
         `liveClosed` + `liveOpen` + `backfilled`. Over the closed live windows: `hitRate` = share where \
         (`predictedLong` and `realizedReturnPct` > 0) or (not `predictedLong` and `realizedReturnPct` ≤ 0); \
         `beatSpyRate` = share where `realizedReturnPct` > `spyReturnPct`; `cumulativeReturnPct` = \
         (∏(1 + realizedReturnPct/100) - 1) × 100 (holding the chosen asset each window); `cumulativeSpyPct` \
         the same over `spyReturnPct`. All four are null when there is no closed live window. Rates are \
         shares in [0, 1]; percentages and rates are rounded to 4 decimal places after computing.\n\n\
         Until real prices are ingested the prices are synthetic demo data, so these rows are demo results, \
         not real performance (`note` says which)."
    )
}

pub fn fragment() -> Value {
    let row = object_with_optional(
        &[
            ("windowStart", describe(date(), "First day of the window; the entry is its close.")),
            ("windowEnd", describe(date(), "Last day of the window (projected when the window is open).")),
            (
                "firstLoggedAt",
                describe(
                    date(),
                    "When the prediction was first logged: windowStart when live, liveSince when backfilled.",
                ),
            ),
            ("chosenId", describe(string(), "Ticker of the chosen asset.")),
            ("chosenLabel", describe(string(), "Name of the chosen asset.")),
            ("pool", describe(string(), "The pool the asset was chosen from; `trend-preferred`.")),
            ("trailingScore", describe(number(), "Trailing return of the chosen asset over the lookback, in percent.")),
            (
                "realizedReturnPct",
                describe(number(), "Chosen asset's return over the window (to dataEnd when open), in percent."),
            ),
            ("spyReturnPct", describe(number(), "Benchmark (SPY) return over the same dates, in percent.")),
            ("predictedLong", describe(boolean(), "True when trailingScore > 0.")),
            ("open", describe(boolean(), "True when the window ends after the data's last date.")),
            (
                "backfilled",
                describe(boolean(), "True when the window started before liveSince and was logged by the backfill."),
            ),
        ],
        &[("realizedThrough", describe(date(), "Date the realized returns run to: windowEnd, or dataEnd when open."))],
    );
    let rate = |text: &str| describe(nullable(number()), text);
    let score = object(&[
        ("totalWindows", describe(integer(), "Every window of the backtest.")),
        ("liveClosed", describe(integer(), "Closed windows logged live.")),
        ("liveOpen", describe(integer(), "Open windows logged live.")),
        ("backfilled", describe(integer(), "Windows logged by the backfill.")),
        (
            "hitRate",
            rate("Share of closed live windows whose direction call was right; null without closed live windows."),
        ),
        ("beatSpyRate", rate("Share of closed live windows that beat SPY; null without closed live windows.")),
        (
            "cumulativeReturnPct",
            rate("Compounded realized return of the closed live windows, in percent; null without them."),
        ),
        ("cumulativeSpyPct", rate("Compounded SPY return over the same windows, in percent; null without them.")),
    ]);
    let strategy = object(&[
        ("pool", string()),
        ("members", describe(array(string()), "Tickers in the pool.")),
        ("benchmark", string()),
        ("lookbackDays", describe(integer(), "Trading days of trailing return used to rank the pool.")),
        ("windowDays", describe(integer(), "Trading days per window.")),
        ("liveSince", describe(date(), "First day of live logging; earlier windows were backfilled on this day.")),
    ]);
    let body = object_with_optional(
        &[
            ("asOf", describe(date(), "Date of the data the backtest ran on (equals dataEnd).")),
            ("dataEnd", describe(date(), "Last SPY close date in the prices data.")),
            ("rows", describe(array(reference("PredictionRow")), "Windows, newest first, after `open` and `limit`.")),
            ("score", reference("PredictionScore")),
            ("next", datahost_plugin_api::paging::next_schema()),
        ],
        &[
            ("count", describe(integer(), "Number of rows returned.")),
            ("strategy", reference("PredictionStrategy")),
            ("note", describe(string(), "What the numbers are computed from (demo data in the demo deployment).")),
        ],
    );
    let route = route_spec();
    let text = description();
    let op = Operation {
        route: &route,
        summary: "Strategy backtest rows and score",
        description: &text,
        response: reference("PredictionsResponse"),
        example: Some(example()),
        extra_statuses: &[],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![
            ("PredictionRow", row),
            ("PredictionScore", score),
            ("PredictionStrategy", strategy),
            ("PredictionsResponse", body),
        ],
    )
}

fn example() -> Value {
    json!({
        "asOf": "2026-10-30",
        "dataEnd": "2026-10-30",
        "count": 1,
        "rows": [{
            "windowStart": "2026-10-15",
            "windowEnd": "2026-11-12",
            "firstLoggedAt": "2026-10-15",
            "chosenId": "XLK",
            "chosenLabel": "Technology Select Sector SPDR Fund",
            "pool": "trend-preferred",
            "trailingScore": 6.4213,
            "realizedReturnPct": 1.1852,
            "spyReturnPct": 0.7431,
            "predictedLong": true,
            "open": true,
            "backfilled": false,
            "realizedThrough": "2026-10-30"
        }],
        "score": {
            "totalWindows": 62,
            "liveClosed": 10,
            "liveOpen": 1,
            "backfilled": 51,
            "hitRate": 0.6,
            "beatSpyRate": 0.5,
            "cumulativeReturnPct": 7.9023,
            "cumulativeSpyPct": 5.1187
        },
        "strategy": {
            "pool": "trend-preferred",
            "members": ["DIA", "IWM", "QQQ", "XLE", "XLF", "XLI", "XLK", "XLP", "XLU", "XLV", "XLY"],
            "benchmark": "SPY",
            "lookbackDays": 60,
            "windowDays": 20,
            "liveSince": "2026-01-02"
        },
        "note": "Computed from the prices dataset, which holds DEMO DATA (synthetic closes): these results are \
            not real performance and not investment advice."
    })
}
