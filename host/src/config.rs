//! Configuration: `config/default.toml` (compiled in), then `./config/default.toml`, then the file named by
//! `DATAHOST_CONFIG` / `--config`, then `DATAHOST_<SECTION>__<KEY>` environment variables. Unknown keys and
//! bad values are errors that name the key.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use figment::providers::{Env, Format, Toml};
use figment::Figment;
use serde::Deserialize;

pub const DEFAULT_TOML: &str = include_str!("../../config/default.toml");

/// Why the configuration cannot be used. `Display` is the sentence the operator reads before the host exits; it
/// names the file or the dotted key that is wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `--config FILE` or `DATAHOST_CONFIG` names a file that is not there.
    #[error("config file {} does not exist", .0.display())]
    MissingFile(PathBuf),
    /// The layered sources do not deserialize (unknown keys, wrong types): every problem, with its key and the
    /// source that set it.
    #[error("{0}")]
    Unreadable(String),
    /// A value that deserializes but cannot be used. `key` is the dotted key (`engine.pool_size`,
    /// `sync.schedule.prices`); `problem` finishes the sentence.
    #[error("{key} {problem}")]
    Invalid { key: String, problem: String },
}

impl ConfigError {
    pub(crate) fn invalid(key: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::Invalid { key: key.into(), problem: problem.into() }
    }

    /// The dotted key a value error names (`None` for a missing or unreadable file).
    pub fn key(&self) -> Option<&str> {
        match self {
            Self::Invalid { key, .. } => Some(key),
            _ => None,
        }
    }
}

/// A single value that does not parse (an interval, an address range); the caller knows which key it came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadValue(String);

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub server: ServerConfig,
    pub metrics: MetricsConfig,
    pub plugins: PluginsConfig,
    pub engine: EngineConfig,
    pub keys: KeysConfig,
    pub ratelimit: RateLimitConfig,
    pub auth: AuthConfig,
    pub sync: SyncConfig,
    pub cache: CacheConfig,
    /// The file layered over the defaults (`--config` or `DATAHOST_CONFIG`), so a scheduled `datahost sync`
    /// child process reads the same configuration.
    #[serde(skip)]
    pub source_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    pub base_url: String,
    pub shutdown_grace_secs: u64,
    pub log_format: LogFormat,
    /// One log line per request (method, route template, status, latency, request id, tier, key id).
    pub access_log: bool,
    pub bench_baseline_file: PathBuf,
    /// Longest request target (path and query) answered; longer is a 414 with the JSON envelope.
    pub max_request_target_bytes: usize,
    /// Largest total of header names and values answered; larger is a 431 with the JSON envelope.
    pub max_header_bytes: usize,
    /// Seconds a client has to send a request's headers; also how long an idle keep-alive connection stays.
    pub header_read_timeout_secs: u64,
    /// Open connections in all (kept under the file-descriptor limit).
    pub max_connections: usize,
    /// Open connections per client address; 0 for no cap (behind a load balancer).
    pub max_connections_per_client: usize,
    /// Proxies (addresses or ranges such as `10.0.0.0/8`) whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<String>,
    /// Web origins whose pages may call the API from a browser (CORS); empty: CORS off; `["*"]`: any origin.
    pub cors_allowed_origins: Vec<String>,
}

/// `[cache]`: the host's cache of finished dataset answers (`http/response_cache.rs`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Memory the cache may account for (bodies, keys, room for compressed variants); 0 turns it off.
    pub max_bytes: u64,
    /// Larger answers are not kept.
    pub max_entry_bytes: usize,
    /// Answers are kept at most this long even when no data changes; 0: until a data change or eviction.
    pub ttl_secs: u64,
    /// Smaller answers are sent uncompressed whatever the client accepts.
    pub compress_min_bytes: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    pub listen: SocketAddr,
}

