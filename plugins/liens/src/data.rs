//! The lien index as stored in the records engine, and the two ways of searching it: the per-county index
//! built in memory at `init` (embedded engine), or the plugin's PostgreSQL table (engine mode), which holds
//! the seed rows plus any loaded another way (`source` = `synthetic`, `ingest`...).

use datahost_plugin_api::ApiSchema;
use datahost_plugin_api::Migration;
use datahost_plugin_kit::county::{self, clerk_key, ClerkKey, ClerkTable, CountyCoverage, CountyIndex};
use datahost_plugin_kit::snapshot::SnapshotMeta;
use datahost_plugin_kit::sql::{SeedTable, SEED_STATE_TABLE};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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

/// Bump when the rows derived from an unchanged snapshot change (columns, tokens), so `init` re-syncs.
pub const LAYOUT_VERSION: &str = "liens-1";

/// The liens table's seed columns.
pub const LIENS_TABLE: SeedTable = SeedTable {
    name: "liens",
    columns: &[
        ("county", "text"),
        ("instrument_number", "text"),
        ("lien_type", "text"),
        ("claimant", "text"),
        ("release_instrument", "text"),
        ("filed_date", "date"),
        ("amount", "float8"),
        ("released", "boolean"),
        ("debtor", "text"),
        ("release_date", "date"),
        ("property_address", "text"),
        ("source_url", "text"),
        ("search_tokens", "text[]"),
    ],
    key: &["county", "instrument_number"],
};

/// The plugin's tables in its own schema. `search_tokens` holds the lien's canonical claimant, debtor and
/// address tokens qualified by county (`travis-tx:OBRIEN`, see `county::record_tokens`): the GIN index
/// answers "every query token matches" within one county in one lookup, and the matches are sorted
/// newest first in the same pass (a top-N sort). The (county, date, number) btree serves county-scoped
/// scans in that order (browsing, backfill checks, deleting a county's rows); the search does not need it.
pub fn migrations() -> Vec<Migration> {
    vec![Migration {
        id: 1,
        name: "liens, counties and seed state".into(),
        sql: format!(
            "{SEED_STATE_TABLE}
            {counties}
            CREATE TABLE IF NOT EXISTS liens (
                county             text NOT NULL,
                instrument_number  text NOT NULL,
                lien_type          text NOT NULL,
                claimant           text NOT NULL,
                release_instrument text NOT NULL,
                filed_date         date NOT NULL,
                amount             float8 NOT NULL,
                released           boolean NOT NULL,
                debtor             text NOT NULL,
                release_date       date,
                property_address   text NOT NULL,
                source_url         text NOT NULL,
                search_tokens      text[] NOT NULL,
                source             text NOT NULL DEFAULT 'seed',
                PRIMARY KEY (county, instrument_number)
            );
            CREATE INDEX IF NOT EXISTS liens_search_tokens ON liens USING gin (search_tokens);
            CREATE INDEX IF NOT EXISTS liens_county_filed
                ON liens (county, filed_date DESC, instrument_number COLLATE \"C\");",
            counties = county::COUNTIES_TABLE_SQL,
        ),
    }]
}

/// The row of one seed lien in the liens table.
pub fn lien_row(l: &Lien) -> Value {
    let county = l.county.to_ascii_lowercase();
    json!({
        "search_tokens": county::record_tokens(&county, l.search_fields()),
        "county": county,
        "instrument_number": l.instrument_number,
        "lien_type": l.lien_type,
        "claimant": l.claimant,
        "release_instrument": l.release_instrument,
        "filed_date": l.filed_date,
        "amount": l.amount,
        "released": l.released,
        "debtor": l.debtor,
        "release_date": l.release_date,
        "property_address": l.property_address,
        "source_url": l.source_url,
    })
}

/// The columns of a search answer, named as the JSON fields of [`Lien`].
pub const SEARCH: ClerkTable<'static> = ClerkTable {
    table: "liens",
    select: "instrument_number AS \"instrumentNumber\", lien_type AS \"lienType\", claimant, \
             release_instrument AS \"releaseInstrument\", county, filed_date AS \"filedDate\", amount, released, \
             debtor, release_date AS \"releaseDate\", property_address AS \"propertyAddress\", \
             source_url AS \"sourceUrl\"",
    date_column: "filed_date",
    key_column: "instrument_number",
};
