//! Backtest and handler tests. The numbers are checked by hand on a tiny price fixture fed through the test
//! host as the `prices` dataset, with a short lookback (5) and window (10) so that 50 days give 5 windows.
//!
//! Fixture (weekdays from Monday 2025-12-01, 50 closes: D[0] = 12-01 ... D[49] = 2026-02-06). For SPY, XLK and
//! XLE, close[i] = K[i / 5] + 0.01 × (i % 5), so the close on every index that is a multiple of 5 is K[i / 5]
//! and the last close (index 49) is K[9] + 0.04:
//!
//! | i/5 | 0   | 1   | 2   | 3   | 4   | 5   | 6   | 7   | 8   | 9   |
//! |-----|-----|-----|-----|-----|-----|-----|-----|-----|-----|-----|
//! | SPY | 400 | 404 | 408 | 412 | 400 | 404 | 410 | 420 | 416 | 400 |
//! | XLK | 100 | 110 | 105 | 99  | 100 | 90  | 95  | 100 | 104 | 98  |
//! | XLE | 50  | 52  | 55  | 60  | 57  | 56  | 54  | 50  | 51  | 53  |
//!
//! IWM (a major) starts late, on 2026-01-13 (D[31]), at 10 and rises 1 a day: close on D[i] = 10 + (i - 31).
//! BTC-USD (crypto, daily calendar) climbs from 100 by 100 a day: it would win every ranking, but crypto is
//! not in the pool. Windows start at s = 5, 15, 25, 35, 45; lookback points are s - 5; ends s + 10.
//!
//! | start (s)  | end          | trailing scores %                     | chosen | realized %     | SPY %            |
//! |------------|--------------|---------------------------------------|--------|----------------|------------------|
//! | 12-08 (5)  | 12-22        | XLK 110/100 +10, XLE 52/50 +4         | XLK    | 99/110 -10     | 412/404 +1.9802  |
//! | 12-22 (15) | 01-05        | XLK 99/105 -5.7143, XLE 60/55 +9.0909 | XLE    | 56/60 -6.6667  | 404/412 -1.9417  |
//! | 01-05 (25) | 01-19        | XLK 90/100 -10, XLE 56/57 -1.7544     | XLE    | 50/56 -10.7143 | 420/404 +3.9604  |
//! | 01-19 (35) | 02-02        | XLK 100/95 +5.2632, XLE 50/54 -7.4074 | XLK    | 98/100 -2      | 400/420 -4.7619  |
//! | 02-02 (45) | 02-16 (open) | IWM 24/19 +26.3158, XLE 53/51 +3.9216 | IWM    | 28/24 +16.6667 | 400.04/400 +0.01 |
//!
//! Windows are numbered 1-5 in row order. Window 5 is open: its end is projected (10 weekdays after 02-02)
//! and its returns run to the last close, 2026-02-06 (index 49). IWM has no close by the lookback points of
//! windows 1-4 (12-01, 12-15, 12-29, 01-12), so it is skipped there. With liveSince 2026-01-02, windows 1-2
//! are backfilled (firstLoggedAt 2026-01-02), 3-4 live closed, 5 live open. Window 3 is a not-long call that
//! fell (hit, did not beat SPY); window 4 a long call that fell (miss, beat SPY). Score: hitRate 1/2,
//! beatSpyRate 1/2, cumulative (50/56 × 98/100 - 1) = -12.5%,
//! SPY (420/404 × 400/420 - 1) = 400/404 - 1 = -0.9901%.

use chrono::NaiveDate;
use datahost_plugin_api::testing::{get, manifest_problems, TestHost};
use datahost_plugin_api::{BoxError, InitContext, Plugin};
use datahost_plugin_kit::market::{AssetSeries, Calendar, PriceSnapshot};
use serde_json::{json, Value};

use crate::backtest::Row;
use crate::data::Strategy;
use crate::{Predictions, ROUTE};

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn asset(ticker: &str, name: &str, kind: &str, calendar: Calendar, start: &str, closes: Vec<f64>) -> AssetSeries {
    AssetSeries { ticker: ticker.into(), name: name.into(), kind: kind.into(), calendar, start: d(start), closes }
}

