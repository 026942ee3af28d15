//! Handler tests on a hand-written fixture (exact expectations) and on the shipped seed.

use datahost_plugin_api::testing::{get, manifest_problems, plugin_with_own_seeds, TestHost};
use serde_json::{json, Value};

use crate::{Liens, ROUTE, SLUG};

fn lien(
    n: &str,
    filed: &str,
    kind: &str,
    claimant: &str,
    debtor: &str,
    release: Option<(&str, &str)>,
    county: &str,
) -> Value {
    json!({
        "instrumentNumber": n, "lienType": kind, "claimant": claimant,
        "releaseInstrument": release.map(|r| r.0).unwrap_or(""), "county": county, "filedDate": filed,
        "amount": 1250.5, "released": release.is_some(), "debtor": debtor, "releaseDate": release.map(|r| r.1),
        "propertyAddress": "4410 E Camelback Rd, Phoenix, AZ 85018", "sourceUrl": format!("https://clerk.example/{n}")
    })
}

/// Four liens in maricopa-az; one in king-wa, which this fixture does not onboard.
fn fixture() -> Liens {
    let snapshot = json!({
        "meta": {"source": "test", "sourceUrl": "https://clerk.example", "method": "test", "caveat": "DEMO DATA", "generatedAt": "2026-11-01T00:00:00Z"},
        "counties": [{"slug": "maricopa-az", "name": "Maricopa County", "state": "AZ", "onboardedAt": "2026-01-01"}],
        "liens": [
            lien("A1", "2019-04-02", "tax", "Internal Revenue Service", "Emery Quintero", Some(("A9", "2020-01-15")), "maricopa-az"),
            lien("A2", "2024-08-19", "mechanic's", "Desert Sun Solar LLC", "Emery Quintero", None, "maricopa-az"),
            lien("A3", "2022-06-30", "judgment", "Keystone Receivables Inc", "Emery Quintero", None, "maricopa-az"),
            lien("A4", "2023-01-10", "tax", "Arizona Department of Revenue", "Hollis Marchetti", None, "maricopa-az"),
            lien("B1", "2025-01-01", "tax", "Internal Revenue Service", "Emery Quintero", None, "king-wa"),
        ]
    });
    let host = TestHost::new();
    host.set_dataset(SLUG, &snapshot.to_string());
    host.init::<Liens>().unwrap()
}

fn numbers(body: &Value) -> Vec<&str> {
    body["liens"].as_array().unwrap().iter().map(|d| d["instrumentNumber"].as_str().unwrap()).collect()
}

fn search(p: &Liens, query: &[(&str, &str)]) -> Value {
    let (status, body) = get(p, ROUTE, query);
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Liens>(), Vec::<String>::new());
}

#[test]
fn token_match_on_claimant_debtor_and_address_newest_first() {
    let p = fixture();
    let q = |text| search(&p, &[("county", "maricopa-az"), ("query", text)]);
    assert_eq!(numbers(&q("quintero")), ["A2", "A3", "A1"]);
    assert_eq!(numbers(&q("Internal Revenue")), ["A1"]);
    assert_eq!(numbers(&q("revenue")), ["A4", "A1"]);
    assert_eq!(numbers(&q("emery QUINTERO keystone")), ["A3"]);
    assert_eq!(numbers(&q("4410 East Camelback Road")), ["A2", "A4", "A3", "A1"]);
    assert!(numbers(&q("quinter")).is_empty(), "whole tokens only");
}

#[test]
fn body_shape_released_values_and_limit() {
    let p = fixture();
    let body = search(&p, &[("county", "Maricopa-AZ"), ("query", "quintero"), ("limit", "1")]);
    assert_eq!(body["county"], "maricopa-az");
    assert_eq!((body["count"].as_u64(), body["total"].as_u64()), (Some(1), Some(3)));
    assert_eq!(body["countyOnboarded"], true);
    let all = search(&p, &[("county", "maricopa-az"), ("query", "quintero")]);
    let open = &all["liens"][0];
    assert_eq!((open["released"].as_bool(), open["releaseInstrument"].as_str()), (Some(false), Some("")));
    assert_eq!(open["releaseDate"], Value::Null);
    let released = &all["liens"][2];
    assert_eq!((released["released"].as_bool(), released["releaseInstrument"].as_str()), (Some(true), Some("A9")));
    assert_eq!(released["amount"], 1250.5);
}

#[test]
fn lien_type_and_released_filters() {
    let p = fixture();
    let q =
        |extra: (&'static str, &'static str)| search(&p, &[("county", "maricopa-az"), ("query", "camelback"), extra]);
    assert_eq!(numbers(&q(("lienType", "tax"))), ["A4", "A1"]);
    assert_eq!(numbers(&q(("lienType", "Mechanic's"))), ["A2"]);
    assert_eq!(numbers(&q(("lienType", "mechanics"))), ["A2"]);
    assert_eq!(numbers(&q(("released", "true"))), ["A1"]);
    assert_eq!(numbers(&q(("released", "false"))), ["A2", "A4", "A3"]);
    let body =
        search(&p, &[("county", "maricopa-az"), ("query", "camelback"), ("lienType", "tax"), ("released", "false")]);
    assert_eq!(numbers(&body), ["A4"]);
    assert_eq!(body["total"], 1);
}

