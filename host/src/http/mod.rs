//! The HTTP surface: the router and its handlers (`app`), the state they share (`state`), the error envelope
//! (`error`), CORS, `/docs`, `/openapi.json`, metrics, content negotiation, `/ready`, the response cache, the
//! access log and the API listener's accept loop (`conn`). Sits above `access`, `plugins`, `sync` and `engine`;
//! only `lifecycle` imports it.

pub mod access_log;
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
pub mod scrape;
pub mod state;