fn market(snapshot: PriceSnapshot) -> crate::data::Market {
    crate::data::Market::from_snapshot(snapshot).expect("a valid snapshot")
}

fn blocks(k: [f64; 10]) -> Vec<f64> {
    (0..50).map(|i| k[i / 5] + 0.01 * (i % 5) as f64).collect()
}

fn fixture() -> PriceSnapshot {
    let weekdays = Calendar::Weekdays;
    PriceSnapshot {
        meta: json!({"demo": true}),
        assets: vec![
            asset(
                "BTC-USD",
                "Bitcoin",
                "crypto",
                Calendar::Daily,
                "2025-12-01",
                (0..70).map(|i| 100.0 * (1.0 + i as f64)).collect(),
            ),
            asset(
                "IWM",
                "iShares Russell 2000 ETF",
                "major",
                weekdays,
                "2026-01-13",
                (0..19).map(|j| 10.0 + j as f64).collect(),
            ),
            asset(
                "SPY",
                "SPDR S&P 500 ETF Trust",
                "major",
                weekdays,
                "2025-12-01",
                blocks([400., 404., 408., 412., 400., 404., 410., 420., 416., 400.]),
            ),
            asset(
                "XLE",
                "Energy Select Sector SPDR Fund",
                "sector-fund",
                weekdays,
                "2025-12-01",
                blocks([50., 52., 55., 60., 57., 56., 54., 50., 51., 53.]),
            ),
            asset(
                "XLK",
                "Technology Select Sector SPDR Fund",
                "sector-fund",
                weekdays,
                "2025-12-01",
                blocks([100., 110., 105., 99., 100., 90., 95., 100., 104., 98.]),
            ),
        ],
    }
}

fn fixture_config() -> Value {
    json!({"lookback_days": 5, "window_days": 10, "live_since": "2026-01-02"})
}

/// Initialises the plugin through the test host with `snapshot` as the `prices` dataset.
fn plugin_on(snapshot: &PriceSnapshot, config: Value) -> Result<Predictions, BoxError> {
    let host = TestHost::new();
    host.set_dataset("prices", &serde_json::to_string(snapshot).unwrap());
    Predictions::init(InitContext { host: host.host(), config })
}

fn fixture_plugin() -> Predictions {
    plugin_on(&fixture(), fixture_config()).expect("init on the fixture")
}

