//! lobbying: quarterly lobbying disclosures (LD-2) per company, filing years 2025 and 2026.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "lobbying";
pub const ROUTE: &str = "/v1/lobbying";

/// The plugin: per-company spend computed once from the filings of the counted years.
pub struct Lobbying {
    index: data::Index,
}

impl Plugin for Lobbying {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Quarterly lobbying disclosures per company (filing years 2025-2026).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/lobbying.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { index: data::index(snapshot)? })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(Lobbying);