/// `[plugins]`: where plugins are, and how their calls run (defaults for every plugin), plus one
/// `[plugins.<slug>]` table per plugin that differs (`PluginOptions`). The tables are collected by `flatten`,
/// which rules out `deny_unknown_fields` here: `plugin_options` checks them instead, naming the key, and the
/// host refuses a slug no plugin has at start.
#[derive(Debug, Clone, Deserialize)]
pub struct PluginsConfig {
    pub dir: PathBuf,
    pub disabled: Vec<String>,
    #[serde(default)]
    pub settings: BTreeMap<String, serde_json::Value>,
    /// Milliseconds a plugin call may take before the client is answered 503.
    pub call_deadline_ms: u64,
    /// Threads that run plugin calls (shared by all plugins); 0: four per CPU, at least 8.
    pub handler_threads: usize,
    /// Plugin calls that run at once; a call waiting on the records engine or a plugin process does not count.
    /// 0: one more than the CPUs.
    pub running_calls: usize,
    /// Threads one plugin may hold at once (and request connections to a plugin process).
    pub max_threads_per_plugin: usize,
    /// Calls that may wait for one of a plugin's threads; more are answered 503 at once.
    pub max_queued_per_plugin: usize,
    pub breaker_failures: usize,
    pub breaker_window_ms: u64,
    pub breaker_cooldown_ms: u64,
    pub process_start_timeout_ms: u64,
    pub process_init_timeout_secs: u64,
    pub restart_backoff_ms: u64,
    pub restart_backoff_max_ms: u64,
    /// Benchmarks only: plugin calls inline on the async worker (no deadline, thread cap or breaker), to compare.
    pub bench_inline_calls: bool,
    /// `[plugins.<slug>]` tables, unchecked (see `plugin_options`).
    #[serde(flatten)]
    pub per_plugin: BTreeMap<String, serde_json::Value>,
}

/// `[plugins.<slug>]`: how one plugin runs, where it differs from the `[plugins]` defaults.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginOptions {
    #[serde(default = "in_process")]
    pub isolation: Isolation,
    pub call_deadline_ms: Option<u64>,
}

