//! Handler tests on the shipped seed, through the SDK's in-process test host.

use datahost_plugin_api::testing::{get, listed_companies, manifest_problems, plugin_with_own_seeds, TestHost};
use serde_json::Value;

use crate::{InstitutionalHoldings, ROUTE};

fn ask(query: &[(&str, &str)]) -> (u16, Value) {
    get(&plugin_with_own_seeds::<InstitutionalHoldings>(), ROUTE, query)
}

fn ok(query: &[(&str, &str)]) -> Value {
    let (status, body) = ask(query);
    assert_eq!(status, 200, "{body}");
    body
}

fn values(body: &Value) -> Vec<u64> {
    body["holdings"].as_array().unwrap().iter().map(|h| h["valueUsd"].as_u64().unwrap()).collect()
}

#[test]
fn manifest_is_valid_and_documents_404() {
    assert_eq!(manifest_problems::<InstitutionalHoldings>(), Vec::<String>::new());
    let m = <InstitutionalHoldings as datahost_plugin_api::Plugin>::manifest();
    assert!(m.openapi.pointer("/paths/~1v1~1institutional-holdings/get/responses/404").is_some());
}

#[test]
fn shape_and_latest_quarter_by_cik() {
    // Granite Harbor (demo) filed three quarters; the latest, period 2026-09-30, has 150 holdings.
    let body = ok(&[("cik", "0009990307")]);
    for f in ["cik", "filer", "accession", "form", "filedDate", "periodOfReport", "matchedBy"] {
        assert!(body[f].is_string(), "{f}");
    }
    assert_eq!(body["form"], "13F-HR");
    assert_eq!(body["periodOfReport"], "2026-09-30");
    assert_eq!(body["accession"], "DEMO-13F-000011");
    assert_eq!(body["matchedBy"], "cik");
    assert!(body["meta"]["caveat"].as_str().unwrap().contains("DEMO DATA"));
    // Nothing in a demo answer can pass for an EDGAR record: a demo filer and issuers, DEMO ids, and addresses
    // under the reserved demo.invalid host.
    assert_eq!(body["filer"], "Granite Harbor Capital Management LLC (demo)");
    assert_eq!(body["sourceUrl"], "https://demo.invalid/institutional-holdings/DEMO-13F-000011");
    assert_eq!(body["meta"]["sourceUrl"], "https://demo.invalid/institutional-holdings");
    for h in body["holdings"].as_array().unwrap() {
        assert!(h["cusip"].as_str().unwrap().starts_with("DEMO"), "{h}");
        assert!(h["nameOfIssuer"].as_str().unwrap().ends_with(" (DEMO)"), "{h}");
    }
    let h = &body["holdings"][0];
    for f in ["nameOfIssuer", "cusip", "titleOfClass"] {
        assert!(h[f].is_string(), "{f}");
    }
    assert!(h["valueUsd"].is_u64() && h["shares"].is_u64() && h.get("putCall").is_some());
    let put_calls: Vec<&Value> = body["holdings"].as_array().unwrap().iter().map(|h| &h["putCall"]).collect();
    assert!(put_calls.iter().all(|p| p.is_null() || *p == "Put" || *p == "Call"));
}

#[test]
fn cik_with_or_without_leading_zeros() {
    let padded = ok(&[("cik", "0009990307")]);
    assert!(padded["next"].is_string(), "150 holdings make several pages, one walk for every spelling");
    assert_eq!(ok(&[("cik", "9990307")]), padded);
    assert_eq!(ok(&[("cik", " 009990307 ")]), padded);
    assert_eq!(ok(&[("cik", "9990301")])["cik"], "0009990301");
}

#[test]
fn default_limit_truncates_but_total_covers_every_holding() {
    // Hand-checked: the 150 values of Granite Harbor's 2026-09-30 filing sum to 9,048,544,133.
    let body = ok(&[("cik", "9990307")]);
    assert_eq!((body["count"].as_u64(), body["totalHoldings"].as_u64()), (Some(100), Some(150)));
    assert_eq!(body["truncated"], true);
    assert_eq!(body["totalValueUsd"], 9048544133u64);
    let v = values(&body);
    assert!(v.windows(2).all(|w| w[0] >= w[1]), "largest first");

    let all = ok(&[("cik", "9990307"), ("limit", "1000")]);
    assert_eq!((all["count"].as_u64(), all["truncated"].as_bool()), (Some(150), Some(false)));
    assert_eq!(values(&all).iter().sum::<u64>(), 9048544133);
    let clamped = ok(&[("cik", "9990307"), ("limit", "5000000")]);
    assert_eq!(clamped["count"], 150, "a limit above 1000 is clamped, not refused");
    let exact = ok(&[("cik", "9990307"), ("limit", "150")]);
    assert_eq!(exact["truncated"], false, "a limit equal to the holdings count drops nothing");
}

#[test]
fn hand_checked_small_filer_matches_the_example() {
    // Meridian Oak Capital (demo): two quarters; the latest (2026-06-30) holds 22 positions worth 189,975,745.
    let body = ok(&[("q", "Meridian Oak Capital (demo)"), ("limit", "2")]);
    assert_eq!(body, crate::schema::example(), "the OpenAPI example is the real answer");
    let all = ok(&[("q", "meridian oak capital (demo)")]);
    assert_eq!((all["count"].as_u64(), all["truncated"].as_bool()), (Some(22), Some(false)));
    assert_eq!(values(&all).iter().sum::<u64>(), 189975745);
}

