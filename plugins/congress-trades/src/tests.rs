//! Handler tests on the shipped seed, then on ingested corpus files, through the SDK's in-process test host.

use datahost_plugin_api::reference::CompanyRef;
use datahost_plugin_api::testing::{
    assert_no_real_identifier, get, manifest_problems, plugin_with_own_seeds, TestHost,
};
use datahost_plugin_api::IngestBatch;
use serde_json::{json, Value};

use crate::ingest::tests::{corpus, parse};
use crate::{CongressTrades, ROUTE, SLUG};

fn all_trades(body: &Value) -> Vec<&Value> {
    body["filings"].as_array().unwrap().iter().flat_map(|f| f["trades"].as_array().unwrap()).collect()
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<CongressTrades>(), Vec::<String>::new());
}

#[test]
fn default_shape_and_order() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200);
    assert_eq!(body["count"], 96);
    assert_eq!(body["meta"]["filingsWithTrades"], 96);
    assert_eq!(body["meta"]["filingsScanned"], 131);
    assert!(body["meta"]["caveat"].as_str().unwrap().contains("45 days"));
    let dates: Vec<&str> =
        body["filings"].as_array().unwrap().iter().map(|f| f["filedDate"].as_str().unwrap()).collect();
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted, "newest filing first");
    let t = all_trades(&body)[0];
    for field in ["ticker", "asset", "type", "amountRange", "date", "bundled"] {
        assert!(t.get(field).is_some(), "trade lacks {field}");
    }
}

#[test]
fn ticker_filter_is_case_insensitive_and_trims_trades() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, upper) = get(&p, ROUTE, &[("ticker", "LMCS")]);
    let (_, lower) = get(&p, ROUTE, &[("ticker", "lmcs")]);
    assert_eq!(upper, lower);
    assert!(upper["count"].as_u64().unwrap() > 0);
    assert!(all_trades(&upper).iter().all(|t| t["ticker"] == "LMCS"));
    let (_, brk) = get(&p, ROUTE, &[("ticker", "hlhc-b")]);
    assert!(all_trades(&brk).iter().all(|t| t["ticker"] == "HLHC.B"));
    assert!(brk["count"].as_u64().unwrap() > 0);
    let (_, none) = get(&p, ROUTE, &[("ticker", "ZZZZ")]);
    assert_eq!(none["count"], 0);
}

#[test]
fn member_substring_and_limit() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, body) = get(&p, ROUTE, &[("member", "HOLLISTER")]);
    let filings = body["filings"].as_array().unwrap();
    assert!(!filings.is_empty());
    assert!(filings.iter().all(|f| f["member"] == "Avery Hollister"));
    let (_, two) = get(&p, ROUTE, &[("limit", "2")]);
    assert_eq!(two["count"], 2);
    let (_, clamped) = get(&p, ROUTE, &[("limit", "1000000")]);
    assert_eq!(clamped["count"], 96);
}

#[test]
fn amount_bounds_are_additive_numbers() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, body) = get(&p, ROUTE, &[]);
    for t in all_trades(&body) {
        let min = t["amountMin"].as_f64().unwrap();
        let max = t["amountMax"].as_f64().unwrap();
        assert!(min < max, "{t}");
    }
}

#[test]
fn bad_parameters_are_400_naming_the_rule() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    for (query, message) in [
        (("limit", "0"), "limit must be a positive integer, got `0`"),
        (("limit", "ten"), "limit must be a positive integer, got `ten`"),
        (("ticker", "N V"), "ticker must be letters, digits, '.', '-', '/', '^' or '=', got `N V`"),
    ] {
        let (status, body) = get(&p, ROUTE, &[query]);
        assert_eq!(status, 400);
        assert_eq!(body["error"], message);
        assert_eq!(body["code"], 400);
    }
}

#[test]
fn meta_and_first_filing_are_exact() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, body) = get(&p, ROUTE, &[("limit", "1")]);
    let meta = body["meta"].as_object().unwrap();
    let mut keys: Vec<&str> = meta.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["caveat", "filingsScanned", "filingsWithTrades", "generatedAt", "method", "source", "sourceUrl"]);
    assert_eq!(meta["sourceUrl"], "https://demo.invalid/congress-trades");
    assert_eq!(meta["generatedAt"], "2026-11-01T06:00:00Z");
    assert!(meta["source"].as_str().unwrap().starts_with("DEMO seed"));
    assert!(meta["caveat"].as_str().unwrap().starts_with("DEMO DATA"));
    assert_eq!(
        body["filings"][0],
        json!({
            "member": "Sam Delacroix", "docId": "DEMO-PTR-H25211", "year": 2026, "filedDate": "2026-10-18",
            "trades": [{
                "ticker": "ORCH", "asset": "Orchard Computing Inc. (demo) - Common Stock", "type": "sale",
                "amountRange": "$1,001 - $15,000", "date": "2026-10-02", "bundled": false,
                "amountMin": 1001.0, "amountMax": 15000.0
            }]
        })
    );
}

