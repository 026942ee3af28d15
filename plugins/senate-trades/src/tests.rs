//! Handler tests on the shipped seed, through the SDK's in-process test host.

use datahost_plugin_api::testing::{get, listed_companies, manifest_problems, plugin_with_own_seeds};
use datahost_plugin_api::{Maturity, Plugin};
use serde_json::Value;

use crate::{SenateTrades, ROUTE};

fn all_trades(body: &Value) -> Vec<&Value> {
    body["filings"].as_array().unwrap().iter().flat_map(|f| f["trades"].as_array().unwrap()).collect()
}

#[test]
fn manifest_is_valid_and_beta() {
    assert_eq!(manifest_problems::<SenateTrades>(), Vec::<String>::new());
    assert_eq!(SenateTrades::manifest().maturity, Maturity::Beta);
}

#[test]
fn default_shape_order_and_limit() {
    let p = plugin_with_own_seeds::<SenateTrades>();
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200);
    // 104 filings in the seed; the default limit is 100.
    assert_eq!(body["count"], 100);
    assert_eq!(body["filings"].as_array().unwrap().len(), 100);
    for field in ["source", "sourceUrl", "method", "caveat", "generatedAt"] {
        assert!(body["meta"][field].is_string(), "meta lacks {field}");
    }
    assert!(body["meta"]["caveat"].as_str().unwrap().starts_with("DEMO DATA"));
    let first = &body["filings"][0];
    assert_eq!(first["member"], "Mitchell Tarrant");
    assert_eq!(first["docId"], "DEMO-PTR-0058");
    assert_eq!(first["sourceUrl"], "https://demo.invalid/senate-trades/DEMO-PTR-0058");
    assert_eq!(body["meta"]["sourceUrl"], "https://demo.invalid/senate-trades");
    assert_eq!(first["year"], 2026);
    let filings = body["filings"].as_array().unwrap();
    assert!(filings.iter().all(|f| f["chamber"] == "senate"));
    // Every demo report has a demo id and its address under the reserved demo.invalid host, never an eFD one.
    for f in filings {
        let id = f["docId"].as_str().unwrap();
        let sequence = id.strip_prefix("DEMO-PTR-").unwrap_or_default();
        assert!(sequence.len() == 4 && sequence.bytes().all(|b| b.is_ascii_digit()), "{id}");
        assert_eq!(f["sourceUrl"], format!("https://demo.invalid/senate-trades/{id}"));
    }
    let dates: Vec<&str> = filings.iter().map(|f| f["filedDate"].as_str().unwrap()).collect();
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted, "newest filing first");
    for t in all_trades(&body) {
        for field in ["ticker", "asset", "type", "amountRange", "date"] {
            assert!(t[field].is_string(), "trade lacks {field}: {t}");
        }
        assert!(t.get("bundled").is_none(), "senate trades have no bundled field: {t}");
        assert!(t["asset"].as_str().unwrap().contains(" (demo) - "), "a fictional issuer: {t}");
        assert!(["purchase", "sale", "sale (partial)", "exchange"].contains(&t["type"].as_str().unwrap()));
    }
}

#[test]
fn limit_caps_and_clamps() {
    let p = plugin_with_own_seeds::<SenateTrades>();
    let (_, three) = get(&p, ROUTE, &[("limit", "3")]);
    assert_eq!(three["count"], 3);
    let (_, clamped) = get(&p, ROUTE, &[("limit", "5000")]);
    assert_eq!(clamped["count"], 104);
    assert_eq!(all_trades(&clamped).len(), 237);
}

