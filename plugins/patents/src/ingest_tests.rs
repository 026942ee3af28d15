//! Parser and ingested-serving tests on the real PatentsView files in `fixtures/` (see fixtures/SOURCES.md).
//! Every value asserted here was read by hand in the fixture file (quoted beside the assertion); the
//! hand-written inputs are malformed-input fixtures or transcriptions, named as such.

use datahost_plugin_api::reference::{cik10, CompanyRef};
use datahost_plugin_api::testing::{get, TestHost};
use datahost_plugin_api::{IngestBatch, IngestRecord, Plugin, SourceFile};
use serde_json::{json, Value};

use crate::ingest::{API_JSON, FORMATS, G_ASSIGNEE_TSV, G_PATENT_TSV};
use crate::records::{ASSIGNEES, PATENTS};
use crate::{Patents, ROUTE, SLUG};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
const COMPANY_TICKERS: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus/sec-misc/company_tickers.json");

const G_PATENT_HEAD: &str = "g_patent-head.tsv";
const API_5116621: &str = "patentsearch-patent-5116621.json";
const API_10000000: &str = "patentsearch-patent-10000000.json";
const API_PAGE: &str = "patentsearch-2000-01-04-page1.json";

fn read(path: &str) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("corpus absent: skipping ({path})");
            None
        }
    }
}

fn fixture(name: &str) -> Option<Vec<u8>> {
    read(&format!("{FIXTURES}/{name}"))
}

fn parse(name: &str, bytes: &[u8]) -> IngestBatch {
    Patents::ingest(&SourceFile { name, bytes }).unwrap_or_else(|r| panic!("{name} refused: {r}"))
}

fn parse_fixture(name: &str) -> Option<IngestBatch> {
    fixture(name).map(|bytes| parse(name, &bytes))
}

fn record<'a>(batch: &'a IngestBatch, collection: &str, key: &str) -> &'a IngestRecord {
    batch
        .records
        .iter()
        .find(|r| r.collection == collection && r.key == key)
        .unwrap_or_else(|| panic!("no {collection} record {key}"))
}

fn count(batch: &IngestBatch, collection: &str) -> usize {
    batch.records.iter().filter(|r| r.collection == collection).count()
}

fn refusal(bytes: &[u8]) -> datahost_plugin_api::Refusal {
    Patents::ingest(&SourceFile { name: "malformed", bytes }).expect_err("must be refused")
}

#[test]
fn manifest_declares_every_format() {
    let manifest = datahost_plugin_api::__export::full_manifest::<Patents>();
    for format in FORMATS {
        assert!(manifest.capabilities.contains(&format!("ingest:{format}")), "{format}");
    }
}

#[test]
fn every_fixture_is_detected_and_read_twice_the_same() {
    let Ok(dir) = std::fs::read_dir(FIXTURES) else {
        eprintln!("corpus absent: skipping");
        return;
    };
    let mut seen = 0;
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !(name.ends_with(".json") || name.ends_with(".tsv")) {
            continue;
        }
        let bytes = std::fs::read(entry.path()).unwrap();
        let first = parse(&name, &bytes);
        assert!(FORMATS.contains(&first.format.as_str()), "{name}: {}", first.format);
        assert!(first.problems.is_empty(), "{name}: {:?}", first.problems);
        // The format comes from the content: the same bytes under another name read the same (idempotence).
        assert_eq!(parse("renamed.bin", &bytes), first, "{name}");
        seen += 1;
    }
    assert_eq!(seen, 4, "the four fixtures of fixtures/SOURCES.md");
}

#[test]
fn g_patent_head_is_read() {
    // g_patent-head.tsv line 2: "10000000" "utility" "2018-06-19" "Coherent LADAR using intra-pixel quadrature
    // detection" "B2" 20 0 "ipg180619.xml".
    let Some(batch) = parse_fixture(G_PATENT_HEAD) else { return };
    assert_eq!(batch.format, G_PATENT_TSV);
    assert_eq!((batch.records.len(), batch.problems.len()), (1, 0));
    let patent = record(&batch, PATENTS, "10000000");
    assert_eq!(patent.group, "10000000");
    assert_eq!(patent.lineage, None);
    assert_eq!(
        patent.data,
        json!({
            "patentId": "10000000",
            "patentType": "utility",
            "patentDate": "2018-06-19",
            "patentTitle": "Coherent LADAR using intra-pixel quadrature detection",
            "withdrawn": false,
            "sourceUrl": "https://patents.google.com/patent/US10000000",
            "format": G_PATENT_TSV,
        })
    );
}

