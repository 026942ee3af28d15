//! institutional-holdings: quarterly 13F-HR holdings of institutional investment managers, latest quarter per filer.
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

pub const SLUG: &str = "institutional-holdings";
pub const ROUTE: &str = "/v1/institutional-holdings";

/// The plugin: each filer's latest filing, with its holdings sorted and totalled once at load.
pub struct InstitutionalHoldings {
    index: data::Index,
}

impl Plugin for InstitutionalHoldings {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Quarterly 13F institutional holdings by filer.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/institutional-holdings.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { index: data::Index::new(snapshot)? })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.index, request)
    }
}

export_plugin!(InstitutionalHoldings);
