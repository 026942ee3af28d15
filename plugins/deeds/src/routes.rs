//! `GET /v1/deeds`: token search of one county's grantor/grantee index, newest recording first, from the
//! seed's index in memory or the ingested records in the engine; paged by `limit` and `cursor` in that order.

use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, ApiSchema, Params, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::clerk::{self, ClerkDocument, Kind};
use datahost_plugin_kit::county::{ClerkQueryText, ClerkSearch, CountySlug};
use serde::Serialize;

use crate::data::{self, Deed};

pub const DEFAULT_LIMIT: usize = 100;

/// Query parameters of `GET /v1/deeds`.
#[derive(Params)]
struct Search {
    /// County slug (county name in lowercase words joined by '-', then the state code), for example `travis-tx`.
    /// A county not yet onboarded gives an empty result.
    county: CountySlug,
    /// Grantor or grantee name, or a property address. Case-insensitive; every word must appear among the deed's
    /// grantor, grantee and address words (St/Street, N/North... compare equal).
    #[param(example = "O'Brien")]
    query: ClerkQueryText,
    #[param(page(default = DEFAULT_LIMIT, max = DEFAULT_MAX_LIMIT, of = "deeds"))]
    page: PageRequest,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Search::specs())
}

/// The deeds of one county matching the query, a page at a time.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "DeedsResponse")]
pub struct Body<'a, D> {
    /// The county slug searched (lowercased).
    county: &'a str,
    /// The query as given (trimmed).
    query: &'a str,
    /// Number of deeds returned.
    count: usize,
    /// Matching deeds, newest recording first (equal dates by instrument number).
    deeds: Vec<D>,
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

impl<D: Serialize> Body<'_, D> {
    fn respond(&self) -> Result<Response, ApiError> {
        paging::respond(self, self.next.as_deref())
    }
}

/// A clerk document as a deed: party 1 grantors, party 2 grantees, its parcels as the legal description.
pub fn deed_of(doc: ClerkDocument) -> Deed {
    Deed {
        instrument_number: doc.document_id,
        doc_type: doc.doc_type,
        grantor: doc.first_parties.join("; "),
        grantee: doc.second_parties.join("; "),
        legal_description: doc.parcels.join("; "),
        county: doc.county,
        source_url: doc.source_url,
        recorded_date: doc.recorded_date,
        property_address: doc.addresses.join("; "),
    }
}

pub fn handle(source: &crate::Source, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Search { county, query, page } = Search::parse(request.params())?;
    let search = ClerkSearch::new(county, query, page)?;
    let index = match source {
        crate::Source::Stored(clerk) => {
            let found = clerk.search(&search, &[clerk::facet(Kind::Deed, None)], |d| d.kind == Kind::Deed)?;
            let deeds: Vec<Deed> = found.documents.into_iter().map(deed_of).collect();
            return Body {
                county: &search.county,
                query: &search.query,
                count: deeds.len(),
                deeds,
                next: found.next,
                total: found.total,
                total_is_lower_bound: found.total_is_lower_bound,
                county_onboarded: found.onboarded,
            }
            .respond();
        }
        crate::Source::Seed(index) => index,
    };
    let found = index.search(&search, data::key);
    Body {
        county: &search.county,
        query: &search.query,
        count: found.records.len(),
        deeds: found.records,
        next: found.next,
        total: found.total,
        total_is_lower_bound: false,
        county_onboarded: found.onboarded,
    }
    .respond()
}
