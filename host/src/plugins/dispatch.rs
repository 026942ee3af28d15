//! How a request reaches a plugin, in both isolation modes: a small dedicated pool of handler threads, a
//! per-call deadline, a cap on the threads one plugin may hold, and a circuit breaker per plugin.
//!
//! Why a pool of our own: a synchronous handler cannot be interrupted, so a real deadline for the client needs
//! the handler on another thread than the connection. tokio's `spawn_blocking` was measured at 0.39 of the bare
//! route against 0.71 inline (`tests/bench/run.sh pool`); its cost is a task allocation and a lock per call plus a
//! condition-variable wake even when a thread is already running. This pool wakes a thread only when one is
//! asleep, and a thread that finishes a call takes the next queued one without sleeping, so under load the
//! handoff is a queue push and a oneshot send: measured at 0.80 of the inline call in one run, where
//! `spawn_blocking` had 0.55 (BENCHMARKS.md, "Plugin calls").
//!
//! A call that overruns its deadline is answered 503 at once; the thread it holds is replaced, so the pool keeps
//! its size, and retires when the call finally returns. One plugin may hold at most `max_threads_per_plugin`
//! threads (running or overrun); its further calls wait in its own queue, and once every one of its threads is
//! held by an overrun call they are refused at once: a looping plugin cannot take the pool from the others.
//! In process mode an overrun also kills the plugin's child process (its supervisor restarts it).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::outcome::HandleOutcome;
use crate::config::PluginPolicy;

/// A unit of work for a handler thread. Returns true when the thread should retire: its call overran the
/// deadline and a replacement thread has taken its place.
type Job = Box<dyn FnOnce() -> bool + Send>;

/// The handler threads shared by every plugin.
#[derive(Clone)]
pub struct HandlerPool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    queue: Mutex<PoolQueue>,
    ready: Condvar,
}

struct PoolQueue {
    jobs: VecDeque<Job>,
    /// Threads asleep on `ready`: a push wakes one only when there is one (a wake is a system call).
    idle: usize,
}

impl HandlerPool {
    pub fn new(threads: usize) -> Self {
        let pool = Self {
            inner: Arc::new(PoolInner {
                queue: Mutex::new(PoolQueue { jobs: VecDeque::new(), idle: 0 }),
                ready: Condvar::new(),
            }),
        };
        for _ in 0..threads.max(1) {
            pool.add_thread();
        }
        pool
    }

    fn add_thread(&self) {
        let inner = self.inner.clone();
        let spawned = std::thread::Builder::new().name("plugin-handler".into()).spawn(move || loop {
            let job = {
                let mut q = inner.queue.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    if let Some(job) = q.jobs.pop_front() {
                        break job;
                    }
                    q.idle += 1;
                    q = inner.ready.wait(q).unwrap_or_else(|e| e.into_inner());
                    q.idle -= 1;
                }
            };
            if job() {
                return;
            }
        });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start a plugin handler thread");
        }
    }

    fn submit(&self, job: Job) {
        let mut q = self.inner.queue.lock().unwrap_or_else(|e| e.into_inner());
        q.jobs.push_back(job);
        let wake = q.idle > 0;
        drop(q);
        if wake {
            self.inner.ready.notify_one();
        }
    }
}

/// The per-plugin part: thread slots and the breaker.
pub struct Guard {
    slug: String,
    pub policy: PluginPolicy,
    slots: Mutex<Slots>,
    breaker: Mutex<Breaker>,
}

#[derive(Default)]
struct Slots {
    /// Handler threads this plugin holds (running, overrun, or queued in the pool).
    running: usize,
    /// Of those, calls that overran their deadline and still run.
    overdue: usize,
    /// Calls waiting for one of this plugin's slots.
    pending: VecDeque<Job>,
}

/// What became of a call.
pub enum CallOutcome {
    /// The plugin answered (or its process failed while answering: `HandleOutcome::Unavailable`).
    Done(HandleOutcome),
    /// No answer within the deadline.
    Timeout { after: Duration },
    /// The breaker is open: answered at once.
    BreakerOpen { retry_after: Duration },
    /// No slot for the call: refused at once.
    Overloaded { reason: String },
}