fn in_process() -> Isolation {
    Isolation::InProcess
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    pub url: String,
    pub connect_timeout_secs: u64,
    pub query_timeout_secs: u64,
    pub pool_size: usize,
    pub migrate_on_start: bool,
    pub seed_on_start: bool,
    pub degraded_start: bool,
    pub reload_interval_secs: u64,
    /// Where the embedded engine keeps its database file (and later raw files and indexes).
    pub data_dir: PathBuf,
    /// PEM file of the CA that signed the PostgreSQL server's certificate; empty: the system's trust store.
    pub tls_ca_file: PathBuf,
    /// Each pooled connection prepares the statements it runs once and reuses them (`false`: behind a pooler
    /// that does not carry prepared statements from one transaction to the next).
    pub prepared_statements: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeysConfig {
    pub file: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailMode {
    Open,
    Closed,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLimitConfig {
    pub redis_url: String,
    pub redis_prefix: String,
    pub redis_timeout_ms: u64,
    /// The most counts a replica takes from Redis at once for a key's next requests (`access::lease`); 1: every
    /// request asks Redis.
    pub redis_lease_max: u64,
    pub fail_mode: FailMode,
    /// PEM file of the CA that signed the Redis server's certificate (rediss:// only); empty: the system's.
    pub redis_tls_ca_file: PathBuf,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    pub proxy_secret: String,
    /// Failed credentials one client address may present per UTC minute before it is answered 429; 0: off.
    pub failed_per_minute: u64,
}

/// `[sync]`: `datahost sync` and its schedule in `serve`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncConfig {
    pub user_agent: String,
    pub retention_mb: u64,
    /// Dataset -> interval (`"90s"`, `"15m"`, `"1h"`, `"1d"`); empty: no scheduled sync.
    #[serde(default)]
    pub schedule: BTreeMap<String, String>,
    pub sources: SyncSources,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncSources {
    pub sec: SecSource,
    pub house: HouseSource,
    pub senate: SenateSource,
    pub fec: FecSource,
    pub nhtsa: NhtsaSource,
    pub prices: PricesSource,
    pub directory: DirectorySource,
}

/// The keys every source has, plus its own. (serde's `flatten` cannot be combined with
/// `deny_unknown_fields`, hence the macro.)
macro_rules! source_config {
    ($(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            pub enabled: bool,
            pub base_url: String,
            pub requests_per_second: f64,
            pub timeout_secs: u64,
            pub retries: u32,
            pub backoff_ms: u64,
            $($(#[$fmeta])* pub $field: $ty,)*
        }

        impl SourceSettings for $name {
            fn common(&self) -> CommonSource<'_> {
                CommonSource {
                    enabled: self.enabled,
                    base_url: &self.base_url,
                    requests_per_second: self.requests_per_second,
                    timeout_secs: self.timeout_secs,
                    retries: self.retries,
                    backoff_ms: self.backoff_ms,
                }
            }
        }
    };
}

/// The keys every `[sync.sources.<name>]` table has.
#[derive(Debug, Clone, Copy)]
pub struct CommonSource<'a> {
    pub enabled: bool,
    pub base_url: &'a str,
    pub requests_per_second: f64,
    pub timeout_secs: u64,
    pub retries: u32,
    pub backoff_ms: u64,
}

pub trait SourceSettings {
    fn common(&self) -> CommonSource<'_>;
}

source_config!(
    /// SEC EDGAR: daily form index, Form 4 and 13F-HR submissions, `company_tickers.json`.
    SecSource {
        /// `YYYY-MM-DD` of the first daily index; empty: today minus 7 days.
        start_date: String,
    }
);
source_config!(
    /// House Clerk financial disclosures: the yearly `<year>FD.zip` and the PTR PDFs.
    HouseSource {
        /// Filing years; empty: the current year.
        years: Vec<i32>,
        ptr_pdfs: bool,
        max_ptr_pdfs: usize,
    }
);
source_config!(
    /// Senate periodic transaction reports, as the aggregate JSON of Senate Stock Watcher.
    SenateSource {
        path: String,
    }
);
source_config!(
    /// FEC bulk data: one zip per file kind and two-year cycle.
    FecSource {
        /// Election cycles (even years); empty: the current one.
        cycles: Vec<i32>,
        files: Vec<String>,
    }
);
source_config!(
    /// NHTSA ODI flat files (recalls, complaints).
    NhtsaSource {
        files: Vec<String>,
    }
);
source_config!(
    /// A daily price source answering Stooq-style CSV per ticker.
    PricesSource {
        tickers: Vec<String>,
        /// The address of one ticker's CSV below `base_url`; `{ticker}` is the lower-case ticker.
        path: String,
    }
);
source_config!(
    /// Any dataset from a folder of files: an HTTP folder listed by an index page, or a local folder.
    DirectorySource {
        dataset: String,
    }
);

impl Config {
    /// Loads the layered configuration. `explicit` is `--config FILE`, which takes the place of
    /// `DATAHOST_CONFIG`.
    pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let mut figment = Figment::new().merge(Toml::string(DEFAULT_TOML));
        let local = Path::new("config/default.toml");
        if local.exists() {
            figment = figment.merge(Toml::file(local));
        }
        let file = explicit.map(Path::to_path_buf).or_else(|| std::env::var_os("DATAHOST_CONFIG").map(PathBuf::from));
        if let Some(file) = &file {
            if !file.exists() {
                return Err(ConfigError::MissingFile(file.clone()));
            }
            figment = figment.merge(Toml::file(file));
        }
        figment = figment.merge(Env::prefixed("DATAHOST_").split("__").ignore(&["config"]));
        let mut config: Config = figment.extract().map_err(describe_figment_error)?;
        config.validate()?;
        config.source_file = file;
        Ok(config)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let base_url = &self.server.base_url;
        let base = url::Url::parse(base_url)
            .map_err(|e| ConfigError::invalid("server.base_url", format!("`{base_url}` is not a URL: {e}")))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(ConfigError::invalid("server.base_url", format!("`{base_url}` must be http or https")));
        }
        for proxy in &self.server.trusted_proxies {
            IpRange::parse(proxy).map_err(|e| ConfigError::invalid("server.trusted_proxies", e.to_string()))?;
        }
        check_origins(&self.server.cors_allowed_origins)?;
        if self.engine.url != "embedded"
            && !self.engine.url.starts_with("postgres://")
            && !self.engine.url.starts_with("postgresql://")
        {
            let got = redact_url(&self.engine.url);
            return Err(ConfigError::invalid(
                "engine.url",
                format!("must be \"embedded\" or a postgres:// URL, got `{got}`"),
            ));
        }
        let redis = &self.ratelimit.redis_url;
        if !redis.is_empty() && !redis.starts_with("redis://") && !redis.starts_with("rediss://") {
            let got = redact_url(redis);
            return Err(ConfigError::invalid(
                "ratelimit.redis_url",
                format!("must be a redis:// or rediss:// (TLS) URL, got `{got}`"),
            ));
        }
        if !self.ratelimit.redis_tls_ca_file.as_os_str().is_empty() && !redis.starts_with("rediss://") {
            return Err(ConfigError::invalid(
                "ratelimit.redis_tls_ca_file",
                "is set but ratelimit.redis_url is not a rediss:// URL",
            ));
        }
        if self.engine.pool_size == 0 {
            return Err(ConfigError::invalid("engine.pool_size", "must be at least 1"));
        }
        if self.ratelimit.redis_timeout_ms == 0 {
            return Err(ConfigError::invalid("ratelimit.redis_timeout_ms", "must be at least 1"));
        }
        if self.ratelimit.redis_lease_max == 0 {
            return Err(ConfigError::invalid(
                "ratelimit.redis_lease_max",
                "must be at least 1 (1: every request asks Redis)",
            ));
        }
        validate_sync(&self.sync)?;
        self.plugin_options()?;
        let p = &self.plugins;
        for (key, value) in [
            ("call_deadline_ms", p.call_deadline_ms),
            ("max_threads_per_plugin", p.max_threads_per_plugin as u64),
            ("breaker_window_ms", p.breaker_window_ms),
            ("process_start_timeout_ms", p.process_start_timeout_ms),
            ("process_init_timeout_secs", p.process_init_timeout_secs),
        ] {
            if value == 0 {
                return Err(ConfigError::invalid(format!("plugins.{key}"), "must be at least 1"));
            }
        }
        Ok(())
    }

    /// The `[plugins.<slug>]` tables, each checked; an error names the key and what it accepts.
    pub fn plugin_options(&self) -> Result<BTreeMap<String, PluginOptions>, ConfigError> {
        self.plugins
            .per_plugin
            .iter()
            .map(|(slug, value)| {
                let options: PluginOptions = serde_json::from_value(value.clone()).map_err(|e| {
                    ConfigError::invalid(
                        format!("plugins.{slug}"),
                        format!(
                            "is not a plugin table: {e}; a [plugins.<slug>] table takes isolation \
                             (\"in-process\" or \"process\") and call_deadline_ms"
                        ),
                    )
                })?;
                if options.call_deadline_ms == Some(0) {
                    return Err(ConfigError::invalid(format!("plugins.{slug}.call_deadline_ms"), "must be at least 1"));
                }
                Ok((slug.clone(), options))
            })
            .collect()
    }

    /// How each plugin's calls run (`plugins::dispatch`); an unreadable `[plugins.<slug>]` table is an error
    /// (`validate` reports it first), never a plugin silently run on the defaults.
    pub fn plugin_policies(&self) -> Result<Policies, ConfigError> {
        Policies::from_config(self)
    }

    /// The plugin folder: `plugins.dir`, or the executable's folder when empty.
    pub fn plugins_dir(&self) -> PathBuf {
        if self.plugins.dir.as_os_str().is_empty() {
            match std::env::current_exe() {
                Ok(exe) => exe.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf),
                Err(e) => {
                    // Said, since plugins then load from wherever the host was started.
                    tracing::warn!(error = %e, "cannot locate the executable: plugins.dir is the current folder");
                    PathBuf::from(".")
                }
            }
        } else {
            self.plugins.dir.clone()
        }
    }

    pub fn base_url(&self) -> &str {
        self.server.base_url.trim_end_matches('/')
    }

    pub fn proxy_secret(&self) -> Option<&str> {
        Some(self.auth.proxy_secret.as_str()).filter(|s| !s.is_empty())
    }

    pub fn redis_url(&self) -> Option<&str> {
        Some(self.ratelimit.redis_url.as_str()).filter(|s| !s.is_empty())
    }

    pub fn engine_is_embedded(&self) -> bool {
        self.engine.url == "embedded"
    }
}

