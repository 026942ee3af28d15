//! Parser tests on the real Senate Stock Watcher files of the shared corpus, malformed inputs, idempotence,
//! and ingest -> serve through the in-process test host. Every value asserted on a corpus file was read from
//! the file itself (grep / a JSON viewer), not from the parser's output.

use std::collections::HashMap;

use datahost_plugin_api::testing::{get, TestHost};
use datahost_plugin_api::{IngestBatch, Plugin, SourceFile};
use serde_json::{json, Value};

use crate::ingest::{FILINGS, FLAT, REPORTS, SENATORS, TRANSACTIONS};
use crate::{SenateTrades, ROUTE, SLUG};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/senate-stock-watcher/");
const ROSEN_PFE: &str = "3152e433-26a5-4926-80af-3bb78ea21833";
const WYDEN_LATEST: &str = "c4771ad7-1434-4eb6-a5b8-d53fa8f70249";
const BLUMENTHAL_PAPER: &str = "2a123633-1454-49ff-8c3b-c4028372a119";
const INHOFE_OVER_50M: &str = "b8620849-e0af-4f18-8f25-4ec696180b92";

/// The corpus file parsed, or `None` (with a note) when the corpus is not on this machine.
fn corpus(name: &str) -> Option<IngestBatch> {
    let Ok(bytes) = std::fs::read(format!("{CORPUS}{name}")) else {
        eprintln!("corpus absent: skipping");
        return None;
    };
    Some(SenateTrades::ingest(&SourceFile { name, bytes: &bytes }).expect("corpus file parses"))
}

fn parse(text: &str) -> Result<IngestBatch, datahost_plugin_api::Refusal> {
    SenateTrades::ingest(&SourceFile { name: "fixture.json", bytes: text.as_bytes() })
}

fn count(batch: &IngestBatch, collection: &str) -> usize {
    batch.records.iter().filter(|r| r.collection == collection).count()
}

fn record<'a>(batch: &'a IngestBatch, collection: &str, key: &str) -> &'a Value {
    &batch.records.iter().find(|r| r.collection == collection && r.key == key).expect(key).data
}

#[test]
fn flat_file_every_row_read() {
    let Some(batch) = corpus("all_transactions.json") else { return };
    assert_eq!(batch.format, FLAT);
    // SOURCES.md: 8,372 rows, of which 463 are `N/A` rows; grep: 463 distinct /paper/ links, 954 /ptr/ links.
    assert_eq!(batch.problems, vec![]);
    assert_eq!(count(&batch, TRANSACTIONS), 8372 - 463);
    assert_eq!(count(&batch, FILINGS), 463);
    assert_eq!(count(&batch, REPORTS), 954, "one per /ptr/ report with rows");
    let groups: std::collections::HashSet<&str> = batch.records.iter().map(|r| r.group.as_str()).collect();
    assert_eq!(groups.len(), 954 + 463);
    assert!(batch.records.iter().all(|r| r.lineage.is_none() && !r.amendment));

    // [0]: {"transaction_date": "11/17/2020", "owner": "Joint", "ticker": "PFE", "asset_description": "Pfizer
    // Inc. (Exchanged) <br> Viatris Inc. (Received)", "asset_type": "Stock", "type": "Exchange", "amount":
    // "$1,001 - $15,000", "comment": "--", "senator": "Jacklyn S Rosen", "ptr_link": ".../ptr/3152e433-.../"}
    let pfe = record(&batch, TRANSACTIONS, &format!("{ROSEN_PFE}/1"));
    assert_eq!(
        pfe,
        &json!({"docId": ROSEN_PFE, "member": "Jacklyn S Rosen", "row": 1,
            "sourceUrl": format!("https://efdsearch.senate.gov/search/view/ptr/{ROSEN_PFE}/"),
            "ticker": "PFE", "asset": "Pfizer Inc. (Exchanged) Viatris Inc. (Received)", "type": "exchange",
            "amountRange": "$1,001 - $15,000", "date": "2020-11-17", "owner": "Joint", "assetType": "Stock",
            "comment": ""})
    );
    // The only `Over $50,000,000` row: Inhofe, 10/05/2015, ticker `--`, asset "WFM", Sale (Full), Self.
    let over = batch.records.iter().find(|r| r.data["amountRange"] == "Over $50,000,000").unwrap();
    assert_eq!(over.group, INHOFE_OVER_50M);
    assert_eq!((&over.data["ticker"], &over.data["asset"]), (&json!(""), &json!("WFM")));
    assert_eq!((&over.data["type"], &over.data["date"]), (&json!("sale"), &json!("2015-10-05")));
    // The paper placeholder row of Blumenthal's report: transaction_date 12/02/2020 is its date received.
    assert_eq!(
        record(&batch, FILINGS, BLUMENTHAL_PAPER),
        &json!({"docId": BLUMENTHAL_PAPER, "member": "Richard Blumenthal", "filedDate": "2020-12-02", "paper": true,
            "sourceUrl": format!("https://efdsearch.senate.gov/search/view/paper/{BLUMENTHAL_PAPER}/")})
    );
    // SOURCES.md: Purchase 4,102; Sale (Full) 2,005; Sale (Partial) 1,715; Exchange 87.
    let types = |t: &str| batch.records.iter().filter(|r| r.data["type"] == t).count();
    assert_eq!((types("purchase"), types("sale"), types("sale (partial)"), types("exchange")), (4102, 2005, 1715, 87));
}

