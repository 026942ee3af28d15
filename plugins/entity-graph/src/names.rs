//! Name handling for the graph: node-id slugs, the lookup key of the `entity` parameter, and the issuer-name
//! key that links 13F holdings (which name issuers the SEC's abbreviated way, `APPLIED MATLS INC`) to the
//! companies of the other datasets (`Applied Materials, Inc.`).

use datahost_plugin_api::openapi::{schema, ApiSchema};
use datahost_plugin_api::params::parse_date;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// Slug for node ids: lower-case letters and digits, every other run of characters one `-`.
/// `Fitzgerald Lockwood-Avery` gives `fitzgerald-lockwood-avery`.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// How a name is compared in the `entity` parameter: case-insensitive, runs of whitespace as one space.
pub fn lookup_key(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The issuer part of a disclosed asset name: `Alphabet Inc. - Class A - Common Stock` gives `Alphabet Inc.`.
pub fn issuer_of_asset(asset: &str) -> &str {
    asset.split(" - ").next().unwrap_or(asset).trim()
}

/// Abbreviations of the SEC's 13F issuer names, expanded before comparison.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("AMERN", "AMERICAN"),
    ("BANCORPORATION", "BANCORP"),
    ("CHEMS", "CHEMICALS"),
    ("COMMUNICATNS", "COMMUNICATIONS"),
    ("COS", "COMPANIES"),
    ("ELEC", "ELECTRIC"),
    ("FINL", "FINANCIAL"),
    ("GEN", "GENERAL"),
    ("GRP", "GROUP"),
    ("HLDG", "HOLDING"),
    ("HLDGS", "HOLDINGS"),
    ("INDS", "INDUSTRIES"),
    ("INSTRS", "INSTRUMENTS"),
    ("INTL", "INTERNATIONAL"),
    ("LABS", "LABORATORIES"),
    ("MACHS", "MACHINES"),
    ("MATLS", "MATERIALS"),
    ("MGMT", "MANAGEMENT"),
    ("MTR", "MOTOR"),
    ("MTRS", "MOTORS"),
    ("PAC", "PACIFIC"),
    ("PETE", "PETROLEUM"),
    ("PPTYS", "PROPERTIES"),
    ("PPTY", "PROPERTY"),
    ("PRODS", "PRODUCTS"),
    ("PWR", "POWER"),
    ("RES", "RESOURCES"),
    ("SOUTHN", "SOUTHERN"),
    ("SVCS", "SERVICES"),
    ("SYS", "SYSTEMS"),
    ("TECH", "TECHNOLOGY"),
    ("TR", "TRUST"),
    ("WHSL", "WHOLESALE"),
    ("WKS", "WORKS"),
];

/// Words that say nothing about which issuer is meant: legal forms, `NEW`/`DEL` (re-incorporation and
/// Delaware markers the SEC appends) and connectives.
const NOISE: &[&str] = &[
    "AND",
    "CO",
    "COMPANY",
    "CORP",
    "CORPORATION",
    "DEL",
    "INC",
    "INCORPORATED",
    "LIMITED",
    "LLC",
    "LP",
    "LTD",
    "NEW",
    "OF",
    "PLC",
    "THE",
];

/// The comparison key of a company or issuer name: upper-case words (punctuation and `&` split words),
/// abbreviations expanded, legal forms and connectives dropped, the rest sorted. Sorting makes the SEC's
/// inverted forms match: `DISNEY WALT CO` and `The Walt Disney Company` both give `DISNEY WALT`.
/// Empty when nothing distinctive is left.
pub fn issuer_key(name: &str) -> String {
    let upper = name.to_uppercase();
    let mut words: Vec<&str> = upper
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| ABBREVIATIONS.iter().find(|(abbr, _)| *abbr == w).map_or(w, |(_, full)| *full))
        .filter(|w| !NOISE.contains(w))
        .collect();
    words.sort_unstable();
    words.dedup();
    words.join(" ")
}

