//! Parser tests on every Form 4 file of the shared corpus (values read by hand from the files: see the
//! comments), on hand-written malformed fixtures (named as such), and the ingest -> serve path through the
//! SDK's test host.

use datahost_plugin_api::reference::CompanyRef;
use datahost_plugin_api::testing::{get, TestHost};
use datahost_plugin_api::{IngestBatch, Plugin, Refusal, SourceFile};
use serde_json::{json, Value};

use crate::ingest::{affirms_10b5_1_plan, FORMS, TRANSACTIONS};
use crate::{Insiders, ROUTE};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/sec-form4/");
const SNOW: &str = "form4.snow.xml";
const WATER: &str = "374WaterForm4.xml";
const AAR: &str = "0001127602-25-001055.txt";
const ARROW: &str = "0001127602-25-004598.nc";
const APPLE: &str = "0000320193-22-000061.txt";

/// The corpus file, or `None` (with a note) when the corpus is not on this machine.
fn corpus(name: &str) -> Option<Vec<u8>> {
    match std::fs::read(format!("{CORPUS}{name}")) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("corpus absent: skipping");
            None
        }
    }
}

fn parse(name: &str, bytes: &[u8]) -> Result<IngestBatch, Refusal> {
    Insiders::ingest(&SourceFile { name, bytes })
}

fn parse_corpus(name: &str) -> Option<IngestBatch> {
    corpus(name).map(|bytes| parse(name, &bytes).unwrap_or_else(|r| panic!("{name} refused: {r}")))
}

/// The data of the batch's records of one collection, in file order.
fn data<'a>(batch: &'a IngestBatch, collection: &str) -> Vec<&'a Value> {
    batch.records.iter().filter(|r| r.collection == collection).map(|r| &r.data).collect()
}

