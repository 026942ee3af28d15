//! `GET /v1/edgar-search`: validates the parameters, runs one tantivy query and shapes the hits. `limit` hits
//! make a page and `cursor` continues after the last hit served; since relevance scores move whenever the set
//! of filings does, a walk is pinned to the index it began on (a cursor of an earlier index is a 400).

use chrono::NaiveDate;
use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::{DateRange, ParamText};
use datahost_plugin_api::rows::{JsonFrame, JsonStr, JsonText, Slot};
use datahost_plugin_api::{ApiError, ApiSchema, ParamKind, Params, RequestEnvelope, Response, RouteSpec, Tier};
use serde::Serialize;

use crate::data::Filing;
use crate::index::{normalize_form, HitKey, SearchError, SearchIndex, SearchRequest, TOTAL_CAP};

pub const DEFAULT_LIMIT: usize = 10;
/// SPEC: `limit` maximum 100.
pub const MAX_LIMIT: usize = 100;
/// Longest accepted query text: long enough for any real query, short enough to bound the work per request.
pub const MAX_QUERY_CHARS: usize = 500;
/// Most form types one request may filter on.
pub const MAX_FORMS: usize = 25;
const MAX_FORM_CHARS: usize = 20;

/// Query parameters of `GET /v1/edgar-search`.
#[derive(Params)]
struct Search {
    /// Full-text query (at most 500 characters). Every word must match (stemmed, case-insensitive); `"supply
    /// chain"` matches the exact phrase; `OR`, `-word` and `entity:`/`text:`/`form:`/`cik:` field prefixes are
    /// supported.
    #[param(example = "\"supply chain\" tariffs", max_chars = MAX_QUERY_CHARS)]
    q: String,
    /// Comma-separated form types, case-insensitive (for example `10-K,8-K`).
    #[param(example = "10-K,10-Q", max_chars = MAX_FORMS_CHARS)]
    forms: Option<Forms>,
    /// Inclusive lower bound on filedDate, YYYY-MM-DD.
    #[param(example = "2024-01-01")]
    from: Option<NaiveDate>,
    /// Inclusive upper bound on filedDate, YYYY-MM-DD.
    #[param(example = "2025-12-31")]
    to: Option<NaiveDate>,
    #[param(page(default = DEFAULT_LIMIT, max = MAX_LIMIT, of = "hits"))]
    page: PageRequest,
}

/// Longest accepted `forms` list.
const MAX_FORMS_CHARS: usize = 400;

/// The form types of `forms`, normalised and each once.
struct Forms(Vec<String>);

impl ParamText for Forms {
    const KIND: ParamKind = ParamKind::String;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        let mut forms: Vec<String> = Vec::new();
        for part in raw.trim().split(',') {
            let form = normalize_form(part);
            if form.is_empty() {
                continue;
            }
            let well_formed = form.chars().count() <= MAX_FORM_CHARS
                && form.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '/' | '.'));
            if !well_formed {
                return Err(ApiError::bad_request(format!(
                    "{name} must be a comma-separated list of form types (letters, digits, spaces, '-', '/' or '.', \
                     at most {MAX_FORM_CHARS} characters each, for example 10-K,8-K); got `{}`",
                    clip(part.trim(), 40)
                )));
            }
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
        if forms.is_empty() {
            return Err(ApiError::bad_request(format!(
                "{name} must name at least one form type, for example 10-K,8-K"
            )));
        }
        if forms.len() > MAX_FORMS {
            return Err(ApiError::bad_request(format!("{name} may name at most {MAX_FORMS} form types")));
        }
        Ok(Forms(forms))
    }
}

pub fn route_spec() -> RouteSpec {
    RouteSpec { path: crate::ROUTE.into(), min_tier: Tier::Free, params: Search::specs() }
}

/// One matching filing. Answers write it from the filing's [`HitFrame`] (the same fields with `Score` and `Text`
/// open slots); as `HitOut<'a>` it is what the schema documents and what the tests compare a filled frame with.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "EdgarSearchHit")]
pub(crate) struct HitOut<'a, Score = f64, Text = &'a str> {
    /// Form type as filed, for example 10-K, 8-K, DEF 14A, 13F-HR, 4.
    form: &'a str,
    /// Name of the filer or subject company.
    entity: &'a str,
    /// Filer CIK, 10 digits, zero-padded.
    #[schema(pattern = "^[0-9]{10}$")]
    cik: &'a str,
    /// EDGAR accession number (`<10-digit filer id>-<yy>-<6-digit sequence>`); rows of the demo dataset carry
    /// `DEMO-<yyyy>-<sequence>`, a form no EDGAR filing has.
    accession: &'a str,
    /// Address of the filing on EDGAR; under the reserved https://demo.invalid/ for demo rows.
    #[schema(format = "uri")]
    url: &'a str,
    /// Date the filing was accepted.
    #[schema(format = "date")]
    filed_date: &'a str,
    /// Relevance score (BM25; ts_rank on a PostgreSQL records engine); hits are ordered by it, highest first.
    #[schema(optional)]
    score: Score,
    /// Up to 160 characters of the filing text around the best-matching query terms.
    #[schema(optional)]
    snippet: Text,
}

