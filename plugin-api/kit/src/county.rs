//! County-records building blocks shared by the property, deeds and liens datasets: county slugs
//! (`travis-tx`) with the SPEC 400 rules, the list of onboarded counties a snapshot carries, the request of
//! a county-scoped clerk-index search, and an in-memory index that answers it with the token rule of
//! [`crate::address`].
//!
//! A county that is well-formed but not onboarded is never an error: the datasets answer 200 with an empty
//! result, because the county backfill is incomplete by design. The search itself is a pure function of
//! the records and the query ([`TokenQuery::matches`]). The demo seeds are answered by [`CountyIndex`] in memory
//! in both records engines; ingested clerk records by [`crate::clerk::ClerkStore`] through the host's word
//! index, which runs on both engines too: no plugin writes SQL.
//!
//! Every way of answering a clerk search pages the same way (see [`datahost_plugin_api::paging`]): newest date first, equal
//! dates by record key in byte order, the key of the last record served in the cursor ([`ClerkKey`]).

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::address::{has_alphanumeric, TokenQuery, TokenSet};
use datahost_plugin_api::paging::{KeyedPage, Page, PageRequest};
use datahost_plugin_api::params::ParamText;
use datahost_plugin_api::{ApiError, ParamSpec};

/// The sort key of a clerk record in a search result: its date (`YYYY-MM-DD`, newest first), then its record
/// key (instrument or document number) ascending in byte order.
pub type ClerkKey = (Reverse<String>, String);

/// The [`ClerkKey`] of a record with this date and key.
pub fn clerk_key(date: &str, key: &str) -> ClerkKey {
    (Reverse(date.to_string()), key.to_string())
}

/// USPS codes and names of the states, the District of Columbia and the territories with county equivalents.
#[rustfmt::skip]
const STATES: &[(&str, &str)] = &[
    ("al", "Alabama"), ("ak", "Alaska"), ("az", "Arizona"), ("ar", "Arkansas"), ("ca", "California"),
    ("co", "Colorado"), ("ct", "Connecticut"), ("de", "Delaware"), ("dc", "District of Columbia"),
    ("fl", "Florida"), ("ga", "Georgia"), ("hi", "Hawaii"), ("id", "Idaho"), ("il", "Illinois"), ("in", "Indiana"),
    ("ia", "Iowa"), ("ks", "Kansas"), ("ky", "Kentucky"), ("la", "Louisiana"), ("me", "Maine"), ("md", "Maryland"),
    ("ma", "Massachusetts"), ("mi", "Michigan"), ("mn", "Minnesota"), ("ms", "Mississippi"), ("mo", "Missouri"),
    ("mt", "Montana"), ("ne", "Nebraska"), ("nv", "Nevada"), ("nh", "New Hampshire"), ("nj", "New Jersey"),
    ("nm", "New Mexico"), ("ny", "New York"), ("nc", "North Carolina"), ("nd", "North Dakota"), ("oh", "Ohio"),
    ("ok", "Oklahoma"), ("or", "Oregon"), ("pa", "Pennsylvania"), ("ri", "Rhode Island"),
    ("sc", "South Carolina"), ("sd", "South Dakota"), ("tn", "Tennessee"), ("tx", "Texas"), ("ut", "Utah"),
    ("vt", "Vermont"), ("va", "Virginia"), ("wa", "Washington"), ("wv", "West Virginia"), ("wi", "Wisconsin"),
    ("wy", "Wyoming"), ("pr", "Puerto Rico"), ("vi", "U.S. Virgin Islands"), ("gu", "Guam"),
    ("as", "American Samoa"), ("mp", "Northern Mariana Islands"),
];

/// The name of a U.S. state or territory from its USPS code, case-insensitively (`TX` → `Texas`).
pub fn state_name(code: &str) -> Option<&'static str> {
    let code = code.trim().to_ascii_lowercase();
    STATES.iter().find(|(c, _)| *c == code).map(|(_, name)| *name)
}

