//! The host services plugins call back into (`log`, `metric`, `load_dataset`, `query`, `call`), and the
//! registries they read: plugin tokens and the routes `route.get` reaches. The same functions answer a plugin
//! loaded in this process (through the `extern "C"` table) and one in a child process (its calls arrive over
//! the plugin's socket, `process.rs`), so both see one set of services.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use abi_stable::std_types::RStr;
use datahost_plugin_api::abi::{FfiReply, HostServices};
use datahost_plugin_api::Manifest;

use super::dispatch::blocking;
use super::outcome::{first_line, HandleOutcome};
use crate::engine::{Engine, EngineError};

pub(super) struct TokenContext {
    pub(super) engine: Arc<Engine>,
    slug: String,
    /// The datasets the plugin owns or declared in `reads`: what `records.query` may read.
    readable: Vec<String>,
}

/// What `route.get` reaches: a serving plugin (`LoadedPlugin` in `mod.rs`), seen only through what the call
/// needs, so these services do not depend on the loader that registers plugins here.
pub trait RouteTarget: Send + Sync {
    fn slug(&self) -> &str;
    /// The plugin's `handle`, on this thread (inside the calling plugin's call); a 2xx body comes labelled.
    fn handle(&self, request_json: &str) -> HandleOutcome;
}

/// Every serving plugin by route, for the `route.get` host call.
fn routes() -> &'static RwLock<HashMap<String, Arc<dyn RouteTarget>>> {
    static ROUTES: OnceLock<RwLock<HashMap<String, Arc<dyn RouteTarget>>>> = OnceLock::new();
    ROUTES.get_or_init(Default::default)
}

/// Makes `plugin` reachable by `route.get` on each of its routes.
pub(super) fn register_routes(plugin: Arc<dyn RouteTarget>, paths: impl IntoIterator<Item = String>) {
    let mut map = routes().write().unwrap_or_else(|e| e.into_inner());
    for path in paths {
        map.insert(path, plugin.clone());
    }
}

thread_local! {
    /// How deep `route.get` calls are nested on this thread (a plugin asking another that asks another...).
    static ROUTE_DEPTH: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// Why a host service call failed. Its text is the error reply the calling plugin reads.
#[derive(Debug, thiserror::Error)]
enum ServiceError {
    #[error("unknown plugin token")]
    UnknownToken,
    #[error("unknown host call `{0}`")]
    UnknownCall(String),
    /// The call's input is not the JSON it takes.
    #[error("{call} takes {takes}: {error}")]
    BadInput {
        call: &'static str,
        takes: &'static str,
        #[source]
        error: serde_json::Error,
    },
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error("cannot encode the answer: {0}")]
    Encode(#[source] serde_json::Error),
    #[error("no loaded plugin serves {0}")]
    NoRoute(String),
    #[error("plugin {caller} asked for its own route {route}")]
    OwnRoute { caller: String, route: String },
    #[error("route.get nested too deep at {0}")]
    TooDeep(String),
    /// The route answered, but not with a 200 the caller can read: `what` says what it answered.
    #[error("{route} {what}")]
    RouteFailed { route: String, what: String },
}

/// The call's JSON input, or [`ServiceError::BadInput`] naming what the call takes.
fn parse_input<'a, T: serde::Deserialize<'a>>(
    call: &'static str,
    takes: &'static str,
    json: &'a str,
) -> Result<T, ServiceError> {
    serde_json::from_str(json).map_err(|error| ServiceError::BadInput { call, takes, error })
}

fn encode(answer: &impl serde::Serialize) -> Result<String, ServiceError> {
    serde_json::to_string(answer).map_err(ServiceError::Encode)
}

/// `route.get`: one plugin reads another dataset through that dataset's public API (the same answer a client
/// with an owner key gets), so derived datasets depend on the contract, not on another plugin's internals.
fn route_get(caller: &str, json: &str) -> Result<String, ServiceError> {
    #[derive(serde::Deserialize)]
    struct RouteGet {
        route: String,
        #[serde(default)]
        query: Vec<(String, String)>,
    }
    let req: RouteGet = parse_input("route.get", "{\"route\", \"query\": [[k, v]]}", json)?;
    let target = routes()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(&req.route)
        .cloned()
        .ok_or_else(|| ServiceError::NoRoute(req.route.clone()))?;
    if target.slug() == caller {
        return Err(ServiceError::OwnRoute { caller: caller.to_string(), route: req.route });
    }
    let depth = ROUTE_DEPTH.with(|d| d.get());
    if depth >= 2 {
        return Err(ServiceError::TooDeep(req.route));
    }
    let envelope = datahost_plugin_api::RequestEnvelope {
        route: req.route.clone(),
        query: req.query,
        tier: datahost_plugin_api::Tier::Owner,
        request_id: format!("internal:{caller}"),
    };
    let envelope_json = encode(&envelope)?;
    ROUTE_DEPTH.with(|d| d.set(depth + 1));
    let outcome = target.handle(&envelope_json);
    ROUTE_DEPTH.with(|d| d.set(depth));
    let what = match outcome {
        // Labelled as clients see it (`outcome_of`), so a derived dataset knows when it derives from demo rows.
        HandleOutcome::Response { status: 200, body, .. } => match String::from_utf8(body) {
            Ok(text) => return Ok(text),
            Err(_) => "answered a body that is not UTF-8".to_string(),
        },
        HandleOutcome::Response { status, body, .. } => {
            format!("answered {status}: {}", first_line(&String::from_utf8_lossy(&body)))
        }
        HandleOutcome::ApiError { status, message } => format!("answered {status}: {message}"),
        HandleOutcome::Fault { status, message } => format!("failed ({status}): {message}"),
        HandleOutcome::Malformed { what, .. } => format!("answered {what}"),
        HandleOutcome::Panic { .. } => "panicked".to_string(),
        HandleOutcome::Unavailable { message, .. } => format!("is unavailable: {message}"),
    };
    Err(ServiceError::RouteFailed { route: req.route, what })
}

fn tokens() -> &'static RwLock<HashMap<u64, Arc<TokenContext>>> {
    static TOKENS: OnceLock<RwLock<HashMap<u64, Arc<TokenContext>>>> = OnceLock::new();
    TOKENS.get_or_init(Default::default)
}

