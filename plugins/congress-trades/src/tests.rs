//! Handler tests on the shipped seed, through the SDK's in-process test host.

use datahost_plugin_api::testing::{get, manifest_problems, plugin_with_own_seeds};
use serde_json::{json, Value};

use crate::{CongressTrades, ROUTE};

fn all_trades(body: &Value) -> Vec<&Value> {
    body["filings"].as_array().unwrap().iter().flat_map(|f| f["trades"].as_array().unwrap()).collect()
}

#[test]
fn manifest_is_valid() {
    assert_eq!(manifest_problems::<CongressTrades>(), Vec::<String>::new());
}

#[test]
fn default_shape_and_order() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (status, body) = get(&p, ROUTE, &[]);
    assert_eq!(status, 200);
    assert_eq!(body["count"], 96);
    assert_eq!(body["meta"]["filingsWithTrades"], 96);
    assert_eq!(body["meta"]["filingsScanned"], 131);
    assert!(body["meta"]["caveat"].as_str().unwrap().contains("45 days"));
    let dates: Vec<&str> =
        body["filings"].as_array().unwrap().iter().map(|f| f["filedDate"].as_str().unwrap()).collect();
    let mut sorted = dates.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(dates, sorted, "newest filing first");
    let t = all_trades(&body)[0];
    for field in ["ticker", "asset", "type", "amountRange", "date", "bundled"] {
        assert!(t.get(field).is_some(), "trade lacks {field}");
    }
}

#[test]
fn ticker_filter_is_case_insensitive_and_trims_trades() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, upper) = get(&p, ROUTE, &[("ticker", "NVDA")]);
    let (_, lower) = get(&p, ROUTE, &[("ticker", "nvda")]);
    assert_eq!(upper, lower);
    assert!(upper["count"].as_u64().unwrap() > 0);
    assert!(all_trades(&upper).iter().all(|t| t["ticker"] == "NVDA"));
    let (_, brk) = get(&p, ROUTE, &[("ticker", "brk-b")]);
    assert!(all_trades(&brk).iter().all(|t| t["ticker"] == "BRK.B"));
    assert!(brk["count"].as_u64().unwrap() > 0);
    let (_, none) = get(&p, ROUTE, &[("ticker", "ZZZZ")]);
    assert_eq!(none["count"], 0);
}

#[test]
fn member_substring_and_limit() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, body) = get(&p, ROUTE, &[("member", "HOLLISTER")]);
    let filings = body["filings"].as_array().unwrap();
    assert!(!filings.is_empty());
    assert!(filings.iter().all(|f| f["member"] == "Avery Hollister"));
    let (_, two) = get(&p, ROUTE, &[("limit", "2")]);
    assert_eq!(two["count"], 2);
    let (_, clamped) = get(&p, ROUTE, &[("limit", "1000000")]);
    assert_eq!(clamped["count"], 96);
}

#[test]
fn amount_bounds_are_additive_numbers() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, body) = get(&p, ROUTE, &[]);
    for t in all_trades(&body) {
        let min = t["amountMin"].as_f64().unwrap();
        let max = t["amountMax"].as_f64().unwrap();
        assert!(min < max, "{t}");
    }
}

#[test]
fn bad_parameters_are_400_naming_the_rule() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    for (query, message) in [
        (("limit", "0"), "limit must be a positive integer, got `0`"),
        (("limit", "ten"), "limit must be a positive integer, got `ten`"),
        (("ticker", "N V"), "ticker must be letters, digits, '.', '-', '/', '^' or '=', got `N V`"),
    ] {
        let (status, body) = get(&p, ROUTE, &[query]);
        assert_eq!(status, 400);
        assert_eq!(body["error"], message);
        assert_eq!(body["code"], 400);
    }
}

#[test]
fn meta_and_first_filing_are_exact() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, body) = get(&p, ROUTE, &[("limit", "1")]);
    let meta = body["meta"].as_object().unwrap();
    let mut keys: Vec<&str> = meta.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["caveat", "filingsScanned", "filingsWithTrades", "generatedAt", "method", "source", "sourceUrl"]);
    assert_eq!(meta["sourceUrl"], "https://disclosures-clerk.house.gov/FinancialDisclosure");
    assert_eq!(meta["generatedAt"], "2026-11-01T06:00:00Z");
    assert!(meta["source"].as_str().unwrap().contains("demo seed"));
    assert!(meta["caveat"].as_str().unwrap().starts_with("DEMO DATA"));
    assert_eq!(
        body["filings"][0],
        json!({
            "member": "Sam Delacroix", "docId": "20025211", "year": 2026, "filedDate": "2026-10-18",
            "trades": [{
                "ticker": "AAPL", "asset": "Apple Inc. - Common Stock", "type": "sale",
                "amountRange": "$1,001 - $15,000", "date": "2026-10-02", "bundled": false,
                "amountMin": 1001.0, "amountMax": 15000.0
            }]
        })
    );
}

#[test]
fn counts_are_hand_checked() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let (_, all) = get(&p, ROUTE, &[("limit", "1000")]);
    let trades = all_trades(&all);
    assert_eq!(trades.len(), 237);
    assert_eq!(trades.iter().filter(|t| t["bundled"] == true).count(), 64);
    // 9 filings hold an NVDA trade; among their 32 trades only the 11 NVDA lines are kept.
    let (_, nvda) = get(&p, ROUTE, &[("ticker", "NVDA")]);
    assert_eq!(nvda["count"], 9);
    assert_eq!(all_trades(&nvda).len(), 11);
    let (_, brk) = get(&p, ROUTE, &[("ticker", "BRK.B")]);
    assert_eq!(brk["count"], 5);
    let (_, hollister) = get(&p, ROUTE, &[("member", "hollister")]);
    assert_eq!(hollister["count"], 7);
    let (_, both) = get(&p, ROUTE, &[("member", "hollister"), ("ticker", "NVDA")]);
    assert_eq!(both["count"], 0);
    let (_, tremaine) = get(&p, ROUTE, &[("member", "tremaine"), ("ticker", "brk-b")]);
    assert!(tremaine["filings"].as_array().unwrap().iter().any(|f| f["docId"] == "20025636"));
    assert!(all_trades(&tremaine).iter().all(|t| t["ticker"] == "BRK.B"));
}

#[test]
fn over_long_member_is_400() {
    let p = plugin_with_own_seeds::<CongressTrades>();
    let long = "x".repeat(101);
    let (status, body) = get(&p, ROUTE, &[("member", long.as_str())]);
    assert_eq!(status, 400);
    assert_eq!(body["error"], "member must be at most 100 characters");
    let (status, _) = get(&p, ROUTE, &[("member", &long[..100])]);
    assert_eq!(status, 200);
}
