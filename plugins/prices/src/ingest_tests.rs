//! Parser tests on every corpus price file (values read by hand from the files with grep/sed/awk, line
//! numbers given), malformed and truncated inputs, idempotence, and ingest -> host -> `/v1/prices`.

use datahost_plugin_api::reference::CompanyRef;
use datahost_plugin_api::testing::{get, TestHost};
use datahost_plugin_api::{IngestBatch, Plugin, SourceFile};
use serde_json::Value;

use crate::{Prices, ROUTE};

fn corpus(file: &str) -> Option<Vec<u8>> {
    let path = format!("{}/../../../shared/corpus/prices/{file}", env!("CARGO_MANIFEST_DIR"));
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("corpus absent: skipping ({path})");
            None
        }
    }
}

fn parse(name: &str, bytes: &[u8]) -> IngestBatch {
    Prices::ingest(&SourceFile { name, bytes }).unwrap_or_else(|r| panic!("{name} refused: {r}"))
}

fn refusal(name: &str, text: &str) -> datahost_plugin_api::Refusal {
    Prices::ingest(&SourceFile { name, bytes: text.as_bytes() }).expect_err("must be refused")
}

/// (date, close) of a batch's first and last record.
fn ends(batch: &IngestBatch) -> ((String, f64), (String, f64)) {
    let at = |r: &datahost_plugin_api::IngestRecord| {
        (r.data["date"].as_str().unwrap().to_string(), r.data["close"].as_f64().unwrap())
    };
    (at(&batch.records[0]), at(batch.records.last().unwrap()))
}

/// Every corpus file: format, ticker, row count, first and last close, all read by hand from the file.
#[test]
fn every_corpus_file_is_read_whole() {
    // (file, format, ticker, rows, first date, first close, last date, last close)
    let cases = [
        // SPY.csv line 2 `2000-02-01,139.750000,141.687500,138.531250,140.937500,93.857681,...`, line 3175
        // (last, no newline) `2012-09-11,...,143.910004,119.965004,88760000`; 3174 data rows.
        ("SPY.csv", "yahoo-csv", "SPY", 3174, "2000-02-01", 140.9375, "2012-09-11", 143.910004),
        // AAPL.csv line 2 close 0.895089; line 3176 `2012-09-12,...,23.921070,20.597145,712233200`.
        ("AAPL.csv", "yahoo-csv", "AAPL", 3175, "2000-02-01", 0.895089, "2012-09-12", 23.92107),
        // GOOG.csv line 2 `2004-08-20,...,53.952770,53.952770,...`; last `2012-09-12,...,344.150055,...`.
        ("GOOG.csv", "yahoo-csv", "GOOG", 2032, "2004-08-20", 53.95277, "2012-09-12", 344.150055),
        // IBM.csv line 2 close 105.162521; last `2012-09-12,...,194.808792,137.767624,3435064`.
        ("IBM.csv", "yahoo-csv", "IBM", 3175, "2000-02-01", 105.162521, "2012-09-12", 194.808792),
        // spy.us.txt line 2 `SPY.US,D,20050225,000000,92.7949,93.8716,92.7097,93.6948,...`, line 5371
        // `SPY.US,D,20260702,000000,747.4,751.31,740.03,744.78,57395704,0`.
        ("spy.us.txt", "stooq-txt", "SPY", 5370, "2005-02-25", 93.6948, "2026-07-02", 744.78),
        // qqq.us.txt line 2 `QQQ.US,D,19990310,...,43.2932,...`; line 6871 `...,20260702,...,712.6,...`.
        ("qqq.us.txt", "stooq-txt", "QQQ", 6870, "1999-03-10", 43.2932, "2026-07-02", 712.6),
        // xlk.us.txt line 2 `XLK.US,D,20050225,...,8.18729,...`; line 5371 `...,20260702,...,180.59,...`.
        ("xlk.us.txt", "stooq-txt", "XLK", 5370, "2005-02-25", 8.18729, "2026-07-02", 180.59),
    ];
    for (file, format, ticker, rows, first_date, first_close, last_date, last_close) in cases {
        let Some(bytes) = corpus(file) else { return };
        let batch = parse(file, &bytes);
        assert_eq!(batch.format, format, "{file}");
        assert_eq!(batch.problems, vec![], "{file}");
        assert_eq!(batch.records.len(), rows, "{file}");
        assert!(batch.records.iter().all(|r| r.collection == "closes" && r.data["ticker"] == ticker), "{file}");
        assert_eq!(ends(&batch), ((first_date.into(), first_close), (last_date.into(), last_close)), "{file}");
    }
}

