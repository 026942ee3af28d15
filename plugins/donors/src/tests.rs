//! Handler tests on the shipped seed, through the SDK's in-process test host.

use datahost_plugin_api::testing::{get, listed_companies, manifest_problems, plugin_with_own_seeds, TestHost};
use datahost_plugin_kit::companies::{check_endpoint, fetch_company};

use crate::data::{is_committee_id, is_demo_committee_id, Contribution, Totals};
use crate::{Donors, ROUTE};

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Donors>(), Vec::<String>::new());
}

#[test]
fn shared_company_endpoint_behaviour() {
    let all = check_endpoint::<Donors>(ROUTE, "rvmr");
    assert_eq!(all["count"], 18);
    let caveat = all["meta"]["caveat"].as_str().unwrap();
    assert!(caveat.contains("not company financials") && caveat.contains("not predictive of stock performance"));
    assert!(all["meta"]["generatedAt"].as_str().unwrap().len() == 10, "generatedAt is a date per SPEC");
}

#[test]
fn every_company_has_spec_fields_and_types() {
    let (_, all) = get(&plugin_with_own_seeds::<Donors>(), ROUTE, &[]);
    for c in all["companies"].as_array().unwrap() {
        for f in ["name", "ticker", "pacName", "committeeId", "cycle", "note"] {
            assert!(c[f].is_string(), "{f} in {c}");
        }
        for f in ["totalContributionsUsd", "demPct", "repPct"] {
            assert!(c[f].is_number(), "{f} in {c}");
        }
        assert!(c["contributionCount"].is_u64());
        // Demo rows carry demo committee ids, never one of the FEC form.
        let id = c["committeeId"].as_str().unwrap();
        assert!(is_demo_committee_id(id) && !is_committee_id(id), "{c}");
        assert!(c["name"].as_str().unwrap().ends_with("(demo)") && c["pacName"].as_str().unwrap().ends_with("(demo)"));
        assert_eq!(c["cycle"], "2026");
        let (d, r) = (c["demPct"].as_f64().unwrap(), c["repPct"].as_f64().unwrap());
        // Each share is rounded to one decimal, so two halves (43.75 + 56.25) may show as 100.1.
        assert!(d + r <= 100.1 + 1e-9, "{c}");
    }
}

#[test]
fn hand_checked_totals() {
    // RVMR (Ravenmoor, demo): D 1000+2000+3500+5000+5000 = 16500, R 1000+1500+2000+2000+5000*4+10000*2 = 46500,
    // I 2000, other 3500+5000 = 8500; total 73500. 16500/73500 = 22.45 %, 46500/73500 = 63.27 %.
    let rvmr = fetch_company::<Donors>(ROUTE, "RVMR");
    assert_eq!(rvmr["totalContributionsUsd"], 73500.0);
    assert_eq!(rvmr["demPct"], 22.4);
    assert_eq!(rvmr["repPct"], 63.3);
    assert_eq!(rvmr["contributionCount"], 18);
    // Only D and R recipients: the shares add up to 100.
    let bwrd = fetch_company::<Donors>(ROUTE, "BWRD");
    assert_eq!((bwrd["totalContributionsUsd"].as_f64(), bwrd["demPct"].as_f64()), (Some(90500.0), Some(32.0)));
    assert_eq!(bwrd["repPct"], 68.0);
}

#[test]
fn totals_round_to_one_decimal_and_survive_no_contributions() {
    let c = |party: &str, amount: f64| Contribution { party: party.into(), amount };
    let t = Totals::of(&[c("D", 1000.0), c("R", 2000.0), c("other", 3000.0)]);
    assert_eq!(t, Totals { total_usd: 6000.0, dem_pct: 16.7, rep_pct: 33.3, count: 3 });
    assert_eq!(Totals::of(&[]), Totals { total_usd: 0.0, dem_pct: 0.0, rep_pct: 0.0, count: 0 });
}

#[test]
fn malformed_or_fec_form_committee_id_in_the_seed_fails_init() {
    let seed = include_str!("../seed/donors.json");
    let host = TestHost::new();
    host.set_dataset(crate::SLUG, seed);
    assert!(host.init::<Donors>().is_ok());
    for id in ["DEMO-X0001", "DEMO-C001", "C00000000"] {
        host.set_dataset(
            crate::SLUG,
            &seed.replacen("\"committeeId\": \"DEMO-C0001", &format!("\"committeeId\": \"{id}"), 1),
        );
        let err = host.init::<Donors>().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains(&format!("committeeId `{id}`")), "{id}: {err}");
    }
}

#[test]
fn example_matches_the_real_response() {
    let example = crate::schema::example();
    assert_eq!(example["companies"][0], fetch_company::<Donors>(ROUTE, "BWRD"));
}

#[test]
fn demo_companies_are_not_listed_tickers() {
    let Some((tickers, _)) = listed_companies() else { return };
    assert!(tickers.contains("LMT"), "the corpus copy lists real companies");
    let (_, all) = get(&plugin_with_own_seeds::<Donors>(), ROUTE, &[]);
    for c in all["companies"].as_array().unwrap() {
        let ticker = c["ticker"].as_str().unwrap();
        assert!(!tickers.contains(ticker), "{ticker} is listed");
    }
}
