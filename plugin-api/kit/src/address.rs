//! U.S. street address normalisation and name/address token matching, shared by the property, deeds and
//! liens datasets (and by any later county-records dataset; county slugs and indexes are in [`crate::county`]).
//!
//! - [`normalize_address`] turns the many ways people write one address into one canonical match key:
//!   upper case, punctuation dropped, whitespace collapsed, street suffixes and directionals in their USPS
//!   Publication 28 abbreviations (`Street` → `ST`, `North` → `N`), ordinal words as numbers (`First` →
//!   `1ST`) and every unit designator (`Apt`, `Unit`, `Suite`, `#`...) as `UNIT`. The same function runs on
//!   the query and on the stored record, so both sides agree even where a word is ambiguous (`St` for
//!   Saint, `Ct` for Connecticut): the key is for matching, not for display.
//! - [`TokenQuery`] and [`TokenSet`] implement the clerk-index search rule: every query token must appear
//!   among the record's name and address tokens, case-insensitively and after the same canonicalisation.
//!
//! Everything here is a pure function of its input, so the same matching can back an in-memory index now
//! and an indexed SQL query later.

use std::collections::HashSet;

/// USPS Publication 28 street suffixes: every common spelling → the standard abbreviation.
const SUFFIXES: &[(&str, &str)] = &[
    ("ALLEY", "ALY"),
    ("ALLY", "ALY"),
    ("AVENUE", "AVE"),
    ("AVEN", "AVE"),
    ("AVENU", "AVE"),
    ("AVN", "AVE"),
    ("AVNUE", "AVE"),
    ("AV", "AVE"),
    ("BOULEVARD", "BLVD"),
    ("BOUL", "BLVD"),
    ("BOULV", "BLVD"),
    ("BLV", "BLVD"),
    ("CIRCLE", "CIR"),
    ("CIRC", "CIR"),
    ("CIRCL", "CIR"),
    ("CRCL", "CIR"),
    ("COURT", "CT"),
    ("CRT", "CT"),
    ("COVE", "CV"),
    ("CROSSING", "XING"),
    ("CRSSNG", "XING"),
    ("DRIVE", "DR"),
    ("DRIV", "DR"),
    ("DRV", "DR"),
    ("EXPRESSWAY", "EXPY"),
    ("EXPRESS", "EXPY"),
    ("EXPW", "EXPY"),
    ("EXPWY", "EXPY"),
    ("FREEWAY", "FWY"),
    ("FREEWY", "FWY"),
    ("FRWY", "FWY"),
    ("HIGHWAY", "HWY"),
    ("HIGHWY", "HWY"),
    ("HIWAY", "HWY"),
    ("HIWY", "HWY"),
    ("HWAY", "HWY"),
    ("LANE", "LN"),
    ("LANES", "LN"),
    ("PARKWAY", "PKWY"),
    ("PARKWY", "PKWY"),
    ("PKWAY", "PKWY"),
    ("PKY", "PKWY"),
    ("PLACE", "PL"),
    ("PLAZA", "PLZ"),
    ("PLZA", "PLZ"),
    ("POINT", "PT"),
    ("ROAD", "RD"),
    ("SQUARE", "SQ"),
    ("SQR", "SQ"),
    ("SQU", "SQ"),
    ("STREET", "ST"),
    ("STRT", "ST"),
    ("STR", "ST"),
    ("TERRACE", "TER"),
    ("TERR", "TER"),
    ("TRAIL", "TRL"),
    ("TRAILS", "TRL"),
    ("TRAILER", "TRLR"),
    ("WAY", "WAY"),
];

/// Directionals, spelled out or abbreviated (periods are gone by the time this table is consulted).
const DIRECTIONALS: &[(&str, &str)] = &[
    ("NORTH", "N"),
    ("SOUTH", "S"),
    ("EAST", "E"),
    ("WEST", "W"),
    ("NORTHEAST", "NE"),
    ("NORTHWEST", "NW"),
    ("SOUTHEAST", "SE"),
    ("SOUTHWEST", "SW"),
];

