//! Parser tests on every corpus file of the House formats (values read by hand from the files and from the
//! rendered PDF pages), plus hand-written malformed fixtures, idempotence and amendments.

use std::collections::BTreeMap;

use datahost_plugin_api::ingest::{IngestBatch, SourceFile};
use serde_json::{json, Value};

use super::{ingest, ptr, DOCUMENTS, FILINGS, INDEX_TXT, INDEX_XML, PTR_PDF, TRADES};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/house-fd/");

/// A corpus file's bytes, or `None` (with a note) when the corpus is not on this machine.
pub(crate) fn corpus(name: &str) -> Option<Vec<u8>> {
    match std::fs::read(format!("{CORPUS}{name}")) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("corpus absent: skipping");
            None
        }
    }
}

pub(crate) fn parse(name: &str, bytes: &[u8]) -> IngestBatch {
    ingest(&SourceFile { name, bytes }).unwrap_or_else(|r| panic!("{name} refused: {r}"))
}

fn records<'a>(batch: &'a IngestBatch, collection: &str) -> Vec<&'a Value> {
    batch.records.iter().filter(|r| r.collection == collection).map(|r| &r.data).collect()
}

fn by_doc_id<'a>(batch: &'a IngestBatch, doc_id: &str) -> &'a Value {
    records(batch, FILINGS).into_iter().find(|f| f["docId"] == doc_id).expect("doc id listed")
}

// ---------------------------------------------------------------- the yearly index ---

#[test]
fn xml_index_counts_per_filing_type_match_the_file() {
    let Some(bytes) = corpus("2023FD.xml") else { return };
    let batch = parse("2023FD.xml", &bytes);
    assert_eq!(batch.format, INDEX_XML);
    assert_eq!(batch.problems, vec![]);
    // `grep -c "<Member>"` gives 1549; the per-type counts are SOURCES.md's and `grep -o "<FilingType>..."`'s.
    let filings = records(&batch, FILINGS);
    assert_eq!(filings.len(), 1549);
    let mut per_type: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &filings {
        *per_type.entry(f["filingType"].as_str().unwrap()).or_default() += 1;
    }
    let expected =
        [("A", 47), ("B", 7), ("C", 578), ("D", 77), ("E", 3), ("G", 8), ("P", 460), ("T", 64), ("W", 15), ("X", 290)];
    assert_eq!(per_type, expected.into_iter().collect());
    assert!(batch.notes[0].starts_with("1549 filings by FilingType: A 47, B 7, C 578"), "{:?}", batch.notes);
    // Keys and groups are the DocID.
    assert!(batch.records.iter().all(|r| r.key == r.data["docId"] && r.group == r.key && r.lineage.is_none()));
}

#[test]
fn xml_member_rows_read_by_hand() {
    let Some(bytes) = corpus("2023FD.xml") else { return };
    let batch = parse("2023FD.xml", &bytes);
    // 2023FD.xml lines 12851-12861: Hon. / Pelosi / Nancy / <Suffix /> / P / CA12 / 2023 / 1/12/2023 / 20022260.
    assert_eq!(
        *by_doc_id(&batch, "20022260"),
        json!({
            "docId": "20022260", "member": "Nancy Pelosi", "prefix": "Hon.", "first": "Nancy", "last": "Pelosi",
            "suffix": "", "filingType": "P", "stateDistrict": "CA12", "year": 2023, "filedDate": "2023-01-12",
            "sourceUrl": "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2023/20022260.pdf"
        })
    );
    // The first <Member> (lines 3-13): a candidate report filed 2/14/2024 under Year 2023.
    let first = by_doc_id(&batch, "10056211");
    assert_eq!(first["member"], "Adam Jacques Chester Lafayette Hollier");
    assert_eq!((first["filingType"].as_str(), first["stateDistrict"].as_str()), (Some("C"), Some("MI13")));
    assert_eq!(first["filedDate"], "2024-02-14");
    assert_eq!(first["sourceUrl"], "https://disclosures-clerk.house.gov/public_disc/financial-pdfs/2023/10056211.pdf");
    // Lines 663-673: a withdrawal notice with <StateDst /> and <FilingDate />: kept, with no date.
    let withdrawal = by_doc_id(&batch, "8219940");
    assert_eq!(withdrawal["member"], "Ed Ray Atkinson");
    assert_eq!(withdrawal["filingType"], "W");
    assert_eq!(withdrawal["stateDistrict"], "");
    assert_eq!(withdrawal["filedDate"], Value::Null);
}

