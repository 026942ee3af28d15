//! The datahost host: configuration, plugin loader, records engine, auth, tiers, rate limits, the HTTP
//! surface, OpenAPI assembly and metrics. `main.rs` is the CLI on top of it.

pub mod access;
pub mod config;
pub mod engine;
pub mod http;
pub mod lifecycle;
pub mod plugins;
pub mod sync;
pub mod tls;

// The paths the tests, the fuzz targets and the tools import from, as they were before the layer folders.
pub use access::{keys, ratelimit};
pub use engine::records;
pub use http::app::{app, AppState};
pub use http::{app, openapi};
