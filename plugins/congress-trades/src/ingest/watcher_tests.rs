//! The House Stock Watcher export, read from `../shared/corpus/house-stock-watcher/all_transactions.csv`
//! (14,274 rows); every value below was read by hand from the line named beside it.

use datahost_plugin_api::ingest::{IngestBatch, SourceFile};
use serde_json::json;

use super::{ingest, WATCHER_CSV, WATCHER_TRADES};

fn export() -> Option<Vec<u8>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/house-stock-watcher/all_transactions.csv");
    std::fs::read(path).map_err(|_| eprintln!("corpus absent: skipping ({path})")).ok()
}

fn parse(bytes: &[u8]) -> IngestBatch {
    ingest(&SourceFile { name: "all_transactions.csv", bytes }).unwrap_or_else(|r| panic!("refused: {r}"))
}

#[test]
fn every_row_is_read_or_reported_at_its_line() {
    let Some(bytes) = export() else { return };
    let batch = parse(&bytes);
    assert_eq!(batch.format, WATCHER_CSV);
    assert!(batch.records.iter().all(|r| r.collection == WATCHER_TRADES));
    assert_eq!(batch.records.len() + batch.problems.len(), 14_274, "one record or one problem per data row");

    // Line 2: `2021,10/04/2021,2021-09-27,joint,BP,BP plc,purchase,"$1,001 - $15,000",Hon. Virginia Foxx,NC05,
    // https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2021/20019557.pdf,False`.
    let first = &batch.records[0];
    assert_eq!((first.key.as_str(), first.group.as_str()), ("20019557:1", "20019557"));
    assert_eq!(
        first.data,
        json!({
            "docId": "20019557", "year": 2021, "row": 1, "member": "Virginia Foxx", "stateDistrict": "NC05",
            "disclosureDate": "2021-10-04", "owner": "JT", "ticker": "BP", "asset": "BP plc", "type": "purchase",
            "date": "2021-09-27", "amountRange": "$1,001 - $15,000", "capGainsOver200Usd": false,
            "sourceUrl": "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2021/20019557.pdf"
        })
    );
    // Line 6: Hon. Alan S. Lowenthal, `self`, BLK, `sale_partial`.
    let blk = batch.records.iter().find(|r| r.data["ticker"] == "BLK" && r.group == "20019570").unwrap();
    assert_eq!((blk.data["owner"].as_str(), blk.data["type"].as_str()), (Some("self"), Some("sale (partial)")));
    assert_eq!(blk.data["member"], "Alan S. Lowenthal");
    // Line 8: `2021,12/01/2021,2021-11-30,,KPLTW,Katapult Holdings Inc - Warrant,purchase,...,Hon. Austin Scott`:
    // the blank owner cell is the member, as on the form.
    let kpltw = batch.records.iter().find(|r| r.data["ticker"] == "KPLTW").unwrap();
    assert_eq!((kpltw.data["owner"].as_str(), kpltw.data["member"].as_str()), (Some("self"), Some("Austin Scott")));
}

#[test]
fn the_exports_real_faults_are_reported_never_guessed() {
    let Some(bytes) = export() else { return };
    let batch = parse(&bytes);
    let problem = |line: usize| {
        batch
            .problems
            .iter()
            .find(|p| p.location == format!("line {line}"))
            .unwrap_or_else(|| panic!("no problem reported at line {line}: {:?}", &batch.problems[..5]))
            .message
            .clone()
    };
    // Line 2316 (Hon. Susie Lee, SBUX): transaction_date `0009-06-09`; line 7601 (Hon. Peter Welch, A):
    // `20221-11-18`; lines 4026, 10756, 10757: `0021-08-02`, `0021-06-22`, `0201-06-22`.
    assert_eq!(problem(2316), "transaction_date `0009-06-09` is not a plausible YYYY-MM-DD date");
    assert_eq!(problem(7601), "transaction_date `20221-11-18` is not a plausible YYYY-MM-DD date");
    for line in [4026, 10756, 10757] {
        assert!(problem(line).starts_with("transaction_date `0"), "{line}: {}", problem(line));
    }
    // Line 14 (Hon. Thomas Suozzi, SLVM): the amount is cut to `$1,001 -`.
    assert_eq!(problem(14), "amount `$1,001 -` is not a disclosed range (`$1,001 - $15,000`, `Over $50,000,000`)");
    assert!(!batch.records.iter().any(|r| r.data["amountRange"] == "$1,001 -"), "a cut amount is never stored");
    assert!(!batch.records.iter().any(|r| r.data["date"].as_str().is_some_and(|d| d < "2000")));
}

