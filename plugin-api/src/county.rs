//! County-records building blocks shared by the property, deeds and liens datasets: county slugs
//! (`travis-tx`) with the SPEC 400 rules, the list of onboarded counties a snapshot carries, the request of
//! a county-scoped clerk-index search, and an in-memory index that answers it with the token rule of
//! [`crate::address`].
//!
//! A county that is well-formed but not onboarded is never an error: the datasets answer 200 with an empty
//! result, because the county backfill is incomplete by design. The search itself is a pure function of
//! the records and the query ([`TokenQuery::matches`]), so an engine-backed implementation can replace the
//! in-memory index without changing the rule.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::address::{token_query_param, TokenQuery, TokenSet};
use crate::params::Query;
use crate::{ApiError, ParamSpec};

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

/// The `name` county parameter: `None` when absent, else a checked, lowercased slug.
pub fn county_param(q: &Query<'_>, name: &str) -> Result<Option<String>, ApiError> {
    q.str(name).map(|v| parse_county_slug(name, v)).transpose()
}

/// One onboarded county as a snapshot lists it (`{"slug", "name", "state", "onboardedAt", ...}`; further
/// fields such as the assessor's or clerk's address are the dataset's own and ignored here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CountyCoverage {
    pub slug: String,
    pub name: String,
    pub state: String,
    /// Date (`YYYY-MM-DD`) from which the dataset holds this county.
    pub onboarded_at: String,
}

/// The request of a county-scoped clerk-index search: `county` and `query` required (in that order, the
/// first missing one named), `query` at most 200 characters with a letter or digit, and `limit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClerkSearch {
    pub county: String,
    /// The query as given (trimmed), echoed in the response.
    pub query: String,
    pub tokens: TokenQuery,
    pub limit: usize,
}

/// Longest accepted `query`, so a client cannot make the server tokenise a megabyte.
pub const MAX_QUERY_CHARS: usize = 200;

/// The `county` parameter of a county-records route (optional unless `.required()` is chained); `note` says
/// what a county that is not yet onboarded gives.
pub fn county_param_spec(note: &str) -> ParamSpec {
    ParamSpec::string(
        "county",
        &format!(
            "County slug (county name in lowercase words joined by '-', then the state code), for example \
             `travis-tx`. {note}"
        ),
    )
    .example("travis-tx")
}

impl ClerkSearch {
    /// The parameters [`ClerkSearch::parse`] reads: required `county` and `query` (described by the caller,
    /// which knows what its records hold), and `limit` over `what`.
    pub fn param_specs(
        query_description: &str,
        query_example: &str,
        what: &str,
        default_limit: usize,
        max_limit: usize,
    ) -> Vec<ParamSpec> {
        vec![
            county_param_spec("A county not yet onboarded gives an empty result.").required(),
            ParamSpec::string(
                "query",
                &format!("{query_description} At most {MAX_QUERY_CHARS} characters, with a letter or digit."),
            )
            .required()
            .example(query_example)
            .schema(serde_json::json!({ "maxLength": MAX_QUERY_CHARS })),
            ParamSpec::limit(default_limit, max_limit, what),
        ]
    }

    pub fn parse(q: &Query<'_>, default_limit: usize, max_limit: usize) -> Result<Self, ApiError> {
        let county = county_param(q, "county")?.ok_or_else(|| ApiError::missing("county"))?;
        let (query, tokens) = token_query_param(q, "query", MAX_QUERY_CHARS)?;
        let limit = q.limit(default_limit, max_limit)?;
        Ok(Self { county, query, tokens, limit })
    }
}

/// Records grouped by county, each with its match tokens, newest first within a county.
pub struct CountyIndex<T> {
    onboarded: BTreeSet<String>,
    by_county: HashMap<String, Vec<(T, TokenSet)>>,
}

/// The answer to one search: the first `limit` matches, newest first, and how many matched in all.
#[derive(Debug)]
pub struct SearchResult<'a, T> {
    pub onboarded: bool,
    pub total: usize,
    pub records: Vec<&'a T>,
}

