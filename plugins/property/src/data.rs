//! The assessor dataset as stored in the records engine, the address matching rule, and the in-memory
//! index built from the snapshot once at `init`.

use std::collections::BTreeSet;

use datahost_plugin_api::address::{canonical_tokens, TokenSet};
use datahost_plugin_api::county::{state_name, CountyCoverage};
use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

/// The assessor record exactly as SPEC's `record` object lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PropertyRecord {
    pub year_built: u32,
    pub bedrooms: u32,
    pub bathrooms: f64,
    pub square_footage: u32,
    /// Acres.
    pub lot_size: f64,
    pub assessor_id: String,
    pub legal_description: String,
    pub subdivision: String,
    pub zoning: String,
    pub architecture_type: String,
    pub exterior_type: String,
    /// County slug, as in the request.
    pub county: String,
    pub property_type: String,
    pub owner_name: String,
    pub source_id: String,
    pub source_url: String,
    pub last_sale_date: String,
    /// Monthly HOA dues in USD; null when the parcel has no association.
    pub hoa_fee: Option<f64>,
    pub land_value: f64,
    pub improvement_value: f64,
    pub market_value: f64,
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
    /// Parcels ordered by county slug, then street, so an unscoped lookup picks deterministically.
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
        parcels.sort_by(|(a, _), (b, _)| (&a.record.county, &a.street).cmp(&(&b.record.county, &b.street)));
        Self { onboarded, parcels }
    }

    pub fn is_onboarded(&self, county: &str) -> bool {
        self.onboarded.contains(county)
    }

    /// Every parcel the canonical query tokens name, in `county` when given.
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
