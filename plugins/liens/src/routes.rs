//! `GET /v1/liens`: token search of one county's lien index, newest filing first, optionally narrowed by
//! lien type and release state; from the seed's index in memory or the ingested records in the engine; paged
//! by `limit` and `cursor` in that order.

use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::{ParamText, DEFAULT_MAX_LIMIT};
use datahost_plugin_api::{ApiError, ApiSchema, ParamKind, ParamSpec, Params, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::clerk::{self, ClerkDocument, Kind};
use datahost_plugin_kit::county::{ClerkQueryText, ClerkSearch, CountySlug};
use serde::Serialize;
use serde_json::json;

use crate::data::{self, Lien, LIEN_TYPES};

pub const DEFAULT_LIMIT: usize = 100;

/// Query parameters of `GET /v1/liens`.
#[derive(Params)]
struct Search {
    /// County slug (county name in lowercase words joined by '-', then the state code), for example `travis-tx`.
    /// A county not yet onboarded gives an empty result.
    county: CountySlug,
    /// Claimant or debtor name, or a property address. Case-insensitive; every word must appear among the lien's
    /// claimant, debtor and address words (St/Street, N/North... compare equal).
    #[param(example = "O'Brien")]
    query: ClerkQueryText,
    #[param(page(default = DEFAULT_LIMIT, max = DEFAULT_MAX_LIMIT, of = "liens"))]
    page: PageRequest,
    /// Only liens of this type (case-insensitive; `mechanics` is accepted too).
    #[param(name = "lienType")]
    lien_type: Option<LienType>,
    /// `true` returns only released liens, `false` only liens still open.
    released: Option<bool>,
}

/// The `lienType` filter in SPEC's spelling (`mechanic's`, `tax`, `judgment`).
struct LienType(&'static str);

impl ParamText for LienType {
    const KIND: ParamKind = ParamKind::String;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        let raw = raw.trim();
        let wanted = raw.to_lowercase().replace(['’', '\''], "");
        LIEN_TYPES.iter().find(|t| t.replace('\'', "") == wanted).map(|t| LienType(t)).ok_or_else(|| {
            let shown: String = raw.chars().take(40).collect();
            ApiError::bad_request(format!("{name} must be one of mechanic's, tax or judgment, got `{shown}`"))
        })
    }
    fn document(spec: &mut ParamSpec) {
        spec.schema = Some(json!({ "enum": LIEN_TYPES }));
    }
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Search::specs())
}

/// The liens of one county matching the query, a page at a time.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "LiensResponse")]
pub struct Body<'a, L> {
    /// The county slug searched (lowercased).
    county: &'a str,
    /// The query as given (trimmed).
    query: &'a str,
    /// Number of liens returned.
    count: usize,
    /// Matching liens, newest filing first (equal dates by instrument number).
    liens: Vec<L>,
    #[schema(with = paging::next_schema)]
    next: Option<String>,
    #[schema(optional, description = clerk::TOTAL_DESCRIPTION)]
    total: usize,
    #[schema(optional, description = clerk::TOTAL_IS_LOWER_BOUND_DESCRIPTION)]
    total_is_lower_bound: bool,
    /// False when the county is not yet onboarded (the result is then empty).
    #[schema(optional)]
    county_onboarded: bool,
}

impl<L: Serialize> Body<'_, L> {
    fn respond(&self) -> Result<Response, ApiError> {
        paging::respond(self, self.next.as_deref())
    }
}

/// A clerk document as a lien: party 2 the claimant (secured party, creditor), party 1 the debtor.
fn lien_of(doc: ClerkDocument) -> Lien {
    Lien {
        instrument_number: doc.document_id,
        lien_type: doc.lien_type.unwrap_or_default(),
        claimant: doc.second_parties.join("; "),
        release_instrument: String::new(),
        county: doc.county,
        filed_date: doc.recorded_date,
        amount: doc.amount,
        released: false,
        debtor: doc.first_parties.join("; "),
        release_date: None,
        property_address: doc.addresses.join("; "),
        source_url: doc.source_url,
    }
}

pub fn handle(source: &crate::Source, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Search { county, query, page, lien_type, released } = Search::parse(request.params())?;
    let search = ClerkSearch::new(county, query, page)?;
    let kind = lien_type.map(|LienType(t)| t);
    let index = match source {
        crate::Source::Stored(clerk) => {
            // Every ingested lien is unreleased (the clerk index links no release to its lien yet).
            let facets = if released == Some(true) { Vec::new() } else { clerk::lien_facets(kind) };
            let found = clerk.search(&search, &facets, |d| {
                d.kind == Kind::Lien
                    && kind.is_none_or(|k| d.lien_type.as_deref() == Some(k))
                    && released.is_none_or(|r| !r)
            })?;
            let liens: Vec<Lien> = found.documents.into_iter().map(lien_of).collect();
            return Body {
                county: &search.county,
                query: &search.query,
                count: liens.len(),
                liens,
                next: found.next,
                total: found.total,
                total_is_lower_bound: found.total_is_lower_bound,
                county_onboarded: found.onboarded,
            }
            .respond();
        }
        crate::Source::Seed(index) => index,
    };
    let found = index.search_where(&search, data::key, |l| {
        kind.is_none_or(|k| l.lien_type == k) && released.is_none_or(|r| l.released == r)
    });
    Body {
        county: &search.county,
        query: &search.query,
        count: found.records.len(),
        liens: found.records,
        next: found.next,
        total: found.total,
        total_is_lower_bound: false,
        county_onboarded: found.onboarded,
    }
    .respond()
}
