//! The `companies` reference dataset as plugins see it: one place, held by the host, that resolves a
//! ticker, a CIK or a company name to the SEC's identity of a company (`company_tickers.json`). Plugins ask
//! through [`crate::Host::resolve_companies`]; none keeps its own copy of the table.

use serde::{Deserialize, Serialize};

/// The host call that answers [`CompanyQuery`]s.
pub const RESOLVE_CALL: &str = "companies.resolve";

/// A company as the SEC lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompanyRef {
    /// 10 digits, zero-padded.
    pub cik: String,
    /// The primary ticker (upper case); empty when the company has none.
    pub ticker: String,
    /// The SEC's conformed name (`title` in company_tickers.json).
    pub name: String,
}

/// One look-up. A name matches when both sides are equal after [`normalize_company_name`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CompanyQuery {
    /// A ticker (JSON `{"ticker": "AAPL"}`), compared after [`crate::params::normalize_ticker`] on both sides:
    /// trimmed, any case, a share class after `.`, `-` or `/` (`BRK.B` finds the SEC's `BRK-B`).
    Ticker(String),
    /// A CIK (JSON `{"cik": "320193"}`), with or without zero padding or a `CIK` prefix (see [`cik10`]).
    Cik(String),
    /// A company name (JSON `{"name": "Apple Inc."}`), matched after [`normalize_company_name`] on both sides.
    Name(String),
}

/// Pads a CIK to the SEC's 10-digit form; `None` unless it is 1-10 ASCII digits.
pub fn cik10(cik: &str) -> Option<String> {
    let digits = cik.trim();
    let digits = digits.strip_prefix("CIK").unwrap_or(digits);
    (!digits.is_empty() && digits.len() <= 10 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| format!("{:0>10}", digits))
}

/// Legal-form words that do not distinguish one company from another.
const SUFFIXES: &[&str] = &[
    "INC",
    "INCORPORATED",
    "CORP",
    "CORPORATION",
    "CO",
    "COMPANY",
    "LLC",
    "LP",
    "LLP",
    "LTD",
    "LIMITED",
    "PLC",
    "SA",
    "NV",
    "AG",
    "SE",
    "HOLDINGS",
    "HOLDING",
    "GROUP",
    "THE",
    "DE",
    "NEW",
];

/// Upper case, punctuation removed (`&` kept as `AND`), legal-form words dropped: `Apple Inc.`, `APPLE INC`
/// and `Apple, Incorporated` all become `APPLE`. A name made only of such words keeps them.
pub fn normalize_company_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| match c {
            '&' => ' ',
            c if c.is_alphanumeric() => c.to_ascii_uppercase(),
            '\'' | '.' => '\u{0}',
            _ => ' ',
        })
        .filter(|&c| c != '\u{0}')
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let kept: Vec<&str> = words.iter().copied().filter(|w| !SUFFIXES.contains(w) && *w != "AND").collect();
    if kept.is_empty() {
        words.join(" ")
    } else {
        kept.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_differing_only_in_legal_form_and_punctuation_match() {
        assert_eq!(normalize_company_name("Apple Inc."), "APPLE");
        assert_eq!(normalize_company_name("APPLE INC"), "APPLE");
        assert_eq!(normalize_company_name("Johnson & Johnson"), "JOHNSON JOHNSON");
        assert_eq!(normalize_company_name("JOHNSON AND JOHNSON"), "JOHNSON JOHNSON");
        assert_eq!(normalize_company_name("Lockheed Martin Corporation"), "LOCKHEED MARTIN");
        assert_eq!(normalize_company_name("AT&T Inc."), "AT T");
        assert_eq!(normalize_company_name("McDonald's Corp"), "MCDONALDS");
        assert_eq!(normalize_company_name("The Company"), "THE COMPANY");
    }

    #[test]
    fn ciks_are_padded_to_ten_digits() {
        assert_eq!(cik10("320193").as_deref(), Some("0000320193"));
        assert_eq!(cik10("0000320193").as_deref(), Some("0000320193"));
        assert_eq!(cik10("CIK0001462356").as_deref(), Some("0001462356"));
        assert_eq!(cik10("12345678901"), None);
        assert_eq!(cik10("12a"), None);
    }
}
