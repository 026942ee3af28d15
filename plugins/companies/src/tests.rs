//! Parser tests on the real SEC file in ../shared/corpus (values read by hand from the file) and on
//! hand-written malformed inputs.

use datahost_plugin_api::{Plugin, SourceFile};

use crate::Companies;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/sec-misc/company_tickers.json");

fn parse(bytes: &[u8]) -> Result<datahost_plugin_api::IngestBatch, datahost_plugin_api::Refusal> {
    Companies::ingest(&SourceFile { name: "t.json", bytes })
}

#[test]
fn reads_every_entry_of_the_real_company_tickers_file() {
    let Ok(bytes) = std::fs::read(CORPUS) else {
        eprintln!("corpus absent ({CORPUS}): skipping");
        return;
    };
    let batch = parse(&bytes).unwrap();
    assert_eq!(batch.format, "sec-company-tickers");
    // SOURCES.md: 9,610 entries; every ticker in this 2024 file is distinct.
    assert_eq!(batch.records.len(), 9610);
    assert!(batch.problems.is_empty(), "{:?}", &batch.problems[..batch.problems.len().min(3)]);
    // The file's first entries, read by hand: "0": MSFT 789019 "MICROSOFT CORP", "1": AAPL 320193 "Apple Inc.".
    let first = &batch.records[0];
    assert_eq!(first.key, "MSFT");
    assert_eq!(first.data, serde_json::json!({"cik": "0000789019", "ticker": "MSFT", "name": "MICROSOFT CORP"}));
    assert_eq!(batch.records[1].data["cik"], "0000320193");
    assert_eq!(batch.records[1].data["name"], "Apple Inc.");
    // GOOGL ("3") is listed before GOOG; both under Alphabet's CIK 1652044.
    let pos = |t: &str| batch.records.iter().position(|r| r.key == t).unwrap();
    assert!(pos("GOOGL") < pos("GOOG"));
    assert_eq!(batch.records[pos("GOOG")].data["cik"], "0001652044");
    // Parsing twice gives the same records (ingest is idempotent on keys and data).
    assert_eq!(parse(&bytes).unwrap(), batch);
}

#[test]
fn reads_the_exchange_variant() {
    // Hand-written in the shape of company_tickers_exchange.json (fields + data rows).
    let doc = br#"{"fields":["cik","name","ticker","exchange"],"data":[[320193,"Apple Inc.","AAPL","Nasdaq"],[1,"",null,null]]}"#;
    let batch = parse(doc).unwrap();
    assert_eq!(batch.format, "sec-company-tickers-exchange");
    assert_eq!(batch.records.len(), 1);
    assert_eq!(batch.records[0].data["exchange"], "Nasdaq");
    assert_eq!(batch.problems.len(), 1);
    assert_eq!(batch.problems[0].location, "/data/1");
}

#[test]
fn malformed_files_are_refused_whole_and_bad_entries_reported() {
    // Hand-written malformed inputs.
    let truncated = parse(br#"{"0":{"cik_str":320193,"ticker":"AAPL","#).unwrap_err();
    assert!(truncated.reason.contains("does not parse"), "{truncated}");
    assert_eq!(truncated.location.as_deref(), Some("line 1"));
    assert!(parse(b"[1,2]").unwrap_err().reason.contains("not a JSON object"));
    assert!(parse(br#"{"a": {}}"#).unwrap_err().reason.contains("positions"));
    let batch = parse(br#"{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},"1":{"cik_str":"x","ticker":"B","title":"B"}}"#)
        .unwrap();
    assert_eq!(batch.records.len(), 1);
    assert_eq!(batch.problems[0].location, "/1");
}

#[test]
fn manifest_declares_its_formats_and_no_routes() {
    let problems = datahost_plugin_api::testing::manifest_problems::<Companies>();
    assert!(problems.is_empty(), "{problems:?}");
}
