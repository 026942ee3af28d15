//! Prometheus metrics: the recorder and its bucket layout, the series that exist from start (per-plugin fault
//! and panic counters at 0, so alerts and `rate()` work before the first fault), the families read at scrape
//! time (process, build info, records engine, readiness, plugin health, per-dataset rows and data age), and the
//! `/metrics` listener that is kept apart from the public API listener.
//!
//! Every label value is bounded: route templates, statuses, tiers, plugin slugs, dataset names, fault kinds.
//!
//! The series every request touches are resolved once and kept ([`http_request`], [`ratelimit_decision`], and
//! per route in `app.rs`): looking a series up by name and labels hashes and allocates on every request.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use datahost_plugin_api::Tier;
use metrics::{Counter, Histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::http::app::AppState;

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

const LATENCY_BUCKETS: &[f64] =
    &[0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// The `kind` label values of `datahost_plugin_faults_total` (what `app.rs` `call_plugin` counts), registered
/// at 0 for every plugin at start.
pub const PLUGIN_FAULT_KINDS: &[&str] =
    &["panic", "invalid-json", "invalid-error", "invalid-status", "error", "timeout", "crash"];

/// Installs the global recorder once per process and returns its handle.
pub fn install() -> PrometheusHandle {
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
                .expect("valid buckets")
                .build_recorder();
            let handle = recorder.handle();
            // In-process tests may build several apps; only the first recorder can be global.
            let _ = metrics::set_global_recorder(recorder);
            describe();
            handle
        })
        .clone()
}

fn describe() {
    metrics::describe_counter!("datahost_http_requests_total", "HTTP requests by route template, status and tier.");
    metrics::describe_histogram!(
        "datahost_http_request_duration_seconds",
        metrics::Unit::Seconds,
        "Request latency by route template, status and tier."
    );
    metrics::describe_counter!("datahost_ratelimit_decisions_total", "Rate-limit decisions by tier and outcome.");
    metrics::describe_gauge!(
        "datahost_plugin_loaded",
        "1 for each plugin that loaded and initialised, 0 for failures."
    );
    metrics::describe_histogram!(
        "datahost_plugin_duration_seconds",
        metrics::Unit::Seconds,
        "Time spent in each plugin's handle."
    );
    metrics::describe_counter!("datahost_plugin_panics_total", "Panics caught in plugin handlers.");
    metrics::describe_counter!(
        "datahost_response_cache_hits_total",
        "Dataset requests answered from the response cache, per plugin."
    );
    metrics::describe_counter!(
        "datahost_response_cache_misses_total",
        "Dataset requests the response cache had no answer for (the plugin was called), per plugin."
    );
    metrics::describe_counter!("datahost_plugin_faults_total", "Plugin faults (panics, invalid responses) by kind.");
    metrics::describe_gauge!(
        "datahost_plugin_breaker_state",
        "Circuit breaker of each plugin's calls: 0 closed, 1 half-open, 2 open (see /health `plugins`)."
    );
    metrics::describe_counter!(
        "datahost_plugin_timeouts_total",
        "Plugin calls answered 503 because the plugin passed its call deadline."
    );
    metrics::describe_counter!(
        "datahost_plugin_restarts_total",
        "Restarts of plugins isolated in their own process (after a crash, abort or overrun)."
    );
    metrics::describe_gauge!("datahost_plugin_process_up", "1 while an isolated plugin's child process serves.");
    metrics::describe_counter!(
        "datahost_http_unparsable_requests_total",
        "Requests the HTTP parser refused itself (answered 400, 414 or 431 with the envelope), by status."
    );
    metrics::describe_gauge!("datahost_ratelimit_store_up", "1 when the shared rate-limit store answers.");
    metrics::describe_counter!("datahost_auth_failures_total", "Failed credentials by outcome.");
    metrics::describe_gauge!("datahost_http_connections_open", "Open connections on the API listener.");
    metrics::describe_counter!(
        "datahost_http_connections_refused_total",
        "Connections refused with a 503 by reason (connection caps)."
    );
    metrics::describe_counter!(
        "datahost_sync_schedule_checks_total",
        "Passes of the sync scheduler (about one a second while `[sync.schedule]` names datasets)."
    );
    metrics::describe_counter!("datahost_sync_files_total", "Files fetched by `datahost sync`, by source.");
    metrics::describe_counter!("datahost_sync_bytes_total", metrics::Unit::Bytes, "Bytes fetched by sync, by source.");
    metrics::describe_counter!("datahost_sync_records_total", "Records ingested by sync, by source.");
    metrics::describe_counter!("datahost_sync_errors_total", "Sync errors, by source.");
    metrics::describe_gauge!(
        "datahost_sync_last_success_timestamp_seconds",
        "Unix time of the source's last sync without errors."
    );
    metrics::describe_gauge!(
        "datahost_sync_dataset_last_success_timestamp_seconds",
        "Unix time of the dataset's last successful sync (any replica)."
    );
}