fn footnote_ids(row: &Value) -> Vec<&str> {
    row["footnotes"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect()
}

/// (table, code, acquiredDisposed, shares, price) of every transaction row.
fn trades(batch: &IngestBatch) -> Vec<(String, String, String, f64, Option<f64>)> {
    data(batch, TRANSACTIONS)
        .iter()
        .map(|r| {
            (
                r["table"].as_str().unwrap().to_string(),
                r["code"].as_str().unwrap().to_string(),
                r["acquiredDisposed"].as_str().unwrap().to_string(),
                r["shares"].as_f64().unwrap(),
                r["price"].as_f64(),
            )
        })
        .collect()
}

fn trade(
    table: &str,
    code: &str,
    ad: &str,
    shares: f64,
    price: Option<f64>,
) -> (String, String, String, f64, Option<f64>) {
    (table.into(), code.into(), ad.into(), shares, price)
}

const ND: &str = "non-derivative";

#[test]
fn snowflake_bare_xml_six_non_derivative_and_one_derivative_row() {
    let Some(batch) = parse_corpus(SNOW) else { return };
    assert_eq!(batch.format, "form4-xml");
    assert!(batch.problems.is_empty(), "{:?}", batch.problems);
    // Lines 34-247 of form4.snow.xml: M then five S rows; lines 403-453: one derivative M row.
    assert_eq!(
        trades(&batch),
        [
            trade(ND, "M", "A", 200000.0, Some(8.88)),
            trade(ND, "S", "D", 73170.0, Some(150.841)),
            trade(ND, "S", "D", 74907.0, Some(151.814)),
            trade(ND, "S", "D", 41986.0, Some(152.655)),
            trade(ND, "S", "D", 5496.0, Some(153.872)),
            trade(ND, "S", "D", 4441.0, Some(154.76)),
            trade("derivative", "M", "A", 200000.0, Some(0.0)),
        ]
    );
    let rows = data(&batch, TRANSACTIONS);
    let first = rows[0];
    assert_eq!((first["ticker"].as_str(), first["issuerCik"].as_str()), (Some("SNOW"), Some("0001640147")));
    assert_eq!(first["issuerName"], "Snowflake Inc.");
    assert_eq!((first["owner"].as_str(), first["ownerCik"].as_str()), (Some("Scarpelli Michael"), Some("0001402349")));
    assert_eq!(first["titles"], json!(["Chief Financial Officer"]));
    let owner = &first["owners"][0];
    assert_eq!(
        (&owner["isDirector"], &owner["isOfficer"], &owner["isTenPercentOwner"], &owner["isOther"]),
        (&json!(false), &json!(true), &json!(false), &json!(false))
    );
    assert_eq!((first["date"].as_str(), first["periodOfReport"].as_str()), (Some("2022-12-13"), Some("2022-12-13")));
    assert_eq!(first["sharesOwnedFollowing"], 301097.0);
    assert_eq!(footnote_ids(first), ["F1"]);
    // Bare XML: no header, and the file name carries no accession number.
    assert_eq!(
        (&first["filedDate"], &first["accessionNumber"], &first["sourceUrl"]),
        (&json!(null), &json!(null), &json!(null))
    );
    assert_eq!(first["accessionKnown"], false);
    assert!(first["filingId"].as_str().unwrap().starts_with("xml-sha256-"));
    // Schema X0306 has no aff10b5One; F2 speaks of "financial and tax planning", not a 10b5-1 plan.
    assert_eq!((&rows[1]["aff10b5One"], &rows[1]["tradingPlan"]), (&json!(null), &json!(false)));
    assert_eq!(footnote_ids(rows[1]), ["F2", "F3"]);
    assert!(rows[1]["footnotes"][1]["text"].as_str().unwrap().starts_with(
        "The price reported in Column 4 is a weighted-average price. The shares were sold in multiple transactions \
         ranging from $150.300 to $151.295, inclusive."
    ));
    let option = rows[6];
    assert_eq!(option["securityTitle"], "Stock Option (Right to Buy)");
    assert_eq!((option["exercisePrice"].as_f64(), option["underlyingShares"].as_f64()), (Some(8.88), Some(200000.0)));
    assert_eq!(option["underlyingSecurity"], "Class A Common Stock");
    assert_eq!(footnote_ids(option), ["F16"]);
    // Eight nonDerivativeHolding rows are counted in the filing record, not stored as transactions.
    let form = data(&batch, FORMS)[0];
    assert_eq!((form["transactionRows"].as_u64(), form["holdingRows"].as_u64()), (Some(7), Some(8)));
    assert_eq!(form["signatureDate"], "2022-12-14");
    assert!(batch.notes.iter().any(|n| n.contains("filedDate is unknown")), "{:?}", batch.notes);
}

#[test]
fn water_bare_xml_booleans_written_true_false_and_absent_relationships() {
    let Some(batch) = parse_corpus(WATER) else { return };
    assert_eq!(batch.format, "form4-xml");
    assert_eq!(
        trades(&batch),
        [trade(ND, "A", "A", 757756.0, Some(0.0)), trade("derivative", "A", "A", 757576.0, Some(0.0))]
    );
    let rows = data(&batch, TRANSACTIONS);
    // <isOfficer>true</isOfficer> only: the absent isDirector, isTenPercentOwner and isOther are false.
    let owner = &rows[0]["owners"][0];
    assert_eq!((owner["name"].as_str(), owner["cik"].as_str()), (Some("Melkote Rajesh Ramaswamy"), Some("0002064133")));
    assert_eq!(
        (&owner["isDirector"], &owner["isOfficer"], &owner["isTenPercentOwner"], &owner["isOther"]),
        (&json!(false), &json!(true), &json!(false), &json!(false))
    );
    assert_eq!(owner["officerTitle"], "Chief Technology Officer");
    // <aff10b5One>false</aff10b5One>.
    assert_eq!((&rows[0]["aff10b5One"], &rows[0]["tradingPlan"]), (&json!(false), &json!(false)));
    assert_eq!(rows[0]["securityTitle"], "Common Stock (restricted stock units)");
    assert_eq!((rows[1]["exercisePrice"].as_f64(), rows[1]["underlyingShares"].as_f64()), (Some(0.33), Some(757576.0)));
    assert_eq!((rows[0]["ticker"].as_str(), rows[0]["issuerCik"].as_str()), (Some("SCWO"), Some("0000933972")));
}

#[test]
fn aar_edgar_txt_header_gives_accession_filed_date_and_archive_url() {
    let Some(batch) = parse_corpus(AAR) else { return };
    assert_eq!(batch.format, "edgar-txt");
    assert_eq!(trades(&batch), [trade(ND, "S", "D", 1500.0, Some(66.903))]);
    let row = data(&batch, TRANSACTIONS)[0];
    // SEC-HEADER lines 5 and 9: ACCESSION NUMBER 0001127602-25-001055, FILED AS OF DATE 20250110.
    assert_eq!(row["accessionNumber"], "0001127602-25-001055");
    assert_eq!(row["filedDate"], "2025-01-10");
    assert_eq!(
        row["sourceUrl"],
        "https://www.sec.gov/Archives/edgar/data/1750/000112760225001055/0001127602-25-001055.txt"
    );
    assert_eq!((row["ticker"].as_str(), row["issuerName"].as_str()), (Some("AIR"), Some("AAR CORP")));
    assert_eq!(row["owner"], "Garascia Jessica A.");
    // `Senior VP, GC, CAO &amp; Secretary` unescaped.
    assert_eq!(row["titles"], json!(["Senior VP, GC, CAO & Secretary"]));
    assert_eq!((&row["aff10b5One"], &row["tradingPlan"]), (&json!(false), &json!(false)));
    assert_eq!(row["sharesOwnedFollowing"], 37565.0);
    assert_eq!(batch.records.iter().map(|r| r.group.as_str()).collect::<Vec<_>>(), ["0001127602-25-001055"; 2]);
    assert_eq!(batch.records[0].key, "0001127602-25-001055/non-derivative/1");
    assert_eq!(batch.records[0].lineage.as_deref(), Some("0000001750/0001806647/2025-01-10"));
    assert_eq!(batch.records[0].revision, "2025-01-10/0001127602-25-001055");
    assert!(!batch.records[0].amendment);
}

#[test]
fn arrow_edgar_nc_grant_and_tax_withholding() {
    let Some(batch) = parse_corpus(ARROW) else { return };
    assert_eq!(batch.format, "edgar-nc");
    assert_eq!(trades(&batch), [trade(ND, "A", "A", 2193.0, Some(106.82)), trade(ND, "F", "D", 1009.0, Some(106.82))]);
    let rows = data(&batch, TRANSACTIONS);
    // <ACCESSION-NUMBER>0001127602-25-004598 ... <FILING-DATE>20250213.
    assert_eq!(
        (rows[0]["accessionNumber"].as_str(), rows[0]["filedDate"].as_str()),
        (Some("0001127602-25-004598"), Some("2025-02-13"))
    );
    assert_eq!(
        rows[0]["sourceUrl"],
        "https://www.sec.gov/Archives/edgar/data/7536/000112760225004598/0001127602-25-004598.txt"
    );
    assert_eq!((rows[0]["ticker"].as_str(), rows[0]["issuerCik"].as_str()), (Some("ARW"), Some("0000007536")));
    assert_eq!(rows[0]["owner"], "Jean-Claude Carine Lamercie");
    assert_eq!(rows[0]["titles"], json!(["SVP, CLO & Secretary"]));
    // F1 is on the securityTitle of row 1, F2 on row 2.
    assert_eq!((footnote_ids(rows[0]), footnote_ids(rows[1])), (vec!["F1"], vec!["F2"]));
    assert!(rows[1]["footnotes"][0]["text"].as_str().unwrap().starts_with("Represents shares withheld to satisfy tax"));
}

#[test]
fn apple_seven_sales_under_a_10b5_1_plan_named_in_footnotes() {
    let Some(batch) = parse_corpus(APPLE) else { return };
    assert_eq!(batch.format, "edgar-txt");
    assert!(batch.problems.is_empty());
    assert_eq!(
        trades(&batch),
        [
            trade(ND, "S", "D", 9136.0, Some(159.94)),
            trade(ND, "S", "D", 5316.0, Some(160.82)),
            trade(ND, "S", "D", 4006.0, Some(161.93)),
            trade(ND, "S", "D", 900.0, Some(162.77)),
            trade(ND, "S", "D", 1550.0, Some(163.94)),
            trade(ND, "S", "D", 1800.0, Some(165.06)),
            trade(ND, "S", "D", 2292.0, Some(165.95)),
        ]
    );
    let price_footnotes = ["F2", "F3", "F4", "F5", "F6", "F7", "F8"];
    for (row, price_note) in data(&batch, TRANSACTIONS).into_iter().zip(price_footnotes) {
        // Every row cites F1 ("pursuant to a Rule 10b5-1 trading plan adopted ... on August 16, 2021") on its
        // security title, and its own weighted-average-price footnote. The X0306 form has no checkbox.
        assert_eq!(footnote_ids(row), ["F1", price_note]);
        assert_eq!(
            row["footnotes"][0]["text"],
            "This transaction was made pursuant to a Rule 10b5-1 trading plan adopted by the reporting person on \
             August 16, 2021."
        );
        assert_eq!((&row["aff10b5One"], &row["tradingPlan"]), (&json!(null), &json!(true)));
        assert_eq!(row["tradingPlanEvidence"], "footnote");
        assert_eq!(
            (row["accessionNumber"].as_str(), row["filedDate"].as_str()),
            (Some("0000320193-22-000061"), Some("2022-05-06"))
        );
        assert_eq!(row["owner"], "Adams Katherine L.");
        assert_eq!(row["titles"], json!(["SVP, GC and Secretary"]));
    }
    assert_eq!(data(&batch, FORMS)[0]["holdingRows"], 0);
}

#[test]
fn ingesting_the_same_file_twice_gives_the_same_keys_and_data() {
    for name in [SNOW, WATER, AAR, ARROW, APPLE] {
        let Some(bytes) = corpus(name) else { return };
        let first = parse(name, &bytes).unwrap();
        let second = parse(name, &bytes).unwrap();
        assert_eq!(first, second, "{name}");
        let mut keys: Vec<&str> = first.records.iter().map(|r| r.key.as_str()).collect();
        let count = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), count, "keys are unique within {name}");
    }
    // The content-derived id of a bare XML does not depend on the file name.
    let Some(bytes) = corpus(SNOW) else { return };
    let a = parse("a/form4.snow.xml", &bytes).unwrap();
    let b = parse("elsewhere.xml", &bytes).unwrap();
    assert_eq!(a.records, b.records);
}

