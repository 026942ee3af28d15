//! liens (beta): county clerk lien index (mechanic's, tax and judgment liens and their releases), searched by
//! claimant, debtor or property address.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.
//! The search rule, county slugs and the per-county index are SDK code (`address`, `county`), shared with
//! the deeds dataset. The demo seed is searched in memory, whichever the records engine; the liens among the
//! clerk records ingested into `deeds` are searched in the engine (`clerk::ClerkStore`). The plugin writes no SQL.

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::ingest::ingested_info;
use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, HostError, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response,
    Seed,
};
use datahost_plugin_kit::clerk::ClerkStore;
use datahost_plugin_kit::county::CountyIndex;

/// The dataset whose ingested clerk records (county clerk index tables) this plugin serves the liens of.
pub const CLERK_DATASET: &str = "deeds";

pub const SLUG: &str = "liens";
pub const ROUTE: &str = "/v1/liens";

/// Where the liens come from: the demo snapshot (an immutable per-county index) until clerk index tables are
/// ingested into `deeds`, then only their liens (never both).
pub enum Source {
    Seed(CountyIndex<data::Lien>),
    Stored(ClerkStore),
}

/// The plugin.
pub struct Liens {
    source: Source,
}

impl Plugin for Liens {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Beta,
            "County clerk lien index search by claimant, debtor or address (county backfill incomplete).",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        // The clerk's index tables are ingested once, into `deeds`; the liens among them are served here.
        .also_serving(&[CLERK_DATASET])
    }

    fn seeds() -> Vec<Seed> {
        vec![Seed::new(SLUG, include_str!("../seed/liens.json"))]
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        // The deeds dataset may be absent (its plugin disabled; the host refuses it): then only the demo seed
        // can be served. One that is there but does not read fails init rather than hide behind the seed.
        match ingested_info(&ctx.host, CLERK_DATASET) {
            Ok(Some(_)) => return Ok(Self { source: Source::Stored(ClerkStore::load(ctx.host, CLERK_DATASET)?) }),
            Ok(None) | Err(HostError::Refused(_)) => {}
            Err(e) => return Err(e.into()),
        }
        let snapshot: data::Snapshot = ctx.host.load_dataset(SLUG)?;
        Ok(Self { source: Source::Seed(data::index(snapshot)) })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.source, request)
    }
}

export_plugin!(Liens);
