//! The `/metrics` listener, kept apart from the public API listener: the recorder's series (`metrics.rs`), then
//! the families read from the state at scrape time (process, build info, records engine, readiness, plugin
//! health, per-dataset rows and data age).

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use metrics_exporter_prometheus::PrometheusHandle;

use crate::http::state::AppState;

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

/// Per dataset, from the same values `/health` shows (`state::dataset_status`).
fn dataset_families(state: &AppState, out: &mut Exposition) {
    let status = crate::http::state::dataset_status(state);
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
