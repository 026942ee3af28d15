//! How a request reaches a plugin, in both isolation modes: a small dedicated pool of handler threads, a
//! per-call deadline, a cap on the calls running at once, a cap on the threads one plugin may hold, and a circuit
//! breaker per plugin.
//!
//! Why a pool of our own: a synchronous handler cannot be interrupted, so a real deadline for the client needs
//! the handler on another thread than the connection. tokio's `spawn_blocking` was measured at 0.39 of the bare
//! route against 0.71 inline (`tests/bench/run.sh pool`); its cost is a task allocation and a lock per call plus a
//! condition-variable wake even when a thread is already running. This pool wakes a thread only when one is
//! asleep, and a thread that finishes a call takes the next queued one without sleeping, so under load the
//! handoff is a queue push and a oneshot send: measured at 0.80 of the inline call in one run, where
//! `spawn_blocking` had 0.55 (BENCHMARKS.md, "Plugin calls").
//!
//! Why a cap on running calls: the pool has more threads than cores (`plugins.handler_threads`) so that calls
//! waiting on the records engine (PostgreSQL) or on a plugin process do not hold up the others, but calls that
//! compute would then share the cores eight ways with the async workers, each switch costing more than the call's
//! share of work. At most `plugins.running_calls` calls (one more than the cores by default) run at once; a call
//! that waits in the records engine or on its plugin process (`blocking`) leaves its place to the next for the
//! time it waits. A free place goes to the thread that slept least (its caches are warm).
//!
//! A call that overruns its deadline is answered 503 at once; the thread it holds is replaced, so the pool keeps
//! its size, it no longer counts against the running cap, and the thread retires when the call finally returns.
//! One plugin may hold at most `max_threads_per_plugin` threads (running or overrun); its further calls wait in
//! its own queue, and once every one of its threads is held by an overrun call they are refused at once: a
//! looping plugin cannot take the pool from the others. In process mode an overrun also kills the plugin's child
//! process (its supervisor restarts it).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::outcome::HandleOutcome;
use crate::config::PluginPolicy;

/// A unit of work for a handler thread, started counted as running (`PoolQueue::working`). Returns true when its
/// call overran the deadline: it was uncounted then, and the thread retires (a replacement has taken its place).
type Job = Box<dyn FnOnce() -> bool + Send>;

/// The handler threads shared by every plugin.
#[derive(Clone)]
pub struct HandlerPool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    queue: Mutex<PoolQueue>,
    /// Calls that may run at once (`plugins.running_calls`).
    running_cap: usize,
}

struct PoolQueue {
    jobs: VecDeque<Job>,
    /// Threads asleep, the most recent last: a push wakes one only when there is one (a wake is a system call),
    /// and the one that slept least, whose caches and core are warmest (a condition variable wakes the one that
    /// slept longest: measured slower with eight threads than a pool of two, BENCHMARKS.md).
    sleepers: Vec<Arc<Sleeper>>,
    /// Threads running a call that counts against `running_cap`: not waiting (`blocking`), not overrun.
    working: usize,
    /// Threads woken that have not yet looked at the queue: each is counted as taking a place and a job, or a
    /// burst of pushes would wake a thread for each while the first ones wait for a core.
    waking: usize,
}

/// A handler thread asleep in `park`, and whether it was woken (`park` may also return for no reason).
struct Sleeper {
    thread: std::thread::Thread,
    woken: AtomicBool,
}

impl PoolQueue {
    /// A queued job, when a running place is free (taking the place).
    fn take(&mut self, running_cap: usize) -> Option<Job> {
        if self.working >= running_cap {
            return None;
        }
        let job = self.jobs.pop_front()?;
        self.working += 1;
        Some(job)
    }

    /// The sleeping thread to wake, taken off the list, when a job waits and a place is free for it that no
    /// thread already woken will take.
    fn sleeper_to_wake(&mut self, running_cap: usize) -> Option<Arc<Sleeper>> {
        if self.working + self.waking >= running_cap || self.jobs.len() <= self.waking {
            return None;
        }
        let sleeper = self.sleepers.pop()?;
        self.waking += 1;
        Some(sleeper)
    }
}