#[test]
fn bare_xml_takes_its_accession_from_the_file_name() {
    let Some(bytes) = corpus(WATER) else { return };
    // The file name is made up for this test; only its accession pattern matters.
    let batch = parse("downloads/0000933972-25-000099.xml", &bytes).unwrap();
    let row = data(&batch, TRANSACTIONS)[0];
    assert_eq!(
        (row["accessionNumber"].as_str(), row["accessionKnown"].as_bool()),
        (Some("0000933972-25-000099"), Some(true))
    );
    assert_eq!(row["filedDate"], json!(null));
    assert_eq!(
        row["sourceUrl"],
        "https://www.sec.gov/Archives/edgar/data/933972/000093397225000099/0000933972-25-000099.txt"
    );
    assert_eq!(batch.records[0].group, "0000933972-25-000099");
    // No filed date: the signature date (2025-05-02) orders revisions.
    assert_eq!(batch.records[0].revision, "2025-05-02/0000933972-25-000099");
}

#[test]
fn an_amendment_shares_the_lineage_of_what_it_amends_with_a_later_revision() {
    let Some(bytes) = corpus(AAR) else { return };
    let original = parse(AAR, &bytes).unwrap();
    // A 4/A derived from the AAR submission for this test: new accession, later filed date, documentType 4/A.
    let amended_text = String::from_utf8(bytes)
        .unwrap()
        .replace("0001127602-25-001055", "0001127602-25-001999")
        .replace("CONFORMED SUBMISSION TYPE:\t4", "CONFORMED SUBMISSION TYPE:\t4/A")
        .replace("FILED AS OF DATE:\t\t20250110", "FILED AS OF DATE:\t\t20250114")
        .replace("<documentType>4</documentType>", "<documentType>4/A</documentType>");
    let amended = parse("0001127602-25-001999.txt", amended_text.as_bytes()).unwrap();
    let (o, a) = (&original.records[0], &amended.records[0]);
    assert_eq!(o.lineage, a.lineage);
    assert!(a.amendment && !o.amendment);
    assert!(a.revision > o.revision, "{} > {}", a.revision, o.revision);
    assert_eq!(a.group, "0001127602-25-001999");
    assert_eq!((a.data["documentType"].as_str(), a.data["amendment"].as_bool()), (Some("4/A"), Some(true)));
    assert!(amended.notes.is_empty(), "{:?}", amended.notes);
    // Every record of the filing, the forms record too, carries the lineage.
    assert!(amended.records.iter().all(|r| r.lineage == a.lineage && r.amendment));
}

