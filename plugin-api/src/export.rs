//! The machinery behind [`export_plugin!`](crate::export_plugin!): panic-safe entry points and the swappable plugin state.
//!
//! A panic that escapes an `extern "C"` function aborts the whole host process, so every entry point runs
//! its body under `catch_unwind` here and reports a panic as a value (`OUTCOME_PANIC`). Plugin authors never
//! write an `extern "C"` function themselves.

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Once, RwLock};

use abi_stable::std_types::{RSlice, RStr, RString, RVec};

use crate::abi::{
    FfiReply, FfiResponse, HostServices, ABI_MAJOR, OUTCOME_API_ERROR, OUTCOME_ERR, OUTCOME_OK,
    OUTCOME_OK_WRITTEN_JSON, OUTCOME_PANIC,
};
use crate::host::{self, Host};
use crate::{BuildInfo, InitContext, Plugin, RequestEnvelope};

/// The name of the static that holds an abi_stable library header. Hard-coded because `#[export_name]`
/// needs a literal; a unit test checks it against abi_stable's own constant.
pub const ROOT_MODULE_SYMBOL: &str = "_1as_0lib_1header_0root_bmodule_bloader";

/// Holds the current plugin instance. `init` builds a new instance off to the side and swaps it in, so a
/// request sees the old data or the new, never a mix. Each instance has its own response cache, so a swap
/// also drops every answer computed from the old data.
pub struct PluginState<P> {
    current: RwLock<Option<Live<P>>>,
}

struct Live<P> {
    instance: Arc<P>,
    /// `Plugin::cache_responses`: whether the instance's answers may be reused at all, by the SDK or the host.
    reusable: bool,
    /// The SDK's own copy of the answers: only when they are reusable and the host keeps none itself.
    cache: Option<Arc<ResponseCache>>,
    /// The host reads headers as `[name, value]` pairs ([`crate::host::HEADER_PAIRS`]), asked at each `init`.
    header_pairs: bool,
    /// The host reads [`OUTCOME_OK_WRITTEN_JSON`] ([`crate::host::WRITTEN_JSON`]), asked at each `init`.
    written_json: bool,
}

impl<P> Clone for Live<P> {
    fn clone(&self) -> Self {
        Self {
            instance: self.instance.clone(),
            reusable: self.reusable,
            cache: self.cache.clone(),
            header_pairs: self.header_pairs,
            written_json: self.written_json,
        }
    }
}

/// Successful answers of an instance over an immutable dataset, keyed by route, tier and query, kept only under a
/// host that does not cache answers itself (one that predates [`crate::host::ANSWER_CACHE`]). Serialising a
/// response costs far more than copying it, and popular queries repeat. Bounded: when it would grow past its
/// limits it starts over, which keeps it simple and makes cache-busting queries cost no more than uncached ones.
#[derive(Default)]
struct ResponseCache {
    entries: RwLock<HashMap<String, Arc<Cached>>>,
    bytes: AtomicUsize,
}

struct Cached {
    status: u16,
    body: Vec<u8>,
    headers_json: String,
}

const CACHE_MAX_ENTRIES: usize = 4096;
const CACHE_MAX_BYTES: usize = 64 << 20;
const CACHE_MAX_ENTRY_BYTES: usize = 1 << 20;

impl ResponseCache {
    fn key(request: &RequestEnvelope) -> String {
        let mut key = String::with_capacity(64);
        key.push_str(&request.route);
        key.push('\u{1}');
        key.push_str(request.tier.as_str());
        for (k, v) in &request.query {
            key.push('\u{1}');
            key.push_str(k);
            key.push('\u{2}');
            key.push_str(v);
        }
        key
    }

    fn get(&self, key: &str) -> Option<Arc<Cached>> {
        self.entries.read().unwrap_or_else(|e| e.into_inner()).get(key).cloned()
    }