// A call's life, shared by the handler thread and the waiting request.
const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const DONE: u8 = 2;
const ABANDONED: u8 = 3;
const OVERDUE: u8 = 4;

/// Why a call was not queued for its plugin (answered 503 with this text).
#[derive(Debug, thiserror::Error)]
enum Overload {
    #[error("all {0} of its handler threads are held by calls that overran their deadline")]
    ThreadsHeld(usize),
    #[error("{0} calls are already waiting for it")]
    QueueFull(usize),
}

impl Guard {
    pub fn new(slug: &str, policy: PluginPolicy) -> Self {
        let guard = Self {
            slug: slug.to_string(),
            policy,
            slots: Mutex::default(),
            breaker: Mutex::new(Breaker { state: BreakerState::Closed, faults: VecDeque::new() }),
        };
        guard.publish(&BreakerState::Closed);
        guard
    }

    fn enqueue(&self, pool: &HandlerPool, job: Job) -> Result<(), Overload> {
        let max = self.policy.max_threads.max(1);
        let mut s = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if s.overdue >= max {
            return Err(Overload::ThreadsHeld(max));
        }
        if s.running < max {
            s.running += 1;
            drop(s);
            pool.submit(job);
            Ok(())
        } else if s.pending.len() < self.policy.max_queued {
            s.pending.push_back(job);
            Ok(())
        } else {
            Err(Overload::QueueFull(s.pending.len()))
        }
    }

    /// A call left its thread: the next waiting call of this plugin takes the slot.
    fn finished(&self, pool: &HandlerPool, was_overdue: bool) {
        let mut s = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if was_overdue {
            s.overdue -= 1;
        }
        match s.pending.pop_front() {
            Some(next) => {
                drop(s);
                pool.submit(next);
            }
            None => s.running -= 1,
        }
    }

    /// Whether a call may go ahead (`Ok(true)`: as the half-open trial), or how long the breaker stays open.
    fn admit(&self) -> Result<bool, Duration> {
        let mut b = self.breaker.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        match b.state {
            BreakerState::Closed => Ok(false),
            BreakerState::Open { until } if now < until => Err(until - now),
            BreakerState::Open { .. } | BreakerState::HalfOpen { trial: false } => {
                b.state = BreakerState::HalfOpen { trial: true };
                self.publish(&b.state);
                Ok(true)
            }
            // One trial at a time; the others are answered as if the breaker were still open.
            BreakerState::HalfOpen { trial: true } => Err(Duration::from_secs(1)),
        }
    }

    /// Counts a call's verdict; opens, closes or re-opens the breaker.
    fn record(&self, verdict: Verdict, trial: bool) {
        let config = self.policy.breaker;
        if config.failures == 0 {
            return;
        }
        let mut b = self.breaker.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let before = b.state;
        match verdict {
            Verdict::Success if trial || matches!(b.state, BreakerState::HalfOpen { .. }) => {
                b.state = BreakerState::Closed;
                b.faults.clear();
            }
            Verdict::Success => {}
            Verdict::Neutral if trial => b.state = BreakerState::HalfOpen { trial: false },
            Verdict::Neutral => {}
            Verdict::Fault if trial || matches!(b.state, BreakerState::HalfOpen { .. }) => {
                b.state = BreakerState::Open { until: now + config.cooldown };
            }
            Verdict::Fault => {
                b.faults.push_back(now);
                while b.faults.front().is_some_and(|t| now.duration_since(*t) > config.window) {
                    b.faults.pop_front();
                }
                if b.faults.len() >= config.failures && matches!(b.state, BreakerState::Closed) {
                    b.state = BreakerState::Open { until: now + config.cooldown };
                    b.faults.clear();
                }
            }
        }
        if std::mem::discriminant(&before) != std::mem::discriminant(&b.state) {
            match b.state {
                BreakerState::Open { .. } => tracing::error!(plugin = %self.slug,
                    cooldown_ms = config.cooldown.as_millis() as u64, "circuit breaker open: answering 503 at once"),
                BreakerState::Closed => tracing::info!(plugin = %self.slug, "circuit breaker closed: serving again"),
                BreakerState::HalfOpen { .. } => {}
            }
            self.publish(&b.state);
        }
    }