fn approx(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn manifest_is_valid_and_reads_prices() {
    assert_eq!(manifest_problems::<Predictions>(), Vec::<String>::new());
    let m = Predictions::manifest();
    assert_eq!(m.reads, vec!["prices".to_string()]);
    let description = m.openapi["paths"][ROUTE]["get"]["description"].as_str().unwrap();
    for needle in ["trend-preferred", "L = 60", "W = 20", "2026-01-02", "hitRate", "beatSpyRate", "null"] {
        assert!(description.contains(needle), "description lacks {needle}");
    }
}

#[test]
fn engine_windows_choices_and_returns_by_hand() {
    let strategy = Strategy::from_config(&fixture_config()).unwrap();
    let bt = crate::backtest::run(&market(fixture()), &strategy).unwrap();
    assert_eq!((bt.as_of, bt.data_end), (d("2026-02-06"), d("2026-02-06")));
    assert_eq!(bt.members, vec!["IWM", "XLE", "XLK"]);
    let expect = [
        // start, end, chosen, score, realized, spy, long, open, backfilled
        ("2025-12-08", "2025-12-22", "XLK", 10.0, -10.0, (412.0 / 404.0 - 1.0) * 100.0, true, false, true),
        (
            "2025-12-22",
            "2026-01-05",
            "XLE",
            (60.0 / 55.0 - 1.0) * 100.0,
            (56.0 / 60.0 - 1.0) * 100.0,
            (404.0 / 412.0 - 1.0) * 100.0,
            true,
            false,
            true,
        ),
        (
            "2026-01-05",
            "2026-01-19",
            "XLE",
            (56.0 / 57.0 - 1.0) * 100.0,
            (50.0 / 56.0 - 1.0) * 100.0,
            (420.0 / 404.0 - 1.0) * 100.0,
            false,
            false,
            false,
        ),
        (
            "2026-01-19",
            "2026-02-02",
            "XLK",
            (100.0 / 95.0 - 1.0) * 100.0,
            -2.0,
            (400.0 / 420.0 - 1.0) * 100.0,
            true,
            false,
            false,
        ),
        (
            "2026-02-02",
            "2026-02-16",
            "IWM",
            (24.0 / 19.0 - 1.0) * 100.0,
            (28.0 / 24.0 - 1.0) * 100.0,
            (400.04 / 400.0 - 1.0) * 100.0,
            true,
            true,
            false,
        ),
    ];
    assert_eq!(bt.rows.len(), expect.len());
    for (row, (start, end, chosen, score, realized, spy, long, open, backfilled)) in bt.rows.iter().zip(expect) {
        let ctx = format!("window starting {start}");
        assert_eq!(row.window_start, d(start), "{ctx}");
        assert_eq!(row.window_end, d(end), "{ctx}");
        assert_eq!(row.chosen_id, chosen, "{ctx}");
        assert!(approx(row.trailing_score, score), "{ctx}: score {} vs {score}", row.trailing_score);
        assert!(approx(row.realized_return_pct, realized), "{ctx}: realized {} vs {realized}", row.realized_return_pct);
        assert!(approx(row.spy_return_pct, spy), "{ctx}: spy {} vs {spy}", row.spy_return_pct);
        assert_eq!((row.predicted_long, row.open, row.backfilled), (long, open, backfilled), "{ctx}");
        assert_eq!(row.pool, "trend-preferred");
        let logged = if backfilled { d("2026-01-02") } else { d(start) };
        assert_eq!(row.first_logged_at, logged, "{ctx}");
        assert_eq!(row.realized_through, if open { d("2026-02-06") } else { d(end) }, "{ctx}");
    }
    let hits: Vec<bool> = bt.rows.iter().map(Row::hit).collect();
    assert_eq!(hits, vec![false, false, true, false, true]);
    let beats: Vec<bool> = bt.rows.iter().map(Row::beat_spy).collect();
    assert_eq!(beats, vec![false, false, false, true, true]);

    let s = &bt.score;
    assert_eq!((s.total_windows, s.live_closed, s.live_open, s.backfilled), (5, 2, 1, 2));
    assert_eq!((s.hit_rate, s.beat_spy_rate), (Some(0.5), Some(0.5)));
    assert!(approx(s.cumulative_return_pct.unwrap(), -12.5), "{:?}", s.cumulative_return_pct);
    assert!(approx(s.cumulative_spy_pct.unwrap(), (400.0 / 404.0 - 1.0) * 100.0), "{:?}", s.cumulative_spy_pct);
}

#[test]
fn response_rounds_to_four_places_newest_first() {
    let p = fixture_plugin();
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200);
    assert_eq!(body["asOf"], "2026-02-06");
    assert_eq!(body["dataEnd"], "2026-02-06");
    assert_eq!(body["count"], 5);
    let rows = body["rows"].as_array().unwrap();
    let starts: Vec<&str> = rows.iter().map(|r| r["windowStart"].as_str().unwrap()).collect();
    assert_eq!(starts, ["2026-02-02", "2026-01-19", "2026-01-05", "2025-12-22", "2025-12-08"]);
    assert_eq!(
        rows[0],
        json!({
            "windowStart": "2026-02-02", "windowEnd": "2026-02-16", "firstLoggedAt": "2026-02-02",
            "chosenId": "IWM", "chosenLabel": "iShares Russell 2000 ETF", "pool": "trend-preferred",
            "trailingScore": 26.3158, "realizedReturnPct": 16.6667, "spyReturnPct": 0.01,
            "predictedLong": true, "open": true, "backfilled": false, "realizedThrough": "2026-02-06"
        })
    );
    assert_eq!(
        rows[2],
        json!({
            "windowStart": "2026-01-05", "windowEnd": "2026-01-19", "firstLoggedAt": "2026-01-05",
            "chosenId": "XLE", "chosenLabel": "Energy Select Sector SPDR Fund", "pool": "trend-preferred",
            "trailingScore": -1.7544, "realizedReturnPct": -10.7143, "spyReturnPct": 3.9604,
            "predictedLong": false, "open": false, "backfilled": false, "realizedThrough": "2026-01-19"
        })
    );
    assert_eq!(
        rows[3],
        json!({
            "windowStart": "2025-12-22", "windowEnd": "2026-01-05", "firstLoggedAt": "2026-01-02",
            "chosenId": "XLE", "chosenLabel": "Energy Select Sector SPDR Fund", "pool": "trend-preferred",
            "trailingScore": 9.0909, "realizedReturnPct": -6.6667, "spyReturnPct": -1.9417,
            "predictedLong": true, "open": false, "backfilled": true, "realizedThrough": "2026-01-05"
        })
    );
    let pick = |i: usize, f: &str| rows[i][f].as_f64().unwrap();
    assert_eq!(
        (pick(1, "trailingScore"), pick(1, "realizedReturnPct"), pick(1, "spyReturnPct")),
        (5.2632, -2.0, -4.7619)
    );
    assert_eq!(
        (pick(4, "trailingScore"), pick(4, "realizedReturnPct"), pick(4, "spyReturnPct")),
        (10.0, -10.0, 1.9802)
    );
    assert_eq!(
        body["score"],
        json!({
            "totalWindows": 5, "liveClosed": 2, "liveOpen": 1, "backfilled": 2,
            "hitRate": 0.5, "beatSpyRate": 0.5, "cumulativeReturnPct": -12.5, "cumulativeSpyPct": -0.9901
        })
    );
    assert_eq!(body["strategy"]["members"], json!(["IWM", "XLE", "XLK"]));
    assert_eq!(
        (body["strategy"]["lookbackDays"].as_u64(), body["strategy"]["windowDays"].as_u64()),
        (Some(5), Some(10))
    );
    assert_eq!(body["strategy"]["liveSince"], "2026-01-02");
    assert!(body["note"].as_str().unwrap().contains("DEMO DATA"));
}