impl<'a, Score, Text> HitOut<'a, Score, Text> {
    /// The hit of `filing` with this score and snippet.
    pub(crate) fn of(filing: &'a Filing, score: Score, snippet: Text) -> Self {
        HitOut {
            form: &filing.form,
            entity: &filing.entity,
            cik: &filing.cik,
            accession: &filing.accession,
            url: &filing.url,
            filed_date: &filing.filed_date,
            score,
            snippet,
        }
    }
}

/// A filing's [`HitOut`] written once (when the filing is first read for a hit: `index::ReadFiling`) with its two
/// per-answer fields, the score and the snippet, left open: an answer fills them, instead of escaping every
/// hit's six fixed strings and its keys again (a profile of cold searches showed writing the hits at 10% of the
/// host's samples).
pub(crate) type HitFrame = JsonFrame<HitOut<'static>>;

/// Writes `filing`'s [`HitFrame`].
pub(crate) fn hit_frame(filing: &Filing) -> Result<HitFrame, serde_json::Error> {
    JsonFrame::new(&HitOut::of(filing, Slot::<f64>::new(), Slot::<&str>::new()))
}

/// The score as served: rounded to 4 decimals.
fn served_score(score: f32) -> f64 {
    (score as f64 * 10_000.0).round() / 10_000.0
}

/// The hits of one search, a page at a time.
#[derive(Serialize, ApiSchema)]
#[schema(name = "EdgarSearchResponse")]
pub struct Body<'a> {
    /// The query text as given in `q`.
    query: &'a str,
    #[schema(with = total_schema)]
    total: usize,
    // The same field and meaning as the clerk searches', named in the API guide's "Pages and totals".
    #[serde(rename = "totalIsLowerBound")]
    #[schema(with = total_is_lower_bound_schema)]
    total_is_lower_bound: bool,
    /// Number of hits returned (at most `limit`).
    count: usize,
    hits: JsonText<Vec<HitOut<'static>>>,
    #[schema(with = paging::next_schema)]
    next: Option<&'a str>,
}

fn total_schema() -> serde_json::Value {
    schema::describe(
        schema::integer(),
        &format!(
            "Number of filings matching the query and filters (all of them, not only the returned ones), counted up \
             to {TOTAL_CAP}: when more match, `total` is {TOTAL_CAP} and `totalIsLowerBound` is true."
        ),
    )
}

fn total_is_lower_bound_schema() -> serde_json::Value {
    schema::describe(
        schema::boolean(),
        &format!(
            "False when `total` is the exact number of matches; true when counting stopped at {TOTAL_CAP} and \
             `total` is a lower bound (the hits are still the best-ranked of all matches)."
        ),
    )
}

/// Answers a search over `index`, which holds the data generation `generation` (what a cursor is pinned to).
pub fn handle(index: &SearchIndex, generation: &str, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Search { q: text, forms, from, to, page } = Search::parse(request.params())?;
    let forms = forms.map(|f| f.0).unwrap_or_default();
    let range = DateRange::new(from, to)?;
    let page = page.pinned_to(generation)?.keyed::<HitKey>()?;

    let req = SearchRequest {
        query: text.clone(),
        forms,
        from: range.from,
        to: range.to,
        // One more than the page: whether it exists decides `next`.
        limit: page.request.limit.saturating_add(1),
        after: page.after,
        snippets: true,
    };
    let result = index.search(&req).map_err(search_error)?;
    let served = page.page(result.hits, |h| h.key);
    let hits = JsonFrame::fill_two_array(
        served.items.iter().map(|h| (&h.read.hit, served_score(h.score), JsonStr(h.snippet().unwrap_or_default()))),
    )
    .map_err(|e| ApiError::internal(format!("writing a hit: {e}")))?;
    let next = served.next.as_deref();
    let body = Body {
        query: &text,
        total: result.total,
        total_is_lower_bound: !result.total_exact,
        count: served.items.len(),
        hits,
        next,
    };
    paging::respond(&body, next)
}

fn search_error(e: SearchError) -> ApiError {
    match e {
        SearchError::Syntax(detail) => ApiError::bad_request(format!(
            "q is not a valid search query ({}); quote phrases like \"supply chain\", and use field prefixes \
             only with entity:, text:, form: or cik:",
            clip(&detail, 120)
        )),
        SearchError::Engine(detail) => ApiError::internal(format!("full-text search failed: {detail}")),
    }
}

/// The `forms` filter: comma-separated, case- and space-insensitive, duplicates and empty items ignored.
/// Keeps echoed user input short in error messages.
fn clip(v: &str, max: usize) -> String {
    if v.chars().count() <= max {
        v.to_string()
    } else {
        format!("{}…", v.chars().take(max).collect::<String>())
    }
}