/// A hand-written minimal ownershipDocument around `body` (rows, footnotes), for malformed-input tests.
fn fixture(owners: &str, body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<ownershipDocument>\n<schemaVersion>X0508</schemaVersion>\n\
         <documentType>4</documentType>\n<periodOfReport>2025-03-03</periodOfReport>\n\
         <issuer><issuerCik>0000000042</issuerCik><issuerName>Fixture Corp</issuerName>\
         <issuerTradingSymbol>NONE</issuerTradingSymbol></issuer>\n{owners}\n{body}\n</ownershipDocument>\n"
    )
}

const FIXTURE_OWNER: &str = "<reportingOwner><reportingOwnerId><rptOwnerCik>0000000007</rptOwnerCik>\
    <rptOwnerName>Doe Pat</rptOwnerName></reportingOwnerId><reportingOwnerRelationship><isDirector>1</isDirector>\
    <isOfficer>1</isOfficer><officerTitle>President and CEO</officerTitle></reportingOwnerRelationship>\
    </reportingOwner>";

fn fixture_row(code: &str, shares: &str, price: &str) -> String {
    format!(
        "<nonDerivativeTransaction>\n<securityTitle><value>Common Stock</value></securityTitle>\n\
         <transactionDate><value>2025-03-03</value></transactionDate>\n\
         <transactionCoding><transactionCode>{code}</transactionCode></transactionCoding>\n\
         <transactionAmounts><transactionShares><value>{shares}</value></transactionShares>\n\
         <transactionPricePerShare>{price}</transactionPricePerShare>\n\
         <transactionAcquiredDisposedCode><value>D</value></transactionAcquiredDisposedCode></transactionAmounts>\n\
         </nonDerivativeTransaction>"
    )
}

