//! Counts a replica took from Redis ahead of its requests ("leases"), so most requests of a busy key are decided
//! here without a round trip. A request that finds no lease asks Redis for `INCRBY n`: it takes the first of the
//! `n` counts that come back and leaves the others here for the key's next requests. Each count is still one unit
//! of the shared counter, used by exactly one request, so no window ever allows more than its limit.
//!
//! What keeps the shared count honest is the size of a lease: a fraction (1/`SPREAD`) of what was left in the
//! window when it was asked for, at most `ratelimit.redis_lease_max`, and only one lease asked for at a time per
//! key (concurrent requests of the key ask for one count each meanwhile). Only a key busy on this replica (its
//! previous request within `BUSY_WITHIN_MS`) is leased counts; the others ask for one, as without leases. Far from
//! the limit a replica holds a few counts; in a window's last `SPREAD` requests every request asks Redis for one.
//! A lease left unused (the key's traffic moved to another replica) is given back (`DECRBY`) once it has been idle
//! for `IDLE_RETURN_MS`, so another replica can use its counts in the same window. The batcher settles every
//! answer (`settle`, `unask`), so a request that goes away while Redis answers leaves nothing behind.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::access::ratelimit::{shard_of, with_state};

/// A lease is at most 1/`SPREAD` of what the window had left when it was asked for.
pub const SPREAD: u64 = 64;
/// A lease unused for this long is given back to Redis.
pub const IDLE_RETURN_MS: u64 = 1_000;
/// A key is leased counts only when its previous request on this replica came at most this long ago (4 a second).
pub const BUSY_WITHIN_MS: u64 = 250;

const SHARDS: usize = 32;

/// One key's leases in one window.
#[derive(Default)]
struct Held {
    window: u64,
    /// Ranges of counts not used yet, each `(next, last)` inclusive; usually one.
    spare: Vec<(u64, u64)>,
    /// The highest count Redis answered for this key in `window`: what was used or held, by every replica, then.
    seen: u64,
    /// Requests of this replica asking Redis for the key now.
    asking: u32,
    /// When a request last took a count here (ms, the host's clock).
    touched_ms: u64,
}

impl Held {
    fn spare_count(&self) -> u64 {
        self.spare.iter().map(|(next, last)| last + 1 - next).sum()
    }
}

/// Counts given back: the key's window and how many.
pub struct Returned {
    pub id: Arc<str>,
    pub window: u64,
    pub count: u64,
}

/// The leases of every key this replica has seen, sharded like the in-process limiter.
pub struct Leases {
    shards: Vec<Mutex<HashMap<Arc<str>, Held, foldhash::fast::RandomState>>>,
    max: u64,
    /// Keys holding spare counts (an upper bound): the batcher wakes to give them back only while this is not 0.
    holding: AtomicUsize,
}

/// What a request gets from the lease table.
#[derive(Debug, PartialEq, Eq)]
pub enum Take {
    /// A count this replica already held for the key.
    Count(u64),
    /// None held: ask Redis for this many.
    Ask(u64),
}

impl Leases {
    /// `max`: the most counts one lease may hold (`ratelimit.redis_lease_max`; 1: every request asks Redis).
    pub fn new(max: u64) -> Self {
        Self { shards: (0..SHARDS).map(|_| Mutex::default()).collect(), max: max.max(1), holding: AtomicUsize::new(0) }
    }

    fn shard(&self, id: &str) -> &Mutex<HashMap<Arc<str>, Held, foldhash::fast::RandomState>> {
        &self.shards[shard_of(id, SHARDS)]
    }

    /// A held count of `id` in `window`, or how many to ask Redis for with a limit of `limit`. An `Ask` must be
    /// followed by `settle` or `unask`.
    pub fn take(&self, id: &Arc<str>, window: u64, limit: u64, now_ms: u64) -> Take {
        if self.max == 1 {
            return Take::Ask(1);
        }
        let mut map = self.shard(id).lock().unwrap_or_else(|e| e.into_inner());
        with_state(&mut map, id, |held| self.take_in(held, window, limit, now_ms))
    }