#[test]
fn counts_are_hand_checked() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, all) = get(&p, ROUTE, &[("limit", "1000")]);
    let trades = all_trades(&all);
    assert_eq!(trades.len(), 237);
    assert_eq!(trades.iter().filter(|t| t["bundled"] == true).count(), 64);
    // 9 filings hold an LMCS trade; among their 32 trades only the 11 LMCS lines are kept.
    let (_, lmcs) = get(&p, ROUTE, &[("ticker", "LMCS")]);
    assert_eq!(lmcs["count"], 9);
    assert_eq!(all_trades(&lmcs).len(), 11);
    let (_, brk) = get(&p, ROUTE, &[("ticker", "HLHC.B")]);
    assert_eq!(brk["count"], 5);
    let (_, hollister) = get(&p, ROUTE, &[("member", "hollister")]);
    assert_eq!(hollister["count"], 7);
    let (_, both) = get(&p, ROUTE, &[("member", "hollister"), ("ticker", "LMCS")]);
    assert_eq!(both["count"], 0);
    let (_, tremaine) = get(&p, ROUTE, &[("member", "tremaine"), ("ticker", "hlhc-b")]);
    assert!(tremaine["filings"].as_array().unwrap().iter().any(|f| f["docId"] == "DEMO-PTR-H25636"));
    assert!(all_trades(&tremaine).iter().all(|t| t["ticker"] == "HLHC.B"));
}

#[test]
fn the_demo_seed_names_no_real_company_and_no_official_document() {
    let text = include_str!("../seed/congress-trades.json");
    let seed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(seed["meta"]["sourceUrl"], "https://demo.invalid/congress-trades");
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, all) = get(&p, ROUTE, &[("limit", "1000")]);
    assert_eq!(all["count"], 96, "every seed filing is checked");
    for f in all["filings"].as_array().unwrap() {
        assert!(f["docId"].as_str().unwrap().starts_with("DEMO-PTR-H"), "{f}");
    }
    for t in all_trades(&all) {
        assert!(t["asset"].as_str().unwrap().contains(" (demo)"), "a fictional issuer: {t}");
    }
    let trades = all_trades(&all);
    let tickers: Vec<&str> = trades.iter().map(|t| t["ticker"].as_str().unwrap()).collect();
    assert_no_real_identifier(text, &tickers);
}

#[test]
fn demo_members_are_not_house_filers() {
    // No demo member shares a surname with anyone in the Clerk's 2023 index (column 2 of 2023FD.txt, the
    // `Last` field) or a representative of the House Stock Watcher export: the members are fictional.
    let watcher = datahost_plugin_api::testing::corpus_file("house-stock-watcher/all_transactions.csv");
    let (Some(index), Some(watcher)) = (corpus("2023FD.txt"), watcher) else { return };
    let index = String::from_utf8_lossy(&index).to_lowercase();
    let watcher = String::from_utf8_lossy(&watcher).to_lowercase();
    assert!(index.contains("\tpelosi\t") && watcher.contains("pelosi"), "the corpus lists real members");
    let (_, all) = get(&plugin_with_own_seeds::<CongressTrades>(), ROUTE, &[("limit", "1000")]);
    for f in all["filings"].as_array().unwrap() {
        let surname = f["member"].as_str().unwrap().rsplit(' ').next().unwrap().to_lowercase();
        assert!(!index.contains(&format!("\t{surname}\t")), "{surname} files with the House");
        assert!(!watcher.contains(&surname), "{surname} is in the House Stock Watcher export");
    }
}

#[test]
fn over_long_member_is_400() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let long = "x".repeat(101);
    let (status, body) = get(&p, ROUTE, &[("member", long.as_str())]);
    assert_eq!(status, 400);
    assert_eq!(body["error"], "member must be at most 100 characters");
    let (status, _) = get(&p, ROUTE, &[("member", &long[..100])]);
    assert_eq!(status, 200);
}

// ---------------------------------------------------------------- ingested data ---

/// The plugin initialised on what the host serves after ingesting `batches` in order.
fn plugin_on(batches: &[IngestBatch], companies: Vec<CompanyRef>) -> CongressTrades {
    let host = TestHost::new();
    host.set_ingested(SLUG, batches);
    host.set_companies(companies);
    host.init::<CongressTrades>().expect("init on ingested records")
}

