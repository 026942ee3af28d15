//! Failed authentication, throttled per client address: key guessing costs little to refuse and soon stops
//! being answered at all.
//!
//! Each presented credential that fails (malformed, unknown, revoked, conflicting, a wrong marketplace secret)
//! counts against the client address in the rate limiter (`authfail:<address>`, shared through Redis when the
//! limiter is), at most `auth.failed_per_minute` per UTC minute. Past that, the address is answered 429 with
//! the envelope until the minute ends, for every request that carries a credential, valid or not, so the
//! answer says nothing about which keys exist. A request without any credential is not a guess and not
//! counted. The client address is the peer's, or, when the peer is one of `server.trusted_proxies`, the last
//! address in `X-Forwarded-For` that is not a trusted proxy.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::http::HeaderMap;

use crate::access::limiter::Limiter;
use crate::access::ratelimit::{Clock, SystemClock};
use crate::config::IpRange;

/// Blocked addresses kept at most; beyond it expired entries are dropped first, then no new block is kept
/// (the limiter still counts and answers).
const MAX_BLOCKED: usize = 100_000;

/// The throttle, shared by all requests.
pub struct FailedAuth {
    per_minute: u64,
    trusted: Vec<IpRange>,
    /// Address -> the time (ms since the epoch) its block ends.
    blocked: Mutex<HashMap<IpAddr, u64>>,
    /// The latest end of any block: before it passes, `blocked_for` looks in the map; after, every request
    /// (nearly all, on a host nobody is guessing keys on) is answered without taking the lock.
    last_block_ends: AtomicU64,
    clock: Arc<dyn Clock>,
}

impl FailedAuth {
    pub fn new(per_minute: u64, trusted: Vec<IpRange>) -> Self {
        Self::with_clock(per_minute, trusted, Arc::new(SystemClock))
    }

    pub fn with_clock(per_minute: u64, trusted: Vec<IpRange>, clock: Arc<dyn Clock>) -> Self {
        Self { per_minute, trusted, blocked: Mutex::default(), last_block_ends: AtomicU64::new(0), clock }
    }

    fn trusted(&self, ip: IpAddr) -> bool {
        self.trusted.iter().any(|r| r.contains(ip))
    }

    /// The client's address: the peer's, or behind trusted proxies the last untrusted `X-Forwarded-For` entry.
    pub fn client_ip(&self, peer: Option<SocketAddr>, headers: &HeaderMap) -> Option<IpAddr> {
        let peer = peer?.ip();
        if !self.trusted(peer) {
            return Some(peer);
        }
        let forwarded = headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
        let hops: Vec<IpAddr> =
            forwarded.flat_map(|v| v.split(',')).filter_map(|h| h.trim().parse::<IpAddr>().ok()).collect();
        Some(hops.into_iter().rev().find(|ip| !self.trusted(*ip)).unwrap_or(peer))
    }

    /// Seconds left of the address's block, if it is blocked.
    pub fn blocked_for(&self, ip: IpAddr) -> Option<u64> {
        if self.per_minute == 0 {
            return None;
        }
        let now = self.clock.now_ms();
        if self.last_block_ends.load(Ordering::Acquire) <= now {
            return None;
        }
        let blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
        blocked.get(&ip).filter(|until| **until > now).map(|until| (until - now).div_ceil(1000).max(1))
    }

    /// Counts one failed credential from `ip`; `Some(seconds)` when the address is now blocked for that long.
    pub async fn record_failure(&self, limiter: &Limiter, ip: IpAddr) -> Option<u64> {
        if self.per_minute == 0 {
            return None;
        }
        let id: Arc<str> = Arc::from(format!("authfail:{ip}"));
        let decision = match limiter.check(&id, None, self.per_minute).await {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(error = %e, "rate limiter unavailable; failed authentication not counted");
                return None;
            }
        };
        if decision.allowed {
            return None;
        }
        let now = self.clock.now_ms();
        let until = now + decision.reset_secs.max(1) * 1000;
        let mut blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
        if blocked.len() >= MAX_BLOCKED {
            blocked.retain(|_, u| *u > now);
        }
        if blocked.len() < MAX_BLOCKED {
            blocked.insert(ip, until);
            self.last_block_ends.fetch_max(until, Ordering::AcqRel);
        }
        Some(decision.reset_secs.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::ratelimit::{LocalLimiter, ManualClock};

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", xff.parse().unwrap());
        h
    }

