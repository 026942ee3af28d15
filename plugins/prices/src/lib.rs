//! prices: a 5-year daily close price series for equities, sector funds, majors and top crypto.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` the in-memory index, `seed.rs` the deterministic demo snapshot
//! (generated in code rather than shipped as `seed/prices.json`), `tests.rs`. The snapshot format is the
//! SDK's [`datahost_plugin_api::market`], which the predictions plugin reads too.

mod data;
mod routes;
mod schema;
pub mod seed;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "prices";
pub const ROUTE: &str = "/v1/prices";

/// The plugin: an immutable index over one snapshot of the dataset.
pub struct Prices {
    index: data::Index,
}

impl Plugin for Prices {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "5-year daily close price series for equities, sector funds, majors and top crypto (demo data).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, seed::snapshot_json())]
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { index: data::Index::new(snapshot)? })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(Prices);