/// The request series of one route template, status and tier.
struct RequestSeries {
    requests: Counter,
    seconds: Histogram,
}

type SeriesByRoute = HashMap<Box<str>, HashMap<(u16, &'static str), RequestSeries>>;

/// Counts and times one request: `datahost_http_requests_total` and `datahost_http_request_duration_seconds`.
/// `route` is a route template or `unmatched`, so the set of series stays bounded.
pub fn http_request(route: &str, status: u16, tier: &'static str, elapsed: Duration) {
    static SERIES: OnceLock<RwLock<SeriesByRoute>> = OnceLock::new();
    let series = SERIES.get_or_init(Default::default);
    let record = |s: &RequestSeries| {
        s.requests.increment(1);
        s.seconds.record(elapsed.as_secs_f64());
    };
    if let Some(s) = series.read().unwrap_or_else(|e| e.into_inner()).get(route).and_then(|r| r.get(&(status, tier))) {
        return record(s);
    }
    let labels = [("route", route.to_string()), ("status", status.to_string()), ("tier", tier.to_string())];
    let s = RequestSeries {
        requests: metrics::counter!("datahost_http_requests_total", &labels),
        seconds: metrics::histogram!("datahost_http_request_duration_seconds", &labels),
    };
    record(&s);
    series.write().unwrap_or_else(|e| e.into_inner()).entry(route.into()).or_default().insert((status, tier), s);
}

/// Counts one decision of the rate limiter (`allowed`, `limited`, `fail_open`, `fail_closed`). Each series is
/// created on its first decision, as before, and kept.
pub fn ratelimit_decision(tier: Tier, decision: &'static str) {
    const DECISIONS: [&str; 4] = ["allowed", "limited", "fail_open", "fail_closed"];
    static SERIES: [OnceLock<Counter>; 16] = [const { OnceLock::new() }; 16];
    let tier_at = Tier::ALL.iter().position(|t| *t == tier);
    let at = DECISIONS.iter().position(|d| *d == decision);
    let Some(slot) = tier_at.zip(at).and_then(|(t, d)| SERIES.get(t * DECISIONS.len() + d)) else {
        return metrics::counter!("datahost_ratelimit_decisions_total", "tier" => tier.as_str(), "decision" => decision)
            .increment(1);
    };
    slot.get_or_init(
        || metrics::counter!("datahost_ratelimit_decisions_total", "tier" => tier.as_str(), "decision" => decision),
    )
    .increment(1);
}

/// Creates the per-plugin fault and panic counters at 0 for every loaded plugin, so they exist from start.
pub fn register_plugins<'a>(slugs: impl IntoIterator<Item = &'a str>) {
    for slug in slugs {
        metrics::counter!("datahost_response_cache_hits_total", "plugin" => slug.to_string()).increment(0);
        metrics::counter!("datahost_response_cache_misses_total", "plugin" => slug.to_string()).increment(0);
        metrics::counter!("datahost_plugin_panics_total", "plugin" => slug.to_string()).increment(0);
        for kind in PLUGIN_FAULT_KINDS {
            metrics::counter!("datahost_plugin_faults_total", "plugin" => slug.to_string(), "kind" => *kind)
                .increment(0);
        }
    }
}

/// The router of the metrics listener: the recorder's series, then the families read from `state` now.
pub fn router(handle: PrometheusHandle, state: Arc<AppState>) -> Router {
    let upkeep = handle.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(5)).await;
            upkeep.run_upkeep();
        }
    });
    Router::new().route(
        "/metrics",
        get(move || {
            let handle = handle.clone();
            let state = state.clone();
            async move {
                let mut text = handle.render();
                scrape_time_families(&state, &mut Exposition(&mut text));
                ([("content-type", "text/plain; version=0.0.4")], text)
            }
        }),
    )
}

/// Prometheus text exposition of families this module computes itself (the recorder's counters are integers,
/// and CPU seconds are not).
struct Exposition<'a>(&'a mut String);

