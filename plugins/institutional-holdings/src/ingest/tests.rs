//! Parser tests on every file of the 13F corpus (`/work/shared/corpus/sec-13f`), on hand-written malformed
//! fixtures derived from them, and through `init` on what the host would serve. Every asserted value was read
//! in the source file itself (the comment says where), never taken from the parser's output.

use datahost_plugin_api::reference::CompanyRef;
use datahost_plugin_api::testing::{get, TestHost};
use datahost_plugin_api::{IngestBatch, Plugin, Refusal, SourceFile};
use serde_json::Value;

use crate::records::{FilingRecord, HoldingRecord, FILINGS, HOLDINGS};
use crate::{InstitutionalHoldings, ROUTE, SLUG};

const METLIFE: &str = "0001140361-23-013281.txt";
const ACTIAM: &str = "0001619124-21-000002.txt";
const BULL_STREET: &str = "0001790837-23-000002.txt";
const LTS_ONE: &str = "13F.0001894188-23-000007.txt";
const ACORN_NC: &str = "0001951757-25-000093.nc";
const BARE_TABLE: &str = "13F-HR.infotable.xml";
const BARE_COVER: &str = "abacus.13F-HR.primarydoc.xml";
const FILINGS_WITH_TABLES: [&str; 5] = [METLIFE, ACTIAM, BULL_STREET, LTS_ONE, ACORN_NC];

/// A corpus file, or None (with a note) when the corpus is not on this machine.
fn corpus(name: &str) -> Option<String> {
    let path = format!("{}/../../../shared/corpus/sec-13f/{name}", env!("CARGO_MANIFEST_DIR"));
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            eprintln!("corpus absent: skipping ({path})");
            None
        }
    }
}

fn parse(name: &str, text: &str) -> Result<IngestBatch, Refusal> {
    InstitutionalHoldings::ingest(&SourceFile { name, bytes: text.as_bytes() })
}

fn parsed(name: &str, text: &str) -> IngestBatch {
    parse(name, text).unwrap_or_else(|r| panic!("{name} refused: {r}"))
}

fn filing(batch: &IngestBatch) -> FilingRecord {
    let mut covers = batch.records.iter().filter(|r| r.collection == FILINGS);
    let cover = covers.next().expect("a filing record");
    assert!(covers.next().is_none(), "one filing record per file");
    serde_json::from_value(cover.data.clone()).expect("filing record")
}

fn holdings(batch: &IngestBatch) -> Vec<HoldingRecord> {
    let rows = batch.records.iter().filter(|r| r.collection == HOLDINGS);
    rows.map(|r| serde_json::from_value(r.data.clone()).expect("holding record")).collect()
}

fn holding<'a>(rows: &'a [HoldingRecord], cusip: &str) -> &'a HoldingRecord {
    rows.iter().find(|h| h.cusip == cusip).unwrap_or_else(|| panic!("no holding {cusip}"))
}

