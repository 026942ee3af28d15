//! The limiter a host uses, chosen at start from the configuration: the in-process one (`ratelimit.rs`) or the
//! Redis one shared by several replicas (`redis.rs`).

use std::sync::Arc;

use super::ratelimit::{Decision, LocalLimiter, RateSlot};
use super::redis::RedisLimiter;
use super::AccessError;

/// The limiter a host uses: in-process, or Redis shared by several replicas.
pub enum Limiter {
    Local(LocalLimiter),
    Redis(RedisLimiter),
}

impl Limiter {
    /// Counts one request. An error means the shared store could not be asked in time. `slot`, the key's own
    /// count kept with its entry, is what the in-process limiter counts in when there is one; Redis counts by `id`.
    pub async fn check(&self, id: &Arc<str>, slot: Option<&RateSlot>, limit: u64) -> Result<Decision, AccessError> {
        match self {
            Limiter::Local(l) => Ok(match slot {
                Some(slot) => l.check_slot(slot, limit),
                None => l.check(id, limit),
            }),
            Limiter::Redis(r) => r.check(id, limit).await,
        }
    }

    /// Whether requests pass when the store is down (`ratelimit.fail_mode = "open"`).
    pub fn fails_open(&self) -> bool {
        match self {
            Limiter::Local(_) => true,
            Limiter::Redis(r) => r.fails_open(),
        }
    }

    /// For /health: `in-process`, `redis` or `redis (unreachable)`.
    pub async fn describe(&self) -> String {
        match self {
            Limiter::Local(_) => "in-process".into(),
            Limiter::Redis(r) => {
                if r.is_reachable() {
                    "redis".into()
                } else {
                    "redis (unreachable)".into()
                }
            }
        }
    }
}
