//! `GET /v1/execs`: every covered company's roster, or one company's with `ticker`; `limit` caps companies (one
//! page: `cursor` walks the rest, in ticker order).

use datahost_plugin_api::paging::PageRequest;
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, ParamSpec, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::companies::{self, Envelope};

use crate::data::Rosters;

pub const DEFAULT_LIMIT: usize = 100;

pub fn route_spec() -> RouteSpec {
    companies::paged_route_spec(crate::ROUTE, ParamSpec::limit(DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, "companies"))
}

pub fn handle(rosters: &Rosters, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let page = PageRequest::parse(request, DEFAULT_LIMIT, DEFAULT_MAX_LIMIT)?;
    let selected = rosters.companies.page(&request.params().ticker()?, &page)?;
    let companies = selected
        .items
        .into_iter()
        .map(|c| rosters.roster(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ApiError::unavailable(format!("the insiders records could not be read: {e}")))?;
    Envelope::new(&rosters.meta, companies, selected.next).respond()
}
