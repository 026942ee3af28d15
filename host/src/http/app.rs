//! The HTTP surface: `fn app(state) -> Router`, the dataset route handler (auth → rate limit → tier → plugin),
//! `/health`, `/ready` (`readiness.rs`), `/openapi.json`, `/docs` (`docs.rs`), the 404/405 fallbacks, request ids and
//! per-request metrics; and [`Api`], the router as the listener serves it, with a direct way to the dataset routes.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use datahost_plugin_api::Tier;
use metrics::{Counter, Histogram};
use serde_json::json;
use tower::ServiceExt;

use crate::access::auth::{presented, resolved, AuthError, Caller, Presented};
use crate::access::ratelimit::{tier_limit, Decision};
use crate::config::Isolation;
use crate::http::access_log::AccessRecord;
use crate::http::error::AppError;
use crate::http::metrics::RouteRequests;
use crate::http::response_cache::{Entry, ENTRY_HEADERS_ROOM, NO_CACHE_HEADER};
use crate::http::state::{dataset_status, AppState};
use crate::plugins::dispatch::{self, CallOutcome};
use crate::plugins::outcome::HandleOutcome;
use crate::plugins::LoadedPlugin;

/// Who a response was served to: the tier (a metric label) and the key id (the access log; never the key).
#[derive(Clone)]
struct TierLabel(&'static str, Arc<str>);

/// One plugin route.
struct RouteCtx {
    plugin: Arc<LoadedPlugin>,
    path: String,
    min_tier: Tier,
    /// The query parameters the route documents (besides the `api_key` credential).
    params: Vec<String>,
    /// The plugin's series, resolved once here rather than looked up by name and labels per request.
    plugin_seconds: Histogram,
    /// Its request series (`datahost_http_requests_total`, `..._duration_seconds`) for the direct way.
    requests: RouteRequests,
    cache_hits: Counter,
    cache_misses: Counter,
}

/// The header carrying the request id, the caller's or the server's.
const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");
/// The header telling a dataset answer's data status (`dataStatus` in its body).
const X_DATA_STATUS: HeaderName = HeaderName::from_static("x-data-status");

/// A new request id: UUID v4 text from the thread's generator (seeded from the OS, reseeded now and then), not a
/// `getrandom` system call per request as tower-http's `MakeRequestUuid` makes.
fn new_request_id() -> Option<HeaderValue> {
    let id = uuid::Builder::from_random_bytes(rand::random()).into_uuid();
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    HeaderValue::from_bytes(id.hyphenated().encode_lower(&mut text).as_bytes()).ok()
}

/// Builds the router. In-process tests call this directly; the listener serves it through [`Api`].
pub fn app(state: Arc<AppState>) -> Router {
    let routes = route_contexts(&state);
    router_with(state, &routes)
}

/// What the API listener serves (`conn.rs`): the router, with a direct way in for the request most clients send,
/// a `GET` of a dataset route. That request is looked up by its path in a map of the dataset routes and answered
/// by the same steps the router's front middleware and route run, in the same order (request id, protocol guard,
/// observation, the route), without the router's work around them: its path match, the matched path and
/// parameters it records on the request, the middleware's boxed futures and the peer address stored as a request
/// extension (`BENCHMARKS.md`, "A direct way to the dataset routes"). Everything else (other methods, the host's
/// own routes, unknown paths, and every request while CORS is on, whose preflight and headers the router's front
/// middleware applies) takes the router.
///
/// **Architecture Invariant:** both ways give the same answer to the same request
/// (`host/tests/router.rs`, `the_direct_way_answers_as_the_router`).
#[derive(Clone)]
pub struct Api {
    router: Router,
    direct: Option<Arc<Direct>>,
}

struct Direct {
    state: Arc<AppState>,
    routes: HashMap<String, Arc<RouteCtx>, foldhash::fast::RandomState>,
}

impl Api {
    pub fn new(state: Arc<AppState>) -> Self {
        let routes = route_contexts(&state);
        let direct = state.cors.is_none().then(|| {
            let by_path = routes.iter().map(|ctx| (ctx.path.clone(), ctx.clone())).collect();
            Arc::new(Direct { state: state.clone(), routes: by_path })
        });
        Api { router: router_with(state, &routes), direct }
    }

    /// The answer to `request` from `peer`.
    pub async fn serve(self, mut request: Request, peer: SocketAddr) -> Response {
        if let Some(direct) = &self.direct {
            if request.method() == Method::GET {
                if let Some(ctx) = direct.routes.get(request.uri().path()) {
                    return direct.serve(ctx, request, peer).await;
                }
            }
        }
        request.extensions_mut().insert(ConnectInfo(peer));
        let Ok(response) = self.router.oneshot(request).await;
        response
    }
}

impl Direct {
    /// [`front`] without CORS, [`guarded`] and [`observed`] around the dataset route. The request id is handed to
    /// each step rather than set on the request's headers for them to read.
    async fn serve(&self, ctx: &RouteCtx, request: Request, peer: SocketAddr) -> Response {
        let state = &self.state;
        let request_id = request.headers().get(&X_REQUEST_ID).cloned().or_else(new_request_id);
        let rid = request_id.as_ref().and_then(|v| v.to_str().ok());
        let mut response = match refused(state, &request, rid) {
            Some(refusal) => refusal,
            None => {
                let observation = Observation::start(state, request.method(), request_id.as_ref());
                let (parts, _) = request.into_parts();
                let (response, tier) = data_route(state, ctx, &parts, Some(peer), rid).await;
                let response = vary_by_credentials(response);
                observation.finish(state, Route::Served(&ctx.requests), &response, tier.as_ref());
                response
            }
        };
        request_id_copied(&mut response, request_id);
        response
    }
}

/// The plugins' HTTP routes, each with its series resolved once.
fn route_contexts(state: &AppState) -> Vec<Arc<RouteCtx>> {
    let mut routes = Vec::new();
    for plugin in &state.registry.plugins {
        // Internal routes are for other plugins (`route.get`) only: never mounted over HTTP.
        for route in plugin.manifest.routes.iter().filter(|r| !r.is_internal()) {
            let slug = plugin.slug().to_string();
            routes.push(Arc::new(RouteCtx {
                plugin: plugin.clone(),
                path: route.path.clone(),
                min_tier: route.min_tier,
                params: route.params.iter().map(|p| p.name.clone()).collect(),
                plugin_seconds: metrics::histogram!("datahost_plugin_duration_seconds", "plugin" => slug.clone()),
                requests: RouteRequests::new(&route.path),
                cache_hits: metrics::counter!("datahost_response_cache_hits_total", "plugin" => slug.clone()),
                cache_misses: metrics::counter!("datahost_response_cache_misses_total", "plugin" => slug),
            }));
        }
    }
    routes
}

fn router_with(state: Arc<AppState>, routes: &[Arc<RouteCtx>]) -> Router {
    let mut router: Router<Arc<AppState>> = Router::new()
        .route("/health", get(health))
        .route("/ready", get(crate::http::readiness::ready))
        .route("/openapi.json", get(openapi));
    // The documentation page and its scripts (no key, like /health and /openapi.json).
    router = router
        .route("/docs", get(crate::http::docs::page))
        .route(crate::http::docs::REDOC_PATH.as_str(), get(crate::http::docs::redoc_js))
        .route("/docs/docs.js", get(crate::http::docs::docs_js));
    for route in routes {
        let ctx = route.clone();
        router = router.route(
            &route.path,
            // The whole request, read by reference: the `HeaderMap` and `RawQuery` extractors copy theirs.
            get(move |State(s): State<Arc<AppState>>, request: Request| {
                let ctx = ctx.clone();
                async move {
                    let (parts, _) = request.into_parts();
                    let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(addr)| *addr);
                    // `front` set the request id on the request.
                    let rid = request_id(&parts.headers);
                    let (response, tier) = data_route(&s, &ctx, &parts, peer, rid).await;
                    with_tier(vary_by_credentials(response), tier)
                }
            }),
        );
    }
    if !state.config.server.bench_baseline_file.as_os_str().is_empty() {
        // Benchmarks only (off by default): the same stack without auth, limits or plugin, for a same-run baseline.
        match std::fs::read(&state.config.server.bench_baseline_file) {
            Ok(bytes) => {
                let body = Bytes::from(bytes);
                router = router.route(
                    "/__baseline",
                    get(move || {
                        let body = body.clone();
                        async move { ([(header::CONTENT_TYPE, "application/json")], body) }
                    }),
                );
            }
            Err(e) => tracing::warn!(error = %e, "server.bench_baseline_file unreadable; no /__baseline route"),
        }
    }
    router
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), front))
        .with_state(state)
}