#[test]
fn metlife_txt_is_read_in_dollars_and_attributed_to_the_filer_not_the_agent() {
    let Some(text) = corpus(METLIFE) else { return };
    let batch = parsed(METLIFE, &text);
    assert_eq!(batch.format, "13f-txt");
    assert!(batch.problems.is_empty(), "{:?}", batch.problems);
    let f = filing(&batch);
    // Header: ACCESSION NUMBER 0001140361-23-013281 (a filing agent's prefix), CENTRAL INDEX KEY 0001099219,
    // FILED AS OF DATE 20230323; cover: filingManager/name METLIFE INC, reportCalendarOrQuarter 12-31-2021.
    assert_eq!((f.cik.as_str(), f.filer.as_str()), ("0001099219", "METLIFE INC"));
    assert_eq!((f.accession.as_str(), f.form.as_str()), ("0001140361-23-013281", "13F-HR"));
    assert_eq!((f.period_of_report.as_str(), f.filed_date.as_str()), ("2021-12-31", "2023-03-23"));
    assert_eq!(
        f.source_url,
        "https://www.sec.gov/Archives/edgar/data/1099219/000114036123013281/0001140361-23-013281.txt"
    );
    // A 2021 period filed in 2023 in dollars: SPY at 4,245,201 / 9,866 shares is $430 a share, and no one of
    // the six ETF positions would cost under $1.
    assert_eq!(f.value_unit, "dollars");
    assert!(f.value_unit_reason.starts_with("dollars by price: 0 of 6"), "{}", f.value_unit_reason);
    assert!(batch.notes.iter().any(|n| n.contains("0001140361-23-013281") && n.contains("valueUnit dollars")));
    // summaryPage: tableEntryTotal 6, tableValueTotal 11019796 (= the six values summed by hand).
    assert_eq!((f.table_entry_total, f.table_value_total), (Some(6), Some(11019796)));
    let rows = holdings(&batch);
    assert_eq!(rows.len(), 6);
    let spy = holding(&rows, "78462F103");
    assert_eq!(spy.name_of_issuer, "SPDR S&P ETF TRUST", "`&amp;` is unescaped");
    assert_eq!((spy.value_usd, spy.value_reported, spy.shares), (4245201, 4245201, 9866));
    let chile = holding(&rows, "464286640");
    assert_eq!((chile.value_usd, chile.shares, chile.shares_type.as_str()), (2049983, 98000, "SH"));
    assert_eq!(chile.investment_discretion.as_deref(), Some("DFND"));
    let voting = chile.voting_authority.as_ref().expect("voting authority");
    assert_eq!((voting.sole, voting.shared, voting.none), (0, 98000, 0));
    assert_eq!(rows.iter().map(|h| h.value_usd).sum::<u64>(), 11019796);
}

#[test]
fn actiam_txt_with_prefixed_elements_is_read_in_thousands_by_filing_date() {
    let Some(text) = corpus(ACTIAM) else { return };
    let batch = parsed(ACTIAM, &text);
    let f = filing(&batch);
    // Header CIK 0001619124, ACTIAM N.V., period 20201231, filed 20210212; `ns1:` elements; 5 rows.
    assert_eq!(
        (f.cik.as_str(), f.filer.as_str(), f.period_of_report.as_str()),
        ("0001619124", "ACTIAM N.V.", "2020-12-31")
    );
    assert_eq!(f.filed_date, "2021-02-12");
    // Prices: Apple 230,054 / 1,733,777 and Microsoft 224,483 / 1,009,277 are under $1 read as dollars, the
    // two Alphabet lines and Amazon above: 2 of 5 is not conclusive, and a 2021 filing date says thousands.
    assert_eq!(f.value_unit, "thousands");
    assert!(f.value_unit_reason.starts_with("thousands by filing date"), "{}", f.value_unit_reason);
    assert!(f.value_unit_reason.contains("2 of 5"), "{}", f.value_unit_reason);
    let rows = holdings(&batch);
    assert_eq!(rows.len(), 5);
    let apple = holding(&rows, "037833100");
    assert_eq!((apple.name_of_issuer.as_str(), apple.title_of_class.as_str()), ("APPLE INC", "Common stock"));
    assert_eq!((apple.value_reported, apple.value_usd, apple.shares), (230054, 230054000, 1733777));
    // tableValueTotal 732158 (thousands) = the five values summed by hand.
    assert_eq!(f.table_value_total, Some(732158));
    assert_eq!(rows.iter().map(|h| h.value_usd).sum::<u64>(), 732158000);
}