#[test]
fn unreadable_rows_are_reported_with_their_path_and_the_rest_applies() {
    let body = format!(
        "<nonDerivativeTable>\n{}\n{}\n{}\n{}\n</nonDerivativeTable>\n\
         <footnotes><footnote id=\"F1\">Weighted average; see the range.</footnote></footnotes>",
        fixture_row("S", "100", "<value>10.5</value>"),
        fixture_row("S", "12x", "<value>10.5</value>"),
        fixture_row("Q", "100", "<value>10.5</value>"),
        // The price is given only by a footnote: null, not 0.
        fixture_row("S", "40", "<footnoteId id=\"F1\"/>"),
    );
    let batch = parse("fixture.xml", fixture(FIXTURE_OWNER, &body).as_bytes()).unwrap();
    let rows = data(&batch, TRANSACTIONS);
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0]["price"].as_f64(), rows[0]["shares"].as_f64()), (Some(10.5), Some(100.0)));
    assert_eq!((&rows[1]["price"], rows[1]["shares"].as_f64()), (&json!(null), Some(40.0)));
    assert_eq!(footnote_ids(rows[1]), ["F1"]);
    assert_eq!(batch.records[1].key.rsplit('/').next(), Some("4"), "rows keep their position in the table");
    let problems: Vec<(&str, &str)> =
        batch.problems.iter().map(|p| (p.location.as_str(), p.message.as_str())).collect();
    assert_eq!(
        problems,
        [
            (
                "/ownershipDocument/nonDerivativeTable/nonDerivativeTransaction[2] (line 17)",
                "transactionShares `12x` is not a number"
            ),
            (
                "/ownershipDocument/nonDerivativeTable/nonDerivativeTransaction[3] (line 25)",
                "transactionCode `Q` is not a Form 4 transaction code"
            ),
        ]
    );
    // `NONE` is no ticker; the relationship gives both titles, officer title first.
    assert_eq!(rows[0]["ticker"], "");
    assert_eq!(rows[0]["titles"], json!(["President and CEO", "Director"]));
}