#[test]
fn yahoo_keeps_both_closes_and_stooq_its_symbol() {
    let Some(bytes) = corpus("SPY.csv") else { return };
    let batch = parse("prices/SPY.csv", &bytes);
    let last = batch.records.last().unwrap();
    // SPY.csv line 3175: Close 143.910004, Adj Close 119.965004.
    assert_eq!(last.key, "yahoo:SPY:2012-09-11");
    assert_eq!(last.group, "yahoo:SPY");
    assert_eq!(last.data["adjClose"], 119.965004);
    assert_eq!(last.data["symbol"], "SPY");
    assert!(batch.notes.iter().any(|n| n.contains("from the file name")), "{:?}", batch.notes);

    let Some(bytes) = corpus("xlk.us.txt") else { return };
    let batch = parse("whatever-name.txt", &bytes);
    let first = &batch.records[0];
    assert_eq!((first.key.as_str(), first.group.as_str()), ("stooq:XLK:2005-02-25", "stooq:XLK"));
    assert_eq!(first.data["symbol"], "XLK.US");
    assert!(first.data.get("adjClose").is_none(), "Stooq closes are already adjusted");
}

#[test]
fn the_same_file_gives_the_same_records() {
    let Some(bytes) = corpus("qqq.us.txt") else { return };
    assert_eq!(parse("qqq.us.txt", &bytes), parse("qqq.us.txt", &bytes));
}

#[test]
fn stooq_download_takes_its_ticker_from_the_file_name() {
    // Hand-written fixture in the layout of Stooq's per-ticker download (what `datahost sync` fetches).
    let text = "Date,Open,High,Low,Close,Volume\n2026-07-01,745,749.435,742.375,745.76,47100878\n\
                2026-07-02,747.4,751.31,740.03,744.78,57395704\n";
    let batch = parse("raw/prices/spy.csv", text.as_bytes());
    assert_eq!(batch.format, "stooq-csv");
    assert_eq!(batch.records.len(), 2);
    assert_eq!(batch.records[1].key, "stooq:SPY:2026-07-02");
    assert_eq!(batch.records[1].data["symbol"], "SPY.US");
}

#[test]
fn a_file_that_cannot_be_read_is_refused_whole_with_a_location() {
    // Hand-written malformed fixtures.
    let r = refusal("SPY.csv", "Ticker;Date;Close\nSPY;2026-07-02;744.78\n");
    assert_eq!(r.location.as_deref(), Some("line 1"));
    assert!(r.reason.contains("not a daily price file"), "{r}");
    let r = refusal("SPY.csv", "");
    assert_eq!(r.location.as_deref(), Some("line 1"));
    let r = refusal("SPY.csv", "Date,Open,High,Low,Close,Adj Close,Volume\n");
    assert!(r.reason.contains("no price rows"), "{r}");
    // A Yahoo file whose name is no ticker: the series cannot be attributed.
    let yahoo = "Date,Open,High,Low,Close,Adj Close,Volume\n2012-09-11,143.6,144.37,143.56,143.91,119.965,88760000";
    let r = refusal("download (1).csv", yahoo);
    assert!(r.reason.contains("is not one"), "{r}");
    // A download cut inside its last row.
    let Some(bytes) = corpus("spy.us.txt") else { return };
    let cut = &bytes[..bytes.len() - 30];
    let r = Prices::ingest(&SourceFile { name: "spy.us.txt", bytes: cut }).expect_err("truncated");
    assert_eq!(r.location.as_deref(), Some("line 5371"));
    assert!(r.reason.contains("truncated"), "{r}");
}