#[test]
fn open_filter_and_limit() {
    let p = fixture_plugin();
    let (_, open) = get(&p, ROUTE, &[("open", "true")]);
    let rows = open["rows"].as_array().unwrap();
    assert_eq!((open["count"].as_u64(), rows.len()), (Some(1), 1));
    assert_eq!(rows[0]["open"], true);
    let (_, closed) = get(&p, ROUTE, &[("open", "FALSE")]);
    assert_eq!(closed["count"], 4);
    assert!(closed["rows"].as_array().unwrap().iter().all(|r| r["open"] == false));
    // The score never depends on the filters.
    assert_eq!(open["score"], closed["score"]);
    let (_, two) = get(&p, ROUTE, &[("limit", "2")]);
    let starts: Vec<&str> =
        two["rows"].as_array().unwrap().iter().map(|r| r["windowStart"].as_str().unwrap()).collect();
    assert_eq!(starts, ["2026-02-02", "2026-01-19"]);
    let (_, closed_one) = get(&p, ROUTE, &[("open", "false"), ("limit", "1")]);
    assert_eq!(closed_one["rows"][0]["windowStart"], "2026-01-19");
}

#[test]
fn limit_defaults_to_100_and_clamps_at_1000() {
    // 1,500 weekdays, lookback 1 and window 1: one window per day after the first, 1,499 in all.
    let n = 1500;
    let wave = |phase: f64| (0..n).map(|i| 100.0 + 10.0 * ((i as f64) / 7.0 + phase).sin()).collect::<Vec<f64>>();
    let snap = PriceSnapshot {
        meta: json!({}),
        assets: vec![
            asset("SPY", "SPDR S&P 500 ETF Trust", "major", Calendar::Weekdays, "2020-01-01", wave(0.0)),
            asset(
                "XLF",
                "Financial Select Sector SPDR Fund",
                "sector-fund",
                Calendar::Weekdays,
                "2020-01-01",
                wave(1.0),
            ),
        ],
    };
    let p = plugin_on(&snap, json!({"lookback_days": 1, "window_days": 1})).unwrap();
    let (_, default) = get(&p, ROUTE, &[]);
    assert_eq!(default["count"], 100);
    assert_eq!(default["score"]["totalWindows"], 1499);
    let (_, clamped) = get(&p, ROUTE, &[("limit", "1000000")]);
    assert_eq!(clamped["count"], 1000);
    assert!(!default["note"].as_str().unwrap().contains("DEMO"), "not demo data: no demo label");
}