fn request_id(headers: &HeaderMap) -> Option<&str> {
    headers.get(&X_REQUEST_ID).and_then(|v| v.to_str().ok())
}

/// A request's query parameters, name/value pairs in order; a name or value borrows the request target unless
/// decoding changed it.
pub type QueryPairs<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

/// The query string as name/value pairs in order (percent- and `+`-decoded); public for the `query` fuzz target.
/// Borrowed where nothing was decoded: owned strings were two allocations per parameter on every request.
pub fn parse_query(raw: Option<&str>) -> QueryPairs<'_> {
    let Some(raw) = raw else { return Vec::new() };
    if raw.bytes().any(|b| b == b'%' || b == b'+') {
        return url::form_urlencoded::parse(raw.as_bytes()).collect();
    }
    // Nothing to decode: form_urlencoded's split (empty pieces skipped, the name ends at the first `=`) without
    // its decoding and UTF-8 check of every name and value, which the query text has passed already. The fuzz
    // target compares the two.
    raw.split('&')
        .filter(|piece| !piece.is_empty())
        .map(|piece| {
            let (name, value) = piece.split_once('=').unwrap_or((piece, ""));
            (Cow::Borrowed(name), Cow::Borrowed(value))
        })
        .collect()
}

/// The first parameter name given more than once. (A scan of the names before it: queries are short, and a
/// set would cost an allocation per request.)
pub fn repeated<K: AsRef<str>, V>(query: &[(K, V)]) -> Option<&str> {
    query
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (i, k.as_ref()))
        .find(|(i, k)| query[..*i].iter().any(|(p, _)| p.as_ref() == *k))
        .map(|(_, k)| k)
}