    fn publish(&self, state: &BreakerState) {
        metrics::gauge!("datahost_plugin_breaker_state", "plugin" => self.slug.clone()).set(state.gauge());
    }

    /// `closed`, `open` or `half-open`, for `/health`.
    pub fn breaker_state(&self) -> &'static str {
        let b = self.breaker.lock().unwrap_or_else(|e| e.into_inner());
        match b.state {
            BreakerState::Open { until } if Instant::now() >= until => "half-open",
            s => s.name(),
        }
    }

    /// Calls holding a thread past their deadline right now.
    pub fn overdue(&self) -> usize {
        self.slots.lock().unwrap_or_else(|e| e.into_inner()).overdue
    }
}

enum Verdict {
    Success,
    Fault,
    /// Says nothing about the plugin (its process is not running yet, or the call never started).
    Neutral,
}

#[derive(Debug, Clone, Copy)]
enum BreakerState {
    Closed,
    Open { until: Instant },
    HalfOpen { trial: bool },
}

impl BreakerState {
    fn name(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open { .. } => "open",
            BreakerState::HalfOpen { .. } => "half-open",
        }
    }

    /// The `datahost_plugin_breaker_state` gauge: 0 closed, 1 half-open, 2 open.
    fn gauge(self) -> f64 {
        match self {
            BreakerState::Closed => 0.0,
            BreakerState::HalfOpen { .. } => 1.0,
            BreakerState::Open { .. } => 2.0,
        }
    }
}

struct Breaker {
    state: BreakerState,
    /// When the recent faults happened (within the window).
    faults: VecDeque<Instant>,
}

/// What `call` runs a request through: a loaded plugin (`LoadedPlugin` in `mod.rs`), seen only through what a
/// call needs, so the pool and the breaker do not depend on the loader.
pub trait Callee: Send + Sync + 'static {
    /// Its thread slots, deadline and circuit breaker.
    fn guard(&self) -> &Guard;
    /// Its `handle`, on the calling (handler) thread.
    fn handle(&self, request_json: &str) -> HandleOutcome;
    /// The call overran its deadline (a plugin process is killed and restarted).
    fn overran(&self);
}