#[test]
fn txt_index_gives_the_same_filings_as_the_xml() {
    let (Some(xml), Some(txt)) = (corpus("2023FD.xml"), corpus("2023FD.txt")) else { return };
    let from_xml = parse("2023FD.xml", &xml);
    let from_txt = parse("2023FD.txt", &txt);
    assert_eq!(from_txt.format, INDEX_TXT);
    assert_eq!(from_txt.problems, vec![]);
    // 2023FD.txt has 1550 lines: the header and 1549 rows; line 1170 is the Pelosi row of DocID 20022260.
    assert_eq!(from_txt.records.len(), 1549);
    assert_eq!(from_txt.records, from_xml.records, "same keys, groups and data from both index files");
    assert_eq!(by_doc_id(&from_txt, "20022260")["stateDistrict"], "CA12");
}

#[test]
fn txt_index_with_a_byte_order_mark_and_lf_endings_reads_the_same() {
    let Some(txt) = corpus("2023FD.txt") else { return };
    let text = String::from_utf8(txt.clone()).unwrap();
    let variant = format!("\u{FEFF}{}", text.replace("\r\n", "\n"));
    assert_eq!(parse("index.txt", variant.as_bytes()).records, parse("2023FD.txt", &txt).records);
}

#[test]
fn index_rows_that_cannot_be_read_are_problems_with_their_location() {
    // Hand-written malformed fixture: a wrong field count, a bad date, a non-numeric DocID, a PTR without a
    // date, and one good row.
    let txt = "Prefix\tLast\tFirst\tSuffix\tFilingType\tStateDst\tYear\tFilingDate\tDocID\r\n\
               \tShort\tRow\tP\tCA01\r\n\
               \tDoe\tJane\t\tP\tCA01\t2023\t13/45/2023\t20000001\r\n\
               \tDoe\tJane\t\tP\tCA01\t2023\t1/2/2023\tABC\r\n\
               \tDoe\tJane\t\tP\tCA01\t2023\t\t20000002\r\n\
               \tRoe\tRay\tJr.\tP\tTX02\t2023\t3/4/2023\t20000003\r\n";
    let batch = parse("bad.txt", txt.as_bytes());
    let problems: Vec<(&str, &str)> =
        batch.problems.iter().map(|p| (p.location.as_str(), p.message.as_str())).collect();
    assert_eq!(
        problems,
        [
            ("line 2", "expected 9 tab-separated fields, found 5"),
            ("line 3", "FilingDate `13/45/2023` is not a M/D/YYYY date"),
            ("line 4", "DocID `ABC` is not a number"),
            ("line 5", "FilingDate is empty for a Periodic Transaction Report"),
        ]
    );
    assert_eq!(batch.records.len(), 1);
    assert_eq!(batch.records[0].data["member"], "Ray Roe Jr.");

    let xml = "<FinancialDisclosure>\n<Member><Last>Doe</Last><First>Jane</First><FilingType>P</FilingType>\
               <StateDst>CA01</StateDst><Year>2023</Year><FilingDate>1/2/2023</FilingDate><DocID>20000001</DocID>\
               <Prefix/><Suffix/></Member>\n<Member><Last>Roe</Last><Prefix/><First>Ray</First><Suffix/>\
               <FilingType>P</FilingType><StateDst>TX02</StateDst><Year>23</Year><FilingDate>3/4/2023</FilingDate>\
               <DocID>20000003</DocID></Member>\n<Member><Last>Poe</Last></Member>\n</FinancialDisclosure>";
    let batch = parse("bad.xml", xml.as_bytes());
    let problems: Vec<(&str, &str)> =
        batch.problems.iter().map(|p| (p.location.as_str(), p.message.as_str())).collect();
    assert_eq!(
        problems,
        [("/FinancialDisclosure/Member[2]", "Year `23` is not a year"), ("/FinancialDisclosure/Member[3]", "no DocID"),]
    );
    assert_eq!(batch.records.len(), 1);
}

