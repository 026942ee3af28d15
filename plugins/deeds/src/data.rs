//! The deed index as stored in the records engine, and the two ways of searching it: the per-county index
//! built in memory at `init` (embedded engine), or the plugin's PostgreSQL table (engine mode), which holds
//! the seed rows plus any loaded another way (`source` = `synthetic`, `ingest`...).

use datahost_plugin_api::ApiSchema;
use datahost_plugin_api::Migration;
use datahost_plugin_kit::county::{self, clerk_key, ClerkKey, ClerkTable, CountyCoverage, CountyIndex};
use datahost_plugin_kit::snapshot::SnapshotMeta;
use datahost_plugin_kit::sql::{SeedTable, SEED_STATE_TABLE};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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

/// Deeds by county, newest recording first (equal dates by instrument number, as the SQL orders them),
/// matched on grantor, grantee and property address tokens.
pub fn index(snapshot: Snapshot) -> CountyIndex<Deed> {
    CountyIndex::new(&snapshot.counties, snapshot.deeds, |d| &d.county, key, |d| d.search_fields().to_vec())
}

/// A deed's place in every answer: newest recording first, equal dates by instrument number (as the SQL orders them).
pub fn key(r: &Deed) -> ClerkKey {
    clerk_key(&r.recorded_date, &r.instrument_number)
}

/// Bump when the rows derived from an unchanged snapshot change (columns, tokens), so `init` re-syncs.
pub const LAYOUT_VERSION: &str = "deeds-1";

/// The deeds table's seed columns.
pub const DEEDS_TABLE: SeedTable = SeedTable {
    name: "deeds",
    columns: &[
        ("county", "text"),
        ("instrument_number", "text"),
        ("doc_type", "text"),
        ("grantor", "text"),
        ("grantee", "text"),
        ("legal_description", "text"),
        ("source_url", "text"),
        ("recorded_date", "date"),
        ("property_address", "text"),
        ("search_tokens", "text[]"),
    ],
    key: &["county", "instrument_number"],
};

/// The plugin's tables in its own schema. `search_tokens` holds the deed's canonical grantor, grantee and
/// address tokens qualified by county (`travis-tx:OBRIEN`, see `county::record_tokens`): the GIN index
/// answers "every query token matches" within one county in one lookup, and the matches are sorted
/// newest first in the same pass (a top-N sort). The (county, date, number) btree serves county-scoped
/// scans in that order (browsing, backfill checks, deleting a county's rows); the search does not need it.
pub fn migrations() -> Vec<Migration> {
    vec![Migration {
        id: 1,
        name: "deeds, counties and seed state".into(),
        sql: format!(
            "{SEED_STATE_TABLE}
            {counties}
            CREATE TABLE IF NOT EXISTS deeds (
                county            text NOT NULL,
                instrument_number text NOT NULL,
                doc_type          text NOT NULL,
                grantor           text NOT NULL,
                grantee           text NOT NULL,
                legal_description text NOT NULL,
                source_url        text NOT NULL,
                recorded_date     date NOT NULL,
                property_address  text NOT NULL,
                search_tokens     text[] NOT NULL,
                source            text NOT NULL DEFAULT 'seed',
                PRIMARY KEY (county, instrument_number)
            );
            CREATE INDEX IF NOT EXISTS deeds_search_tokens ON deeds USING gin (search_tokens);
            CREATE INDEX IF NOT EXISTS deeds_county_recorded
                ON deeds (county, recorded_date DESC, instrument_number COLLATE \"C\");",
            counties = county::COUNTIES_TABLE_SQL,
        ),
    }]
}

/// The row of one seed deed in the deeds table.
pub fn deed_row(d: &Deed) -> Value {
    let county = d.county.to_ascii_lowercase();
    json!({
        "search_tokens": county::record_tokens(&county, d.search_fields()),
        "county": county,
        "instrument_number": d.instrument_number,
        "doc_type": d.doc_type,
        "grantor": d.grantor,
        "grantee": d.grantee,
        "legal_description": d.legal_description,
        "source_url": d.source_url,
        "recorded_date": d.recorded_date,
        "property_address": d.property_address,
    })
}

/// The columns of a search answer, named as the JSON fields of [`Deed`].
pub const SEARCH: ClerkTable<'static> = ClerkTable {
    table: "deeds",
    select: "instrument_number AS \"instrumentNumber\", doc_type AS \"docType\", grantor, grantee, \
             legal_description AS \"legalDescription\", county, source_url AS \"sourceUrl\", \
             recorded_date AS \"recordedDate\", property_address AS \"propertyAddress\"",
    date_column: "recorded_date",
    key_column: "instrument_number",
};