/// Checks a county slug: the county name as lowercase words joined by `-`, then `-` and a two-letter U.S.
/// state code (`travis-tx`, `san-bernardino-ca`, `st-louis-mo`). Input is case-insensitive; the result is
/// lowercase. The message names `param` and the rule.
pub fn parse_county_slug(param: &str, text: &str) -> Result<String, ApiError> {
    let slug = text.trim().to_ascii_lowercase();
    let shape_error = || {
        let shown: String = text.chars().take(40).collect();
        ApiError::bad_request(format!(
            "{param} must be a county slug: the county name in lowercase words joined by '-', then '-' and a \
             two-letter state code (for example travis-tx), got `{shown}`"
        ))
    };
    if slug.len() > 64 {
        return Err(shape_error());
    }
    let parts: Vec<&str> = slug.split('-').collect();
    if parts.len() < 2 || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_lowercase())) {
        return Err(shape_error());
    }
    let state = parts[parts.len() - 1];
    if state.len() != 2 {
        return Err(shape_error());
    }
    if state_name(state).is_none() {
        return Err(ApiError::bad_request(format!(
            "{param} must end in a U.S. state code such as -tx or -wa, got `-{state}`"
        )));
    }
    Ok(slug)
}

/// A county parameter as a [`datahost_plugin_api::Params`] field: a checked, lowercased slug (see
/// [`parse_county_slug`]). Its description is the route's (what a county not yet onboarded gives differs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountySlug(pub String);

impl ParamText for CountySlug {
    const KIND: datahost_plugin_api::ParamKind = datahost_plugin_api::ParamKind::String;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        parse_county_slug(name, raw.trim()).map(CountySlug)
    }
    fn document(spec: &mut ParamSpec) {
        spec.example = Some("travis-tx".into());
    }
}

/// One onboarded county as a snapshot lists it (`{"slug", "name", "state", "onboardedAt", ...}`; further
/// fields such as the assessor's or clerk's address are the dataset's own and ignored here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CountyCoverage {
    /// County slug, for example `travis-tx` (see [`parse_county_slug`]); compared lowercased.
    pub slug: String,
    /// County name as written by the dataset, for example `Travis County`.
    pub name: String,
    /// State of the county as the snapshot writes it (for example `TX`).
    pub state: String,
    /// Date (`YYYY-MM-DD`) from which the dataset holds this county.
    pub onboarded_at: String,
}

/// The request of a county-scoped clerk-index search: `county` and `query` required (in that order, the
/// first missing one named), `query` at most 200 characters with a letter or digit, `limit` and `cursor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClerkSearch {
    /// The checked county slug, lowercase (see [`parse_county_slug`]).
    pub county: String,
    /// The query as given (trimmed), echoed in the response.
    pub query: String,
    /// The query's canonical match tokens: a record matches when its tokens hold all of them.
    pub tokens: TokenQuery,
    /// `limit` (the page size) and `cursor`.
    pub page: KeyedPage<ClerkKey>,
}

/// Longest accepted `query`, so a client cannot make the server tokenise a megabyte.
pub const MAX_QUERY_CHARS: usize = 200;

/// The `query` of a clerk search as a [`datahost_plugin_api::Params`] field: trimmed, at most
/// [`MAX_QUERY_CHARS`] characters, with a letter or digit; kept as given (echoed in the answer) and as its
/// match tokens. Its description is the route's (what the records hold); the type adds the length rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClerkQueryText {
    /// The query as given (trimmed).
    pub text: String,
    /// Its canonical match tokens.
    pub tokens: TokenQuery,
}

impl ParamText for ClerkQueryText {
    const KIND: datahost_plugin_api::ParamKind = datahost_plugin_api::ParamKind::String;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        let text = raw.trim();
        if text.chars().count() > MAX_QUERY_CHARS {
            return Err(ApiError::bad_request(format!("{name} must be at most {MAX_QUERY_CHARS} characters")));
        }
        if !has_alphanumeric(text) {
            return Err(ApiError::bad_request(format!("{name} must contain at least one letter or digit")));
        }
        Ok(Self { text: text.to_string(), tokens: TokenQuery::new(text) })
    }
    fn document(spec: &mut ParamSpec) {
        spec.description.push_str(&format!(" At most {MAX_QUERY_CHARS} characters, with a letter or digit."));
        spec.schema = Some(serde_json::json!({ "maxLength": MAX_QUERY_CHARS }));
    }
}

