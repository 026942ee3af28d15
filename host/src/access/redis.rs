//! Rate-limit state in Redis, shared by every replica. The counter of a key's current window (keyed by window
//! start and the key id, never the key) counts its requests by `INCRBY`; the first hit of a window also sets the
//! counter's expiry. A request usually asks for more than its own count, and the key's next requests on this
//! replica use the others without a round trip (`lease.rs`: how many, and how unused ones are given back). The
//! window is read from Redis' own clock, through the offset to the local clock learned with `TIME` when connecting
//! and once a minute after, so replicas with skewed clocks still agree. (A Lua script doing all of it in Redis cost
//! 6.8 us of Redis CPU per request against 2.4 us for an `INCR`, on the same cores as the host: BENCHMARKS.md,
//! "Redis limiter".)
//!
//! The `INCRBY`s of concurrent requests travel together: a request queues its key id and a reply slot, and one
//! batcher task sends everything queued as one pipeline whenever the previous one has returned, settles each answer
//! with the lease table and hands each request its count. The count stays exact and shared (every count in Redis
//! is used by one request at most, and given back when it is not); what is saved is the client's and the server's
//! work per request (one channel hand-off, socket write, read and wake-up per batch instead of per request:
//! BENCHMARKS.md, "Redis INCRs in batches"). A first hit's `PEXPIRE` rides in the next pipeline instead of
//! delaying its request.
//!
//! A slow or lost Redis is bounded by a short timeout (`ratelimit.redis_timeout_ms`) and decided by the fail mode:
//! a pipeline that fails or does not answer in time answers every request in it with the error, and a request
//! that waited in the queue longer than the timeout is answered with a timeout without being sent. `rediss://`
//! URLs connect over TLS (managed services require it), verified against `ratelimit.redis_tls_ca_file` or the
//! system's roots.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionLike, ConnectionManager};
use redis::Value;
use tokio::sync::{mpsc, oneshot};

use crate::access::lease::{Leases, Take};
use crate::access::ratelimit::{decide, Decision, WINDOW_MS};
use crate::access::AccessError;
use crate::config::{redact_url, FailMode};

/// How often the offset to Redis' clock is measured again.
const CLOCK_SYNC_MS: u64 = 60_000;
/// The most `INCRBY`s one pipeline carries; more queued wait for the next one.
const MAX_BATCH: usize = 512;
/// How often the batcher looks for idle leases to give back, while any are held.
const RETURN_EVERY_MS: u64 = 250;
/// First-hit expiries kept for the next pipeline while Redis cannot be reached; beyond this they are dropped (a
/// lost expiry leaves a counter that outlives its window, never a wrong count).
const MAX_PENDING_EXPIRIES: usize = 10_000;

pub struct RedisLimiter {
    store: Arc<Store>,
    fail_mode: FailMode,
    /// The batcher's queue, started at the first check (it needs the runtime).
    queue: OnceLock<mpsc::UnboundedSender<Count>>,
    reachable: AtomicBool,
    /// `datahost_ratelimit_store_up`, resolved at the first check (the recorder is installed by then) rather than
    /// looked up by name on every request.
    store_up: OnceLock<metrics::Gauge>,
    leases: Arc<Leases>,
}

/// What the batcher shares with the limiter: how to reach Redis and what it has learned about it.
struct Store {
    /// Boxed: with TLS support the client is several hundred bytes.
    client: Box<redis::Client>,
    address: String,
    /// Said after a failed connection over plain `redis://`: a TLS-only server just drops it.
    tls_hint: &'static str,
    prefix: String,
    timeout: Duration,
    /// Redis' clock minus the local one, in ms, and the local time it was measured at (0: not yet).
    clock_offset_ms: AtomicI64,
    clock_synced_ms: AtomicU64,
    /// Unix ms before which no reconnect is attempted, so a dead Redis costs nothing per request.
    retry_after_ms: AtomicU64,
}

