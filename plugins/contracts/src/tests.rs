//! Handler tests on the shipped seed, through the SDK's in-process test host.

use datahost_plugin_api::testing::{
    assert_no_real_identifier, get, manifest_problems, plugin_with_own_seeds, TestHost,
};
use datahost_plugin_kit::companies::{check_endpoint, fetch_company};
use serde_json::Value;

use crate::{Contracts, ROUTE};

fn amounts(c: &Value) -> Vec<f64> {
    c["topAwards"].as_array().unwrap().iter().map(|a| a["amount"].as_f64().unwrap()).collect()
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Contracts>(), Vec::<String>::new());
}

#[test]
fn shared_company_endpoint_behaviour() {
    let all = check_endpoint::<Contracts>(ROUTE, "bwrd");
    assert_eq!(all["count"], 15);
    let caveat = all["meta"]["caveat"].as_str().unwrap();
    assert!(caveat.contains("fiscal year 2024") && caveat.contains("A, B, C and D"), "{caveat}");
    assert_eq!(all["meta"]["window"]["startDate"], "2023-10-01");
    assert_eq!(all["meta"]["window"]["awardTypeCodes"], serde_json::json!(["A", "B", "C", "D"]));
}

#[test]
fn every_company_is_consistent_with_its_listed_awards() {
    let (_, all) = get(&plugin_with_own_seeds::<Contracts>(), ROUTE, &[]);
    for c in all["companies"].as_array().unwrap() {
        let top = c["topAwards"].as_array().unwrap();
        let count = c["awardCount"].as_u64().unwrap() as usize;
        assert_eq!(top.len(), count.min(5), "{c}");
        let a = amounts(c);
        assert!(a.windows(2).all(|w| w[0] >= w[1]), "topAwards sorted by amount desc: {c}");
        assert!(a.iter().sum::<f64>() <= c["totalObligatedUsd"].as_f64().unwrap() + 0.01);
        for award in top {
            assert!(["A", "B", "C", "D"].contains(&award["awardType"].as_str().unwrap()));
            assert!(award["date"].as_str().unwrap() >= "2023-10-01");
            for f in ["agency", "description", "date", "awardId"] {
                assert!(award[f].is_string(), "{f}");
            }
        }
    }
}

#[test]
fn hand_checked_cartwheel_window() {
    // AMZN's seed holds 7 awards: a 2022 type C (before FY2024) and an IDV_C (not A-D) are excluded;
    // 8842289.09 + 15772868.59 + 707605780.63 + 6988802.57 + 67537766.87 = 806747507.75.
    let amzn = fetch_company::<Contracts>(ROUTE, "crtw");
    assert_eq!(amzn["awardCount"], 5);
    assert_eq!(amzn["totalObligatedUsd"], 806747507.75);
    assert_eq!(amounts(&amzn), vec![707605780.63, 67537766.87, 15772868.59, 8842289.09, 6988802.57]);
    assert_eq!(amzn, crate::schema::example()["companies"][0], "the OpenAPI example is the real answer");
}

#[test]
fn hand_checked_bulwark_ridge_boundaries_and_cap() {
    // BWRD: 15 awards. Excluded: three before FY2024 incl. a 999M award dated 2023-09-30 (the last day of
    // FY2023), an IDV_B of 595.8M and a type-04 grant. Counted: 9, incl. 1.25M dated 2023-10-01.
    let lmt = fetch_company::<Contracts>(ROUTE, "BWRD");
    assert_eq!(lmt["awardCount"], 9);
    let total = 1250000.0
        + 387879832.12
        + 18325859.61
        + 347560549.09
        + 4830837.35
        + 51046912.55
        + 618292.15
        + 62471591.48
        + 308093577.72;
    assert!((lmt["totalObligatedUsd"].as_f64().unwrap() - total).abs() < 0.005, "{lmt}");
    assert_eq!(lmt["totalObligatedUsd"], 1182077452.07);
    assert_eq!(amounts(&lmt), vec![387879832.12, 347560549.09, 308093577.72, 62471591.48, 51046912.55]);
}

#[test]
fn window_rule_on_synthetic_awards() {
    let seed = r#"{"meta": {"generatedAt": "2026-11-01T06:00:00Z", "source": "demo", "sourceUrl": "https://example.org",
        "caveat": "demo"}, "companies": [{"name": "Example Corp", "ticker": "EXM", "awards": [
        {"awardId": "1", "awardType": "D", "amount": 10.0, "agency": "X", "description": "in", "date": "2023-10-01"},
        {"awardId": "2", "awardType": "D", "amount": 20.0, "agency": "X", "description": "old", "date": "2023-09-30"},
        {"awardId": "3", "awardType": "IDV_A", "amount": 40.0, "agency": "X", "description": "idv", "date": "2024-01-01"},
        {"awardId": "4", "awardType": "02", "amount": 80.0, "agency": "X", "description": "grant", "date": "2024-01-01"},
        {"awardId": "5", "awardType": "A", "amount": 0.5, "agency": "X", "description": "in", "date": "2026-10-31"}]}]}"#;
    let host = TestHost::new();
    host.set_dataset(crate::SLUG, seed);
    let p = host.init::<Contracts>().unwrap();
    let (_, body) = get(&p, ROUTE, &[]);
    let c = &body["companies"][0];
    assert_eq!((c["awardCount"].as_u64(), c["totalObligatedUsd"].as_f64()), (Some(2), Some(10.5)));
    let bad = seed.replace("2026-10-31", "31/10/2026");
    host.set_dataset(crate::SLUG, &bad);
    assert!(host.init::<Contracts>().is_err(), "a malformed award date fails init, not a request");
}

#[test]
fn the_demo_seed_is_fictional_and_cites_no_official_source() {
    let text = include_str!("../seed/contracts.json");
    let seed: Value = serde_json::from_str(text).unwrap();
    let meta = &seed["meta"];
    assert!(meta["source"].as_str().unwrap().starts_with("DEMO seed"), "{meta}");
    assert!(meta["caveat"].as_str().unwrap().starts_with("DEMO DATA"), "{meta}");
    assert_eq!(meta["sourceUrl"], "https://demo.invalid/contracts");
    let companies = seed["companies"].as_array().unwrap();
    for c in companies {
        assert!(c["name"].as_str().unwrap().ends_with(" (demo)"), "{}", c["name"]);
        // Award ids are not PIIDs (whose first six characters name a real contracting office).
        for a in c["awards"].as_array().unwrap() {
            let id = a["awardId"].as_str().unwrap();
            assert!(
                id.len() == 14 && id.starts_with("DEMO-AWD-") && id[9..].bytes().all(|b| b.is_ascii_digit()),
                "{id}"
            );
        }
    }
    let tickers: Vec<&str> = companies.iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    assert_no_real_identifier(text, &tickers);
}
