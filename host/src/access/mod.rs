//! Who is calling and how often: credentials, the failed-credential throttle, API keys, rate limits.

pub mod auth;
pub mod auth_guard;
pub mod keys;
pub mod ratelimit;
pub mod redis;
