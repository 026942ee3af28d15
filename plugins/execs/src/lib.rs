//! execs: executive and board rosters derived from the Form 4 reporting-owner records of the `insiders`
//! dataset, read through the host's records engine. This plugin ships no data of its own.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` the insiders records it reads and the rosters built from them,
//! `tests.rs`.

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response,
};

pub const SLUG: &str = "execs";
pub const ROUTE: &str = "/v1/execs";
/// The dataset the rosters are derived from.
pub const SOURCE_DATASET: &str = "insiders";

/// The plugin: rosters computed once from the insiders snapshot.
pub struct Execs {
    rosters: data::Rosters,
}

impl Plugin for Execs {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Stable,
            "Executive and board rosters derived from Form 4 reporting-owner metadata.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        .reading(&[SOURCE_DATASET])
        .owning_no_dataset()
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot: data::InsidersSnapshot = ctx.host.load_dataset(SOURCE_DATASET)?;
        Ok(Self { rosters: data::Rosters::new(snapshot) })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.rosters, request)
    }
}

export_plugin!(Execs);
