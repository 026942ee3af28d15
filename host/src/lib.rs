//! The datahost host: configuration, plugin loader, records engine, auth, tiers, rate limits, the HTTP
//! surface, OpenAPI assembly and metrics. `main.rs` is the CLI on top of it.

pub mod app;
pub mod auth;
pub mod auth_guard;
pub mod companies;
pub mod config;
pub mod conn;
pub mod cors;
pub mod docs;
pub mod engine;
pub mod error;
pub mod ingest;
pub mod keys;
pub mod metrics;
pub mod negotiate;
pub mod openapi;
pub mod pg;
pub mod pg_records;
pub mod plugins;
pub mod ratelimit;
pub mod readiness;
pub mod records;
pub mod redis_limiter;
pub mod response_cache;
pub mod server;
pub mod sqlite;
pub mod sync;
pub mod tls;
pub mod watch;
pub mod words;

pub use app::{app, AppState};
