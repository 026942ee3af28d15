//! sam-entities: federal contractor registrations (SAM.gov entity registrations), searchable by name and UEI.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "sam-entities";
pub const ROUTE: &str = "/v1/sam-entities";

/// The plugin: an immutable name index over one snapshot of the dataset.
pub struct SamEntities {
    index: data::Index,
}

impl Plugin for SamEntities {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Federal contractor registrations (SAM.gov entity registrations), Active and Inactive.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/sam-entities.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { index: data::Index::new(snapshot)? })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(SamEntities);