#[test]
fn api_patent_with_two_assignees_keeps_their_sequence_not_their_order() {
    // patentsearch-patent-5116621.json: "patent_title":"Anti-inflammatory analgesic patch","patent_type":
    // "utility","patent_date":"1992-05-26","withdrawn":false; assignees listed TEIKOKU SEIYAKU CO., LTD.
    // (assignee_sequence 1) first, then Lederle (Japan), Ltd. (assignee_sequence 0), both assignee_type "3".
    let Some(batch) = parse_fixture(API_5116621) else { return };
    assert_eq!(batch.format, API_JSON);
    assert_eq!((count(&batch, PATENTS), count(&batch, ASSIGNEES), batch.problems.len()), (1, 2, 0));
    assert!(batch.notes.is_empty(), "{:?}", batch.notes);
    let patent = &record(&batch, PATENTS, "5116621").data;
    assert_eq!(patent["patentDate"], "1992-05-26");
    assert_eq!(patent["patentTitle"], "Anti-inflammatory analgesic patch");
    assert_eq!((&patent["patentType"], &patent["withdrawn"]), (&json!("utility"), &json!(false)));
    let first = record(&batch, ASSIGNEES, "5116621/0");
    assert_eq!(first.group, "5116621");
    assert_eq!(first.data["organization"], "Lederle (Japan), Ltd.");
    assert_eq!(first.data["assigneeId"], "80283550-882d-4a91-a622-7ef8c0c98986");
    assert_eq!(first.data["assigneeType"], "3");
    assert_eq!(first.data["individualNameLast"], Value::Null);
    assert_eq!(record(&batch, ASSIGNEES, "5116621/1").data["organization"], "TEIKOKU SEIYAKU CO., LTD.");
}

#[test]
fn api_patent_without_a_date_stores_its_assignees_and_says_so() {
    // patentsearch-patent-10000000.json: fields requested were assignees and patent_id only; one assignee,
    // "assignee_organization":"Raytheon Company", "assignee_type":"2", "assignee_sequence":0.
    let Some(batch) = parse_fixture(API_10000000) else { return };
    assert_eq!((count(&batch, PATENTS), count(&batch, ASSIGNEES), batch.problems.len()), (0, 1, 0));
    let raytheon = &record(&batch, ASSIGNEES, "10000000/0").data;
    assert_eq!((&raytheon["organization"], &raytheon["assigneeType"]), (&json!("Raytheon Company"), &json!("2")));
    assert!(batch.notes.iter().any(|n| n.contains("1 patents carry no patent_date") && n.contains("10000000")));
}

#[test]
fn api_page_reports_that_it_is_one_page() {
    // patentsearch-2000-01-04-page1.json: "count":100,"total_hits":3001; 100 patents, 57 with an
    // "assignees" array (one assignee each, all "assignee_sequence":0), none with patent_date. Patents 6009619
    // and 6009620 are first-assigned to "International Business Machines Corporation".
    let Some(batch) = parse_fixture(API_PAGE) else { return };
    assert_eq!((count(&batch, PATENTS), count(&batch, ASSIGNEES), batch.problems.len()), (0, 57, 0));
    assert!(batch.notes.iter().any(|n| n.contains("100 of the 3001")), "{:?}", batch.notes);
    assert!(batch.notes.iter().any(|n| n.contains("100 patents carry no patent_date")), "{:?}", batch.notes);
    for id in ["6009619", "6009620"] {
        let ibm = &record(&batch, ASSIGNEES, &format!("{id}/0")).data;
        assert_eq!(ibm["organization"], "International Business Machines Corporation");
    }
    assert!(batch.records.iter().all(|r| r.key.ends_with("/0")));
}

/// A hand-written g_assignee_disambiguated table (not a real file): the column names of the PatentsView data
/// dictionary, and rows transcribed from the real API fixtures (10000000 and 5116621).
const ASSIGNEE_TSV_TRANSCRIBED: &str = "\"patent_id\"\t\"assignee_sequence\"\t\"assignee_id\"\t\
\"disambig_assignee_individual_name_first\"\t\"disambig_assignee_individual_name_last\"\t\
\"disambig_assignee_organization\"\t\"assignee_type\"\t\"location_id\"
\"10000000\"\t0\t\"9e8542bf-1e3f-45ae-8584-6a6bbdce5021\"\t\t\t\"Raytheon Company\"\t2\t\"09e25130-16c8-11ed-9b5f-1234bde3cd05\"
\"5116621\"\t0\t\"80283550-882d-4a91-a622-7ef8c0c98986\"\t\t\t\"Lederle (Japan), Ltd.\"\t3\t\"42f90495-16c8-11ed-9b5f-1234bde3cd05\"
\"5116621\"\t1\t\"63de0123-5840-448f-b4e5-b419bdae6338\"\t\t\t\"TEIKOKU SEIYAKU CO., LTD.\"\t3\t\"2202427a-16c8-11ed-9b5f-1234bde3cd05\"
";

