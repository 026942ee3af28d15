//! execs: executive and board rosters derived from the Form 4 reporting-owner records of the `insiders`
//! dataset, read through the host's records engine. This plugin ships no data of its own.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` the insiders records it reads and the rosters built from them,
//! `tests.rs`. `records.rs` is the insiders plugin's own definition of its ingested records, included here
//! so both readers of the dataset share one definition (plugins cannot link each other: each exports the
//! same ABI symbols).

mod data;
#[path = "../../insiders/src/records.rs"]
mod records;
mod routes;
mod schema;
#[cfg(test)]
mod tests;
// The insiders parser, compiled into the tests only, so they feed the rosters real ingested records. Execs
// uses part of it, hence `dead_code`.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../insiders/src/form4.rs"]
mod form4;
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../insiders/src/ingest.rs"]
mod ingest;

use datahost_plugin_api::ingest::INGESTED_KEY;
use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response,
};

pub const SLUG: &str = "execs";
pub const ROUTE: &str = "/v1/execs";
/// The dataset the rosters are derived from.
pub const SOURCE_DATASET: &str = "insiders";

/// The plugin: rosters computed from the insiders dataset (the demo seed at once, ingested filings per company
/// on first request).
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

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        let doc: serde_json::Value = ctx.host.load_dataset(SOURCE_DATASET)?;
        let schema_error = |e: serde_json::Error| format!("dataset `{SOURCE_DATASET}` does not match its schema: {e}");
        let rosters = if doc.get(INGESTED_KEY).is_some() {
            data::Rosters::ingested(serde_json::from_value(doc).map_err(schema_error)?, &ctx.host)
        } else {
            data::Rosters::new(serde_json::from_value(doc).map_err(schema_error)?)
        };
        Ok(Self { rosters })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.rosters, request)
    }
}

export_plugin!(Execs);