#[test]
fn a_missing_column_refuses_the_file_and_a_cut_quote_refuses_it_at_its_line() {
    let refused = |text: &str| ingest(&SourceFile { name: "x.csv", bytes: text.as_bytes() }).expect_err("refused");
    let header = "disclosure_year,disclosure_date,transaction_date,owner,ticker,asset_description,type,amount,\
                  representative,district,ptr_link,cap_gains_over_200_usd";
    // Without `ptr_link` the header is not the export's: not a House file at all.
    let r = refused(&header.replace(",ptr_link", ""));
    assert_eq!(r.location.as_deref(), Some("line 1"));
    // A download cut inside a quoted amount.
    let cut = format!(
        "{header}\n2021,10/04/2021,2021-09-27,joint,BP,BP plc,purchase,\"$1,001 - $15,000\",Hon. Virginia Foxx,NC05,\
         https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2021/20019557.pdf,False\n\
         2021,10/04/2021,2021-09-13,joint,XOM,Exxon Mobil Corporation,purchase,\"$1,001 - $1"
    );
    let r = refused(&cut);
    assert_eq!(r.location.as_deref(), Some("line 3"), "{r}");
}

#[test]
fn the_same_export_gives_the_same_records() {
    let Some(bytes) = export() else { return };
    assert_eq!(parse(&bytes), parse(&bytes));
}

// ---------------------------------------------------------------- served beside the Clerk's files ---

fn served(batches: &[IngestBatch]) -> crate::CongressTrades {
    let host = datahost_plugin_api::testing::TestHost::new();
    host.set_ingested(crate::SLUG, batches);
    host.init::<crate::CongressTrades>().expect("init on ingested records")
}

fn house_fd(name: &str) -> Option<Vec<u8>> {
    let path = format!("{}/../../../shared/corpus/house-fd/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(path).ok()
}

#[test]
fn a_filing_known_only_from_the_export_is_served_from_it_and_says_so() {
    let Some(bytes) = export() else { return };
    let p = served(&[parse(&bytes)]);
    let (status, body) =
        datahost_plugin_api::testing::get(&p, crate::ROUTE, &[("member", "Virginia Foxx"), ("limit", "1000")]);
    assert_eq!(status, 200, "{body}");
    let filing = body["filings"].as_array().unwrap().iter().find(|f| f["docId"] == "20019557").expect("listed");
    // Lines 2-5 of the export: DocID 20019557, disclosed 10/04/2021 by Hon. Virginia Foxx (NC05): BP, XOM, ILPT
    // and PM purchases.
    assert_eq!((filing["member"].as_str(), filing["year"].as_i64()), (Some("Virginia Foxx"), Some(2021)));
    assert_eq!(filing["filedDate"], "2021-10-04");
    assert_eq!(filing["parseStatus"], "no-document", "the Clerk's PDF itself was not read");
    assert_eq!(filing["tradesSource"], "house-stock-watcher");
    assert_eq!(filing["sourceUrl"], "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2021/20019557.pdf");
    let tickers: Vec<&str> =
        filing["trades"].as_array().unwrap().iter().map(|t| t["ticker"].as_str().unwrap()).collect();
    assert_eq!(tickers, ["BP", "XOM", "ILPT", "PM"]);
    let bp = &filing["trades"][0];
    assert_eq!(
        (bp["type"].as_str(), bp["amountRange"].as_str(), bp["date"].as_str(), bp["owner"].as_str()),
        (Some("purchase"), Some("$1,001 - $15,000"), Some("2021-09-27"), Some("JT"))
    );
    assert_eq!((bp["amountMin"].as_f64(), bp["amountMax"].as_f64()), (Some(1001.0), Some(15000.0)));
    assert!(bp.get("notificationDate").is_none(), "the export does not transcribe it: absent, not invented");
    assert!(body["meta"]["filingsSecondSource"].as_u64().unwrap() >= 1);
    assert_eq!(body["meta"]["filingsScanned"], 0, "no PDF was read");
}

#[test]
fn a_parsed_pdf_wins_over_the_exports_transcription() {
    let (Some(index), Some(pdf)) = (house_fd("2023FD.xml"), house_fd("20022260.pdf")) else { return };
    // A transcription of DocID 20022260 made by hand for this test (the corpus export ends in 2022): it must
    // not replace what the parsed PDF says.
    let header = "disclosure_year,disclosure_date,transaction_date,owner,ticker,asset_description,type,amount,\
                  representative,district,ptr_link,cap_gains_over_200_usd";
    let handmade = format!(
        "{header}\n2023,01/12/2023,2022-12-28,spouse,ZZZZ,Handmade Row Inc,purchase,\"$1,001 - $15,000\",\
         Hon. Nancy Pelosi,CA12,https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2023/20022260.pdf,False\n"
    );
    let batches = [
        super::tests::parse("2023FD.xml", &index),
        super::tests::parse("20022260.pdf", &pdf),
        parse(handmade.as_bytes()),
    ];
    let p = served(&batches);
    let (_, body) = datahost_plugin_api::testing::get(&p, crate::ROUTE, &[("member", "Pelosi"), ("limit", "1000")]);
    let filing = body["filings"].as_array().unwrap().iter().find(|f| f["docId"] == "20022260").expect("listed");
    assert_eq!((filing["parseStatus"].as_str(), filing["tradesSource"].as_str()), (Some("parsed"), Some("pdf")));
    assert_eq!(filing["trades"].as_array().unwrap().len(), 13, "the PDF's 13 rows");
    assert!(filing["trades"].as_array().unwrap().iter().all(|t| t["ticker"] != "ZZZZ"));
}
