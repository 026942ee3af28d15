//! Handler and generator tests on the generated demo seed, through the SDK's in-process test host.

use chrono::{Datelike, NaiveDate, Weekday};
use datahost_plugin_api::testing::{get, manifest_problems, plugin_with_own_seeds, TestHost};
use datahost_plugin_api::Plugin;
use datahost_plugin_kit::market::PriceSnapshot;
use serde_json::Value;

use crate::{Prices, ROUTE};

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn dates(body: &Value) -> Vec<NaiveDate> {
    body["series"].as_array().unwrap().iter().map(|p| d(p["date"].as_str().unwrap())).collect()
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Prices>(), Vec::<String>::new());
}

#[test]
fn seed_is_deterministic_and_labelled_demo() {
    // How fast the seed is made shows in the cold-start benchmark (tests/bench/run.sh), not here.
    let a = crate::seed::snapshot_json();
    assert_eq!(a, crate::seed::snapshot_json(), "same build, same closes");
    let snap: PriceSnapshot = serde_json::from_str(&a).unwrap();
    assert!(snap.problems().is_empty(), "{:?}", snap.problems());
    assert_eq!(snap.meta["demo"], true);
    assert!(snap.meta["caveat"].as_str().unwrap().starts_with("DEMO DATA"));
    let kinds = |k: &str| snap.assets.iter().filter(|a| a.kind == k).count();
    assert_eq!((kinds("equity"), kinds("sector-fund"), kinds("major"), kinds("crypto")), (20, 8, 4, 3));
    for a in &snap.assets {
        assert_eq!(a.last_date(), Some(d("2026-10-30")), "{}", a.ticker);
        for c in &a.closes {
            assert_eq!((c * 100.0).round() / 100.0, *c, "{} close {c} is not in cents", a.ticker);
        }
    }
    // Five years: 2021-10-31..2026-10-30 is 1826 days (2024 is a leap year), 1305 of them weekdays.
    assert_eq!(snap.asset("BTC-USD").unwrap().closes.len(), 1826);
    assert_eq!(snap.asset("SPY").unwrap().closes.len(), 1305);
    assert_eq!(snap.asset("SPY").unwrap().start, d("2021-11-01"));
    assert_eq!(snap.asset("ETH-USD").unwrap().start, d("2021-10-31"));
}

#[test]
fn list_shape_sorted_with_universe() {
    let p = plugin_with_own_seeds::<Prices>();
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200);
    let tickers: Vec<&str> = body["tickers"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let mut sorted = tickers.clone();
    sorted.sort();
    assert_eq!(tickers, sorted);
    assert_eq!(tickers.len(), 35);
    for t in ["SPY", "QQQ", "DIA", "IWM", "XLK", "XLF", "BTC-USD", "ETH-USD", "SOL-USD", "BRK.B", "NVDA"] {
        assert!(tickers.contains(&t), "{t} missing");
    }
    assert!(body["note"].as_str().unwrap().contains("DEMO DATA"));
    assert_eq!(body["count"], 35);
    let universe = body["universe"].as_array().unwrap();
    assert_eq!(universe.len(), 35);
    let btc = universe.iter().find(|u| u["ticker"] == "BTC-USD").unwrap();
    assert_eq!(btc["kind"], "crypto");
    assert_eq!(btc["calendar"], "daily");
    assert_eq!(btc["firstDate"], "2021-10-31");
    assert_eq!(btc["lastDate"], "2026-10-30");
    assert_eq!(btc["count"], 1826);
    let xlk = universe.iter().find(|u| u["ticker"] == "XLK").unwrap();
    assert_eq!((xlk["kind"].as_str(), xlk["calendar"].as_str()), (Some("sector-fund"), Some("weekdays")));
    assert_eq!(xlk["name"], "Technology Select Sector SPDR Fund");
}

#[test]
fn series_is_sorted_and_follows_the_calendar() {
    let p = plugin_with_own_seeds::<Prices>();
    let (status, spy) = get(&p, ROUTE, &[("ticker", "SPY")]);
    assert_eq!(status, 200);
    assert_eq!(spy["ticker"], "SPY");
    assert_eq!(spy["kind"], "major");
    assert_eq!(spy["count"], 1305);
    let ds = dates(&spy);
    assert_eq!(ds.len(), 1305);
    assert!(ds.windows(2).all(|w| w[0] < w[1]), "ascending");
    assert!(ds.iter().all(|d| !matches!(d.weekday(), Weekday::Sat | Weekday::Sun)), "weekdays only");
    assert_eq!((ds[0], ds[ds.len() - 1]), (d("2021-11-01"), d("2026-10-30")));
    assert!(spy["series"].as_array().unwrap().iter().all(|p| p["close"].as_f64().unwrap() > 0.0));

    let (_, btc) = get(&p, ROUTE, &[("ticker", "BTC-USD")]);
    let ds = dates(&btc);
    assert!(ds.windows(2).all(|w| (w[1] - w[0]).num_days() == 1), "crypto trades every day");
    assert!(ds.iter().any(|d| d.weekday() == Weekday::Sat));
}

