//! The assessor dataset, the address matching rule, and the two ways of looking an address up: the in-memory
//! index built from the demo snapshot once at `init` (in both records engines), or the ingested parcels in the
//! records engine, whose declared index on the normalised street line finds the few candidates that the same
//! matching rule then checks. The plugin writes no SQL.

use std::collections::BTreeSet;

use datahost_plugin_api::ingest::{ingested_info, IngestedInfo};
use datahost_plugin_api::query::RecordsQuery;
use datahost_plugin_api::{ApiSchema, BoxError, Host, HostError};
use datahost_plugin_kit::address::{canonical_tokens, TokenSet};
use datahost_plugin_kit::county::{state_name, CountyCoverage};
use datahost_plugin_kit::error::StoredError;
use datahost_plugin_kit::snapshot::SnapshotMeta;

use crate::ingest::{COUNTY_FIELD, PARCELS, STREET_KEY_FIELD};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The assessor record of one parcel, as SPEC's `record` object lists it.
// A field the county's source does not publish (PLUTO has no bedrooms, no sale date, no market value...) is null,
// never a made-up zero; the demo seed fills every field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "PropertyRecord")]
pub struct PropertyRecord {
    /// Year the main building was built; null when the county's source does not publish it.
    pub year_built: Option<u32>,
    /// Bedrooms; null when the county's source does not publish it.
    pub bedrooms: Option<u32>,
    /// Full baths count 1, half baths 0.5; null when the county's source does not publish it.
    pub bathrooms: Option<f64>,
    /// Building area in square feet (living area where the source gives it); null when the county's source does not publish it.
    pub square_footage: Option<u32>,
    /// Lot area in acres; 0 for condominium units; null when the county's source does not publish it.
    pub lot_size: Option<f64>,
    /// The assessor's parcel number or property ID in its own format.
    pub assessor_id: String,
    /// Legal description; null when the county's source does not publish it.
    pub legal_description: Option<String>,
    /// Subdivision or plat; null when the county's source does not publish it.
    pub subdivision: Option<String>,
    /// Zoning district; null when the county's source does not publish it.
    pub zoning: Option<String>,
    /// Architectural style; null when the county's source does not publish it.
    pub architecture_type: Option<String>,
    /// Exterior wall material; null when the county's source does not publish it.
    pub exterior_type: Option<String>,
    /// County slug, for example travis-tx.
    pub county: String,
    /// Property or building class in the source's own codes; null when the county's source does not publish it.
    pub property_type: Option<String>,
    /// Owner of record on the assessor roll.
    pub owner_name: String,
    /// Source system and record key, for example TCAD:284611 or NYC-PLUTO:2054800111.
    pub source_id: String,
    /// The record's public page (the assessor's or the county's lot viewer).
    pub source_url: String,
    /// Date of the last recorded sale; null when the county's source does not publish it.
    #[schema(format = "date")]
    pub last_sale_date: Option<String>,
    /// Monthly HOA dues in USD; null when there is no association or the source does not say.
    pub hoa_fee: Option<f64>,
    /// Assessed land value in USD; null when the county's source does not publish it.
    pub land_value: Option<f64>,
    /// Assessed improvement value in USD; null when the county's source does not publish it.
    pub improvement_value: Option<f64>,
    /// Market value in USD (land plus improvements); null when the county's source does not publish it.
    pub market_value: Option<f64>,
    /// When the record was read from its source (for ingested records, the dataset's last ingest).
    #[serde(default)]
    #[schema(format = "date-time")]
    pub fetched_at: String,
}

/// One parcel: its situs address and its assessor record.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Parcel {
    /// Street line including any unit, as the assessor writes it.
    pub street: String,
    pub city: String,
    pub state: String,
    pub zip: String,
    #[serde(flatten)]
    pub record: PropertyRecord,
}

impl Parcel {
    pub fn full_address(&self) -> String {
        format!("{}, {}, {} {}", self.street, self.city, self.state, self.zip)
    }
}

/// The snapshot document: `{meta, counties, parcels}`; `counties` lists the onboarded counties.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    /// Required so that a snapshot without its source and demo caveat fails to load; not served.
    #[allow(dead_code)]
    pub meta: SnapshotMeta,
    pub counties: Vec<CountyCoverage>,
    pub parcels: Vec<Parcel>,
}

/// Match keys of one parcel, computed once.
pub struct AddressKey {
    /// Canonical tokens of the street line (house number, directionals, name, suffix, unit).
    pub street: Vec<String>,
    /// Words that may follow the street line in a query: city, state code and name, ZIP, country.
    pub locality: TokenSet,
}

impl AddressKey {
    pub fn new(parcel: &Parcel) -> Self {
        let state = state_name(&parcel.state).unwrap_or("");
        let locality = TokenSet::from_fields([parcel.city.as_str(), &parcel.state, state, &parcel.zip, "US USA"]);
        Self { street: canonical_tokens(&parcel.street), locality }
    }
}

/// Whether canonical query tokens name this parcel: its whole street line first (so `100 Main St` does not
/// match `100 Main St Unit 4`, nor `1100 Main St`), then only words of its locality in any order — city,
/// state, ZIP (a ZIP+4 suffix is accepted after the ZIP) and country.
pub fn address_matches(query: &[String], key: &AddressKey) -> bool {
    let n = key.street.len();
    if n == 0 || query.len() < n || query[..n] != key.street[..] {
        return false;
    }
    let rest = &query[n..];
    rest.iter().enumerate().all(|(i, token)| {
        key.locality.contains(token) || (is_plus4(token) && i > 0 && key.locality.contains(&rest[i - 1]))
    })
}

