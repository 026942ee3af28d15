//! property (beta): county assessor records looked up by normalised street address.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records, matching rule and index, `seed/` the shipped snapshot,
//! `tests.rs`. Address normalisation and county slugs are SDK code (`address`, `county`), shared with the
//! deeds and liens datasets. In engine mode (PostgreSQL) the parcels live in the plugin's own table, looked
//! up by their normalised street line (`data::migrations`, `data::LOOKUP_SQL`).

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::county;
use datahost_plugin_api::sql::{load_store, Store};
use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Migration, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "property";
pub const ROUTE: &str = "/v1/property";

/// The plugin: an immutable index over one snapshot of the assessor records, or (engine mode) the handle on
/// the plugin's table.
pub struct Property {
    store: Store<data::Index>,
}

impl Plugin for Property {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Beta,
            "County assessor property records by street address (county backfill incomplete).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/property.json"))]
    }

    fn migrations() -> Vec<Migration> {
        data::migrations()
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let store = load_store(
            &ctx.host,
            SLUG,
            data::LAYOUT_VERSION,
            |s: &data::Snapshot| {
                vec![
                    (county::COUNTIES, county::coverage_rows(&s.counties)),
                    (data::PARCELS_TABLE, s.parcels.iter().map(data::parcel_row).collect()),
                ]
            },
            data::Index::new,
        )?;
        Ok(Self { store })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.store, request)
    }

    /// Answers from the engine's table are live (rows are added without a new `init`): never reused.
    fn cache_responses(&self) -> bool {
        matches!(self.store, Store::Memory(_))
    }
}

export_plugin!(Property);