#[test]
fn bull_street_txt_kept_thousands_after_the_switch() {
    let Some(text) = corpus(BULL_STREET) else { return };
    let batch = parsed(BULL_STREET, &text);
    let f = filing(&batch);
    // Header: Bull Street Advisors, LLC, CIK 0001790837, period 20221231, filed 20230228; 90 rows.
    assert_eq!((f.cik.as_str(), f.filer.as_str()), ("0001790837", "Bull Street Advisors, LLC"));
    assert_eq!((f.period_of_report.as_str(), f.filed_date.as_str()), ("2022-12-31", "2023-02-28"));
    assert_eq!(f.value_unit, "thousands", "filed after the switch, yet 3M at 287 for 2,397 shares is $0.12");
    assert!(f.value_unit_reason.starts_with("thousands by price"), "{}", f.value_unit_reason);
    assert!(f.value_unit_reason.contains("on or after the SEC's 2023-01-03 switch"), "{}", f.value_unit_reason);
    let rows = holdings(&batch);
    assert_eq!(rows.len(), 90);
    // Row 48 (line 864): Johnson &amp; Johnson, 478160104, value 8484, 48027 SH, voting None 48027.
    let jnj = holding(&rows, "478160104");
    assert_eq!((jnj.row, jnj.name_of_issuer.as_str()), (48, "Johnson & Johnson"));
    assert_eq!((jnj.value_usd, jnj.shares), (8484000, 48027));
    let three_m = holding(&rows, "88579Y101");
    assert_eq!((three_m.row, three_m.value_usd, three_m.shares), (1, 287000, 2397));
    // summaryPage tableValueTotal 192767: the rows agree with it, so no totals note.
    assert_eq!(rows.iter().map(|h| h.value_reported).sum::<u64>(), 192767);
    assert!(!batch.notes.iter().any(|n| n.contains("tableValueTotal")), "{:?}", batch.notes);
}

#[test]
fn lts_one_txt_is_in_dollars() {
    let Some(text) = corpus(LTS_ONE) else { return };
    let batch = parsed(LTS_ONE, &text);
    let f = filing(&batch);
    // Header: LTS One Management LP, CIK 0001894188, period 20230930, filed 20231114; 14 rows.
    assert_eq!((f.cik.as_str(), f.filer.as_str()), ("0001894188", "LTS One Management LP"));
    assert_eq!((f.period_of_report.as_str(), f.filed_date.as_str()), ("2023-09-30", "2023-11-14"));
    assert_eq!(f.value_unit, "dollars");
    let rows = holdings(&batch);
    assert_eq!(rows.len(), 14);
    // AMAZON COM INC 023135106: value 17479000, 137500 SH ($127 a share).
    let amazon = holding(&rows, "023135106");
    assert_eq!((amazon.value_usd, amazon.shares), (17479000, 137500));
    // FOMENTO ECONOMICO MEXICANO S, 344419106: SPON ADR UNITS, 31654000, 290000 SH.
    let femsa = holding(&rows, "344419106");
    assert_eq!((femsa.title_of_class.as_str(), femsa.value_usd, femsa.shares), ("SPON ADR UNITS", 31654000, 290000));
    assert_eq!(rows.iter().map(|h| h.value_usd).sum::<u64>(), 454926000, "summaryPage tableValueTotal");
}

#[test]
fn acorn_creek_nc_feed_file_on_one_line() {
    let Some(text) = corpus(ACORN_NC) else { return };
    let batch = parsed(ACORN_NC, &text);
    assert_eq!(batch.format, "13f-nc");
    let f = filing(&batch);
    // <ACCESSION-NUMBER>0001951757-25-000093 (an agent's prefix), <CIK>0001994827, ACORN CREEK CAPITAL LLC,
    // <PERIOD>20241231, <FILING-DATE>20250122; 77 `ns1:` rows.
    assert_eq!((f.cik.as_str(), f.filer.as_str()), ("0001994827", "ACORN CREEK CAPITAL LLC"));
    assert_eq!((f.accession.as_str(), f.period_of_report.as_str()), ("0001951757-25-000093", "2024-12-31"));
    assert_eq!(f.filed_date, "2025-01-22");
    assert_eq!(
        f.source_url,
        "https://www.sec.gov/Archives/edgar/data/1994827/000195175725000093/0001951757-25-000093.txt"
    );
    assert_eq!(f.value_unit, "dollars");
    let rows = holdings(&batch);
    assert_eq!(rows.len(), 77);
    // APPLE INC 037833100: 4652092, 18577 SH; SPDR GOLD TR 78463V107: GOLD SHS, 12592259, 52006 SH.
    let apple = holding(&rows, "037833100");
    assert_eq!((apple.value_usd, apple.shares), (4652092, 18577));
    let gold = holding(&rows, "78463V107");
    assert_eq!((gold.title_of_class.as_str(), gold.value_usd, gold.shares), ("GOLD SHS", 12592259, 52006));
    assert_eq!(rows.iter().map(|h| h.value_usd).sum::<u64>(), 194611845, "summaryPage tableValueTotal");
}

