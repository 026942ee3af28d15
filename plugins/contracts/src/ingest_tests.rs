//! Parser tests on the real USAspending responses of `../shared/corpus/usaspending/` (values read by hand from
//! the files), malformed inputs, and ingest -> serve through the in-process test host.

use datahost_plugin_api::testing::{corpus_file, get, TestHost};
use datahost_plugin_api::{IngestBatch, Plugin, SourceFile};

use crate::{Contracts, ROUTE};

fn corpus(file: &str) -> Option<Vec<u8>> {
    corpus_file(&format!("usaspending/{file}"))
}

fn parse(name: &str, bytes: &[u8]) -> IngestBatch {
    Contracts::ingest(&SourceFile { name, bytes }).unwrap_or_else(|r| panic!("{name} refused: {r}"))
}

const SEARCH: &str = "usaspending_api_spending_by_award_contracts.json";
const DETAIL: &str = "usaspending_api_award_detail_contract_80GSFC18C0008.json";

#[test]
fn search_results_become_award_records() {
    let Some(bytes) = corpus(SEARCH) else { return };
    let batch = parse(SEARCH, &bytes);
    assert_eq!(batch.format, "usaspending-spending-by-award");
    assert_eq!(batch.problems, vec![]);
    assert_eq!(batch.records.len(), 2);
    // results[0]: "Award ID": "GSFC0200211DNAS502200", "Recipient Name": "NORTHROP GRUMMAN SYSTEMS CORPORATION",
    // "Award Amount": 4345585999.01, "Contract Award Type": "DEFINITIVE CONTRACT", "Recipient UEI":
    // "VSBAFMDKTWL4", "Awarding Agency": "National Aeronautics and Space Administration", "Start Date":
    // "2003-10-01", "End Date": "2022-12-25", "generated_internal_id": "CONT_AWD_GSFC0200211DNAS502200_8000_-NONE-_-NONE-".
    let jwst = &batch.records[0];
    assert_eq!(jwst.key, "CONT_AWD_GSFC0200211DNAS502200_8000_-NONE-_-NONE-");
    assert_eq!(jwst.group, "VSBAFMDKTWL4");
    let d = &jwst.data;
    assert_eq!((d["awardId"].as_str(), d["awardType"].as_str()), (Some("GSFC0200211DNAS502200"), Some("D")));
    assert_eq!(
        (d["amount"].as_f64(), d["date"].as_str(), d["endDate"].as_str()),
        (Some(4345585999.01), Some("2003-10-01"), Some("2022-12-25"))
    );
    assert_eq!(d["recipientName"], "NORTHROP GRUMMAN SYSTEMS CORPORATION");
    assert_eq!(d["agency"], "National Aeronautics and Space Administration");
    assert!(d["description"].as_str().unwrap().starts_with("THE JAMES WEBB SPACE TELESCOPE (JWST)"));
    assert_eq!(d["sourceUrl"], "https://www.usaspending.gov/award/CONT_AWD_GSFC0200211DNAS502200_8000_-NONE-_-NONE-/");
    // results[1]: "80NM0018F0615", CALIFORNIA INSTITUTE OF TECHNOLOGY (UEI YC1YP79BFD19), 2856157775.98,
    // "DELIVERY ORDER" (code C), 2018-10-01 to 2025-09-30.
    let jpl = &batch.records[1].data;
    assert_eq!((jpl["awardType"].as_str(), jpl["amount"].as_f64()), (Some("C"), Some(2856157775.98)));
    assert_eq!((jpl["recipientUei"].as_str(), jpl["date"].as_str()), (Some("YC1YP79BFD19"), Some("2018-10-01")));
}

#[test]
fn an_award_detail_becomes_the_same_kind_of_record() {
    let Some(bytes) = corpus(DETAIL) else { return };
    let batch = parse(DETAIL, &bytes);
    assert_eq!(batch.format, "usaspending-award");
    assert_eq!(batch.problems, vec![]);
    // generated_unique_award_id "CONT_AWD_80GSFC18C0008_8000_-NONE-_-NONE-", piid "80GSFC18C0008", type "D",
    // total_obligation 172213419.67, date_signed "2018-03-05", period_of_performance.end_date "2025-08-19",
    // recipient "THE UNIVERSITY OF IOWA" (UEI Z1H9VJS8NG16, its own parent), NASA.
    let r = &batch.records[0];
    assert_eq!((r.key.as_str(), r.group.as_str()), ("CONT_AWD_80GSFC18C0008_8000_-NONE-_-NONE-", "Z1H9VJS8NG16"));
    assert_eq!(
        (r.data["awardId"].as_str(), r.data["awardType"].as_str(), r.data["amount"].as_f64()),
        (Some("80GSFC18C0008"), Some("D"), Some(172213419.67))
    );
    assert_eq!((r.data["date"].as_str(), r.data["endDate"].as_str()), (Some("2018-03-05"), Some("2025-08-19")));
    assert_eq!(
        (r.data["recipientName"].as_str(), r.data["parentName"].as_str()),
        (Some("THE UNIVERSITY OF IOWA"), Some("THE UNIVERSITY OF IOWA"))
    );
}