    fn put(&self, key: String, value: Cached) {
        if value.body.len() > CACHE_MAX_ENTRY_BYTES {
            return;
        }
        let mut map = self.entries.write().unwrap_or_else(|e| e.into_inner());
        let size = value.body.len() + key.len();
        if map.len() >= CACHE_MAX_ENTRIES || self.bytes.load(Ordering::Relaxed) + size > CACHE_MAX_BYTES {
            map.clear();
            self.bytes.store(0, Ordering::Relaxed);
        }
        self.bytes.fetch_add(size, Ordering::Relaxed);
        map.insert(key, Arc::new(value));
    }
}

impl<P: Plugin> Default for PluginState<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: Plugin> PluginState<P> {
    pub const fn new() -> Self {
        Self { current: RwLock::new(None) }
    }

    fn live(&self) -> Option<Live<P>> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn instance(&self) -> Option<Arc<P>> {
        self.live().map(|l| l.instance)
    }

    pub fn init(&self, services: HostServices, config_json: RStr<'_>) -> FfiReply {
        let host = Host::from_services(services);
        host::install(host);
        install_panic_hook();
        guarded(|| {
            let config: serde_json::Value = if config_json.as_str().trim().is_empty() {
                serde_json::Value::Object(Default::default())
            } else {
                serde_json::from_str(config_json.as_str()).map_err(|e| format!("plugin config is not JSON: {e}"))?
            };
            let capabilities = host.capabilities();
            let header_pairs = capabilities.iter().any(|c| c == crate::host::HEADER_PAIRS);
            // Under a host that caches answers itself, a second copy here would be memory spent twice and a copy per
            // miss; its operator's `[cache]` settings govern alone (`max_bytes = 0`: nothing is kept anywhere).
            let host_caches = capabilities.iter().any(|c| c == crate::host::ANSWER_CACHE);
            let written_json = capabilities.iter().any(|c| c == crate::host::WRITTEN_JSON);
            let instance = P::init(InitContext { host, config })?;
            let reusable = instance.cache_responses();
            let cache = (reusable && !host_caches).then(|| Arc::new(ResponseCache::default()));
            *self.current.write().unwrap_or_else(|e| e.into_inner()) =
                Some(Live { instance: Arc::new(instance), reusable, cache, header_pairs, written_json });
            Ok(String::new())
        })
    }

    pub fn handle(&self, request_json: RStr<'_>) -> FfiResponse {
        let result = catch_unwind(AssertUnwindSafe(|| {
            let request = match RequestEnvelope::from_json(request_json.as_str()) {
                Ok(r) => r,
                Err(e) => return error_response(500, &format!("the host sent a request the plugin cannot read: {e}")),
            };
            let Some(Live { instance, reusable, cache, header_pairs, written_json }) = self.live() else {
                return error_response(503, "the dataset is not initialised");
            };
            let key = cache.as_ref().map(|_| ResponseCache::key(&request));
            if let (Some(cache), Some(key)) = (&cache, &key) {
                if let Some(hit) = cache.get(key) {
                    return FfiResponse {
                        outcome: OUTCOME_OK,
                        status: hit.status,
                        body: RVec::from(hit.body.as_slice()),
                        headers_json: RString::from(hit.headers_json.as_str()),
                    };
                }
            }
            WRITTEN_JSON.set(None);
            match instance.handle(&request) {
                Ok(mut resp) => {
                    let outcome = if written_json && (200..300).contains(&resp.status) && written_unchanged(&resp.body)
                    {
                        OUTCOME_OK_WRITTEN_JSON
                    } else {
                        OUTCOME_OK
                    };
                    if !reusable {
                        // Neither this cache nor the host's may reuse an answer of an instance that reads live.
                        resp.headers.push((crate::request::NO_HOST_CACHE_HEADER.into(), "off".into()));
                    }
                    let headers = headers_json(&resp.headers, header_pairs);
                    if let (Some(cache), Some(key), 200) = (&cache, key, resp.status) {
                        cache.put(
                            key,
                            Cached { status: resp.status, body: resp.body.clone(), headers_json: headers.to_string() },
                        );
                    }
                    FfiResponse { outcome, status: resp.status, body: RVec::from(resp.body), headers_json: headers }
                }
                // The message as it is: the host wraps it in its error envelope without reading JSON.
                Err(e) => FfiResponse {
                    outcome: OUTCOME_API_ERROR,
                    status: e.status,
                    body: RVec::from(e.message.into_bytes()),
                    headers_json: RString::new(),
                },
            }
        }));
        result.unwrap_or_else(|payload| FfiResponse {
            outcome: OUTCOME_PANIC,
            status: 500,
            body: RVec::from(panic_message(&*payload).into_bytes()),
            headers_json: RString::new(),
        })
    }