/// One request's `INCRBY`, queued for the batcher.
struct Count {
    id: Arc<str>,
    /// How many counts to take: the request's own and those leased for the key's next requests.
    take: u64,
    /// The key's limit (counts above it are not leased) and the window the request was checked in.
    limit: u64,
    window: u64,
    queued: Instant,
    /// The request's count and the ms left in its window.
    reply: oneshot::Sender<Result<(u64, u64), AccessError>>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

impl RedisLimiter {
    pub fn new(
        url: &str,
        prefix: &str,
        timeout_ms: u64,
        fail_mode: FailMode,
        ca_file: Option<&std::path::Path>,
        lease_max: u64,
    ) -> Result<Self, AccessError> {
        crate::tls::install_crypto_provider();
        let client = match ca_file {
            None => redis::Client::open(url),
            Some(path) => {
                let pem = std::fs::read(path).map_err(|e| {
                    AccessError::RedisConfig(format!("ratelimit.redis_tls_ca_file {}: {e}", path.display()))
                })?;
                redis::Client::build_with_tls(url, redis::TlsCertificates { client_tls: None, root_cert: Some(pem) })
            }
        }
        .map_err(|e| AccessError::RedisConfig(format!("ratelimit.redis_url {}: {e}", redact_url(url))))?;
        let store = Store {
            client: Box::new(client),
            address: redact_url(url),
            tls_hint: if url.starts_with("redis://") {
                " (a server that accepts only TLS needs a rediss:// URL)"
            } else {
                ""
            },
            prefix: prefix.to_string(),
            timeout: Duration::from_millis(timeout_ms),
            clock_offset_ms: AtomicI64::new(0),
            clock_synced_ms: AtomicU64::new(0),
            retry_after_ms: AtomicU64::new(0),
        };
        Ok(Self {
            store: Arc::new(store),
            fail_mode,
            queue: OnceLock::new(),
            reachable: AtomicBool::new(true),
            store_up: OnceLock::new(),
            leases: Arc::new(Leases::new(lease_max)),
        })
    }

    pub fn fails_open(&self) -> bool {
        self.fail_mode == FailMode::Open
    }

    pub fn is_reachable(&self) -> bool {
        self.reachable.load(Ordering::Relaxed)
    }

    pub async fn check(&self, id: &Arc<str>, limit: u64) -> Result<Decision, AccessError> {
        let local = now_ms();
        let now = self.store.redis_now(local);
        let window = now - now % WINDOW_MS;
        let take = match self.leases.take(id, window, limit, local) {
            Take::Count(count) => {
                return Ok(decide(count, limit, (window + WINDOW_MS - now).div_ceil(1000).max(1)));
            }
            Take::Ask(take) => take,
        };
        let queue = self.queue.get_or_init(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            // Ends when the limiter (the only sender) is dropped.
            tokio::spawn(run_batcher(self.store.clone(), self.leases.clone(), rx));
            tx
        });
        let (reply, answer) = oneshot::channel();
        let count = Count { id: id.clone(), take, limit, window, queued: Instant::now(), reply };
        let result = match queue.send(count) {
            // The batcher answers every request it takes (bounded by the timeout); a closed slot means it is
            // gone (its runtime shut down), never a wait.
            Ok(()) => answer.await.unwrap_or_else(|_| Err(self.store.stopped())),
            Err(_) => Err(self.store.stopped()),
        }
        .map(|(count, reset_ms)| decide(count, limit, reset_ms.div_ceil(1000).max(1)));
        let ok = result.is_ok();
        if self.reachable.load(Ordering::Relaxed) != ok && self.reachable.swap(ok, Ordering::Relaxed) != ok {
            if ok {
                tracing::info!(redis = %self.store.address, "rate-limit store reachable again");
            } else {
                tracing::warn!(redis = %self.store.address, "rate-limit store unreachable");
            }
        }
        let store_up = self.store_up.get_or_init(|| metrics::gauge!("datahost_ratelimit_store_up"));
        store_up.set(if ok { 1.0 } else { 0.0 });
        result
    }
}

