//! Handler tests on the shipped seed (148 registrations, 35 of them Inactive), through the SDK's in-process
//! test host. Expected names and counts were checked by hand against `seed/sam-entities.json`.

use datahost_plugin_api::testing::{get, manifest_problems, plugin_with_own_seeds};
use serde_json::Value;

use crate::data::{normalize_name, rank, MatchRank};
use crate::{SamEntities, ROUTE};

fn names(body: &Value) -> Vec<&str> {
    body["entities"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect()
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<SamEntities>(), Vec::<String>::new());
}

#[test]
fn ranking_rules_on_keys() {
    assert_eq!(normalize_name("  Acme,  Logistics Group, Inc. "), "acme logistics group inc");
    assert_eq!(normalize_name("AT&T Corp."), "at&t corp");
    assert_eq!(rank("acme", "acme"), Some(MatchRank::Exact));
    assert_eq!(rank("acme corporation", "acme"), Some(MatchRank::Prefix));
    assert_eq!(rank("pinnacle acme solutions llc", "acme"), Some(MatchRank::WordContains));
    assert_eq!(rank("tacmetrics inc", "acme"), Some(MatchRank::Contains));
    // A mid-word hit earlier in the name must not hide a word-start hit later on.
    assert_eq!(rank("tacme acme", "acme"), Some(MatchRank::WordContains));
    assert_eq!(rank("borealis", "acme"), None);
    assert_eq!(rank("anything", ""), None);
}

#[test]
fn no_filter_lists_everything_in_name_order() {
    let p = plugin_with_own_seeds::<SamEntities>();
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200);
    assert_eq!(body["query"], "");
    assert_eq!(body["asOf"], "2026-11-01");
    assert_eq!(body["total"], 148);
    assert_eq!(body["count"], 20, "default limit is 20");
    let got = names(&body);
    assert_eq!(&got[..3], &["Aberfoyle Federal Services LLC", "Acme", "Acme Corporation"]);
    let mut sorted = got.clone();
    sorted.sort_by_key(|n| n.to_lowercase());
    assert_eq!(got, sorted);
}

#[test]
fn entity_shape_and_status_rule() {
    let p = plugin_with_own_seeds::<SamEntities>();
    let (_, body) = get(&p, ROUTE, &[("limit", "50")]);
    for e in body["entities"].as_array().unwrap() {
        for field in
            ["name", "uei", "cageCode", "status", "city", "state", "country", "registrationDate", "expirationDate"]
        {
            assert!(e[field].is_string(), "{field} in {e}");
        }
        assert_eq!(e["uei"].as_str().unwrap().len(), 12);
        assert_eq!(e["cageCode"].as_str().unwrap().len(), 5);
        assert!(e["businessTypes"].as_array().unwrap().iter().all(Value::is_string));
        let expired = e["expirationDate"].as_str().unwrap() < "2026-11-01";
        assert_eq!(e["status"], if expired { "Inactive" } else { "Active" }, "{e}");
    }
}

#[test]
fn name_search_ranks_exact_prefix_word_then_inside_word() {
    let p = plugin_with_own_seeds::<SamEntities>();
    let (status, body) = get(&p, ROUTE, &[("q", "acme")]);
    assert_eq!(status, 200);
    assert_eq!(body["query"], "acme");
    assert_eq!(body["total"], 6);
    assert_eq!(body["count"], 6);
    assert_eq!(
        names(&body),
        [
            "Acme",                        // exact
            "Acme Corporation",            // prefix, ties in name order
            "Acme Federal Services LLC",   // prefix
            "Acme Logistics Group, Inc.",  // prefix
            "Pinnacle Acme Solutions LLC", // a word starts with it
            "Tacmetrics Inc.",             // inside a word
        ]
    );
    let (_, upper) = get(&p, ROUTE, &[("q", "ACME")]);
    assert_eq!(upper["entities"], body["entities"], "case-insensitive");
    assert_eq!(upper["query"], "ACME", "query echoes q as given");

    // Word-start matches come before mid-word ones even when the mid-word name sorts first.
    let (_, tech) = get(&p, ROUTE, &[("q", "tech")]);
    assert_eq!(
        names(&tech),
        [
            "Borderland Border Technologies Inc.",
            "Jackdaw Technology Inc.",
            "Larkspur Technologies, Inc.",
            "Ridgeline Blue Technologies LLC",
            "Marshtech International Corporation",
        ]
    );
    let (_, ridge) = get(&p, ROUTE, &[("q", "ridge")]);
    assert_eq!(
        names(&ridge),
        ["Ridgeline Blue Technologies LLC", "Blue Ridge Analytics LLC", "Blue Ridge Environmental Services, Inc."]
    );
}

#[test]
fn punctuation_and_spacing_are_ignored() {
    let p = plugin_with_own_seeds::<SamEntities>();
    let (_, body) = get(&p, ROUTE, &[("q", "acme   logistics group inc")]);
    assert_eq!(names(&body), ["Acme Logistics Group, Inc."]);
    let (_, body) = get(&p, ROUTE, &[("q", "blue ridge")]);
    assert_eq!(names(&body), ["Blue Ridge Analytics LLC", "Blue Ridge Environmental Services, Inc."]);
    let (_, none) = get(&p, ROUTE, &[("q", "no such contractor")]);
    assert_eq!((none["total"].as_u64(), none["count"].as_u64()), (Some(0), Some(0)));
}