#[test]
fn truncated_or_foreign_files_are_refused_whole_with_a_location() {
    let refuse = |name: &str, bytes: &[u8]| ingest(&SourceFile { name, bytes }).expect_err("must be refused");
    if let Some(xml) = corpus("2023FD.xml") {
        // Cut after line 12 (`<DocID>10056211</DocID>`): the XML ends inside the first <Member>.
        let text = String::from_utf8(xml).unwrap();
        let twelve_lines: usize = text.split_inclusive('\n').take(12).map(str::len).sum();
        let refusal = refuse("2023FD.xml", &text.as_bytes()[..twelve_lines]);
        assert_eq!(refusal.location.as_deref(), Some("line 13"));
        assert!(refusal.reason.contains("ends inside <Member>"), "{refusal}");
        // Cut in the middle of line 13's `</Member>` tag.
        let refusal = refuse("2023FD.xml", &text.as_bytes()[..twelve_lines + 4]);
        assert_eq!(refusal.location.as_deref(), Some("line 13"));
        assert!(refusal.reason.starts_with("the XML index is malformed"), "{refusal}");
    }
    // Hand-written malformed fixtures.
    let mismatched = refuse("x.xml", b"<FinancialDisclosure>\n<Member>\n<Last>Doe</First>\n</Member>");
    assert_eq!(mismatched.location.as_deref(), Some("line 3"));
    let foreign = refuse("x.xml", b"<?xml version=\"1.0\"?>\n<ownershipDocument/>");
    assert_eq!(foreign.reason, "expected a <FinancialDisclosure> index, found <ownershipDocument>");
    let no_doc_id = refuse("x.txt", b"Prefix\tLast\tFirst\tSuffix\tFilingType\tStateDst\tYear\tFilingDate\n");
    assert_eq!(
        (no_doc_id.location.as_deref(), no_doc_id.reason.as_str()),
        (Some("line 1"), "the header row has no `DocID` column")
    );
    let csv = refuse("2023FD.txt", b"Prefix,Last,First,DocID\n,Doe,Jane,1\n");
    assert_eq!(csv.location.as_deref(), Some("line 1"));
    assert!(csv.reason.starts_with("not a House financial-disclosure file"));
    if let Some(pdf) = corpus("20022260.pdf") {
        let refusal = refuse("20022260.pdf", &pdf[..pdf.len() / 2]);
        assert_eq!(refusal.location, Some(format!("byte {} (end of file)", pdf.len() / 2)));
        assert!(refusal.reason.starts_with("the PDF cannot be read"), "{refusal}");
    }
}

// ---------------------------------------------------------------- the PTR PDF ---