impl Sleeper {
    /// Outside the queue's lock.
    fn wake(&self) {
        self.woken.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

impl HandlerPool {
    /// `threads` handler threads, of which at most `running_cap` run calls at once (both at least 1).
    pub fn new(threads: usize, running_cap: usize) -> Self {
        let pool = Self {
            inner: Arc::new(PoolInner {
                queue: Mutex::new(PoolQueue { jobs: VecDeque::new(), sleepers: Vec::new(), working: 0, waking: 0 }),
                running_cap: running_cap.max(1),
            }),
        };
        for _ in 0..threads.max(1) {
            pool.add_thread();
        }
        pool
    }

    fn add_thread(&self) {
        let inner = self.inner.clone();
        let spawned = std::thread::Builder::new().name("plugin-handler".into()).spawn(move || {
            batch_scheduling();
            HANDLER_POOL.with(|p| *p.borrow_mut() = Some(inner.clone()));
            let me = Arc::new(Sleeper { thread: std::thread::current(), woken: AtomicBool::new(false) });
            let mut q = inner.lock();
            loop {
                let job = loop {
                    if let Some(job) = q.take(inner.running_cap) {
                        break job;
                    }
                    q.sleepers.push(me.clone());
                    drop(q);
                    while !me.woken.swap(false, Ordering::Acquire) {
                        std::thread::park();
                    }
                    q = inner.lock();
                    q.waking -= 1;
                };
                drop(q);
                let overran = job();
                q = inner.lock();
                if overran {
                    return;
                }
                // The place is this thread's to reuse: the loop takes the next job without a wake.
                q.working -= 1;
            }
        });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start a plugin handler thread");
        }
    }

    fn submit(&self, job: Job) {
        let mut q = self.inner.lock();
        q.jobs.push_back(job);
        self.inner.wake_for(q);
    }
}

impl PoolInner {
    fn lock(&self) -> MutexGuard<'_, PoolQueue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A running call stopped counting (it waits, or it overran): its place goes to a queued job.
    fn leave(&self) {
        let mut q = self.lock();
        q.working -= 1;
        self.wake_for(q);
    }

    /// After a change to the queue: wakes a sleeping thread (outside the lock) when a job now has a free place.
    fn wake_for(&self, mut q: MutexGuard<'_, PoolQueue>) {
        let sleeper = q.sleeper_to_wake(self.running_cap);
        drop(q);
        if let Some(sleeper) = sleeper {
            sleeper.wake();
        }
    }

    /// A call that waited counts again (possibly above the cap for a moment: it does not queue for its place).
    fn rejoin(&self) {
        self.lock().working += 1;
    }
}

/// Handler threads are `SCHED_BATCH`: one woken for a queued call does not preempt the async worker that queued it
/// (the worker goes on with its other connections; the handler runs at the next scheduling point), which halved
/// the context switches around a plugin call (BENCHMARKS.md). Their share of the CPU is unchanged (nice 0).
fn batch_scheduling() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: sets the calling thread's policy (pid 0 is the caller on Linux) from a valid parameter.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) } != 0 {
            tracing::debug!(error = %std::io::Error::last_os_error(), "plugin handler thread stays SCHED_OTHER");
        }
    }
}

thread_local! {
    /// The pool of this handler thread (set once, as it starts), for `blocking`.
    static HANDLER_POOL: RefCell<Option<Arc<PoolInner>>> = const { RefCell::new(None) };
    /// The call this handler thread runs, for `blocking`.
    static CURRENT_CALL: RefCell<Option<Arc<AtomicU8>>> = const { RefCell::new(None) };
}

