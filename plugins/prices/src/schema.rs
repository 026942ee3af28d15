//! The OpenAPI fragment of `/v1/prices`: the two response shapes (ticker list, series), parameters, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::route_spec;

const KINDS: &[&str] = &["equity", "sector-fund", "major", "crypto"];

/// Where an ingested series comes from: present only for ingested data, absent for the demo seed.
fn provenance() -> Vec<(&'static str, Value)> {
    vec![
        ("source", describe(string_enum(&["yahoo", "stooq"]), "The price source the series is read from.")),
        ("symbol", describe(string(), "The source's own symbol, for example `SPY.US` at Stooq.")),
        ("sourceUrl", describe(uri(), "The source's history page for the symbol.")),
        (
            "closeBasis",
            describe(
                string(),
                "Which close is served: Yahoo `Close` (split-adjusted only; `adjClose` is the dividend-adjusted \
                 one) or Stooq `Close` (split- and dividend-adjusted).",
            ),
        ),
        ("cik", describe(nullable(string()), "SEC CIK of the ticker when the host's company list knows it.")),
    ]
}

fn name() -> Value {
    describe(nullable(string()), "Name: the seed's, or the SEC's for an ingested ticker (null when unknown).")
}

fn kind() -> Value {
    describe(
        nullable(reference("PricesAssetKind")),
        "Asset class; null for ingested series (the price files do not say).",
    )
}

pub fn fragment() -> Value {
    let entry = object_with_optional(
        &[
            ("ticker", describe(string(), "Canonical ticker, for example `BRK.B` or `BTC-USD`.")),
            ("name", name()),
            ("kind", kind()),
            (
                "calendar",
                describe(
                    string_enum(&["weekdays", "daily", "trading-days"]),
                    "`daily` (demo crypto) has a close every calendar day; `weekdays` (demo) one Monday to Friday; \
                     `trading-days` (ingested) the days the source lists.",
                ),
            ),
            ("firstDate", describe(nullable(date()), "Date of the first close; null when the asset has none.")),
            ("lastDate", describe(nullable(date()), "Date of the last close; null when the asset has none.")),
            ("count", describe(integer(), "Number of closes held.")),
        ],
        &provenance(),
    );
    let list = object_with_optional(
        &[
            (
                "tickers",
                describe(
                    array(string()),
                    "Every covered ticker (one page of them with `limit`), sorted alphabetically.",
                ),
            ),
            ("note", describe(string(), "What the data is (demo data) and how to ask for a series.")),
            ("next", datahost_plugin_api::paging::next_schema()),
        ],
        &[
            ("count", describe(integer(), "Number of tickers returned (every covered ticker without `limit`).")),
            ("universe", describe(array(reference("PricesUniverseEntry")), "Per-ticker details, same order.")),
        ],
    );
    let point = object_with_optional(
        &[
            ("date", describe(date(), "Trading day.")),
            ("close", describe(number(), "Close in USD (the demo rounds to cents; ingested closes are as published).")),
        ],
        &[("adjClose", describe(number(), "Yahoo's `Adj Close` (splits and dividends); Yahoo series only."))],
    );
    let series = object_with_optional(
        &[
            ("ticker", describe(string(), "The canonical ticker, whatever case or separator was asked for.")),
            ("count", describe(integer(), "Number of closes returned.")),
            ("series", describe(array(reference("PricesPoint")), "Daily closes sorted by date ascending.")),
            ("next", datahost_plugin_api::paging::next_schema()),
        ],
        &[&[("name", name()), ("kind", kind()), ("note", describe(string(), "What the data is."))][..], &provenance()]
            .concat(),
    );
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
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![
            ("PricesAssetKind", string_enum(KINDS)),
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