/// A trade row as read by hand from the rendered pages of 20022260.pdf: owner, asset, ticker, asset type,
/// transaction type as printed, date, notification date, amount.
type Row = [&'static str; 8];
const ROW_FIELDS: Row =
    ["owner", "asset", "ticker", "assetType", "typeCode", "date", "notificationDate", "amountRange"];

const PELOSI_20022260: [Row; 13] = [
    [
        "SP",
        "Alliance Bernstein Holding L.P. Units",
        "",
        "OL",
        "S (partial)",
        "2022-12-28",
        "2022-12-28",
        "$500,001 - $1,000,000",
    ],
    [
        "SP",
        "Alphabet Inc. - Class A",
        "GOOGL",
        "ST",
        "S (partial)",
        "2022-12-28",
        "2022-12-28",
        "$500,001 - $1,000,000",
    ],
    [
        "SP",
        "Alphabet Inc. - Class A",
        "GOOGL",
        "ST",
        "S (partial)",
        "2022-12-20",
        "2022-12-20",
        "$500,001 - $1,000,000",
    ],
    [
        "SP",
        "Alphabet Inc. - Class A",
        "GOOGL",
        "ST",
        "S (partial)",
        "2022-12-21",
        "2022-12-21",
        "$500,001 - $1,000,000",
    ],
    ["SP", "Netflix, Inc.", "NFLX", "ST", "S (partial)", "2022-12-29", "2022-12-29", "$250,001 - $500,000"],
    ["SP", "Netflix, Inc.", "NFLX", "ST", "S (partial)", "2022-12-30", "2022-12-30", "$250,001 - $500,000"],
    ["SP", "PayPal Holdings, Inc.", "PYPL", "ST", "S (partial)", "2022-12-21", "2022-12-21", "$250,001 - $500,000"],
    ["SP", "PayPal Holdings, Inc.", "PYPL", "ST", "S (partial)", "2022-12-28", "2022-12-28", "$250,001 - $500,000"],
    ["SP", "REOF XX, LLC", "", "AB", "P", "2022-12-27", "2022-12-27", "$15,001 - $50,000"],
    [
        "SP",
        "Roblox Corporation Class A",
        "RBLX",
        "ST",
        "S (partial)",
        "2022-12-28",
        "2022-12-28",
        "$100,001 - $250,000",
    ],
    ["SP", "Salesforce, Inc.", "CRM", "OP", "S", "2022-12-20", "2022-12-20", "$9.00"],
    ["SP", "Tesla, Inc.", "TSLA", "ST", "S (partial)", "2022-12-20", "2022-12-20", "$500,001 - $1,000,000"],
    ["SP", "Walt Disney Company", "DIS", "ST", "S (partial)", "2022-12-21", "2022-12-21", "$500,001 - $1,000,000"],
];

#[test]
fn pelosi_ptr_trades_match_the_rendered_pages() {
    let Some(pdf) = corpus("20022260.pdf") else { return };
    // The repository's copy is named " 20022260.pdf" (leading space); the DocID comes from the content anyway.
    let batch = parse(" 20022260.pdf", &pdf);
    assert_eq!(batch.format, PTR_PDF);
    assert_eq!(batch.problems, vec![]);
    let trades = records(&batch, TRADES);
    let read: Vec<[&str; 8]> = trades.iter().map(|t| ROW_FIELDS.map(|k| t[k].as_str().unwrap_or_default())).collect();
    assert_eq!(read, PELOSI_20022260);
    let kinds: Vec<&str> = trades.iter().map(|t| t["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "sale (partial)").count(), 11);
    assert_eq!((kinds[8], kinds[10]), ("purchase", "sale"));
    assert!(trades.iter().all(|t| t["filingStatus"] == "New" && t["transactionId"].is_null()));

    // Row 1 (page 1): Location, Description and Comments lines.
    assert_eq!(trades[0]["location"], "New York, NY, US");
    assert_eq!(trades[0]["description"], "Sold 20,000 shares.");
    assert_eq!(trades[0]["comment"], "Sold 20,000 shares at an average price of $32.95 for a total loss of $11,510.");
    assert_eq!(trades[1]["comment"], Value::Null);
    // Row 6 sits at the foot of page 1; its details are at the top of page 2.
    assert_eq!(trades[5]["description"], "Sold 1,000 shares.");
    assert_eq!(trades[5]["comment"], "Sold 1,000 shares at an average price of $292.89 for a total loss of $63,535.");
    // Wrapped description (row 9) and wrapped comment (row 11).
    assert_eq!(
        trades[8]["description"],
        "Additional investment in LLC which acquired five Courtyard by Marriott hotels located in Fairfax, VA \
         (one), suburban Baltimore, MD (two) and San Antonio, TX (two)."
    );
    assert_eq!(
        trades[10]["comment"],
        "Sold 130 call options purchased 12/20/21 (13,000 shares) at a price of $0.01 per share for a total \
         loss of $733,691."
    );

    let documents = records(&batch, DOCUMENTS);
    assert_eq!(documents.len(), 1);
    assert_eq!(
        *documents[0],
        json!({
            "docId": "20022260", "docIdFrom": "content", "fileName": " 20022260.pdf", "parseStatus": "parsed",
            "filerName": "Hon. Nancy Pelosi", "filerStatus": "Member", "stateDistrict": "CA12",
            "signedDate": "2023-01-12", "tradeRows": 13, "unreadRows": 0, "deletedRows": 0, "amendment": false
        })
    );
}

#[test]
fn pdf_records_are_keyed_by_doc_id_and_row_with_a_lineage() {
    let Some(pdf) = corpus("20022260.pdf") else { return };
    let batch = parse("20022260.pdf", &pdf);
    let keys: Vec<&str> = batch.records.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys[..3], ["20022260", "20022260:1", "20022260:2"]);
    assert_eq!(keys.last(), Some(&"20022260:13"));
    assert!(batch.records.iter().all(|r| r.group == "20022260"));
    let googl = &batch.records[2];
    assert_eq!(googl.lineage.as_deref(), Some("house-ptr|CA|nancy pelosi|SP|GOOGL|2022-12-28"));
    assert_eq!((googl.revision.as_str(), googl.amendment), ("2023-01-12/20022260", false));
    // Assets without a ticker are identified by their name.
    assert_eq!(
        batch.records[1].lineage.as_deref(),
        Some("house-ptr|CA|nancy pelosi|SP|alliance bernstein holding l.p. units|2022-12-28")
    );
}

#[test]
fn ingesting_the_same_file_twice_gives_the_same_records() {
    for name in ["2023FD.xml", "2023FD.txt", "20022260.pdf"] {
        let Some(bytes) = corpus(name) else { return };
        assert_eq!(parse(name, &bytes), parse(name, &bytes), "{name}");
    }
}

#[test]
fn the_pdf_doc_id_comes_from_the_content_else_the_file_name_else_it_is_refused() {
    // Hand-written fixtures of extracted text.
    let table = "Name: Hon. Jane Doe\nState/District: CA01\nID Owner Asset Transaction\nType Date Notification\n\n\
                 Apple Inc. (AAPL) [ST] P 01/03/2023 01/04/2023 $1,001 - $15,000\n\nF S: New\n";
    let from_name = ptr::parse_pages(&[table.to_string()], "reports/20000001.pdf").unwrap();
    assert_eq!(from_name.records[0].data["docIdFrom"], "file name");
    assert_eq!(from_name.records[1].key, "20000001:1");
    assert_eq!(from_name.records[1].data["owner"], "self");
    let refusal = ptr::parse_pages(&[table.to_string()], "report.pdf").unwrap_err();
    assert_eq!(refusal.location.as_deref(), Some("page 1"));
    assert!(refusal.reason.contains("cannot be tied to a filing"), "{refusal}");
    let with_id = format!("{table}Filing ID #20000009\n");
    let from_content = ptr::parse_pages(&[with_id], "20000001.pdf").unwrap();
    assert_eq!(from_content.records[0].key, "20000009");
    assert!(from_content.notes.iter().any(|n| n.contains("the file name says DocID 20000001")));
}

#[test]
fn a_pdf_without_text_is_an_unreadable_filing_and_one_without_a_table_is_refused() {
    // A scanned paper filing: the text layer is empty.
    let batch = ptr::parse_pages(&[String::new(), " \n".into()], "8220106.pdf").unwrap();
    assert_eq!(batch.records.len(), 1);
    assert_eq!(batch.records[0].collection, DOCUMENTS);
    assert_eq!(batch.records[0].data["parseStatus"], "unreadable");
    assert!(batch.records[0].data["reason"].as_str().unwrap().contains("no text layer"));
    // Text but no transaction table: not a PTR this parser can read.
    let refusal = ptr::parse_pages(&["Filing ID #10056211\nSchedule A: Assets".into()], "x.pdf").unwrap_err();
    assert_eq!(refusal.location.as_deref(), Some("page 1"));
    assert!(refusal.reason.starts_with("no transaction table"));
}

#[test]
fn unreadable_rows_are_problems_with_their_page_and_line_and_keep_their_row_number() {
    // Hand-written fixture: row 1 lacks its notification date, row 2 has a dangling amount, row 3 is fine.
    let text = "Filing ID #20000001\nName: Hon. Jane Doe\nState/District: CA01\nID Owner Asset Transaction\n\n\
                SP Apple Inc. (AAPL) [ST] P 01/03/2023 $1,001 - $15,000\n\nF S: New\n\n\
                JT Microsoft Corporation (MSFT) [ST] S 01/03/2023 01/04/2023 $1,001 -\n\nF S: New\n\n\
                DC Tesla, Inc. (TSLA) [ST] E 01/05/2023 01/06/2023 $15,001 - $50,000\n\nF S: New\n\
                * For the complete list of asset type abbreviations\nDigitally Signed: Hon. Jane Doe , 02/01/2023\n";
    let batch = ptr::parse_pages(&[text.to_string()], "x.pdf").unwrap();
    let problems: Vec<(&str, &str)> =
        batch.problems.iter().map(|p| (p.location.as_str(), p.message.as_str())).collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].0, "page 1, line 6");
    assert!(problems[0].1.starts_with("no transaction and notification dates"), "{}", problems[0].1);
    assert_eq!(problems[1].0, "page 1, line 10");
    assert!(problems[1].1.starts_with("amount `$1,001 -` is not a readable amount range"), "{}", problems[1].1);
    let keys: Vec<&str> = batch.records.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["20000001", "20000001:3"]);
    assert_eq!(batch.records[0].data["unreadRows"], 2);
    assert_eq!(batch.records[1].data["owner"], "DC");
    assert_eq!(batch.records[1].data["type"], "exchange");
}