#[test]
fn assignee_table_rows_become_the_same_records_as_api_assignees() {
    let batch = parse("g_assignee_disambiguated.tsv", ASSIGNEE_TSV_TRANSCRIBED.as_bytes());
    assert_eq!(batch.format, G_ASSIGNEE_TSV);
    assert_eq!((count(&batch, ASSIGNEES), batch.problems.len()), (3, 0));
    let Some(api) = parse_fixture(API_5116621) else { return };
    for key in ["5116621/0", "5116621/1"] {
        let mut from_table = record(&batch, ASSIGNEES, key).data.clone();
        let mut from_api = record(&api, ASSIGNEES, key).data.clone();
        from_table["format"] = Value::Null;
        from_api["format"] = Value::Null;
        assert_eq!(from_table, from_api, "{key}");
    }
}

#[test]
fn unreadable_rows_are_reported_with_their_line_and_column() {
    // Hand-written malformed g_patent table: a bad date, a short (truncated) row, an unknown withdrawn flag,
    // a row with no patent_id, and one good row.
    let malformed = "\"patent_id\"\t\"patent_type\"\t\"patent_date\"\t\"patent_title\"\t\"withdrawn\"
\"1\"\t\"utility\"\t\"2018-13-40\"\t\"bad date\"\t0
\"2\"\t\"utility\"\t\"2018-06-19\"
\"3\"\t\"utility\"\t\"2018-06-19\"\t\"odd flag\"\tyes
\"\"\t\"utility\"\t\"2018-06-19\"\t\"no id\"\t0
\"4\"\t\"utility\"\t\"2018-06-19\"\t\"good\"\t0
";
    let batch = parse("malformed.tsv", malformed.as_bytes());
    assert_eq!(batch.records.len(), 1);
    let at: Vec<&str> = batch.problems.iter().map(|p| p.location.as_str()).collect();
    assert_eq!(at, ["line 2, column patent_date", "line 3", "line 4, column withdrawn", "line 5, column patent_id"]);
    assert!(batch.problems[0].message.contains("2018-13-40"));
    assert!(batch.problems[1].message.contains("3 fields where the header has 5"));

    // Hand-written malformed API response: an assignee without sequence, a duplicate sequence, a bad date.
    let api = r#"{"patents": [
        {"patent_id": "7", "patent_date": "2020-02-30", "assignees": [
            {"assignee_organization": "A", "assignee_sequence": 0},
            {"assignee_organization": "B", "assignee_sequence": 0},
            {"assignee_organization": "C"}]}]}"#;
    let batch = parse("malformed.json", api.as_bytes());
    let at: Vec<&str> = batch.problems.iter().map(|p| p.location.as_str()).collect();
    assert_eq!(
        at,
        [
            "/patents[0]/patent_date",
            "/patents[0]/assignees[1]/assignee_sequence",
            "/patents[0]/assignees[2]/assignee_sequence"
        ]
    );
    assert_eq!((count(&batch, PATENTS), count(&batch, ASSIGNEES)), (0, 1));
}

