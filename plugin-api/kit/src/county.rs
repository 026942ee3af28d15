//! County-records building blocks shared by the property, deeds and liens datasets: county slugs
//! (`travis-tx`) with the SPEC 400 rules, the list of onboarded counties a snapshot carries, the request of
//! a county-scoped clerk-index search, and an in-memory index that answers it with the token rule of
//! [`crate::address`].
//!
//! A county that is well-formed but not onboarded is never an error: the datasets answer 200 with an empty
//! result, because the county backfill is incomplete by design. The search itself is a pure function of
//! the records and the query ([`TokenQuery::matches`]), so an engine-backed implementation can replace the
//! in-memory index without changing the rule: in engine mode (PostgreSQL) the onboarded counties are a
//! table ([`COUNTIES`]), each record stores its county-qualified tokens ([`record_tokens`]) under a GIN
//! index, and [`clerk_search_engine`] answers the same search with one query ([`clerk_search_sql`]).
//!
//! Every way of answering a clerk search pages the same way (see [`datahost_plugin_api::paging`]): newest date first, equal
//! dates by record key in byte order, the key of the last record served in the cursor ([`ClerkKey`]).

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::address::{canonical_tokens, has_alphanumeric, TokenQuery, TokenSet};
use crate::sql::SeedTable;
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

/// Engine mode (PostgreSQL): the onboarded counties of a county-records dataset live in `{schema}.counties`,
/// synced from the snapshot's `counties` list with [`COUNTIES`]; operators may add rows of another source.
pub const COUNTIES_TABLE_SQL: &str = "CREATE TABLE IF NOT EXISTS counties (
    slug         text PRIMARY KEY,
    name         text NOT NULL,
    state        text NOT NULL,
    onboarded_at date NOT NULL,
    source       text NOT NULL DEFAULT 'seed'
);";

/// The seed table of the onboarded counties (see [`crate::sql::sync_seed`]).
pub const COUNTIES: SeedTable = SeedTable {
    name: "counties",
    columns: &[("slug", "text"), ("name", "text"), ("state", "text"), ("onboarded_at", "date")],
    key: &["slug"],
};

/// The rows of [`COUNTIES`] for a snapshot's coverage list (slugs lowercased, as the in-memory index does).
pub fn coverage_rows(coverage: &[CountyCoverage]) -> Vec<serde_json::Value> {
    coverage
        .iter()
        .map(|c| {
            serde_json::json!({
                "slug": c.slug.to_ascii_lowercase(), "name": c.name, "state": c.state, "onboarded_at": c.onboarded_at
            })
        })
        .collect()
}

/// Match tokens qualified by county (`travis-tx:OBRIEN`), as stored in a county-records table's
/// `search_tokens` column: one GIN lookup is then already scoped to the county. `tokens` are canonical
/// ([`crate::address::canonical_tokens`]); the result is sorted and deduplicated.
pub fn county_tokens<S: AsRef<str>>(county: &str, tokens: impl IntoIterator<Item = S>) -> Vec<String> {
    let county = county.to_ascii_lowercase();
    let set: BTreeSet<String> = tokens.into_iter().map(|t| format!("{county}:{}", t.as_ref())).collect();
    set.into_iter().collect()
}

/// The `search_tokens` of one record: the canonical tokens of all its searchable fields, county-qualified.
pub fn record_tokens<'a>(county: &str, fields: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    county_tokens(county, fields.into_iter().flat_map(canonical_tokens))
}

/// A county-records table searched by [`clerk_search_sql`]: it has `county`, `search_tokens text[]` (GIN
/// indexed) and a date column, and `key` breaks date ties (byte order, as in memory).
pub struct ClerkTable<'a> {
    /// Table name, unqualified (the query prefixes the plugin's `{schema}`).
    pub table: &'a str,
    /// The select list, aliased to the record's JSON field names.
    pub select: &'a str,
    /// Column of the record date (SQL `date`) that orders the results, newest first.
    pub date_column: &'a str,
    /// Column of the unique record key that breaks date ties (ascending, `COLLATE "C"` byte order).
    pub key_column: &'a str,
}

