//! Prometheus metrics: the recorder, its bucket layout, and the `/metrics` listener that is kept apart from
//! the public API listener.

use std::sync::OnceLock;
use std::time::Duration;

use axum::routing::get;
use axum::Router;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

const LATENCY_BUCKETS: &[f64] =
    &[0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

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
    metrics::describe_counter!("datahost_plugin_faults_total", "Plugin faults (panics, invalid responses) by kind.");
    metrics::describe_gauge!("datahost_records_engine_up", "1 when the records engine answers.");
    metrics::describe_gauge!("datahost_ratelimit_store_up", "1 when the shared rate-limit store answers.");
}

/// The router of the metrics listener.
pub fn router(handle: PrometheusHandle) -> Router {
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
            async move { ([("content-type", "text/plain; version=0.0.4")], handle.render()) }
        }),
    )
}