#[test]
fn unreadable_files_are_refused_whole_with_a_location() {
    // Truncated JSON: the real 5116621 response (one line: no newline in its first 300 bytes) cut at 300 bytes.
    if let Some(bytes) = fixture(API_5116621) {
        let cut = refusal(&bytes[..300]);
        assert_eq!(cut.location.as_deref(), Some("line 1, column 300"), "{cut}");
        assert!(cut.reason.contains("not valid JSON"));
    }
    // Hand-written: an API error body, JSON of another endpoint, a CSV, prose, and bytes that are not UTF-8.
    let error = refusal(br#"{"error": true, "reason": "Invalid field: patent_dat"}"#);
    assert_eq!(error.location.as_deref(), Some("/error"));
    assert!(error.reason.contains("Invalid field: patent_dat"));
    let other = refusal(br#"{"error": false, "count": 0, "assignees": []}"#);
    assert_eq!(other.location.as_deref(), Some("/patents"));
    for not_patentsview in [&b"patent_id,patent_date\n1,2020-01-01\n"[..], b"Hello, world\n"] {
        assert_eq!(refusal(not_patentsview).location.as_deref(), Some("line 1"));
    }
    // `"patent_id"` is 11 bytes and the tab one more: the invalid byte is at offset 12.
    assert_eq!(refusal(b"\"patent_id\"\t\xFF").location.as_deref(), Some("byte 12"));
}

/// The SEC company list of the corpus, as the host's companies reference would hold it.
fn sec_companies() -> Option<Vec<CompanyRef>> {
    let doc: Value = serde_json::from_slice(&read(COMPANY_TICKERS)?).ok()?;
    let companies = doc.as_object()?.values().filter_map(|c| {
        Some(CompanyRef {
            cik: cik10(&c["cik_str"].as_u64()?.to_string())?,
            ticker: c["ticker"].as_str()?.to_string(),
            name: c["title"].as_str()?.to_string(),
        })
    });
    Some(companies.collect())
}

fn serve(host: &TestHost, files: &[&str]) -> Option<Value> {
    let batches = files.iter().map(|f| parse_fixture(f)).collect::<Option<Vec<_>>>()?;
    host.set_ingested(SLUG, &batches);
    let plugin = host.init::<Patents>().expect("init on ingested records");
    let (status, body) = get(&plugin, ROUTE, &[]);
    assert_eq!(status, 200, "{body}");
    Some(body)
}

fn company<'a>(body: &'a Value, assignee: &str) -> &'a Value {
    body["companies"].as_array().unwrap().iter().find(|c| c["assigneeMatched"] == assignee).unwrap_or_else(|| {
        panic!("no company counted on {assignee}: {body}");
    })
}

#[test]
fn ingested_grants_are_counted_per_first_assignee_relative_to_the_latest_grant() {
    // No company list in the host: each first-assignee organization is served under its own name.
    // 10000000 (g_patent: 2018-06-19) is first-assigned to Raytheon Company (API fixture); 5116621
    // (1992-05-26) to Lederle (Japan), Ltd. asOf = 2018-06-19, the latest grant held.
    let host = TestHost::new();
    let Some(body) = serve(&host, &[G_PATENT_HEAD, API_10000000, API_5116621]) else { return };
    let meta = &body["meta"];
    assert_eq!(meta["asOf"], "2018-06-19");
    assert_eq!(meta["windows"]["last12mo"], json!({"start": "2017-06-20", "end": "2018-06-19"}));
    assert_eq!(meta["sourceUrl"], "https://patentsview.org/download/data-download-tables");
    let caveat = meta["caveat"].as_str().unwrap();
    assert!(caveat.contains("first-applicant name as a single entity") && caveat.contains("undercounted"));
    assert!(!format!("{meta}").to_lowercase().contains("demo"), "{meta}");
    assert_eq!(meta["coverage"]["patents"], 2);
    assert_eq!(meta["coverage"]["assigneeRows"], 3);
    assert_eq!(meta["coverage"]["countedGrants"], 2);
    assert_eq!(body["count"], 2);

    let raytheon = company(&body, "Raytheon Company");
    assert_eq!((raytheon["name"].as_str(), raytheon["ticker"].as_str()), (Some("Raytheon Company"), Some("")));
    assert_eq!((&raytheon["grantedLast12mo"], &raytheon["grantedPrior12mo"]), (&json!(1), &json!(0)));
    assert_eq!(
        raytheon["recentGrants"],
        json!([{
            "patentNumber": "10000000",
            "grantDate": "2018-06-19",
            "title": "Coherent LADAR using intra-pixel quadrature detection",
            "sourceUrl": "https://patents.google.com/patent/US10000000"
        }])
    );
    assert_eq!(raytheon["cik"], Value::Null);
    // The second assignee (TEIKOKU SEIYAKU, sequence 1) is not counted; the 1992 grant is held but old.
    let lederle = company(&body, "Lederle (Japan), Ltd.");
    assert_eq!((&lederle["grantedLast12mo"], &lederle["grantsHeld"]), (&json!(0), &json!(1)));
    assert!(body["companies"].as_array().unwrap().iter().all(|c| c["assigneeMatched"] != "TEIKOKU SEIYAKU CO., LTD."));
}