impl<T> CountyIndex<T> {
    /// Builds the index. `county_of` gives a record's county slug, `date_of` its sort date (`YYYY-MM-DD`,
    /// newest first; ties keep snapshot order) and `fields_of` the texts whose tokens it matches on.
    pub fn new(
        coverage: &[CountyCoverage],
        records: Vec<T>,
        county_of: impl Fn(&T) -> &str,
        date_of: impl Fn(&T) -> &str,
        fields_of: impl Fn(&T) -> Vec<&str>,
    ) -> Self {
        let mut by_county: HashMap<String, Vec<(T, TokenSet)>> = HashMap::new();
        for record in records {
            let tokens = TokenSet::from_fields(fields_of(&record));
            by_county.entry(county_of(&record).to_ascii_lowercase()).or_default().push((record, tokens));
        }
        for rows in by_county.values_mut() {
            rows.sort_by(|(a, _), (b, _)| date_of(b).cmp(date_of(a)));
        }
        Self { onboarded: coverage.iter().map(|c| c.slug.to_ascii_lowercase()).collect(), by_county }
    }

    pub fn is_onboarded(&self, county: &str) -> bool {
        self.onboarded.contains(county)
    }

    /// Onboarded county slugs, sorted.
    pub fn onboarded(&self) -> impl Iterator<Item = &str> {
        self.onboarded.iter().map(String::as_str)
    }

    /// Every record of `county` whose tokens hold all query tokens, newest first, capped at `limit`.
    /// A county that is not onboarded yields nothing (records outside the coverage list are ignored).
    pub fn search(&self, county: &str, query: &TokenQuery, limit: usize) -> SearchResult<'_, T> {
        self.search_where(county, query, limit, |_| true)
    }

    /// [`Self::search`] restricted to the records `keep` accepts (a dataset's own filters).
    pub fn search_where(
        &self,
        county: &str,
        query: &TokenQuery,
        limit: usize,
        keep: impl Fn(&T) -> bool,
    ) -> SearchResult<'_, T> {
        if !self.is_onboarded(county) {
            return SearchResult { onboarded: false, total: 0, records: Vec::new() };
        }
        let mut total = 0;
        let mut records = Vec::new();
        for (record, tokens) in self.by_county.get(county).into_iter().flatten() {
            if query.matches(tokens) && keep(record) {
                total += 1;
                if records.len() < limit {
                    records.push(record);
                }
            }
        }
        SearchResult { onboarded: true, total, records }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
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
        let s = ClerkSearch::parse(&Query::new(&p), 100, 1000).unwrap();
        assert_eq!(s.county, "cook-il");
        assert_eq!(s.query, "Maura O'Brien");
        assert_eq!(s.tokens.tokens(), ["MAURA", "OBRIEN"]);
        assert_eq!(s.limit, 1000);
        for (pairs, message) in [
            (q(&[("query", "x")]), "the county query parameter is required"),
            (q(&[]), "the county query parameter is required"),
            (q(&[("county", "king-wa")]), "the query query parameter is required"),
            (q(&[("county", "king-wa"), ("query", "  ")]), "the query query parameter is required"),
            (q(&[("county", "king-wa"), ("query", "--")]), "query must contain at least one letter or digit"),
            (q(&[("county", "king"), ("query", "x")]), ""),
            (q(&[("county", "king-wa"), ("query", "x"), ("limit", "0")]), "limit must be a positive integer, got `0`"),
        ] {
            let err = ClerkSearch::parse(&Query::new(&pairs), 100, 1000).unwrap_err();
            assert_eq!(err.status, 400);
            assert!(err.message.starts_with(message), "{pairs:?}: {}", err.message);
        }
        let long = "a ".repeat(101);
        let p = q(&[("county", "king-wa"), ("query", &long)]);
        assert_eq!(
            ClerkSearch::parse(&Query::new(&p), 100, 1000).unwrap_err().message,
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
        let index = CountyIndex::new(&coverage, rows, |r| r.0, |r| r.1, |r| vec![r.2]);
        let hit = index.search("king-wa", &TokenQuery::new("halvorsen wren"), 10);
        assert!(hit.onboarded);
        assert_eq!(hit.total, 2);
        assert_eq!(hit.records.iter().map(|r| r.1).collect::<Vec<_>>(), ["2024-05-01", "2020-01-01"]);
        let capped = index.search("king-wa", &TokenQuery::new("halvorsen"), 1);
        assert_eq!((capped.total, capped.records.len()), (2, 1));
        let other = index.search("cook-il", &TokenQuery::new("halvorsen"), 10);
        assert!(!other.onboarded, "records of a county missing from the coverage list are not served");
        assert_eq!(other.total, 0);
        assert_eq!(index.onboarded().collect::<Vec<_>>(), ["king-wa"]);
        let filtered = index.search_where("king-wa", &TokenQuery::new("halvorsen"), 10, |r| r.1 < "2021");
        assert_eq!(filtered.records.iter().map(|r| r.1).collect::<Vec<_>>(), ["2020-01-01"]);
    }
}