impl Exposition<'_> {
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.0, "# HELP {name} {help}\n# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.0.push_str(name);
        if !labels.is_empty() {
            self.0.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.0.push(',');
                }
                let escaped = v.replace('\\', r"\\").replace('"', "\\\"").replace('\n', r"\n");
                let _ = write!(self.0, "{k}=\"{escaped}\"");
            }
            self.0.push('}');
        }
        let _ = writeln!(self.0, " {value}");
    }

    /// A family of one unlabelled sample.
    fn single(&mut self, name: &str, kind: &str, help: &str, value: f64) {
        self.family(name, kind, help);
        self.sample(name, &[], value);
    }
}

fn flag(on: bool) -> f64 {
    if on {
        1.0
    } else {
        0.0
    }
}

fn scrape_time_families(state: &AppState, out: &mut Exposition) {
    out.family("datahost_build_info", "gauge", "Always 1; the labels say which build is running.");
    out.sample(
        "datahost_build_info",
        &[
            ("version", env!("CARGO_PKG_VERSION")),
            ("git_commit", env!("BUILD_GIT_COMMIT")),
            ("rustc", env!("BUILD_RUSTC_VERSION")),
        ],
        1.0,
    );
    out.single(
        "datahost_engine_up",
        "gauge",
        "1 when the records engine answers (always 1 for the embedded engine).",
        flag(state.engine.is_healthy()),
    );
    let reasons = crate::http::readiness::not_ready_reasons(state);
    out.single(
        "datahost_ready",
        "gauge",
        "1 when /ready answers 200: the records engine answers and no plugin is degraded.",
        flag(reasons.is_empty()),
    );

    let degraded = crate::http::readiness::degraded_plugins(state);
    let mut plugins: Vec<&str> = state.registry.plugins.iter().map(|p| p.slug()).collect();
    plugins.extend(state.registry.failures.iter().map(|f| f.plugin.as_str()));
    plugins.extend(degraded.iter().map(String::as_str));
    plugins.sort_unstable();
    plugins.dedup();
    out.family(
        "datahost_plugin_degraded",
        "gauge",
        "1 for a plugin that failed to load or initialise, or whose last reload failed; 0 for a healthy one.",
    );
    for plugin in plugins {
        out.sample("datahost_plugin_degraded", &[("plugin", plugin)], flag(degraded.iter().any(|d| d == plugin)));
    }

    let (entries, bytes, evictions) = state.response_cache.stats();
    out.single("datahost_response_cache_entries", "gauge", "Answers held by the response cache.", entries as f64);
    out.single(
        "datahost_response_cache_bytes",
        "gauge",
        "Bytes the response cache accounts for: bodies, keys and room for their compressed variants (at most \
         cache.max_bytes).",
        bytes as f64,
    );
    out.single(
        "datahost_response_cache_evictions_total",
        "counter",
        "Answers evicted from the response cache to stay within cache.max_bytes.",
        evictions as f64,
    );

    dataset_families(state, out);
    #[cfg(target_os = "linux")]
    process_families(out);
}

/// Per dataset, from the same values `/health` shows (`app::dataset_status`).
fn dataset_families(state: &AppState, out: &mut Exposition) {
    let status = crate::http::app::dataset_status(state);
    let epoch = |v: &serde_json::Value| {
        v.as_str().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok()).map(|t| t.timestamp() as f64)
    };
    let now = chrono::Utc::now().timestamp() as f64;
    out.family(
        "datahost_dataset_ingested",
        "gauge",
        "1 when the dataset serves ingested records, 0 for its demo seed.",
    );
    for (name, v) in &status {
        out.sample("datahost_dataset_ingested", &[("dataset", name)], flag(v["data"] == "ingested"));
    }
    out.family("datahost_dataset_rows", "gauge", "Ingested records the dataset serves (ingested datasets only).");
    for (name, v) in &status {
        if let Some(rows) = v["rows"].as_u64() {
            out.sample("datahost_dataset_rows", &[("dataset", name)], rows as f64);
        }
    }
    out.family(
        "datahost_dataset_last_ingest_timestamp_seconds",
        "gauge",
        "Unix time of the last source file that changed the dataset (ingested datasets only).",
    );
    for (name, v) in &status {
        if let Some(t) = epoch(&v["lastIngestAt"]) {
            out.sample("datahost_dataset_last_ingest_timestamp_seconds", &[("dataset", name)], t);
        }
    }
    out.family(
        "datahost_dataset_data_age_seconds",
        "gauge",
        "Seconds since the dataset's data was last confirmed current: the later of its last ingest and its last \
         successful sync (datasets never ingested nor synced have no sample).",
    );
    for (name, v) in &status {
        let latest = [epoch(&v["lastIngestAt"]), epoch(&v["lastSyncAt"])].into_iter().flatten().reduce(f64::max);
        if let Some(t) = latest {
            out.sample("datahost_dataset_data_age_seconds", &[("dataset", name)], (now - t).max(0.0));
        }
    }
}

