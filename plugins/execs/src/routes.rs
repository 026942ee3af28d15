//! `GET /v1/execs`: every covered company's roster, or one company's with `ticker`; `limit` caps companies.

use datahost_plugin_api::companies::{self, Envelope};
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, ParamSpec, RequestEnvelope, Response, RouteSpec};

use crate::data::Rosters;

pub const DEFAULT_LIMIT: usize = 100;

pub fn route_spec() -> RouteSpec {
    let mut route = companies::route_spec(crate::ROUTE);
    route.params.push(ParamSpec::limit(DEFAULT_LIMIT, DEFAULT_MAX_LIMIT, "companies"));
    route
}

pub fn handle(rosters: &Rosters, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let limit = request.params().limit(DEFAULT_LIMIT, DEFAULT_MAX_LIMIT)?;
    let mut selected = rosters.companies.select(request)?;
    selected.truncate(limit);
    let companies = selected
        .into_iter()
        .map(|c| rosters.roster(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ApiError::unavailable(format!("the insiders records could not be read: {e}")))?;
    Response::json(&Envelope { meta: &rosters.meta, count: companies.len(), companies })
}