    pub fn call(&self, name: RStr<'_>, input_json: RStr<'_>) -> FfiReply {
        guarded(|| {
            let instance = self.instance().ok_or("the plugin is not initialised")?;
            let input = parse_json_arg(input_json.as_str())?;
            let out = instance.call(name.as_str(), &input)?;
            Ok(out.to_string())
        })
    }
}

thread_local! {
    /// The length and XXH3 of the body [`crate::Response::json`] last wrote on this thread (cleared before each
    /// `handle`): an answer whose body still matches is JSON by construction.
    static WRITTEN_JSON: Cell<Option<(usize, u64)>> = const { Cell::new(None) };
}

/// Called by [`crate::Response::json`] with the bytes serde_json wrote.
pub(crate) fn note_written_json(body: &[u8]) {
    WRITTEN_JSON.set(Some((body.len(), twox_hash::XxHash3_64::oneshot(body))));
}

/// Whether `body` is the one [`crate::Response::json`] wrote last on this thread during this `handle`, unchanged
/// since (a plugin may edit a body after writing it, or build one by hand: those are read by the host).
fn written_unchanged(body: &[u8]) -> bool {
    WRITTEN_JSON.get().is_some_and(|(len, hash)| len == body.len() && hash == twox_hash::XxHash3_64::oneshot(body))
}

fn error_response(status: u16, message: &str) -> FfiResponse {
    FfiResponse {
        outcome: OUTCOME_ERR,
        status,
        body: RVec::from(message.as_bytes().to_vec()),
        headers_json: RString::new(),
    }
}

/// An answer's headers for the host: `[name, value]` pairs in order when it reads them, else (an older host) a
/// JSON object, where a repeated name keeps its last value.
fn headers_json(headers: &[(String, String)], pairs: bool) -> RString {
    if headers.is_empty() {
        return RString::new();
    }
    let json = if pairs {
        serde_json::to_string(headers).unwrap_or_default()
    } else {
        let map: serde_json::Map<String, serde_json::Value> =
            headers.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
        serde_json::Value::Object(map).to_string()
    };
    RString::from(json)
}

fn parse_json_arg(text: &str) -> Result<serde_json::Value, crate::BoxError> {
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Null);
    }
    Ok(serde_json::from_str(text).map_err(|e| format!("argument is not JSON: {e}"))?)
}

/// Runs `f`, turning both its error and a panic into an [`FfiReply`].
pub fn guarded(f: impl FnOnce() -> Result<String, crate::BoxError>) -> FfiReply {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(payload)) => FfiReply { outcome: OUTCOME_OK, payload: payload.into() },
        Ok(Err(error)) => FfiReply { outcome: OUTCOME_ERR, payload: error.to_string().into() },
        Err(payload) => FfiReply { outcome: OUTCOME_PANIC, payload: panic_message(&*payload).into() },
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// Forwards panic messages (with their location) to the host log instead of this library's own stderr.
/// Each cdylib has its own copy of std and therefore its own panic hook.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            let message = panic_message(info.payload());
            host::log_error(&format!("plugin panicked{location}: {message}"));
        }));
    });
}