/// Sends what requests have queued as one pipeline at a time, with the idle leases given back, until the limiter
/// is dropped.
async fn run_batcher(store: Arc<Store>, leases: Arc<Leases>, mut queue: mpsc::UnboundedReceiver<Count>) {
    let mut conn: Option<ConnectionManager> = None;
    let mut batch: Vec<Count> = Vec::with_capacity(MAX_BATCH);
    let mut pipe = redis::Pipeline::with_capacity(MAX_BATCH);
    let mut key = String::new();
    // Counters whose window started with this batch's predecessor: their `PEXPIRE` goes with the next pipeline.
    let mut expiries: Vec<String> = Vec::new();
    // Idle leases' counts to give back (key, count), and when to look for more.
    let mut returns: Vec<(String, u64)> = Vec::new();
    let mut next_return_ms = 0;
    // Set when a pipeline made new expiries: they go out at once. After a failure they wait for the next request
    // instead (no spinning against a Redis that is away).
    let mut flush = false;
    loop {
        if !flush {
            // While leases are held the batcher also wakes on its own, to give back those left idle.
            let received = if leases.holding() {
                tokio::select! {
                    received = queue.recv_many(&mut batch, MAX_BATCH) => Some(received),
                    () = tokio::time::sleep(Duration::from_millis(RETURN_EVERY_MS)) => None,
                }
            } else {
                Some(queue.recv_many(&mut batch, MAX_BATCH).await)
            };
            if received == Some(0) {
                return;
            }
        } else {
            // Expiries to send: go now with whatever is queued, even nothing.
            while batch.len() < MAX_BATCH {
                match queue.try_recv() {
                    Ok(count) => batch.push(count),
                    Err(_) => break,
                }
            }
        }
        // Requests that waited longer than the timeout (behind a slow pipeline) are answered now, uncounted.
        let late = batch.iter().any(|c| c.queued.elapsed() > store.timeout);
        if late {
            for count in batch.extract_if(.., |c| c.queued.elapsed() > store.timeout) {
                leases.unask(&count.id, count.window);
                let _ = count.reply.send(Err(store.no_answer()));
            }
        }
        let local = now_ms();
        if local >= next_return_ms && leases.holding() {
            next_return_ms = local + RETURN_EVERY_MS;
            let now = store.redis_now(local);
            for lease in leases.idle(now - now % WINDOW_MS, local) {
                returns.push((format!("{}:{}:{}", store.prefix, lease.window, lease.id), lease.count));
            }
        }
        if batch.is_empty() && expiries.is_empty() && returns.is_empty() {
            continue;
        }
        let sent = async {
            let c = store.connection(&mut conn).await?;
            store.sync_clock_if_stale(c).await?;
            let now = store.redis_now(now_ms());
            let window = now - now % WINDOW_MS;
            pipe.clear();
            for count in &batch {
                key.clear();
                let _ = write!(key, "{}:{window}:{}", store.prefix, count.id);
                pipe.cmd("INCRBY").arg(key.as_str()).arg(count.take);
            }
            for expired in &expiries {
                pipe.cmd("PEXPIRE").arg(expired.as_str()).arg(WINDOW_MS * 2);
            }
            // The expiry again with each: a counter Redis lost meanwhile is not left behind without one.
            for (returned, n) in &returns {
                pipe.cmd("DECRBY").arg(returned.as_str()).arg(*n);
                pipe.cmd("PEXPIRE").arg(returned.as_str()).arg(WINDOW_MS * 2);
            }
            let n = batch.len() + expiries.len() + 2 * returns.len();
            match tokio::time::timeout(store.timeout, c.req_packed_commands(&pipe, 0, n)).await {
                Ok(Ok(values)) => Ok((values, window, window + WINDOW_MS - now)),
                Ok(Err(e)) => Err(store.failed(e)),
                Err(_) => Err(store.no_answer()),
            }
        }
        .await;
        match sent {
            Ok((values, window, reset_ms)) => {
                // The expiries and returns just sent are done with (their replies are not needed: a lost expiry
                // only leaves a counter that outlives its window, a lost return counts that were not used).
                expiries.clear();
                returns.clear();
                flush = false;
                let mut values = values.into_iter();
                for count in batch.drain(..) {
                    let result = match values.next() {
                        Some(Value::Int(n)) if n > 0 => {
                            if n as u64 == count.take {
                                expiries.push(format!("{}:{window}:{}", store.prefix, count.id));
                                flush = true;
                            }
                            let settled = leases.settle(&count.id, window, count.take, n as u64, count.limit, now_ms());
                            Ok((settled, reset_ms))
                        }
                        Some(Value::ServerError(e)) => {
                            leases.unask(&count.id, count.window);
                            Err(store.failed(e.into()))
                        }
                        other => {
                            leases.unask(&count.id, count.window);
                            Err(store.failed(redis::RedisError::from((
                                redis::ErrorKind::TypeError,
                                "unexpected reply to INCRBY",
                                format!("{other:?}"),
                            ))))
                        }
                    };
                    let _ = count.reply.send(result);
                }
            }
            Err(e) => {
                for count in batch.drain(..) {
                    leases.unask(&count.id, count.window);
                    let _ = count.reply.send(Err(e.duplicate()));
                }
                expiries.truncate(MAX_PENDING_EXPIRIES);
                // Counts not given back stay counted: the key may be refused a little early, never allowed more.
                returns.clear();
                flush = false;
            }
        }
    }
}

