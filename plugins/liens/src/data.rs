//! The lien of the demo snapshot and its per-county index, built in memory at `init` in both records engines
//! (ingested clerk records are searched in the engine instead, `clerk::ClerkStore`).

use datahost_plugin_api::ApiSchema;
use datahost_plugin_kit::county::{clerk_key, ClerkKey, CountyCoverage, CountyIndex};
use datahost_plugin_kit::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};

/// The lien types the clerk indexes, as SPEC names them.
pub const LIEN_TYPES: [&str; 3] = ["mechanic's", "tax", "judgment"];

/// One lien with its release, if any.
// `debtor`, `releaseDate`, `propertyAddress` and `sourceUrl` are served as additive fields.
#[derive(Debug, Clone, Serialize, Deserialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "Lien")]
pub struct Lien {
    /// The clerk's instrument number of the lien.
    pub instrument_number: String,
    /// mechanic's, tax or judgment.
    #[schema(with = lien_type_schema)]
    pub lien_type: String,
    /// The lien holder: contractor, taxing authority or judgment creditor.
    pub claimant: String,
    /// Instrument number of the recorded release; empty string while not released.
    pub release_instrument: String,
    /// County slug.
    pub county: String,
    #[schema(format = "date")]
    pub filed_date: String,
    /// Amount claimed in USD; null when the clerk's index records none.
    pub amount: Option<f64>,
    /// True once a release has been recorded in the same county. For ingested clerk records (ACRIS), releases
    /// are not yet linked to the liens they release: false.
    pub released: bool,
    /// The owner the lien is filed against.
    #[schema(optional)]
    pub debtor: String,
    /// Recording date of the release; null while not released.
    #[schema(optional, format = "date")]
    pub release_date: Option<String>,
    /// Situs address of the encumbered property.
    #[schema(optional)]
    pub property_address: String,
    /// The lien's page in the clerk's search.
    #[schema(optional)]
    pub source_url: String,
}

fn lien_type_schema() -> serde_json::Value {
    datahost_plugin_api::openapi::schema::string_enum(&LIEN_TYPES)
}

impl Lien {
    /// The texts a query's tokens are matched against.
    pub fn search_fields(&self) -> [&str; 3] {
        [&self.claimant, &self.debtor, &self.property_address]
    }
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

/// Liens by county, newest filing first (equal dates by instrument number, as the SQL orders them), matched
/// on claimant, debtor and property address tokens.
pub fn index(snapshot: Snapshot) -> CountyIndex<Lien> {
    CountyIndex::new(&snapshot.counties, snapshot.liens, |l| &l.county, key, |l| l.search_fields().to_vec())
}

/// A lien's place in every answer: newest filing first, equal dates by instrument number (as the SQL orders them).
pub fn key(r: &Lien) -> ClerkKey {
    clerk_key(&r.filed_date, &r.instrument_number)
}
