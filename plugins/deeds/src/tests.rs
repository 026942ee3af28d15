//! Handler tests on a hand-written fixture (exact expectations) and on the shipped seed.

use datahost_plugin_api::testing::{get, manifest_problems, plugin_with_own_seeds, TestHost};
use serde_json::{json, Value};

use crate::{Deeds, ROUTE, SLUG};

fn deed(n: &str, date: &str, grantor: &str, grantee: &str, address: &str, county: &str) -> Value {
    json!({
        "instrumentNumber": n, "docType": "WARRANTY DEED", "grantor": grantor, "grantee": grantee,
        "legalDescription": "LOT 1 BLK A TEST ADDITION", "county": county,
        "sourceUrl": format!("https://clerk.example/{n}"), "recordedDate": date, "propertyAddress": address
    })
}

/// Four deeds in king-wa, one in cook-il (not onboarded in this fixture).
fn fixture() -> Deeds {
    let snapshot = json!({
        "meta": {"source": "test", "sourceUrl": "https://clerk.example", "method": "test", "caveat": "DEMO DATA", "generatedAt": "2026-11-01T00:00:00Z"},
        "counties": [{"slug": "king-wa", "name": "King County", "state": "WA", "onboardedAt": "2026-01-01"}],
        "deeds": [
            deed("1", "2018-02-01", "Wren Halvorsen", "Blair Okonkwo", "8200 NE 45th St, Seattle, WA 98115", "king-wa"),
            deed("2", "2023-07-09", "Blair Okonkwo", "Reese Du Plessis", "8200 NE 45th St, Seattle, WA 98115", "king-wa"),
            deed("3", "2021-11-30", "Reese Du Plessis", "Harborline Bank NA", "17 Alder Ln, Kent, WA 98032", "king-wa"),
            deed("4", "2020-05-05", "Sage O'Rourke", "Wren Halvorsen", "901 Madrona Ave Unit 3, Seattle, WA 98103", "king-wa"),
            deed("5", "2024-01-01", "Blair Okonkwo", "Someone Else", "1 Elm St, Evanston, IL 60201", "cook-il"),
        ]
    });
    let host = TestHost::new();
    host.set_dataset(SLUG, &snapshot.to_string());
    host.init::<Deeds>().unwrap()
}

fn numbers(body: &Value) -> Vec<&str> {
    body["deeds"].as_array().unwrap().iter().map(|d| d["instrumentNumber"].as_str().unwrap()).collect()
}

fn search(p: &Deeds, county: &str, query: &str) -> Value {
    let (status, body) = get(p, ROUTE, &[("county", county), ("query", query)]);
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Deeds>(), Vec::<String>::new());
}

#[test]
fn token_match_on_grantor_grantee_and_address_newest_first() {
    let p = fixture();
    assert_eq!(numbers(&search(&p, "king-wa", "okonkwo")), ["2", "1"], "as grantee and as grantor, newest first");
    assert_eq!(numbers(&search(&p, "king-wa", "BLAIR OKONKWO")), ["2", "1"]);
    assert_eq!(numbers(&search(&p, "king-wa", "okonkwo halvorsen")), ["1"], "every token must appear");
    assert_eq!(numbers(&search(&p, "king-wa", "du plessis")), ["2", "3"]);
    assert_eq!(numbers(&search(&p, "king-wa", "o'rourke")), ["4"]);
    assert_eq!(numbers(&search(&p, "king-wa", "ORourke")), ["4"]);
    assert_eq!(numbers(&search(&p, "king-wa", "8200 Northeast 45th Street")), ["2", "1"]);
    assert_eq!(numbers(&search(&p, "king-wa", "901 madrona avenue #3")), ["4"]);
    assert!(numbers(&search(&p, "king-wa", "okon")).is_empty(), "whole tokens only");
    assert!(numbers(&search(&p, "king-wa", "lot")).is_empty(), "the legal description is not searched");
}

#[test]
fn body_shape_and_limit() {
    let p = fixture();
    let (_, body) = get(&p, ROUTE, &[("county", "King-WA"), ("query", " Seattle "), ("limit", "2")]);
    assert_eq!(body["county"], "king-wa");
    assert_eq!(body["query"], "Seattle");
    assert_eq!(body["count"], 2);
    assert_eq!(body["total"], 3);
    assert_eq!(body["countyOnboarded"], true);
    assert_eq!(numbers(&body), ["2", "4"]);
    let (_, clamped) = get(&p, ROUTE, &[("county", "king-wa"), ("query", "seattle"), ("limit", "100000")]);
    assert_eq!(clamped["count"], 3);
}