pub(super) fn register_token(engine: Arc<Engine>, manifest: &Manifest) -> u64 {
    let readable = manifest.datasets.iter().chain(&manifest.reads).chain(&manifest.also_serves).cloned().collect();
    static NEXT: Mutex<u64> = Mutex::new(1);
    let mut next = NEXT.lock().unwrap_or_else(|e| e.into_inner());
    let token = *next;
    *next += 1;
    tokens()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(token, Arc::new(TokenContext { engine, slug: manifest.slug.clone(), readable }));
    token
}

pub(super) fn context(token: u64) -> Option<Arc<TokenContext>> {
    tokens().read().unwrap_or_else(|e| e.into_inner()).get(&token).cloned()
}

pub fn host_services(token: u64) -> HostServices {
    HostServices {
        token,
        log: svc_log,
        metric: svc_metric,
        load_dataset: svc_load_dataset,
        query: svc_query,
        call: svc_call,
    }
}

/// Runs a host service body; a panic in host code must not unwind into the plugin's frames.
fn shielded(f: impl FnOnce() -> Result<String, ServiceError>) -> FfiReply {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(s)) => FfiReply::ok(s),
        Ok(Err(e)) => FfiReply::err(e.to_string()),
        Err(_) => FfiReply::err("the host service failed unexpectedly"),
    }
}

pub(super) extern "C" fn svc_log(token: u64, level: u8, message: RStr<'_>) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let plugin = context(token).map(|c| c.slug.clone()).unwrap_or_default();
        let message = message.as_str();
        match level {
            0 => tracing::error!(plugin = %plugin, "{message}"),
            1 => tracing::warn!(plugin = %plugin, "{message}"),
            2 => tracing::info!(plugin = %plugin, "{message}"),
            3 => tracing::debug!(plugin = %plugin, "{message}"),
            _ => tracing::trace!(plugin = %plugin, "{message}"),
        }
    }));
}