    /// `take` for the key's state `held`.
    fn take_in(&self, held: &mut Held, window: u64, limit: u64, now_ms: u64) -> Take {
        if held.window != window {
            self.restart(held, window);
        }
        if let Some(range) = held.spare.last_mut() {
            let count = range.0;
            if range.0 == range.1 {
                held.spare.pop();
                if held.spare.is_empty() {
                    self.holding.fetch_sub(1, Ordering::Relaxed);
                }
            } else {
                range.0 += 1;
            }
            held.touched_ms = now_ms;
            return Take::Count(count);
        }
        held.asking += 1;
        // A key asks for a lease only while busy here: a lease for a key seldom seen would mostly go back unused,
        // a `DECRBY` more for Redis. And while one is on its way, the key's other requests ask for their own count
        // only, so a burst does not take a lease per request (counts it could not use).
        let busy = held.seen > 0 && now_ms.saturating_sub(held.touched_ms) < BUSY_WITHIN_MS;
        if held.asking > 1 || !busy {
            return Take::Ask(1);
        }
        Take::Ask(self.size(limit.saturating_sub(held.seen)))
    }

    /// The key's state starts afresh in `window`: spare counts of an earlier one are forgotten (their counter
    /// expires), and asks of that one no longer hold leases back.
    fn restart(&self, held: &mut Held, window: u64) {
        if !held.spare.is_empty() {
            held.spare.clear();
            self.holding.fetch_sub(1, Ordering::Relaxed);
        }
        *held = Held { window, spare: std::mem::take(&mut held.spare), ..Held::default() };
    }

    /// How many counts to ask for when `left` were left in the window.
    fn size(&self, left: u64) -> u64 {
        (left / SPREAD).clamp(1, self.max)
    }

    /// Redis answered `top` to an `INCRBY asked` for `id` in `window`: the counts `top - asked + 1 ..= top`. The
    /// first is the asking request's; the others up to `limit` are kept for the key's next requests (those above
    /// would be refused anyway). Returns the request's count.
    pub fn settle(&self, id: &Arc<str>, window: u64, asked: u64, top: u64, limit: u64, now_ms: u64) -> u64 {
        let first = top + 1 - asked.min(top);
        if self.max == 1 {
            return first;
        }
        let mut map = self.shard(id).lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > 50_000 {
            // Keys of earlier windows: their counters have expired or will, nothing to give back.
            let before = map.values().filter(|h| !h.spare.is_empty()).count();
            map.retain(|key, held| held.window == window || key == id);
            let after = map.values().filter(|h| !h.spare.is_empty()).count();
            self.holding.fetch_sub(before - after, Ordering::Relaxed);
        }
        with_state(&mut map, id, |held| self.settle_in(held, window, first, top, limit, now_ms))
    }

    /// `settle` for the key's state `held`.
    fn settle_in(&self, held: &mut Held, window: u64, first: u64, top: u64, limit: u64, now_ms: u64) -> u64 {
        if held.window > window {
            // An answer of a window already over here: its spare counts are of no use.
            return first;
        }
        if held.window < window {
            // Asked at the end of a window and counted in the next one (the windows are Redis' clock's).
            self.restart(held, window);
        }
        held.asking = held.asking.saturating_sub(1);
        held.seen = held.seen.max(top);
        let last = top.min(limit);
        if first < last {
            if held.spare.is_empty() {
                self.holding.fetch_add(1, Ordering::Relaxed);
            }
            held.spare.push((first + 1, last));
        }
        held.touched_ms = now_ms;
        first
    }

    /// An ask of `id` in `window` that Redis did not answer (it failed, timed out or was never sent).
    pub fn unask(&self, id: &Arc<str>, window: u64) {
        if self.max == 1 {
            return;
        }
        let mut map = self.shard(id).lock().unwrap_or_else(|e| e.into_inner());
        if let Some(held) = map.get_mut(id).filter(|held| held.window == window) {
            held.asking = held.asking.saturating_sub(1);
        }
    }

    /// Whether some key may hold spare counts.
    pub fn holding(&self) -> bool {
        self.holding.load(Ordering::Relaxed) > 0
    }