#[test]
fn county_not_onboarded_is_an_empty_200() {
    let p = fixture();
    let body = search(&p, "cook-il", "okonkwo");
    assert_eq!(
        body,
        json!({"county": "cook-il", "query": "okonkwo", "count": 0, "deeds": [], "next": null, "total": 0, "totalIsLowerBound": false, "countyOnboarded": false})
    );
    assert_eq!(search(&p, "harris-tx", "okonkwo")["countyOnboarded"], false);
}

#[test]
fn missing_and_malformed_parameters_are_400_naming_them() {
    let p = fixture();
    for (query, message) in [
        (vec![("query", "okonkwo")], "the county query parameter is required"),
        (vec![("county", "king-wa")], "the query query parameter is required"),
        (vec![], "the county query parameter is required"),
        (vec![("county", "king-wa"), ("query", "&&")], "query must contain at least one letter or digit"),
        (vec![("county", "king-wa"), ("query", "x"), ("limit", "0")], "limit must be a positive integer, got `0`"),
        (vec![("county", "king-wa"), ("query", "x"), ("limit", "ten")], "limit must be a positive integer, got `ten`"),
        (vec![("county", "king_wa"), ("query", "x")], "county must be a county slug: the county name in lowercase words joined by '-', then '-' and a two-letter state code (for example travis-tx), got `king_wa`"),
    ] {
        let (status, body) = get(&p, ROUTE, &query);
        assert_eq!(status, 400, "{query:?}");
        assert_eq!(body["error"], message, "{query:?}");
    }
}

#[test]
fn seed_default_limit_order_and_example() {
    let p = plugin_with_own_seeds::<Deeds>();
    let seed: Value = serde_json::from_str(include_str!("../seed/deeds.json")).unwrap();
    assert!(seed["meta"]["caveat"].as_str().unwrap().contains("DEMO DATA"));
    assert!(seed["meta"]["source"].as_str().unwrap().starts_with("DEMO"));
    assert_eq!(seed["meta"]["sourceUrl"], "https://demo.invalid/deeds");
    let all = seed["deeds"].as_array().unwrap();
    assert!(all.len() >= 400);
    // No demo deed carries an instrument number or address of a county clerk's own records.
    for d in all {
        let number = d["instrumentNumber"].as_str().unwrap();
        assert!(number.starts_with("DEMO-"), "{d}");
        assert_eq!(d["sourceUrl"], format!("https://demo.invalid/deeds/{}/{number}", d["county"].as_str().unwrap()));
    }
    // Every Travis County address ends in ", TX <zip>", so `tx` matches the whole county.
    let travis = all.iter().filter(|d| d["county"] == "travis-tx").count();
    assert!(travis > 100, "enough rows for the default limit to bite: {travis}");
    let body = search(&p, "travis-tx", "tx");
    assert_eq!(body["count"], 100, "default limit");
    assert_eq!(body["total"], travis);
    let dates: Vec<&str> =
        body["deeds"].as_array().unwrap().iter().map(|d| d["recordedDate"].as_str().unwrap()).collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "newest first");

    let fragment = crate::schema::fragment();
    let example = &fragment["paths"][ROUTE]["get"]["responses"]["200"]["content"]["application/json"]["example"];
    assert_eq!(&search(&p, "travis-tx", "O'Brien"), example, "the documented example is a real response");
}

#[test]
fn equal_dates_order_by_instrument_number_in_byte_order() {
    let snapshot = json!({
        "meta": {"source": "test", "sourceUrl": "https://clerk.example", "method": "test", "caveat": "DEMO DATA", "generatedAt": "2026-11-01T00:00:00Z"},
        "counties": [{"slug": "king-wa", "name": "King County", "state": "WA", "onboardedAt": "2026-01-01"}],
        "deeds": [
            deed("20", "2020-01-01", "Wren Halvorsen", "A", "1 Elm St", "king-wa"),
            deed("100", "2020-01-01", "Wren Halvorsen", "B", "1 Elm St", "king-wa"),
            deed("3", "2021-01-01", "Wren Halvorsen", "C", "1 Elm St", "king-wa"),
            deed("10", "2020-01-01", "Wren Halvorsen", "D", "1 Elm St", "king-wa"),
        ]
    });
    let host = TestHost::new();
    host.set_dataset(SLUG, &snapshot.to_string());
    let p = host.init::<Deeds>().unwrap();
    // Byte order, as the ingested records are ordered (`ClerkKey`).
    assert_eq!(numbers(&search(&p, "king-wa", "halvorsen")), ["3", "10", "100", "20"]);
}