/// `labels_json` is reserved by the ABI and ignored: every plugin metric carries the `plugin` label only.
pub(super) extern "C" fn svc_metric(token: u64, kind: u8, name: RStr<'_>, value: f64, _labels_json: RStr<'_>) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let Some(ctx) = context(token) else { return };
        let name: String = name.as_str().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').take(64).collect();
        let metric = format!("datahost_plugin_{name}");
        let labels = [("plugin", ctx.slug.clone())];
        match kind {
            // Prometheus counters are whole here (the exporter's counters are u64): a fraction is rounded, so
            // `count(name, 0.5)` counts one rather than nothing; a negative or non-finite value counts nothing.
            0 => metrics::counter!(metric, &labels).increment(if value.is_finite() {
                value.max(0.0).round() as u64
            } else {
                0
            }),
            1 => metrics::gauge!(metric, &labels).set(value),
            _ => metrics::histogram!(metric, &labels).record(value),
        }
    }));
}

pub(super) extern "C" fn svc_load_dataset(token: u64, dataset: RStr<'_>) -> FfiReply {
    shielded(|| {
        let ctx = context(token).ok_or(ServiceError::UnknownToken)?;
        Ok(blocking(|| ctx.engine.load_dataset(dataset.as_str()))?.to_string())
    })
}

pub(super) extern "C" fn svc_query(token: u64, request_json: RStr<'_>) -> FfiReply {
    shielded(|| {
        let ctx = context(token).ok_or(ServiceError::UnknownToken)?;
        Ok(blocking(|| ctx.engine.query(&ctx.slug, request_json.as_str()))?)
    })
}

pub(super) extern "C" fn svc_call(token: u64, name: RStr<'_>, input: RStr<'_>) -> FfiReply {
    shielded(|| {
        let ctx = context(token).ok_or(ServiceError::UnknownToken)?;
        let input = input.as_str();
        match name.as_str() {
            "engine.kind" => Ok(format!("\"{}\"", ctx.engine.kind())),
            datahost_plugin_api::reference::RESOLVE_CALL => {
                let queries: Vec<datahost_plugin_api::reference::CompanyQuery> =
                    parse_input("companies.resolve", "a JSON array of queries", input)?;
                let index = ctx.engine.companies();
                let answers: Vec<_> = queries.iter().map(|q| index.resolve(q)).collect();
                encode(&answers)
            }
            "host.version" => Ok(format!("\"{}\"", env!("CARGO_PKG_VERSION"))),
            // What this host reads beyond ABI 1 as first released; the SDK asks at each init.
            // Answers are kept by this host's response cache alone (`[cache]`), never again inside a plugin.
            datahost_plugin_api::host::CAPABILITIES_CALL => {
                use datahost_plugin_api::host::{ANSWER_CACHE, HEADER_PAIRS, WRITTEN_JSON};
                use datahost_plugin_api::words::WORD_PAGE_RECORDS;
                encode(&[HEADER_PAIRS, ANSWER_CACHE, WRITTEN_JSON, WORD_PAGE_RECORDS])
            }
            datahost_plugin_api::host::PLUGIN_DIR_CALL => {
                let dir = ctx.engine.plugin_dir(&ctx.slug)?;
                encode(&dir.to_string_lossy())
            }
            "route.get" => route_get(&ctx.slug, input),
            datahost_plugin_api::query::QUERY_CALL => {
                let q: datahost_plugin_api::query::RecordsQuery =
                    parse_input("records.query", "{dataset, collection, filters, limit}", input)?;
                Ok(blocking(|| ctx.engine.query_records_json(&ctx.readable, &q))?)
            }
            datahost_plugin_api::words::WORDS_CALL => {
                let q: datahost_plugin_api::words::WordSearch = parse_input("records.words", "a word search", input)?;
                encode(&blocking(|| ctx.engine.search_words(&ctx.readable, &q))?)
            }
            datahost_plugin_api::words::WORD_PAGE_CALL => {
                let q: datahost_plugin_api::words::WordSearch =
                    parse_input("records.words.page", "a word search", input)?;
                encode(&blocking(|| ctx.engine.search_word_page(&ctx.readable, &q))?)
            }
            other => Err(ServiceError::UnknownCall(other.to_string())),
        }
    })
}
