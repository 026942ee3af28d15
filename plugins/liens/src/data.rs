//! The lien index as stored in the records engine and the per-county search index built from it at `init`.

use datahost_plugin_api::county::{CountyCoverage, CountyIndex};
use datahost_plugin_api::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

/// The lien types the clerk indexes, as SPEC names them.
pub const LIEN_TYPES: [&str; 3] = ["mechanic's", "tax", "judgment"];

/// One lien with its release, if any. `debtor`, `releaseDate`, `propertyAddress` and `sourceUrl` are
/// served as additive fields.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lien {
    pub instrument_number: String,
    pub lien_type: String,
    pub claimant: String,
    /// Instrument number of the release; empty while the lien is not released.
    pub release_instrument: String,
    pub county: String,
    pub filed_date: String,
    pub amount: f64,
    pub released: bool,
    pub debtor: String,
    pub release_date: Option<String>,
    pub property_address: String,
    pub source_url: String,
}

/// The snapshot document: `{meta, counties, liens}`; `counties` lists the onboarded counties.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    /// Required so that a snapshot without its source and demo caveat fails to load; not served.
    #[allow(dead_code)]
    pub meta: SnapshotMeta,
    pub counties: Vec<CountyCoverage>,
    pub liens: Vec<Lien>,
}

/// Liens by county, newest filing first, matched on claimant, debtor and property address tokens.
pub fn index(snapshot: Snapshot) -> CountyIndex<Lien> {
    CountyIndex::new(
        &snapshot.counties,
        snapshot.liens,
        |l| &l.county,
        |l| &l.filed_date,
        |l| vec![&l.claimant, &l.debtor, &l.property_address],
    )
}
