//! The frozen v1 binary interface between the datahost host and a dataset plugin.
//!
//! Everything in this file is part of the ABI. Its layout is frozen for the whole 1.x line: a host with one
//! more prefix field than a plugin rejects that plugin ("too many fields"), so the interface evolves through
//! JSON fields (manifest, request context, build info) and the generic `call` extension points on both sides,
//! never by adding fields here. Only abi_stable `R*` types and plain integers cross the boundary; every buffer
//! is an `RString`/`RVec`, which carries its own deallocator, so either side may drop it safely.

use abi_stable::{
    declare_root_module_statics,
    library::RootModule,
    package_version_strings,
    sabi_types::VersionStrings,
    std_types::{RSlice, RStr, RString, RVec},
    StableAbi,
};

/// Major version of the plugin ABI. The host refuses plugins whose build info reports another major.
pub const ABI_MAJOR: u32 = 1;

/// `FfiReply::outcome` / `FfiResponse::outcome`: the call succeeded.
pub const OUTCOME_OK: u8 = 0;
/// The call failed in an orderly way; the payload is a human-readable message.
pub const OUTCOME_ERR: u8 = 1;
/// The call panicked inside the plugin; the SDK caught it and the payload is the panic message.
pub const OUTCOME_PANIC: u8 = 2;
/// `FfiResponse::outcome` only: the plugin answered with an API error (an [`crate::ApiError`]): `status` is its
/// HTTP status (400-599) and `body` its message as UTF-8 text, which the host serves in its error envelope as it
/// is. Added in SDK 1.1 without a layout change: a host that predates it reads any unknown outcome as an error
/// with the same status and message, so a newer plugin still answers the right status on an older host.
pub const OUTCOME_API_ERROR: u8 = 3;
/// `FfiResponse::outcome` only: an answer (as [`OUTCOME_OK`]) whose body the SDK wrote with serde_json and found
/// unchanged when `handle` returned ([`crate::Response::json`]), so it is JSON by construction and the host does
/// not read it through again. Added in SDK 3.2, sent only to a host that announces
/// [`crate::host::WRITTEN_JSON`]: an older host would read the unknown outcome as an error.
pub const OUTCOME_OK_WRITTEN_JSON: u8 = 4;

