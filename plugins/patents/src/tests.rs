//! Handler tests on the shipped seed, through the SDK's in-process test host.

use chrono::NaiveDate;
use datahost_plugin_api::testing::{assert_no_real_identifier, get, manifest_problems, TestHost};
use datahost_plugin_kit::companies::{check_endpoint, fetch_company};
use serde_json::json;

use crate::data::{same_applicant, Windows};
use crate::{Patents, ROUTE};

fn day(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Patents>(), Vec::<String>::new());
}

#[test]
fn shared_company_endpoint_behaviour() {
    let all = check_endpoint::<Patents>(ROUTE, "qlsp");
    assert_eq!(all["count"], 12);
    let caveat = all["meta"]["caveat"].as_str().unwrap();
    assert!(caveat.contains("first-applicant") && caveat.contains("undercounted"), "{caveat}");
    assert_eq!(all["meta"]["windows"]["last12mo"], json!({"start": "2025-11-02", "end": "2026-11-01"}));
    for c in all["companies"].as_array().unwrap() {
        assert!(c["grantedLast12mo"].is_u64() && c["grantedPrior12mo"].is_u64(), "{c}");
        assert!(c["assigneeMatched"].is_string() && c["note"].is_string());
    }
}

#[test]
fn hand_checked_quillspark() {
    // Ten grants, all under Quillspark's name (one spelled `QUILLSPARK MOTORS INC. (DEMO)`, which still counts). Last 12 months
    // (2025-11-02..2026-11-01): 02-17, 04-14, 04-21, 07-14, 08-04, 08-25, 10-06 of 2026 = 7.
    // Prior (2024-11-02..2025-11-01): 2025-02-25, 2025-04-15, 2025-09-02 = 3.
    let tsla = fetch_company::<Patents>(ROUTE, "QLSP");
    assert_eq!((tsla["grantedLast12mo"].as_u64(), tsla["grantedPrior12mo"].as_u64()), (Some(7), Some(3)));
    assert_eq!(tsla, crate::schema::example()["companies"][0], "the OpenAPI example is the real answer");
}

#[test]
fn hand_checked_subsidiaries_are_not_counted() {
    // Quarry Cloud Systems: 51 grants in the seed, 11 first-filed by its subsidiaries Wayfarer Autonomy, DeepFathom
    // Research or Moonshot Works. Of the 40 under `Quarry Search LLC (demo)`, 20 fall in the last 12 months and 15
    // in the prior 12 (the other 5 are older).
    let googl = fetch_company::<Patents>(ROUTE, "QRRY");
    assert_eq!(googl["assigneeMatched"], "Quarry Search LLC (demo)");
    assert_eq!((googl["grantedLast12mo"].as_u64(), googl["grantedPrior12mo"].as_u64()), (Some(20), Some(15)));
    assert!(googl["note"].as_str().unwrap().contains("Wayfarer Autonomy LLC (demo)"));
}

#[test]
fn windows_are_twelve_months_ending_at_generated_at() {
    let w = Windows::ending(day("2026-11-01")).unwrap();
    assert!(w.last.contains(day("2026-11-01")) && w.last.contains(day("2025-11-02")));
    assert!(!w.last.contains(day("2025-11-01")) && w.prior.contains(day("2025-11-01")));
    assert!(w.prior.contains(day("2024-11-02")) && !w.prior.contains(day("2024-11-01")));
    // Month arithmetic clamps to the month's end: a leap day snapshot still gives whole years.
    let leap = Windows::ending(day("2028-02-29")).unwrap();
    assert_eq!((leap.last.start, leap.prior.start), (day("2027-03-01"), day("2026-03-01")));
}

#[test]
fn applicant_match_is_one_entity_ignoring_case_and_spacing() {
    assert!(same_applicant("Google  LLC", "google llc"));
    assert!(!same_applicant("Quarry Search LLC (demo)", "Quarry Search LLC (Wayfarer)"));
    assert!(!same_applicant("Bluefin Software Corporation (demo)", "Bluefin Technology Licensing, LLC (demo)"));
}

#[test]
fn counts_follow_the_snapshot_date_on_synthetic_grants() {
    let seed = |as_of: &str| {
        format!(
            r#"{{"meta": {{"generatedAt": "{as_of}", "source": "demo", "sourceUrl": "https://example.org", "caveat": "demo"}},
            "companies": [{{"name": "Example Corp", "ticker": "EXM", "assigneeMatched": "Example Corp", "note": "",
            "grants": [
            {{"patentNumber": "1", "grantDate": "2026-11-01", "firstApplicant": "Example Corp", "title": "t"}},
            {{"patentNumber": "2", "grantDate": "2025-11-02", "firstApplicant": "Example Corp", "title": "t"}},
            {{"patentNumber": "3", "grantDate": "2025-11-01", "firstApplicant": "Example Corp", "title": "t"}},
            {{"patentNumber": "4", "grantDate": "2024-11-01", "firstApplicant": "Example Corp", "title": "t"}},
            {{"patentNumber": "5", "grantDate": "2026-01-06", "firstApplicant": "Example Subsidiary", "title": "t"}}]}}]}}"#
        )
    };
    let host = TestHost::new();
    let counts = |as_of: &str| {
        host.set_dataset(crate::SLUG, &seed(as_of));
        let (_, body) = get(&host.init::<Patents>().unwrap(), ROUTE, &[]);
        (body["companies"][0]["grantedLast12mo"].as_u64(), body["companies"][0]["grantedPrior12mo"].as_u64())
    };
    assert_eq!(counts("2026-11-01T06:00:00Z"), (Some(2), Some(1)));
    assert_eq!(counts("2026-11-02"), (Some(1), Some(2)), "one day later moves every boundary");
    host.set_dataset(crate::SLUG, &seed("unknown"));
    assert!(host.init::<Patents>().is_err());
}

#[test]
fn the_demo_seed_is_fictional_and_cites_no_official_source() {
    let text = include_str!("../seed/patents.json");
    let seed: serde_json::Value = serde_json::from_str(text).unwrap();
    let meta = &seed["meta"];
    assert!(meta["source"].as_str().unwrap().starts_with("DEMO seed"), "{meta}");
    assert!(meta["caveat"].as_str().unwrap().starts_with("DEMO DATA"), "{meta}");
    assert_eq!(meta["sourceUrl"], "https://demo.invalid/patents");
    let demo = |s: &str| s.ends_with(" (demo)") || s.ends_with(" (DEMO)");
    let companies = seed["companies"].as_array().unwrap();
    for c in companies {
        assert!(demo(c["name"].as_str().unwrap()) && demo(c["assigneeMatched"].as_str().unwrap()), "{}", c["name"]);
        for g in c["grants"].as_array().unwrap() {
            assert!(demo(g["firstApplicant"].as_str().unwrap()), "{g}");
            // Not a USPTO patent number (those are digits, with a letter prefix for designs and reissues).
            assert!(g["patentNumber"].as_str().unwrap().starts_with("DEMO-"), "{g}");
        }
    }
    let tickers: Vec<&str> = companies.iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    assert_no_real_identifier(text, &tickers);
}