/// The standard `process_*` families (as the official client libraries name them), read from `/proc/self`.
#[cfg(target_os = "linux")]
fn process_families(out: &mut Exposition) {
    if let Some(p) = ProcessStats::read() {
        out.single(
            "process_cpu_seconds_total",
            "counter",
            "Total user and system CPU time spent in seconds.",
            p.cpu_seconds,
        );
        out.single("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", p.resident_bytes);
        out.single("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", p.virtual_bytes);
        out.single(
            "process_start_time_seconds",
            "gauge",
            "Start time of the process since unix epoch in seconds.",
            p.start_time_seconds,
        );
        out.single("process_threads", "gauge", "Number of OS threads in the process.", p.threads);
    }
    if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
        out.single("process_open_fds", "gauge", "Number of open file descriptors.", fds.count() as f64);
    }
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        out.single("process_max_fds", "gauge", "Maximum number of open file descriptors.", limit.rlim_cur as f64);
    }
}

#[cfg(target_os = "linux")]
struct ProcessStats {
    cpu_seconds: f64,
    resident_bytes: f64,
    virtual_bytes: f64,
    start_time_seconds: f64,
    threads: f64,
}

#[cfg(target_os = "linux")]
impl ProcessStats {
    fn read() -> Option<Self> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let boot_time: f64 = std::fs::read_to_string("/proc/stat")
            .ok()?
            .lines()
            .find_map(|l| l.strip_prefix("btime "))?
            .trim()
            .parse()
            .ok()?;
        // SAFETY: sysconf only reads configuration values.
        let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK), libc::sysconf(libc::_SC_PAGESIZE)) };
        Self::parse(&stat, boot_time, ticks as f64, page as f64)
    }

    /// Parses `/proc/self/stat` (proc(5)): the fields after the command name, which is in parentheses and may
    /// itself hold spaces or parentheses.
    fn parse(stat: &str, boot_time: f64, ticks_per_sec: f64, page_bytes: f64) -> Option<Self> {
        let after_name = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        // proc(5) numbers fields from 1 with state as 3, so field n is fields[n - 3].
        let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<f64>().ok());
        if ticks_per_sec <= 0.0 {
            return None;
        }
        Some(Self {
            cpu_seconds: (field(14)? + field(15)?) / ticks_per_sec,
            threads: field(20)?,
            start_time_seconds: boot_time + field(22)? / ticks_per_sec,
            virtual_bytes: field(23)?,
            resident_bytes: field(24)? * page_bytes,
        })
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_fields_are_read_after_the_command_name() {
        // A command name holding ") " must not shift the fields.
        let stat = "4242 (data host) x) S 1 4242 4242 0 -1 4194560 500 0 0 0 250 150 0 0 20 0 7 0 12000 \
                    104857600 2560 18446744073709551615";
        let p = ProcessStats::parse(stat, 1_700_000_000.0, 100.0, 4096.0).unwrap();
        assert_eq!(p.cpu_seconds, 4.0);
        assert_eq!(p.threads, 7.0);
        assert_eq!(p.start_time_seconds, 1_700_000_120.0);
        assert_eq!(p.virtual_bytes, 104_857_600.0);
        assert_eq!(p.resident_bytes, 2560.0 * 4096.0);
        assert!(ProcessStats::parse("garbage", 0.0, 100.0, 4096.0).is_none());
    }

    #[test]
    fn label_values_are_escaped() {
        let mut text = String::new();
        Exposition(&mut text).sample("m", &[("a", "x\"y\\z\nw")], 1.0);
        assert_eq!(text, "m{a=\"x\\\"y\\\\z\\nw\"} 1\n");
    }

    #[test]
    fn this_process_has_stats() {
        let p = ProcessStats::read().expect("/proc/self/stat");
        assert!(p.resident_bytes > 0.0 && p.virtual_bytes >= p.resident_bytes && p.threads >= 1.0);
    }
}
