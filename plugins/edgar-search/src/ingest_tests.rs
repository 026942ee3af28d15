//! Parser tests on the real EDGAR submissions files of `../shared/corpus/sec-misc/` (values read by hand from
//! the files), malformed inputs, and ingest -> search through the in-process test host.

use datahost_plugin_api::testing::{corpus_file, get, TestHost};
use datahost_plugin_api::{IngestBatch, Plugin, SourceFile};

use crate::{EdgarSearch, ROUTE};

fn corpus(file: &str) -> Option<Vec<u8>> {
    corpus_file(&format!("sec-misc/{file}"))
}

fn parse(name: &str, bytes: &[u8]) -> IngestBatch {
    EdgarSearch::ingest(&SourceFile { name, bytes }).unwrap_or_else(|r| panic!("{name} refused: {r}"))
}

#[test]
fn every_recent_filing_of_a_submissions_file_becomes_a_record() {
    let Some(bytes) = corpus("company_submission.json") else { return };
    let batch = parse("company_submission.json", &bytes);
    assert_eq!(batch.format, "edgar-submissions");
    assert_eq!(batch.problems, vec![]);
    // cik 1318605, name "Tesla, Inc.", 1001 entries in filings.recent; filings.files names one older page.
    assert_eq!(batch.records.len(), 1001);
    assert!(batch.notes.iter().any(|n| n.contains("CIK0001318605-submissions-001.json")), "{:?}", batch.notes);
    // recent[0]: accessionNumber 0001790565-22-000015, form 4, filingDate 2022-11-30, primaryDocument
    // xslF345X03/edgardoc.xml, primaryDocDescription "PRIMARY DOCUMENT".
    let first = &batch.records[0];
    assert_eq!((first.key.as_str(), first.group.as_str()), ("0001790565-22-000015", "0001790565-22-000015"));
    assert_eq!(
        first.data,
        serde_json::json!({
            "form": "4", "entity": "Tesla, Inc.", "cik": "0001318605", "accession": "0001790565-22-000015",
            "url": "https://www.sec.gov/Archives/edgar/data/1318605/000179056522000015/xslF345X03/edgardoc.xml",
            "filedDate": "2022-11-30", "text": "PRIMARY DOCUMENT"
        })
    );
    // recent[7]: 8-K 0001564590-22-034639 filed 2022-10-19, items "2.02,9.01", document tsla-8k_20221019.htm.
    let eight_k = batch.records.iter().find(|r| r.key == "0001564590-22-034639").unwrap();
    assert_eq!((eight_k.data["form"].as_str(), eight_k.data["text"].as_str()), (Some("8-K"), Some("8-K 2.02,9.01")));
}

#[test]
fn a_reporting_owners_submissions_file_is_read_the_same_way() {
    let Some(bytes) = corpus("CIK0001462356.json") else { return };
    let batch = parse("CIK0001462356.json", &bytes);
    // cik "0001462356", name "Adams Katherine L.", 268 recent filings, the first a Form 144 filed 2026-05-05
    // (0001950047-26-004044, xsl144X01/primary_doc.xml).
    assert_eq!(batch.records.len(), 268);
    let first = &batch.records[0].data;
    assert_eq!((first["form"].as_str(), first["filedDate"].as_str()), (Some("144"), Some("2026-05-05")));
    assert_eq!((first["entity"].as_str(), first["cik"].as_str()), (Some("Adams Katherine L."), Some("0001462356")));
}

#[test]
fn malformed_files_are_refused() {
    let refused = |text: &str| EdgarSearch::ingest(&SourceFile { name: "x.json", bytes: text.as_bytes() }).unwrap_err();
    assert_eq!(refused("{\"cik\": \"1\",\n\"filings\": ").location.as_deref(), Some("line 2"));
    assert_eq!(refused("{\"cik\": \"1\"}").location.as_deref(), Some("/filings/recent"));
    // Hand-written: columns of different lengths cannot be paired.
    let r = refused(
        r#"{"cik": "1", "name": "X", "filings": {"recent": {"accessionNumber": ["0000000001-26-000001"],
            "filingDate": [], "form": ["4"], "primaryDocument": ["a.xml"]}}}"#,
    );
    assert_eq!(r.location.as_deref(), Some("/filings/recent"));
}

#[test]
fn ingested_filings_are_found_by_their_metadata() {
    let Some(bytes) = corpus("company_submission.json") else { return };
    let host = TestHost::new();
    host.set_ingested(crate::SLUG, &[parse("company_submission.json", &bytes)]);
    let p = host.init::<EdgarSearch>().expect("init on ingested filings");
    let (status, body) = get(&p, ROUTE, &[("q", "tesla"), ("forms", "10-K"), ("limit", "100")]);
    assert_eq!(status, 200, "{body}");
    // The file lists the 10-K of 2022-02-07 (0000950170-22-000796, tsla-20211231.htm) among its 10-Ks.
    let hit = body["hits"].as_array().unwrap().iter().find(|h| h["accession"] == "0000950170-22-000796").unwrap();
    assert_eq!((hit["form"].as_str(), hit["filedDate"].as_str()), (Some("10-K"), Some("2022-02-07")));
    assert_eq!(hit["url"], "https://www.sec.gov/Archives/edgar/data/1318605/000095017022000796/tsla-20211231.htm");
    assert!(body["hits"].as_array().unwrap().iter().all(|h| h["form"] == "10-K" && h["entity"] == "Tesla, Inc."));
}