#[test]
fn malformed_files_are_refused_and_bad_rows_reported() {
    let refused = |text: &str| Contracts::ingest(&SourceFile { name: "x.json", bytes: text.as_bytes() }).unwrap_err();
    assert_eq!(refused("{\"results\": [\n{\"Award ID\": ").location.as_deref(), Some("line 2"));
    assert_eq!(refused("{\"page\": 1}").location.as_deref(), Some("$"));
    // Hand-written: a result without its amount, one with a date that is not one.
    let batch = parse(
        "x.json",
        br#"{"results": [
            {"Award ID": "A1", "Recipient Name": "R", "generated_internal_id": "CONT_AWD_A1", "Start Date": "2024-01-01"},
            {"Award ID": "A2", "Recipient Name": "R", "generated_internal_id": "CONT_AWD_A2", "Award Amount": 5,
             "Start Date": "2024-13-01"}]}"#,
    );
    assert_eq!(batch.records, vec![]);
    let locations: Vec<&str> = batch.problems.iter().map(|p| p.location.as_str()).collect();
    assert_eq!(locations, ["/results[0]/Award Amount", "/results[1]/Start Date"]);
}

#[test]
fn an_end_date_that_is_not_a_date_is_a_row_problem_not_dropped() {
    // Hand-written: an award ending on a date that is not one, and one with no end date (none, not a problem).
    let batch = parse(
        "x.json",
        br#"{"results": [
            {"Award ID": "A1", "Recipient Name": "R", "generated_internal_id": "CONT_AWD_A1", "Award Amount": 5,
             "Start Date": "2024-01-01", "End Date": "someday"},
            {"Award ID": "A2", "Recipient Name": "R", "generated_internal_id": "CONT_AWD_A2", "Award Amount": 5,
             "Start Date": "2024-01-01", "End Date": null}]}"#,
    );
    assert_eq!(batch.records.len(), 1);
    assert_eq!(batch.records[0].data["endDate"], serde_json::Value::Null);
    assert_eq!(batch.problems.len(), 1);
    assert_eq!(batch.problems[0].location, "/results[0]/End Date");
    assert_eq!(batch.problems[0].message, "`someday` is not a YYYY-MM-DD date");
}

#[test]
fn ingested_awards_are_served_by_recipient_and_never_beside_the_seed() {
    let (Some(search), Some(detail)) = (corpus(SEARCH), corpus(DETAIL)) else { return };
    let host = TestHost::new();
    host.set_ingested(crate::SLUG, &[parse(SEARCH, &search), parse(DETAIL, &detail)]);
    let p = host.init::<Contracts>().expect("init on ingested awards");
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200, "{body}");
    // No company list is loaded here: every recipient is listed under its own name, without a ticker.
    let names: Vec<&str> = body["companies"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    for name in ["NORTHROP GRUMMAN SYSTEMS CORPORATION", "CALIFORNIA INSTITUTE OF TECHNOLOGY", "THE UNIVERSITY OF IOWA"]
    {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    // All three awards start before fiscal year 2024 (2003-10-01, 2018-10-01, 2018-03-05): none is counted.
    for c in body["companies"].as_array().unwrap() {
        assert_eq!((c["ticker"].as_str(), c["awardCount"].as_u64()), (Some(""), Some(0)), "{c}");
        assert_eq!(c["totalObligatedUsd"], 0.0);
    }
    assert_eq!(body["meta"]["sourceUrl"], "https://www.usaspending.gov/search");
    assert!(!body["meta"].to_string().to_lowercase().contains("demo"), "{}", body["meta"]);
    let (_, demo) = get(&p, ROUTE, &[("ticker", "BWRD")]);
    assert_eq!(demo["count"], 0, "the demo seed is not served beside ingested awards");
}

/// The matching rule on a hand-made variant of the real Iowa award (a logic fixture, not data presented as
/// real): a company list of the test's own names the recipient; a second award whose recipient and parent
/// names match nothing belongs to the same company because its parent UEI is the first recipient's UEI.
#[test]
fn a_recipient_is_matched_by_its_parent_uei_when_no_name_matches() {
    let Some(detail) = corpus(DETAIL) else { return };
    let real = parse(DETAIL, &detail);
    let mut variant = real.records[0].clone();
    let mut award: crate::ingest::AwardRecord = serde_json::from_value(variant.data.clone()).unwrap();
    award.award_id = "TEST-VARIANT-1".into();
    award.recipient_name = "UNRELATED SOUNDING RECIPIENT".into();
    award.recipient_uei = "TESTUEI00002".into();
    award.parent_name = Some("NO SUCH PARENT NAME".into());
    award.parent_uei = Some("Z1H9VJS8NG16".into());
    variant.key = "TEST-VARIANT-1".into();
    variant.data = serde_json::to_value(&award).unwrap();
    let variants = IngestBatch { records: vec![variant], ..Default::default() };
    let host = TestHost::new();
    host.set_ingested(crate::SLUG, &[real, variants]);
    host.set_companies(vec![datahost_plugin_api::reference::CompanyRef {
        cik: "0000000001".into(),
        ticker: "TSTU".into(),
        name: "THE UNIVERSITY OF IOWA".into(),
    }]);
    let p = host.init::<Contracts>().unwrap();
    let (_, body) = get(&p, ROUTE, &[("ticker", "tstu")]);
    assert_eq!(
        (body["count"].as_u64(), body["companies"][0]["name"].as_str()),
        (Some(1), Some("THE UNIVERSITY OF IOWA"))
    );
    // Both awards start in 2018 (before the counted window), so the grouping shows in the company list.
    let (_, all) = get(&p, ROUTE, &[]);
    assert_eq!(all["count"], 1, "one company, no entry of its own for the variant's recipient: {all}");
    assert_eq!(all["companies"][0]["totalObligatedUsd"], 0.0);
    assert!(!all.to_string().contains("-0.0"), "no negative zero: {all}");
}
