//! The dataset's records as stored in the records engine (`{meta, entities}`), and the name index built from
//! them once in `init`: entities in name order with a normalised match key, plus the ranking of name matches.

use datahost_plugin_api::ApiSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub source: String,
    pub source_url: String,
    pub caveat: String,
    /// Date the statuses refer to: a registration is Active until its expirationDate.
    pub as_of: String,
    pub generated_at: String,
}

/// One SAM.gov entity registration.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "SamEntity")]
pub struct Entity {
    /// Legal business name.
    pub name: String,
    /// SAM.gov Unique Entity ID (12 characters).
    #[schema(pattern = "^[A-Z0-9]{12}$")]
    pub uei: String,
    /// Commercial and Government Entity code (5 characters).
    #[schema(pattern = "^[A-Z0-9]{5}$")]
    pub cage_code: String,
    /// Registration status: Active until expirationDate, Inactive after it (registrations are renewed yearly).
    #[schema(with = status_schema)]
    pub status: String,
    /// City of the physical address.
    pub city: String,
    /// State or province code of the physical address.
    pub state: String,
    /// Country code of the physical address (ISO 3166-1 alpha-3).
    pub country: String,
    /// Date the current registration was activated.
    #[schema(format = "date")]
    pub registration_date: String,
    /// Date the registration expires (or expired, for Inactive ones).
    #[schema(format = "date")]
    pub expiration_date: String,
    /// Business types and socio-economic certifications, for example Small Business, 8(a) Program Participant.
    pub business_types: Vec<String>,
}

fn status_schema() -> serde_json::Value {
    datahost_plugin_api::openapi::schema::string_enum(&["Active", "Inactive"])
}

#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    pub meta: Meta,
    pub entities: Vec<Entity>,
}

/// How well a name matches a query, best first (the derive orders the variants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchRank {
    /// The whole name equals the query.
    Exact,
    /// The name starts with the query.
    Prefix,
    /// The query starts at a word inside the name (`acme` in `Pinnacle Acme Solutions`).
    WordContains,
    /// The query appears inside a word (`acme` in `Tacmetrics`).
    Contains,
}

/// Matching key of a name or query: lower-case, punctuation other than `&` turned into spaces, runs of spaces
/// collapsed. So `acme inc` finds `Acme, Inc.` and `at&t` keeps its ampersand.
pub fn normalize_name(text: &str) -> String {
    let mapped: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() || c == '&' { c } else { ' ' })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The rank of `name_key` for `query_key` (both normalised), or `None` when the name does not contain it.
pub fn rank(name_key: &str, query_key: &str) -> Option<MatchRank> {
    if query_key.is_empty() {
        return None;
    }
    if name_key == query_key {
        return Some(MatchRank::Exact);
    }
    if name_key.starts_with(query_key) {
        return Some(MatchRank::Prefix);
    }
    let mut best = None;
    for (at, _) in name_key.match_indices(query_key) {
        if name_key[..at].ends_with(' ') {
            return Some(MatchRank::WordContains);
        }
        best = Some(MatchRank::Contains);
    }
    best
}

pub struct IndexedEntity {
    pub entity: Entity,
    pub name_key: String,
    pub active: bool,
}

/// Entities in name order (case-insensitive, then UEI), with match keys computed once.
pub struct Index {
    pub meta: Meta,
    pub entities: Vec<IndexedEntity>,
}

impl Index {
    pub fn new(snapshot: Snapshot) -> Result<Self, UnknownStatus> {
        let mut entities = Vec::with_capacity(snapshot.entities.len());
        for mut entity in snapshot.entities {
            let active = match entity.status.to_ascii_lowercase().as_str() {
                "active" => true,
                "inactive" => false,
                _ => return Err(UnknownStatus { uei: entity.uei, status: entity.status }),
            };
            // Serve the one spelling SPEC shows, whatever the snapshot used.
            entity.status = if active { "Active" } else { "Inactive" }.into();
            entity.uei = entity.uei.to_ascii_uppercase();
            entities.push(IndexedEntity { name_key: normalize_name(&entity.name), active, entity });
        }
        entities.sort_by(|a, b| name_order(&a.entity, &b.entity));
        Ok(Self { meta: snapshot.meta, entities })
    }
}

/// A snapshot entity whose status is neither Active nor Inactive (which fails `init`): what it is served as
/// would be a guess.
#[derive(Debug, thiserror::Error)]
#[error("entity {uei} has status `{status}`, not Active or Inactive")]
pub struct UnknownStatus {
    pub uei: String,
    pub status: String,
}

/// Name order: case-insensitive name, then the name as written, then UEI (total and deterministic).
pub fn name_order(a: &Entity, b: &Entity) -> std::cmp::Ordering {
    (a.name.to_lowercase(), &a.name, &a.uei).cmp(&(b.name.to_lowercase(), &b.name, &b.uei))
}