    #[test]
    fn ranges_parse_and_match_both_families() {
        let r = IpRange::parse("10.0.0.0/8").unwrap();
        assert!(r.contains("10.200.3.4".parse().unwrap()) && !r.contains("11.0.0.1".parse().unwrap()));
        assert!(r.contains("::ffff:10.1.1.1".parse().unwrap()), "IPv4-mapped IPv6");
        let one = IpRange::parse("127.0.0.1").unwrap();
        assert!(one.contains("127.0.0.1".parse().unwrap()) && !one.contains("127.0.0.2".parse().unwrap()));
        let v6 = IpRange::parse("fd00::/8").unwrap();
        assert!(v6.contains("fd12::1".parse().unwrap()) && !v6.contains("fe80::1".parse().unwrap()));
        assert!(IpRange::parse("0.0.0.0/0").unwrap().contains("8.8.8.8".parse().unwrap()));
        for bad in ["10.0.0.0/33", "nope", "10.0.0.0/x", "::/129"] {
            assert!(IpRange::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn forwarded_addresses_count_only_behind_a_trusted_proxy() {
        let guard = FailedAuth::new(5, vec![IpRange::parse("10.0.0.0/8").unwrap()]);
        let lb: SocketAddr = "10.0.0.2:5000".parse().unwrap();
        let direct: SocketAddr = "203.0.113.9:5000".parse().unwrap();
        // A client cannot pick its address by sending the header itself.
        assert_eq!(guard.client_ip(Some(direct), &headers("1.2.3.4")), Some("203.0.113.9".parse().unwrap()));
        // Behind the balancer: the last hop that is not a trusted proxy (earlier entries are the client's say).
        assert_eq!(
            guard.client_ip(Some(lb), &headers("1.2.3.4, 198.51.100.7, 10.0.0.9")),
            Some("198.51.100.7".parse().unwrap())
        );
        assert_eq!(guard.client_ip(Some(lb), &HeaderMap::new()), Some("10.0.0.2".parse().unwrap()));
        assert_eq!(guard.client_ip(None, &HeaderMap::new()), None, "no peer (in-process): not throttled");
    }

    #[tokio::test]
    async fn an_address_is_blocked_past_its_budget_until_the_minute_ends() {
        let clock = Arc::new(ManualClock::default());
        clock.set(1_000 * 60_000 + 15_000);
        let limiter = Limiter::Local(LocalLimiter::new(clock.clone()));
        let guard = FailedAuth::with_clock(3, Vec::new(), clock.clone());
        let ip: IpAddr = "198.51.100.7".parse().unwrap();
        for _ in 0..3 {
            assert_eq!(guard.record_failure(&limiter, ip).await, None);
        }
        assert_eq!(guard.blocked_for(ip), None);
        assert_eq!(guard.record_failure(&limiter, ip).await, Some(45), "the fourth failure blocks until :00");
        assert_eq!(guard.blocked_for(ip), Some(45));
        assert_eq!(guard.blocked_for("198.51.100.8".parse().unwrap()), None, "other addresses are not affected");
        clock.set(1_001 * 60_000);
        assert_eq!(guard.blocked_for(ip), None, "a new minute lifts the block");
        let off = FailedAuth::new(0, Vec::new());
        assert_eq!(off.record_failure(&limiter, ip).await, None, "0 turns the throttle off");
    }
}