/// A dataset route's answer to one request from `peer` with request id `rid`, and who it was served to (known
/// once the credentials are read). Both ways in send it with [`vary_by_credentials`].
async fn data_route(
    state: &AppState,
    ctx: &RouteCtx,
    request: &Parts,
    peer: Option<SocketAddr>,
    rid: Option<&str>,
) -> (Response, Option<TierLabel>) {
    let headers = &request.headers;
    let mut query = parse_query(request.uri.query());
    // One value per parameter: `ticker=a&ticker=b` (or two credentials) is ambiguous, so it is refused rather
    // than read as either.
    if let Some(name) = repeated(&query) {
        let shown: String = name.chars().take(40).collect();
        let e = state.error(400, format!("the {shown} query parameter is given more than once; give it once"));
        return (e.into_response(), None);
    }

    let query_key = query.iter().find(|(k, _)| k == "api_key").map(|(_, v)| v.clone());
    let presentation = presented(headers, query_key.as_deref(), state.proxy_secret.as_ref());
    // An address past its failed-credential budget is not answered on any credential, valid or not.
    let client = state.failed_auth.client_ip(peer, headers);
    if !matches!(presentation, Err(AuthError::Missing)) {
        if let Some(secs) = client.and_then(|ip| state.failed_auth.blocked_for(ip)) {
            return (throttled(state, secs), None);
        }
    }
    let failed = |e: AuthError| auth_failed(state, client, e);
    let caller = match presentation {
        Ok(Presented::Marketplace(c, None)) => c,
        Ok(Presented::Marketplace(c, Some(key))) => match resolved(state.keys.resolve(key).await) {
            Ok(_) => c,
            Err(e) => return (failed(e).await, None),
        },
        Ok(Presented::Key(key)) => match resolved(state.keys.resolve(key).await) {
            Ok(c) => c,
            Err(e) => return (failed(e).await, None),
        },
        Err(e) => return (failed(e).await, None),
    };
    // The key never reaches a plugin.
    query.retain(|(k, _)| k != "api_key");
    let tier_label = TierLabel(caller.tier.as_str(), caller.id.clone());

    let decision = match limit(state, &caller).await {
        Ok(d) => d,
        Err(resp) => return (resp, Some(tier_label)),
    };
    if let Some(d) = decision.filter(|d| !d.allowed) {
        let mut e = state.error(
            429,
            format!(
                "rate limit exceeded: the {} tier allows {} requests per minute; retry in {} s",
                caller.tier.as_str(),
                d.limit,
                d.reset_secs
            ),
        );
        e.retry_after = Some(d.reset_secs);
        let e = e.with_header(header::RETRY_AFTER, d.reset_secs.to_string());
        return (finish(e.into_response(), decision), Some(tier_label));
    }
    if !caller.tier.satisfies(ctx.min_tier) {
        let e = state.error(
            403,
            format!(
                "{} requires the {} tier; this key is on the {} tier",
                ctx.path,
                ctx.min_tier.as_str(),
                caller.tier.as_str()
            ),
        );
        return (finish(e.into_response(), decision), Some(tier_label));
    }

    // A misspelt parameter (`tickr=NVDA`) would otherwise be ignored and the unfiltered list served.
    if let Some((name, _)) = query.iter().find(|(k, _)| !ctx.params.iter().any(|p| p == k)) {
        let accepted = if ctx.params.is_empty() {
            "it takes no query parameters".to_string()
        } else {
            format!("it accepts {}", ctx.params.join(", "))
        };
        let shown: String = name.chars().take(40).collect();
        let e = state.error(400, format!("{} does not know the query parameter `{shown}`; {accepted}", ctx.path));
        return (finish(e.into_response(), decision), Some(tier_label));
    }

    // A query answered before on the same data: the finished answer, without the plugin (`response_cache.rs`).
    let cache = &state.response_cache;
    let key = cache.enabled().then(|| cache.key(ctx.plugin.slug(), &ctx.path, caller.tier, &query));
    if let Some(entry) = key.as_ref().and_then(|k| cache.get(k)) {
        ctx.cache_hits.increment(1);
        let resp = answer(state, &ctx.path, &query, entry, headers).await;
        return (finish(resp, decision), Some(tier_label));
    }
    if key.is_some() {
        ctx.cache_misses.increment(1);
    }

    let envelope = Envelope { route: &ctx.path, query: &query, tier: caller.tier, request_id: rid.unwrap_or_default() };
    let resp = match call_plugin(state, ctx, envelope.to_json(), rid).await {
        Answer::Ok { body, headers: answer_headers, cacheable } => {
            let entry = cache.admit(key, body, answer_headers, cacheable);
            answer(state, &ctx.path, &query, entry, headers).await
        }
        Answer::Other(resp) => resp,
    };
    (finish(resp, decision), Some(tier_label))
}

/// A plugin's [`datahost_plugin_api::RequestEnvelope`] written from the request's borrowed parts: the same JSON,
/// without an owned copy of the route, each parameter and the request id made first to be written and dropped.
struct Envelope<'a> {
    route: &'a str,
    query: &'a [(Cow<'a, str>, Cow<'a, str>)],
    tier: Tier,
    request_id: &'a str,
}

impl Envelope<'_> {
    /// The JSON serde_json writes for the SDK's envelope (its fields in declaration order, no whitespace), written
    /// by hand: serde's map and sequence machinery was a third of the cost, and the SDK reads this exact form
    /// without serde (`RequestEnvelope::from_json`).
    fn to_json(&self) -> String {
        // About its final size: the texts, the quotes and separators around each, the field names.
        let size = self.route.len() + self.request_id.len() + 64;
        let size = size + self.query.iter().map(|(k, v)| k.len() + v.len() + 8).sum::<usize>();
        let mut json = String::with_capacity(size);
        json.push_str("{\"route\":");
        json_string(&mut json, self.route);
        json.push_str(",\"query\":[");
        for (i, (name, value)) in self.query.iter().enumerate() {
            json.push_str(if i == 0 { "[" } else { ",[" });
            json_string(&mut json, name);
            json.push(',');
            json_string(&mut json, value);
            json.push(']');
        }
        json.push_str("],\"tier\":\"");
        json.push_str(self.tier.as_str());
        json.push_str("\",\"requestId\":");
        json_string(&mut json, self.request_id);
        json.push('}');
        json
    }
}

/// `text` as a JSON string, escaped as serde_json escapes it (only `"`, `\` and control characters need it).
fn json_string(json: &mut String, text: &str) {
    if datahost_plugin_api::rows::holds_escaped_byte(text.as_bytes()) {
        // serde_json writes a string into a `String` without failing.
        json.push_str(&serde_json::Value::from(text).to_string());
    } else {
        json.push('"');
        json.push_str(text);
        json.push('"');
    }
}

/// A dataset answer (cached or fresh) sent for a request with these headers and `query`: 200 with the next
/// page's `Link` when there is one, or 304.
async fn answer(
    state: &AppState,
    path: &str,
    query: &[(Cow<'_, str>, Cow<'_, str>)],
    entry: Arc<Entry>,
    headers: &HeaderMap,
) -> Response {
    // Made before the answer: an entry no one else holds gives its headers up to it.
    let link = entry.next_link(query, |cursor| next_link(state.config.base_url(), path, query, cursor));
    let mut resp = entry.respond_owned(headers).await;
    if let Some(link) = link.filter(|_| resp.status() == StatusCode::OK) {
        resp.headers_mut().insert(header::LINK, link);
    }
    resp
}

