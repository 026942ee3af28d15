//! deeds (beta): county clerk deed index, searched by grantor, grantee or property address.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.
//! The search rule, county slugs and the per-county index are SDK code (`address`, `county`), shared with
//! the liens dataset.

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::county::CountyIndex;
use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "deeds";
pub const ROUTE: &str = "/v1/deeds";

/// The plugin: an immutable per-county index over one snapshot of the deed index.
pub struct Deeds {
    index: CountyIndex<data::Deed>,
}

impl Plugin for Deeds {
    fn manifest() -> Manifest {
        Manifest {
            slug: SLUG.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            maturity: Maturity::Beta,
            description: "County clerk deed index search by grantor, grantee or address (county backfill incomplete)."
                .into(),
            routes: vec![routes::route_spec()],
            openapi: schema::fragment(),
            capabilities: vec![],
            datasets: vec![SLUG.into()],
            reads: vec![],
        }
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/deeds.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { index: data::index(snapshot) })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(Deeds);