/// The root module every plugin exports. Fields are function pointers only; the plugin keeps its state in
/// its own statics (a library is loaded once and never unloaded).
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = PluginModuleRef)))]
#[sabi(missing_field(panic))]
pub struct PluginModule {
    /// JSON [`crate::BuildInfo`]: ABI major, SDK version, rustc, panic strategy.
    pub build_info: extern "C" fn() -> RString,
    /// JSON [`crate::Manifest`].
    pub manifest: extern "C" fn() -> FfiReply,
    /// JSON array of `{"dataset": name, "snapshot": <document>}`: the seed snapshots the plugin ships.
    pub seeds: extern "C" fn() -> FfiReply,
    /// Builds (or rebuilds, on a data change) the plugin's state. `config_json` is the plugin's table from the
    /// host config, `{}` when absent. May be called again later; the SDK swaps the new state in atomically.
    pub init: extern "C" fn(host: HostServices, config_json: RStr<'_>) -> FfiReply,
    /// Serves one request. `request_json` is a JSON [`crate::RequestEnvelope`].
    pub handle: extern "C" fn(request_json: RStr<'_>) -> FfiResponse,
    /// Parses a source document of `format` (one of the plugin's `ingest:<format>` capabilities) into records.
    pub ingest: extern "C" fn(format: RStr<'_>, bytes: RSlice<'_, u8>, options_json: RStr<'_>) -> FfiReply,
    /// Generic extension point: named calls with JSON in and out.
    #[sabi(last_prefix_field)]
    pub call: extern "C" fn(name: RStr<'_>, input_json: RStr<'_>) -> FfiReply,
}

impl RootModule for PluginModuleRef {
    declare_root_module_statics! {PluginModuleRef}
    const BASE_NAME: &'static str = "datahost_plugin";
    const NAME: &'static str = "datahost_plugin";
    const VERSION_STRINGS: VersionStrings = package_version_strings!();
}

/// A JSON (or text) result across the boundary.
#[repr(C)]
#[derive(StableAbi, Debug, Clone)]
pub struct FfiReply {
    /// [`OUTCOME_OK`], [`OUTCOME_ERR`] or [`OUTCOME_PANIC`]; any other value is read as an error.
    pub outcome: u8,
    /// The JSON answer when the outcome is [`OUTCOME_OK`], else the error or panic message as plain text.
    pub payload: RString,
}

impl FfiReply {
    /// A success carrying `payload` (JSON text).
    pub fn ok(payload: impl Into<RString>) -> Self {
        Self { outcome: OUTCOME_OK, payload: payload.into() }
    }
    /// An orderly failure carrying a human-readable `message`.
    pub fn err(message: impl Into<RString>) -> Self {
        Self { outcome: OUTCOME_ERR, payload: message.into() }
    }
    /// A caught panic carrying the panic `message`.
    pub fn panic(message: impl Into<RString>) -> Self {
        Self { outcome: OUTCOME_PANIC, payload: message.into() }
    }
    /// Converts into a Rust result; a panic becomes an error prefixed with "panicked: ".
    pub fn into_result(self) -> Result<String, String> {
        match self.outcome {
            OUTCOME_OK => Ok(self.payload.into_string()),
            OUTCOME_PANIC => Err(format!("panicked: {}", self.payload)),
            _ => Err(self.payload.into_string()),
        }
    }
}

/// The answer to one request. `headers_json` holds its extra response headers (may be empty).
#[repr(C)]
#[derive(StableAbi, Debug)]
pub struct FfiResponse {
    /// [`OUTCOME_OK`] for an answer (status 2xx, JSON body), or [`OUTCOME_OK_WRITTEN_JSON`] for one whose body
    /// serde_json wrote; [`OUTCOME_API_ERROR`] for an API error (status and
    /// plain-text message); [`OUTCOME_ERR`] when the SDK could not serve at all (unreadable request, state not
    /// initialised); [`OUTCOME_PANIC`] when `handle` panicked. Plugins built before SDK 1.1 answer API errors as
    /// [`OUTCOME_OK`] with the error status and a JSON body `{"error": message}`; the host still reads those.
    pub outcome: u8,
    /// HTTP status code of the response (500 after a panic).
    pub status: u16,
    /// Response body bytes: JSON when the outcome is [`OUTCOME_OK`], else the plain-text message.
    pub body: RVec<u8>,
    /// The headers as JSON: an array of `[name, value]` string pairs, in order and names possibly repeated, when
    /// the host announced [`crate::host::HEADER_PAIRS`] (SDK 2.1); else an object of name to value (what every
    /// host reads). The empty string (not `{}` or `[]`) when there are none. A host refuses an answer whose
    /// headers it cannot read or HTTP cannot carry (a plugin fault), rather than serve it without them.
    pub headers_json: RString,
}

/// Services the host offers a plugin. Every function takes the opaque `token` the host handed out, so the
/// host knows which plugin is calling. All functions are safe to call from the thread that runs `handle`.
#[repr(C)]
#[derive(StableAbi, Copy, Clone)]
pub struct HostServices {
    /// Opaque id the host gave this plugin; pass it back as the first argument of every function below.
    pub token: u64,
    /// Log a line at `level` (0 error, 1 warn, 2 info, 3 debug, 4 trace).
    pub log: extern "C" fn(token: u64, level: u8, message: RStr<'_>),
    /// Record a metric: `kind` 0 counter increment (rounded to a whole number), 1 gauge set, 2 histogram
    /// observation. `labels_json` is reserved: the host labels every plugin metric with `plugin` only (labels a
    /// plugin chose could grow Prometheus's series without bound), and the SDK passes `{}`.
    pub metric: extern "C" fn(token: u64, kind: u8, name: RStr<'_>, value: f64, labels_json: RStr<'_>),
    /// Reads a dataset snapshot (the JSON document) from the records engine.
    pub load_dataset: extern "C" fn(token: u64, dataset: RStr<'_>) -> FfiReply,
    /// Runs a parameterised query against the records engine. JSON in: `{"sql": ..., "params": [...]}`;
    /// JSON out: `{"rows": [{column: value}]}`. Only engines that support SQL answer; others return an error.
    pub query: extern "C" fn(token: u64, request_json: RStr<'_>) -> FfiReply,
    /// Generic extension point: named host calls with JSON in and out.
    pub call: extern "C" fn(token: u64, name: RStr<'_>, input_json: RStr<'_>) -> FfiReply,
}