#[test]
fn per_senator_file_every_row_read() {
    let Some(batch) = corpus("all_transactions_for_senators.json") else { return };
    assert_eq!(batch.format, SENATORS);
    // 68 filers; 8,515 entries = 8,052 trade rows (986 /ptr/ links) + 463 scanned_pdf entries. The filers'
    // own links are 53 /ptr/ and 15 /paper/ ones (the latter also listed as scanned_pdf): 516 dated reports.
    assert_eq!(batch.problems, vec![]);
    assert_eq!(count(&batch, TRANSACTIONS), 8052);
    assert_eq!(count(&batch, FILINGS), 516);
    assert_eq!(count(&batch, REPORTS), 986, "one per /ptr/ report with rows");
    // [0] Ron L Wyden, ptr_link .../c4771ad7-.../, date_recieved 04/09/2021; transactions[0]: 04/06/2021,
    // Spouse, <a ...>AMAT</a>, "Applied Materials, Inc.", Stock, Sale (Partial), $100,001 - $250,000.
    let wyden = record(&batch, FILINGS, WYDEN_LATEST);
    assert_eq!(
        (&wyden["filedDate"], &wyden["paper"], &wyden["member"]),
        (&json!("2021-04-09"), &json!(false), &json!("Ron L Wyden"))
    );
    let amat = record(&batch, TRANSACTIONS, &format!("{WYDEN_LATEST}/1"));
    assert_eq!(
        (&amat["ticker"], &amat["asset"], &amat["type"]),
        (&json!("AMAT"), &json!("Applied Materials, Inc."), &json!("sale (partial)"))
    );
    assert_eq!(
        (&amat["date"], &amat["owner"], &amat["amountRange"]),
        (&json!("2021-04-06"), &json!("Spouse"), &json!("$100,001 - $250,000"))
    );
    // grep: the report holds 8 transaction rows.
    assert_eq!(batch.records.iter().filter(|r| r.collection == TRANSACTIONS && r.group == WYDEN_LATEST).count(), 8);
    // Its report record: the 8 rows, all dated 04/06/2021.
    assert_eq!(
        record(&batch, REPORTS, WYDEN_LATEST),
        &json!({"docId": WYDEN_LATEST, "member": "Ron L Wyden", "latestTradeDate": "2021-04-06", "tradeRows": 8,
            "sourceUrl": format!("https://efdsearch.senate.gov/search/view/ptr/{WYDEN_LATEST}/")})
    );
    // Rosen's filer record states date_recieved 12/10/2020 for report 3152e433-....
    assert_eq!(record(&batch, FILINGS, ROSEN_PFE)["filedDate"], "2020-12-10");
    assert_eq!(record(&batch, FILINGS, BLUMENTHAL_PAPER)["filedDate"], "2020-12-02");
}

