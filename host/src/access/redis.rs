//! Rate-limit state in Redis, shared by every replica. One round trip per request: a Lua script increments
//! the counter of the current window (keyed by window start and the key id, never the key), sets its expiry on
//! the first hit, and reads the window from Redis' own clock so replicas with skewed clocks still agree.
//! A slow or lost Redis is bounded by a short timeout and decided by the fail mode. `rediss://` URLs connect over
//! TLS (managed services require it), verified against `ratelimit.redis_tls_ca_file` or the system's roots.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::Script;

use crate::access::ratelimit::{decide, Decision, WINDOW_MS};
use crate::config::{redact_url, FailMode};

const SCRIPT: &str = r#"
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = now_ms - (now_ms % tonumber(ARGV[1]))
local key = KEYS[1] .. ':' .. window .. ':' .. ARGV[2]
local count = redis.call('INCR', key)
if count == 1 then
  redis.call('PEXPIRE', key, tonumber(ARGV[1]) * 2)
end
return {count, window + tonumber(ARGV[1]) - now_ms}
"#;

pub struct RedisLimiter {
    /// Boxed: with TLS support the client is several hundred bytes, and `Limiter` holds this inline.
    client: Box<redis::Client>,
    address: String,
    /// Said after a failed connection over plain `redis://`: a TLS-only server just drops it.
    tls_hint: &'static str,
    prefix: String,
    timeout: Duration,
    fail_mode: FailMode,
    script: Script,
    conn: Mutex<Option<ConnectionManager>>,
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
            script: Script::new(SCRIPT),
            conn: Mutex::new(None),
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

    pub async fn check(&self, id: &Arc<str>, limit: u64) -> Result<Decision, String> {
        let result = async {
            let mut conn = self.connection().await?;
            let mut invocation = self.script.key(&self.prefix);
            invocation.arg(WINDOW_MS).arg(id.as_ref());
            let call = invocation.invoke_async::<(u64, u64)>(&mut conn);
            match tokio::time::timeout(self.timeout, call).await {
                Ok(Ok((count, reset_ms))) => Ok(decide(count, limit, reset_ms.div_ceil(1000).max(1))),
                Ok(Err(e)) => Err(format!("redis at {}: {e}", self.address)),
                Err(_) => {
                    Err(format!("redis at {} did not answer within {} ms", self.address, self.timeout.as_millis()))
                }
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