fn corpus_batches(index: &str) -> Option<Vec<IngestBatch>> {
    let (index_bytes, pdf) = (corpus(index)?, corpus("20022260.pdf")?);
    Some(vec![parse(index, &index_bytes), parse("20022260.pdf", &pdf)])
}

fn filing<'a>(body: &'a Value, doc_id: &str) -> &'a Value {
    body["filings"].as_array().unwrap().iter().find(|f| f["docId"] == doc_id).expect("filing listed")
}

#[test]
fn ingested_index_and_ptr_are_served_with_real_meta() {
    let Some(batches) = corpus_batches("2023FD.xml") else { return };
    let alphabet = CompanyRef { cik: "0001652044".into(), ticker: "GOOGL".into(), name: "Alphabet Inc.".into() };
    let p = plugin_on(&batches, vec![alphabet]);
    let (status, all) = get(&p, ROUTE, &[("limit", "1000")]);
    assert_eq!(status, 200);
    // Every FilingType P row of the index is listed (460, SOURCES.md); one has its PDF read.
    assert_eq!(all["count"], 460);
    let meta = &all["meta"];
    assert_eq!(meta["filingsScanned"], 1);
    assert_eq!(meta["filingsWithTrades"], 1);
    assert_eq!((meta["filingsListed"].as_u64(), meta["filingsNoDocument"].as_u64()), (Some(460), Some(459)));
    assert_eq!((meta["filingsUnreadable"].as_u64(), meta["filingsUndated"].as_u64()), (Some(0), Some(0)));
    assert_eq!(meta["sourceUrl"], "https://disclosures-clerk.house.gov/FinancialDisclosure");
    for field in ["source", "method", "caveat"] {
        let text = meta[field].as_str().unwrap();
        assert!(!text.to_lowercase().contains("demo"), "{field}: {text}");
    }
    assert!(meta["source"].as_str().unwrap().contains("Office of the Clerk"));
    assert!(meta["caveat"].as_str().unwrap().contains("45 days"));

    let pelosi = filing(&all, "20022260");
    assert_eq!(pelosi["member"], "Nancy Pelosi");
    assert_eq!((pelosi["year"].as_i64(), pelosi["filedDate"].as_str()), (Some(2023), Some("2023-01-12")));
    assert_eq!(pelosi["parseStatus"], "parsed");
    assert_eq!(pelosi["sourceUrl"], "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2023/20022260.pdf");
    assert_eq!(pelosi["stateDistrict"], "CA12");
    assert_eq!(pelosi["amendment"], false);
    assert_eq!(pelosi["trades"].as_array().unwrap().len(), 13);
    // The second row of page 1, with the company resolved through the host.
    assert_eq!(
        pelosi["trades"][1],
        json!({
            "ticker": "GOOGL", "asset": "Alphabet Inc. - Class A", "type": "sale (partial)",
            "amountRange": "$500,001 - $1,000,000", "date": "2022-12-28", "bundled": false,
            "amountMin": 500001.0, "amountMax": 1000000.0, "owner": "SP", "assetType": "ST",
            "typeCode": "S (partial)", "notificationDate": "2022-12-28", "description": "Sold 10,000 shares.",
            "filingStatus": "New", "cik": "0001652044", "company": "Alphabet Inc."
        })
    );
    // Unresolved tickers (no company list entry) are served as printed, without cik.
    assert_eq!(pelosi["trades"][4]["ticker"], "NFLX");
    assert!(pelosi["trades"][4].get("cik").is_none());
    // The CRM option row's amount is printed as `$9.00`: served as written, bounds equal.
    assert_eq!(pelosi["trades"][10]["amountRange"], "$9.00");
    assert_eq!(
        (pelosi["trades"][10]["amountMin"].as_f64(), pelosi["trades"][10]["amountMax"].as_f64()),
        (Some(9.0), Some(9.0))
    );
}

#[test]
fn index_only_filings_say_no_document_and_never_match_a_ticker() {
    let Some(batches) = corpus_batches("2023FD.xml") else { return };
    let p = plugin_on(&batches, Vec::new());
    // 2023FD.txt lists six P filings by Nancy Pelosi; only 20022260's PDF is ingested.
    let (_, pelosi) = get(&p, ROUTE, &[("member", "PELOSI")]);
    assert_eq!(pelosi["count"], 6);
    let ids: Vec<&str> = pelosi["filings"].as_array().unwrap().iter().map(|f| f["docId"].as_str().unwrap()).collect();
    assert_eq!(ids, ["20024186", "20023192", "20023080", "20022664", "20022320", "20022260"], "newest first");
    let unread = filing(&pelosi, "20022320");
    assert_eq!(unread["parseStatus"], "no-document");
    assert_eq!(unread["trades"], json!([]));
    assert_eq!(unread["stateDistrict"], "CA11");
    assert_eq!(unread["filedDate"], "2023-01-25");
    assert_eq!(unread["sourceUrl"], "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2023/20022320.pdf");

    let (_, googl) = get(&p, ROUTE, &[("ticker", "googl")]);
    assert_eq!(googl["count"], 1);
    let trades = googl["filings"][0]["trades"].as_array().unwrap();
    let dates: Vec<&str> = trades.iter().map(|t| t["date"].as_str().unwrap()).collect();
    assert_eq!(dates, ["2022-12-28", "2022-12-20", "2022-12-21"]);
    let (_, none) = get(&p, ROUTE, &[("ticker", "AAPL")]);
    assert_eq!(none["count"], 0);
}

