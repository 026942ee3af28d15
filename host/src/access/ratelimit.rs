//! Per-key rate limiting in fixed one-minute windows aligned to the UTC minute. The in-process limiter counts a
//! key's request in the key's own slot (`RateSlot`, one atomic word kept with the key's entry in the key view) and
//! any other id (a marketplace caller, `authfail:<address>`) under a sharded mutex; both exact under concurrency.
//! The Redis limiter (`redis.rs`) shares the same window arithmetic so one host and N replicas behave the same;
//! `limiter.rs` chooses between them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use datahost_plugin_api::Tier;

pub const WINDOW_MS: u64 = 60_000;

/// Requests per minute for a tier; `None` is unlimited.
pub fn tier_limit(tier: Tier) -> Option<u64> {
    match tier {
        Tier::Free => Some(60),
        Tier::Pro => Some(1_200),
        Tier::Rapidapi => Some(6_000),
        Tier::Owner => None,
    }
}

/// Milliseconds since the Unix epoch; injectable so window rollover is tested without sleeping.
pub trait Clock: Send + Sync {
    fn now_ms(&self) -> u64;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }
}

/// A clock tests move by hand.
#[derive(Default)]
pub struct ManualClock(pub AtomicU64);

impl ManualClock {
    pub fn set(&self, ms: u64) {
        self.0.store(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The outcome of counting one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u64,
    pub remaining: u64,
    /// Seconds until the window resets (at least 1).
    pub reset_secs: u64,
}

/// Window start and seconds to its end for a timestamp.
pub fn window_of(now_ms: u64) -> (u64, u64) {
    let start = now_ms - now_ms % WINDOW_MS;
    let reset = (start + WINDOW_MS - now_ms).div_ceil(1000).max(1);
    (start, reset)
}

/// Turns the count after this request into a decision.
pub fn decide(count: u64, limit: u64, reset_secs: u64) -> Decision {
    Decision { allowed: count <= limit, limit, remaining: limit.saturating_sub(count), reset_secs }
}

/// One key's count in its current window, in one word: the window's minute number (since the epoch) in the high
/// 32 bits, the count in the low 32. The key's entry in the key view owns it, so counting a key's request is one
/// atomic add on a word that lives with the key, instead of a shard's mutex and map entry that every key's requests
/// write in turn (both worker threads passed those between their cores).
#[derive(Debug, Default)]
pub struct RateSlot(AtomicU64);

impl RateSlot {
    const COUNT_BITS: u32 = 32;
    const COUNT_MASK: u64 = (1 << Self::COUNT_BITS) - 1;
    /// Counts at or past this take the careful path, which keeps the count here: far below the carry into the
    /// minute, whatever number of requests add to it at once.
    const COUNT_CAREFUL: u64 = 1 << (Self::COUNT_BITS - 1);

    /// Counts one request in the window starting at `window` (ms); returns the count after it.
    pub fn count(&self, window: u64) -> u64 {
        let minute = window / WINDOW_MS;
        // Relaxed: the word is a count and publishes nothing else.
        let before = self.0.fetch_add(1, Ordering::Relaxed);
        if before >> Self::COUNT_BITS == minute && before & Self::COUNT_MASK < Self::COUNT_CAREFUL {
            return (before & Self::COUNT_MASK) + 1;
        }
        // A new window (or an absurd count): the add above went to a word this request now replaces or keeps.
        let mut current = before.wrapping_add(1);
        loop {
            let next = if current >> Self::COUNT_BITS == minute {
                ((current & Self::COUNT_MASK) + 1).min(Self::COUNT_CAREFUL) | (minute << Self::COUNT_BITS)
            } else {
                (minute << Self::COUNT_BITS) | 1
            };
            match self.0.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return next & Self::COUNT_MASK,
                Err(seen) => current = seen,
            }
        }
    }
}

const SHARDS: usize = 32;

/// Runs `f` on a key id's state in a shard's map, made (default) at the key's first request. A key seen before (the
/// common case) is found with one look-up and without cloning its id.
pub(crate) fn with_state<V: Default, R>(
    map: &mut HashMap<Arc<str>, V, foldhash::fast::RandomState>,
    id: &Arc<str>,
    f: impl FnOnce(&mut V) -> R,
) -> R {
    match map.get_mut(id) {
        Some(state) => f(state),
        None => f(map.entry(id.clone()).or_default()),
    }
}

/// Which of `shards` shards a key id's state lives in (FNV-1a: cheap and good enough to spread key ids).
pub(crate) fn shard_of(id: &str, shards: usize) -> usize {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in id.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    (h as usize) % shards
}

/// One shard: key id → (window start, count in that window). foldhash: the ids are the host's own (key ids,
/// `authfail:<address>`), and SipHash was a visible share of a cached answer's cost.
type Shard = Mutex<HashMap<Arc<str>, (u64, u64), foldhash::fast::RandomState>>;

/// In-process fixed-window counter.
pub struct LocalLimiter {
    shards: Vec<Shard>,
    clock: Arc<dyn Clock>,
}

impl LocalLimiter {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self { shards: (0..SHARDS).map(|_| Mutex::default()).collect(), clock }
    }

    fn shard(&self, id: &str) -> &Shard {
        &self.shards[shard_of(id, SHARDS)]
    }

    /// Counts one request in `slot` (a key's own) against `limit` per minute.
    pub fn check_slot(&self, slot: &RateSlot, limit: u64) -> Decision {
        let (window, reset) = window_of(self.clock.now_ms());
        decide(slot.count(window), limit, reset)
    }