#[test]
fn score_is_null_without_closed_live_windows() {
    let p = plugin_on(&fixture(), json!({"lookback_days": 5, "window_days": 10, "live_since": "2027-01-01"})).unwrap();
    let (_, body) = get(&p, ROUTE, &[]);
    assert_eq!(
        body["score"],
        json!({
            "totalWindows": 5, "liveClosed": 0, "liveOpen": 0, "backfilled": 5,
            "hitRate": null, "beatSpyRate": null, "cumulativeReturnPct": null, "cumulativeSpyPct": null
        })
    );
    assert!(body["rows"].as_array().unwrap().iter().all(|r| r["firstLoggedAt"] == "2027-01-01"));

    // Everything live: all four closed windows count (one hit and one beat of four; compounding all four).
    let p = plugin_on(&fixture(), json!({"lookback_days": 5, "window_days": 10, "live_since": "2020-01-01"})).unwrap();
    let (_, body) = get(&p, ROUTE, &[]);
    let s = &body["score"];
    assert_eq!((s["liveClosed"].as_u64(), s["backfilled"].as_u64()), (Some(4), Some(0)));
    assert_eq!(s["hitRate"], 0.25);
    assert_eq!(s["beatSpyRate"], 0.25);
    let cumulative = (0.9 * (56.0 / 60.0) * (50.0 / 56.0) * 0.98 - 1.0) * 100.0;
    assert_eq!(s["cumulativeReturnPct"].as_f64().unwrap(), (cumulative * 10_000.0_f64).round() / 10_000.0);
    assert_eq!(s["cumulativeReturnPct"], -26.5, "0.9 × 50/60 × 0.98 = 0.735");

    // Too little data for a single lookback: no rows at all, nulls again.
    let p = plugin_on(&fixture(), json!({"lookback_days": 60})).unwrap();
    let (_, body) = get(&p, ROUTE, &[]);
    assert_eq!((body["count"].as_u64(), body["score"]["totalWindows"].as_u64()), (Some(0), Some(0)));
    assert_eq!(body["score"]["hitRate"], Value::Null);
}

#[test]
fn ties_go_to_the_alphabetically_first_ticker() {
    let flat = |v: f64| vec![v; 12];
    let snap = PriceSnapshot {
        meta: json!({}),
        assets: vec![
            asset(
                "XLU",
                "Utilities Select Sector SPDR Fund",
                "sector-fund",
                Calendar::Weekdays,
                "2026-01-05",
                flat(70.0),
            ),
            asset("SPY", "SPDR S&P 500 ETF Trust", "major", Calendar::Weekdays, "2026-01-05", flat(500.0)),
            asset(
                "XLB",
                "Materials Select Sector SPDR Fund",
                "sector-fund",
                Calendar::Weekdays,
                "2026-01-05",
                flat(90.0),
            ),
        ],
    };
    let bt = crate::backtest::run(&market(snap), &Strategy { lookback_days: 2, window_days: 5, ..Strategy::default() })
        .unwrap();
    assert!(bt.rows.iter().all(|r| r.chosen_id == "XLB" && r.trailing_score == 0.0 && !r.predicted_long));
    // Flat prices: a not-long call on a 0% window is a hit; 0% does not beat SPY's 0%.
    assert!(bt.rows.iter().all(|r| r.hit() && !r.beat_spy()));
}