/// One query answering a clerk-index search: whether the county is onboarded, the number of matches, and
/// the first `$3` matches newest first (date descending, then key ascending in byte order) that come `after`
/// a page's position (a condition on `match_date` and `match_key`, or none for the first page). `$1` is the
/// county slug, `$2` the query's [`county_tokens`] as a [`crate::sql::text_array`], `$3` the row cap;
/// `extra` conditions (a dataset's own filters) may use `$4` onwards. The answer always has at least one
/// row: with no match, the record columns are null.
///
/// The matches are read from the table once: their row ids and sort keys are materialised, counted, and the
/// top `limit` fetched again by row id. (Counting and sorting in two separate scans visits every matching
/// heap page twice: a third slower at 10M rows.)
pub fn clerk_search_sql(t: &ClerkTable<'_>, extra: &[&str], after: Option<&str>) -> String {
    // No `county = $1`: the county-qualified tokens already imply it, and a second condition tempts the
    // planner into intersecting with a whole county's index entries (measured: 20x slower at 10M rows).
    let mut filter = String::from("c.onboarded AND search_tokens @> $2::text[]");
    for condition in extra {
        filter.push_str(" AND ");
        filter.push_str(condition);
    }
    format!(
        "WITH c AS (SELECT EXISTS (SELECT 1 FROM {{schema}}.counties WHERE slug = $1) AS onboarded), \
         m AS MATERIALIZED (SELECT x.ctid AS match_id, x.{date} AS match_date, x.{key} AS match_key \
         FROM {{schema}}.{table} AS x, c WHERE {filter}), \
         top AS (SELECT * FROM m{after} ORDER BY match_date DESC, match_key COLLATE \"C\" LIMIT $3) \
         SELECT c.onboarded, (SELECT count(*) FROM m) AS total, r.* FROM c LEFT JOIN LATERAL \
         (SELECT {select}, top.match_date, top.match_key FROM top \
         JOIN {{schema}}.{table} ON {table}.ctid = top.match_id) AS r ON true \
         ORDER BY r.match_date DESC, r.match_key COLLATE \"C\"",
        table = t.table,
        select = t.select,
        date = t.date_column,
        key = t.key_column,
        after = after.map(|a| format!(" WHERE {a}")).unwrap_or_default(),
    )
}

/// The answer of [`clerk_search_sql`]: onboarded, total, and the record rows (null rows dropped; `marker`
/// is a record column that is never null).
pub fn clerk_rows(rows: Vec<serde_json::Value>, marker: &str) -> (bool, usize, Vec<serde_json::Value>) {
    let onboarded = rows.first().and_then(|r| r["onboarded"].as_bool()).unwrap_or(false);
    let total = rows.first().and_then(|r| r["total"].as_u64()).unwrap_or(0) as usize;
    let records = rows.into_iter().filter(|r| !r[marker].is_null()).collect();
    (onboarded, total, records)
}

/// The SQL and parameters of one engine-mode clerk search ([`clerk_search_sql`]); `filters` are the
/// dataset's own equality conditions (`column = value`), numbered from `$4`, and the page's position (a
/// [`ClerkKey`]: an earlier date, or the same date and a later key) follows them. The row cap is one more than
/// the page size, so the answer tells whether a next page exists.
pub fn clerk_search_query(
    table: &ClerkTable<'_>,
    search: &ClerkSearch,
    filters: &[(&str, serde_json::Value)],
) -> (String, Vec<serde_json::Value>) {
    let tokens = county_tokens(&search.county, search.tokens.tokens());
    let cap = search.page.request.limit.saturating_add(1).min(i64::MAX as usize) as i64;
    let mut params = vec![search.county.as_str().into(), crate::sql::text_array(&tokens).into(), cap.into()];
    let mut conditions = Vec::with_capacity(filters.len());
    for (column, value) in filters {
        params.push(value.clone());
        conditions.push(format!("{column} = ${}", params.len()));
    }
    let conditions: Vec<&str> = conditions.iter().map(String::as_str).collect();
    let after = search.page.after.as_ref().map(|(Reverse(date), key)| {
        params.push(date.as_str().into());
        params.push(key.as_str().into());
        let (d, k) = (params.len() - 1, params.len());
        format!("(match_date < ${d}::date OR (match_date = ${d}::date AND match_key COLLATE \"C\" > ${k}))")
    });
    (clerk_search_sql(table, &conditions, after.as_deref()), params)
}

/// What an engine-mode clerk search answers: the [`SearchResult`] fields, with owned records.
#[derive(Debug)]
pub struct EngineFound<T> {
    /// False when the county is not onboarded (then no records and a total of 0).
    pub onboarded: bool,
    /// Number of matches over every page.
    pub total: usize,
    /// This page of records, deserialised from the select list, newest first.
    pub records: Vec<T>,
    /// Cursor of the next page; `None` on the last.
    pub next: Option<String>,
}