impl ClerkSearch {
    /// The search a route's parameters ask for: its `county`, its `query` and its page (the route declares
    /// them in a [`datahost_plugin_api::Params`] struct, with its own descriptions); a cursor that is not one
    /// of this search's is a 400.
    pub fn new(county: CountySlug, query: ClerkQueryText, page: PageRequest) -> Result<Self, ApiError> {
        Ok(Self { county: county.0, query: query.text, tokens: query.tokens, page: page.keyed()? })
    }
}

/// Records grouped by county, each with its match tokens, newest first within a county.
pub struct CountyIndex<T> {
    onboarded: BTreeSet<String>,
    by_county: HashMap<String, Vec<(T, TokenSet)>>,
}

/// The answer to one search: one page of matches, newest first, and how many matched in all.
#[derive(Debug)]
pub struct SearchResult<'a, T> {
    /// False when the county is not onboarded (a 200 with an empty result, never an error); the rest is then empty.
    pub onboarded: bool,
    /// Number of matches over every page.
    pub total: usize,
    /// This page of matches, newest first (equal dates by record key).
    pub records: Vec<&'a T>,
    /// The cursor of the next page; `None` on the last.
    pub next: Option<String>,
}

impl<T> CountyIndex<T> {
    /// Builds the index. `county_of` gives a record's county slug, `key_of` its [`ClerkKey`] (the order of
    /// every search result: newest first, then by record key; pass [`CountyIndex::search`] the same function)
    /// and `fields_of` the texts whose tokens it matches on.
    pub fn new(
        coverage: &[CountyCoverage],
        records: Vec<T>,
        county_of: impl Fn(&T) -> &str,
        key_of: impl Fn(&T) -> ClerkKey,
        fields_of: impl Fn(&T) -> Vec<&str>,
    ) -> Self {
        let mut by_county: HashMap<String, Vec<(T, TokenSet)>> = HashMap::new();
        for record in records {
            let tokens = TokenSet::from_fields(fields_of(&record));
            by_county.entry(county_of(&record).to_ascii_lowercase()).or_default().push((record, tokens));
        }
        for rows in by_county.values_mut() {
            // Strictly in key order, whatever the snapshot's order: paging resumes after a key.
            rows.sort_by_cached_key(|(record, _)| key_of(record));
        }
        Self { onboarded: coverage.iter().map(|c| c.slug.to_ascii_lowercase()).collect(), by_county }
    }

    /// Whether `county` (a lowercase slug, as [`ClerkSearch::county`]) is in the snapshot's coverage list.
    pub fn is_onboarded(&self, county: &str) -> bool {
        self.onboarded.contains(county)
    }

    /// Onboarded county slugs, sorted.
    pub fn onboarded(&self) -> impl Iterator<Item = &str> {
        self.onboarded.iter().map(String::as_str)
    }

