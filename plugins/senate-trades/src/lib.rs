//! senate-trades: U.S. Senate member stock-trade disclosures (Periodic Transaction Reports), beta.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::disclosure::DisclosureIndex;
use datahost_plugin_api::{
    export_plugin, ApiError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response, Seed,
};

pub const SLUG: &str = "senate-trades";
pub const ROUTE: &str = "/v1/senate-trades";

/// The plugin: an immutable index over one snapshot of the dataset.
pub struct SenateTrades {
    meta: data::Meta,
    index: DisclosureIndex<data::Filing>,
}

impl Plugin for SenateTrades {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Beta,
            "U.S. Senate member stock-trade disclosures (Periodic Transaction Reports); beta.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/senate-trades.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, String> {
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { meta: snapshot.meta, index: DisclosureIndex::new(snapshot.filings) })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(self, request)
    }
}

export_plugin!(SenateTrades);