fn describe_figment_error(err: figment::Error) -> ConfigError {
    let described = err
        .into_iter()
        .map(|e| {
            let key = if e.path.is_empty() { String::new() } else { format!(" (key `{}`)", e.path.join(".")) };
            let source = e.metadata.as_ref().map(|m| format!(" from {}", m.name)).unwrap_or_default();
            format!("invalid configuration{key}{source}: {}", e.kind)
        })
        .collect::<Vec<_>>()
        .join("; ");
    ConfigError::Unreadable(described)
}

/// A URL with any user name and password removed, safe to log and to show in /health.
pub fn redact_url(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) => {
            if !u.username().is_empty() || u.password().is_some() {
                let _ = u.set_username("");
                let _ = u.set_password(None);
            }
            u.to_string()
        }
        Err(_) if raw.contains('@') => "<unparseable url>".into(),
        Err(_) => raw.to_string(),
    }
}

/// What a plugin runs with: its isolation, deadline, thread cap and breaker (from `[plugins]` and
/// `[plugins.<slug>]`).
#[derive(Debug, Clone)]
pub struct PluginPolicy {
    pub isolation: Isolation,
    pub deadline: Duration,
    pub max_threads: usize,
    pub max_queued: usize,
    pub breaker: BreakerConfig,
    pub process: ProcessConfig,
}