#[test]
fn bad_parameters_are_400_naming_the_rule() {
    let p = fixture_plugin();
    for (query, message) in [
        (("open", "yes"), "open must be true or false, got `yes`"),
        (("open", "1"), "open must be true or false, got `1`"),
        (("limit", "0"), "limit must be a positive integer, got `0`"),
        (("limit", "-5"), "limit must be a positive integer, got `-5`"),
        (("limit", "ten"), "limit must be a positive integer, got `ten`"),
    ] {
        let (status, body) = get(&p, ROUTE, &[query]);
        assert_eq!(status, 400, "{query:?}");
        assert_eq!(body["error"], message);
        assert_eq!(body["code"], 400);
    }
}

#[test]
fn init_reports_missing_or_unusable_prices() {
    let host = TestHost::new();
    let err = host.init::<Predictions>().err().unwrap().to_string();
    assert!(err.contains("prices"), "{err}");
    let mut no_spy = fixture();
    no_spy.assets.retain(|a| a.ticker != "SPY");
    assert_eq!(plugin_on(&no_spy, json!({})).err().unwrap().to_string(), "the prices dataset has no SPY series");
    for (config, message) in [
        (json!({"window_days": 0}), "predictions config `window_days` must be an integer from 1 to 10000, got 0"),
        (
            json!({"lookback_days": "60"}),
            "predictions config `lookback_days` must be an integer from 1 to 10000, got \"60\"",
        ),
        (json!({"live_since": "soon"}), "predictions config `live_since` must be a YYYY-MM-DD date, got \"soon\""),
    ] {
        assert_eq!(plugin_on(&fixture(), config).err().unwrap().to_string(), message);
    }
}

#[test]
fn default_strategy_on_five_years_of_weekdays() {
    // 1,305 weekdays from 2021-11-01 to 2026-10-30 (the demo prices' length) with default parameters:
    // windows start at indices 60, 80, ..., 1300 (63 windows); the last is open (1300 + 20 > 1304).
    let n = 1305;
    let trend = |rate: f64| (0..n).map(|i| 100.0 * (1.0 + rate).powi(i)).collect::<Vec<f64>>();
    let snap = PriceSnapshot {
        meta: json!({"demo": true}),
        assets: vec![
            asset("SPY", "SPDR S&P 500 ETF Trust", "major", Calendar::Weekdays, "2021-11-01", trend(0.0003)),
            asset("QQQ", "Invesco QQQ Trust", "major", Calendar::Weekdays, "2021-11-01", trend(0.0005)),
            asset(
                "XLP",
                "Consumer Staples Select Sector SPDR Fund",
                "sector-fund",
                Calendar::Weekdays,
                "2021-11-01",
                trend(0.0001),
            ),
        ],
    };
    let p = plugin_on(&snap, json!({})).unwrap();
    let (_, body) = get(&p, ROUTE, &[("limit", "1000")]);
    assert_eq!(body["dataEnd"], "2026-10-30");
    let rows = body["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 63);
    assert!(rows.iter().all(|r| r["chosenId"] == "QQQ"
        && r["predictedLong"] == true
        && r["realizedReturnPct"].as_f64().unwrap() > 0.0));
    assert_eq!(rows[0]["open"], true);
    assert_eq!(rows[0]["realizedThrough"], "2026-10-30");
    assert_eq!(rows[62]["windowStart"], "2022-01-24", "index 60 = 12 weeks after 2021-11-01");
    let s = &body["score"];
    assert_eq!(s["totalWindows"], 63);
    assert_eq!(s["liveOpen"], 1);
    assert_eq!(s["hitRate"], 1.0);
    assert_eq!(s["beatSpyRate"], 1.0);
    // The first start on or after 2026-01-02 is index 1100 (2026-01-19; index 1080 is 2025-12-22), so the
    // closed live windows start at 1100, 1120, ..., 1280: ten of them; the other 52 were backfilled.
    assert_eq!(s["liveClosed"], 10);
    assert_eq!(s["backfilled"], 52);
    assert_eq!(rows[10]["windowStart"], "2026-01-19");
    assert_eq!(rows[10]["backfilled"], false);
    assert_eq!(rows[11]["backfilled"], true);
    assert_eq!(rows[11]["firstLoggedAt"], "2026-01-02");
}

/// The corpus Stooq file as the prices plugin stores it once ingested: one `closes` record per row
/// (`{ticker, symbol, source, date, close}`). Read here with a test-side reader (plugin crates cannot
/// depend on each other), so the test does not trust either plugin's parser.
fn stooq_batch(file: &str) -> Option<datahost_plugin_api::IngestBatch> {
    let path = format!("{}/../../../shared/corpus/prices/{file}", env!("CARGO_MANIFEST_DIR"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("corpus absent: skipping ({path})");
        return None;
    };
    let records = text
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.trim_end().split(',').collect();
            let ticker = f[0].trim_end_matches(".US");
            let date = NaiveDate::parse_from_str(f[2], "%Y%m%d").unwrap();
            let data = json!({"ticker": ticker, "symbol": f[0], "source": "stooq", "date": date,
                              "close": f[7].parse::<f64>().unwrap()});
            datahost_plugin_api::IngestRecord::new("closes", format!("stooq:{ticker}:{date}"), "g", data).unwrap()
        })
        .collect();
    Some(datahost_plugin_api::IngestBatch { format: "stooq-txt".into(), records, ..Default::default() })
}