#[test]
fn unreadable_files_are_refused_whole_with_a_location() {
    let refusal = |name: &str, text: &str| parse(name, text.as_bytes()).unwrap_err();
    // Hand-written malformed fixtures.
    let r = refusal("notes.txt", "Form 4 filed by Pat Doe\n");
    assert_eq!(r.location.as_deref(), Some("line 1"));
    let r = refusal("13f.xml", "<?xml version=\"1.0\"?>\n<informationTable><infoTable/></informationTable>\n");
    assert_eq!(r.reason, "the root element is <informationTable>, not a Form 4 <ownershipDocument>");
    assert_eq!(r.location.as_deref(), Some("/informationTable (line 2)"));
    // Line 8 opens <nonDerivativeTable>, line 9 closes another element.
    let r = refusal("bad.xml", &fixture(FIXTURE_OWNER, "<nonDerivativeTable>\n</derivativeTable>"));
    assert!(r.reason.starts_with("malformed XML"), "{r}");
    assert!(r.location.as_deref().unwrap().contains("(line 9)"), "{r}");
    let form3 = fixture(FIXTURE_OWNER, "").replace("<documentType>4<", "<documentType>3<");
    assert_eq!(refusal("f3.xml", &form3).reason, "documentType `3` is not a Form 4 or 4/A");
    let r = refusal("no-owner.xml", &fixture("", ""));
    assert_eq!(r.reason, "the form names no reportingOwner");
    let yes = FIXTURE_OWNER.replace("<isDirector>1<", "<isDirector>yes<");
    let r = refusal("flag.xml", &fixture(&yes, ""));
    assert_eq!(r.reason, "`yes` is not a boolean (1/0, true/false)");
    assert!(r
        .location
        .as_deref()
        .unwrap()
        .starts_with("/ownershipDocument/reportingOwner[1]/reportingOwnerRelationship/isDirector"));

    let Some(snow) = corpus(SNOW) else { return };
    // form4.snow.xml cut just before its </derivativeTransaction> (line 453): the transaction is still open.
    let cut = &snow[..String::from_utf8_lossy(&snow).find("</derivativeTransaction>").unwrap()];
    let r = parse(SNOW, cut).unwrap_err();
    assert_eq!(r.reason, "the XML ends inside <derivativeTransaction>: the document is truncated");
    assert!(r
        .location
        .as_deref()
        .unwrap()
        .starts_with("/ownershipDocument/derivativeTable/derivativeTransaction (line "));
    let Some(aar) = corpus(AAR) else { return };
    let aar = String::from_utf8(aar).unwrap();
    // The AAR submission cut before its </XML>.
    let cut = &aar[..aar.find("</ownershipDocument>").unwrap()];
    let r = parse(AAR, cut.as_bytes()).unwrap_err();
    assert_eq!(r.reason, "the <XML> block opened at line 64 never ends: the file is truncated");
    let no_accession = aar.replace("ACCESSION NUMBER:", "ACCESSION NO:");
    assert_eq!(parse(AAR, no_accession.as_bytes()).unwrap_err().reason, "the EDGAR header has no ACCESSION NUMBER");
    let r = parse(AAR, &aar.as_bytes()[..aar.find("</SEC-HEADER>").unwrap()]).unwrap_err();
    assert!(r.reason.contains("no </SEC-HEADER>"), "{r}");
}

