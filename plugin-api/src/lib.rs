//! datahost plugin API: the frozen v1 ABI ([`abi`]) and the SDK dataset plugins are written with.
//!
//! A plugin implements [`Plugin`] and calls [`export_plugin!`]. The SDK turns every entry point into an
//! `extern "C"` function that catches panics, speaks JSON across the boundary, and keeps the plugin's state
//! swappable. What every plugin needs (query-parameter rules, ticker matching, limits, paging, error values, OpenAPI
//! building blocks, the records and word queries of the host) lives here once; helpers only some datasets share
//! (county records, disclosures, per-company datasets) are in the `datahost-plugin-kit` crate, outside the ABI
//! promise.
//!
//! Routes can be declared from types: `#[derive(Params)]` on a struct of query parameters, `#[derive(ApiSchema)]`
//! on the response types, [`openapi::Endpoint`] and [`Manifest::serving`] to register and document them at once.
//!
//! This crate depends on no crate of the datahost workspace but its own derive macros
//! (`datahost-plugin-derive`, re-exported here).

#![deny(missing_docs)]

// The derives name `::datahost_plugin_api`; this lets them work in this crate's own tests too.
extern crate self as datahost_plugin_api;

pub mod abi;
pub mod dates;
pub mod error;
#[doc(hidden)]
pub mod export;
#[doc(hidden)]
pub use export as __export;
pub mod host;
pub mod ingest;
pub mod manifest;
pub mod openapi;
pub mod paging;
pub mod params;
pub mod query;
pub mod reference;
pub mod request;
pub mod rows;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod words;

pub use abi_stable;
pub use datahost_plugin_derive::{ApiSchema, Params};
pub use error::{BoxError, HostError};
pub use host::{Host, LogLevel};
pub use ingest::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
pub use manifest::{
    BuildInfo, Manifest, Maturity, Migration, ParamKind, ParamSpec, RouteSpec, Tier, INTERNAL_ROUTE_PREFIX,
};
pub use openapi::{ApiSchema, Endpoint};
pub use params::{Params, Query, TickerFilter};
pub use request::{ApiError, RequestEnvelope, Response};
pub use serde_json;

/// Version of this SDK, reported in each plugin's build info.
pub const SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A seed snapshot a plugin ships: the dataset name and its JSON document.
pub struct Seed {
    /// Name of the dataset the snapshot is stored under in the records engine (what [`Host::load_dataset`] reads);
    /// usually the plugin's slug.
    pub dataset: String,
    /// The snapshot: one JSON document as text (typically `include_str!` of a file), embedded verbatim in the seeds
    /// reply, so it must be valid JSON.
    pub snapshot_json: std::borrow::Cow<'static, str>,
}

impl Seed {
    /// A seed for `dataset` from its JSON text; takes a `&'static str` without copying it.
    pub fn new(dataset: impl Into<String>, snapshot_json: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        Self { dataset: dataset.into(), snapshot_json: snapshot_json.into() }
    }
}

/// Everything `init` gets: the host services and the plugin's table from the host config.
pub struct InitContext {
    /// The host services for this plugin; it is `Copy`, so keep it in the state to read datasets, log and query later.
    pub host: Host,
    /// The plugin's `[plugins.settings.<slug>]` table from the host config as JSON; an empty object `{}` when absent.
    pub config: serde_json::Value,
}

/// A dataset plugin. The SDK holds one instance at a time and replaces it atomically when `init` runs again
/// (for example after the records engine reports a data change).
pub trait Plugin: Send + Sync + Sized + 'static {
    /// The plugin's identity, routes, OpenAPI fragment and capabilities.
    fn manifest() -> Manifest;

    /// Seed snapshots shipped with the plugin. The host copies them into its records engine before any plugin
    /// is initialised, so plugins that read other plugins' datasets find them.
    fn seeds() -> Vec<Seed> {
        Vec::new()
    }

    /// Migrations of the plugin's own tables in the PostgreSQL records engine, applied by the host in the
    /// plugin's own schema (`plugin_<slug>`, written `{schema}` in queries), each once, in `id` order.
    /// PostgreSQL only, and needed by no shipped plugin: ingested records live in the host's records (read with
    /// [`Host::query_records`] through declared indexes, or [`Host::search_words`]), which run on both engines.
    fn migrations() -> Vec<manifest::Migration> {
        Vec::new()
    }

    /// Builds the plugin's state, reading its datasets through `ctx.host`.
    fn init(ctx: InitContext) -> Result<Self, BoxError>;

    /// Serves one request for one of the manifest's routes.
    fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError>;

    /// Whether the SDK may reuse this instance's successful responses for identical requests (same route,
    /// tier and query) until the next `init`. True for datasets held in memory, which never change between
    /// inits; a plugin that answers from live queries (the PostgreSQL engine) must return false.
    fn cache_responses(&self) -> bool {
        true
    }

    /// The official formats this plugin's parser reads; each becomes an `ingest:<format>` capability in the
    /// manifest. Empty: the plugin ingests nothing.
    fn ingest_formats() -> Vec<&'static str> {
        Vec::new()
    }

    /// Detects the format of one source file from its content and parses it into records (see
    /// [`ingest`]). Runs without `init`: a parser needs nothing but the file. `Err` refuses the file whole.
    fn ingest(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
        Err(Refusal::new(format!("this plugin reads no source files (file `{}`)", file.name)))
    }

    /// Generic named call, for extensions that need no ABI change.
    fn call(&self, name: &str, _input: &serde_json::Value) -> Result<serde_json::Value, BoxError> {
        Err(format!("unknown call `{name}`").into())
    }
}