#[test]
fn name_match_prefers_exact_then_prefix_then_contains_then_size() {
    let filer = |q: &str| {
        let b = ok(&[("q", q), ("limit", "1")]);
        (b["cik"].as_str().unwrap().to_string(), b["matchedBy"].as_str().unwrap().to_string())
    };
    // Exact beats a larger filer whose name merely starts the same way.
    assert_eq!(filer("MERIDIAN OAK CAPITAL (DEMO)"), ("0009990303".into(), "exact".into()));
    // Both Meridian Oak filers start with it: the larger (1.4 bn vs 0.19 bn) wins.
    assert_eq!(filer("meridian oak"), ("0009990305".into(), "prefix".into()));
    assert_eq!(filer("meridian oak capital"), ("0009990305".into(), "prefix".into()));
    // A prefix (Harborview) beats a larger filer that only contains it (Granite Harbor).
    assert_eq!(filer("harbor"), ("0009990304".into(), "prefix".into()));
    // Contains only: Granite Harbor Capital Management is the largest "capital" filer.
    assert_eq!(filer("capital"), ("0009990307".into(), "contains".into()));
    // cik wins over q.
    assert_eq!(ok(&[("cik", "9990306"), ("q", "harbor")])["filer"], "Silver Birch Investment Partners LLC (demo)");
}

#[test]
fn unknown_filer_is_404() {
    for query in [[("cik", "1")], [("cik", "0009999999")], [("q", "no such fund")]] {
        let (status, body) = ask(&query);
        assert_eq!(status, 404, "{query:?}");
        assert_eq!(body["code"], 404);
        assert!(body["error"].as_str().unwrap().starts_with("no 13F filer"));
    }
}

#[test]
fn bad_parameters_are_400_naming_the_rule() {
    let too_long = "x".repeat(201);
    for (query, message) in [
        (vec![], "the cik or q query parameter is required"),
        (vec![("cik", " "), ("q", "")], "the cik or q query parameter is required"),
        (vec![("limit", "5")], "the cik or q query parameter is required"),
        (vec![("cik", "CIK123")], "cik must be 1 to 10 digits (leading zeros optional), got `CIK123`"),
        (vec![("cik", "00099903075")], "cik must be 1 to 10 digits (leading zeros optional), got `00099903075`"),
        (vec![("cik", "-9990307")], "cik must be 1 to 10 digits (leading zeros optional), got `-9990307`"),
        (vec![("q", too_long.as_str())], "q must be at most 200 characters"),
        (vec![("cik", "9990307"), ("limit", "0")], "limit must be a positive integer, got `0`"),
        (vec![("q", "harbor"), ("limit", "many")], "limit must be a positive integer, got `many`"),
    ] {
        let (status, body) = ask(&query);
        assert_eq!(status, 400, "{query:?}");
        assert_eq!(body["error"], message);
    }
}

#[test]
fn latest_quarter_rule_and_seed_validation_on_synthetic_filings() {
    let seed = r#"{"meta": {"generatedAt": "2026-11-01T06:00:00Z", "source": "demo", "sourceUrl": "https://example.org",
        "caveat": "demo"}, "filings": [
        {"cik": "0000000042", "filer": "Example Fund", "accession": "0000000042-26-000001", "form": "13F-HR",
         "periodOfReport": "2026-06-30", "filedDate": "2026-08-10", "holdings": [
         {"nameOfIssuer": "A", "titleOfClass": "COM", "cusip": "000000001", "valueUsd": 5, "shares": 1, "putCall": null}]},
        {"cik": "0000000042", "filer": "Example Fund", "accession": "0000000042-26-000002", "form": "13F-HR",
         "periodOfReport": "2026-03-31", "filedDate": "2026-09-01", "holdings": []}]}"#;
    let host = TestHost::new();
    host.set_dataset(crate::SLUG, seed);
    let p = host.init::<InstitutionalHoldings>().unwrap();
    let (_, body) = get(&p, ROUTE, &[("cik", "42")]);
    assert_eq!(body["periodOfReport"], "2026-06-30", "a late filing for an older quarter is not the latest");
    assert_eq!((body["totalValueUsd"].as_u64(), body["truncated"].as_bool()), (Some(5), Some(false)));
    host.set_dataset(crate::SLUG, &seed.replace("\"putCall\": null", "\"putCall\": \"Straddle\""));
    assert!(host.init::<InstitutionalHoldings>().is_err());
    host.set_dataset(crate::SLUG, &seed.replace("0000000042", "42"));
    assert!(host.init::<InstitutionalHoldings>().is_err());
}

#[test]
fn demo_filers_have_unassigned_ciks() {
    let Some((_, max_cik)) = listed_companies() else { return };
    assert!(max_cik > 320_193, "the corpus copy lists real companies");
    for cik in ["9990301", "9990302", "9990303", "9990304", "9990305", "9990306", "9990307", "9990308"] {
        let body = ok(&[("cik", cik)]);
        assert!(body["filer"].as_str().unwrap().ends_with(" (demo)"), "{body}");
        assert!(cik.parse::<u64>().unwrap() > max_cik, "{cik} may be assigned");
    }
    let (status, _) = ask(&[("cik", "9990309")]);
    assert_eq!(status, 404, "eight demo filers, no more");
}