fn is_plus4(token: &str) -> bool {
    token.len() == 4 && token.bytes().all(|b| b.is_ascii_digit())
}

pub struct Index {
    onboarded: BTreeSet<String>,
    /// Parcels ordered by county slug, street and assessor ID (byte order), so an unscoped lookup picks
    /// deterministically.
    parcels: Vec<(Parcel, AddressKey)>,
}

/// The parcels a lookup found.
pub struct Lookup<'a> {
    pub matches: Vec<&'a Parcel>,
}

impl Index {
    pub fn new(snapshot: Snapshot) -> Self {
        let onboarded: BTreeSet<String> = snapshot.counties.iter().map(|c| c.slug.to_ascii_lowercase()).collect();
        let mut parcels: Vec<(Parcel, AddressKey)> = snapshot
            .parcels
            .into_iter()
            .filter(|p| onboarded.contains(&p.record.county))
            .map(|p| {
                let key = AddressKey::new(&p);
                (p, key)
            })
            .collect();
        parcels.sort_by(|(a, _), (b, _)| sort_key(a).cmp(&sort_key(b)));
        Self { onboarded, parcels }
    }

    pub fn is_onboarded(&self, county: &str) -> bool {
        self.onboarded.contains(county)
    }

    /// Every parcel the canonical query tokens name, in `county` when given, in [`sort_key`] order.
    pub fn lookup(&self, query: &[String], county: Option<&str>) -> Lookup<'_> {
        let matches = self
            .parcels
            .iter()
            .filter(|(p, _)| county.is_none_or(|c| p.record.county == c))
            .filter(|(_, key)| address_matches(query, key))
            .map(|(p, _)| p)
            .collect();
        Lookup { matches }
    }
}

/// The order of parcels matching one address: county, street, assessor ID (byte order).
fn sort_key(p: &Parcel) -> (&str, &str, &str) {
    (&p.record.county, &p.street, &p.record.assessor_id)
}

/// The street keys a query can match: each prefix of its canonical tokens, joined as
/// [`normalize_address`] joins a parcel's street line. A parcel's whole street line must open the query,
/// so these are the only keys worth looking up.
pub fn street_key_candidates(query: &[String]) -> Vec<String> {
    (1..=query.len()).map(|n| query[..n].join(" ")).collect()
}

/// Ingested assessor records (table-backed): the parcels stay in the records engine and each lookup reads
/// the few whose street key a query can name (`streetKey IN` the [`street_key_candidates`]); the same
/// matching rule as in memory then checks them. The onboarded counties are those with ingested parcels.
pub struct Stored {
    host: Host,
    onboarded: BTreeSet<String>,
    /// The dataset's last ingest (RFC 3339), served as each record's `fetchedAt`.
    fetched_at: String,
}

impl Stored {
    pub fn load(info: &IngestedInfo, host: Host) -> Result<Self, HostError> {
        let query = RecordsQuery::new(crate::SLUG, PARCELS).distinct(COUNTY_FIELD);
        let onboarded =
            host.query_all_records(&query)?.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect();
        Ok(Self { host, onboarded, fetched_at: info.last_ingest_at.clone() })
    }

    pub fn is_onboarded(&self, county: &str) -> bool {
        self.onboarded.contains(county)
    }

    /// The parcels the canonical query tokens name, in `county` when given, in [`sort_key`] order (then by
    /// source, so two sources' rows of one lot come out in a fixed order).
    pub fn lookup(&self, query: &[String], county: Option<&str>) -> Result<Vec<Parcel>, StoredError> {
        let keys = street_key_candidates(query).into_iter().map(Value::from).collect();
        let rows =
            self.host.query_all_records(&RecordsQuery::new(crate::SLUG, PARCELS).any_of(STREET_KEY_FIELD, keys))?;
        let mut found = Vec::new();
        for row in rows {
            let mut parcel: Parcel =
                serde_json::from_value(row).map_err(|source| StoredError::Unreadable { what: "parcel", source })?;
            if county.is_some_and(|c| parcel.record.county != c) || !address_matches(query, &AddressKey::new(&parcel)) {
                continue;
            }
            parcel.record.fetched_at.clone_from(&self.fetched_at);
            found.push(parcel);
        }
        found.sort_by(|a, b| (sort_key(a), &a.record.source_id).cmp(&(sort_key(b), &b.record.source_id)));
        Ok(found)
    }
}

/// Where the parcels come from: the demo seed (in memory) until real assessor exports are ingested, then only
/// the ingested ones (never both).
pub enum Parcels {
    Seed(Index),
    Stored(Stored),
}

impl Parcels {
    pub fn load(host: Host) -> Result<Self, BoxError> {
        if let Some(info) = ingested_info(&host, crate::SLUG)? {
            return Ok(Self::Stored(Stored::load(&info, host)?));
        }
        let snapshot: Snapshot = host.load_dataset(crate::SLUG)?;
        Ok(Self::Seed(Index::new(snapshot)))
    }
}
