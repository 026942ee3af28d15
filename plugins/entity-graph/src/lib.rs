//! entity-graph (pro): a cross-dataset relationship graph of companies, insiders, members of Congress,
//! agencies, 13F filers and PAC committees, built from eight other plugins' public routes (read with
//! `route.get`, so it sees exactly what clients see, demo or ingested). This plugin ships no data of its own.
//!
//! File roles (the same in every plugin): `lib.rs` manifest and export, `routes.rs` request handling,
//! `schema.rs` OpenAPI fragment, `data.rs` the lenient views of the datasets it reads, `graph.rs` the graph
//! and its queries, `names.rs` id slugs and name matching, `tests.rs`.

mod data;
mod error;
mod graph;
mod names;
mod routes;
mod schema;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use datahost_plugin_api::{
    export_plugin, ApiError, BoxError, Host, InitContext, Manifest, Maturity, Plugin, RequestEnvelope, Response,
};

pub const SLUG: &str = "entity-graph";
pub const ROUTE: &str = "/v1/entity-graph";

pub const HOUSE: &str = "congress-trades";
pub const SENATE: &str = "senate-trades";
pub const INSIDERS: &str = "insiders";
pub const LOBBYING: &str = "lobbying";
pub const CONTRACTS: &str = "contracts";
pub const DONORS: &str = "donors";
pub const PATENTS: &str = "patents";
pub const HOLDINGS: &str = "institutional-holdings";

/// Every dataset the graph reads (`execs` is derived from `insiders`, so people and titles come from there).
pub const READS: [&str; 8] = [HOUSE, SENATE, INSIDERS, LOBBYING, CONTRACTS, DONORS, PATENTS, HOLDINGS];

/// The plugin: the graph, built on the first request after `init` (the host re-runs `init` when a dataset it
/// reads changes, after the plugins that own that dataset). Not in `init` itself: the other plugins may not be
/// initialised yet, and `route.get` is a serving-time call.
pub struct EntityGraph {
    host: Host,
    graph: OnceLock<graph::Graph>,
}

impl EntityGraph {
    fn graph(&self) -> &graph::Graph {
        self.graph.get_or_init(|| graph::build(&self.host))
    }
}

impl Plugin for EntityGraph {
    fn manifest() -> Manifest {
        Manifest::dataset(
            SLUG,
            env!("CARGO_PKG_VERSION"),
            Maturity::Pro,
            "Cross-dataset relationship graph: trades, insiders, lobbying, contracts, PACs, patents and \
             13F holdings linked by entity.",
            vec![routes::route_spec()],
            schema::fragment(),
        )
        .reading(&READS)
        .owning_no_dataset()
    }

    /// Never fails: a source that fails or is unreadable is left out (when the graph is built) and listed in
    /// `meta.datasetsUnavailable`.
    fn init(ctx: InitContext) -> Result<Self, BoxError> {
        Ok(Self { host: ctx.host, graph: OnceLock::new() })
    }

    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
        routes::handle(self.graph(), request)
    }
}

export_plugin!(EntityGraph);