    /// Takes back the spare counts of keys idle since `now_ms - IDLE_RETURN_MS`, in `window` (to give back to Redis),
    /// and forgets those of earlier windows (their counters expire).
    pub fn idle(&self, window: u64, now_ms: u64) -> Vec<Returned> {
        let mut returned = Vec::new();
        for shard in &self.shards {
            let mut map = shard.lock().unwrap_or_else(|e| e.into_inner());
            for (id, held) in map.iter_mut() {
                if held.spare.is_empty() {
                    continue;
                }
                let stale = held.window != window;
                if !stale && now_ms.saturating_sub(held.touched_ms) < IDLE_RETURN_MS {
                    continue;
                }
                if !stale {
                    returned.push(Returned { id: id.clone(), window, count: held.spare_count() });
                }
                held.spare.clear();
                self.holding.fetch_sub(1, Ordering::Relaxed);
            }
        }
        returned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: u64 = 60_000;

    /// The key's first request in `window` asks for its own count (answered `top`), which makes it busy.
    fn seen_once(leases: &Leases, id: &Arc<str>, window: u64, top: u64) {
        assert_eq!(leases.take(id, window, 1_200, 0), Take::Ask(1));
        assert_eq!(leases.settle(id, window, 1, top, 1_200, 0), top);
    }

    #[test]
    fn a_lease_is_a_share_of_what_is_left_and_serves_the_next_requests() {
        let leases = Leases::new(32);
        let id: Arc<str> = Arc::from("k");
        seen_once(&leases, &id, W, 1);
        // A moment later: 1,199 left, 1,199 / 64 = 18 counts asked for.
        assert_eq!(leases.take(&id, W, 1_200, 100), Take::Ask(18));
        // Another replica had used 100: Redis answers 119, counts 102..=119.
        assert_eq!(leases.settle(&id, W, 18, 119, 1_200, 100), 102);
        assert!(leases.holding());
        let next: Vec<Take> = (0..17).map(|_| leases.take(&id, W, 1_200, 105)).collect();
        assert_eq!(next, (103..=119).map(Take::Count).collect::<Vec<_>>());
        assert!(!leases.holding());
        // 1,200 - 119 = 1,081 left: 16 asked next.
        assert_eq!(leases.take(&id, W, 1_200, 105), Take::Ask(16));
    }

    #[test]
    fn a_key_seldom_seen_asks_for_its_own_count() {
        let leases = Leases::new(32);
        let id: Arc<str> = Arc::from("k");
        seen_once(&leases, &id, W, 1);
        assert_eq!(leases.take(&id, W, 1_200, BUSY_WITHIN_MS), Take::Ask(1), "a quarter second after");
        assert_eq!(leases.settle(&id, W, 1, 2, 1_200, BUSY_WITHIN_MS), 2);
        assert_eq!(leases.take(&id, W, 1_200, BUSY_WITHIN_MS + 10), Take::Ask(18));
    }

    #[test]
    fn near_the_limit_every_request_asks_for_one() {
        let leases = Leases::new(32);
        let free: Arc<str> = Arc::from("free");
        assert_eq!(leases.take(&free, W, 60, 0), Take::Ask(1));
        assert_eq!(leases.settle(&free, W, 1, 1, 60, 0), 1);
        assert_eq!(leases.take(&free, W, 60, 10), Take::Ask(1), "59 / 64 rounds to one");
        let id: Arc<str> = Arc::from("k");
        assert_eq!(leases.take(&id, W, 6_000, 0), Take::Ask(1));
        assert_eq!(leases.settle(&id, W, 1, 1, 6_000, 0), 1);
        assert_eq!(leases.take(&id, W, 6_000, 10), Take::Ask(32), "at most the configured maximum");
        // Another replica took the count to 5,918 meanwhile: 5,919..=5,950 come back, 50 left after them.
        assert_eq!(leases.settle(&id, W, 32, 5_950, 6_000, 10), 5_919);
        for expected in 5_920..=5_950 {
            assert_eq!(leases.take(&id, W, 6_000, 10), Take::Count(expected));
        }
        assert_eq!(leases.take(&id, W, 6_000, 10), Take::Ask(1), "fewer than 64 left");
        assert_eq!(leases.settle(&id, W, 1, 5_951, 6_000, 10), 5_951);
        // A lease asked for far from the limit and answered past it keeps the counts up to the limit only: those
        // above would be refused anyway, and the key's next request asks Redis again.
        let other: Arc<str> = Arc::from("other");
        assert_eq!(leases.take(&other, W, 6_000, 0), Take::Ask(1));
        assert_eq!(leases.settle(&other, W, 1, 1, 6_000, 0), 1);
        assert_eq!(leases.take(&other, W, 6_000, 10), Take::Ask(32));
        assert_eq!(leases.settle(&other, W, 32, 6_010, 6_000, 10), 5_979);
        for expected in 5_980..=6_000 {
            assert_eq!(leases.take(&other, W, 6_000, 10), Take::Count(expected));
        }
        assert!(!leases.holding());
        assert_eq!(leases.take(&other, W, 6_000, 10), Take::Ask(1));
    }

    #[test]
    fn one_lease_is_asked_for_at_a_time() {
        let leases = Leases::new(32);
        let id: Arc<str> = Arc::from("k");
        seen_once(&leases, &id, W, 1);
        // A burst: the first request asks for a lease, the others meanwhile for one count each.
        let asks: Vec<Take> = (0..4).map(|_| leases.take(&id, W, 1_200, 10)).collect();
        assert_eq!(asks, [Take::Ask(18), Take::Ask(1), Take::Ask(1), Take::Ask(1)]);
        assert_eq!(leases.settle(&id, W, 1, 2, 1_200, 10), 2);
        assert_eq!(leases.settle(&id, W, 18, 20, 1_200, 10), 3);
        leases.unask(&id, W);
        assert_eq!(leases.take(&id, W, 1_200, 10), Take::Count(4));
        for _ in 5..=20 {
            assert!(matches!(leases.take(&id, W, 1_200, 10), Take::Count(_)));
        }
        // One ask is still out (never answered so far): the next request without a count asks for one.
        assert_eq!(leases.take(&id, W, 1_200, 10), Take::Ask(1));
        leases.unask(&id, W);
        leases.unask(&id, W);
        assert_eq!(leases.take(&id, W, 1_200, 10), Take::Ask(18), "(1,200 - 20) / 64, none out");
        // Asks left unanswered do not hold leases back in the next window.
        seen_once(&leases, &id, 2 * W, 1);
        assert_eq!(leases.take(&id, 2 * W, 1_200, 10), Take::Ask(18));
    }

    #[test]
    fn a_new_window_starts_without_leases() {
        let leases = Leases::new(32);
        let id: Arc<str> = Arc::from("k");
        seen_once(&leases, &id, W, 1);
        assert_eq!(leases.take(&id, W, 1_200, 10), Take::Ask(18));
        assert_eq!(leases.settle(&id, W, 18, 19, 1_200, 10), 2);
        assert_eq!(leases.take(&id, 2 * W, 1_200, 10), Take::Ask(1), "a new window: not busy in it yet");
        assert!(!leases.holding(), "the spare counts of the window before are forgotten");
        assert_eq!(leases.settle(&id, 2 * W, 1, 1, 1_200, 10), 1);
        assert_eq!(leases.take(&id, 2 * W, 1_200, 20), Take::Ask(18));
        assert_eq!(leases.settle(&id, 2 * W, 18, 19, 1_200, 20), 2);
        assert_eq!(leases.take(&id, 2 * W, 1_200, 20), Take::Count(3));
        // Asked in one window, counted in the next: the lease is the next window's.
        assert_eq!(leases.settle(&id, 3 * W, 18, 18, 1_200, 20), 1);
        assert_eq!(leases.take(&id, 3 * W, 1_200, 20), Take::Count(2));
        // A late answer of a window over here is the request's count only.
        assert_eq!(leases.settle(&id, 2 * W, 18, 40, 1_200, 20), 23);
        assert_eq!(leases.take(&id, 3 * W, 1_200, 20), Take::Count(3));
        // Spare counts of a window over are not given back, only forgotten.
        assert!(leases.idle(4 * W, 10_000).is_empty());
        assert!(!leases.holding());
    }

    #[test]
    fn idle_leases_are_given_back_and_busy_ones_kept() {
        let leases = Leases::new(32);
        let busy: Arc<str> = Arc::from("busy");
        let quiet: Arc<str> = Arc::from("quiet");
        leases.settle(&busy, W, 18, 18, 1_200, 0);
        leases.settle(&quiet, W, 18, 36, 1_200, 0);
        leases.settle(&quiet, W, 10, 50, 1_200, 0);
        assert_eq!(leases.take(&busy, W, 1_200, 900), Take::Count(2));
        let returned = leases.idle(W, IDLE_RETURN_MS + 100);
        assert_eq!(returned.len(), 1);
        assert_eq!((&*returned[0].id, returned[0].window, returned[0].count), ("quiet", W, 17 + 9));
        assert_eq!(leases.take(&quiet, W, 1_200, 1_200), Take::Ask(1), "idle a second: its own count only");
        assert_eq!(leases.settle(&quiet, W, 1, 51, 1_200, 1_200), 51);
        assert_eq!(leases.take(&quiet, W, 1_200, 1_210), Take::Ask(17), "busy again: (1,200 - 51) / 64");
        assert!(leases.holding(), "busy still holds 16");
        assert_eq!(leases.idle(W, 2_000).len(), 1);
        assert!(!leases.holding());
    }

    #[test]
    fn a_maximum_of_one_is_a_count_per_request() {
        let leases = Leases::new(1);
        let id: Arc<str> = Arc::from("k");
        assert_eq!(leases.take(&id, W, 6_000, 0), Take::Ask(1));
        assert_eq!(leases.settle(&id, W, 1, 7, 6_000, 0), 7);
        assert_eq!(leases.take(&id, W, 6_000, 0), Take::Ask(1));
        assert!(!leases.holding());
    }
}