/// Every plugin's policy, and the size of the shared handler pool.
#[derive(Debug, Clone)]
pub struct Policies {
    pub default: PluginPolicy,
    pub per_plugin: std::collections::BTreeMap<String, PluginPolicy>,
    pub handler_threads: usize,
    /// Of those threads, how many run calls at once (`dispatch::blocking` waits do not count).
    pub running_calls: usize,
}

impl Policies {
    /// How each plugin's calls run (`plugins::dispatch`), from `[plugins]` and `[plugins.<slug>]`;
    /// `Config::plugin_policies` is the same.
    pub fn from_config(config: &Config) -> Result<Policies, ConfigError> {
        let p = &config.plugins;
        let default = PluginPolicy {
            isolation: Isolation::InProcess,
            deadline: Duration::from_millis(p.call_deadline_ms),
            max_threads: p.max_threads_per_plugin.max(1),
            max_queued: p.max_queued_per_plugin,
            breaker: BreakerConfig {
                failures: p.breaker_failures,
                window: Duration::from_millis(p.breaker_window_ms),
                cooldown: Duration::from_millis(p.breaker_cooldown_ms),
            },
            process: ProcessConfig {
                start_timeout: Duration::from_millis(p.process_start_timeout_ms),
                init_timeout: Duration::from_secs(p.process_init_timeout_secs),
                backoff: Duration::from_millis(p.restart_backoff_ms),
                backoff_max: Duration::from_millis(p.restart_backoff_max_ms.max(p.restart_backoff_ms)),
            },
        };
        let per_plugin = config
            .plugin_options()?
            .into_iter()
            .map(|(slug, o)| {
                let mut policy = default.clone();
                policy.isolation = o.isolation;
                if let Some(ms) = o.call_deadline_ms {
                    policy.deadline = Duration::from_millis(ms);
                }
                (slug, policy)
            })
            .collect();
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        let handler_threads = if p.handler_threads == 0 { (4 * cpus).max(8) } else { p.handler_threads };
        // One more than the cores: with the cores alone, routes whose calls compute long (edgar-search's full-text
        // search) lost throughput against no cap; with one more no route did (BENCHMARKS.md "Calls running at once").
        let running_calls = if p.running_calls == 0 { cpus + 1 } else { p.running_calls };
        Ok(Policies { default, per_plugin, handler_threads, running_calls })
    }
}

impl Policies {
    pub fn for_slug(&self, slug: &str) -> PluginPolicy {
        self.per_plugin.get(slug).cloned().unwrap_or_else(|| self.default.clone())
    }
}

/// `breaker_failures` faults (panics, overruns, crashes) within `breaker_window` open the breaker for
/// `breaker_cooldown`; 0 failures: no breaker.
#[derive(Debug, Clone, Copy)]
pub struct BreakerConfig {
    pub failures: usize,
    pub window: Duration,
    pub cooldown: Duration,
}

/// The supervision of a plugin process.
#[derive(Debug, Clone, Copy)]
pub struct ProcessConfig {
    /// How long a new child has to connect back.
    pub start_timeout: Duration,
    /// How long its `init` may take.
    pub init_timeout: Duration,
    /// First pause before a restart, doubled per consecutive failure up to `backoff_max`.
    pub backoff: Duration,
    pub backoff_max: Duration,
}