    /// Counts one request for `id` against `limit` per minute.
    pub fn check(&self, id: &Arc<str>, limit: u64) -> Decision {
        let (window, reset) = window_of(self.clock.now_ms());
        let mut map = self.shard(id).lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > 50_000 {
            // Ids seen in earlier windows carry no state worth keeping.
            map.retain(|_, (w, _)| *w == window);
        }
        with_state(&mut map, id, |slot| {
            if slot.0 != window {
                *slot = (window, 0);
            }
            slot.1 += 1;
            decide(slot.1, limit, reset)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_down_then_refuses_then_rolls_over() {
        let clock = Arc::new(ManualClock::default());
        clock.set(1_700_000_000_000 - 1_700_000_000_000 % WINDOW_MS + 15_000);
        let limiter = LocalLimiter::new(clock.clone());
        let id: Arc<str> = Arc::from("key_a");
        let remaining: Vec<u64> = (0..3).map(|_| limiter.check(&id, 3).remaining).collect();
        assert_eq!(remaining, vec![2, 1, 0]);
        let refused = limiter.check(&id, 3);
        assert!(!refused.allowed);
        assert_eq!(refused.reset_secs, 45);
        // Another key has its own window.
        assert!(limiter.check(&Arc::from("key_b"), 3).allowed);
        // The next UTC minute starts afresh.
        clock.set(clock.now_ms() + 45_000);
        let d = limiter.check(&id, 3);
        assert!(d.allowed);
        assert_eq!(d.remaining, 2);
        assert_eq!(d.reset_secs, 60);
    }

    #[test]
    fn reset_is_at_least_one_second() {
        assert_eq!(window_of(59_999), (0, 1));
        assert_eq!(window_of(60_000), (60_000, 60));
        assert_eq!(window_of(60_001), (60_000, 60));
        assert_eq!(window_of(119_000), (60_000, 1));
    }

    #[test]
    fn exact_under_concurrency() {
        // A fixed clock keeps every request in one window, so the count is exact by construction of the test.
        let clock = Arc::new(ManualClock::default());
        clock.set(42 * WINDOW_MS + 1_000);
        let limiter = Arc::new(LocalLimiter::new(clock));
        let id: Arc<str> = Arc::from("key_c");
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let l = limiter.clone();
                let id = id.clone();
                std::thread::spawn(move || (0..50).filter(|_| l.check(&id, 100).allowed).count())
            })
            .collect();
        let ok: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(ok, 100);
    }

    #[test]
    fn a_slot_counts_down_then_refuses_then_rolls_over() {
        let clock = Arc::new(ManualClock::default());
        clock.set(1_700_000_000_000 - 1_700_000_000_000 % WINDOW_MS + 15_000);
        let limiter = LocalLimiter::new(clock.clone());
        let (slot, other) = (RateSlot::default(), RateSlot::default());
        let remaining: Vec<u64> = (0..3).map(|_| limiter.check_slot(&slot, 3).remaining).collect();
        assert_eq!(remaining, vec![2, 1, 0]);
        let refused = limiter.check_slot(&slot, 3);
        assert!(!refused.allowed);
        assert_eq!(refused.reset_secs, 45);
        assert!(limiter.check_slot(&other, 3).allowed);
        clock.set(clock.now_ms() + 45_000);
        let d = limiter.check_slot(&slot, 3);
        assert_eq!((d.allowed, d.remaining, d.reset_secs), (true, 2, 60));
        // A clock set back a window starts that window afresh too, as the map's counts do.
        clock.set(clock.now_ms() - WINDOW_MS);
        assert_eq!(limiter.check_slot(&slot, 3).remaining, 2);
    }

    #[test]
    fn a_slot_is_exact_when_many_start_a_window_at_once() {
        // The word holds a full earlier window; eight threads then count in the next one together, so several
        // find the old minute at once and race to start the new window: none of their requests may be lost or
        // counted twice.
        for _ in 0..20 {
            let slot = Arc::new(RateSlot::default());
            for _ in 0..1_000 {
                slot.count(41 * WINDOW_MS);
            }
            let start = Arc::new(std::sync::Barrier::new(8));
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    let (slot, start) = (slot.clone(), start.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        (0..50).filter(|_| slot.count(42 * WINDOW_MS) <= 100).count()
                    })
                })
                .collect();
            let allowed: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
            assert_eq!(allowed, 100);
            assert_eq!(slot.count(42 * WINDOW_MS), 401, "every request counted once");
        }
    }

    #[test]
    fn a_slot_never_carries_a_huge_count_into_the_minute() {
        let slot = RateSlot::default();
        let window = 42 * WINDOW_MS;
        slot.0.store((42 << RateSlot::COUNT_BITS) | (RateSlot::COUNT_CAREFUL - 2), Ordering::Relaxed);
        let counts: Vec<u64> = (0..4).map(|_| slot.count(window)).collect();
        assert_eq!(
            counts,
            vec![
                RateSlot::COUNT_CAREFUL - 1,
                RateSlot::COUNT_CAREFUL,
                RateSlot::COUNT_CAREFUL,
                RateSlot::COUNT_CAREFUL
            ]
        );
        assert_eq!(slot.0.load(Ordering::Relaxed) >> RateSlot::COUNT_BITS, 42, "still the same minute");
        assert_eq!(slot.count(window + WINDOW_MS), 1, "the next window starts afresh");
    }
}
