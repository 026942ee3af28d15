//! The state every handler shares (`AppState`): configuration, plugin registry, records engine, keys, limiter,
//! the assembled OpenAPI document, the response cache, sync freshness, the failed-credential throttle, CORS and
//! plugin health; built once by `lifecycle::server`, read by the router (`app.rs`), `/ready`, the metrics
//! scrape and the background upkeep. Also the per-dataset status `/health` and the metrics report.

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{header, HeaderMap, HeaderValue};
use serde_json::json;

use crate::access::auth::ProxySecret;
use crate::access::auth_guard::FailedAuth;
use crate::access::keys::KeyRing;
use crate::access::limiter::Limiter;
use crate::config::{Config, IpRange};
use crate::engine::Engine;
use crate::http::error::AppError;
use crate::http::response_cache::{Entry, ResponseCache};
use crate::plugins::{LoadedPlugin, PluginRegistry};

/// Everything a request needs, shared by all handlers.
pub struct AppState {
    pub config: Arc<Config>,
    pub registry: Arc<PluginRegistry>,
    pub engine: Arc<Engine>,
    pub keys: Arc<KeyRing>,
    pub limiter: Arc<Limiter>,
    pub proxy_secret: Option<ProxySecret>,
    /// The assembled OpenAPI document, serialised once at start.
    pub openapi: Bytes,
    /// The same, tagged, with its compressed variants made on first demand.
    pub(crate) openapi_entry: Arc<Entry>,
    /// Finished dataset answers (`response_cache.rs`); emptied by `lifecycle/watch.rs` after every data change.
    pub response_cache: Arc<ResponseCache>,
    /// Each dataset's last successful `datahost sync`, refreshed from the engine (`sync/schedule.rs`).
    pub sync_freshness: Arc<crate::sync::schedule::Freshness>,
    /// Failed credentials per client address (`access/auth_guard.rs`).
    pub failed_auth: Arc<FailedAuth>,
    /// Cross-origin policy (`cors.rs`); `None` while `server.cors_allowed_origins` is empty.
    pub cors: Option<crate::http::cors::Cors>,
    /// Plugins whose last reload failed (`plugins/health.rs`, written by `lifecycle/watch.rs`).
    pub plugin_health: Arc<crate::plugins::health::PluginHealth>,
    /// One line per request (`access_log.rs`); `None` while `server.access_log` is off or filtered out.
    pub access_log: Option<Arc<crate::http::access_log::AccessLog>>,
}

impl AppState {
    pub fn new(
        config: Arc<Config>,
        registry: Arc<PluginRegistry>,
        engine: Arc<Engine>,
        keys: Arc<KeyRing>,
        limiter: Arc<Limiter>,
    ) -> Self {
        let doc = crate::http::openapi::assemble(&registry, config.base_url());
        // A `Value` always serialises (`to_string` cannot fail), so the document is never served empty.
        let openapi = Bytes::from(doc.to_string());
        let proxy_secret = config.proxy_secret().map(ProxySecret::new);
        // The ranges were checked when the configuration loaded.
        let trusted = config.server.trusted_proxies.iter().filter_map(|p| IpRange::parse(p).ok()).collect();
        let failed_auth = Arc::new(FailedAuth::new(config.auth.failed_per_minute, trusted));
        let cors = crate::http::cors::Cors::from_config(&config.server.cors_allowed_origins);
        let mut doc_headers = HeaderMap::new();
        doc_headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        doc_headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        let openapi_entry = Arc::new(Entry::new(openapi.clone(), doc_headers, true));
        let response_cache = Arc::new(ResponseCache::new(&config.cache));
        let access_log = crate::http::access_log::AccessLog::stderr(config.server.access_log, config.server.log_format);
        Self {
            config,
            registry,
            engine,
            keys,
            limiter,
            proxy_secret,
            openapi,
            openapi_entry,
            response_cache,
            sync_freshness: Arc::default(),
            failed_auth,
            cors,
            plugin_health: Arc::default(),
            access_log,
        }
    }

    pub(crate) fn error(&self, status: u16, message: impl Into<String>) -> AppError {
        AppError::new(self.config.base_url(), status, message)
    }
}

/// Per dataset: `demo` (serving its shipped seed) or `ingested`, with row count and last ingest time, as the
/// owning plugin's current instance serves it (not merely as the engine holds it).
pub fn dataset_status(state: &AppState) -> serde_json::Map<String, serde_json::Value> {
    let mut owned: Vec<(&str, &LoadedPlugin)> = state
        .registry
        .plugins
        .iter()
        .flat_map(|p| p.manifest.datasets.iter().map(move |d| (d.as_str(), p.as_ref())))
        .collect();
    owned.sort_unstable_by_key(|(d, _)| *d);
    owned.dedup_by_key(|(d, _)| *d);
    owned
        .into_iter()
        .map(|(name, plugin)| {
            let mut value = match plugin.served_info(name) {
                Some(i) => {
                    json!({"data": "ingested", "rows": i.rows, "files": i.files, "lastIngestAt": i.last_ingest_at})
                }
                None => json!({"data": "demo", "rows": null, "files": 0, "lastIngestAt": null}),
            };
            // Freshness of `datahost sync` (null when the dataset was never synced).
            let synced = state.sync_freshness.last_success(name);
            let age = synced.as_deref().and_then(crate::sync::schedule::age_secs);
            value["lastSyncAt"] = json!(synced);
            value["syncAgeSecs"] = json!(age);
            (name.to_string(), value)
        })
        .collect()
}