impl Store {
    /// Now on Redis' clock (Unix ms), from the host's clock and the offset learned.
    fn redis_now(&self, local_ms: u64) -> u64 {
        (local_ms as i64 + self.clock_offset_ms.load(Ordering::Relaxed)).max(0) as u64
    }

    /// The batcher's connection, made (and the clock offset learned) when there is none.
    async fn connection<'c>(
        &self,
        conn: &'c mut Option<ConnectionManager>,
    ) -> Result<&'c mut ConnectionManager, AccessError> {
        if conn.is_none() {
            *conn = Some(self.connect().await?);
        }
        Ok(conn.as_mut().expect("just made"))
    }

    async fn connect(&self) -> Result<ConnectionManager, AccessError> {
        if now_ms() < self.retry_after_ms.load(Ordering::Relaxed) {
            return Err(AccessError::RedisUnreachable(format!(
                "redis at {} is unreachable (retrying shortly)",
                self.address
            )));
        }
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(self.timeout)
            .set_response_timeout(self.timeout)
            .set_number_of_retries(1);
        match tokio::time::timeout(self.timeout * 2, self.client.get_connection_manager_with_config(config)).await {
            Ok(Ok(mut c)) => {
                // The offset to Redis' clock is known before the first count, so no window is ever taken from
                // this host's clock alone.
                let synced = match tokio::time::timeout(self.timeout, self.sync_clock(&mut c)).await {
                    Ok(synced) => synced,
                    Err(_) => Err(self.no_answer()),
                };
                if let Err(e) = synced {
                    self.retry_after_ms.store(now_ms() + 1_000, Ordering::Relaxed);
                    return Err(e);
                }
                Ok(c)
            }
            Ok(Err(e)) => {
                self.retry_after_ms.store(now_ms() + 1_000, Ordering::Relaxed);
                Err(AccessError::RedisUnreachable(format!(
                    "cannot connect to redis at {}: {e}{}",
                    self.address, self.tls_hint
                )))
            }
            Err(_) => {
                self.retry_after_ms.store(now_ms() + 1_000, Ordering::Relaxed);
                Err(AccessError::RedisUnreachable(format!(
                    "connecting to redis at {} timed out{}",
                    self.address, self.tls_hint
                )))
            }
        }
    }

    /// A failed command, said with the (redacted) address.
    fn failed(&self, source: redis::RedisError) -> AccessError {
        AccessError::Redis { address: self.address.clone(), source: Arc::new(source) }
    }

    fn no_answer(&self) -> AccessError {
        AccessError::RedisTimedOut { address: self.address.clone(), after: self.timeout }
    }

    fn stopped(&self) -> AccessError {
        AccessError::RedisUnreachable(format!("the limiter's connection to redis at {} has stopped", self.address))
    }

    /// Measures the offset of Redis' clock to the local one (`TIME`, half the round trip added).
    async fn sync_clock(&self, conn: &mut ConnectionManager) -> Result<(), AccessError> {
        let before = now_ms();
        let (secs, micros): (u64, u64) = redis::cmd("TIME").query_async(conn).await.map_err(|e| self.failed(e))?;
        let after = now_ms();
        let redis_ms = (secs * 1000 + micros / 1000) as i64;
        let local_ms = (before + after.saturating_sub(before) / 2) as i64;
        self.clock_offset_ms.store(redis_ms - local_ms, Ordering::Relaxed);
        self.clock_synced_ms.store(after, Ordering::Relaxed);
        Ok(())
    }

    /// Once a minute, before a batch; on failure the batch fails with it and the next one measures again.
    async fn sync_clock_if_stale(&self, conn: &mut ConnectionManager) -> Result<(), AccessError> {
        if now_ms().saturating_sub(self.clock_synced_ms.load(Ordering::Relaxed)) < CLOCK_SYNC_MS {
            return Ok(());
        }
        match tokio::time::timeout(self.timeout, self.sync_clock(conn)).await {
            Ok(synced) => synced,
            Err(_) => Err(self.no_answer()),
        }
    }
}