#[test]
fn both_files_give_the_same_key_and_data_for_the_same_trade() {
    let (Some(flat), Some(senators)) = (corpus("all_transactions.json"), corpus("all_transactions_for_senators.json"))
    else {
        return;
    };
    let by_key: HashMap<(&str, &str), &Value> =
        senators.records.iter().map(|r| ((r.collection.as_str(), r.key.as_str()), &r.data)).collect();
    let mut shared = 0;
    for r in &flat.records {
        let other =
            by_key.get(&(r.collection.as_str(), r.key.as_str())).expect("every flat report is in the per-senator file");
        assert_eq!(&r.data, *other, "{}", r.key);
        shared += 1;
    }
    assert_eq!(shared, flat.records.len());
    // An exchange whose per-senator cell is `-- <br> <a>DIS</a>` and whose flat cell is `DIS`.
    assert!(flat.records.iter().any(|r| r.data["ticker"] == "DIS" && r.data["type"] == "exchange"));
}

#[test]
fn parsing_is_idempotent() {
    let Some(first) = corpus("all_transactions_for_senators.json") else { return };
    let second = corpus("all_transactions_for_senators.json").unwrap();
    assert_eq!(first, second);
}

#[test]
fn unreadable_rows_are_problems_with_their_json_path() {
    // Hand-written malformed fixture: a good row, a bad date, an unknown type, a bad amount, a link that is not
    // an eFD report, a non-object, a missing field.
    let row = |date: &str, kind: &str, amount: &str, link: &str| {
        json!({"transaction_date": date, "owner": "Self", "ticker": "IBM", "asset_description": "IBM",
            "asset_type": "Stock", "type": kind, "amount": amount, "comment": "--", "senator": "A B",
            "ptr_link": link})
    };
    let link = "https://efdsearch.senate.gov/search/view/ptr/abc-1/";
    let mut missing = row("01/02/2020", "Purchase", "$1,001 - $15,000", link);
    missing.as_object_mut().unwrap().remove("owner");
    let fixture = json!([
        row("01/02/2020", "Purchase", "$1,001 - $15,000", link),
        row("13/45/2020", "Purchase", "$1,001 - $15,000", link),
        row("01/02/2020", "Gift", "$1,001 - $15,000", link),
        row("01/02/2020", "Purchase", "$1,001 -", link),
        row("01/02/2020", "Purchase", "$1,001 - $15,000", "https://example.com/x"),
        "not a row",
        missing,
        row("01/03/2020", "Sale (Full)", "$1,001 - $15,000", link),
    ]);
    let batch = parse(&fixture.to_string()).unwrap();
    let problems: Vec<(&str, &str)> =
        batch.problems.iter().map(|p| (p.location.as_str(), p.message.as_str())).collect();
    assert_eq!(
        problems,
        vec![
            ("[1].transaction_date", "`13/45/2020` is not a date MM/DD/YYYY"),
            ("[2].type", "unknown transaction type `Gift`"),
            ("[3].amount", "`$1,001 -` is not an amount range such as `$1,001 - $15,000`"),
            ("[4].ptr_link", "`https://example.com/x` is not an eFD report link (.../search/view/ptr/<id>/)"),
            ("[5]", "not a JSON object"),
            ("[6].owner", "missing"),
        ]
    );
    // The readable rows keep their position in the report (1 and 6): refused rows of abc-1 still count.
    let keys: Vec<&str> =
        batch.records.iter().filter(|r| r.collection == TRANSACTIONS).map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["abc-1/1", "abc-1/6"]);
    assert_eq!(record(&batch, REPORTS, "abc-1")["tradeRows"], 2, "the readable rows");
}