pub fn build_info(crate_name: &str, crate_version: &str, panic_strategy: &str) -> RString {
    let info = BuildInfo {
        abi_major: ABI_MAJOR,
        sdk_version: crate::SDK_VERSION.into(),
        rustc: env!("DATAHOST_RUSTC_VERSION").into(),
        panic_strategy: panic_strategy.into(),
        crate_name: crate_name.into(),
        crate_version: crate_version.into(),
    };
    serde_json::to_string(&info).unwrap_or_default().into()
}

/// The manifest as the host receives it: [`Plugin::manifest`] plus an `ingest:<format>` capability for each of
/// [`Plugin::ingest_formats`].
pub fn full_manifest<P: Plugin>() -> crate::Manifest {
    let mut manifest = P::manifest();
    for format in P::ingest_formats() {
        let capability = format!("ingest:{format}");
        if !manifest.capabilities.contains(&capability) {
            manifest.capabilities.push(capability);
        }
    }
    manifest
}

pub fn manifest<P: Plugin>() -> FfiReply {
    guarded(|| {
        let mut doc = serde_json::to_value(full_manifest::<P>()).map_err(|e| e.to_string())?;
        let migrations = P::migrations();
        if !migrations.is_empty() {
            doc["migrations"] = serde_json::to_value(migrations).map_err(|e| e.to_string())?;
        }
        Ok(doc.to_string())
    })
}

pub fn seeds<P: Plugin>() -> FfiReply {
    guarded(|| {
        let mut out = String::from("[");
        for (i, seed) in P::seeds().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            // The snapshot is embedded verbatim: it is already JSON and may be megabytes long.
            out.push_str("{\"dataset\":");
            out.push_str(&serde_json::to_string(&seed.dataset).map_err(|e| e.to_string())?);
            out.push_str(",\"snapshot\":");
            out.push_str(seed.snapshot_json.trim());
            out.push('}');
        }
        out.push(']');
        Ok(out)
    })
}

/// `format` is a hint only (empty: detect); the parser detects the format from the content either way and
/// reports what it found in the batch.
pub fn ingest<P: Plugin>(_format: RStr<'_>, bytes: RSlice<'_, u8>, options_json: RStr<'_>) -> FfiReply {
    guarded(|| {
        let options: crate::ingest::IngestOptions = if options_json.as_str().trim().is_empty() {
            Default::default()
        } else {
            serde_json::from_str(options_json.as_str()).map_err(|e| format!("ingest options are not valid: {e}"))?
        };
        let file = crate::ingest::SourceFile { name: &options.file_name, bytes: bytes.as_slice() };
        let reply = match P::ingest(&file) {
            Ok(mut batch) => {
                batch.keep_one_per_key();
                crate::ingest::IngestReply::Batch(batch)
            }
            Err(refusal) => crate::ingest::IngestReply::Refused(refusal),
        };
        Ok(serde_json::to_string(&reply).map_err(|e| format!("the ingest reply does not serialise: {e}"))?)
    })
}

