//! The OpenAPI fragment of `/v1/predictions`: the full response schema and the exact strategy description.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::data::{BENCHMARK, DEFAULT_LIVE_SINCE, DEFAULT_LOOKBACK_DAYS, DEFAULT_WINDOW_DAYS, POOL};
use crate::routes::{route_spec, Body};

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
    let route = route_spec();
    let text = description();
    let op = Operation {
        route: &route,
        summary: "Strategy backtest rows and score",
        description: &text,
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<Body>())
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
