//! Matching-rule tests on hand-built keys and handler tests on the shipped seed.

use datahost_plugin_api::testing::{get, manifest_problems, plugin_with_own_seeds};
use datahost_plugin_kit::address::canonical_tokens;
use serde_json::{json, Value};

use crate::data::{address_matches, AddressKey, Parcel};
use crate::{Property, ROUTE};

fn seed() -> Value {
    serde_json::from_str(include_str!("../seed/property.json")).unwrap()
}

fn lookup(p: &Property, address: &str, county: Option<&str>) -> (u16, Value) {
    match county {
        Some(c) => get(p, ROUTE, &[("address", address), ("county", c)]),
        None => get(p, ROUTE, &[("address", address)]),
    }
}

fn parcel(street: &str, city: &str, state: &str, zip: &str) -> Parcel {
    let mut v = seed()["parcels"][0].clone();
    v["street"] = json!(street);
    v["city"] = json!(city);
    v["state"] = json!(state);
    v["zip"] = json!(zip);
    serde_json::from_value(v).unwrap()
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Property>(), Vec::<String>::new());
}

#[test]
fn address_rule_needs_the_whole_street_line_then_locality_only() {
    let key = AddressKey::new(&parcel("1550 N Clark St Apt 4B", "Chicago", "IL", "60614"));
    let m = |q: &str| address_matches(&canonical_tokens(q), &key);
    assert!(m("1550 North Clark Street, Unit 4B"));
    assert!(m("1550 n. clark st. #4b chicago illinois"));
    assert!(m("1550 N Clark St Suite 4B, Chicago, IL 60614-2207, USA"));
    assert!(!m("1550 N Clark St"), "the unit is part of the street line");
    assert!(!m("1550 N Clark St Apt 4C"));
    assert!(!m("550 N Clark St Apt 4B"));
    assert!(!m("1550 N Clark St Apt 4B Evanston"), "a different city");
    assert!(!m("1550 N Clark St Apt 4B 2207"), "a ZIP+4 suffix only counts after the ZIP");
    assert!(!m("Clark St"));
}

#[test]
fn missing_and_malformed_parameters_are_400() {
    let p = plugin_with_own_seeds::<Property>();
    for (query, message) in [
        (vec![], "the address query parameter is required"),
        (vec![("address", "   ")], "the address query parameter is required"),
        (vec![("county", "travis-tx")], "the address query parameter is required"),
        (vec![("address", "#,.")], "address must contain at least one letter or digit"),
        (
            vec![("address", "1 Main St"), ("county", "Travis County")],
            "county must be a county slug: the county name in lowercase words joined by '-', then '-' and a \
             two-letter state code (for example travis-tx), got `Travis County`",
        ),
        (
            vec![("address", "1 Main St"), ("county", "travis-xx")],
            "county must end in a U.S. state code such as -tx or -wa, got `-xx`",
        ),
    ] {
        let (status, body) = get(&p, ROUTE, &query);
        assert_eq!(status, 400, "{query:?}");
        assert_eq!(body["error"], message, "{query:?}");
    }
    let long = "9".repeat(301);
    let (status, body) = lookup(&p, &long, None);
    assert_eq!((status, body["error"].as_str()), (400, Some("address must be at most 300 characters")));
}

#[test]
fn matched_record_has_the_spec_fields_and_hand_checked_values() {
    let p = plugin_with_own_seeds::<Property>();
    let (status, body) = lookup(&p, "1204 Cedar Bend Lane, Austin, TX 78704", Some("Travis-TX"));
    assert_eq!(status, 200);
    let fragment = crate::schema::fragment();
    let example = &fragment["paths"][ROUTE]["get"]["responses"]["200"]["content"]["application/json"]["example"];
    assert_eq!(&body, example, "the documented example is a real response");
    let record = body["record"].as_object().unwrap();
    let mut fields: Vec<&str> = record.keys().map(String::as_str).collect();
    fields.sort();
    let mut spec = vec![
        "yearBuilt",
        "bedrooms",
        "squareFootage",
        "bathrooms",
        "lotSize",
        "assessorId",
        "legalDescription",
        "subdivision",
        "zoning",
        "architectureType",
        "exteriorType",
        "county",
        "propertyType",
        "ownerName",
        "sourceId",
        "sourceUrl",
        "lastSaleDate",
        "hoaFee",
        "landValue",
        "improvementValue",
        "marketValue",
        "fetchedAt",
    ];
    spec.sort();
    assert_eq!(fields, spec);
    for int_field in ["yearBuilt", "bedrooms", "squareFootage"] {
        assert!(record[int_field].is_u64(), "{int_field} must serialise as an integer");
    }
    assert_eq!(
        record["landValue"].as_f64().unwrap() + record["improvementValue"].as_f64().unwrap(),
        record["marketValue"].as_f64().unwrap()
    );
}

#[test]
fn spelling_variants_match_the_same_parcel() {
    let p = plugin_with_own_seeds::<Property>();
    for variant in [
        "1204 Cedar Bend Ln",
        "1204 CEDAR BEND LANE",
        "  1204  cedar   bend ln. ",
        "1204 Cedar Bend Ln Austin Texas",
        "1204 Cedar Bend Ln, Austin, TX 78704-3312",
    ] {
        let (status, body) = lookup(&p, variant, None);
        assert_eq!(status, 200);
        assert_eq!(body["status"], "matched", "{variant}");
        assert_eq!(body["county"], "travis-tx", "{variant}: the county of the match when none is given");
        assert_eq!(body["record"]["assessorId"], "DEMO-284611", "{variant}");
        assert_eq!(body["address"], variant.trim());
    }
    let (_, dallas) = lookup(&p, "1204 Cedar Bend Ln, Dallas, TX", None);
    assert_eq!((dallas["status"].as_str(), &dallas["record"]), (Some("no-match"), &Value::Null));
    assert_eq!(dallas["county"], "", "no county given and no match");
}

