//! Rate-limit state in Redis, shared by every replica. One round trip per request: a pipeline of
//! `SET key 0 PX 120000 NX` (the window's counter is created with its expiry, atomically) and `INCR key`, keyed
//! by window start and the key id (never the key): `{prefix}:{window start ms}:{key id}`, as the Lua script of
//! earlier versions named it, so replicas of both versions count in the same window during an upgrade.
//! The window is read from Redis' own clock so replicas with skewed clocks still agree: each replica learns the
//! offset of Redis' clock to its own with `TIME` (at connection, then every [`CLOCK_RESYNC_MS`] in the
//! background, half a round trip of uncertainty), which spares Redis a Lua script per request (a script costs
//! Redis about three times an INCR's CPU, and on a shared machine that CPU is the host's).
//! A slow or lost Redis is bounded by a short timeout and decided by the fail mode. `rediss://` URLs connect over
//! TLS (managed services require it), verified against `ratelimit.redis_tls_ca_file` or the system's roots.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::ConnectionManager;

use crate::config::{redact_url, FailMode};
use crate::ratelimit::{decide, Decision, WINDOW_MS};

/// How often each replica re-reads Redis' clock (a request never waits for it once the offset is known).
pub const CLOCK_RESYNC_MS: u64 = 10_000;

/// `reachable` before the first answer, so the gauge is set on the first check whatever it finds.
const STORE_UNKNOWN: u8 = 0;
const STORE_UP: u8 = 1;
const STORE_DOWN: u8 = 2;

