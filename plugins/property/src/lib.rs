//! property (beta): county assessor records looked up by normalised street address.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records, matching rule and index, `seed/` the shipped snapshot,
//! `tests.rs`. Address normalisation and county slugs are SDK code (`address`, `county`), shared with the
//! deeds and liens datasets.

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "property";
pub const ROUTE: &str = "/v1/property";

/// The plugin: an immutable index over one snapshot of the assessor records.
pub struct Property {
    index: data::Index,
}

impl Plugin for Property {
    fn manifest() -> Manifest {
        Manifest {
            slug: SLUG.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            maturity: Maturity::Beta,
            description: "County assessor property records by street address (county backfill incomplete).".into(),
            routes: vec![routes::route_spec()],
            openapi: schema::fragment(),
            capabilities: vec![],
            datasets: vec![SLUG.into()],
            reads: vec![],
        }
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/property.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { index: data::Index::new(snapshot) })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(Property);
