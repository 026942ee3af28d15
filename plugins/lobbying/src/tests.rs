//! Handler tests on the shipped seed, through the SDK's in-process test host.

use datahost_plugin_api::testing::{
    assert_no_real_identifier, get, manifest_problems, plugin_with_own_seeds, TestHost,
};
use datahost_plugin_kit::companies::{check_endpoint, fetch_company};

use crate::{Lobbying, ROUTE};

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Lobbying>(), Vec::<String>::new());
}

#[test]
fn shared_company_endpoint_behaviour() {
    let all = check_endpoint::<Lobbying>(ROUTE, "Hrtm");
    assert_eq!(all["count"], 16);
    assert!(all["meta"]["caveat"].as_str().unwrap().contains("filing years 2025 and 2026"));
    assert_eq!(all["meta"]["filingYears"], serde_json::json!([2025, 2026]));
}

#[test]
fn quarters_are_sorted_in_window_and_add_up() {
    let (_, all) = get(&plugin_with_own_seeds::<Lobbying>(), ROUTE, &[]);
    for c in all["companies"].as_array().unwrap() {
        let quarters = c["quarters"].as_array().unwrap();
        let periods: Vec<&str> = quarters.iter().map(|q| q["period"].as_str().unwrap()).collect();
        let mut sorted = periods.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(periods, sorted, "{c}");
        for p in &periods {
            let (year, q) = p.split_once("-Q").unwrap();
            assert!(["2025", "2026"].contains(&year) && ["1", "2", "3", "4"].contains(&q), "{p}");
        }
        let sum: f64 = quarters.iter().map(|q| q["amount"].as_f64().unwrap()).sum();
        assert_eq!(c["totalSpendUsd"].as_f64().unwrap(), sum);
        let filings: u64 = quarters.iter().map(|q| q["filingCount"].as_u64().unwrap()).sum();
        assert_eq!(c["filingCount"].as_u64().unwrap(), filings);
        assert!(c["year"].is_i64());
    }
}

#[test]
fn hand_checked_hearthmoor_excludes_2024() {
    // 25 filings in the seed; the 11 of filing year 2024 (6,450,000 USD) are excluded. Per quarter:
    // 2025-Q1 1,390,000 + 170,000; Q2 1,430,000; Q3 1,080,000 + 170,000 + 170,000; Q4 1,480,000 + 170,000;
    // 2026-Q1 1,550,000 + 160,000; Q2 1,090,000 + 130,000; Q3 1,560,000 + 230,000. Total 10,780,000.
    let unh = fetch_company::<Lobbying>(ROUTE, "HRTM");
    assert_eq!(unh["totalSpendUsd"], 10780000.0);
    assert_eq!(unh["filingCount"], 14);
    assert_eq!(unh["year"], 2026);
    assert_eq!(unh["quarters"][2], serde_json::json!({"period": "2025-Q3", "amount": 1420000.0, "filingCount": 3}));
    assert_eq!(unh, crate::schema::example()["companies"][0], "the OpenAPI example is the real answer");
}

#[test]
fn a_quarter_without_filings_is_absent() {
    // Bulwark Ridge Defense filed nothing for one counted quarter: six quarters, not seven.
    let lmt = fetch_company::<Lobbying>(ROUTE, "BWRD");
    assert_eq!(lmt["quarters"].as_array().unwrap().len(), 6);
    assert_eq!(lmt["totalSpendUsd"], 17280000.0);
}

#[test]
fn years_rule_on_synthetic_filings() {
    let seed = r#"{"meta": {"generatedAt": "2026-11-01T06:00:00Z", "source": "demo", "sourceUrl": "https://example.org",
        "caveat": "demo"}, "companies": [
        {"name": "Example Corp", "ticker": "EXM", "clientName": "Example Corp", "filings": [
        {"filingUuid": "a", "registrant": "Example Corp", "year": 2024, "quarter": 4, "amount": 1000.0, "postedDate": "2025-01-20"},
        {"filingUuid": "b", "registrant": "Example Corp", "year": 2025, "quarter": 1, "amount": 20.0, "postedDate": "2025-04-20"},
        {"filingUuid": "c", "registrant": "Outside Firm", "year": 2025, "quarter": 1, "amount": 5.0, "postedDate": "2025-04-18"}]},
        {"name": "Old Corp", "ticker": "OLD", "clientName": "Old Corp", "filings": [
        {"filingUuid": "d", "registrant": "Old Corp", "year": 2024, "quarter": 2, "amount": 7.0, "postedDate": "2024-07-20"}]}]}"#;
    let host = TestHost::new();
    host.set_dataset(crate::SLUG, seed);
    let p = host.init::<Lobbying>().unwrap();
    let (_, body) = get(&p, ROUTE, &[]);
    let exm = &body["companies"][0];
    assert_eq!((exm["totalSpendUsd"].as_f64(), exm["filingCount"].as_u64()), (Some(25.0), Some(2)));
    assert_eq!(exm["year"], 2025);
    assert_eq!(exm["quarters"], serde_json::json!([{"period": "2025-Q1", "amount": 25.0, "filingCount": 2}]));
    let old = &body["companies"][1];
    assert_eq!((old["totalSpendUsd"].as_f64(), old["quarters"].as_array().map(Vec::len)), (Some(0.0), Some(0)));
    assert_eq!(old["year"], 2026, "no counted filing: the snapshot's year");
    host.set_dataset(crate::SLUG, &seed.replace("\"quarter\": 2", "\"quarter\": 5"));
    assert!(host.init::<Lobbying>().is_err());
}

#[test]
fn the_demo_seed_is_fictional_and_cites_no_official_source() {
    let text = include_str!("../seed/lobbying.json");
    let seed: serde_json::Value = serde_json::from_str(text).unwrap();
    let meta = &seed["meta"];
    assert!(meta["source"].as_str().unwrap().starts_with("DEMO seed"), "{meta}");
    assert!(meta["caveat"].as_str().unwrap().starts_with("DEMO DATA"), "{meta}");
    assert_eq!(meta["sourceUrl"], "https://demo.invalid/lobbying");
    let companies = seed["companies"].as_array().unwrap();
    for c in companies {
        // Clients, self-filers and outside firms alike are fictional; filing ids are not LDA UUIDs.
        assert!(
            c["name"].as_str().unwrap().ends_with(" (demo)") && c["clientName"].as_str().unwrap().ends_with(" (demo)")
        );
        for f in c["filings"].as_array().unwrap() {
            assert!(f["registrant"].as_str().unwrap().ends_with(" (demo)"), "{f}");
            assert!(f["filingUuid"].as_str().unwrap().starts_with("DEMO-LD2-"), "{f}");
        }
    }
    let tickers: Vec<&str> = companies.iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    assert_no_real_identifier(text, &tickers);
}
