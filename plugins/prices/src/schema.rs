//! The OpenAPI fragment of `/v1/prices`: the two response shapes (ticker list, series), parameters, example.

use datahost_plugin_api::openapi::{components_of, fragment_with, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::{route_spec, ListBody, SeriesBody, KINDS};

pub fn fragment() -> Value {
    let body = json!({
        "description": "The ticker list when `ticker` is omitted, the close series when it is given.",
        "anyOf": [reference("PricesTickerList"), reference("PricesSeries")],
    });
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "5-year daily close price series",
        description: "Daily closes for a universe of equities, sector funds (XLK, XLF, ...), majors (SPY, QQQ, DIA, \
            IWM) and top crypto (BTC-USD, ETH-USD, SOL-USD), covering five years. Crypto has a close every \
            calendar day; the others on weekdays. Without `ticker`, the list of covered tickers (`tickers`, \
            `note`, plus the per-ticker `universe`). With `ticker` (case-insensitive; `-` and `/` equal `.`), \
            that ticker's closes sorted by date ascending, restricted to the inclusive `from`/`to` bounds \
            (a malformed date or `from` after `to` is a 400; an unknown ticker is a 404). Until price files are \
            ingested the dataset serves synthetic demo closes (a deterministic random walk), labelled in `note`; \
            ingested series (Yahoo or Stooq daily files) are the five years ending at the latest close held for \
            the ticker, from one source, and say which close they serve (`closeBasis`) and where it comes from \
            (`source`, `sourceUrl`).",
        response: reference("PricesResponse"),
        example: Some(example()),
        extra_statuses: &[(404, "The ticker is not covered.")],
    };
    let mut components = components_of::<ListBody>();
    components.extend(components_of::<SeriesBody>());
    components.insert("PricesAssetKind".into(), string_enum(KINDS));
    components.insert("PricesResponse".into(), body);
    fragment_with(vec![(crate::ROUTE, op.path_item())], components)
}

fn example() -> Value {
    json!({
        "ticker": "SPY",
        "name": "SPDR S&P 500 ETF Trust",
        "kind": "major",
        "count": 3,
        "series": [
            {"date": "2026-10-28", "close": 512.34},
            {"date": "2026-10-29", "close": 515.02},
            {"date": "2026-10-30", "close": 513.87}
        ],
        "note": "DEMO DATA: synthetic daily closes (deterministic random walk), not real market prices."
    })
}