/// `text` when it is a plain http(s) address (so the `uri` format of the schema holds), else `None`.
pub fn url(text: &str) -> Option<String> {
    let ok = (text.starts_with("https://") || text.starts_with("http://"))
        && text.len() > 8
        && !text.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then(|| text.to_string())
}

/// `text` when it is a `YYYY-MM-DD` date, else `None` (so the `date` format of the schema holds).
pub fn date(text: &str) -> Option<String> {
    parse_date(text).map(|_| text.to_string())
}

/// An ISO 8601 timestamp for a snapshot's `generatedAt`, which may be a date or a timestamp.
pub fn timestamp(text: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&chrono::Utc));
    }
    parse_date(text).and_then(|d| d.and_hms_opt(0, 0, 0)).map(|t| t.and_utc())
}

/// A money or count value as the graph writes it: whole numbers as integers, others rounded to cents (a value
/// that is not finite as 0).
#[derive(Debug, Clone, Copy)]
pub struct Amount(pub f64);

impl Serialize for Amount {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.0.is_finite() {
            return serializer.serialize_i64(0);
        }
        let cents = (self.0 * 100.0).round() / 100.0;
        if cents.fract() == 0.0 && cents.abs() < 9.0e15 {
            serializer.serialize_i64(cents as i64)
        } else {
            serializer.serialize_f64(cents)
        }
    }
}

impl ApiSchema for Amount {
    fn schema() -> Value {
        schema::number()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("Fitzgerald Lockwood-Avery"), "fitzgerald-lockwood-avery");
        assert_eq!(slug("  Department of  Defense "), "department-of-defense");
        assert_eq!(slug("Chloé O'Neil"), "chloé-o-neil");
        assert_eq!(slug("--"), "");
    }

    #[test]
    fn issuer_keys_match_13f_names_to_company_names() {
        for (sec, company) in [
            ("APPLIED MATLS INC", "Applied Materials, Inc."),
            ("DISNEY WALT CO", "The Walt Disney Company"),
            ("ELI LILLY & CO", "Eli Lilly and Company"),
            ("AMAZON COM INC", "Amazon.com, Inc."),
            ("COCA COLA CO", "The Coca-Cola Company"),
            ("BERKSHIRE HATHAWAY INC DEL", "Berkshire Hathaway Inc."),
            ("INTERNATIONAL BUSINESS MACHS", "International Business Machines Corporation"),
            ("COSTCO WHSL CORP NEW", "Costco Wholesale Corporation"),
            ("SPDR S&P 500 ETF TR", "SPDR S&P 500 ETF Trust"),
            ("BANK AMERICA CORP", "Bank of America Corporation"),
            ("NVIDIA CORPORATION", "NVIDIA Corporation"),
            ("QUALCOMM INC", "QUALCOMM Incorporated"),
            ("AT&T INC", "AT&T Inc."),
        ] {
            assert_eq!(issuer_key(sec), issuer_key(company), "{sec} / {company}");
        }
        assert_ne!(issuer_key("GENERAL MTRS CO"), issuer_key("General Dynamics Corporation"));
        assert_ne!(issuer_key("INTEL CORP"), issuer_key("Intuit Inc."));
        assert_eq!(issuer_key("The Company, Inc."), "");
    }

    #[test]
    fn output_guards() {
        assert_eq!(url("https://www.sec.gov/x").as_deref(), Some("https://www.sec.gov/x"));
        assert_eq!(url("www.sec.gov"), None);
        assert_eq!(url("https://a b"), None);
        assert_eq!(date("2026-02-30"), None);
        let amount = |value: f64| serde_json::to_value(Amount(value)).unwrap();
        assert_eq!(amount(20608275.0), Value::from(20608275));
        assert_eq!(amount(3280811.149999), Value::from(3280811.15));
        assert_eq!(amount(f64::NAN), Value::from(0));
        assert_eq!(timestamp("2026-11-01").unwrap().to_rfc3339(), "2026-11-01T00:00:00+00:00");
        assert_eq!(issuer_of_asset("Alphabet Inc. - Class A - Common Stock"), "Alphabet Inc.");
    }
}