#[test]
fn units_are_part_of_the_address() {
    let p = plugin_with_own_seeds::<Property>();
    for variant in ["1550 N. Clark Street #4B", "1550 North Clark St, Unit 4B, Chicago IL", "1550 n clark st apt 4b"] {
        let (_, body) = lookup(&p, variant, Some("cook-il"));
        assert_eq!(body["status"], "matched", "{variant}");
        assert_eq!(body["record"]["ownerName"], "Tatum Achterberg");
        assert_eq!(body["record"]["propertyType"], "Condominium");
        assert_eq!(body["record"]["hoaFee"], 412.5);
    }
    let (_, building) = lookup(&p, "1550 N Clark St", Some("cook-il"));
    assert_eq!(building["record"], Value::Null);
}

#[test]
fn county_scopes_and_unscoped_duplicates_pick_the_first_county() {
    let p = plugin_with_own_seeds::<Property>();
    let (_, both) = lookup(&p, "100 Main St", None);
    assert_eq!(both["matchCount"], 2);
    assert_eq!(both["county"], "maricopa-az", "first county in slug order");
    assert_eq!(both["record"]["county"], "maricopa-az");
    let (_, travis) = lookup(&p, "100 Main Street", Some("travis-tx"));
    assert_eq!((travis["matchCount"].as_u64(), travis["record"]["county"].as_str()), (Some(1), Some("travis-tx")));
    let (_, mesa) = lookup(&p, "100 Main St, Mesa, AZ", None);
    assert_eq!((mesa["matchCount"].as_u64(), mesa["county"].as_str()), (Some(1), Some("maricopa-az")));
    let (_, elsewhere) = lookup(&p, "1204 Cedar Bend Ln", Some("king-wa"));
    assert_eq!(elsewhere["status"], "no-match");
    assert_eq!(elsewhere["county"], "king-wa");
    assert_eq!(elsewhere["record"], Value::Null);
}

#[test]
fn county_not_onboarded_is_200_with_null_record() {
    let p = plugin_with_own_seeds::<Property>();
    let (status, body) = lookup(&p, "1204 Cedar Bend Ln", Some("harris-tx"));
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({
            "address": "1204 Cedar Bend Ln", "county": "harris-tx", "record": null,
            "normalizedAddress": "1204 CEDAR BEND LN", "status": "county-not-onboarded", "matchCount": 0,
            "matchedAddress": null
        })
    );
}

#[test]
fn seed_is_labelled_demo_and_every_parcel_is_findable_by_its_address() {
    let seed = seed();
    assert!(seed["meta"]["caveat"].as_str().unwrap().contains("DEMO DATA"));
    let counties: Vec<&str> =
        seed["counties"].as_array().unwrap().iter().map(|c| c["slug"].as_str().unwrap()).collect();
    assert_eq!(counties, ["travis-tx", "king-wa", "cook-il", "maricopa-az"]);
    let meta = &seed["meta"];
    assert!(meta["source"].as_str().unwrap().starts_with("DEMO"), "{meta}");
    assert_eq!(meta["sourceUrl"], "https://demo.invalid/property");
    let parcels = seed["parcels"].as_array().unwrap();
    assert_eq!(parcels.len(), 200);
    // No demo parcel carries an identifier or address of a county's own records.
    for parcel in parcels {
        let id = parcel["assessorId"].as_str().unwrap();
        assert!(id.starts_with("DEMO-"), "{parcel}");
        assert!(parcel["sourceId"].as_str().unwrap().starts_with("DEMO:"), "{parcel}");
        assert_eq!(
            parcel["sourceUrl"],
            format!("https://demo.invalid/property/{}/{id}", parcel["county"].as_str().unwrap())
        );
    }
    let p = plugin_with_own_seeds::<Property>();
    for parcel in parcels {
        let full =
            format!("{}, {}, {} {}", parcel["street"], parcel["city"], parcel["state"], parcel["zip"]).replace('"', "");
        let county = parcel["county"].as_str().unwrap();
        let (_, body) = lookup(&p, &full, Some(county));
        assert_eq!(body["record"]["assessorId"], parcel["assessorId"], "{full}");
    }
}

#[test]
fn street_key_candidates_open_the_query() {
    let tokens = canonical_tokens("1550 North Clark Street #4B, Chicago");
    assert_eq!(
        crate::data::street_key_candidates(&tokens),
        [
            "1550",
            "1550 N",
            "1550 N CLARK",
            "1550 N CLARK ST",
            "1550 N CLARK ST UNIT",
            "1550 N CLARK ST UNIT 4B",
            "1550 N CLARK ST UNIT 4B CHICAGO"
        ]
    );
    // The street key an ingested parcel is stored under (`ingest.rs`, `normalize_address`) is one of them.
    assert_eq!(datahost_plugin_kit::address::normalize_address("1550 N Clark St Apt 4B"), "1550 N CLARK ST UNIT 4B");
}
