//! The deed index as stored in the records engine and the per-county search index built from it at `init`.

use datahost_plugin_api::county::{CountyCoverage, CountyIndex};
use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

/// One recorded instrument of the grantor/grantee index. `propertyAddress` is served as an additive field
/// so a caller sees why an address query matched.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deed {
    pub instrument_number: String,
    pub doc_type: String,
    pub grantor: String,
    pub grantee: String,
    pub legal_description: String,
    pub county: String,
    pub source_url: String,
    pub recorded_date: String,
    pub property_address: String,
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

/// Deeds by county, newest recording first, matched on grantor, grantee and property address tokens.
pub fn index(snapshot: Snapshot) -> CountyIndex<Deed> {
    CountyIndex::new(
        &snapshot.counties,
        snapshot.deeds,
        |d| &d.county,
        |d| &d.recorded_date,
        |d| vec![&d.grantor, &d.grantee, &d.property_address],
    )
}
