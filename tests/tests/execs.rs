//! Black-box tests of `/v1/execs`: rosters derived by the execs plugin from the insiders dataset through the
//! host's records engine, consistent with what `/v1/insiders` serves.

use std::collections::{BTreeMap, BTreeSet};

use datahost_tests::{assert_envelope, Server};
use serde_json::Value;

#[test]
fn shape_filter_limit_and_bad_input() {
    let server = Server::start();
    let (status, all) = server.get("/v1/execs");
    assert_eq!(status, 200, "{all}");
    assert_eq!(all["count"], 20);
    let person = &all["companies"][0]["execs"][0];
    assert!(person["name"].is_string() && person["titles"].is_string(), "{person}");
    assert!(person["filingCount"].is_u64() && person["lastFilingDate"].is_string() && person["lastCode"].is_string());

    let (_, two) = server.get("/v1/execs?limit=2");
    assert_eq!(two["count"], 2);

    let (_, blfn) = server.get("/v1/execs?ticker=blfn");
    assert_eq!(blfn["count"], 1);
    let ormsby = blfn["companies"][0]["execs"].as_array().unwrap().iter().find(|e| e["name"] == "Genevieve Ormsby");
    assert_eq!(ormsby.unwrap()["titles"], "President and Chief Operating Officer, EVP and Chief Operating Officer");

    for bad in ["/v1/execs?limit=0", "/v1/execs?limit=x", "/v1/execs?ticker=A%20B"] {
        let (status, body) = server.get(bad);
        assert_envelope(status, &body, 400);
    }
}

#[test]
fn rosters_are_consistent_with_insiders() {
    let server = Server::start();
    for ticker in ["ORCH", "BLFN", "LMCS", "WLHB"] {
        let (_, insiders) = server.get(&format!("/v1/insiders?ticker={ticker}"));
        let (_, execs) = server.get(&format!("/v1/execs?ticker={ticker}"));
        let company = &insiders["companies"][0];
        let roster = &execs["companies"][0];
        assert_eq!(roster["company"], company["company"]);
        assert_eq!(roster["ceo"], company["ceo"]);

        // Per owner from /v1/insiders: distinct accessions, latest filing date, every title.
        let mut expected: BTreeMap<&str, (BTreeSet<&str>, &str, BTreeSet<&str>)> = BTreeMap::new();
        for f in company["filings"].as_array().unwrap() {
            let e = expected.entry(f["owner"].as_str().unwrap()).or_default();
            e.0.insert(f["accessionNumber"].as_str().unwrap());
            let filed = f["filedDate"].as_str().or(f["date"].as_str()).unwrap();
            if filed > e.1 {
                e.1 = filed;
            }
            e.2.extend(f["title"].as_str().unwrap().split(", "));
        }
        let people: &Vec<Value> = roster["execs"].as_array().unwrap();
        assert_eq!(people.len(), expected.len(), "{ticker}: one entry per owner");
        for p in people {
            let (accessions, last, titles) = &expected[p["name"].as_str().unwrap()];
            assert_eq!(p["filingCount"].as_u64().unwrap() as usize, accessions.len(), "{ticker} {p}");
            assert_eq!(p["lastFilingDate"].as_str().unwrap(), *last, "{ticker} {p}");
            let got: BTreeSet<&str> = p["titles"].as_str().unwrap().split(", ").collect();
            assert_eq!(&got, titles, "{ticker} {p}");
        }
    }
}
