//! `GET /v1/execs`: every covered company's roster, or one company's with `ticker`; `limit` caps companies (one
//! page: `cursor` walks the rest, in ticker order).

use datahost_plugin_api::paging::PageRequest;
use datahost_plugin_api::params::DEFAULT_MAX_LIMIT;
use datahost_plugin_api::{ApiError, Params, RequestEnvelope, Response, RouteSpec, TickerFilter};
use datahost_plugin_kit::companies::Envelope;

use crate::data::Rosters;

pub const DEFAULT_LIMIT: usize = 100;

/// Query parameters of `GET /v1/execs`: a company dataset's (`ticker`, `limit`, `cursor`), except that SPEC gives
/// `limit` a default here.
#[derive(Params)]
struct Selection {
    /// Stock ticker, case-insensitive (for example `AAPL` or `aapl`). When omitted, all covered companies are
    /// returned.
    ticker: TickerFilter,
    #[param(page(default = DEFAULT_LIMIT, max = DEFAULT_MAX_LIMIT, of = "companies"))]
    page: PageRequest,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Selection::specs())
}

pub fn handle(rosters: &Rosters, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Selection { ticker, page } = Selection::parse(request.params())?;
    let selected = rosters.companies.page(&ticker, &page)?;
    let companies = selected
        .items
        .into_iter()
        .map(|c| rosters.roster(c))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ApiError::unavailable(format!("the insiders records could not be read: {e}")))?;
    Envelope::new(&rosters.meta, companies, selected.next).respond()
}