/// What a plugin call produced: a 200 answer ready to be tagged and kept, or any other response.
enum Answer {
    Ok { body: Bytes, headers: HeaderMap, cacheable: bool },
    Other(Response),
}

/// A paged list's `Link: <next page>; rel="next"`: the plugin names the next page's cursor in `X-Next-Cursor`
/// (kept for clients that read it) and the host, which alone knows `server.base_url`, builds the absolute URL
/// from the route and this request's own parameters with `cursor` replaced. `query` no longer holds `api_key`
/// (removed before any plugin runs), so the key is never echoed.
///
/// Written into one string of about its size, each name and value form-encoded as `form_urlencoded`'s
/// serializer encodes them (an answer computed per request paid for the serializer and a `format!` besides).
fn next_link(base_url: &str, path: &str, query: &[(Cow<'_, str>, Cow<'_, str>)], next: &str) -> Option<HeaderValue> {
    const CURSOR: &str = datahost_plugin_api::paging::PARAM;
    const REL: &str = ">; rel=\"next\"";
    let pairs = query.iter().filter(|(k, _)| k != CURSOR).map(|(k, v)| (k.as_ref(), v.as_ref()));
    let pairs = pairs.chain([(CURSOR, next)]);
    let size: usize = query.iter().map(|(k, v)| k.len() + v.len() + 2).sum::<usize>() + CURSOR.len() + next.len();
    let mut link = String::with_capacity(1 + base_url.len() + path.len() + 1 + size + REL.len());
    link.push('<');
    link.push_str(base_url);
    link.push_str(path);
    for (i, (name, value)) in pairs.enumerate() {
        link.push(if i == 0 { '?' } else { '&' });
        form_encoded(&mut link, name);
        link.push('=');
        form_encoded(&mut link, value);
    }
    link.push_str(REL);
    HeaderValue::try_from(link).ok()
}

/// `text` form-encoded as `form_urlencoded::byte_serialize` encodes it; a text of bytes it keeps as they are
/// (letters, digits, `*-._`: most names, values and cursors) is copied whole, not chunk by chunk.
fn form_encoded(out: &mut String, text: &str) {
    // Without an early exit, so the compiler compares many bytes at a time.
    let kept = |b: u8| b.is_ascii_alphanumeric() | (b == b'*') | (b == b'-') | (b == b'.') | (b == b'_');
    if text.bytes().fold(true, |all, b| all & kept(b)) {
        out.push_str(text);
    } else {
        out.extend(url::form_urlencoded::byte_serialize(text.as_bytes()));
    }
}

/// Counts the request against the caller's limit. `Ok(None)`: unlimited tier, or the limiter is down and
/// fails open. `Err`: the limiter is down and fails closed.
async fn limit(state: &AppState, caller: &Caller) -> Result<Option<Decision>, Response> {
    let Some(per_minute) = tier_limit(caller.tier) else { return Ok(None) };
    match state.limiter.check(&caller.id, caller.slot.as_deref(), per_minute).await {
        Ok(d) => {
            let outcome = if d.allowed { "allowed" } else { "limited" };
            crate::http::metrics::ratelimit_decision(caller.tier, outcome);
            Ok(Some(d))
        }
        Err(e) if state.limiter.fails_open() => {
            crate::http::metrics::ratelimit_decision(caller.tier, "fail_open");
            tracing::warn!(error = %e, "rate limiter unavailable; failing open");
            Ok(None)
        }
        Err(e) => {
            crate::http::metrics::ratelimit_decision(caller.tier, "fail_closed");
            tracing::error!(error = %e, "rate limiter unavailable; failing closed");
            Err(state.error(503, "the rate limiter is unavailable; retry shortly").into_response())
        }
    }
}

/// A failed credential: 401, or 429 once the client address has failed too often this minute. A request
/// that presents no credential at all is not counted.
async fn auth_failed(state: &AppState, client: Option<std::net::IpAddr>, e: AuthError) -> Response {
    if !matches!(e, AuthError::Missing) {
        if let Some(ip) = client {
            if let Some(secs) = state.failed_auth.record_failure(&state.limiter, ip).await {
                metrics::counter!("datahost_auth_failures_total", "outcome" => "throttled").increment(1);
                return throttled(state, secs);
            }
        }
        metrics::counter!("datahost_auth_failures_total", "outcome" => "unauthorized").increment(1);
    }
    unauthorized(state, e)
}

fn throttled(state: &AppState, secs: u64) -> Response {
    let mut e =
        state.error(429, format!("too many failed authentication attempts from this address; retry in {secs} s"));
    e.retry_after = Some(secs);
    e.with_header(header::RETRY_AFTER, secs.to_string()).into_response()
}

fn unauthorized(state: &AppState, e: AuthError) -> Response {
    state
        .error(401, e.message())
        .with_header(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"datahost\""))
        .into_response()
}

/// A data route's answer depends on the credential headers (the key's tier, limit and remaining count, or a
/// 401/403/429), so a cache must not hand one caller's answer to another. (`api_key` is in the URL already.)
fn vary_by_credentials(mut resp: Response) -> Response {
    resp.headers_mut()
        .append(header::VARY, HeaderValue::from_static("authorization, x-api-key, x-marketplace-proxy-secret"));
    resp
}

/// A response with who it was served to, for [`observed`] to read.
fn with_tier(mut resp: Response, tier: Option<TierLabel>) -> Response {
    if let Some(tier) = tier {
        resp.extensions_mut().insert(tier);
    }
    resp
}