/// Runs an engine-mode clerk search: the same answer as the in-memory [`CountyIndex::search_where`], with
/// owned records. `marker` is a record field that is never null.
pub fn clerk_search_engine<T: serde::de::DeserializeOwned>(
    host: &datahost_plugin_api::Host,
    dataset: &str,
    table: &ClerkTable<'_>,
    marker: &str,
    search: &ClerkSearch,
    filters: &[(&str, serde_json::Value)],
) -> Result<EngineFound<T>, ApiError> {
    let (sql, params) = clerk_search_query(table, search, filters);
    let rows = crate::sql::query(host, dataset, &sql, &params)?;
    let (onboarded, total, rows) = clerk_rows(rows, marker);
    // The query already starts after the cursor; paging again only cuts the extra row and names the next page.
    let key = |r: &serde_json::Value| {
        clerk_key(r["match_date"].as_str().unwrap_or_default(), r["match_key"].as_str().unwrap_or_default())
    };
    let Page { items, next } = search.page.page(rows, key);
    Ok(EngineFound { onboarded, total, records: crate::sql::rows_as(dataset, &items)?, next })
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

    #[test]
    fn engine_rows_and_search_sql() {
        assert_eq!(
            record_tokens("Travis-TX", ["Maura O'Brien", "1204 Cedar Bend Lane", "O'Brien"]),
            [
                "travis-tx:1204",
                "travis-tx:BEND",
                "travis-tx:CEDAR",
                "travis-tx:LN",
                "travis-tx:MAURA",
                "travis-tx:OBRIEN"
            ]
        );
        assert_eq!(
            county_tokens("king-wa", TokenQuery::new("Okonkwo blair").tokens()),
            ["king-wa:BLAIR", "king-wa:OKONKWO"]
        );
        let coverage = vec![CountyCoverage {
            slug: "King-WA".into(),
            name: "King County".into(),
            state: "WA".into(),
            onboarded_at: "2026-01-01".into(),
        }];
        assert_eq!(coverage_rows(&coverage)[0]["slug"], "king-wa");
        let sql = clerk_search_sql(
            &ClerkTable { table: "liens", select: "number AS \"n\"", date_column: "filed", key_column: "number" },
            &["kind = $4"],
            None,
        );
        assert!(
            sql.contains(
                "FROM {schema}.liens AS x, c WHERE c.onboarded AND search_tokens @> $2::text[] AND kind = $4)"
            ),
            "{sql}"
        );
        assert!(sql.contains("ORDER BY match_date DESC, match_key COLLATE \"C\" LIMIT $3)"), "{sql}");
        let pairs = q(&[("county", "Travis-TX"), ("query", "O'Brien maura")]);
        let search = parse_search(&RequestEnvelope::new("/v1/x", &pairs_of(&pairs))).unwrap();
        let table = ClerkTable { table: "liens", select: "number", date_column: "filed", key_column: "number" };
        let (sql, params) = clerk_search_query(&table, &search, &[("kind", "tax".into()), ("released", false.into())]);
        assert_eq!(
            params,
            [
                serde_json::json!("travis-tx"),
                serde_json::json!(r#"{"travis-tx:MAURA","travis-tx:OBRIEN"}"#),
                serde_json::json!(101),
                serde_json::json!("tax"),
                serde_json::json!(false)
            ]
        );
        assert!(sql.contains("@> $2::text[] AND kind = $4 AND released = $5)"), "{sql}");
        assert!(sql.contains("FROM m ORDER BY"), "the first page has no position condition: {sql}");
        // A later page starts after the cursor's (date, key), given as the parameters after the filters.
        let cursor = search.page.request.cursor_after(&clerk_key("2024-05-01", "DOC-7"));
        let pairs = q(&[("county", "Travis-TX"), ("query", "O'Brien maura"), ("cursor", &cursor)]);
        let later = parse_search(&RequestEnvelope::new("/v1/x", &pairs_of(&pairs))).unwrap();
        let (sql, params) = clerk_search_query(&table, &later, &[("kind", "tax".into())]);
        assert_eq!(params[4..], [serde_json::json!("2024-05-01"), serde_json::json!("DOC-7")]);
        assert!(
            sql.contains(
                "FROM m WHERE (match_date < $5::date OR (match_date = $5::date AND match_key COLLATE \"C\" > $6)) \
                 ORDER BY"
            ),
            "{sql}"
        );
        let rows = vec![serde_json::json!({"onboarded": true, "total": 0, "n": null})];
        assert_eq!(clerk_rows(rows, "n"), (true, 0, vec![]));
    }
}
