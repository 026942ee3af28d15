//! `GET /v1/sam-entities`: name search ranked exact > prefix > word > inside a word, exact UEI lookup, an
//! optional status filter, and the full list in name order when neither `q` nor `uei` is given; `limit` entities
//! a page, `cursor` continuing after the last one served in that order (rank, name, UEI).

use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::clip;
use datahost_plugin_api::{ApiError, ApiSchema, ParamSpec, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::data::{normalize_name, rank, Entity, Index, MatchRank};

pub const DEFAULT_LIMIT: usize = 20;
/// SPEC: `limit` maximum 50.
pub const MAX_LIMIT: usize = 50;
pub const MAX_QUERY_CHARS: usize = 200;
pub const UEI_LEN: usize = 12;

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(
        crate::ROUTE,
        vec![
            ParamSpec::string(
                "q",
                "Legal business name or part of it, case-insensitive (punctuation is ignored). Ranked: exact name, \
                 then names starting with q, then names with a word starting with q, then names containing q inside \
                 a word; ties in name order.",
            )
            .example("acme")
            .schema(serde_json::json!({"maxLength": MAX_QUERY_CHARS})),
            ParamSpec::string("uei", "SAM.gov Unique Entity ID: exactly 12 letters or digits, case-insensitive.")
                .example("DEMOAW1YZ6G9")
                .schema(serde_json::json!({"pattern": "^[A-Za-z0-9]{12}$"})),
            ParamSpec::string(
                "status",
                "Only registrations with this status: `Active` or `Inactive`, the form entities carry (matched \
                 case-insensitively, so `active` works too).",
            )
            .schema(serde_json::json!({"enum": ["Active", "Inactive"]})),
            ParamSpec::limit(DEFAULT_LIMIT, MAX_LIMIT, "entities"),
            paging::cursor_param(),
        ],
    )
}

/// Matching registrations, a page at a time.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "SamEntitiesResponse")]
pub struct Body<'a> {
    /// The `q` given, else the `uei` given, else an empty string.
    query: &'a str,
    /// Date the statuses refer to: a registration is Active until its expirationDate.
    #[schema(format = "date", optional)]
    as_of: &'a str,
    /// Number of registrations matching (all of them, not only the returned ones).
    total: usize,
    /// Number of entities returned (at most `limit`).
    count: usize,
    entities: Vec<&'a Entity>,
    #[schema(with = paging::next_schema)]
    next: Option<&'a str>,
}

/// The sort key of a match: its rank (0 without `q`), then the name case-insensitively, as written, and the
/// UEI, which makes the order total.
type EntityKey = (u8, String, String, String);

fn entity_key(rank: Option<MatchRank>, e: &Entity) -> EntityKey {
    let rank = rank.map_or(0, |r| r as u8 + 1);
    (rank, e.name.to_lowercase(), e.name.clone(), e.uei.clone())
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let params = request.params();
    let q = params.str_max("q", MAX_QUERY_CHARS)?;
    let uei = params.str("uei");
    if let Some(u) = uei {
        if u.len() != UEI_LEN || !u.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(ApiError::bad_request(format!(
                "uei must be exactly {UEI_LEN} letters or digits (a SAM.gov Unique Entity ID), got `{}`",
                clip(u)
            )));
        }
    }
    let q_key = q.map(normalize_name);
    if q_key.as_deref() == Some("") {
        return Err(ApiError::bad_request("q must contain at least one letter or digit"));
    }
    let status = match params.str("status").map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("active") => Some(true),
        Some("inactive") => Some(false),
        Some(_) => return Err(ApiError::bad_request("status must be active or inactive")),
    };
    let page = PageRequest::parse(request, DEFAULT_LIMIT, MAX_LIMIT)?;

    // With `q`, by rank, ties in name order; without, in name order.
    let mut matches: Vec<(EntityKey, &Entity)> = index
        .entities
        .iter()
        .filter(|e| status.is_none_or(|want| e.active == want))
        .filter(|e| uei.is_none_or(|u| e.entity.uei.eq_ignore_ascii_case(u)))
        .filter_map(|e| match &q_key {
            None => Some((entity_key(None, &e.entity), &e.entity)),
            Some(key) => rank(&e.name_key, key).map(|r| (entity_key(Some(r), &e.entity), &e.entity)),
        })
        .collect();
    matches.sort_by(|a, b| a.0.cmp(&b.0));

    let total = matches.len();
    let page = page.page(matches, |(k, _)| k.clone())?;
    let entities: Vec<&Entity> = page.items.into_iter().map(|(_, e)| e).collect();
    let body = Body {
        query: q.or(uei).unwrap_or(""),
        as_of: &index.meta.as_of,
        total,
        count: entities.len(),
        entities,
        next: page.next.as_deref(),
    };
    paging::respond(&body, body.next)
}