#[test]
fn ticker_is_case_and_separator_insensitive_and_canonical() {
    let p = plugin_with_own_seeds::<Prices>();
    let (_, upper) = get(&p, ROUTE, &[("ticker", "XLK")]);
    let (_, lower) = get(&p, ROUTE, &[("ticker", " xlk ")]);
    assert_eq!(upper, lower);
    let (status, btc) = get(&p, ROUTE, &[("ticker", "btc-usd")]);
    assert_eq!(status, 200);
    assert_eq!(btc["ticker"], "BTC-USD");
    let (_, btc_dot) = get(&p, ROUTE, &[("ticker", "BTC.USD")]);
    assert_eq!(btc, btc_dot);
    let (_, brk) = get(&p, ROUTE, &[("ticker", "brk-b")]);
    assert_eq!(brk["ticker"], "BRK.B");
    assert_eq!(brk["count"], 1305);
}

#[test]
fn from_and_to_are_inclusive() {
    let p = plugin_with_own_seeds::<Prices>();
    // 2026-10-24/25 is a weekend: the weekday series has 2026-10-23 (Fri) .. 2026-10-30 (Fri) = 6 closes.
    let (_, week) = get(&p, ROUTE, &[("ticker", "SPY"), ("from", "2026-10-23"), ("to", "2026-10-30")]);
    assert_eq!(week["count"], 6);
    assert_eq!(
        dates(&week),
        vec![d("2026-10-23"), d("2026-10-26"), d("2026-10-27"), d("2026-10-28"), d("2026-10-29"), d("2026-10-30")]
    );
    let (_, btc) = get(&p, ROUTE, &[("ticker", "BTC-USD"), ("from", "2026-10-23"), ("to", "2026-10-30")]);
    assert_eq!(btc["count"], 8);
    let (_, one) = get(&p, ROUTE, &[("ticker", "SPY"), ("from", "2026-10-30"), ("to", "2026-10-30")]);
    assert_eq!(dates(&one), vec![d("2026-10-30")]);
    let (_, weekend) = get(&p, ROUTE, &[("ticker", "SPY"), ("from", "2026-10-24"), ("to", "2026-10-25")]);
    assert_eq!((weekend["count"].as_u64(), weekend["series"].as_array().unwrap().len()), (Some(0), 0));
    let (_, open_from) = get(&p, ROUTE, &[("ticker", "SPY"), ("from", "2026-10-29")]);
    assert_eq!(dates(&open_from), vec![d("2026-10-29"), d("2026-10-30")]);
    let (_, open_to) = get(&p, ROUTE, &[("ticker", "SPY"), ("to", "2021-11-02")]);
    assert_eq!(dates(&open_to), vec![d("2021-11-01"), d("2021-11-02")]);
    let (_, before) = get(&p, ROUTE, &[("ticker", "SPY"), ("to", "2020-01-01")]);
    assert_eq!(before["count"], 0);
    // The bounded series is a slice of the full one.
    let (_, full) = get(&p, ROUTE, &[("ticker", "SPY")]);
    let n = full["series"].as_array().unwrap().len();
    assert_eq!(week["series"].as_array().unwrap()[..], full["series"].as_array().unwrap()[n - 6..]);
}

#[test]
fn unknown_ticker_is_a_404_naming_it() {
    let p = plugin_with_own_seeds::<Prices>();
    let (status, body) = get(&p, ROUTE, &[("ticker", "zzzz")]);
    assert_eq!(status, 404);
    assert_eq!(body["code"], 404);
    assert!(body["error"].as_str().unwrap().contains("`zzzz`"), "{body}");
}

#[test]
fn bad_parameters_are_400_naming_the_rule() {
    let p = plugin_with_own_seeds::<Prices>();
    for (query, message) in [
        (vec![("ticker", "SPY"), ("from", "2026-13-01")], "from must be a date in YYYY-MM-DD form, got `2026-13-01`"),
        (vec![("ticker", "SPY"), ("to", "yesterday")], "to must be a date in YYYY-MM-DD form, got `yesterday`"),
        (vec![("ticker", "SPY"), ("from", "2026-3-1")], "from must be a date in YYYY-MM-DD form, got `2026-3-1`"),
        (
            vec![("ticker", "SPY"), ("from", "2026-10-30"), ("to", "2026-10-01")],
            "from (2026-10-30) must not be after to (2026-10-01)",
        ),
        (vec![("from", "bad")], "from must be a date in YYYY-MM-DD form, got `bad`"),
        (vec![("ticker", "S P Y")], "ticker must be letters, digits, '.', '-', '/', '^' or '=', got `S P Y`"),
    ] {
        let (status, body) = get(&p, ROUTE, &query);
        assert_eq!(status, 400, "{query:?}");
        assert_eq!(body["error"], message);
        assert_eq!(body["code"], 400);
    }
}

#[test]
fn init_rejects_a_broken_snapshot() {
    let host = TestHost::new();
    host.set_dataset(
        "prices",
        r#"{"meta": {}, "assets": [{"ticker": "SPY", "name": "S", "kind": "major", "calendar": "weekdays",
            "start": "2026-10-31", "closes": [1.0]}]}"#,
    );
    let err = host.init::<Prices>().err().unwrap().to_string();
    assert!(err.contains("not a weekdays trading day"), "{err}");
    assert!(Prices::seeds()[0].snapshot_json.len() > 100_000);
}
