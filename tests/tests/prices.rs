//! Black-box tests of `/v1/prices` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn ticker_list_shape() {
    let server = Server::start();
    let (status, body) = server.get("/v1/prices");
    assert_eq!(status, 200, "{body}");
    let tickers: Vec<&str> = body["tickers"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let mut sorted = tickers.clone();
    sorted.sort();
    assert_eq!(tickers, sorted);
    for t in ["SPY", "QQQ", "DIA", "IWM", "XLK", "BTC-USD", "ETH-USD", "SOL-USD", "AAPL"] {
        assert!(tickers.contains(&t), "{t} missing");
    }
    assert!(body["note"].as_str().unwrap().contains("DEMO DATA"));
    assert_eq!(body["universe"].as_array().unwrap().len(), tickers.len());
}

#[test]
fn series_sorted_case_insensitive_and_bounded() {
    let server = Server::start();
    let (status, body) = server.get("/v1/prices?ticker=spy");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ticker"], "SPY");
    let series = body["series"].as_array().unwrap();
    assert_eq!(body["count"].as_u64().unwrap() as usize, series.len());
    assert!(series.len() > 1200, "five years of weekdays");
    let dates: Vec<&str> = series.iter().map(|p| p["date"].as_str().unwrap()).collect();
    assert!(dates.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(*dates.last().unwrap(), "2026-10-30");
    assert!(series.iter().all(|p| p["close"].as_f64().unwrap() > 0.0));

    let (status, week) = server.get("/v1/prices?ticker=btc-usd&from=2026-10-24&to=2026-10-30");
    assert_eq!(status, 200, "{week}");
    assert_eq!(week["ticker"], "BTC-USD");
    assert_eq!(week["count"], 7, "crypto has a close every day, bounds inclusive");
    let (_, spy_week) = server.get("/v1/prices?ticker=SPY&from=2026-10-24&to=2026-10-30");
    assert_eq!(spy_week["count"], 5, "weekdays only");
    assert_eq!(spy_week["series"][0]["date"], "2026-10-26");
}

#[test]
fn bad_dates_are_400_and_unknown_ticker_404() {
    let server = Server::start();
    let (status, body) = server.get("/v1/prices?ticker=SPY&from=2026-02-30");
    assert_envelope(status, &body, 400);
    assert!(body["error"].as_str().unwrap().contains("from"), "{body}");
    let (status, body) = server.get("/v1/prices?ticker=SPY&from=2026-10-30&to=2026-01-01");
    assert_envelope(status, &body, 400);
    assert!(body["error"].as_str().unwrap().contains("must not be after"), "{body}");
    let (status, body) = server.get("/v1/prices?ticker=NOPE");
    assert_envelope(status, &body, 404);
    assert!(body["error"].as_str().unwrap().contains("NOPE"), "{body}");
}
