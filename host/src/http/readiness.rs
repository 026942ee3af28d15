//! Readiness for orchestrators and load balancers: `GET /ready` answers 200 while this replica can serve every
//! dataset it should, and 503 with the JSON error envelope naming each reason while the records engine is
//! unreachable or a plugin is degraded. `/health` stays 200 whatever happens (SPEC); liveness probes use it,
//! readiness probes and load-balancer checks use `/ready`.
//!
//! "Degraded" is decided in one place, [`degraded_plugins`], so every source of plugin trouble (load and init
//! failures, failed reloads, and any later per-plugin state such as a circuit breaker) reaches `/ready`, the
//! `datahost_plugin_degraded` metric and `datahost_ready` together.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

use crate::http::error::AppError;
use crate::http::state::AppState;

/// Every plugin that is degraded now, sorted and without repeats: those that failed to load or initialise at
/// start (`/health` `pluginFailures`), those whose last reload failed, and those whose circuit breaker is open or
/// whose process is down (`/health` `plugins`).
pub fn degraded_plugins(state: &AppState) -> Vec<String> {
    let mut degraded: Vec<String> = state.registry.failures.iter().map(|f| f.plugin.clone()).collect();
    degraded.extend(state.plugin_health.failed_reloads());
    // Circuit breaker not closed, or plugin process not up (`plugins/dispatch.rs`, `plugins/process.rs`).
    degraded.extend(state.registry.plugins.iter().filter(|p| p.is_degraded()).map(|p| p.slug().to_string()));
    degraded.sort_unstable();
    degraded.dedup();
    degraded
}

/// Why this replica should not receive traffic; empty when it is ready.
pub fn not_ready_reasons(state: &AppState) -> Vec<String> {
    let mut reasons = Vec::new();
    if !state.engine.is_healthy() {
        reasons.push(format!("the records engine at {} is unreachable", state.engine.address()));
    }
    let degraded = degraded_plugins(state);
    if !degraded.is_empty() {
        reasons.push(format!(
            "degraded plugin{}: {} (load, init or reload failed, circuit breaker open or process down; /health says which)",
            if degraded.len() == 1 { "" } else { "s" },
            degraded.join(", ")
        ));
    }
    reasons
}

/// `GET /ready`: unauthenticated, never cached.
pub async fn ready(State(state): State<Arc<AppState>>) -> Response {
    let reasons = not_ready_reasons(&state);
    let mut resp = if reasons.is_empty() {
        axum::Json(serde_json::json!({"ready": true})).into_response()
    } else {
        AppError::new(state.config.base_url(), 503, format!("not ready: {}", reasons.join("; "))).into_response()
    };
    resp.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}
