//! `GET /v1/property`: the assessor record of one street address, matched after normalisation, optionally
//! scoped to a county. A county that is well-formed but not onboarded answers 200 with `record: null`.
//! Ingested parcels are read by the street keys the address can name; the same matching rule as in memory
//! then checks the rest.

use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::{ApiError, ApiSchema, Params, RequestEnvelope, Response, RouteSpec, Tier};
use datahost_plugin_kit::address::{canonical_tokens, has_alphanumeric};
use datahost_plugin_kit::county::CountySlug;
use serde::Serialize;
use serde_json::Value;

use crate::data::{Parcel, Parcels, PropertyRecord};

/// Longest accepted address.
pub const MAX_ADDRESS_CHARS: usize = 300;

/// Query parameters of `GET /v1/property`.
#[derive(Params)]
struct Lookup {
    /// Street address: number, street and any unit (`Apt 4B`, `Unit 4B`, `#4B` are the same), optionally followed
    /// by city, state and ZIP. Case, punctuation and common abbreviations (St/Street, Ave/Avenue, N/North...) do
    /// not matter.
    #[param(example = "1204 Cedar Bend Lane, Austin, TX 78704", max_chars = MAX_ADDRESS_CHARS)]
    address: String,
    /// County slug (county name in lowercase words joined by '-', then the state code), for example `travis-tx`.
    /// Scopes the lookup; a county not yet onboarded gives `record: null`.
    county: Option<CountySlug>,
}

pub fn route_spec() -> RouteSpec {
    RouteSpec { path: crate::ROUTE.into(), min_tier: Tier::Free, params: Lookup::specs() }
}

/// Why `record` is what it is.
#[derive(Serialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Matched,
    NoMatch,
    CountyNotOnboarded,
}

impl Status {
    /// Documented inline, in the names serde writes.
    fn schema() -> Value {
        schema::serde_enum(&[Status::Matched, Status::NoMatch, Status::CountyNotOnboarded])
    }
}

/// The assessor record of one address, and how it was matched.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PropertyResponse")]
pub struct Body<'a> {
    /// The address as given (trimmed).
    address: &'a str,
    /// County slug: the `county` parameter (lowercased) when given, else the county of the matched parcel, else an
    /// empty string.
    county: &'a str,
    /// The assessor record, or null when the county is not yet onboarded or no parcel matches.
    record: Option<&'a PropertyRecord>,
    /// The canonical match key of the address (upper case, USPS abbreviations, UNIT).
    #[schema(optional)]
    normalized_address: String,
    /// Why `record` is what it is.
    #[schema(optional, with = Status::schema)]
    status: Status,
    /// Parcels the address matched; above 1 only without `county` when the same street address exists in several
    /// counties (the first county in slug order is returned).
    #[schema(optional)]
    match_count: usize,
    /// The matched parcel's situs address, or null.
    #[schema(optional)]
    matched_address: Option<String>,
}

pub fn handle(parcels: &Parcels, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Lookup { address, county } = Lookup::parse(request.params())?;
    let address = address.as_str();
    if !has_alphanumeric(address) {
        return Err(ApiError::bad_request("address must contain at least one letter or digit"));
    }
    let tokens = canonical_tokens(address);
    let county = county.map(|c| c.0);
    let normalized_address = tokens.join(" ");

    let stored_matches;
    let (onboarded, matches): (bool, Vec<&Parcel>) = match parcels {
        Parcels::Seed(index) => match county.as_deref() {
            Some(c) if !index.is_onboarded(c) => (false, Vec::new()),
            _ => (true, index.lookup(&tokens, county.as_deref()).matches),
        },
        Parcels::Stored(stored) => match county.as_deref() {
            Some(c) if !stored.is_onboarded(c) => (false, Vec::new()),
            _ => {
                stored_matches = stored
                    .lookup(&tokens, county.as_deref())
                    .map_err(|e| ApiError::unavailable(format!("the property records could not be read: {e}")))?;
                (true, stored_matches.iter().collect())
            }
        },
    };
    if let Some(c) = county.as_deref().filter(|_| !onboarded) {
        return Response::json(&Body {
            address,
            county: c,
            record: None,
            normalized_address,
            status: Status::CountyNotOnboarded,
            match_count: 0,
            matched_address: None,
        });
    }
    let first = matches.first();
    Response::json(&Body {
        address,
        county: county.as_deref().or(first.map(|p| p.record.county.as_str())).unwrap_or(""),
        record: first.map(|p| &p.record),
        normalized_address,
        status: if first.is_some() { Status::Matched } else { Status::NoMatch },
        match_count: matches.len(),
        matched_address: first.map(|p| p.full_address()),
    })
}