/// Hand-written fixture in the extracted-text layout of an e-filed PTR: `rows` go between the table header
/// and the footnote.
pub(crate) fn ptr_text(doc_id: &str, signed: &str, rows: &str) -> String {
    format!(
        "P T R\n\nF I\n\nName: Hon. Jane Doe\n\nStatus: Member\n\nState/District: CA01\n\nT\n\n\
         ID Owner Asset Transaction\nType Date Notification\nDate Amount Cap.\nGains >\n$200?\n\n{rows}\n\
         Filing ID #{doc_id}\n* For the complete list of asset type abbreviations, please visit x.\n\n\
         Digitally Signed: Hon. Jane Doe , {signed}\n"
    )
}

#[test]
fn an_amending_ptr_replaces_the_matching_trades_of_the_original() {
    let original = ptr_text(
        "20000001",
        "01/10/2023",
        "SP Apple Inc. (AAPL) [ST] P 01/03/2023 01/04/2023 $1,001 - $15,000\n\nF S: New\n\n\
         SP Tesla, Inc. (TSLA) [ST] S 01/05/2023 01/05/2023 $15,001 - $50,000\n\nF S: New\n",
    );
    // The amendment corrects the Apple amount and withdraws the Tesla sale; the Clerk's transaction id is
    // printed in front of the owner code on both rows.
    let amendment = ptr_text(
        "20000050",
        "02/20/2023",
        "2000166568SP Apple Inc. (AAPL) [ST] P 01/03/2023 01/04/2023 $15,001 - $50,000\n\nF S: Amended\n\
         D: Amount corrected.\n\n\
         2000166569 SP Tesla, Inc. (TSLA) [ST] S 01/05/2023 01/05/2023 $15,001 - $50,000\n\nF S: Deleted\n",
    );
    let original = ptr::parse_pages(&[original], "a.pdf").unwrap();
    let amendment = ptr::parse_pages(&[amendment], "b.pdf").unwrap();
    assert_eq!(original.records[0].data["amendment"], false);
    assert_eq!(amendment.records[0].data["amendment"], true);
    assert_eq!(amendment.records[0].data["deletedRows"], 1);
    for (old, new) in original.records[1..].iter().zip(&amendment.records[1..]) {
        assert_eq!(old.lineage, new.lineage, "the amendment's row names the trade it replaces");
        assert!(!old.amendment && new.amendment);
        assert!(new.revision > old.revision, "{} > {}", new.revision, old.revision);
    }
    assert_eq!(amendment.records[1].revision, "2023-02-20/20000050");
    assert_eq!(amendment.records[1].data["transactionId"], "2000166568");
    assert_eq!(amendment.records[1].data["owner"], "SP");
    assert_eq!(amendment.records[1].data["amountRange"], "$15,001 - $50,000");
    assert_eq!(amendment.records[2].data["transactionId"], "2000166569");
    assert_eq!(amendment.records[2].data["filingStatus"], "Deleted");
    assert!(amendment.notes.iter().any(|n| n.contains("amends an earlier PTR")));
}

