//! The HTTP surface: router, error envelope, CORS, docs, OpenAPI, metrics, readiness, response cache, listener.

pub mod app;
pub mod conn;
pub mod cors;
pub mod docs;
pub mod error;
pub mod metrics;
pub mod negotiate;
pub mod openapi;
pub mod readiness;
pub mod response_cache;
