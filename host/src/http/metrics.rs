//! Prometheus metrics: the recorder and its bucket layout, and the series that exist from start (per-plugin fault
//! and panic counters at 0, so alerts and `rate()` work before the first fault). The families read at scrape
//! time and the `/metrics` listener are `scrape.rs`.
//!
//! Every label value is bounded: route templates, statuses, tiers, plugin slugs, dataset names, fault kinds.
//!
//! The series every request touches are resolved once and kept ([`http_request`], [`ratelimit_decision`], and
//! per route in `app.rs`): looking a series up by name and labels hashes and allocates on every request.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};
use std::time::Duration;

use datahost_plugin_api::Tier;
use metrics::{Counter, Histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

const LATENCY_BUCKETS: &[f64] =
    &[0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// The `kind` label values of `datahost_plugin_faults_total` (what `app.rs` `call_plugin` counts), registered
/// at 0 for every plugin at start.
pub const PLUGIN_FAULT_KINDS: &[&str] =
    &["panic", "invalid-json", "invalid-error", "invalid-status", "invalid-answer", "error", "timeout", "crash"];

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

impl RequestSeries {
    fn new(route: &str, status: u16, tier: &str) -> Self {
        let labels = [("route", route.to_string()), ("status", status.to_string()), ("tier", tier.to_string())];
        RequestSeries {
            requests: metrics::counter!("datahost_http_requests_total", &labels),
            seconds: metrics::histogram!("datahost_http_request_duration_seconds", &labels),
        }
    }

    fn record(&self, elapsed: Duration) {
        self.requests.increment(1);
        self.seconds.record(elapsed.as_secs_f64());
    }
}

/// The request series of one dataset route, kept with the route: those of its answers served (200) to each tier,
/// which are most of its requests, made on first use; any other status is [`http_request`]'s. The same series
/// as `http_request` would find (a series is its name and labels), without its look-up by route text.
pub struct RouteRequests {
    route: Box<str>,
    served: [OnceLock<RequestSeries>; Tier::ALL.len()],
}

impl RouteRequests {
    pub fn new(route: &str) -> Self {
        RouteRequests { route: route.into(), served: [const { OnceLock::new() }; Tier::ALL.len()] }
    }

    /// The route template.
    pub fn route(&self) -> &str {
        &self.route
    }

    /// Counts and times one request of this route.
    pub fn record(&self, status: u16, tier: &'static str, elapsed: Duration) {
        if status == 200 {
            if let Some(at) = Tier::ALL.iter().position(|t| t.as_str() == tier) {
                return self.served[at].get_or_init(|| RequestSeries::new(&self.route, status, tier)).record(elapsed);
            }
        }
        http_request(&self.route, status, tier, elapsed)
    }
}

/// foldhash: a bounded set of the host's own labels, looked up on every request (SipHash showed in its profile).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type SeriesByRoute = FastMap<Box<str>, FastMap<(u16, &'static str), RequestSeries>>;

/// Counts and times one request: `datahost_http_requests_total` and `datahost_http_request_duration_seconds`.
/// `route` is a route template or `unmatched`, so the set of series stays bounded.
pub fn http_request(route: &str, status: u16, tier: &'static str, elapsed: Duration) {
    static SERIES: OnceLock<RwLock<SeriesByRoute>> = OnceLock::new();
    let series = SERIES.get_or_init(Default::default);
    if let Some(s) = series.read().unwrap_or_else(|e| e.into_inner()).get(route).and_then(|r| r.get(&(status, tier))) {
        return s.record(elapsed);
    }
    let s = RequestSeries::new(route, status, tier);
    s.record(elapsed);
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