#[test]
fn uei_is_exact_and_case_insensitive() {
    let p = plugin_with_own_seeds::<SamEntities>();
    let (status, body) = get(&p, ROUTE, &[("uei", "demoaw1yz6g9")]);
    assert_eq!(status, 200);
    assert_eq!(body["query"], "demoaw1yz6g9");
    assert_eq!(body["total"], 1);
    assert_eq!(names(&body), ["Acme Corporation"]);
    assert_eq!(body["entities"][0]["uei"], "DEMOAW1YZ6G9");
    assert_eq!(body["entities"][0]["cageCode"], "DMO02");
    let (status, none) = get(&p, ROUTE, &[("uei", "ZZZZZZZZZZZZ")]);
    assert_eq!((status, none["total"].as_u64()), (200, Some(0)));
    // Both given: both must hold.
    let (_, both) = get(&p, ROUTE, &[("q", "acme"), ("uei", "DEMOAW1YZ6G9")]);
    assert_eq!(names(&both), ["Acme Corporation"]);
    let (_, clash) = get(&p, ROUTE, &[("q", "tech"), ("uei", "DEMOAW1YZ6G9")]);
    assert_eq!(clash["total"], 0);
}

#[test]
fn status_filter_splits_active_and_inactive() {
    let p = plugin_with_own_seeds::<SamEntities>();
    let (_, inactive) = get(&p, ROUTE, &[("status", "inactive"), ("limit", "50")]);
    assert_eq!(inactive["total"], 35);
    assert!(inactive["entities"].as_array().unwrap().iter().all(|e| e["status"] == "Inactive"));
    let (_, active) = get(&p, ROUTE, &[("status", "Active")]);
    assert_eq!(active["total"], 113);
    let (_, acme_active) = get(&p, ROUTE, &[("q", "acme"), ("status", "active")]);
    assert_eq!(names(&acme_active), ["Acme", "Acme Corporation", "Pinnacle Acme Solutions LLC", "Tacmetrics Inc."]);
}

#[test]
fn limit_default_and_clamp() {
    let p = plugin_with_own_seeds::<SamEntities>();
    let (_, five) = get(&p, ROUTE, &[("limit", "5")]);
    assert_eq!((five["count"].as_u64(), five["total"].as_u64()), (Some(5), Some(148)));
    let (_, clamped) = get(&p, ROUTE, &[("limit", "1000")]);
    assert_eq!((clamped["count"].as_u64(), clamped["total"].as_u64()), (Some(50), Some(148)));
    let (_, two) = get(&p, ROUTE, &[("q", "acme"), ("limit", "2")]);
    assert_eq!(names(&two), ["Acme", "Acme Corporation"]);
    assert_eq!(two["total"], 6);
}

#[test]
fn bad_parameters_are_400_naming_the_rule() {
    let p = plugin_with_own_seeds::<SamEntities>();
    let long = "a".repeat(201);
    for (query, message) in [
        (("uei", "ABC"), "uei must be exactly 12 letters or digits (a SAM.gov Unique Entity ID), got `ABC`"),
        (
            ("uei", "DEMOAW1YZ6G!"),
            "uei must be exactly 12 letters or digits (a SAM.gov Unique Entity ID), got `DEMOAW1YZ6G!`",
        ),
        (
            ("uei", "DEMOAW1YZ6G90"),
            "uei must be exactly 12 letters or digits (a SAM.gov Unique Entity ID), got `DEMOAW1YZ6G90`",
        ),
        (("q", "!!!"), "q must contain at least one letter or digit"),
        (("q", long.as_str()), "q must be at most 200 characters"),
        (("status", "expired"), "status must be active or inactive"),
        (("limit", "0"), "limit must be a positive integer, got `0`"),
        (("limit", "many"), "limit must be a positive integer, got `many`"),
    ] {
        let (status, body) = get(&p, ROUTE, &[query]);
        assert_eq!(status, 400, "{query:?}");
        assert_eq!(body["error"], message);
        assert_eq!(body["code"], 400);
    }
}

/// SAM.gov never puts the letter O in a UEI or a CAGE code (it reads as zero), so identifiers spelled with
/// `DEMO` / `DMO` can never name a real registration.
#[test]
fn seed_identifiers_and_meta_are_visibly_demo() {
    let seed: Value = serde_json::from_str(include_str!("../seed/sam-entities.json")).unwrap();
    let meta = &seed["meta"];
    assert!(meta["source"].as_str().unwrap().starts_with("DEMO"), "{meta}");
    assert!(meta["caveat"].as_str().unwrap().starts_with("DEMO DATA"), "{meta}");
    assert!(meta["sourceUrl"].as_str().unwrap().starts_with("https://demo.invalid/"), "{meta}");
    let entities = seed["entities"].as_array().unwrap();
    let mut ueis = std::collections::HashSet::new();
    for e in entities {
        let (uei, cage) = (e["uei"].as_str().unwrap(), e["cageCode"].as_str().unwrap());
        assert!(uei.starts_with("DEMO") && uei.len() == 12, "{e}");
        assert!(cage.starts_with("DMO") && cage.len() == 5, "{e}");
        assert!(ueis.insert(uei), "UEIs are unique: {uei}");
    }
    assert_eq!(ueis.len(), 148);
}
