//! Rate-limit state in Redis, shared by every replica. One round trip per request, one plain `INCR` of the
//! counter of the current window (keyed by window start and the key id, never the key); the first hit of a
//! window also sets the counter's expiry. The window is read from Redis' own clock, through the offset to the local
//! clock learned with `TIME` when connecting and once a minute after, so replicas with skewed clocks still agree.
//! (A Lua script doing all of it in Redis cost 6.8 us of Redis CPU per request against 2.4 us for an `INCR`, on
//! the same cores as the host: BENCHMARKS.md, "Redis limiter".)
//! A slow or lost Redis is bounded by a short timeout and decided by the fail mode. `rediss://` URLs connect over
//! TLS (managed services require it), verified against `ratelimit.redis_tls_ca_file` or the system's roots.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::ConnectionManager;

use crate::access::ratelimit::{decide, Decision, WINDOW_MS};
use crate::access::AccessError;
use crate::config::{redact_url, FailMode};

/// How often the offset to Redis' clock is measured again.
const CLOCK_SYNC_MS: u64 = 60_000;

pub struct RedisLimiter {
    /// Boxed: with TLS support the client is several hundred bytes, and `Limiter` holds this inline.
    client: Box<redis::Client>,
    address: String,
    /// Said after a failed connection over plain `redis://`: a TLS-only server just drops it.
    tls_hint: &'static str,
    prefix: String,
    timeout: Duration,
    fail_mode: FailMode,
    conn: Mutex<Option<ConnectionManager>>,
    /// Redis' clock minus the local one, in ms, and the local time it was measured at (0: not yet).
    clock_offset_ms: AtomicI64,
    clock_synced_ms: AtomicU64,
    reachable: AtomicBool,
    /// Unix ms before which no reconnect is attempted, so a dead Redis costs nothing per request.
    retry_after_ms: AtomicU64,
    /// `datahost_ratelimit_store_up`, resolved at the first check (the recorder is installed by then) rather than
    /// looked up by name on every request.
    store_up: std::sync::OnceLock<metrics::Gauge>,
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
        Ok(Self {
            client: Box::new(client),
            address: redact_url(url),
            tls_hint: if url.starts_with("redis://") {
                " (a server that accepts only TLS needs a rediss:// URL)"
            } else {
                ""
            },
            prefix: prefix.to_string(),
            timeout: Duration::from_millis(timeout_ms),
            fail_mode,
            conn: Mutex::new(None),
            clock_offset_ms: AtomicI64::new(0),
            clock_synced_ms: AtomicU64::new(0),
            reachable: AtomicBool::new(true),
            retry_after_ms: AtomicU64::new(0),
            store_up: std::sync::OnceLock::new(),
        })
    }

    pub fn fails_open(&self) -> bool {
        self.fail_mode == FailMode::Open
    }

    pub fn is_reachable(&self) -> bool {
        self.reachable.load(Ordering::Relaxed)
    }

    async fn connection(&self) -> Result<ConnectionManager, AccessError> {
        if let Some(c) = self.conn.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Ok(c);
        }
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
                *self.conn.lock().unwrap_or_else(|e| e.into_inner()) = Some(c.clone());
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
    fn failed(&self) -> impl Fn(redis::RedisError) -> AccessError + '_ {
        move |source| AccessError::Redis { address: self.address.clone(), source }
    }

    fn no_answer(&self) -> AccessError {
        AccessError::RedisTimedOut { address: self.address.clone(), after: self.timeout }
    }

    /// Measures the offset of Redis' clock to the local one (`TIME`, half the round trip added).
    async fn sync_clock(&self, conn: &mut ConnectionManager) -> Result<(), AccessError> {
        let before = now_ms();
        let (secs, micros): (u64, u64) = redis::cmd("TIME").query_async(conn).await.map_err(self.failed())?;
        let after = now_ms();
        let redis_ms = (secs * 1000 + micros / 1000) as i64;
        let local_ms = (before + after.saturating_sub(before) / 2) as i64;
        self.clock_offset_ms.store(redis_ms - local_ms, Ordering::Relaxed);
        self.clock_synced_ms.store(after, Ordering::Relaxed);
        Ok(())
    }

    pub async fn check(&self, id: &Arc<str>, limit: u64) -> Result<Decision, AccessError> {
        let result = async {
            let mut conn = self.connection().await?;
            let counted = async {
                // Once a minute, by the one request that claims the stale measurement; the others meanwhile count
                // with the previous offset instead of all asking Redis for its time.
                let synced = self.clock_synced_ms.load(Ordering::Relaxed);
                let started = now_ms();
                if started.saturating_sub(synced) >= CLOCK_SYNC_MS
                    && self
                        .clock_synced_ms
                        .compare_exchange(synced, started, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                {
                    if let Err(e) = self.sync_clock(&mut conn).await {
                        // Left stale, so the next request measures again.
                        self.clock_synced_ms.store(synced, Ordering::Relaxed);
                        return Err(e);
                    }
                }
                let now = (now_ms() as i64 + self.clock_offset_ms.load(Ordering::Relaxed)).max(0) as u64;
                let window = now - now % WINDOW_MS;
                let key = format!("{}:{window}:{id}", self.prefix);
                let count: u64 = redis::cmd("INCR").arg(&key).query_async(&mut conn).await.map_err(self.failed())?;
                if count == 1 {
                    // Once per key and window. Were this lost, the counter would only outlive its window: the next
                    // window counts under another name.
                    let _: () = redis::cmd("PEXPIRE")
                        .arg(&key)
                        .arg(WINDOW_MS * 2)
                        .query_async(&mut conn)
                        .await
                        .map_err(self.failed())?;
                }
                Ok::<_, AccessError>((count, window + WINDOW_MS - now))
            };
            match tokio::time::timeout(self.timeout, counted).await {
                Ok(Ok((count, reset_ms))) => Ok(decide(count, limit, reset_ms.div_ceil(1000).max(1))),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(self.no_answer()),
            }
        }
        .await;
        let ok = result.is_ok();
        if self.reachable.swap(ok, Ordering::Relaxed) != ok {
            if ok {
                tracing::info!(redis = %self.address, "rate-limit store reachable again");
            } else {
                tracing::warn!(redis = %self.address, "rate-limit store unreachable");
            }
        }
        let store_up = self.store_up.get_or_init(|| metrics::gauge!("datahost_ratelimit_store_up"));
        store_up.set(if ok { 1.0 } else { 0.0 });
        result
    }
}