#[test]
fn unreadable_rows_are_reported_by_line_and_never_guessed() {
    // Hand-written fixture: Yahoo writes `null` for a day without data; a bad date; a duplicate day.
    let text = "Date,Open,High,Low,Close,Adj Close,Volume\n\
                2012-09-10,144.19,144.44,143.46,143.509995,119.631523,86458500\n\
                2012-09-11,null,null,null,null,null,null\n\
                2012-13-01,1,1,1,1,1,1\n\
                2012-09-10,144.19,144.44,143.46,143.51,119.63,86458500\n\
                2012-09-12,1,1,1,-2,1,1\n\
                2012-09-13,1,1,1,1,1,1";
    let batch = parse("SPY.csv", text.as_bytes());
    assert_eq!(batch.records.len(), 2);
    let lines: Vec<&str> = batch.problems.iter().map(|p| p.location.as_str()).collect();
    assert_eq!(lines, ["line 3", "line 4", "line 5", "line 6"]);
    assert!(batch.problems[0].message.contains("`null` is not a positive number"));
    assert!(batch.problems[2].message.contains("first on line 2"));
}

fn served(batches: &[IngestBatch]) -> Prices {
    let host = TestHost::new();
    host.set_ingested("prices", batches);
    host.set_companies(vec![CompanyRef { cik: "0000320193".into(), ticker: "AAPL".into(), name: "Apple Inc.".into() }]);
    host.init::<Prices>().expect("init on ingested prices")
}

#[test]
fn ingested_series_are_served_from_one_source_over_five_years() {
    let files = ["SPY.csv", "AAPL.csv", "spy.us.txt", "xlk.us.txt"];
    let Some(bytes) = files.iter().map(|f| corpus(f)).collect::<Option<Vec<_>>>() else { return };
    let batches: Vec<IngestBatch> = files.iter().zip(&bytes).map(|(f, b)| parse(f, b)).collect();
    let p = served(&batches);

    let (status, list) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["tickers"], serde_json::json!(["AAPL", "SPY", "XLK"]));
    assert!(!list["note"].as_str().unwrap().contains("DEMO"));
    let aapl = &list["universe"][0];
    assert_eq!((aapl["name"].as_str(), aapl["cik"].as_str()), (Some("Apple Inc."), Some("0000320193")));
    assert_eq!(aapl["kind"], Value::Null);
    assert_eq!(aapl["calendar"], "trading-days");

    // SPY: Stooq holds the later close (2026-07-02 against Yahoo's 2012-09-11), so the whole series is
    // Stooq's. Five years ending 2026-07-02 start after 2021-07-02: spy.us.txt line 4118
    // `SPY.US,D,20210706,000000,...,410.301,...` is the first (07-05 was the Independence Day holiday);
    // lines 4118-5371 are 1254 closes.
    let (_, spy) = get(&p, ROUTE, &[("ticker", "spy")]);
    assert_eq!(spy["count"], 1254);
    assert_eq!(spy["series"][0], serde_json::json!({"date": "2021-07-06", "close": 410.301}));
    assert_eq!(spy["series"][1253], serde_json::json!({"date": "2026-07-02", "close": 744.78}));
    assert_eq!(spy["source"], "stooq");
    assert_eq!(spy["sourceUrl"], "https://stooq.com/q/d/?s=spy.us");
    assert!(spy["closeBasis"].as_str().unwrap().contains("splits and dividends"));
    assert_eq!(spy["name"], Value::Null, "no company list entry for SPY: no name is invented");

    // AAPL: Yahoo only; five years ending 2012-09-12. AAPL.csv line 2497 `2010-01-04,...,7.643214,6.553025,...`.
    let (_, day) = get(&p, ROUTE, &[("ticker", "AAPL"), ("from", "2010-01-04"), ("to", "2010-01-04")]);
    assert_eq!(day["series"], serde_json::json!([{"date": "2010-01-04", "close": 7.643214, "adjClose": 6.553025}]));
    assert_eq!(day["source"], "yahoo");
    assert_eq!(day["sourceUrl"], "https://finance.yahoo.com/quote/AAPL/history/");
    assert!(day["closeBasis"].as_str().unwrap().contains("not for dividends"));
    let (_, aapl) = get(&p, ROUTE, &[("ticker", "AAPL")]);
    assert_eq!(aapl["series"][0]["date"], "2007-09-13", "the window starts the day after 2007-09-12");
    assert_eq!(aapl["name"], "Apple Inc.");
    let (status, _) = get(&p, ROUTE, &[("ticker", "GOOG")]);
    assert_eq!(status, 404, "GOOG was not ingested here; seed rows are never mixed in");
}
