//! Who is calling and how often: credentials (`auth`), the failed-credential throttle per client address
//! (`auth_guard`), API keys (`keys`), and the per-minute limits (`ratelimit` the fixed windows and the in-process
//! limiter, `redis` the shared one and `lease` the counts it takes ahead, `limiter` the choice between them).
//! Depends on `engine` (the key table) and `config`; knows nothing of HTTP routing or plugins.

pub mod auth;
pub mod auth_guard;
pub mod error;
pub mod keys;
pub mod lease;
pub mod limiter;
pub mod ratelimit;
pub mod redis;

pub use error::AccessError;