const X_RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
const X_RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
const X_RATELIMIT_RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");

/// Adds the rate-limit headers every limited response carries.
fn finish(mut resp: Response, decision: Option<Decision>) -> Response {
    if let Some(d) = decision {
        let h = resp.headers_mut();
        h.insert(X_RATELIMIT_LIMIT, number_value(d.limit));
        h.insert(X_RATELIMIT_REMAINING, number_value(d.remaining));
        h.insert(X_RATELIMIT_RESET, number_value(d.reset_secs));
    }
    resp
}

/// `n` as a header value. The numbers the rate-limit headers carry (up to the largest tier limit) are made once,
/// as static text: a header value made per request is an allocation, three per limited answer.
fn number_value(n: u64) -> HeaderValue {
    static DIGITS: std::sync::OnceLock<(&'static str, Vec<u32>)> = std::sync::OnceLock::new();
    let (text, ends) = DIGITS.get_or_init(|| {
        let largest = Tier::ALL.iter().filter_map(|t| tier_limit(*t)).max().unwrap_or(0).max(60);
        let mut text = String::new();
        let ends = (0..=largest)
            .map(|i| {
                text.push_str(itoa::Buffer::new().format(i));
                text.len() as u32
            })
            .collect();
        (Box::leak(text.into_boxed_str()), ends)
    });
    match usize::try_from(n) {
        Ok(i) if i < ends.len() => {
            let start = if i == 0 { 0 } else { ends[i - 1] as usize };
            HeaderValue::from_static(&text[start..ends[i] as usize])
        }
        _ => HeaderValue::from(n),
    }
}

/// Runs the plugin and turns whatever it produced into a well-formed response. The call runs on the plugin
/// handler pool (`plugins/dispatch.rs`), not on this async worker, so the client gets an answer at the
/// plugin's deadline even when the handler never returns: inline, a stuck handler held the worker and the
/// client waited forever. The pool was chosen over `spawn_blocking` (measured at 0.39 of the bare route against
/// 0.71 inline, 0.55 of inline) for its cheaper handoff: `tests/bench/run.sh pool` measured the pool at 0.80 of inline
/// in one run (0.49 and 0.61 of the bare route; BENCHMARKS.md, "Plugin calls"). `plugins.bench_inline_calls`
/// (benchmarks only) restores the inline call for that comparison.
async fn call_plugin(state: &AppState, ctx: &RouteCtx, envelope_json: String, rid: Option<&str>) -> Answer {
    let plugin = &ctx.plugin;
    let slug = plugin.slug().to_string();
    let started = Instant::now();
    let outcome = if state.config.plugins.bench_inline_calls && plugin.isolation() == Isolation::InProcess {
        CallOutcome::Done(plugin.handle(&envelope_json))
    } else {
        dispatch::call(&state.registry.pool, plugin, envelope_json).await
    };
    ctx.plugin_seconds.record(started.elapsed().as_secs_f64());
    let fault = |kind: &'static str, detail: &str| {
        metrics::counter!("datahost_plugin_faults_total", "plugin" => slug.clone(), "kind" => kind).increment(1);
        tracing::error!(plugin = %slug, request_id = rid.unwrap_or(""), kind, detail, "plugin fault");
        state
            .error(
                500,
                format!(
                    "internal error in the {slug} dataset; quote request id {} when reporting it",
                    rid.unwrap_or("-")
                ),
            )
            .with_request_id(rid)
            .into_response()
    };
    let unavailable = |message: String| state.error(503, message).with_request_id(rid).into_response();
    let outcome = match outcome {
        CallOutcome::Done(outcome) => outcome,
        CallOutcome::Timeout { after } => {
            metrics::counter!("datahost_plugin_timeouts_total", "plugin" => slug.clone()).increment(1);
            metrics::counter!("datahost_plugin_faults_total", "plugin" => slug.clone(), "kind" => "timeout")
                .increment(1);
            tracing::error!(plugin = %slug, request_id = rid.unwrap_or(""), deadline_ms = after.as_millis() as u64,
                "plugin call overran its deadline");
            return unavailable(format!(
                "the {slug} dataset did not answer within {} ms; retry later, and quote request id {} when reporting it",
                after.as_millis(),
                rid.unwrap_or("-")
            ))
            .into();
        }
        CallOutcome::BreakerOpen { retry_after } => {
            let secs = retry_after.as_secs_f64().ceil().max(1.0) as u64;
            let mut e = state.error(
                503,
                format!("the {slug} dataset is degraded after repeated faults and paused; retry in {secs} s"),
            );
            e.retry_after = Some(secs);
            return e.with_request_id(rid).with_header(header::RETRY_AFTER, secs.to_string()).into_response().into();
        }
        CallOutcome::Overloaded { reason } => {
            return unavailable(format!("the {slug} dataset cannot take this request now: {reason}; retry later"))
                .into();
        }
    };
    let resp = match outcome {
        HandleOutcome::Panic { message } => {
            metrics::counter!("datahost_plugin_panics_total", "plugin" => slug.clone()).increment(1);
            fault("panic", &message)
        }
        HandleOutcome::Unavailable { message, crashed } => {
            if crashed {
                metrics::counter!("datahost_plugin_faults_total", "plugin" => slug.clone(), "kind" => "crash")
                    .increment(1);
                tracing::error!(plugin = %slug, request_id = rid.unwrap_or(""), detail = %message, "plugin fault");
            }
            unavailable(format!(
                "the {slug} dataset is unavailable: {message}; retry shortly (request id {})",
                rid.unwrap_or("-")
            ))
        }
        HandleOutcome::ApiError { status, message } => {
            if (400..600).contains(&status) {
                state.error(status, message).with_request_id(rid.filter(|_| status >= 500)).into_response()
            } else {
                fault("invalid-status", &format!("API error with status {status}"))
            }
        }
        HandleOutcome::Malformed { kind, what } => fault(kind, &what),
        HandleOutcome::Fault { status, message } => {
            let status = if (400..600).contains(&status) { status } else { 500 };
            if status >= 500 {
                metrics::counter!("datahost_plugin_faults_total", "plugin" => slug.clone(), "kind" => "error")
                    .increment(1);
            }
            state
                .error(status, format!("{slug}: {message}"))
                .with_request_id(rid.filter(|_| status >= 500))
                .into_response()
        }
        HandleOutcome::Response { status, body, data_status, headers, written_json } => {
            if (200..300).contains(&status) {
                // Validated once, here (labelled already: `outcome_of`): a cached answer is served without being
                // read again. A body the SDK wrote with serde_json is JSON by construction (`written_json`).
                if !written_json && !is_json(&body) {
                    return fault("invalid-json", "2xx body is not JSON").into();
                }
                let body = Bytes::from(body);
                // Made with the room its answer's entry needs (`Entry::new` keeps this map).
                let mut out = HeaderMap::with_capacity(2 + headers.len() + ENTRY_HEADERS_ROOM);
                out.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                out.insert(X_DATA_STATUS, HeaderValue::from_static(data_status));
                let mut cacheable = true;
                for (name, value) in headers {
                    if name.as_str() == NO_CACHE_HEADER {
                        cacheable = false;
                        continue;
                    }
                    // Names arrive lower-cased (`HeaderName`); values were checked when the answer was read.
                    let allowed = name == header::CACHE_CONTROL
                        || (name.as_str().starts_with("x-")
                            && !name.as_str().starts_with("x-ratelimit")
                            && name.as_str() != "x-request-id");
                    if !allowed {
                        continue;
                    }
                    if name == header::CACHE_CONTROL
                        && value.to_str().is_ok_and(|v| v.to_ascii_lowercase().contains("no-store"))
                    {
                        cacheable = false;
                    }
                    // Appended: a header the plugin repeats reaches the client with every value.
                    out.append(name, value);
                }
                if status == 200 {
                    return Answer::Ok { body, headers: out, cacheable };
                }
                // Another 2xx (no plugin sends one today) is passed on as it is, untagged and not kept.
                let mut resp = (StatusCode::from_u16(status).unwrap_or(StatusCode::OK), body).into_response();
                resp.headers_mut().extend(out);
                resp
            } else {
                fault("invalid-status", &format!("status {status}"))
            }
        }
    };
    Answer::Other(resp)
}