/// Exports a [`Plugin`] implementation as a datahost plugin library.
///
/// ```ignore
/// datahost_plugin_api::export_plugin!(MyDataset);
/// ```
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty) => {
        const _: () = {
            use $crate::abi::{FfiReply, FfiResponse, HostServices, PluginModule, PluginModuleRef};
            use $crate::abi_stable::std_types::{RSlice, RStr, RString};

            static STATE: $crate::__export::PluginState<$plugin> = $crate::__export::PluginState::new();

            extern "C" fn build_info() -> RString {
                $crate::__export::build_info(
                    env!("CARGO_PKG_NAME"),
                    env!("CARGO_PKG_VERSION"),
                    if cfg!(panic = "unwind") { "unwind" } else { "abort" },
                )
            }
            extern "C" fn manifest() -> FfiReply {
                $crate::__export::manifest::<$plugin>()
            }
            extern "C" fn seeds() -> FfiReply {
                $crate::__export::seeds::<$plugin>()
            }
            extern "C" fn init(host: HostServices, config_json: RStr<'_>) -> FfiReply {
                STATE.init(host, config_json)
            }
            extern "C" fn handle(request_json: RStr<'_>) -> FfiResponse {
                STATE.handle(request_json)
            }
            extern "C" fn ingest(format: RStr<'_>, bytes: RSlice<'_, u8>, options_json: RStr<'_>) -> FfiReply {
                $crate::__export::ingest::<$plugin>(format, bytes, options_json)
            }
            extern "C" fn call(name: RStr<'_>, input_json: RStr<'_>) -> FfiReply {
                STATE.call(name, input_json)
            }

            fn root_module() -> PluginModuleRef {
                use $crate::abi_stable::prefix_type::PrefixTypeTrait;
                PluginModule { build_info, manifest, seeds, init, handle, ingest, call }.leak_into_prefix()
            }

            // What `#[abi_stable::export_root_module]` expands to, spelled with `$crate` paths so that a
            // plugin needs no direct dependency on abi_stable.
            #[export_name = "_1as_0lib_1header_0root_bmodule_bloader"]
            pub static DATAHOST_PLUGIN_LIB_HEADER: $crate::abi_stable::library::LibHeader = {
                extern "C" fn erased_root_module() -> $crate::abi_stable::library::RootModuleResult {
                    $crate::abi_stable::library::__call_root_module_loader(root_module)
                }
                unsafe {
                    $crate::abi_stable::library::LibHeader::from_constructor::<PluginModuleRef>(
                        erased_root_module,
                        $crate::abi_stable::library::CheckTypeLayout::Yes,
                    )
                }
            };
        };
    };
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU32;

    use super::*;
    use crate::{ApiError, Manifest, Response};

    static CALLS: AtomicU32 = AtomicU32::new(0);
    static CACHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

    struct Counting;

    impl Plugin for Counting {
        fn manifest() -> Manifest {
            unreachable!()
        }
        fn init(_ctx: InitContext) -> Result<Self, crate::BoxError> {
            Ok(Counting)
        }
        fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
            CALLS.fetch_add(1, Ordering::SeqCst);
            match request.params().str("fail") {
                Some(_) => Err(ApiError::bad_request("fail")),
                None => Response::json(&serde_json::json!({"q": request.query})),
            }
        }
        fn cache_responses(&self) -> bool {
            CACHING.load(Ordering::SeqCst)
        }
    }

    fn call(state: &PluginState<Counting>, query: &[(&str, &str)]) -> (u16, Vec<u8>) {
        let json = serde_json::to_string(&RequestEnvelope::new("/v1/x", query)).unwrap();
        let r = state.handle(RStr::from(json.as_str()));
        (r.status, r.body.into_vec())
    }

    #[test]
    fn response_cache_reuses_answers_until_the_next_init() {
        let host = crate::testing::TestHost::new().without_capability(crate::host::ANSWER_CACHE);
        let state: PluginState<Counting> = PluginState::new();
        state.init(host.services(), RStr::from("{}"));
        let before = CALLS.load(Ordering::SeqCst);
        let first = call(&state, &[("ticker", "A")]);
        assert_eq!(call(&state, &[("ticker", "A")]), first, "identical request, identical bytes");
        assert_eq!(CALLS.load(Ordering::SeqCst) - before, 1, "served from the cache");
        call(&state, &[("ticker", "B")]);
        assert_eq!(CALLS.load(Ordering::SeqCst) - before, 2, "another query is computed");
        call(&state, &[("fail", "1")]);
        call(&state, &[("fail", "1")]);
        assert_eq!(CALLS.load(Ordering::SeqCst) - before, 4, "errors are never cached");
        state.init(host.services(), RStr::from("{}"));
        call(&state, &[("ticker", "A")]);
        assert_eq!(CALLS.load(Ordering::SeqCst) - before, 5, "a new instance starts with an empty cache");
        CACHING.store(false, Ordering::SeqCst);
        state.init(host.services(), RStr::from("{}"));
        call(&state, &[("ticker", "A")]);
        call(&state, &[("ticker", "A")]);
        assert_eq!(CALLS.load(Ordering::SeqCst) - before, 7, "plugins that opt out are always asked");
        let json = serde_json::to_string(&RequestEnvelope::new("/v1/x", &[("ticker", "A")])).unwrap();
        let headers = state.handle(RStr::from(json.as_str())).headers_json.into_string();
        assert_eq!(headers, r#"[["x-datahost-cache","off"]]"#, "and tell the host not to keep their answers");
        CACHING.store(true, Ordering::SeqCst);
    }

    static COMPUTED: AtomicU32 = AtomicU32::new(0);

    struct Computing;

    impl Plugin for Computing {
        fn manifest() -> Manifest {
            unreachable!()
        }
        fn init(_ctx: InitContext) -> Result<Self, crate::BoxError> {
            Ok(Computing)
        }
        fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
            COMPUTED.fetch_add(1, Ordering::SeqCst);
            Response::json(&serde_json::json!({"q": request.query}))
        }
    }

    #[test]
    fn under_a_host_that_caches_answers_the_sdk_keeps_none() {
        let json = serde_json::to_string(&RequestEnvelope::new("/v1/x", &[("ticker", "A")])).unwrap();
        let state: PluginState<Computing> = PluginState::new();
        state.init(crate::testing::TestHost::new().services(), RStr::from("{}"));
        let first = state.handle(RStr::from(json.as_str()));
        let second = state.handle(RStr::from(json.as_str()));
        assert_eq!(COMPUTED.load(Ordering::SeqCst), 2, "each request computed: the host keeps the answers");
        assert_eq!(first.body.as_slice(), second.body.as_slice());
        assert!(second.headers_json.is_empty(), "and the host may keep them: no x-datahost-cache: off");
        state.init(
            crate::testing::TestHost::new().without_capability(crate::host::ANSWER_CACHE).services(),
            RStr::from("{}"),
        );
        state.handle(RStr::from(json.as_str()));
        state.handle(RStr::from(json.as_str()));
        assert_eq!(COMPUTED.load(Ordering::SeqCst), 3, "a host that keeps none: the SDK keeps them, as before");
    }

    /// Answers the body `Response::json` wrote (`mode` absent), that body edited afterwards (`edited`), one made by
    /// hand (`hand`), or a written body under another status (`created`).
    struct Writing;

    impl Plugin for Writing {
        fn manifest() -> Manifest {
            unreachable!()
        }
        fn init(_ctx: InitContext) -> Result<Self, crate::BoxError> {
            Ok(Writing)
        }
        fn handle(&self, request: &RequestEnvelope) -> Result<Response, ApiError> {
            if request.params().str("mode") == Some("hand") {
                return Ok(Response { status: 200, body: br#"{"ok":true}"#.to_vec(), headers: vec![] });
            }
            let mut written = Response::json(&serde_json::json!({"ok": true}))?;
            match request.params().str("mode") {
                Some("edited") => written.body[1] = b'[',
                Some("created") => written.status = 201,
                Some("other") => {
                    // Another body written after the one answered: the SDK vouches for the last one only.
                    Response::json(&serde_json::json!({"other": 1}))?;
                }
                _ => {}
            }
            Ok(written)
        }
    }

    #[test]
    fn a_body_serde_json_wrote_crosses_as_written_json_only_while_unchanged() {
        let outcome = |state: &PluginState<Writing>, mode: &[(&str, &str)]| {
            let json = serde_json::to_string(&RequestEnvelope::new("/v1/x", mode)).unwrap();
            state.handle(RStr::from(json.as_str())).outcome
        };
        let state: PluginState<Writing> = PluginState::new();
        state.init(crate::testing::TestHost::new().services(), RStr::from("{}"));
        assert_eq!(outcome(&state, &[]), OUTCOME_OK_WRITTEN_JSON);
        assert_eq!(outcome(&state, &[("mode", "created")]), OUTCOME_OK_WRITTEN_JSON, "any 2xx");
        assert_eq!(
            outcome(&state, &[("mode", "edited")]),
            OUTCOME_OK,
            "edited after it was written: the host reads it"
        );
        assert_eq!(outcome(&state, &[("mode", "hand")]), OUTCOME_OK, "made by hand: the host reads it");
        assert_eq!(outcome(&state, &[("mode", "other")]), OUTCOME_OK, "not the body written last");
        assert_eq!(outcome(&state, &[]), OUTCOME_OK_WRITTEN_JSON, "each handle starts afresh");
        // A host that does not read the outcome gets every answer as OUTCOME_OK.
        let older = crate::testing::TestHost::new().without_capability(crate::host::WRITTEN_JSON);
        state.init(older.services(), RStr::from("{}"));
        assert_eq!(outcome(&state, &[]), OUTCOME_OK);
    }

    struct Linking;

    impl Plugin for Linking {
        fn manifest() -> Manifest {
            unreachable!()
        }
        fn init(_ctx: InitContext) -> Result<Self, crate::BoxError> {
            Ok(Linking)
        }
        fn handle(&self, _request: &RequestEnvelope) -> Result<Response, ApiError> {
            Ok(Response::json(&serde_json::json!({}))?.with_header("x-source", "a").with_header("x-source", "b"))
        }
    }

    #[test]
    fn headers_cross_as_pairs_to_a_host_that_reads_them_and_as_an_object_to_an_older_one() {
        let json = serde_json::to_string(&RequestEnvelope::new("/v1/x", &[])).unwrap();
        let state: PluginState<Linking> = PluginState::new();
        let current = crate::testing::TestHost::new();
        state.init(current.services(), RStr::from("{}"));
        let headers = state.handle(RStr::from(json.as_str())).headers_json.into_string();
        assert_eq!(headers, r#"[["x-source","a"],["x-source","b"]]"#, "a repeated header keeps both values, in order");
        // Asked again, still as pairs.
        assert_eq!(state.handle(RStr::from(json.as_str())).headers_json.into_string(), headers);
        let older = crate::testing::TestHost::new().predating_capabilities();
        state.init(older.services(), RStr::from("{}"));
        let headers = state.handle(RStr::from(json.as_str())).headers_json.into_string();
        assert_eq!(headers, r#"{"x-source":"b"}"#, "what a host of SDK 2.0 or older reads");
    }

    struct Refusing;

    impl Plugin for Refusing {
        fn manifest() -> Manifest {
            unreachable!()
        }
        fn init(_ctx: InitContext) -> Result<Self, crate::BoxError> {
            Ok(Refusing)
        }
        fn handle(&self, _request: &RequestEnvelope) -> Result<Response, ApiError> {
            Err(ApiError::not_found("no filing \"0001\" in this dataset"))
        }
    }

    #[test]
    fn an_api_error_crosses_as_its_status_and_plain_message() {
        let host = crate::testing::TestHost::new();
        let state: PluginState<Refusing> = PluginState::new();
        let json = serde_json::to_string(&RequestEnvelope::new("/v1/x", &[])).unwrap();
        let before_init = state.handle(RStr::from(json.as_str()));
        assert_eq!((before_init.outcome, before_init.status), (OUTCOME_ERR, 503), "not initialised is a fault");
        state.init(host.services(), RStr::from("{}"));
        let r = state.handle(RStr::from(json.as_str()));
        assert_eq!((r.outcome, r.status), (OUTCOME_API_ERROR, 404));
        // Not JSON: the host puts the message into its envelope as it is, without reading the body.
        assert_eq!(r.body.as_slice(), br#"no filing "0001" in this dataset"#);
        assert!(r.headers_json.is_empty());
    }

    #[test]
    fn root_module_symbol_matches_abi_stable() {
        assert_eq!(super::ROOT_MODULE_SYMBOL, abi_stable::library::ROOT_MODULE_LOADER_NAME);
    }
}