#[test]
fn ticker_filter_is_case_insensitive_and_trims_trades() {
    let p = plugin_with_own_seeds::<SenateTrades>();
    let (_, upper) = get(&p, ROUTE, &[("ticker", "BWRD")]);
    let (_, lower) = get(&p, ROUTE, &[("ticker", "bwrd")]);
    assert_eq!(upper, lower);
    // Four filings hold a BWRD trade among 13 trades in all; only the 4 BWRD lines are kept.
    assert_eq!(upper["count"], 4);
    let trades = all_trades(&upper);
    assert_eq!(trades.len(), 4);
    assert!(trades.iter().all(|t| t["ticker"] == "BWRD"));
    let (_, class_b) = get(&p, ROUTE, &[("ticker", "hlhc-b")]);
    assert_eq!(class_b["count"], 1);
    assert_eq!(all_trades(&class_b)[0]["ticker"], "HLHC.B");
    let (_, none) = get(&p, ROUTE, &[("ticker", "ZZZZ")]);
    assert_eq!(none["count"], 0);
    assert_eq!(none["filings"], serde_json::json!([]));
}

#[test]
fn member_substring_and_combination() {
    let p = plugin_with_own_seeds::<SenateTrades>();
    let (_, body) = get(&p, ROUTE, &[("member", "RAVENSCROFT")]);
    assert_eq!(body["count"], 12);
    assert!(body["filings"].as_array().unwrap().iter().all(|f| f["member"] == "Josephine Ravenscroft"));
    let (_, one) = get(&p, ROUTE, &[("member", "kettering")]);
    assert_eq!(one["count"], 1);
    assert_eq!(one["filings"][0]["docId"], "DEMO-PTR-0081");
    let (_, both) = get(&p, ROUTE, &[("member", "ravenscroft"), ("ticker", "KSTW")]);
    assert!(both["count"].as_u64().unwrap() >= 1);
    assert!(all_trades(&both).iter().all(|t| t["ticker"] == "KSTW"));
    let (_, limited) = get(&p, ROUTE, &[("member", "ravenscroft"), ("limit", "2")]);
    assert_eq!(limited["count"], 2);
}

#[test]
fn amount_bounds_are_additive_numbers() {
    let p = plugin_with_own_seeds::<SenateTrades>();
    let (_, body) = get(&p, ROUTE, &[("limit", "1000")]);
    let mut open_ended = 0;
    for t in all_trades(&body) {
        let min = t["amountMin"].as_f64().unwrap();
        match t["amountMax"].as_f64() {
            Some(max) => assert!(min < max, "{t}"),
            None => {
                assert_eq!(t["amountRange"], "Over $50,000,000");
                assert_eq!(min, 50_000_000.0);
                open_ended += 1;
            }
        }
    }
    assert_eq!(open_ended, 1);
}

#[test]
fn bad_parameters_are_400_naming_the_rule() {
    let p = plugin_with_own_seeds::<SenateTrades>();
    let long_member = "x".repeat(101);
    for (query, message) in [
        (("limit", "0"), "limit must be a positive integer, got `0`"),
        (("limit", "-5"), "limit must be a positive integer, got `-5`"),
        (("limit", "ten"), "limit must be a positive integer, got `ten`"),
        (("ticker", "N V"), "ticker must be letters, digits, '.', '-', '/', '^' or '=', got `N V`"),
        (("member", long_member.as_str()), "member must be at most 100 characters"),
    ] {
        let (status, body) = get(&p, ROUTE, &[query]);
        assert_eq!(status, 400, "{query:?}");
        assert_eq!(body["error"], message);
        assert_eq!(body["code"], 400);
    }
}

#[test]
fn demo_trades_are_not_in_listed_tickers() {
    let Some((tickers, _)) = listed_companies() else { return };
    assert!(tickers.contains("BRK-B"), "the corpus copy lists real companies, class shares with '-'");
    let (_, all) = get(&plugin_with_own_seeds::<SenateTrades>(), ROUTE, &[("limit", "1000")]);
    for t in all_trades(&all) {
        let ticker = t["ticker"].as_str().unwrap();
        assert!(!tickers.contains(ticker) && !tickers.contains(&ticker.replace('.', "-")), "{ticker} is listed");
    }
}