/// Whether `body` is one JSON text in UTF-8. serde_json reading bytes skips over a string's contents without
/// checking their UTF-8, so that is checked first (and the JSON read from the checked text).
fn is_json(body: &[u8]) -> bool {
    std::str::from_utf8(body).is_ok_and(|text| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok())
}

impl From<Response> for Answer {
    fn from(resp: Response) -> Self {
        Answer::Other(resp)
    }
}

async fn health(State(state): State<Arc<AppState>>) -> Response {
    let limiter = state.limiter.describe().await;
    let body = json!({
        "ok": state.engine.is_healthy(),
        "service": "datahost",
        "version": env!("CARGO_PKG_VERSION"),
        "datasets": state.registry.plugins.iter().map(|p| p.slug()).collect::<Vec<_>>(),
        "recordsEngine": state.engine.address(),
        "recordsEngineKind": state.engine.kind(),
        "data": dataset_status(&state),
        "rateLimiter": limiter,
        "plugins": state.registry.plugins.iter()
            .map(|p| (p.slug().to_string(), p.health()))
            .collect::<serde_json::Map<_, _>>(),
        "pluginFailures": state.registry.failures.iter()
            .map(|f| json!({"plugin": f.plugin, "stage": f.stage}))
            .collect::<Vec<_>>(),
    });
    let mut resp = axum::Json(body).into_response();
    resp.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// The document, compressed once per coding, with its ETag (304 on `If-None-Match`).
async fn openapi(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    state.openapi_entry.respond(&headers).await
}

async fn not_found(State(state): State<Arc<AppState>>, method: Method, uri: axum::http::Uri) -> Response {
    let path: String = uri.path().chars().take(200).collect();
    if method != Method::GET && method != Method::HEAD {
        return method_not_allowed(State(state)).await;
    }
    state.error(404, format!("no endpoint at {path}; the list of endpoints is at /openapi.json")).into_response()
}

async fn method_not_allowed(State(state): State<Arc<AppState>>) -> Response {
    state
        .error(405, "this API is read-only: use GET")
        .with_header(header::ALLOW, HeaderValue::from_static("GET, HEAD"))
        .into_response()
}

/// What the host does around every request, outermost first, in one middleware (one boxed future and one clone
/// of the route's service per request, where a layer per step made five):
/// 1. the request id: the caller's `X-Request-Id`, or a new one set on the request, so every step below and the
///    plugin see it; it is copied onto the response unless the response names one itself;
/// 2. CORS while `server.cors_allowed_origins` turns it on (`cors.rs`), outside the protocol guard so that its
///    414/431 envelopes carry the CORS headers too;
/// 3. the protocol guard ([`refused`]);
/// 4. the per-request metrics and access line ([`observed`]) around the route.
async fn front(State(state): State<Arc<AppState>>, mut request: Request, next: Next) -> Response {
    let request_id = request_id_set(&mut request);
    let mut response = match &state.cors {
        Some(cors) => {
            let (shared, next) = (state.clone(), next);
            let inner = tower::service_fn(move |request: Request| {
                let (state, next) = (shared.clone(), next.clone());
                async move { Ok::<_, std::convert::Infallible>(guarded(&state, request, next).await) }
            });
            crate::http::cors::apply(cors, state.config.base_url(), request, inner).await
        }
        None => guarded(&state, request, next).await,
    };
    request_id_copied(&mut response, request_id);
    response
}

/// The request's id: the caller's `X-Request-Id`, or a new one, set on the request.
fn request_id_set(request: &mut Request) -> Option<HeaderValue> {
    match request.headers().get(&X_REQUEST_ID) {
        Some(id) => Some(id.clone()),
        None => {
            let id = new_request_id();
            if let Some(id) = &id {
                request.headers_mut().insert(X_REQUEST_ID, id.clone());
            }
            id
        }
    }
}

/// The request id on the response, unless the response names one itself.
fn request_id_copied(response: &mut Response, request_id: Option<HeaderValue>) {
    if let Some(id) = request_id {
        response.headers_mut().entry(X_REQUEST_ID).or_insert(id);
    }
}

/// The protocol guard, then the route observed.
async fn guarded(state: &AppState, request: Request, next: Next) -> Response {
    match refused(state, &request, request_id(request.headers())) {
        Some(refusal) => refusal,
        None => observed(state, request, next).await,
    }
}

/// Requests the HTTP parser accepts but the protocol or the server's limits do not, answered with the JSON
/// envelope before any routing: HTTP/1.1 without `Host` (RFC 9112 section 3.2: 400), a request target longer
/// than `server.max_request_target_bytes` (414) and headers larger than `server.max_header_bytes` (431).
fn refused(state: &AppState, request: &Request, rid: Option<&str>) -> Option<Response> {
    let server = &state.config.server;
    let refuse = |status: StatusCode, message: String| {
        Some(AppError::new(&server.base_url, status.as_u16(), message).with_request_id(rid).into_response())
    };
    if request.version() == axum::http::Version::HTTP_11 && !request.headers().contains_key(header::HOST) {
        return refuse(
            StatusCode::BAD_REQUEST,
            "an HTTP/1.1 request must carry a Host header (RFC 9112, section 3.2)".into(),
        );
    }
    let target = request.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if target > server.max_request_target_bytes {
        return refuse(
            StatusCode::URI_TOO_LONG,
            format!(
                "the request target is {target} bytes long; at most {} are accepted",
                server.max_request_target_bytes
            ),
        );
    }
    let header_bytes: usize = request.headers().iter().map(|(k, v)| k.as_str().len() + v.len()).sum();
    if header_bytes > server.max_header_bytes {
        return refuse(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!(
                "the request's headers total {header_bytes} bytes; at most {} are accepted",
                server.max_header_bytes
            ),
        );
    }
    None
}

/// Counts and times every request by route template, status and tier (never by key or raw path), and writes its
/// access line. Only bounded values become labels or fields: the route template (not the path or query, which
/// may hold a key), the status, the tier, the key id and the request id the server set (or the caller's, which is
/// at most 64 characters by then).
async fn observed(state: &AppState, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().cloned();
    let observation = Observation::start(state, request.method(), request.headers().get(&X_REQUEST_ID));
    let response = next.run(request).await;
    let tier = response.extensions().get::<TierLabel>();
    observation.finish(state, Route::Named(route.as_ref().map_or("unmatched", |m| m.as_str())), &response, tier);
    response
}

/// The route a request was answered by, for its series and access line: a dataset route the direct way served
/// (its series name it), or a route template (`unmatched` for none) the router matched.
enum Route<'a> {
    Served(&'a RouteRequests),
    Named(&'a str),
}

/// One request being timed, and what its access line needs of the request.
struct Observation {
    started: Instant,
    /// The caller's or the server's request id and the method, kept only while the access log is on (off too
    /// while its target is filtered out, e.g. `RUST_LOG=warn`): this runs on every request.
    logged: Option<(Option<HeaderValue>, Method)>,
}

impl Observation {
    fn start(state: &AppState, method: &Method, request_id: Option<&HeaderValue>) -> Self {
        let logged = state.access_log.as_ref().map(|_| (request_id.cloned(), method.clone()));
        Observation { started: Instant::now(), logged }
    }

    /// Counts the answered request under its route template and writes its access line; `label`: who it was
    /// served to.
    fn finish(self, state: &AppState, route: Route<'_>, response: &Response, label: Option<&TierLabel>) {
        let (route, series) = match route {
            Route::Served(series) => (series.route(), Some(series)),
            Route::Named(template) => (template, None),
        };
        let elapsed = self.started.elapsed();
        let status = response.status().as_u16();
        let tier = label.map_or("none", |l| l.0);
        if let (Some(log), Some((request_id, method))) = (&state.access_log, &self.logged) {
            let request_id = request_id.as_ref().and_then(|v| v.to_str().ok()).unwrap_or("");
            log.record(&AccessRecord {
                method: method.as_str(),
                route,
                status,
                latency: elapsed,
                request_id: truncate_chars(request_id, 64),
                tier,
                key_id: label.map_or("", |l| truncate_chars(&l.1, 64)),
            });
        }
        match series {
            Some(series) => series.record(status, tier, elapsed),
            None => crate::http::metrics::http_request(route, status, tier, elapsed),
        }
    }
}

/// The first `max` characters of `text` (all of it when shorter).
fn truncate_chars(text: &str, max: usize) -> &str {
    text.char_indices().nth(max).map_or(text, |(end, _)| &text[..end])
}

#[cfg(test)]
mod label_tests {
    use std::borrow::Cow;

    use super::{is_json, next_link, parse_query};

    /// A query without `%` or `+` is split by hand, borrowed from the request target: the same pairs as
    /// form_urlencoded reads, on fixed cases and on drawn strings.
    #[test]
    fn queries_without_escapes_split_as_form_urlencoded_does() {
        for raw in [
            "",
            "a=1",
            "a=1&b=2",
            "a=1&&b",
            "&a&",
            "=x",
            "a==b",
            "a=1=2&c",
            "ticker=NVDA&limit=20",
            "é=ü&x=%C3%A9",
            "q=a+b",
        ] {
            reads_as_form_urlencoded(raw);
        }
        assert!(parse_query(Some("ticker=NVDA"))
            .iter()
            .all(|(k, v)| matches!((k, v), (Cow::Borrowed(_), Cow::Borrowed(_)))));
        assert!(parse_query(None).is_empty());
        // 20,000 query strings of up to eight characters, drawn over the characters that matter.
        let alphabet = ['a', 'b', '=', '&', '%', '+', '2', '0', 'é', ' '];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = (seed >> 60) as usize % 9;
            let raw: String = (0..len).map(|i| alphabet[(seed >> (i * 4)) as usize % alphabet.len()]).collect();
            reads_as_form_urlencoded(&raw);
        }
    }

    fn reads_as_form_urlencoded(raw: &str) {
        let expected: Vec<(String, String)> = url::form_urlencoded::parse(raw.as_bytes()).into_owned().collect();
        let parsed: Vec<(String, String)> =
            parse_query(Some(raw)).into_iter().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        assert_eq!(parsed, expected, "{raw:?}");
    }

    #[test]
    fn a_body_is_json_only_as_one_json_text_in_utf8() {
        assert!(is_json(br#"{"name":"Zo\u00eb","n":[1,2.5e3,null]}"#));
        assert!(is_json("{\"name\":\"Zoë\"}".as_bytes()));
        // serde_json alone reads these bytes as JSON: it skips over a string without checking its UTF-8.
        assert!(serde_json::from_slice::<serde::de::IgnoredAny>(b"{\"name\":\"\xff\"}").is_ok());
        assert!(!is_json(b"{\"name\":\"\xff\"}"));
        for bad in [&b""[..], b"{", b"{\"a\":1} x", b"[1,]", b"{\"a\":01}", b"\xef\xbb\xbf{}"] {
            assert!(!is_json(bad), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    /// The next page's `Link` written by hand is the text `form_urlencoded`'s serializer makes of the same pairs
    /// (the request's without `cursor`, then the new cursor), for names and values that need no escape and for
    /// every kind that does: spaces, reserved and non-ASCII characters, an empty value, a cursor given before.
    #[test]
    fn next_links_encode_as_form_urlencoded_does() {
        fn reference(base: &str, path: &str, query: &[(Cow<'_, str>, Cow<'_, str>)], next: &str) -> String {
            let mut pairs = url::form_urlencoded::Serializer::new(String::new());
            for (k, v) in query.iter().filter(|(k, _)| k != "cursor") {
                pairs.append_pair(k, v);
            }
            pairs.append_pair("cursor", next);
            format!("<{base}{path}?{}>; rel=\"next\"", pairs.finish())
        }
        let values = [
            "",
            "revenue",
            "supply chain",
            "\"supply chain\" AND tariffs",
            "a&b=c+d%20",
            "Zoë ✓",
            "~-._*",
            "/?#[]@!$'(),;",
        ];
        let cursors = ["eyJvIjoyMH0", "a b+c/=", "ü"];
        let mut checked = 0;
        for (i, value) in values.iter().enumerate() {
            for next in cursors {
                let queries: [Vec<(&str, &str)>; 4] = [
                    vec![],
                    vec![("q", value)],
                    vec![("q", value), ("limit", "20"), ("cursor", "old")],
                    vec![("cursor", "old"), ("from", "2024-01-01"), (values[(i + 1) % values.len()], value)],
                ];
                for query in queries {
                    let query: Vec<(Cow<'_, str>, Cow<'_, str>)> =
                        query.iter().map(|(k, v)| (Cow::Borrowed(*k), Cow::Borrowed(*v))).collect();
                    let made = next_link("http://127.0.0.1:8080", "/v1/edgar-search", &query, next).unwrap();
                    assert_eq!(made, reference("http://127.0.0.1:8080", "/v1/edgar-search", &query, next), "{query:?}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, values.len() * cursors.len() * 4);
    }

    /// The envelope written from borrowed parts is the JSON of the SDK's `RequestEnvelope` of the same request,
    /// and reads back as it: escapes, non-ASCII text, an empty query and request id, every tier.
    #[test]
    fn envelopes_written_from_borrowed_parts_are_the_sdks() {
        use datahost_plugin_api::{RequestEnvelope, Tier};
        let queries: [&[(&str, &str)]; 3] =
            [&[], &[("ticker", "NVDA")], &[("q", "\"supply chain\" \\ é\u{1}"), ("limit", "20")]];
        for tier in Tier::ALL {
            for query in queries {
                for rid in ["", "0b7c2f5e-8d1a-4c3b-9e6f-2a4d8c1b7e90"] {
                    let pairs: Vec<(Cow<'_, str>, Cow<'_, str>)> =
                        query.iter().map(|(k, v)| (Cow::Borrowed(*k), Cow::Borrowed(*v))).collect();
                    let written =
                        super::Envelope { route: "/v1/edgar-search", query: &pairs, tier, request_id: rid }.to_json();
                    let sdk = RequestEnvelope {
                        route: "/v1/edgar-search".into(),
                        query: query.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                        tier,
                        request_id: rid.into(),
                    };
                    assert_eq!(written, serde_json::to_string(&sdk).unwrap());
                    let read = RequestEnvelope::from_json(&written).unwrap();
                    assert_eq!(
                        (read.route, read.query, read.tier, read.request_id),
                        (sdk.route, sdk.query, sdk.tier, sdk.request_id)
                    );
                }
            }
        }
    }

    /// The rate-limit numbers come from a table up to the largest tier limit and are made per call above it: the
    /// same text as `HeaderValue::from` either way.
    #[test]
    fn number_values_read_as_the_numbers() {
        for n in [0, 1, 9, 10, 59, 60, 99, 100, 1_199, 1_200, 5_999, 6_000, 6_001, 123_456, u64::MAX] {
            assert_eq!(super::number_value(n), axum::http::HeaderValue::from(n), "{n}");
        }
    }
}