#[test]
fn recomputed_from_ingested_real_prices() {
    let Some(batches) =
        ["spy.us.txt", "qqq.us.txt", "xlk.us.txt"].iter().map(|f| stooq_batch(f)).collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let host = TestHost::new();
    host.set_ingested("prices", &batches);
    let p = host.init::<Predictions>().expect("init on ingested prices");
    let (status, body) = get(&p, ROUTE, &[("limit", "1000")]);
    assert_eq!(status, 200, "{body}");
    // SPY's five years ending 2026-07-02 are spy.us.txt lines 4118 (2021-07-06) to 5371: 1254 days, so
    // windows start at indices 60, 80, ..., 1240: 60 windows, the last one open (1240 + 20 > 1253).
    assert_eq!(body["dataEnd"], "2026-07-02");
    assert_eq!(body["strategy"]["members"], json!(["QQQ", "XLK"]));
    assert!(!body["note"].as_str().unwrap().contains("DEMO"));
    let rows = body["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 60);
    // The open window starts at D[1240] = line 5358 (2026-06-12); its lookback point is D[1180] = line 5298
    // (2026-03-18). Closes read from the files:
    //   QQQ 2026-03-18 594.9, 2026-06-12 721.34  -> (721.34 / 594.9 - 1) x 100 = 21.2540
    //   XLK 2026-03-18 137.96, 2026-06-12 184.8  -> (184.8 / 137.96 - 1) x 100 = 33.9519 (chosen)
    //   XLK 2026-07-02 180.59 -> realized (180.59 / 184.8 - 1) x 100 = -2.2781
    //   SPY 2026-06-12 741.75, 2026-07-02 744.78 -> (744.78 / 741.75 - 1) x 100 = 0.4085
    // windowEnd: 1260 - 1253 = 7 weekdays after Thursday 2026-07-02 = Monday 2026-07-13.
    let open = &rows[0];
    assert_eq!(open["windowStart"], "2026-06-12");
    assert_eq!(open["windowEnd"], "2026-07-13");
    assert_eq!(open["open"], true);
    assert_eq!(open["chosenId"], "XLK");
    assert_eq!(open["chosenLabel"], "XLK", "no company list: the label is the ticker, not an invented name");
    assert_eq!(open["trailingScore"], 33.9519);
    assert_eq!(open["realizedReturnPct"], -2.2781);
    assert_eq!(open["spyReturnPct"], 0.4085);
    assert_eq!(open["realizedThrough"], "2026-07-02");
    assert_eq!(rows[59]["windowStart"], "2021-09-29", "D[60]");
}
