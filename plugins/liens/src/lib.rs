//! liens (beta): county clerk lien index (mechanic's, tax and judgment liens and their releases), searched by
//! claimant, debtor or property address.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` records and index, `seed/` the shipped snapshot, `tests.rs`.
//! The search rule, county slugs and the per-county index are SDK code (`address`, `county`), shared with
//! the deeds dataset. In engine mode (PostgreSQL) the liens live in the plugin's own table and each request
//! is one indexed query (`data::migrations`, `county::clerk_search_sql`).

mod data;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use datahost_plugin_api::ingest::ingested_info;
use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, InitContext, Manifest, Maturity, Migration, Plugin, RequestEnvelope, Response,
    Seed,
};
use datahost_plugin_kit::clerk::ClerkStore;
use datahost_plugin_kit::county::{self, CountyIndex};
use datahost_plugin_kit::sql::{load_store, Store};

/// The dataset whose ingested clerk records (county clerk index tables) this plugin serves the liens of.
pub const CLERK_DATASET: &str = "deeds";

pub const SLUG: &str = "liens";
pub const ROUTE: &str = "/v1/liens";

/// Where the liens come from: the demo snapshot (an immutable per-county index, or in engine mode the
/// plugin's table) until clerk index tables are ingested into `deeds`, then only their liens (never both).
pub enum Source {
    Seed(Store<CountyIndex<data::Lien>>),
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

    fn migrations() -> Vec<Migration> {
        data::migrations()
    }

    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        // The deeds dataset may be absent (its plugin disabled): then only the demo seed can be served.
        if ingested_info(&ctx.host, CLERK_DATASET).ok().flatten().is_some() {
            return Ok(Self { source: Source::Stored(ClerkStore::load(ctx.host, CLERK_DATASET)?) });
        }
        let store = load_store(
            &ctx.host,
            SLUG,
            data::LAYOUT_VERSION,
            |s: &data::Snapshot| {
                vec![
                    (county::COUNTIES, county::coverage_rows(&s.counties)),
                    (data::LIENS_TABLE, s.liens.iter().map(data::lien_row).collect()),
                ]
            },
            data::index,
        )?;
        Ok(Self { source: Source::Seed(store) })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(&self.source, request)
    }

    /// Answers from the engine's table are live (rows are added without a new `init`): never reused.
    fn cache_responses(&self) -> bool {
        !matches!(self.source, Source::Seed(Store::Engine(_)))
    }
}

export_plugin!(Liens);