    /// One page of the records of `search.county` whose tokens hold all query tokens, newest first (`key`
    /// gives each record's [`ClerkKey`], whose order the index's must agree with). A county that is not
    /// onboarded yields nothing (records outside the coverage list are ignored).
    pub fn search(&self, search: &ClerkSearch, key: impl Fn(&T) -> ClerkKey) -> SearchResult<'_, T> {
        self.search_where(search, key, |_| true)
    }

    /// [`Self::search`] restricted to the records `keep` accepts (a dataset's own filters).
    pub fn search_where(
        &self,
        search: &ClerkSearch,
        key: impl Fn(&T) -> ClerkKey,
        keep: impl Fn(&T) -> bool,
    ) -> SearchResult<'_, T> {
        if !self.is_onboarded(&search.county) {
            return SearchResult { onboarded: false, total: 0, records: Vec::new(), next: None };
        }
        let matches: Vec<&T> = self
            .by_county
            .get(&search.county)
            .into_iter()
            .flatten()
            .filter(|(record, tokens)| search.tokens.matches(tokens) && keep(record))
            .map(|(record, _)| record)
            .collect();
        let total = matches.len();
        let Page { items, next } = search.page.page(matches, |r| key(r));
        SearchResult { onboarded: true, total, records: items, next }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datahost_plugin_api::{Params, RequestEnvelope};

    /// A route's clerk-search parameters, declared as deeds and liens declare theirs.
    #[derive(Params)]
    struct Search {
        /// County slug.
        county: CountySlug,
        /// Names or an address.
        #[param(example = "O'Brien")]
        query: ClerkQueryText,
        #[param(page(default = 100, max = 1000, of = "records"))]
        page: PageRequest,
    }

    fn parse_search(request: &RequestEnvelope) -> Result<ClerkSearch, ApiError> {
        let Search { county, query, page } = Search::parse(request.params())?;
        ClerkSearch::new(county, query, page)
    }

    #[test]
    fn clerk_search_parameters_are_documented_with_their_rules() {
        let specs = Search::specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["county", "query", "limit", "cursor"]);
        assert!(specs[0].required && specs[1].required);
        assert_eq!(specs[0].example, Some("travis-tx".into()));
        assert_eq!(specs[1].description, "Names or an address. At most 200 characters, with a letter or digit.");
        assert_eq!(specs[1].schema, Some(serde_json::json!({ "maxLength": 200 })));
        assert_eq!(specs[1].example, Some("O'Brien".into()));
    }

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    fn pairs_of(p: &[(String, String)]) -> Vec<(&str, &str)> {
        p.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
    }

    fn search(query: &str, limit: usize) -> ClerkSearch {
        let limit = limit.to_string();
        parse_search(&RequestEnvelope::new("/v1/x", &[("county", "king-wa"), ("query", query), ("limit", &limit)]))
            .unwrap()
    }

    #[test]
    fn county_slugs() {
        assert_eq!(parse_county_slug("county", "travis-tx").unwrap(), "travis-tx");
        assert_eq!(parse_county_slug("county", " King-WA ").unwrap(), "king-wa");
        assert_eq!(parse_county_slug("county", "san-bernardino-ca").unwrap(), "san-bernardino-ca");
        for bad in ["travis", "travis_tx", "travis-texas", "-tx", "travis--tx", "travis-t1", "12-tx", "tra vis-tx"] {
            let err = parse_county_slug("county", bad).unwrap_err();
            assert_eq!(err.status, 400);
            assert!(err.message.starts_with("county must be a county slug"), "{bad}: {}", err.message);
        }
        let err = parse_county_slug("county", "travis-zz").unwrap_err();
        assert_eq!(err.message, "county must end in a U.S. state code such as -tx or -wa, got `-zz`");
    }

    #[test]
    fn state_names() {
        assert_eq!(state_name("TX"), Some("Texas"));
        assert_eq!(state_name("dc"), Some("District of Columbia"));
        assert_eq!(state_name("zz"), None);
    }

    #[test]
    fn clerk_search_parameters() {
        let p = q(&[("county", "Cook-IL"), ("query", " Maura O'Brien "), ("limit", "5000")]);
        let s = parse_search(&RequestEnvelope::new("/v1/x", &pairs_of(&p))).unwrap();
        assert_eq!(s.county, "cook-il");
        assert_eq!(s.query, "Maura O'Brien");
        assert_eq!(s.tokens.tokens(), ["MAURA", "OBRIEN"]);
        assert_eq!(s.page.request.limit, 1000);
        for (pairs, message) in [
            (q(&[("query", "x")]), "the county query parameter is required"),
            (q(&[]), "the county query parameter is required"),
            (q(&[("county", "king-wa")]), "the query query parameter is required"),
            (q(&[("county", "king-wa"), ("query", "  ")]), "the query query parameter is required"),
            (q(&[("county", "king-wa"), ("query", "--")]), "query must contain at least one letter or digit"),
            (q(&[("county", "king"), ("query", "x")]), ""),
            (q(&[("county", "king-wa"), ("query", "x"), ("limit", "0")]), "limit must be a positive integer, got `0`"),
        ] {
            let err = parse_search(&RequestEnvelope::new("/v1/x", &pairs_of(&pairs))).unwrap_err();
            assert_eq!(err.status, 400);
            assert!(err.message.starts_with(message), "{pairs:?}: {}", err.message);
        }
        let long = "a ".repeat(101);
        let p = q(&[("county", "king-wa"), ("query", &long)]);
        assert_eq!(
            parse_search(&RequestEnvelope::new("/v1/x", &pairs_of(&p))).unwrap_err().message,
            "query must be at most 200 characters"
        );
    }

    #[test]
    fn county_index_searches_one_onboarded_county_newest_first() {
        struct Row(&'static str, &'static str, &'static str);
        let coverage = vec![CountyCoverage {
            slug: "king-wa".into(),
            name: "King County".into(),
            state: "WA".into(),
            onboarded_at: "2026-01-01".into(),
        }];
        let rows = vec![
            Row("king-wa", "2020-01-01", "Wren Halvorsen"),
            Row("king-wa", "2024-05-01", "Wren Halvorsen and Blair Halvorsen"),
            Row("king-wa", "2022-03-01", "Blair Okonkwo"),
            Row("cook-il", "2025-01-01", "Wren Halvorsen"),
        ];
        let key = |r: &Row| clerk_key(r.1, r.2);
        let index = CountyIndex::new(&coverage, rows, |r| r.0, key, |r| vec![r.2]);
        let hit = index.search(&search("halvorsen wren", 10), key);
        assert!(hit.onboarded);
        assert_eq!(hit.total, 2);
        assert_eq!(hit.records.iter().map(|r| r.1).collect::<Vec<_>>(), ["2024-05-01", "2020-01-01"]);
        assert_eq!(hit.next, None);
        let capped = index.search(&search("halvorsen", 1), key);
        assert_eq!((capped.total, capped.records.len()), (2, 1));
        let next = capped.next.expect("a second page");
        let q = [("county", "king-wa"), ("query", "halvorsen"), ("limit", "1"), ("cursor", next.as_str())];
        let second = index.search(&parse_search(&RequestEnvelope::new("/v1/x", &q)).unwrap(), key);
        assert_eq!((second.total, second.records[0].1, second.next), (2, "2020-01-01", None));
        let mut other = search("halvorsen", 10);
        other.county = "cook-il".into();
        let other = index.search(&other, key);
        assert!(!other.onboarded, "records of a county missing from the coverage list are not served");
        assert_eq!(other.total, 0);
        assert_eq!(index.onboarded().collect::<Vec<_>>(), ["king-wa"]);
        let filtered = index.search_where(&search("halvorsen", 10), key, |r| r.1 < "2021");
        assert_eq!(filtered.records.iter().map(|r| r.1).collect::<Vec<_>>(), ["2020-01-01"]);
    }

    #[test]
    fn equal_dates_page_in_key_order_whatever_the_snapshot_order() {
        struct Row(&'static str, &'static str);
        let coverage = vec![CountyCoverage {
            slug: "king-wa".into(),
            name: "King County".into(),
            state: "WA".into(),
            onboarded_at: "2026-01-01".into(),
        }];
        // Same day, keys out of order in the snapshot.
        let rows = vec![Row("2024-05-01", "C"), Row("2024-05-01", "A"), Row("2024-05-01", "B")];
        let key = |r: &Row| clerk_key(r.0, r.1);
        let index = CountyIndex::new(&coverage, rows, |_| "king-wa", key, |_| vec!["Wren Halvorsen"]);
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut q = vec![("county", "king-wa"), ("query", "halvorsen"), ("limit", "1")];
            if let Some(c) = cursor.as_deref() {
                q.push(("cursor", c));
            }
            let page = index.search(&parse_search(&RequestEnvelope::new("/v1/x", &q)).unwrap(), key);
            seen.extend(page.records.iter().map(|r| r.1));
            match page.next {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(seen, ["A", "B", "C"], "every record once, in key order");
    }
}