#[test]
fn footnotes_affirming_or_denying_a_10b5_1_plan() {
    assert!(affirms_10b5_1_plan("This transaction was made pursuant to a Rule 10b5-1 trading plan adopted on May 1."));
    assert!(affirms_10b5_1_plan("Weighted average. The sale was effected under a 10B5-1 plan."));
    assert!(!affirms_10b5_1_plan("This sale was not made pursuant to a Rule 10b5-1 trading plan."));
    assert!(!affirms_10b5_1_plan("The price reported is a weighted-average price."));
}

/// Every corpus file, assembled as the host would serve it.
fn corpus_batches() -> Option<Vec<IngestBatch>> {
    [SNOW, WATER, AAR, ARROW, APPLE].iter().map(|name| parse_corpus(name)).collect()
}

#[test]
fn ingested_filings_are_served_per_issuer_with_real_meta() {
    let Some(batches) = corpus_batches() else { return };
    let host = TestHost::new();
    host.set_ingested(crate::SLUG, &batches);
    let plugin = host.init::<Insiders>().unwrap();
    let (status, body) = get(&plugin, ROUTE, &[]);
    assert_eq!(status, 200);
    let tickers: Vec<&str> =
        body["companies"].as_array().unwrap().iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    assert_eq!(tickers, ["AAPL", "AIR", "ARW", "SCWO", "SNOW"]);
    assert_eq!(body["count"], 5);
    let meta = &body["meta"];
    for field in ["source", "caveat", "method"] {
        assert!(!meta[field].as_str().unwrap().to_lowercase().contains("demo"), "{field}: {meta}");
    }
    assert!(meta["caveat"].as_str().unwrap().contains("not a bearish view"));
    assert!(meta["source"].as_str().unwrap().contains("19 transaction rows from 5 filings in 5 ingested files"));
    assert_eq!(meta["sourceUrl"], "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&type=4");

    let (_, aapl) = get(&plugin, ROUTE, &[("ticker", "aapl")]);
    let company = &aapl["companies"][0];
    assert_eq!((company["company"].as_str(), company["cik"].as_str()), (Some("Apple Inc."), Some("0000320193")));
    // The only reporting owner is the general counsel: no CEO is known.
    assert_eq!(company["ceo"], "");
    let filings = company["filings"].as_array().unwrap();
    assert_eq!(filings.len(), 7);
    let first = &filings[0];
    for field in ["owner", "title", "code", "acquiredDisposed", "accessionNumber", "sourceUrl", "date"] {
        assert!(first[field].is_string(), "{field} in {first}");
    }
    assert_eq!(first["title"], "SVP, GC and Secretary");
    assert_eq!((first["shares"].as_f64(), first["price"].as_f64()), (Some(9136.0), Some(159.94)));
    // 9,136 x 159.94 = 1,461,211.84.
    assert_eq!(first["value"].as_f64(), Some(1_461_211.84));
    assert_eq!((first["tradingPlan"].as_bool(), first["table"].as_str()), (Some(true), Some(ND)));
    assert_eq!((first["isOfficer"].as_bool(), first["isDirector"].as_bool()), (Some(true), Some(false)));
    assert_eq!(first["footnotes"][0]["id"], "F1");

    let (_, snow) = get(&plugin, ROUTE, &[("ticker", "SNOW")]);
    let filings = snow["companies"][0]["filings"].as_array().unwrap();
    assert_eq!(filings.len(), 7);
    // 73,170 x 150.841 = 11,037,035.97.
    let sale = filings.iter().find(|f| f["shares"] == 73170.0).unwrap();
    assert_eq!(sale["value"].as_f64(), Some(11_037_035.97));
    assert_eq!(
        (&sale["filedDate"], &sale["accessionNumber"], &sale["aff10b5One"]),
        (&json!(null), &json!(null), &json!(null))
    );
    let (_, air) = get(&plugin, ROUTE, &[("ticker", "AIR")]);
    // 1,500 x 66.903 = 100,354.50.
    assert_eq!(air["companies"][0]["filings"][0]["value"].as_f64(), Some(100_354.5));
}

