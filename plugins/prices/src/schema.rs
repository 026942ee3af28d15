//! The OpenAPI fragment of `/v1/prices`: the two response shapes (ticker list, series), parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::route_spec;

const KINDS: &[&str] = &["equity", "sector-fund", "major", "crypto"];

pub fn fragment() -> Value {
    let entry = object(&[
        ("ticker", describe(string(), "Canonical ticker, for example `BRK.B` or `BTC-USD`.")),
        ("name", string()),
        ("kind", describe(string_enum(KINDS), "Asset class.")),
        (
            "calendar",
            describe(
                string_enum(&["weekdays", "daily"]),
                "`daily` (crypto) has a close every calendar day; `weekdays` has one Monday to Friday.",
            ),
        ),
        ("firstDate", describe(nullable(date()), "Date of the first close; null when the asset has none.")),
        ("lastDate", describe(nullable(date()), "Date of the last close; null when the asset has none.")),
        ("count", describe(integer(), "Number of closes held.")),
    ]);
    let list = object_with_optional(
        &[
            ("tickers", describe(array(string()), "Every covered ticker, sorted alphabetically.")),
            ("note", describe(string(), "What the data is (demo data) and how to ask for a series.")),
        ],
        &[
            ("count", describe(integer(), "Number of covered tickers.")),
            ("universe", describe(array(reference("PricesUniverseEntry")), "Per-ticker details, same order.")),
        ],
    );
    let point = object(&[
        ("date", describe(date(), "Trading day.")),
        ("close", describe(number(), "Close in USD, rounded to cents.")),
    ]);
    let series = object_with_optional(
        &[
            ("ticker", describe(string(), "The canonical ticker, whatever case or separator was asked for.")),
            ("count", describe(integer(), "Number of closes returned.")),
            ("series", describe(array(reference("PricesPoint")), "Daily closes sorted by date ascending.")),
        ],
        &[
            ("name", string()),
            ("kind", describe(string_enum(KINDS), "Asset class.")),
            ("note", describe(string(), "What the data is (demo data).")),
        ],
    );
    let body = json!({
        "description": "The ticker list when `ticker` is omitted, the close series when it is given.",
        "anyOf": [reference("PricesTickerList"), reference("PricesSeries")],
    });
    let route = route_spec();
    let op = Operation {
        route: &route,
        operation_id: "getPrices",
        summary: "5-year daily close price series",
        description: "Daily closes for a universe of equities, sector funds (XLK, XLF, ...), majors (SPY, QQQ, DIA, \
            IWM) and top crypto (BTC-USD, ETH-USD, SOL-USD), covering five years. Crypto has a close every \
            calendar day; the others on weekdays. Without `ticker`, the list of covered tickers (`tickers`, \
            `note`, plus the per-ticker `universe`). With `ticker` (case-insensitive; `-` and `/` equal `.`), \
            that ticker's closes sorted by date ascending, restricted to the inclusive `from`/`to` bounds \
            (a malformed date or `from` after `to` is a 400; an unknown ticker is a 404). The demo deployment \
            serves synthetic closes (a deterministic random walk), labelled as demo data in `note`.",
        response: reference("PricesResponse"),
        example: Some(example()),
        extra_statuses: &[(404, "The ticker is not covered.")],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![
            ("PricesUniverseEntry", entry),
            ("PricesTickerList", list),
            ("PricesPoint", point),
            ("PricesSeries", series),
            ("PricesResponse", body),
        ],
    )
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