#[test]
fn a_bare_information_table_is_refused_because_it_names_no_filer() {
    let Some(text) = corpus(BARE_TABLE) else { return };
    let refusal = parse(BARE_TABLE, &text).unwrap_err();
    assert_eq!(refusal.location.as_deref(), Some("/informationTable"));
    assert!(refusal.reason.starts_with("13f-infotable-xml: an information table alone names no filer"), "{refusal}");
}

#[test]
fn a_bare_cover_page_is_refused_rather_than_served_as_no_holdings() {
    let Some(text) = corpus(BARE_COVER) else { return };
    let refusal = parse(BARE_COVER, &text).unwrap_err();
    assert_eq!(refusal.location.as_deref(), Some("/edgarSubmission"));
    // Cover: Abacus Wealth Partners, LLC, cik 0001978011, 12-31-2020, tableEntryTotal 92.
    assert!(
        refusal.reason.starts_with("13f-primary-doc-xml: the cover page of Abacus Wealth Partners, LLC"),
        "{refusal}"
    );
    assert!(refusal.reason.contains("CIK 0001978011, period 12-31-2020, 92 holdings declared"), "{refusal}");
    // The same within a full submission whose information table document is missing.
    let Some(metlife) = corpus(METLIFE) else { return };
    let table_start = metlife.find("<DOCUMENT>\n<TYPE>INFORMATION TABLE").expect("second document");
    let cover_only = format!("{}</SEC-DOCUMENT>\n", &metlife[..table_start]);
    let refusal = parse("cover-only.txt", &cover_only).unwrap_err();
    assert!(refusal.reason.contains("comes without its information table"), "{refusal}");
}

#[test]
fn every_corpus_filing_parses_to_the_same_records_twice() {
    for name in FILINGS_WITH_TABLES {
        let Some(text) = corpus(name) else { return };
        let (first, second) = (parsed(name, &text), parsed(name, &text));
        assert_eq!(first, second, "{name}");
        let keys: std::collections::HashSet<(&str, &str)> =
            first.records.iter().map(|r| (r.collection.as_str(), r.key.as_str())).collect();
        assert_eq!(keys.len(), first.records.len(), "{name}: keys are unique");
        let f = filing(&first);
        for r in &first.records {
            assert_eq!(r.group, f.accession, "{name}: group is the accession");
            assert_eq!(r.lineage.as_deref(), Some(format!("{}/{}", f.cik, f.period_of_report).as_str()));
            assert_eq!(r.revision, format!("{}/{}", f.filed_date, f.accession));
            assert!(!r.amendment, "{name}: an original replaces nothing");
        }
    }
}

#[test]
fn truncated_and_malformed_files_are_refused_whole_with_a_location() {
    let Some(text) = corpus(METLIFE) else { return };
    // Hand-written malformed fixtures derived from the MetLife submission.
    let cut = &text[..text.len() / 2];
    let refusal = parse("cut.txt", cut).unwrap_err();
    assert!(refusal.reason.contains("truncated"), "{refusal}");
    assert!(refusal.location.as_deref().is_some_and(|l| l.starts_with("line ")), "{refusal:?}");

    let unclosed = text.replace("</informationTable>", "");
    let refusal = parse("unclosed.txt", &unclosed).unwrap_err();
    assert!(refusal.reason.contains("ends inside <informationTable>"), "{refusal}");
    assert!(refusal.location.as_deref().is_some_and(|l| l.ends_with("/informationTable")), "{refusal:?}");

    let crossed = text.replacen("<value>2049983</value>", "<value>2049983</cusip>", 1);
    let refusal = parse("crossed.txt", &crossed).unwrap_err();
    let line = 1 + text[..text.find("<value>2049983").unwrap()].matches('\n').count();
    assert_eq!(refusal.location, Some(format!("line {line}")), "{refusal}");

    let not_13f = text.replace("CONFORMED SUBMISSION TYPE:\t13F-HR", "CONFORMED SUBMISSION TYPE:\t4");
    assert!(parse("form4.txt", &not_13f).unwrap_err().reason.contains("`4` is not a 13F-HR"));
    let no_accession = text.replace("ACCESSION NUMBER:", "ACCESSION:");
    assert_eq!(parse("x.txt", &no_accession).unwrap_err().location.as_deref(), Some("SEC-HEADER"));
    let csv = "cik,filer\n1099219,METLIFE INC\n";
    assert_eq!(parse("x.csv", csv).unwrap_err().location.as_deref(), Some("line 1"));
    let form4 = "<?xml version=\"1.0\"?>\n<ownershipDocument><issuer/></ownershipDocument>";
    assert!(parse("f4.xml", form4).unwrap_err().reason.contains("root element is <ownershipDocument>"));
}

