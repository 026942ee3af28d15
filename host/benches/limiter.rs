//! The in-process limiter counting a request, as the hot path's pro rows do (`tests/bench/run.sh`): both worker
//! threads at once, 4,000 keys in rotation. Two ways: in the key's own slot (`RateSlot`, kept with the key's entry
//! in the key view: what a key's request counts in) and in the sharded map by id (a marketplace caller, a
//! failed-credential count; every key's request before stop 55). Each iteration is one request counted by each
//! thread; the time is the wall time of the two threads together. `cargo bench -p datahost --bench limiter`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use datahost::ratelimit::{LocalLimiter, RateSlot, SystemClock};

const KEYS: usize = 4_000;
const THREADS: usize = 2;

struct Keys {
    ids: Vec<Arc<str>>,
    slots: Vec<Arc<RateSlot>>,
    limiter: LocalLimiter,
}

/// `iters` requests per thread, each for a key picked at random, counted by `count`; the wall time.
fn counted(keys: &Keys, iters: u64, count: impl Fn(&Keys, usize) -> bool + Sync) -> Duration {
    let start = Instant::now();
    std::thread::scope(|s| {
        for thread in 0..THREADS {
            let count = &count;
            s.spawn(move || {
                // xorshift: a key per request without a shared generator.
                let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ thread as u64;
                let mut allowed = 0u64;
                for _ in 0..iters {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    allowed += u64::from(count(keys, (x % KEYS as u64) as usize));
                }
                std::hint::black_box(allowed);
            });
        }
    });
    start.elapsed()
}

fn limiter(c: &mut Criterion) {
    let keys = Keys {
        ids: (0..KEYS).map(|i| Arc::from(format!("key_{:012x}", i * 7_919))).collect(),
        slots: (0..KEYS).map(|_| Arc::default()).collect(),
        limiter: LocalLimiter::new(Arc::new(SystemClock)),
    };
    let mut group = c.benchmark_group("two_threads_4000_keys");
    group.bench_function("key_slot", |b| {
        b.iter_custom(|iters| {
            counted(&keys, iters, |k, i| {
                // The request path hands the slot out with the key's look-up.
                let slot = k.slots[i].clone();
                k.limiter.check_slot(&slot, u64::MAX).allowed
            })
        })
    });
    group.bench_function("sharded_map_by_id", |b| {
        b.iter_custom(|iters| counted(&keys, iters, |k, i| k.limiter.check(&k.ids[i], u64::MAX).allowed))
    });
    group.finish();
}

criterion_group!(benches, limiter);
criterion_main!(benches);
