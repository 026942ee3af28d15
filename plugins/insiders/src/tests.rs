//! Handler tests on the shipped seed, through the SDK's in-process test host.

use datahost_plugin_api::testing::{get, listed_companies, manifest_problems, plugin_with_own_seeds, TestHost};
use datahost_plugin_api::Plugin;
use datahost_plugin_kit::companies::check_endpoint;
use serde_json::Value;

use crate::{Insiders, ROUTE};

fn filings(company: &Value) -> &Vec<Value> {
    company["filings"].as_array().unwrap()
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<Insiders>(), Vec::<String>::new());
}

#[test]
fn all_companies_shape_and_meta() {
    let p = plugin_with_own_seeds::<Insiders>();
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200);
    assert_eq!(body["count"], 20);
    let companies = body["companies"].as_array().unwrap();
    assert_eq!(companies.len(), 20);
    let tickers: Vec<&str> = companies.iter().map(|c| c["ticker"].as_str().unwrap()).collect();
    let mut sorted = tickers.clone();
    sorted.sort();
    assert_eq!(tickers, sorted, "companies in ticker order");
    assert_eq!(companies.iter().map(|c| filings(c).len()).sum::<usize>(), 236);
    let caveat = body["meta"]["caveat"].as_str().unwrap();
    assert!(caveat.starts_with("DEMO DATA"));
    assert!(body["meta"]["source"].as_str().unwrap().starts_with("DEMO"));
    assert_eq!(body["meta"]["sourceUrl"], "https://demo.invalid/insiders");
    assert!(caveat.contains("(code S)") && caveat.contains("10b5-1") && caveat.contains("not a bearish view"));
    assert!(body["meta"]["generatedAt"].is_string() && body["meta"]["sourceUrl"].is_string());
    for c in companies {
        assert!((8..=15).contains(&filings(c).len()), "{}", c["ticker"]);
        // Every demo issuer is fictional: a demo name and a CIK above any the SEC has assigned.
        assert!(c["company"].as_str().unwrap().ends_with(" (demo)"), "{c}");
        assert!(c["cik"].as_str().unwrap() > "0009990000", "{c}");
        let dates: Vec<&str> = filings(c).iter().map(|f| f["date"].as_str().unwrap()).collect();
        let mut newest_first = dates.clone();
        newest_first.sort_by(|a, b| b.cmp(a));
        assert_eq!(dates, newest_first);
        // The CEO is one of the company's reporting owners, filing as chief executive.
        assert!(filings(c)
            .iter()
            .any(|f| f["owner"] == c["ceo"] && f["title"].as_str().unwrap().contains("Chief Executive Officer")));
        for f in filings(c) {
            for field in ["owner", "title", "code", "acquiredDisposed", "accessionNumber", "sourceUrl", "date"] {
                assert!(f[field].is_string(), "{field} in {f}");
            }
            for field in ["shares", "price", "value"] {
                assert!(f[field].is_number(), "{field} in {f}");
            }
            // Demo accession numbers are `DEMO-F4-` and six digits (never EDGAR's `##########-##-######`), and
            // each sourceUrl is the accession's address under the reserved demo.invalid host.
            let acc = f["accessionNumber"].as_str().unwrap();
            let sequence = acc.strip_prefix("DEMO-F4-").unwrap_or_default();
            assert!(sequence.len() == 6 && sequence.bytes().all(|b| b.is_ascii_digit()), "{acc}");
            assert_eq!(f["sourceUrl"], format!("https://demo.invalid/insiders/{acc}"));
            if f["code"] == "S" {
                assert_eq!(f["acquiredDisposed"], "D");
            }
        }
    }
}