/// `plugins.<slug>.isolation`: where a plugin's calls run (`plugins::dispatch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub enum Isolation {
    #[serde(rename = "in-process")]
    InProcess,
    #[serde(rename = "process")]
    Process,
}

impl Isolation {
    pub fn as_str(self) -> &'static str {
        match self {
            Isolation::InProcess => "in-process",
            Isolation::Process => "process",
        }
    }
}

/// An address range of `server.trusted_proxies`: `10.0.0.0/8`, `::1/128`, or a single address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    addr: IpAddr,
    prefix: u8,
}

impl IpRange {
    pub fn parse(text: &str) -> Result<Self, BadValue> {
        let (addr, prefix) = match text.trim().split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (text.trim(), None),
        };
        let addr: IpAddr = addr.parse().map_err(|_| BadValue(format!("`{text}` is not an IP address or range")))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| BadValue(format!("`{text}`: bad prefix length")))?,
            None => max,
        };
        Ok(Self { addr, prefix })
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let bits = |a: IpAddr| -> (u128, u8) {
            match a {
                IpAddr::V4(v4) => (u32::from(v4) as u128, 32),
                IpAddr::V6(v6) => (u128::from(v6), 128),
            }
        };
        let ip = match (self.addr, ip) {
            (IpAddr::V6(_), IpAddr::V4(v4)) => IpAddr::V6(v4.to_ipv6_mapped()),
            (IpAddr::V4(_), IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => return false,
            },
            _ => ip,
        };
        let ((net, width), (addr, _)) = (bits(self.addr), bits(ip));
        let shift = width - self.prefix;
        shift >= width || (net >> shift) == (addr >> shift)
    }
}

/// Checks `server.cors_allowed_origins`: `["*"]` alone, or origins as browsers send them
/// (`https://app.example.com`, `http://localhost:3000`: scheme, host and port, no path or trailing slash).
pub fn check_origins(allowed: &[String]) -> Result<(), ConfigError> {
    const KEY: &str = "server.cors_allowed_origins";
    if allowed.iter().any(|o| o == "*") && allowed.len() > 1 {
        return Err(ConfigError::invalid(
            KEY,
            "lists \"*\", which allows every origin and cannot be listed with others",
        ));
    }
    for origin in allowed.iter().filter(|o| *o != "*") {
        let canonical = url::Url::parse(origin)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .map(|u| u.origin().ascii_serialization());
        if canonical.as_deref() != Some(origin.as_str()) {
            let hint = canonical.map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default();
            return Err(ConfigError::invalid(
                KEY,
                format!(
                    "lists `{origin}`, which is not an origin: give scheme, host and optional port, such as \
                     `https://app.example.com`, with no path or trailing slash{hint}"
                ),
            ));
        }
    }
    Ok(())
}

/// Every source and the datasets it feeds (`directory` feeds the dataset named in its config).
pub const SYNC_SOURCES: &[(&str, &[&str])] = &[
    ("sec", &["insiders", "institutional-holdings", "companies"]),
    ("house", &["congress-trades"]),
    ("senate", &["senate-trades"]),
    ("fec", &["donors"]),
    ("nhtsa", &["vin"]),
    ("prices", &["prices"]),
    ("directory", &[]),
];

/// The file kinds the donors dataset reads.
pub const FEC_FILE_KINDS: &[&str] = &["pas2", "cm", "cn", "ccl"];

/// `"90s"`, `"15m"`, `"1h"`, `"1d"` (or plain seconds).
pub fn parse_interval(text: &str) -> Result<Duration, BadValue> {
    let t = text.trim();
    let (digits, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = digits
        .parse()
        .map_err(|_| BadValue(format!("`{text}` is not an interval such as \"90s\", \"15m\", \"1h\", \"1d\"")))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => return Err(BadValue(format!("`{text}`: the unit must be s, m, h or d"))),
    };
    if secs == 0 {
        return Err(BadValue(format!("`{text}`: the interval must be positive")));
    }
    Ok(Duration::from_secs(secs))
}

