//! The deed of the demo snapshot and its per-county index, built in memory at `init` in both records engines
//! (ingested clerk records are searched in the engine instead, `clerk::ClerkStore`).

use datahost_plugin_api::ApiSchema;
use datahost_plugin_kit::county::{clerk_key, ClerkKey, CountyCoverage, CountyIndex};
use datahost_plugin_kit::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

/// One recorded instrument of the grantor/grantee index.
// `propertyAddress` is served as an additive field so a caller sees why an address query matched.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "Deed")]
pub struct Deed {
    /// The clerk's instrument or document number.
    pub instrument_number: String,
    /// Instrument type, for example WARRANTY DEED or DEED OF TRUST.
    pub doc_type: String,
    /// Party conveying or encumbering the property.
    pub grantor: String,
    /// Party receiving (or the lender, for a deed of trust or mortgage).
    pub grantee: String,
    pub legal_description: String,
    /// County slug.
    pub county: String,
    /// The instrument's page in the clerk's search.
    pub source_url: String,
    #[schema(format = "date")]
    pub recorded_date: String,
    /// Situs address of the property the instrument concerns.
    #[schema(optional)]
    pub property_address: String,
}

impl Deed {
    /// The texts a query's tokens are matched against.
    pub fn search_fields(&self) -> [&str; 3] {
        [&self.grantor, &self.grantee, &self.property_address]
    }
}

/// The snapshot document: `{meta, counties, deeds}`; `counties` lists the onboarded counties.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    /// Required so that a snapshot without its source and demo caveat fails to load; not served.
    #[allow(dead_code)]
    pub meta: SnapshotMeta,
    pub counties: Vec<CountyCoverage>,
    pub deeds: Vec<Deed>,
}

/// Deeds by county, newest recording first (equal dates by instrument number),
/// matched on grantor, grantee and property address tokens.
pub fn index(snapshot: Snapshot) -> CountyIndex<Deed> {
    CountyIndex::new(&snapshot.counties, snapshot.deeds, |d| &d.county, key, |d| d.search_fields().to_vec())
}

/// A deed's place in every answer: newest recording first, equal dates by instrument number.
pub fn key(r: &Deed) -> ClerkKey {
    clerk_key(&r.recorded_date, &r.instrument_number)
}