#[test]
fn assignees_resolve_to_listed_companies_through_the_host() {
    // With the SEC company list (corpus company_tickers.json: {"cik_str":51143,"ticker":"IBM","title":
    // "INTERNATIONAL BUSINESS MACHINES CORP"}), IBM's two first assignments of the API page (6009619, 6009620)
    // resolve; their grant records are not ingested, so they wait and count zero. Raytheon Company and Lederle
    // (Japan), Ltd. match no listed company (the list has "RTX Corp") and are left out, counted as unmatched.
    let Some(companies) = sec_companies() else { return };
    let host = TestHost::new();
    host.set_companies(companies);
    let Some(body) = serve(&host, &[G_PATENT_HEAD, API_10000000, API_5116621, API_PAGE]) else { return };
    let ibm = company(&body, "International Business Machines Corporation");
    assert_eq!((ibm["ticker"].as_str(), ibm["cik"].as_str()), (Some("IBM"), Some("0000051143")));
    assert_eq!(ibm["name"], "INTERNATIONAL BUSINESS MACHINES CORP");
    assert_eq!(
        (&ibm["grantedLast12mo"], &ibm["grantedPrior12mo"], &ibm["awaitingGrantRecord"]),
        (&json!(0), &json!(0), &json!(2))
    );
    assert!(ibm["note"].as_str().unwrap().contains("2 more patents"));
    let (_, deere) = get(&host.init::<Patents>().unwrap(), ROUTE, &[("ticker", "de")]);
    assert_eq!(deere["companies"][0]["assigneeMatched"], "Deere & Company");
    let tickers: Vec<&str> =
        body["companies"].as_array().unwrap().iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    assert!(tickers.iter().all(|t| !t.is_empty()), "{tickers:?}");
    assert!(body["meta"]["coverage"]["unmatchedAssignees"].as_u64().unwrap() >= 2);
    assert_eq!(body["meta"]["coverage"]["awaitingGrantRecord"], 57);
}

#[test]
fn ingesting_the_same_files_again_serves_the_same_answer() {
    let host = TestHost::new();
    let Some(once) = serve(&host, &[G_PATENT_HEAD, API_10000000]) else { return };
    let Some(twice) = serve(&host, &[G_PATENT_HEAD, API_10000000, G_PATENT_HEAD, API_10000000]) else { return };
    assert_eq!(once["companies"], twice["companies"]);
    assert_eq!(once["meta"]["coverage"], twice["meta"]["coverage"]);
}

#[test]
fn a_later_release_of_a_patent_replaces_it_and_withdrawn_grants_are_not_counted() {
    // Hand-written later release of the real g_patent row of 10000000, marked withdrawn (PatentsView has no
    // amendment documents: a re-published row under the same key replaces the earlier one).
    let withdrawn = "\"patent_id\"\t\"patent_type\"\t\"patent_date\"\t\"patent_title\"\t\"withdrawn\"
\"10000000\"\t\"utility\"\t\"2018-06-19\"\t\"Coherent LADAR using intra-pixel quadrature detection\"\t1
";
    let Some(original) = parse_fixture(G_PATENT_HEAD) else { return };
    let Some(assignee) = parse_fixture(API_10000000) else { return };
    let later = parse("g_patent.tsv", withdrawn.as_bytes());
    assert_eq!(later.records[0].key, original.records[0].key);
    let host = TestHost::new();
    host.set_ingested(SLUG, &[original, assignee, later]);
    let (_, body) = get(&host.init::<Patents>().unwrap(), ROUTE, &[]);
    assert_eq!(body["meta"]["coverage"]["withdrawn"], 1);
    assert_eq!(body["meta"]["coverage"]["countedGrants"], 0);
    assert_eq!(body["count"], 0, "{body}");
}

#[test]
fn seed_and_ingested_rows_are_never_mixed() {
    let host = TestHost::new().with_seeds(Patents::seeds());
    let (_, seed) = get(&host.init::<Patents>().unwrap(), ROUTE, &[]);
    assert_eq!(seed["count"], 12);
    let Some(body) = serve(&host, &[G_PATENT_HEAD, API_10000000]) else { return };
    assert_eq!(body["count"], 1);
    assert_eq!(body["companies"][0]["assigneeMatched"], "Raytheon Company");
}

#[test]
fn a_stored_grant_whose_date_does_not_read_is_left_out_and_said() {
    let patent = json!({"patentId": "10000001", "patentType": "utility", "patentDate": "June 2018",
        "patentTitle": null, "withdrawn": null, "sourceUrl": "https://patents.google.com/patent/US10000001",
        "format": G_PATENT_TSV});
    let record = IngestRecord::new(PATENTS, "10000001", "10000001", &patent).unwrap();
    let host = TestHost::new();
    host.set_ingested(
        SLUG,
        &[IngestBatch { format: G_PATENT_TSV.into(), records: vec![record], ..Default::default() }],
    );
    let (status, _) = get(&host.init::<Patents>().unwrap(), ROUTE, &[]);
    assert_eq!(status, 200);
    let said = "patents: 1 stored grant record(s) with a patent_date that is not YYYY-MM-DD left out";
    assert!(host.logs().iter().any(|l| l.contains(said)), "{:?}", host.logs());
}