#[test]
fn unreadable_rows_are_problems_with_their_location_and_the_rest_applies() {
    let Some(text) = corpus(METLIFE) else { return };
    // Hand-written malformed fixture: row 2's value and row 6's share type are broken.
    let broken = text
        .replacen("<value>598969</value>", "<value>598,969</value>", 1)
        .replacen("<sshPrnamtType>SH</sshPrnamtType>\n        </shrsOrPrnAmt>\n        <investmentDiscretion>DFND</investmentDiscretion>\n        <votingAuthority>\n            <Sole>0</Sole>\n            <Shared>9866", "<sshPrnamtType>XX</sshPrnamtType>\n        </shrsOrPrnAmt>\n        <investmentDiscretion>DFND</investmentDiscretion>\n        <votingAuthority>\n            <Sole>0</Sole>\n            <Shared>9866", 1);
    let batch = parsed("broken.txt", &broken);
    let row_line = |needle: &str| {
        let at = text.find(needle).unwrap();
        1 + text[..text[..at].rfind("<infoTable>").unwrap()].matches('\n').count()
    };
    assert_eq!(batch.problems.len(), 2, "{:?}", batch.problems);
    assert_eq!(batch.problems[0].location, format!("/informationTable/infoTable[2], line {}", row_line("598969")));
    assert_eq!(batch.problems[0].message, "value `598,969` is not a whole number");
    assert_eq!(batch.problems[1].location, format!("/informationTable/infoTable[6], line {}", row_line("4245201")));
    assert_eq!(batch.problems[1].message, "shrsOrPrnAmt/sshPrnamtType `XX` is neither SH nor PRN");
    assert_eq!(holdings(&batch).len(), 4);
    assert_eq!(filing(&batch).unread_rows, 2);
    let host = TestHost::new();
    host.set_ingested(SLUG, &[batch]);
    let body = ok(&host, &[("cik", "1099219")]);
    assert_eq!((body["count"].as_u64(), body["unreadRows"].as_u64()), (Some(4), Some(2)));
}

/// The ACTIAM filing turned into a 13F-HR/A of the given kind, with its own accession and filing date.
fn actiam_amendment(text: &str, kind: &str, accession: &str, filed: &str) -> String {
    text.replace("0001619124-21-000002", accession)
        .replace("CONFORMED SUBMISSION TYPE:\t13F-HR", "CONFORMED SUBMISSION TYPE:\t13F-HR/A")
        .replace("FILED AS OF DATE:\t\t20210212", &format!("FILED AS OF DATE:\t\t{filed}"))
        .replace(
            "<reportCalendarOrQuarter>12-31-2020</reportCalendarOrQuarter>",
            &format!(
                "<reportCalendarOrQuarter>12-31-2020</reportCalendarOrQuarter><isAmendment>true</isAmendment>\
                 <amendmentNo>1</amendmentNo><amendmentInfo><amendmentType>{kind}</amendmentType></amendmentInfo>"
            ),
        )
}