/// Ordinal street names written as words.
const ORDINALS: &[(&str, &str)] = &[
    ("FIRST", "1ST"),
    ("SECOND", "2ND"),
    ("THIRD", "3RD"),
    ("FOURTH", "4TH"),
    ("FIFTH", "5TH"),
    ("SIXTH", "6TH"),
    ("SEVENTH", "7TH"),
    ("EIGHTH", "8TH"),
    ("NINTH", "9TH"),
    ("TENTH", "10TH"),
];

/// Secondary-unit designators. They all become `UNIT`: a caller who writes `#4B` means the same unit as the
/// assessor's `APT 4B`, and no county's records distinguish an apartment from a suite at one street number.
/// `FL`, `LOT` and `BLDG` are left alone on purpose: they collide with Florida and with legal descriptions.
const UNIT_DESIGNATORS: &[&str] = &["#", "APT", "APARTMENT", "UNIT", "STE", "SUITE"];

/// The canonical unit designator.
pub const UNIT: &str = "UNIT";

fn lookup(table: &[(&str, &'static str)], token: &str) -> Option<&'static str> {
    table.iter().find(|(from, _)| *from == token).map(|(_, to)| *to)
}

/// One raw token in canonical form: suffixes, directionals, ordinals and unit designators mapped.
fn canonical_token(token: &str) -> String {
    if UNIT_DESIGNATORS.contains(&token) {
        return UNIT.into();
    }
    lookup(SUFFIXES, token)
        .or_else(|| lookup(DIRECTIONALS, token))
        .or_else(|| lookup(ORDINALS, token))
        .map(str::to_string)
        .unwrap_or_else(|| token.to_string())
}

/// Splits text into upper-case alphanumeric words. Apostrophes and periods join (`O'Brien` → `OBRIEN`,
/// `N.W.` → `NW`); `#` stands alone so `#4B` reads as designator and number; everything else separates.
fn raw_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            current.extend(c.to_uppercase());
        } else if matches!(c, '\'' | '’' | '.') {
            // Joining: `St.` is `ST`, `O'Brien` is `OBRIEN`, `N.W.` is `NW`.
        } else {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            if c == '#' {
                out.push("#".into());
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Canonical tokens of free text (a street address, a party name, or a mix), in order. Consecutive unit
/// designators collapse (`Apt #4` → `UNIT 4`).
pub fn canonical_tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in raw_tokens(text) {
        let token = canonical_token(&raw);
        if token == UNIT && out.last().is_some_and(|t| t == UNIT) {
            continue;
        }
        out.push(token);
    }
    out
}

/// The canonical match key of a street address, for example `1204 n. Lamar Boulevard, Apt #3` →
/// `1204 N LAMAR BLVD UNIT 3`.
pub fn normalize_address(text: &str) -> String {
    canonical_tokens(text).join(" ")
}

/// The set of canonical tokens of one record (its party names and address), built once per record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenSet(HashSet<String>);

impl TokenSet {
    /// Tokens of every field together.
    pub fn from_fields<'a>(fields: impl IntoIterator<Item = &'a str>) -> Self {
        Self(fields.into_iter().flat_map(canonical_tokens).collect())
    }
    /// Whether the record has this canonical token (as [`canonical_tokens`] writes it, for example `OBRIEN`).
    pub fn contains(&self, token: &str) -> bool {
        self.0.contains(token)
    }
    /// Number of distinct tokens.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether the record has no token at all (no field held a letter or digit); such a record matches no query.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A parsed token query: a record matches when every query token is among its tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenQuery {
    tokens: Vec<String>,
}

impl TokenQuery {
    /// Tokenises `query` with [`canonical_tokens`], sorted and deduplicated; empty when it has no letter or digit.
    pub fn new(query: &str) -> Self {
        let mut tokens = canonical_tokens(query);
        tokens.sort();
        tokens.dedup();
        Self { tokens }
    }
    /// The distinct canonical tokens, sorted.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }
    /// True when the query has no letter or digit at all (it would match everything).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
    /// Whether every query token is among the record's tokens; an empty query matches nothing.
    pub fn matches(&self, record: &TokenSet) -> bool {
        !self.tokens.is_empty() && self.tokens.iter().all(|t| record.contains(t))
    }
}

/// Whether text holds any letter or digit (`#` alone canonicalises to `UNIT`, yet names nothing).
pub fn has_alphanumeric(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_case_punctuation_and_whitespace() {
        assert_eq!(normalize_address("  1204   main street "), "1204 MAIN ST");
        assert_eq!(normalize_address("1204 Main St."), "1204 MAIN ST");
        assert_eq!(normalize_address("1204 MAIN ST,"), "1204 MAIN ST");
        assert_eq!(normalize_address("1204\tMain\nStreet"), "1204 MAIN ST");
    }

    #[test]
    fn suffixes_map_to_usps_abbreviations() {
        for (input, want) in [
            ("88 Oak Avenue", "88 OAK AVE"),
            ("88 Oak Av", "88 OAK AVE"),
            ("9 Ranch Road", "9 RANCH RD"),
            ("5 Sunset Boulevard", "5 SUNSET BLVD"),
            ("5 Sunset Blvd.", "5 SUNSET BLVD"),
            ("12 Cedar Drive", "12 CEDAR DR"),
            ("12 Cedar Lane", "12 CEDAR LN"),
            ("3 Heron Court", "3 HERON CT"),
            ("3 Heron Place", "3 HERON PL"),
            ("400 Mopac Parkway", "400 MOPAC PKWY"),
            ("1800 State Highway 71", "1800 STATE HWY 71"),
            ("71 Willow Circle", "71 WILLOW CIR"),
            ("6 Quail Terrace", "6 QUAIL TER"),
        ] {
            assert_eq!(normalize_address(input), want, "{input}");
        }
    }

    #[test]
    fn directionals_ordinals_and_units() {
        assert_eq!(normalize_address("1550 North Clark Street, Apt 4B"), "1550 N CLARK ST UNIT 4B");
        assert_eq!(normalize_address("1550 N. Clark St #4B"), "1550 N CLARK ST UNIT 4B");
        assert_eq!(normalize_address("1550 n clark st # 4b"), "1550 N CLARK ST UNIT 4B");
        assert_eq!(normalize_address("1550 N Clark St Apt. #4B"), "1550 N CLARK ST UNIT 4B");
        assert_eq!(normalize_address("1550 N Clark Street Suite 4B"), "1550 N CLARK ST UNIT 4B");
        assert_eq!(normalize_address("1550 N Clark Street Ste 4B"), "1550 N CLARK ST UNIT 4B");
        assert_eq!(normalize_address("8200 Northeast 45th St"), "8200 NE 45TH ST");
        assert_eq!(normalize_address("8200 N.E. 45th Street"), "8200 NE 45TH ST");
        assert_eq!(normalize_address("210 West First Avenue"), "210 W 1ST AVE");
        assert_eq!(normalize_address("210 W 1st Ave"), "210 W 1ST AVE");
    }

    #[test]
    fn tokens_of_names_join_apostrophes() {
        assert_eq!(canonical_tokens("O'Brien, Maura & Lee"), vec!["OBRIEN", "MAURA", "LEE"]);
        assert_eq!(canonical_tokens("Smith-Jones Holdings LLC"), vec!["SMITH", "JONES", "HOLDINGS", "LLC"]);
        assert!(canonical_tokens(" ,;- ").is_empty());
    }

    #[test]
    fn token_query_requires_every_token() {
        let record = TokenSet::from_fields(["MAURA O'BRIEN", "Cedar Bend Builders LLC", "1204 North Lamar Blvd"]);
        assert!(TokenQuery::new("obrien").matches(&record));
        assert!(TokenQuery::new("Maura O'Brien").matches(&record));
        assert!(TokenQuery::new("o'brien maura").matches(&record));
        assert!(TokenQuery::new("1204 N Lamar Boulevard").matches(&record));
        assert!(TokenQuery::new("cedar builders").matches(&record));
        assert!(!TokenQuery::new("maura smith").matches(&record));
        assert!(!TokenQuery::new("brien").matches(&record), "tokens match whole, not as substrings");
        assert!(!TokenQuery::new("!!").matches(&record), "an empty query matches nothing");
        assert_eq!(TokenQuery::new("Lee lee LEE").tokens(), ["LEE"]);
    }
}