#[test]
fn the_text_index_serves_the_same_document_as_the_xml() {
    let (Some(from_xml), Some(from_txt)) = (corpus_batches("2023FD.xml"), corpus_batches("2023FD.txt")) else {
        return;
    };
    let mut xml = get(&plugin_on(&from_xml, Vec::new()), ROUTE, &[("limit", "1000")]).1;
    let mut txt = get(&plugin_on(&from_txt, Vec::new()), ROUTE, &[("limit", "1000")]).1;
    // generatedAt is the time of the load when the host gives no ingest time.
    xml["meta"]["generatedAt"] = Value::Null;
    txt["meta"]["generatedAt"] = Value::Null;
    assert_eq!(xml, txt);
}

#[test]
fn a_ptr_without_its_index_row_is_listed_from_the_document() {
    let Some(pdf) = corpus("20022260.pdf") else { return };
    let p = plugin_on(&[parse("20022260.pdf", &pdf)], Vec::new());
    let (_, body) = get(&p, ROUTE, &[]);
    assert_eq!(body["count"], 1);
    let only = &body["filings"][0];
    assert_eq!((only["member"].as_str(), only["docId"].as_str()), (Some("Nancy Pelosi"), Some("20022260")));
    assert_eq!((only["year"].as_i64(), only["filedDate"].as_str()), (Some(2023), Some("2023-01-12")));
    assert_eq!(only["stateDistrict"], "CA12");
    assert_eq!(body["meta"]["filingsScanned"], 1);
}

#[test]
fn an_unreadable_document_is_never_served_as_no_trades() {
    let Some(xml) = corpus("2023FD.xml") else { return };
    // 8220106 (Michael T. McCaul, filed 1/12/2024) is a paper PTR; a PDF without a text layer stands for it.
    let scanned = crate::ingest::parse_ptr_pages(&[String::new()], "8220106.pdf").unwrap();
    let p = plugin_on(&[parse("2023FD.xml", &xml), scanned], Vec::new());
    let (_, body) = get(&p, ROUTE, &[("limit", "1")]);
    let newest = &body["filings"][0];
    assert_eq!(newest["docId"], "8220106");
    assert_eq!(newest["parseStatus"], "unreadable");
    assert!(newest["parseProblem"].as_str().unwrap().contains("no text layer"));
    assert_eq!(newest["trades"], json!([]));
    assert_eq!(body["meta"]["filingsUnreadable"], 1);
    assert_eq!(body["meta"]["filingsScanned"], 0);
    assert_eq!(body["meta"]["filingsWithTrades"], 0);
}

#[test]
fn deleted_rows_are_not_served_and_the_amending_filing_says_so() {
    use crate::ingest::tests::ptr_text;
    let original = ptr_text(
        "20000001",
        "01/10/2023",
        "SP Tesla, Inc. (TSLA) [ST] S 01/05/2023 01/05/2023 $15,001 - $50,000\n\nF S: New\n",
    );
    let amendment = ptr_text(
        "20000050",
        "02/20/2023",
        "2000166569 SP Tesla, Inc. (TSLA) [ST] S 01/05/2023 01/05/2023 $15,001 - $50,000\n\nF S: Deleted\n",
    );
    let batches: Vec<IngestBatch> = [(original, "a.pdf"), (amendment, "b.pdf")]
        .iter()
        .map(|(text, name)| crate::ingest::parse_ptr_pages(std::slice::from_ref(text), name).unwrap())
        .collect();
    // `assemble` keeps both files' rows (lineage is the host's rule); the Deleted row itself is never a trade.
    let p = plugin_on(&batches, Vec::new());
    let (_, body) = get(&p, ROUTE, &[]);
    let amending = filing(&body, "20000050");
    assert_eq!(amending["amendment"], true);
    assert_eq!(amending["withdrawnTrades"], 1);
    assert_eq!(amending["trades"], json!([]));
    assert_eq!(filing(&body, "20000001")["trades"].as_array().unwrap().len(), 1);
}