impl AccessError {
    /// The same failure for another request of a failed batch.
    fn duplicate(&self) -> AccessError {
        match self {
            AccessError::Redis { address, source } => {
                AccessError::Redis { address: address.clone(), source: source.clone() }
            }
            AccessError::RedisTimedOut { address, after } => {
                AccessError::RedisTimedOut { address: address.clone(), after: *after }
            }
            other => AccessError::RedisUnreachable(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    //! Against real Redis: the shared server on 127.0.0.1:6379 (a random prefix per test) and private
    //! redis-servers this module starts and kills.
    use super::*;

    fn prefix() -> String {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        format!("dhunit:{}:{nanos}", std::process::id())
    }

    /// Waits until at least `secs` seconds are left in the current (local) minute, so a test's counts fall in one
    /// window.
    async fn wait_for_window_with(secs: u64) {
        let left = WINDOW_MS - now_ms() % WINDOW_MS;
        if left < secs * 1000 {
            tokio::time::sleep(Duration::from_millis(left + 200)).await;
        }
    }

    struct PrivateRedis(std::process::Child);

    impl PrivateRedis {
        fn start(port: u16) -> PrivateRedis {
            let child = std::process::Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .args(["--enable-debug-command", "yes"])
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("redis-server");
            let deadline = Instant::now() + Duration::from_secs(10);
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                assert!(Instant::now() < deadline, "redis-server did not start");
                std::thread::sleep(Duration::from_millis(20));
            }
            PrivateRedis(child)
        }
    }

    impl Drop for PrivateRedis {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// Makes the Redis at `url` sleep for `secs` (`DEBUG SLEEP`) and returns once it does: once a `PING` on
    /// a connection of its own goes unanswered for 100 ms, so a loaded machine cannot start the test's checks
    /// before the stall.
    async fn stall_redis(url: &str, secs: u64) -> tokio::task::JoinHandle<()> {
        let client = redis::Client::open(url).unwrap();
        let mut admin = client.get_multiplexed_async_connection().await.unwrap();
        let mut probe = client.get_multiplexed_async_connection().await.unwrap();
        let stall = tokio::spawn(async move {
            let _: redis::RedisResult<()> = redis::cmd("DEBUG").arg("SLEEP").arg(secs).query_async(&mut admin).await;
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let ping = redis::cmd("PING");
            if tokio::time::timeout(Duration::from_millis(100), ping.query_async::<String>(&mut probe)).await.is_err() {
                return stall;
            }
            assert!(Instant::now() < deadline, "Redis did not begin its DEBUG SLEEP");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    }

    /// `per_key` checks of each of `ids` at once, alternating between two limiters (leases of up to 32) sharing
    /// `prefix`, all in one window: each key's decisions. With `busy`, each limiter checks each key once first, so
    /// the keys are busy on both (and may be leased counts) when the burst comes.
    async fn checks_at_once(
        url: &str,
        prefix: &str,
        ids: &[Arc<str>],
        per_key: usize,
        limit: u64,
        busy: bool,
    ) -> std::collections::HashMap<Arc<str>, Vec<Decision>> {
        let a = Arc::new(RedisLimiter::new(url, prefix, 2_000, FailMode::Closed, None, 32).unwrap());
        let b = Arc::new(RedisLimiter::new(url, prefix, 2_000, FailMode::Closed, None, 32).unwrap());
        wait_for_window_with(20).await;
        let mut decisions: std::collections::HashMap<Arc<str>, Vec<Decision>> = Default::default();
        if busy {
            for id in ids {
                for limiter in [&a, &b] {
                    decisions.entry(id.clone()).or_default().push(limiter.check(id, limit).await.unwrap());
                }
            }
        }
        let tasks: Vec<_> = (0..per_key * ids.len())
            .map(|i| {
                let limiter = if i % 2 == 0 { a.clone() } else { b.clone() };
                let id = ids[i % ids.len()].clone();
                tokio::spawn(async move { (id.clone(), limiter.check(&id, limit).await.unwrap()) })
            })
            .collect();
        for task in tasks {
            let (id, decision) = task.await.unwrap();
            decisions.entry(id).or_default().push(decision);
        }
        decisions
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_checks_from_two_limiters_count_exactly() {
        let prefix = prefix();
        let url = "redis://127.0.0.1:6379";
        let ids: Vec<Arc<str>> = (0..8).map(|i| Arc::from(format!("key{i}"))).collect();
        const PER_KEY: usize = 75;
        const LIMIT: u64 = 40;
        // 600 checks at once, spread over both limiters and eight keys: they share pipelines.
        let decisions = checks_at_once(url, &prefix, &ids, PER_KEY, LIMIT, false).await;
        let mut conn = redis::Client::open(url).unwrap().get_multiplexed_async_connection().await.unwrap();
        for id in &ids {
            let seen = &decisions[id];
            assert_eq!(seen.len(), PER_KEY);
            // Each check got its own count: the allowed ones saw every remaining value from LIMIT - 1 down to 0
            // once, and exactly the excess was refused.
            let mut allowed: Vec<u64> = seen.iter().filter(|d| d.allowed).map(|d| d.remaining).collect();
            allowed.sort_unstable();
            assert_eq!(allowed, (0..LIMIT).collect::<Vec<_>>(), "{id}");
            let refused = seen.iter().filter(|d| !d.allowed).collect::<Vec<_>>();
            assert_eq!(refused.len(), PER_KEY - LIMIT as usize);
            assert!(refused.iter().all(|d| d.remaining == 0 && d.limit == LIMIT));
            // N checks, N increments, in one counter that expires.
            let keys: Vec<String> =
                redis::cmd("KEYS").arg(format!("{prefix}:*:{id}")).query_async(&mut conn).await.unwrap();
            assert_eq!(keys.len(), 1, "one window: {keys:?}");
            let count: u64 = redis::cmd("GET").arg(&keys[0]).query_async(&mut conn).await.unwrap();
            assert_eq!(count, PER_KEY as u64);
            let ttl: i64 = redis::cmd("PTTL").arg(&keys[0]).query_async(&mut conn).await.unwrap();
            assert!(ttl > 0 && ttl <= (WINDOW_MS * 2) as i64, "the first hit set the expiry: {ttl}");
            let _: () = redis::cmd("DEL").arg(&keys[0]).query_async(&mut conn).await.unwrap();
        }
    }

    async fn counter(conn: &mut redis::aio::MultiplexedConnection, prefix: &str, id: &str) -> u64 {
        let keys: Vec<String> = redis::cmd("KEYS").arg(format!("{prefix}:*:{id}")).query_async(conn).await.unwrap();
        assert_eq!(keys.len(), 1, "one window: {keys:?}");
        redis::cmd("GET").arg(&keys[0]).query_async(conn).await.unwrap()
    }

    /// A pro key (1,200 a minute) on two replicas: a replica asks for its first request's count, then (the key
    /// busy) for 18 at a time and counts the next requests from them without asking Redis; a lease left idle goes
    /// back to Redis for the other replica.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_busy_key_is_counted_from_leases_and_an_idle_lease_given_back() {
        let prefix = prefix();
        let url = "redis://127.0.0.1:6379";
        let a = RedisLimiter::new(url, &prefix, 2_000, FailMode::Closed, None, 32).unwrap();
        let b = RedisLimiter::new(url, &prefix, 2_000, FailMode::Closed, None, 32).unwrap();
        let mut conn = redis::Client::open(url).unwrap().get_multiplexed_async_connection().await.unwrap();
        let id: Arc<str> = Arc::from("pro");
        wait_for_window_with(20).await;
        let first = a.check(&id, 1_200).await.unwrap();
        assert_eq!((first.allowed, first.remaining), (true, 1_199));
        assert_eq!(counter(&mut conn, &prefix, &id).await, 1, "a key's first request takes its own count");
        assert_eq!(a.check(&id, 1_200).await.unwrap().remaining, 1_198);
        assert_eq!(counter(&mut conn, &prefix, &id).await, 19, "then 1,199 / 64 = 18 counts");
        for remaining in (1_181..1_198).rev() {
            assert_eq!(a.check(&id, 1_200).await.unwrap().remaining, remaining);
        }
        assert_eq!(counter(&mut conn, &prefix, &id).await, 19, "17 checks counted without Redis");
        // The other replica takes the next count, then a lease of (1,200 - 20) / 64 = 18, and goes quiet.
        assert_eq!(b.check(&id, 1_200).await.unwrap().remaining, 1_200 - 20);
        assert_eq!(b.check(&id, 1_200).await.unwrap().remaining, 1_200 - 21);
        assert_eq!(counter(&mut conn, &prefix, &id).await, 38);
        let deadline = Instant::now() + Duration::from_secs(5);
        while counter(&mut conn, &prefix, &id).await != 21 {
            assert!(Instant::now() < deadline, "b's 17 unused counts are given back after a second idle");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // So a's next count comes right after b's last used one.
        assert_eq!(a.check(&id, 1_200).await.unwrap().remaining, 1_200 - 22);
        assert_eq!(counter(&mut conn, &prefix, &id).await, 22);
    }

    /// A burst above the limit on two replicas, the keys busy on both: no count is used twice and the window never
    /// allows more than its limit; what a lease can strand is at most its size less one per replica (the burst's
    /// first request on each asks for (256 - 2) / 64 = 3, the others for one each while it is out).
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_burst_on_leases_never_allows_more_than_the_limit() {
        let prefix = prefix();
        let url = "redis://127.0.0.1:6379";
        let ids: Vec<Arc<str>> = (0..4).map(|i| Arc::from(format!("key{i}"))).collect();
        const PER_KEY: usize = 320;
        const LIMIT: u64 = 256;
        let decisions = checks_at_once(url, &prefix, &ids, PER_KEY, LIMIT, true).await;
        for id in &ids {
            assert_eq!(decisions[id].len(), PER_KEY + 2);
            let mut seen: Vec<u64> = decisions[id].iter().filter(|d| d.allowed).map(|d| d.remaining).collect();
            seen.sort_unstable();
            let n = seen.len();
            seen.dedup();
            assert_eq!(seen.len(), n, "{id}: a count used twice");
            assert!(n as u64 <= LIMIT && n as u64 >= LIMIT - 2 * 2, "{id}: {n} allowed");
        }
    }

    /// Redis stops answering with a pipeline in flight (`DEBUG SLEEP`), then dies: every waiting check gets an
    /// error promptly (the fault policy decides), none hangs, and the limiter counts again once Redis is back.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn redis_lost_mid_batch_answers_every_waiting_check() {
        let port = free_port();
        let url = format!("redis://127.0.0.1:{port}");
        let redis = PrivateRedis::start(port);
        // Leases of one: every check asks Redis, which is what this test is about.
        let limiter = Arc::new(RedisLimiter::new(&url, &prefix(), 3_000, FailMode::Closed, None, 1).unwrap());
        let id: Arc<str> = Arc::from("k");
        assert!(limiter.check(&id, 1_000).await.is_ok());
        assert!(limiter.is_reachable());
        let stall = stall_redis(&url, 5).await;
        let started = Instant::now();
        let checks: Vec<_> = (0..200)
            .map(|i| {
                let limiter = limiter.clone();
                let id: Arc<str> = Arc::from(format!("k{}", i % 10));
                tokio::spawn(async move { limiter.check(&id, 1_000).await })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop(redis);
        let results =
            tokio::time::timeout(Duration::from_secs(10), futures_join(checks)).await.expect("no check hangs");
        assert!(results.iter().all(|r| r.is_err()), "every waiting check fails");
        assert!(started.elapsed() < Duration::from_secs(3), "answered when the connection dropped, not later");
        assert!(!limiter.is_reachable());
        stall.abort();
        let _back = PrivateRedis::start(port);
        let deadline = Instant::now() + Duration::from_secs(10);
        while limiter.check(&id, 1_000).await.is_err() {
            assert!(Instant::now() < deadline, "counting resumes");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(limiter.is_reachable());
    }

    /// Redis alive but too slow: the checks of the stalled pipeline and those queued behind it are answered
    /// within about twice the timeout (their own pipeline's, and the one they waited behind).
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn slow_redis_times_out_every_waiting_check() {
        let port = free_port();
        let url = format!("redis://127.0.0.1:{port}");
        let _redis = PrivateRedis::start(port);
        let limiter = Arc::new(RedisLimiter::new(&url, &prefix(), 300, FailMode::Open, None, 1).unwrap());
        let id: Arc<str> = Arc::from("k");
        assert!(limiter.check(&id, 1_000).await.is_ok());
        let stall = stall_redis(&url, 3).await;
        let mut checks = Vec::new();
        for i in 0..100 {
            let limiter = limiter.clone();
            let id: Arc<str> = Arc::from(format!("k{}", i % 10));
            checks.push(tokio::spawn(async move {
                let started = Instant::now();
                (limiter.check(&id, 1_000).await, started.elapsed())
            }));
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let results =
            tokio::time::timeout(Duration::from_secs(10), futures_join(checks)).await.expect("no check hangs");
        assert!(results.iter().all(|(r, _)| r.is_err()), "{results:?}");
        // Each check within twice the 300 ms timeout, and a margin for a loaded machine (the stall is 3 s).
        let longest = results.iter().map(|(_, took)| *took).max().unwrap();
        assert!(longest < Duration::from_millis(1_500), "a check took {longest:?}");
        stall.await.unwrap();
    }

    async fn futures_join<T>(tasks: Vec<tokio::task::JoinHandle<T>>) -> Vec<T> {
        let mut out = Vec::with_capacity(tasks.len());
        for task in tasks {
            out.push(task.await.unwrap());
        }
        out
    }
}