/// Served from the records engine's table (the test host answers `records.query` from the ingested records):
/// the ticker filter finds filings through their stored rows in any spelling, a `Deleted` row is neither a
/// trade nor a match, and `filingsWithTrades` counts filings with a stored trade.
#[test]
fn table_backed_trades_are_read_per_filing_and_per_ticker() {
    let original = ptr_text(
        "20000001",
        "01/10/2023",
        "SP Apple Inc. (AAPL) [ST] P 01/03/2023 01/04/2023 $1,001 - $15,000\n\nF S: New\n\n\
         SP Tesla, Inc. (TSLA) [ST] S 01/05/2023 01/05/2023 $15,001 - $50,000\n\nF S: New\n",
    );
    let amendment = ptr_text(
        "20000050",
        "02/20/2023",
        "2000166569 SP Tesla, Inc. (TSLA) [ST] S 01/05/2023 01/05/2023 $15,001 - $50,000\n\nF S: Deleted\n",
    );
    let berkshire = ptr_text(
        "20000077",
        "03/01/2023",
        "JT Berkshire Hathaway Inc. Class B (BRK.B) [ST] P 02/27/2023 02/28/2023 $1,001 - $15,000\n\nF S: New\n",
    );
    let batches: Vec<IngestBatch> = [(original, "a.pdf"), (amendment, "b.pdf"), (berkshire, "c.pdf")]
        .into_iter()
        .map(|(text, name)| ptr::parse_pages(&[text], name).unwrap())
        .collect();
    let host = datahost_plugin_api::testing::TestHost::new();
    host.set_ingested(crate::SLUG, &batches);
    let plugin = host.init::<crate::CongressTrades>().unwrap();
    let get = |query: &[(&str, &str)]| datahost_plugin_api::testing::get(&plugin, crate::ROUTE, query).1;
    let ids = |body: &Value| -> Vec<String> {
        body["filings"].as_array().unwrap().iter().map(|f| f["docId"].as_str().unwrap().to_string()).collect()
    };

    let all = get(&[]);
    assert_eq!(ids(&all), ["20000077", "20000050", "20000001"], "newest first");
    let trades: Vec<usize> =
        all["filings"].as_array().unwrap().iter().map(|f| f["trades"].as_array().unwrap().len()).collect();
    assert_eq!(trades, [1, 0, 2], "the amendment's only row is a deletion, not a trade");
    assert_eq!(all["meta"]["filingsWithTrades"], 2);

    let tsla = get(&[("ticker", "tsla")]);
    assert_eq!(ids(&tsla), ["20000001"], "the deletion row does not make the amendment a TSLA filing");
    assert_eq!(tsla["filings"][0]["trades"].as_array().unwrap().len(), 1, "only the TSLA trade of the filing");
    assert_eq!(tsla["filings"][0]["trades"][0]["ticker"], "TSLA");

    let brk = get(&[("ticker", "brk-b")]);
    assert_eq!(ids(&brk), ["20000077"], "BRK.B as printed, asked as brk-b");
    assert_eq!(brk["filings"][0]["trades"][0]["owner"], "JT");
    assert_eq!(get(&[("ticker", "NVDA")])["count"], 0);
    assert_eq!(ids(&get(&[("ticker", "aapl"), ("member", "jane")])), ["20000001"]);
}