#[test]
fn county_not_onboarded_is_an_empty_200() {
    let p = fixture();
    let body = search(&p, &[("county", "king-wa"), ("query", "quintero")]);
    assert_eq!(
        body,
        json!({"county": "king-wa", "query": "quintero", "count": 0, "liens": [], "next": null, "total": 0, "totalIsLowerBound": false, "countyOnboarded": false})
    );
}

#[test]
fn missing_and_malformed_parameters_are_400_naming_them() {
    let p = fixture();
    for (query, message) in [
        (vec![("query", "quintero")], "the county query parameter is required"),
        (vec![("county", "maricopa-az")], "the query query parameter is required"),
        (vec![("county", "maricopa-az"), ("query", "x"), ("limit", "-1")], "limit must be a positive integer, got `-1`"),
        (vec![("county", "maricopa-az"), ("query", "x"), ("lienType", "federal")], "lienType must be one of mechanic's, tax or judgment, got `federal`"),
        (vec![("county", "maricopa-az"), ("query", "x"), ("released", "yes")], "released must be true or false, got `yes`"),
        (vec![("county", "maricopa"), ("query", "x")], "county must be a county slug: the county name in lowercase words joined by '-', then '-' and a two-letter state code (for example travis-tx), got `maricopa`"),
    ] {
        let (status, body) = get(&p, ROUTE, &query);
        assert_eq!(status, 400, "{query:?}");
        assert_eq!(body["error"], message, "{query:?}");
    }
}

#[test]
fn seed_shape_and_example() {
    let seed: Value = serde_json::from_str(include_str!("../seed/liens.json")).unwrap();
    assert!(seed["meta"]["caveat"].as_str().unwrap().contains("DEMO DATA"));
    assert!(seed["meta"]["source"].as_str().unwrap().starts_with("DEMO"));
    assert_eq!(seed["meta"]["sourceUrl"], "https://demo.invalid/liens");
    let liens = seed["liens"].as_array().unwrap();
    assert!(liens.len() >= 150);
    for l in liens {
        // No demo lien carries an instrument number or address of a county clerk's own records.
        let number = l["instrumentNumber"].as_str().unwrap();
        assert!(number.starts_with("DEMO-"), "{l}");
        let release = l["releaseInstrument"].as_str().unwrap();
        assert!(release.is_empty() || release.starts_with("DEMO-"), "{l}");
        assert_eq!(l["sourceUrl"], format!("https://demo.invalid/liens/{}/{number}", l["county"].as_str().unwrap()));
        let released = l["released"].as_bool().unwrap();
        assert_eq!(released, !l["releaseInstrument"].as_str().unwrap().is_empty(), "{l}");
        assert_eq!(released, l["releaseDate"].is_string(), "{l}");
        assert!(crate::data::LIEN_TYPES.contains(&l["lienType"].as_str().unwrap()));
    }
    let p = plugin_with_own_seeds::<Liens>();
    let fragment = crate::schema::fragment();
    let example = &fragment["paths"][ROUTE]["get"]["responses"]["200"]["content"]["application/json"]["example"];
    assert_eq!(
        &search(&p, &[("county", "travis-tx"), ("query", "O'Brien")]),
        example,
        "the documented example is a real response"
    );
    let az = search(&p, &[("county", "maricopa-az"), ("query", "az")]);
    assert_eq!(az["total"], liens.iter().filter(|l| l["county"] == "maricopa-az").count());
    let dates: Vec<&str> = az["liens"].as_array().unwrap().iter().map(|d| d["filedDate"].as_str().unwrap()).collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "newest first");
}

#[test]
fn equal_dates_order_by_number_in_byte_order() {
    let snapshot = json!({
        "meta": {"source": "test", "sourceUrl": "https://clerk.example", "method": "test", "caveat": "DEMO DATA", "generatedAt": "2026-11-01T00:00:00Z"},
        "counties": [{"slug": "maricopa-az", "name": "Maricopa County", "state": "AZ", "onboardedAt": "2026-01-01"}],
        "liens": [
            lien("B2", "2020-01-01", "tax", "Internal Revenue Service", "Emery Quintero", None, "maricopa-az"),
            lien("A9", "2020-01-01", "tax", "Internal Revenue Service", "Emery Quintero", None, "maricopa-az"),
            lien("B10", "2020-01-01", "tax", "Internal Revenue Service", "Emery Quintero", None, "maricopa-az"),
        ]
    });
    let host = TestHost::new();
    host.set_dataset(SLUG, &snapshot.to_string());
    let p = host.init::<Liens>().unwrap();
    assert_eq!(numbers(&search(&p, &[("county", "maricopa-az"), ("query", "quintero")])), ["A9", "B10", "B2"]);
}

#[test]
fn a_deeds_dataset_that_does_not_read_fails_init_instead_of_serving_the_seed() {
    let host = TestHost::new().with_seeds(<Liens as datahost_plugin_api::Plugin>::seeds());
    host.set_dataset(crate::CLERK_DATASET, r#"{"ingested": {"rows": "many"}}"#);
    let err = host.init::<Liens>().err().expect("init fails");
    assert!(err.to_string().contains("dataset `deeds` does not match its schema"), "{err}");
    let absent = TestHost::new().with_seeds(<Liens as datahost_plugin_api::Plugin>::seeds());
    assert!(absent.init::<Liens>().is_ok(), "an absent deeds dataset still serves the seed");
}