#[test]
fn unreadable_files_are_refused_with_a_location() {
    let truncated = parse(r#"[{"transaction_date": "11/17/2020", "owner": "Jo"#).unwrap_err();
    assert_eq!(truncated.location.as_deref(), Some("line 1, column 48"));
    assert!(truncated.reason.starts_with("the file is not JSON"), "{truncated}");
    assert_eq!(parse(r#"{"a": 1}"#).unwrap_err().location.as_deref(), Some("$"));
    let other = parse(r#"[{"disclosure_year": 2020}]"#).unwrap_err();
    assert_eq!(other.location.as_deref(), Some("[0]"));
    assert!(other.reason.contains("disclosure_year"), "{other}");
    assert!(parse("[]").is_err());
    assert_eq!(parse("\u{FEFF}[1").unwrap_err().location.as_deref(), Some("line 1, column 2"));
}

#[test]
fn truncated_corpus_file_is_refused_whole() {
    let Ok(bytes) = std::fs::read(format!("{CORPUS}all_transactions.json")) else {
        eprintln!("corpus absent: skipping");
        return;
    };
    let refusal = SenateTrades::ingest(&SourceFile { name: "cut.json", bytes: &bytes[..5000] }).unwrap_err();
    assert_eq!(refusal.location.as_deref(), Some("line 1, column 5000"));
}

#[test]
fn ingested_reports_are_served_with_provenance_and_real_meta() {
    let (Some(flat), Some(senators)) = (corpus("all_transactions.json"), corpus("all_transactions_for_senators.json"))
    else {
        return;
    };
    let host = TestHost::new();
    host.set_ingested(SLUG, std::slice::from_ref(&flat));
    let only_flat = host.init::<SenateTrades>().unwrap();
    let (status, body) = get(&only_flat, ROUTE, &[("ticker", "pfe"), ("member", "rosen"), ("limit", "1000")]);
    assert_eq!(status, 200);
    let filing = body["filings"].as_array().unwrap().iter().find(|f| f["docId"] == ROSEN_PFE).unwrap();
    // The flat file states no date received for an electronic report: null, not a guess.
    assert_eq!((&filing["filedDate"], &filing["year"]), (&Value::Null, &Value::Null));
    assert_eq!(filing["chamber"], "senate");
    assert_eq!(filing["paper"], false);
    assert_eq!(filing["sourceUrl"], format!("https://efdsearch.senate.gov/search/view/ptr/{ROSEN_PFE}/"));
    assert_eq!(
        filing["trades"][0],
        json!({"ticker": "PFE", "asset": "Pfizer Inc. (Exchanged) Viatris Inc. (Received)", "type": "exchange",
            "amountRange": "$1,001 - $15,000", "date": "2020-11-17", "owner": "Joint", "assetType": "Stock",
            "comment": "", "amountMin": 1001.0, "amountMax": 15000.0})
    );
    assert!(filing["trades"][0].get("bundled").is_none());

    host.set_ingested(SLUG, &[flat, senators]);
    let plugin = host.init::<SenateTrades>().unwrap();
    let (_, all) = get(&plugin, ROUTE, &[("limit", "1000")]);
    let meta = &all["meta"];
    assert_eq!(meta["sourceUrl"], "https://efdsearch.senate.gov/search/");
    for field in ["source", "method", "caveat"] {
        assert!(!meta[field].as_str().unwrap().to_lowercase().contains("demo"), "{field}: {meta}");
    }
    assert!(meta["source"].as_str().unwrap().contains("from 2 ingested files"), "{meta}");
    // Newest first: Wyden's report received 04/09/2021 is the latest date received in either file.
    assert_eq!(all["filings"][0]["docId"], WYDEN_LATEST);
    assert_eq!((&all["filings"][0]["filedDate"], &all["filings"][0]["year"]), (&json!("2021-04-09"), &json!(2021)));
    let (_, rosen) = get(&plugin, ROUTE, &[("ticker", "PFE"), ("member", "jacklyn")]);
    let filing = rosen["filings"].as_array().unwrap().iter().find(|f| f["docId"] == ROSEN_PFE).unwrap();
    assert_eq!((&filing["filedDate"], &filing["year"]), (&json!("2020-12-10"), &json!(2020)));
    let (_, paper) = get(&plugin, ROUTE, &[("member", "blumenthal"), ("limit", "1000")]);
    let report = paper["filings"].as_array().unwrap().iter().find(|f| f["docId"] == BLUMENTHAL_PAPER).unwrap();
    assert_eq!(
        (&report["paper"], &report["trades"], &report["filedDate"]),
        (&json!(true), &json!([]), &json!("2020-12-02"))
    );
    let (_, over) = get(&plugin, ROUTE, &[("member", "inhofe"), ("limit", "1000")]);
    let trade = over["filings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["trades"].as_array().unwrap())
        .find(|t| t["amountRange"] == "Over $50,000,000")
        .unwrap();
    assert_eq!((&trade["amountMin"], &trade["amountMax"]), (&json!(50_000_000.0), &Value::Null));
}