#[test]
fn a_filing_without_ticker_is_resolved_through_the_host_and_the_ceo_is_found() {
    let body = format!("<nonDerivativeTable>{}</nonDerivativeTable>", fixture_row("S", "10", "<value>3.25</value>"));
    // Hand-written fixture: issuerTradingSymbol NONE, owner `President and CEO`.
    let batch = parse("fixture.xml", fixture(FIXTURE_OWNER, &body).as_bytes()).unwrap();
    let host = TestHost::new();
    host.set_ingested(crate::SLUG, std::slice::from_ref(&batch));
    let unresolved = host.init::<Insiders>().unwrap();
    let (_, body_unresolved) = get(&unresolved, ROUTE, &[]);
    assert_eq!(body_unresolved["companies"][0]["ticker"], "");
    assert!(
        host.logs().iter().any(|l| l.contains("no ticker known for issuer CIK(s) 0000000042")),
        "{:?}",
        host.logs()
    );
    host.set_companies(vec![CompanyRef {
        cik: "0000000042".into(),
        ticker: "FXTR".into(),
        name: "FIXTURE CORP".into(),
    }]);
    let (_, resolved) = get(&host.init::<Insiders>().unwrap(), ROUTE, &[("ticker", "fxtr")]);
    let company = &resolved["companies"][0];
    assert_eq!((company["ticker"].as_str(), company["company"].as_str()), (Some("FXTR"), Some("Fixture Corp")));
    assert_eq!(company["ceo"], "Doe Pat");
    assert_eq!(company["filings"][0]["value"].as_f64(), Some(32.5));
}

#[test]
fn a_joint_filing_keeps_every_reporting_owner() {
    let second = FIXTURE_OWNER.replace("0000000007", "0000000008").replace("Doe Pat", "Doe Holdings LLC").replace(
        "<isDirector>1</isDirector><isOfficer>1</isOfficer><officerTitle>President and CEO</officerTitle>",
        "<isTenPercentOwner>1</isTenPercentOwner>",
    );
    let body = format!("<nonDerivativeTable>{}</nonDerivativeTable>", fixture_row("S", "10", "<value>1</value>"));
    let batch = parse("joint.xml", fixture(&format!("{FIXTURE_OWNER}{second}"), &body).as_bytes()).unwrap();
    let row = data(&batch, TRANSACTIONS)[0];
    assert_eq!(row["owner"], "Doe Pat");
    assert_eq!(row["owners"].as_array().unwrap().len(), 2);
    assert_eq!(batch.records[0].lineage.as_deref(), Some("0000000042/0000000007+0000000008/2025-03-03"));
    let host = TestHost::new();
    host.set_ingested(crate::SLUG, &[batch]);
    let (_, served) = get(&host.init::<Insiders>().unwrap(), ROUTE, &[]);
    assert_eq!(
        served["companies"][0]["filings"][0]["jointOwners"],
        json!([{"name": "Doe Holdings LLC", "cik": "0000000008", "title": "10% Owner"}])
    );
}

#[test]
fn dates_with_a_time_zone_offset_are_read_as_their_day() {
    // Hand-written fixture: EDGAR forms sometimes write `2025-03-03-05:00`.
    let body = format!("<nonDerivativeTable>{}</nonDerivativeTable>", fixture_row("S", "1", "<value>2</value>"))
        .replace("<value>2025-03-03</value>", "<value>2025-03-03-05:00</value>");
    let xml = fixture(FIXTURE_OWNER, &body).replace("2025-03-03</periodOfReport>", "2025-03-03-05:00</periodOfReport>");
    let batch = parse("tz.xml", xml.as_bytes()).unwrap();
    let row = data(&batch, TRANSACTIONS)[0];
    assert_eq!((row["date"].as_str(), row["periodOfReport"].as_str()), (Some("2025-03-03"), Some("2025-03-03")));
    let bad = fixture(FIXTURE_OWNER, &body.replace("2025-03-03-05:00", "03/03/2025"));
    let batch = parse("bad-date.xml", bad.as_bytes()).unwrap();
    assert_eq!(batch.problems[0].message, "transactionDate `03/03/2025` is not a date");
}