#[test]
fn ticker_filter_is_case_insensitive_with_hand_checked_rows() {
    let p = plugin_with_own_seeds::<Insiders>();
    let (_, upper) = get(&p, ROUTE, &[("ticker", "ORCH")]);
    let (_, lower) = get(&p, ROUTE, &[("ticker", " orch ")]);
    assert_eq!(upper, lower);
    assert_eq!(upper["count"], 1);
    let orch = &upper["companies"][0];
    assert_eq!(orch["company"], "Orchard Computing Inc. (demo)");
    assert_eq!(orch["cik"], "0009990001");
    assert_eq!(orch["ceo"], "Sebastian Kilbride");
    assert_eq!(filings(orch).len(), 12);
    let first = &filings(orch)[0];
    assert_eq!(first["owner"], "Anselm Underhill");
    assert_eq!(first["title"], "SVP and Chief People Officer");
    assert_eq!(first["code"], "S");
    assert_eq!(first["accessionNumber"], "DEMO-F4-000016");
    assert_eq!(first["sourceUrl"], "https://demo.invalid/insiders/DEMO-F4-000016");
    assert_eq!(first["date"], "2026-10-19");
    assert_eq!(first["value"], 6_612_012.0);
    // An option exercise and its same-day sale share one accession and stay in filed order (M, then S).
    let pair: Vec<&str> = filings(orch)
        .iter()
        .filter(|f| f["accessionNumber"] == "DEMO-F4-000143")
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(pair, ["M", "S"]);
    // The CEO's grant: two titles joined, price 0, value 0.
    let grant = filings(orch).iter().find(|f| f["owner"] == "Sebastian Kilbride").unwrap();
    assert_eq!(grant["title"], "Chief Executive Officer, Director");
    assert_eq!((grant["code"].as_str(), grant["value"].as_f64()), (Some("A"), Some(0.0)));

    let (_, none) = get(&p, ROUTE, &[("ticker", "ZZZZ")]);
    assert_eq!(none["count"], 0);
    assert_eq!(none["companies"], serde_json::json!([]));
}

#[test]
fn value_is_shares_times_price_rounded_to_cents() {
    let p = plugin_with_own_seeds::<Insiders>();
    let (_, body) = get(&p, ROUTE, &[("ticker", "CLDQ")]);
    // 15,200 × 274.34 is 4,169,967.9999999995 in binary floating point.
    let row = filings(&body["companies"][0])
        .iter()
        .find(|f| f["accessionNumber"] == "DEMO-F4-000127" && f["code"] == "S")
        .unwrap();
    assert_eq!(row["value"], 4_169_968.0);
    let (_, all) = get(&p, ROUTE, &[]);
    for c in all["companies"].as_array().unwrap() {
        for f in filings(c) {
            let expected = (f["shares"].as_f64().unwrap() * f["price"].as_f64().unwrap() * 100.0).round() / 100.0;
            assert_eq!(f["value"].as_f64().unwrap(), expected);
        }
    }
}

#[test]
fn shared_company_endpoint_rules_and_exact_400() {
    let all = check_endpoint::<Insiders>(ROUTE, "orch");
    assert_eq!(all["count"], 20);
    let p = plugin_with_own_seeds::<Insiders>();
    let (status, body) = get(&p, ROUTE, &[("ticker", "A B")]);
    assert_eq!(status, 400);
    assert_eq!(body["error"], "ticker must be letters, digits, '.', '-', '/', '^' or '=', got `A B`");
}

#[test]
fn records_for_unknown_companies_are_skipped_and_logged() {
    let host = TestHost::new();
    host.set_dataset(
        "insiders",
        r#"{"meta": {"source": "s", "sourceUrl": "u", "method": "m", "caveat": "c", "generatedAt": "g"},
            "companies": [{"ticker": "ABC", "company": "Abc Corp", "cik": "0000000001", "ceo": "Pat Doe"}],
            "filings": [{"ticker": "XYZ", "owner": "Lee Roe", "titles": ["Director"], "code": "P",
              "acquiredDisposed": "A", "accessionNumber": "0000000001-26-000001", "sourceUrl": "u",
              "date": "2026-01-02", "filedDate": "2026-01-05", "shares": 10, "price": 1.5}]}"#,
    );
    let p = host.init::<Insiders>().unwrap();
    let (_, body) = get(&p, ROUTE, &[]);
    assert_eq!(body["count"], 1);
    assert_eq!(body["companies"][0]["filings"], serde_json::json!([]));
    assert!(host.logs().iter().any(|l| l.contains("1 insider records")), "{:?}", host.logs());
    assert!(Insiders::seeds()[0].snapshot_json.contains("\"companies\""));
}

#[test]
fn demo_issuers_are_neither_listed_tickers_nor_assigned_ciks() {
    let Some((tickers, max_cik)) = listed_companies() else { return };
    assert!(tickers.contains("AAPL") && max_cik > 320_193, "the corpus copy lists real companies");
    let (_, all) = get(&plugin_with_own_seeds::<Insiders>(), ROUTE, &[]);
    for c in all["companies"].as_array().unwrap() {
        let ticker = c["ticker"].as_str().unwrap();
        assert!(!tickers.contains(ticker) && !tickers.contains(&ticker.replace('.', "-")), "{ticker} is listed");
        let cik: u64 = c["cik"].as_str().unwrap().parse().unwrap();
        assert!(cik > max_cik, "{cik} may be assigned");
    }
}
