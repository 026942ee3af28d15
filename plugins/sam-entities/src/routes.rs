//! `GET /v1/sam-entities`: name search ranked exact > prefix > word > inside a word, exact UEI lookup, an
//! optional status filter, and the full list in name order when neither `q` nor `uei` is given; `limit` entities
//! a page, `cursor` continuing after the last one served in that order (rank, name, UEI).

use datahost_plugin_api::paging::{self, PageRequest};
use datahost_plugin_api::params::{clip, ParamText};
use datahost_plugin_api::{ApiError, ApiSchema, ParamKind, ParamSpec, Params, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;

use crate::data::{normalize_name, rank, Entity, Index, MatchRank};

pub const DEFAULT_LIMIT: usize = 20;
/// SPEC: `limit` maximum 50.
pub const MAX_LIMIT: usize = 50;
pub const MAX_QUERY_CHARS: usize = 200;
pub const UEI_LEN: usize = 12;

/// Query parameters of `GET /v1/sam-entities`.
#[derive(Params)]
struct Search {
    /// Legal business name or part of it, case-insensitive (punctuation is ignored). Ranked: exact name, then names
    /// starting with q, then names with a word starting with q, then names containing q inside a word; ties in name
    /// order.
    #[param(example = "acme", max_chars = MAX_QUERY_CHARS)]
    q: Option<String>,
    /// SAM.gov Unique Entity ID: exactly 12 letters or digits, case-insensitive.
    #[param(example = "DEMOAW1YZ6G9")]
    uei: Option<Uei>,
    /// Only registrations with this status: `Active` or `Inactive`, the form entities carry (matched
    /// case-insensitively, so `active` works too).
    status: Option<Status>,
    #[param(page(default = DEFAULT_LIMIT, max = MAX_LIMIT, of = "entities"))]
    page: PageRequest,
}

/// A Unique Entity ID as given (matched case-insensitively).
struct Uei(String);

impl ParamText for Uei {
    const KIND: ParamKind = ParamKind::String;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        let u = raw.trim();
        if u.len() != UEI_LEN || !u.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(ApiError::bad_request(format!(
                "{name} must be exactly {UEI_LEN} letters or digits (a SAM.gov Unique Entity ID), got `{}`",
                clip(u)
            )));
        }
        Ok(Uei(u.to_string()))
    }
    fn document(spec: &mut ParamSpec) {
        spec.schema = Some(serde_json::json!({"pattern": "^[A-Za-z0-9]{12}$"}));
    }
}

/// A registration status filter: `true` for Active.
struct Status(bool);

impl ParamText for Status {
    const KIND: ParamKind = ParamKind::String;
    fn parse(name: &str, raw: &str) -> Result<Self, ApiError> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "active" => Ok(Status(true)),
            "inactive" => Ok(Status(false)),
            _ => Err(ApiError::bad_request(format!("{name} must be active or inactive"))),
        }
    }
    fn document(spec: &mut ParamSpec) {
        spec.schema = Some(serde_json::json!({"enum": ["Active", "Inactive"]}));
    }
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Search::specs())
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
    let Search { q, uei, status, page } = Search::parse(request.params())?;
    let q_key = q.as_deref().map(normalize_name);
    if q_key.as_deref() == Some("") {
        return Err(ApiError::bad_request("q must contain at least one letter or digit"));
    }
    let status = status.map(|s| s.0);
    let uei = uei.map(|u| u.0);

    // With `q`, by rank, ties in name order; without, in name order.
    let mut matches: Vec<(EntityKey, &Entity)> = index
        .entities
        .iter()
        .filter(|e| status.is_none_or(|want| e.active == want))
        .filter(|e| uei.as_deref().is_none_or(|u| e.entity.uei.eq_ignore_ascii_case(u)))
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
        query: q.as_deref().or(uei.as_deref()).unwrap_or(""),
        as_of: &index.meta.as_of,
        total,
        count: entities.len(),
        entities,
        next: page.next.as_deref(),
    };
    paging::respond(&body, body.next)
}