fn ok(host: &TestHost, query: &[(&str, &str)]) -> Value {
    let plugin = host.init::<InstitutionalHoldings>().expect("init");
    let (status, body) = get(&plugin, ROUTE, query);
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn a_restatement_replaces_the_quarter_and_new_holdings_add_to_it_in_any_order() {
    let Some(text) = corpus(ACTIAM) else { return };
    let original = parsed(ACTIAM, &text);
    // Hand-written fixtures: a restatement with Apple at 240,000 instead of 230,054, and a NEW HOLDINGS
    // amendment holding only a copy of the Amazon row.
    let restated_text = actiam_amendment(&text, "RESTATEMENT", "0001619124-21-000005", "20210301")
        .replace("<ns1:value>230054</ns1:value>", "<ns1:value>240000</ns1:value>");
    let restatement = parsed("restated.txt", &restated_text);
    let amazon = text.find("<ns1:infoTable>\n\t\t<ns1:nameOfIssuer>AMAZON").unwrap();
    let first_row = text.find("<ns1:infoTable>").unwrap();
    let addition_text = actiam_amendment(&text, "NEW HOLDINGS", "0001619124-21-000007", "20210310")
        .replace(&text[first_row..amazon], "");
    let addition = parsed("added.txt", &addition_text);

    let r = &restatement.records[0];
    assert_eq!((r.lineage.as_deref(), r.amendment), (Some("0001619124/2020-12-31"), true));
    assert_eq!(r.revision, "2021-03-01/0001619124-21-000005");
    assert!(addition.records.iter().all(|r| !r.amendment), "NEW HOLDINGS replace nothing");
    assert_eq!(holdings(&addition).len(), 1);
    assert_eq!(filing(&addition).amendment_type.as_deref(), Some("NEW HOLDINGS"));

    let orders = [
        vec![original.clone(), restatement.clone(), addition.clone()],
        vec![addition.clone(), restatement.clone(), original.clone()],
        vec![restatement.clone(), original.clone(), addition.clone()],
    ];
    let mut answers = Vec::new();
    for batches in orders {
        let host = TestHost::new();
        host.set_ingested(SLUG, &batches);
        answers.push(ok(&host, &[("cik", "1619124"), ("limit", "1000")]));
    }
    let body = &answers[0];
    assert!(answers.iter().all(|a| a == body), "the order files arrive in changes nothing");
    assert_eq!((body["accession"].as_str(), body["form"].as_str()), (Some("0001619124-21-000005"), Some("13F-HR/A")));
    assert_eq!(body["amendmentType"], "RESTATEMENT");
    // Five restated rows plus the added Amazon copy; Apple at its restated value, counted once.
    assert_eq!(body["count"], 6);
    let apple: Vec<&Value> =
        body["holdings"].as_array().unwrap().iter().filter(|h| h["cusip"] == "037833100").collect();
    assert_eq!(apple.len(), 1);
    assert_eq!(apple[0]["valueUsd"], 240000000u64);
    assert_eq!(body["totalValueUsd"], (732158u64 - 230054 + 240000 + 152059) * 1000);
    assert_eq!(body["amendments"][0]["accession"], "0001619124-21-000007");
    assert_eq!(body["amendments"][0]["amendmentType"], "NEW HOLDINGS");
    let added: Vec<&Value> =
        body["holdings"].as_array().unwrap().iter().filter(|h| h["cusip"] == "023135106").collect();
    let sources: Vec<&str> = added.iter().map(|h| h["accession"].as_str().unwrap()).collect();
    assert_eq!(sources, ["0001619124-21-000005", "0001619124-21-000007"]);

    // Additions whose original is not ingested are not served as the quarter, and the host log says so.
    let host = TestHost::new();
    host.set_ingested(SLUG, &[addition]);
    let plugin = host.init::<InstitutionalHoldings>().unwrap();
    assert_eq!(get(&plugin, ROUTE, &[("cik", "1619124")]).0, 404);
    assert!(host.logs().iter().any(|l| l.contains("0001619124/2020-12-31: only NEW HOLDINGS")), "{:?}", host.logs());

    // An amendment that does not say what it amends is refused.
    let unknown = actiam_amendment(&text, "CORRECTION", "0001619124-21-000009", "20210401");
    let refusal = parse("unknown.txt", &unknown).unwrap_err();
    assert_eq!(refusal.location.as_deref(), Some("/edgarSubmission/formData/coverPage/amendmentInfo/amendmentType"));
}

#[test]
fn ingested_filings_are_served_with_provenance_and_never_mixed_with_the_seed() {
    let batches: Vec<IngestBatch> =
        FILINGS_WITH_TABLES.iter().filter_map(|name| corpus(name).map(|text| parsed(name, &text))).collect();
    if batches.len() < FILINGS_WITH_TABLES.len() {
        return;
    }
    let host = TestHost::new();
    host.set_ingested(SLUG, &batches);

    let metlife = ok(&host, &[("cik", "1099219"), ("limit", "2")]);
    for field in ["cik", "filer", "accession", "form", "filedDate"] {
        assert!(metlife[field].is_string(), "{field}");
    }
    assert_eq!(metlife["cik"], "0001099219");
    assert_eq!((metlife["filer"].as_str(), metlife["form"].as_str()), (Some("METLIFE INC"), Some("13F-HR")));
    assert_eq!(
        (metlife["filedDate"].as_str(), metlife["periodOfReport"].as_str()),
        (Some("2023-03-23"), Some("2021-12-31"))
    );
    assert_eq!((metlife["count"].as_u64(), metlife["totalHoldings"].as_u64()), (Some(2), Some(6)));
    assert_eq!((metlife["truncated"].as_bool(), metlife["totalValueUsd"].as_u64()), (Some(true), Some(11019796)));
    assert_eq!(metlife["valueUnit"], "dollars");
    assert_eq!(
        metlife["sourceUrl"],
        "https://www.sec.gov/Archives/edgar/data/1099219/000114036123013281/0001140361-23-013281.txt"
    );
    let top = &metlife["holdings"][0];
    assert_eq!((top["nameOfIssuer"].as_str(), top["cusip"].as_str()), (Some("SPDR S&P ETF TRUST"), Some("78462F103")));
    assert_eq!((top["valueUsd"].as_u64(), top["shares"].as_u64()), (Some(4245201), Some(9866)));
    assert!(top["putCall"].is_null());
    assert_eq!((top["sharesType"].as_str(), top["accession"].as_str()), (Some("SH"), Some("0001140361-23-013281")));
    assert!(top.get("issuer").is_none(), "no company list ingested: the filing's own names stand");
    let meta = &metlife["meta"];
    for field in ["source", "sourceUrl", "method", "caveat"] {
        let text = meta[field].as_str().unwrap_or_else(|| panic!("meta.{field}"));
        assert!(!text.to_lowercase().contains("demo"), "meta.{field}: {text}");
    }
    assert_eq!(meta["ingested"]["files"], 5);

    let bull = ok(&host, &[("q", "bull street")]);
    assert_eq!((bull["matchedBy"].as_str(), bull["valueUnit"].as_str()), (Some("prefix"), Some("thousands")));
    assert_eq!(bull["totalValueUsd"], 192767u64 * 1000, "summaryPage tableValueTotal 192767, in thousands");
    // The filer of the .nc is CIK 1994827; 1951757 is the agent whose prefix the accession carries.
    assert_eq!(ok(&host, &[("q", "acorn creek")])["cik"], "0001994827");
    let plugin = host.init::<InstitutionalHoldings>().unwrap();
    for cik in ["1951757", "9990307"] {
        assert_eq!(get(&plugin, ROUTE, &[("cik", cik)]).0, 404, "cik {cik}: no agent, and no seed filer, is served");
    }
}

#[test]
fn issuers_are_named_through_the_host_company_list() {
    let Some(text) = corpus(ACTIAM) else { return };
    let host = TestHost::new();
    host.set_ingested(SLUG, &[parsed(ACTIAM, &text)]);
    // From sec-misc/company_tickers.json: {"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."}.
    let apple = CompanyRef { cik: "0000320193".into(), ticker: "AAPL".into(), name: "Apple Inc.".into() };
    host.set_companies(vec![apple.clone()]);
    let body = ok(&host, &[("cik", "1619124")]);
    let holdings = body["holdings"].as_array().unwrap();
    let named: Vec<&Value> = holdings.iter().filter(|h| h.get("issuer").is_some()).collect();
    assert_eq!(named.len(), 1, "APPLE INC resolves; names absent from the list stay unresolved");
    assert_eq!(named[0]["cusip"], "037833100");
    assert_eq!(named[0]["issuer"], serde_json::to_value(&apple).unwrap());
}