/// Runs `wait` (a records-engine query, a plugin process's answer) as a wait: when called by a plugin call on a
/// handler thread, the call leaves its running place to a queued one until `wait` returns. Anywhere else (a thread
/// of a plugin's own, ingest, start-up) it just runs `wait`.
pub fn blocking<T>(wait: impl FnOnce() -> T) -> T {
    struct Rejoin<'a>(&'a PoolInner, &'a AtomicU8);
    impl Drop for Rejoin<'_> {
        fn drop(&mut self) {
            if self.1.fetch_and(!WAITING, Ordering::AcqRel) & !WAITING == RUNNING {
                self.0.rejoin();
            }
        }
    }
    let Some(life) = CURRENT_CALL.with(|c| c.borrow().clone()) else { return wait() };
    let Some(pool) = HANDLER_POOL.with(|p| p.borrow().clone()) else { return wait() };
    let before = life.fetch_or(WAITING, Ordering::AcqRel);
    if before & WAITING != 0 {
        return wait(); // already waiting (a nested wait): the outer one rejoins
    }
    if before == RUNNING {
        pool.leave();
    }
    let _rejoin = Rejoin(&pool, &life);
    wait()
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
/// Set beside RUNNING or OVERDUE while the call waits (`blocking`): it does not count against the running cap.
const WAITING: u8 = 0x10;

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
                CURRENT_CALL.with(|c| *c.borrow_mut() = Some(life.clone()));
                // A panic of host code around the call (a plugin's own is caught at the boundary) ends the call
                // without an answer and keeps the thread, its running place and the plugin's slot accounted.
                let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| plugin.handle(&envelope_json)));
                CURRENT_CALL.with(|c| *c.borrow_mut() = None);
                if let Ok(answer) = answer {
                    let _ = tx.send(answer);
                }
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
            let overran = life.fetch_update(Ordering::AcqRel, Ordering::Acquire, |l| {
                (l & !WAITING == RUNNING).then_some(OVERDUE | (l & WAITING))
            });
            if let Ok(was) = overran {
                s.overdue += 1;
                drop(s);
                if was & WAITING == 0 {
                    pool.inner.leave();
                }
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
    use std::sync::Condvar;

    fn guard(failures: usize, cooldown_ms: u64) -> Guard {
        guard_with_deadline(failures, cooldown_ms, Duration::from_secs(1))
    }

    fn guard_with_deadline(failures: usize, cooldown_ms: u64, deadline: Duration) -> Guard {
        Guard::new(
            "t",
            PluginPolicy {
                isolation: Isolation::InProcess,
                deadline,
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
        let pool = HandlerPool::new(1, 1);
        let g = guard(0, 0);
        let gate = Arc::new(std::sync::Barrier::new(3));
        for _ in 0..2 {
            let gate = gate.clone();
            g.enqueue(
                &HandlerPool::new(1, 1),
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

    /// A plugin whose `handle` runs `work`.
    struct Plugin {
        guard: Guard,
        work: Box<dyn Fn() + Send + Sync>,
    }

    impl Callee for Plugin {
        fn guard(&self) -> &Guard {
            &self.guard
        }
        fn handle(&self, _request_json: &str) -> HandleOutcome {
            (self.work)();
            HandleOutcome::Response {
                status: 200,
                body: b"{}".to_vec(),
                data_status: "demo",
                headers: Vec::new(),
                written_json: false,
            }
        }
        fn overran(&self) {}
    }

    fn plugin(deadline: Duration, work: impl Fn() + Send + Sync + 'static) -> Arc<Plugin> {
        let mut guard = guard_with_deadline(0, 0, deadline);
        guard.policy.max_threads = 8;
        guard.policy.max_queued = 8;
        Arc::new(Plugin { guard, work: Box::new(work) })
    }

    /// How many calls are inside a section at once, and the most there were.
    #[derive(Default)]
    struct Overlap {
        now: Mutex<(usize, usize)>,
        changed: Condvar,
    }

    impl Overlap {
        fn enter(&self) {
            let mut n = self.now.lock().unwrap();
            n.0 += 1;
            n.1 = n.1.max(n.0);
            self.changed.notify_all();
        }
        fn leave(&self) {
            self.now.lock().unwrap().0 -= 1;
        }
        fn most(&self) -> usize {
            self.now.lock().unwrap().1
        }
        /// Waits until `n` calls have been inside at once (false after two seconds).
        fn until_inside(&self, n: usize) -> bool {
            let n_now = self.now.lock().unwrap();
            let (n_now, timeout) = self.changed.wait_timeout_while(n_now, Duration::from_secs(2), |c| c.1 < n).unwrap();
            drop(n_now);
            !timeout.timed_out()
        }
    }

    fn answered(outcome: &CallOutcome) -> bool {
        matches!(outcome, CallOutcome::Done(HandleOutcome::Response { status: 200, .. }))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn computing_calls_run_at_most_running_calls_at_once_and_waiting_calls_do_not_count() {
        let pool = HandlerPool::new(4, 1);
        let computing = Arc::new(Overlap::default());
        let c = computing.clone();
        let compute = plugin(Duration::from_secs(5), move || {
            c.enter();
            std::thread::sleep(Duration::from_millis(20));
            c.leave();
        });
        let calls = (0..4).map(|_| call(&pool, &compute, String::new()));
        let outcomes = futures_util::future::join_all(calls).await;
        assert!(outcomes.iter().all(answered));
        assert_eq!(computing.most(), 1, "four calls on four threads, one running place");

        // Four calls that wait (as in the records engine) all wait at once: each waits until all four are inside.
        let waiting = Arc::new(Overlap::default());
        let w = waiting.clone();
        let wait = plugin(Duration::from_secs(5), move || {
            blocking(|| {
                w.enter();
                let all_in = w.until_inside(4);
                w.leave();
                assert!(all_in, "a waiting call kept its running place");
            })
        });
        let calls = (0..4).map(|_| call(&pool, &wait, String::new()));
        let outcomes = futures_util::future::join_all(calls).await;
        assert!(outcomes.iter().all(answered), "every waiting call answered");
        assert_eq!(waiting.most(), 4);

        // Outside a handler thread `blocking` just runs its closure.
        assert_eq!(blocking(|| 7), 7);
        // A thread gives its place back just after its answer is sent.
        let given_back = Instant::now() + Duration::from_secs(2);
        while pool.inner.lock().working > 0 && Instant::now() < given_back {
            std::thread::sleep(Duration::from_millis(5));
        }
        let q = pool.inner.lock();
        assert_eq!((q.working, q.jobs.len()), (0, 0), "every place given back");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_that_overran_its_deadline_leaves_its_running_place() {
        let pool = HandlerPool::new(2, 1);
        let release = Arc::new((Mutex::new(false), Condvar::new()));
        let r = release.clone();
        let stuck = plugin(Duration::from_millis(200), move || {
            let gate = r.0.lock().unwrap();
            drop(r.1.wait_timeout_while(gate, Duration::from_secs(10), |open| !*open).unwrap());
        });
        let outcome = call(&pool, &stuck, String::new()).await;
        assert!(matches!(outcome, CallOutcome::Timeout { .. }), "the stuck call overran");
        let quick = plugin(Duration::from_secs(1), || {});
        let outcome = call(&pool, &quick, String::new()).await;
        assert!(answered(&outcome), "the next call ran while the overrun one still holds its thread");
        *release.0.lock().unwrap() = true;
        release.1.notify_all();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_around_a_call_ends_it_without_an_answer_and_keeps_the_thread_and_its_place() {
        let pool = HandlerPool::new(1, 1);
        let panics = plugin(Duration::from_secs(1), || panic!("host code failed around the call"));
        let outcome = call(&pool, &panics, String::new()).await;
        assert!(
            matches!(outcome, CallOutcome::Done(HandleOutcome::Unavailable { crashed: true, .. })),
            "the call ended without an answer"
        );
        let quick = plugin(Duration::from_secs(1), || {});
        assert!(answered(&call(&pool, &quick, String::new()).await), "the one thread and place still serve");
        assert_eq!(panics.guard.slots.lock().unwrap().running, 0, "the plugin's slot given back");
    }
}
