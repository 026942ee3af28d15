//! liens (beta): county clerk lien index (mechanic's, tax and judgment liens and their releases), searched by
//! claimant, debtor or property address.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.
//! The search rule, county slugs and the per-county index are SDK code (`address`, `county`), shared with
//! the deeds dataset.

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::county::CountyIndex;
use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "liens";
pub const ROUTE: &str = "/v1/liens";

/// The plugin: an immutable per-county index over one snapshot of the lien index.
pub struct Liens {
    index: CountyIndex<data::Lien>,
}

impl Plugin for Liens {
    fn manifest() -> Manifest {
        Manifest {
            slug: SLUG.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            maturity: Maturity::Beta,
            description: "County clerk lien index search by claimant, debtor or address (county backfill incomplete)."
                .into(),
            routes: vec![routes::route_spec()],
            openapi: schema::fragment(),
            capabilities: vec![],
            datasets: vec![SLUG.into()],
            reads: vec![],
        }
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/liens.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { index: data::index(snapshot) })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(Liens);