/// The datasets `sync` can feed with this config.
pub fn feedable(config: &SyncConfig) -> Vec<String> {
    let mut v: Vec<String> = SYNC_SOURCES.iter().flat_map(|(_, d)| d.iter().map(|s| s.to_string())).collect();
    if !config.sources.directory.dataset.is_empty() {
        v.push(config.sources.directory.dataset.clone());
    }
    v.sort();
    v.dedup();
    v
}

/// Checks `[sync]` when the configuration loads (names the key that is wrong).
pub(crate) fn validate_sync(c: &SyncConfig) -> Result<(), ConfigError> {
    let s = &c.sources;
    let all: [(&str, &dyn SourceSettings); 7] = [
        ("sec", &s.sec),
        ("house", &s.house),
        ("senate", &s.senate),
        ("fec", &s.fec),
        ("nhtsa", &s.nhtsa),
        ("prices", &s.prices),
        ("directory", &s.directory),
    ];
    for (name, source) in all {
        let common = source.common();
        let key = |k: &str| format!("sync.sources.{name}.{k}");
        if !(common.requests_per_second > 0.0 && common.requests_per_second.is_finite()) {
            return Err(ConfigError::invalid(key("requests_per_second"), "must be a positive number"));
        }
        if common.timeout_secs == 0 {
            return Err(ConfigError::invalid(key("timeout_secs"), "must be at least 1"));
        }
        let local_folder = name == "directory" && !common.base_url.contains("://");
        let off = name == "directory" && common.base_url.is_empty();
        if !off && !local_folder {
            let url = url::Url::parse(common.base_url).map_err(|e| {
                ConfigError::invalid(key("base_url"), format!("`{}` is not a URL: {e}", redact_url(common.base_url)))
            })?;
            if !matches!(url.scheme(), "http" | "https" | "file") {
                return Err(ConfigError::invalid(key("base_url"), "must be http, https (or file for directory)"));
            }
        }
    }
    if s.sec.requests_per_second > 10.0 {
        return Err(ConfigError::invalid(
            "sync.sources.sec.requests_per_second",
            "must be at most 10: the SEC's fair-access limit",
        ));
    }
    if !s.sec.start_date.is_empty() && chrono::NaiveDate::parse_from_str(&s.sec.start_date, "%Y-%m-%d").is_err() {
        return Err(ConfigError::invalid(
            "sync.sources.sec.start_date",
            format!("`{}` is not YYYY-MM-DD", s.sec.start_date),
        ));
    }
    for kind in &s.fec.files {
        if !FEC_FILE_KINDS.contains(&kind.as_str()) {
            let known = FEC_FILE_KINDS.join(", ");
            return Err(ConfigError::invalid(
                "sync.sources.fec.files",
                format!("lists an unknown file kind `{kind}`; use {known}"),
            ));
        }
    }
    let known = feedable(c);
    for (dataset, every) in &c.schedule {
        let key = || format!("sync.schedule.{dataset}");
        parse_interval(every).map_err(|e| ConfigError::invalid(key(), format!("is not usable: {e}")))?;
        if !known.contains(dataset) {
            let fed = known.join(", ");
            return Err(ConfigError::invalid(
                key(),
                format!("names a dataset no sync source feeds; sources feed {fed}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_credentials() {
        assert_eq!(redact_url("postgres://u:secret@db:5432/x"), "postgres://db:5432/x");
        assert_eq!(redact_url("embedded"), "embedded");
    }

    #[test]
    fn defaults_parse() {
        let c: Config = Figment::new().merge(Toml::string(DEFAULT_TOML)).extract().unwrap();
        assert_eq!(c.server.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.metrics.listen.to_string(), "127.0.0.1:9464");
        assert_eq!(c.engine.url, "embedded");
        assert!(c.redis_url().is_none());
        assert!(c.proxy_secret().is_none());
    }

    #[test]
    fn plugin_tables_are_checked_and_name_their_key() {
        let load = |extra: &str| -> Result<Config, ConfigError> {
            let c: Config = Figment::new()
                .merge(Toml::string(DEFAULT_TOML))
                .merge(Toml::string(extra))
                .extract()
                .map_err(describe_figment_error)?;
            c.validate().map(|_| c)
        };
        let c =
            load("[plugins.prices]\nisolation = \"process\"\ncall_deadline_ms = 250\n[plugins.settings.prices]\nx = 1")
                .unwrap();
        let policies = c.plugin_policies().unwrap();
        assert_eq!(policies.for_slug("prices").isolation, Isolation::Process);
        assert_eq!(policies.for_slug("prices").deadline.as_millis(), 250);
        assert_eq!(policies.for_slug("vin").isolation, Isolation::InProcess);
        assert_eq!(c.plugins.settings["prices"]["x"], 1);
        let err = load("[plugins.prices]\nisolation = \"thread\"").unwrap_err();
        assert_eq!(err.key(), Some("plugins.prices"), "{err}");
        assert!(err.to_string().contains("unknown variant `thread`"), "{err}");
        let err = load("[plugins.prices]\nisolaton = \"process\"").unwrap_err();
        assert_eq!(err.key(), Some("plugins.prices"), "{err}");
        assert!(err.to_string().contains("isolaton"), "{err}");
        let err = load("[plugins]\ncall_deadline = 5").unwrap_err();
        assert_eq!(err.key(), Some("plugins.call_deadline"), "a misspelt key is read as a plugin's table: {err}");
        assert!(err.to_string().contains("not a plugin table"), "{err}");
        let err = load("[plugins]\ncall_deadline_ms = 0").unwrap_err();
        assert_eq!(err.key(), Some("plugins.call_deadline_ms"), "{err}");
        assert_eq!(err.to_string(), "plugins.call_deadline_ms must be at least 1");
        let cpus = std::thread::available_parallelism().unwrap().get();
        let policies = c.plugin_policies().unwrap();
        assert_eq!(policies.running_calls, cpus + 1, "0: one more than the CPUs");
        assert_eq!(policies.handler_threads, (4 * cpus).max(8));
        let policies = load("[plugins]\nrunning_calls = 3\nhandler_threads = 5").unwrap().plugin_policies().unwrap();
        assert_eq!((policies.running_calls, policies.handler_threads), (3, 5));
    }

    #[test]
    fn a_lease_of_zero_counts_is_refused_by_name() {
        let mut c: Config = Figment::new().merge(Toml::string(DEFAULT_TOML)).extract().unwrap();
        assert_eq!(c.ratelimit.redis_lease_max, 32);
        c.ratelimit.redis_lease_max = 0;
        let err = c.validate().unwrap_err();
        assert_eq!(err.key(), Some("ratelimit.redis_lease_max"), "{err}");
        assert!(err.to_string().contains("1: every request asks Redis"), "{err}");
    }

    #[test]
    fn policies_of_an_unchecked_bad_plugin_table_are_an_error_not_the_defaults() {
        let mut c: Config = Figment::new().merge(Toml::string(DEFAULT_TOML)).extract().unwrap();
        c.plugins.per_plugin.insert("prices".into(), serde_json::json!({ "isolation": "thread" }));
        let err = c.plugin_policies().expect_err("an unreadable table");
        assert_eq!(err.key(), Some("plugins.prices"), "{err}");
    }

    #[test]
    fn unknown_key_is_named() {
        let err = Figment::new()
            .merge(Toml::string(DEFAULT_TOML))
            .merge(Toml::string("[server]\nlisten_port = 3"))
            .extract::<Config>()
            .map_err(describe_figment_error)
            .unwrap_err()
            .to_string();
        assert!(err.contains("listen_port"), "{err}");
        assert!(err.contains("server"), "{err}");
    }

    #[test]
    fn origins_are_checked_as_browsers_send_them() {
        let ok = |o: &[&str]| check_origins(&o.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert!(ok(&[]).is_ok());
        assert!(ok(&["*"]).is_ok());
        assert!(ok(&["https://app.example.com", "http://localhost:3000"]).is_ok());
        let e = ok(&["*", "https://app.example.com"]).unwrap_err();
        assert_eq!(e.key(), Some("server.cors_allowed_origins"));
        assert!(e.to_string().contains("\"*\""), "{e}");
        let e = ok(&["https://app.example.com/"]).unwrap_err().to_string();
        assert!(e.contains("did you mean `https://app.example.com`"), "{e}");
        assert!(ok(&["app.example.com"]).is_err());
        assert!(ok(&["ftp://files.example.com"]).is_err());
        assert!(ok(&["https://app.example.com/path"]).is_err());
        assert!(ok(&["https://App.Example.com"]).is_err(), "browsers send the host in lower case");
    }
}
