//! The query string as the host reads it (`parse_query`, the repeated-parameter rule) and every parameter rule
//! of `plugin-api`'s `params.rs` on the result, with the promises each rule makes checked on its answer.
#![no_main]

use datahost::app::{parse_query, repeated};
use datahost_plugin_api::params::{parse_date, Query, DEFAULT_MAX_LIMIT};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else { return };
    let pairs = parse_query(Some(raw));
    let decoded: Vec<(String, String)> = url::form_urlencoded::parse(raw.as_bytes()).into_owned().collect();
    assert!(
        pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref())).eq(decoded.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
        "parse_query reads the pairs form_urlencoded reads"
    );
    let names: std::collections::HashSet<&str> = pairs.iter().map(|(k, _)| k.as_ref()).collect();
    assert_eq!(repeated(&pairs).is_some(), names.len() < pairs.len(), "repeated() finds exactly the repeats");
    // What a plugin receives: the pairs as owned strings in its request envelope.
    let pairs: Vec<(String, String)> = pairs.into_iter().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    let q = Query::new(&pairs);
    let refusal_names = |e: &datahost_plugin_api::ApiError, name: &str| {
        assert_eq!(e.status, 400, "{e:?}");
        assert!(e.message.contains(name), "the 400 names `{name}`: {}", e.message);
    };
    match q.limit(100, DEFAULT_MAX_LIMIT) {
        Ok(n) => assert!((1..=DEFAULT_MAX_LIMIT).contains(&n), "limit {n} outside 1..=max"),
        Err(e) => refusal_names(&e, "limit"),
    }
    if let Ok(Some(n)) = q.positive_int("limit") {
        assert!(n >= 1);
    }
    match q.bool("open") {
        Ok(Some(_)) => assert!(matches!(q.str("open").map(str::to_ascii_lowercase).as_deref(), Some("true" | "false"))),
        Ok(None) => assert!(q.str("open").is_none()),
        Err(e) => refusal_names(&e, "open"),
    }
    match q.date_range() {
        Ok(range) => {
            if let (Some(from), Some(to)) = (range.from, range.to) {
                assert!(from <= to);
            }
        }
        Err(e) => assert_eq!(e.status, 400),
    }
    if let Ok(Some(d)) = q.date("from") {
        assert_eq!(parse_date(&d.format("%Y-%m-%d").to_string()), Some(d), "a parsed date prints back");
    }
    match q.padded_digits("cik", 10) {
        Ok(Some(cik)) => assert!(cik.len() == 10 && cik.bytes().all(|b| b.is_ascii_digit()), "{cik}"),
        Ok(None) => {}
        Err(e) => refusal_names(&e, "cik"),
    }
    match q.ticker() {
        Ok(t) => {
            if let Some(v) = t.value() {
                assert!(t.matches(v), "a ticker filter matches its own value `{v}`");
            }
        }
        Err(e) => refusal_names(&e, "ticker"),
    }
    match q.str_max("q", 200) {
        Ok(Some(v)) => assert!(v.chars().count() <= 200 && !v.is_empty()),
        Ok(None) => {}
        Err(e) => refusal_names(&e, "q"),
    }
    if let Err(e) = q.required("vin") {
        refusal_names(&e, "vin");
    }
});