/// Runs one request through `plugin` on the handler pool, with its deadline, thread cap and breaker.
pub async fn call<P: Callee>(pool: &HandlerPool, plugin: &Arc<P>, envelope_json: String) -> CallOutcome {
    let guard = plugin.guard();
    let trial = match guard.admit() {
        Ok(trial) => trial,
        Err(retry_after) => return CallOutcome::BreakerOpen { retry_after },
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let life = Arc::new(AtomicU8::new(QUEUED));
    let job: Job = {
        let plugin = plugin.clone();
        let life = life.clone();
        let pool = pool.clone();
        Box::new(move || {
            let mut overdue = false;
            if life.compare_exchange(QUEUED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                let _ = tx.send(plugin.handle(&envelope_json));
                overdue = life.swap(DONE, Ordering::AcqRel) == OVERDUE;
            }
            plugin.guard().finished(&pool, overdue);
            overdue
        })
    };
    if let Err(reason) = guard.enqueue(pool, job) {
        guard.record(Verdict::Neutral, trial);
        return CallOutcome::Overloaded { reason: reason.to_string() };
    }
    let deadline = guard.policy.deadline;
    match tokio::time::timeout(deadline, rx).await {
        Ok(Ok(outcome)) => {
            let verdict = match &outcome {
                HandleOutcome::Panic { .. } | HandleOutcome::Unavailable { crashed: true, .. } => Verdict::Fault,
                HandleOutcome::Unavailable { crashed: false, .. } => Verdict::Neutral,
                _ => Verdict::Success,
            };
            guard.record(verdict, trial);
            CallOutcome::Done(outcome)
        }
        Ok(Err(_)) => {
            guard.record(Verdict::Fault, trial);
            CallOutcome::Done(HandleOutcome::Unavailable {
                message: "the handler thread ended without an answer".into(),
                crashed: true,
            })
        }
        Err(_) => {
            if life.compare_exchange(QUEUED, ABANDONED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                // It never started (the plugin's queue was long): nothing is stuck, the plugin did nothing wrong.
                guard.record(Verdict::Neutral, trial);
                return CallOutcome::Timeout { after: deadline };
            }
            let mut s = guard.slots.lock().unwrap_or_else(|e| e.into_inner());
            if life.compare_exchange(RUNNING, OVERDUE, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                s.overdue += 1;
                drop(s);
                // The overrun call keeps its thread; a new one takes its place in the pool.
                pool.add_thread();
                plugin.overran();
            }
            guard.record(Verdict::Fault, trial);
            CallOutcome::Timeout { after: deadline }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BreakerConfig, Isolation, ProcessConfig};

    fn guard(failures: usize, cooldown_ms: u64) -> Guard {
        Guard::new(
            "t",
            PluginPolicy {
                isolation: Isolation::InProcess,
                deadline: Duration::from_secs(1),
                max_threads: 2,
                max_queued: 1,
                breaker: BreakerConfig {
                    failures,
                    window: Duration::from_secs(60),
                    cooldown: Duration::from_millis(cooldown_ms),
                },
                process: ProcessConfig {
                    start_timeout: Duration::from_secs(1),
                    init_timeout: Duration::from_secs(1),
                    backoff: Duration::from_millis(1),
                    backoff_max: Duration::from_millis(1),
                },
            },
        )
    }

    #[test]
    fn breaker_opens_after_repeated_faults_and_a_successful_trial_closes_it() {
        let g = guard(3, 0);
        for _ in 0..2 {
            assert_eq!(g.admit(), Ok(false));
            g.record(Verdict::Fault, false);
        }
        g.record(Verdict::Success, false);
        assert_eq!(g.breaker_state(), "closed", "a success between faults does not reset the window count");
        g.record(Verdict::Fault, false);
        assert_eq!(g.breaker_state(), "half-open", "open with a cool-down of zero reads as half-open");
        assert_eq!(g.admit(), Ok(true), "the first call after the cool-down is the trial");
        assert!(g.admit().is_err(), "one trial at a time");
        g.record(Verdict::Fault, true);
        assert_eq!(g.admit(), Ok(true), "a failed trial re-opens it (cool-down zero: next trial at once)");
        g.record(Verdict::Success, true);
        assert_eq!(g.breaker_state(), "closed");
        assert_eq!(g.admit(), Ok(false));
    }

    #[test]
    fn an_open_breaker_refuses_until_the_cool_down_ends() {
        let g = guard(1, 60_000);
        g.record(Verdict::Fault, false);
        assert_eq!(g.breaker_state(), "open");
        assert!(g.admit().unwrap_err() > Duration::from_secs(50));
        let off = guard(0, 60_000);
        for _ in 0..10 {
            off.record(Verdict::Fault, false);
        }
        assert_eq!(off.admit(), Ok(false), "failures = 0 turns the breaker off");
    }

    #[test]
    fn a_plugin_holds_at_most_its_threads_and_waits_in_its_own_queue() {
        let pool = HandlerPool::new(1);
        let g = guard(0, 0);
        let gate = Arc::new(std::sync::Barrier::new(3));
        for _ in 0..2 {
            let gate = gate.clone();
            g.enqueue(
                &HandlerPool::new(1),
                Box::new(move || {
                    gate.wait();
                    false
                }),
            )
            .unwrap();
        }
        g.enqueue(&pool, Box::new(|| false)).unwrap();
        let full = g.enqueue(&pool, Box::new(|| false)).unwrap_err();
        assert!(matches!(full, Overload::QueueFull(1)), "{full:?}");
        assert!(full.to_string().contains("already waiting"), "{full}");
        {
            let mut s = g.slots.lock().unwrap();
            s.overdue = 2;
        }
        let held = g.enqueue(&pool, Box::new(|| false)).unwrap_err();
        assert!(matches!(held, Overload::ThreadsHeld(2)), "{held:?}");
        assert!(held.to_string().contains("overran"), "{held}");
        gate.wait();
    }
}