/// Redis' clock minus this host's, in ms, and when it was last learned (host ms; 0: never).
struct ClockOffset {
    offset_ms: AtomicI64,
    synced_at_ms: AtomicU64,
    syncing: AtomicBool,
}

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
    clock: Arc<ClockOffset>,
    /// STORE_UNKNOWN, STORE_UP or STORE_DOWN: the last check's outcome.
    reachable: AtomicU8,
    /// Unix ms before which no reconnect is attempted, so a dead Redis costs nothing per request.
    retry_after_ms: AtomicU64,
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
    ) -> Result<Self, String> {
        crate::tls::install_crypto_provider();
        let client = match ca_file {
            None => redis::Client::open(url),
            Some(path) => {
                let pem =
                    std::fs::read(path).map_err(|e| format!("ratelimit.redis_tls_ca_file {}: {e}", path.display()))?;
                redis::Client::build_with_tls(url, redis::TlsCertificates { client_tls: None, root_cert: Some(pem) })
            }
        }
        .map_err(|e| format!("ratelimit.redis_url {}: {e}", redact_url(url)))?;
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
            clock: Arc::new(ClockOffset {
                offset_ms: AtomicI64::new(0),
                synced_at_ms: AtomicU64::new(0),
                syncing: AtomicBool::new(false),
            }),
            reachable: AtomicU8::new(STORE_UNKNOWN),
            retry_after_ms: AtomicU64::new(0),
        })
    }

    pub fn fails_open(&self) -> bool {
        self.fail_mode == FailMode::Open
    }

    pub fn is_reachable(&self) -> bool {
        self.reachable.load(Ordering::Relaxed) != STORE_DOWN
    }

    async fn connection(&self) -> Result<ConnectionManager, String> {
        if let Some(c) = self.conn.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Ok(c);
        }
        if now_ms() < self.retry_after_ms.load(Ordering::Relaxed) {
            return Err(format!("redis at {} is unreachable (retrying shortly)", self.address));
        }
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(self.timeout)
            .set_response_timeout(self.timeout)
            .set_number_of_retries(1);
        match tokio::time::timeout(self.timeout * 2, self.client.get_connection_manager_with_config(config)).await {
            Ok(Ok(c)) => {
                *self.conn.lock().unwrap_or_else(|e| e.into_inner()) = Some(c.clone());
                Ok(c)
            }
            Ok(Err(e)) => {
                self.retry_after_ms.store(now_ms() + 1_000, Ordering::Relaxed);
                Err(format!("cannot connect to redis at {}: {e}{}", self.address, self.tls_hint))
            }
            Err(_) => {
                self.retry_after_ms.store(now_ms() + 1_000, Ordering::Relaxed);
                Err(format!("connecting to redis at {} timed out{}", self.address, self.tls_hint))
            }
        }
    }

    /// Redis' clock now, in ms: the learned offset applied to this host's clock. Learns it first when unknown;
    /// when it is older than CLOCK_RESYNC_MS, one background task re-reads it while this request goes on.
    async fn redis_now_ms(&self, conn: &ConnectionManager) -> Result<u64, String> {
        let now = now_ms();
        let synced_at = self.clock.synced_at_ms.load(Ordering::Relaxed);
        if synced_at == 0 {
            self.clock.learn(conn.clone(), self.timeout).await?;
        } else if now.saturating_sub(synced_at) > CLOCK_RESYNC_MS && !self.clock.syncing.swap(true, Ordering::AcqRel) {
            let (clock, conn, timeout) = (self.clock.clone(), conn.clone(), self.timeout);
            tokio::spawn(async move {
                if let Err(e) = clock.learn(conn, timeout).await {
                    tracing::debug!(error = %e, "redis clock not re-read; keeping the last offset");
                }
                clock.syncing.store(false, Ordering::Release);
            });
        }
        Ok(now_ms().saturating_add_signed(self.clock.offset_ms.load(Ordering::Relaxed)))
    }

    pub async fn check(&self, id: &Arc<str>, limit: u64) -> Result<Decision, String> {
        let result = async {
            let mut conn = self.connection().await?;
            let now = self.redis_now_ms(&conn).await?;
            let window = now - now % WINDOW_MS;
            let key = format!("{}:{window}:{id}", self.prefix);
            let mut pipe = redis::pipe();
            pipe.cmd("SET").arg(&key).arg(0).arg("PX").arg(WINDOW_MS * 2).arg("NX").ignore();
            pipe.cmd("INCR").arg(&key);
            let call = pipe.query_async::<(u64,)>(&mut conn);
            match tokio::time::timeout(self.timeout, call).await {
                Ok(Ok((count,))) => Ok(decide(count, limit, (window + WINDOW_MS - now).div_ceil(1000).max(1))),
                Ok(Err(e)) => Err(format!("redis at {}: {e}", self.address)),
                Err(_) => {
                    Err(format!("redis at {} did not answer within {} ms", self.address, self.timeout.as_millis()))
                }
            }
        }
        .await;
        let ok = result.is_ok();
        let state = if ok { STORE_UP } else { STORE_DOWN };
        let before = self.reachable.swap(state, Ordering::Relaxed);
        if before != state {
            // Only on a change: the gauge's registry lookup is not free at every request.
            metrics::gauge!("datahost_ratelimit_store_up").set(if ok { 1.0 } else { 0.0 });
            if ok && before == STORE_DOWN {
                tracing::info!(redis = %self.address, "rate-limit store reachable again");
            } else if !ok {
                tracing::warn!(redis = %self.address, "rate-limit store unreachable");
            }
        }
        result
    }
}

impl ClockOffset {
    /// Reads Redis' `TIME` and keeps its offset to this host's clock, taken at the middle of the round trip.
    async fn learn(&self, mut conn: ConnectionManager, timeout: Duration) -> Result<(), String> {
        let before = now_ms();
        let (secs, micros) = tokio::time::timeout(timeout, redis::cmd("TIME").query_async::<(u64, u64)>(&mut conn))
            .await
            .map_err(|_| format!("redis TIME did not answer within {} ms", timeout.as_millis()))?
            .map_err(|e| format!("redis TIME: {e}"))?;
        let after = now_ms();
        let redis_ms = secs * 1000 + micros / 1000;
        self.offset_ms.store(redis_ms as i64 - (before + after).div_ceil(2) as i64, Ordering::Relaxed);
        self.synced_at_ms.store(after.max(1), Ordering::Relaxed);
        Ok(())
    }
}
