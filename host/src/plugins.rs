//! The plugin loader and the host services plugins call back into.
//!
//! Loading is per file and isolated: a file that is not a plugin, has an incompatible ABI or build, an
//! invalid manifest, a slug or route that another plugin already claimed, or an `init` that fails or panics
//! is recorded as a failure naming the file and plugin, and every other plugin goes on loading.
//! Libraries are never unloaded (abi_stable leaks them on purpose), so reloading means a new file path.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Instant;

use abi_stable::library::lib_header_from_path;
use abi_stable::std_types::RStr;
use datahost_plugin_api::abi::{
    FfiReply, FfiResponse, HostServices, PluginModuleRef, ABI_MAJOR, OUTCOME_OK, OUTCOME_PANIC,
};
use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::manifest::validate;
use datahost_plugin_api::{BuildInfo, Manifest, Maturity, Migration};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::engine::Engine;

/// A plugin that loaded, validated and initialised.
pub struct LoadedPlugin {
    pub token: u64,
    pub file: PathBuf,
    pub manifest: Manifest,
    pub migrations: Vec<Migration>,
    pub build: BuildInfo,
    module: PluginModuleRef,
    config_json: String,
    /// What the current instance was built from: per dataset it reads, the ingest info (`None`: demo seed).
    /// Taken before `init` ran, kept only when it succeeded, so it describes what is really being served.
    served: RwLock<Vec<(String, Option<IngestedInfo>)>>,
}

/// A file that did not become a serving plugin, and why.
#[derive(Debug, Clone, Serialize)]
pub struct LoadFailure {
    pub file: String,
    /// The plugin's slug when the manifest could be read, else the file name.
    pub plugin: String,
    pub stage: &'static str,
    pub error: String,
}

/// What one call to `handle` produced.
pub enum HandleOutcome {
    Response {
        status: u16,
        body: Vec<u8>,
        headers: Vec<(String, String)>,
    },
    /// The plugin reported a fault of its own (for example not initialised).
    Fault {
        status: u16,
        message: String,
    },
    Panic {
        message: String,
    },
}

impl LoadedPlugin {
    pub fn slug(&self) -> &str {
        &self.manifest.slug
    }

    pub fn maturity(&self) -> Maturity {
        self.manifest.maturity
    }

    /// Calls the plugin's `handle` with a JSON request envelope.
    pub fn handle(&self, request_json: &str) -> HandleOutcome {
        let f = self.module.handle();
        let FfiResponse { outcome, status, body, headers_json } = f(RStr::from(request_json));
        match outcome {
            OUTCOME_OK => {
                HandleOutcome::Response { status, body: body.into_vec(), headers: parse_headers(headers_json.as_str()) }
            }
            OUTCOME_PANIC => HandleOutcome::Panic { message: String::from_utf8_lossy(&body).into_owned() },
            _ => HandleOutcome::Fault { status, message: String::from_utf8_lossy(&body).into_owned() },
        }
    }

    /// Re-runs `init` (after a dataset it reads changed). The SDK swaps the new state in atomically.
    pub fn reinit(&self) -> Result<(), String> {
        let services = host_services(self.token);
        let about_to_serve = context(self.token).map(|c| served_by(&c.engine, &self.manifest)).unwrap_or_default();
        (self.module.init())(services, RStr::from(self.config_json.as_str())).into_result()?;
        *self.served.write().unwrap_or_else(|e| e.into_inner()) = about_to_serve;
        Ok(())
    }

    /// Whether the current instance answers from any demo seed (its own dataset or one it derives from). The
    /// `companies` reference dataset only resolves names and carries no rows of its own.
    pub fn serves_demo(&self) -> bool {
        self.served
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|(d, info)| d != crate::companies::DATASET && info.is_none())
    }

    /// The ingest info of `dataset` as the current instance loaded it (`None`: demo seed or not read).
    pub fn served_info(&self, dataset: &str) -> Option<IngestedInfo> {
        self.served
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(d, _)| d == dataset)
            .and_then(|(_, i)| i.clone())
    }

    /// The plugin's generic extension call.
    pub fn call(&self, name: &str, input: &str) -> Result<String, String> {
        (self.module.call())(RStr::from(name), RStr::from(input)).into_result()
    }

    /// The plugin's ingest entry point.
    pub fn ingest(&self, format: &str, bytes: &[u8], options: &str) -> Result<String, String> {
        (self.module.ingest())(RStr::from(format), bytes.into(), RStr::from(options)).into_result()
    }

    /// Every dataset this plugin reads (its own and others').
    pub fn reads(&self) -> impl Iterator<Item = &str> {
        self.manifest.datasets.iter().chain(&self.manifest.reads).chain(&self.manifest.also_serves).map(String::as_str)
    }
}

fn parse_headers(json: &str) -> Vec<(String, String)> {
    if json.is_empty() {
        return Vec::new();
    }
    serde_json::from_str::<BTreeMap<String, String>>(json).map(|m| m.into_iter().collect()).unwrap_or_default()
}

/// All plugins of one host, and the files that failed.
pub struct PluginRegistry {
    pub plugins: Vec<Arc<LoadedPlugin>>,
    pub failures: Vec<LoadFailure>,
}

impl PluginRegistry {
    pub fn by_slug(&self, slug: &str) -> Option<&Arc<LoadedPlugin>> {
        self.plugins.iter().find(|p| p.slug() == slug)
    }
}

/// A plugin between loading and init.
struct Candidate {
    file: PathBuf,
    manifest: Manifest,
    migrations: Vec<Migration>,
    build: BuildInfo,
    module: PluginModuleRef,
    seeds: Vec<(String, Arc<str>)>,
}

/// Lists the plugin library files of a folder, sorted for a deterministic load order.
pub fn plugin_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read plugins.dir {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "so" || x == "dylib" || x == "dll"))
        .collect();
    files.sort();
    Ok(files)
}

fn file_label(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// Opens one library and reads its build info, manifest and seeds. Runs no plugin `init`.
fn open(path: &Path) -> Result<Candidate, LoadFailure> {
    let fail = |plugin: &str, stage: &'static str, error: String| LoadFailure {
        file: path.display().to_string(),
        plugin: plugin.to_string(),
        stage,
        error,
    };
    let name = file_label(path);
    let header = lib_header_from_path(path)
        .map_err(|e| fail(&name, "open", format!("not a datahost plugin library: {}", first_line(&e.to_string()))))?;
    let module = header
        .init_root_module::<PluginModuleRef>()
        .map_err(|e| fail(&name, "abi", format!("incompatible plugin ABI: {}", first_lines(&e.to_string(), 6))))?;

    let build_json = (module.build_info())().into_string();
    let build: BuildInfo = serde_json::from_str(&build_json)
        .map_err(|e| fail(&name, "build-info", format!("unreadable build info: {e}")))?;
    check_build(&build).map_err(|e| fail(&name, "build-info", e))?;
    if let Some(note) = newer_sdk_note(&build) {
        tracing::warn!(plugin = %name, file = %path.display(), "{note}");
    }

    let manifest_json =
        (module.manifest())().into_result().map_err(|e| fail(&name, "manifest", format!("manifest() failed: {e}")))?;
    let manifest: Manifest =
        serde_json::from_str(&manifest_json).map_err(|e| fail(&name, "manifest", format!("invalid manifest: {e}")))?;
    #[derive(serde::Deserialize)]
    struct Extras {
        #[serde(default)]
        migrations: Vec<Migration>,
    }
    let extras: Extras = serde_json::from_str(&manifest_json)
        .map_err(|e| fail(&manifest.slug, "manifest", format!("invalid migrations: {e}")))?;
    let problems = validate(&manifest);
    if !problems.is_empty() {
        return Err(fail(&manifest.slug, "manifest", format!("invalid manifest: {}", problems.join("; "))));
    }

    #[derive(serde::Deserialize)]
    struct SeedDoc<'a> {
        dataset: String,
        #[serde(borrow)]
        snapshot: &'a RawValue,
    }
    let seeds_json =
        (module.seeds())().into_result().map_err(|e| fail(&manifest.slug, "seeds", format!("seeds() failed: {e}")))?;
    let seed_docs: Vec<SeedDoc> = serde_json::from_str(&seeds_json)
        .map_err(|e| fail(&manifest.slug, "seeds", format!("seeds are not valid JSON: {e}")))?;
    let seeds = seed_docs.into_iter().map(|s| (s.dataset, Arc::from(s.snapshot.get()))).collect();

    Ok(Candidate { file: path.to_path_buf(), manifest, migrations: extras.migrations, build, module, seeds })
}

/// Refuses plugins this host cannot run safely: another ABI major, or a build that aborts on panic (a panic
/// would then kill the host instead of becoming a 500).
pub fn check_build(build: &BuildInfo) -> Result<(), String> {
    if build.abi_major != ABI_MAJOR {
        return Err(format!("built for plugin ABI {} but this host speaks {ABI_MAJOR}", build.abi_major));
    }
    if build.panic_strategy != "unwind" {
        return Err(format!(
            "built with panic = \"{}\"; plugins must unwind so a panic cannot kill the host",
            build.panic_strategy
        ));
    }
    Ok(())
}

/// A plugin built against a newer SDK (major.minor) than this host's still loads: the ABI major is what binds,
/// and everything added within it travels as JSON the host ignores when it does not know it (manifest fields,
/// capabilities) or answers with an error (named calls). The operator is told which features may be missing.
/// See plugin-api/README.md, "Versions".
pub fn newer_sdk_note(build: &BuildInfo) -> Option<String> {
    fn major_minor(v: &str) -> Option<(u64, u64)> {
        let mut parts = v.split(['.', '-', '+']);
        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
    }
    let host = datahost_plugin_api::SDK_VERSION;
    let newer = match (major_minor(&build.sdk_version), major_minor(host)) {
        (Some(plugin), Some(host)) => plugin > host,
        _ => true,
    };
    newer.then(|| {
        format!(
            "built with plugin SDK {} but this host has SDK {host}: it loads (same ABI {ABI_MAJOR}), but manifest \
             fields, capabilities and named calls added after {host} are ignored or refused",
            build.sdk_version
        )
    })
}

fn first_line(s: &str) -> String {
    first_lines(s, 1)
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().filter(|l| !l.trim().is_empty()).take(n).collect::<Vec<_>>().join(" ").chars().take(600).collect()
}

/// Plugins opened and checked, their seeds registered with the engine, not yet initialised.
pub struct OpenedPlugins {
    candidates: Vec<Candidate>,
    failures: Vec<LoadFailure>,
}

/// A plugin's parser, as `datahost ingest` uses it (no `init` needed: parsing needs only the file).
pub struct Parser {
    pub slug: String,
    pub formats: Vec<String>,
    module: PluginModuleRef,
}

/// What a parser made of one file.
pub enum ParseOutcome {
    Batch(datahost_plugin_api::IngestBatch),
    Refused(datahost_plugin_api::Refusal),
}

impl Parser {
    /// The `ingest:<format>` capabilities of a manifest.
    pub fn formats_of(manifest: &Manifest) -> Vec<String> {
        manifest.capabilities.iter().filter_map(|c| c.strip_prefix("ingest:")).map(str::to_string).collect()
    }

    /// Parses one file. A parser that panics or answers garbage refuses the file; it never takes the host down.
    pub fn parse(&self, file_name: &str, bytes: &[u8]) -> ParseOutcome {
        use datahost_plugin_api::ingest::{IngestOptions, IngestReply};
        use datahost_plugin_api::Refusal;
        let options = serde_json::to_string(&IngestOptions { file_name: file_name.to_string() }).unwrap_or_default();
        let reply = (self.module.ingest())(RStr::from(""), bytes.into(), RStr::from(options.as_str()));
        match reply.outcome {
            OUTCOME_OK => match serde_json::from_str::<IngestReply>(reply.payload.as_str()) {
                Ok(IngestReply::Batch(batch)) => ParseOutcome::Batch(batch),
                Ok(IngestReply::Refused(refusal)) => ParseOutcome::Refused(refusal),
                Err(e) => {
                    ParseOutcome::Refused(Refusal::new(format!("the {} parser answered garbage: {e}", self.slug)))
                }
            },
            OUTCOME_PANIC => ParseOutcome::Refused(Refusal::new(format!(
                "the {} parser panicked: {}",
                self.slug,
                first_line(reply.payload.as_str())
            ))),
            _ => ParseOutcome::Refused(Refusal::new(format!("the {} parser failed: {}", self.slug, reply.payload))),
        }
    }
}

impl OpenedPlugins {
    /// The parser of the plugin that owns `dataset`, if any plugin does.
    pub fn parser(&self, dataset: &str) -> Option<Parser> {
        self.candidates
            .iter()
            .find(|c| c.manifest.datasets.iter().any(|d| d == dataset) || c.manifest.slug == dataset)
            .map(|c| Parser {
                slug: c.manifest.slug.clone(),
                formats: Parser::formats_of(&c.manifest),
                module: c.module,
            })
    }

    /// Every dataset some plugin can ingest, with its formats (for messages and `plugins list`).
    pub fn ingestible(&self) -> Vec<(String, Vec<String>)> {
        let mut v: Vec<_> = self
            .candidates
            .iter()
            .map(|c| (c.manifest.slug.clone(), Parser::formats_of(&c.manifest)))
            .filter(|(_, f)| !f.is_empty())
            .collect();
        v.sort();
        v
    }

    /// Each plugin's slug and its own-table migrations (for the PostgreSQL engine).
    pub fn migrations(&self) -> Vec<(String, Vec<Migration>)> {
        self.candidates.iter().map(|c| (c.manifest.slug.clone(), c.migrations.clone())).collect()
    }
}

/// Loads every plugin in `dir`: opens them all, registers their seeds with the engine, then runs each
/// plugin's `init` (so a plugin that reads another plugin's dataset finds it).
pub fn load_all(
    dir: &Path,
    engine: &Arc<Engine>,
    disabled: &[String],
    settings: &BTreeMap<String, serde_json::Value>,
) -> Result<PluginRegistry, String> {
    Ok(init_all(open_all(dir, engine, disabled)?, engine, settings))
}

/// Opens and validates every plugin library in `dir` and registers their seeds. Runs no plugin `init`.
pub fn open_all(dir: &Path, engine: &Arc<Engine>, disabled: &[String]) -> Result<OpenedPlugins, String> {
    let files = plugin_files(dir)?;
    let mut failures = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut slugs = HashSet::new();
    let mut routes: HashMap<String, String> = HashMap::new();
    let mut schema_names: HashMap<String, String> = HashMap::new();

    for file in files {
        let candidate = match open(&file) {
            Ok(c) => c,
            Err(f) => {
                failures.push(f);
                continue;
            }
        };
        let slug = candidate.manifest.slug.clone();
        let fail = |error: String| LoadFailure {
            file: file.display().to_string(),
            plugin: slug.clone(),
            stage: "conflict",
            error,
        };
        if disabled.contains(&slug) {
            continue;
        }
        if !slugs.insert(slug.clone()) {
            failures.push(fail(format!("slug `{slug}` is already taken by another plugin")));
            continue;
        }
        if let Some((path, owner)) =
            candidate.manifest.routes.iter().find_map(|r| routes.get(&r.path).map(|o| (r.path.clone(), o.clone())))
        {
            failures.push(fail(format!("route `{path}` is already served by plugin `{owner}`")));
            continue;
        }
        let names: Vec<String> = candidate
            .manifest
            .openapi
            .pointer("/components/schemas")
            .and_then(|s| s.as_object())
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        if let Some((name, owner)) = names.iter().find_map(|n| {
            crate::openapi::HOST_SCHEMAS
                .contains(&n.as_str())
                .then(|| (n.clone(), "the host".to_string()))
                .or_else(|| schema_names.get(n).map(|o| (n.clone(), format!("plugin `{o}`"))))
        }) {
            failures.push(fail(format!("OpenAPI schema `{name}` is already defined by {owner}")));
            continue;
        }
        for r in &candidate.manifest.routes {
            routes.insert(r.path.clone(), slug.clone());
        }
        for n in names {
            schema_names.insert(n, slug.clone());
        }
        for (dataset, snapshot) in &candidate.seeds {
            engine.register_seed(dataset, snapshot.clone());
        }
        for dataset in &candidate.manifest.datasets {
            if let Err(e) = engine.declare_indexes(dataset, &candidate.manifest.indexes) {
                tracing::warn!(plugin = %slug, dataset = %dataset, error = %e, "record indexes not built");
            }
        }
        candidates.push(candidate);
    }
    Ok(OpenedPlugins { candidates, failures })
}

/// Per dataset a plugin reads, what the engine holds right now (before the plugin loads it).
/// The datasets an instance initialised now serves, with their ingest info (`None`: the demo seed). Datasets
/// of `also_serves` count only once ingested; with any of them ingested, the plugin's own demo seed is not
/// served (see `Manifest::also_serves`).
fn served_by(engine: &Engine, manifest: &Manifest) -> Vec<(String, Option<IngestedInfo>)> {
    let others: Vec<(String, Option<IngestedInfo>)> =
        manifest.also_serves.iter().filter_map(|d| engine.ingested(d).map(|i| (d.clone(), Some(i)))).collect();
    let serving_others = !others.is_empty();
    let own = manifest.datasets.iter().map(|d| (d.clone(), engine.ingested(d)));
    own.filter(|(_, info)| !serving_others || info.is_some())
        .chain(manifest.reads.iter().map(|d| (d.clone(), engine.ingested(d))))
        .chain(others)
        .collect()
}

/// Runs `init` of every opened plugin; those that fail join the failures.
pub fn init_all(
    opened: OpenedPlugins,
    engine: &Arc<Engine>,
    settings: &BTreeMap<String, serde_json::Value>,
) -> PluginRegistry {
    let OpenedPlugins { candidates, mut failures } = opened;
    let mut plugins = Vec::new();
    for c in candidates {
        let token = register_token(engine.clone(), &c.manifest);
        let config_json = settings.get(&c.manifest.slug).map(|v| v.to_string()).unwrap_or_else(|| "{}".into());
        let started = Instant::now();
        let services = host_services(token);
        let about_to_serve = served_by(engine, &c.manifest);
        let result = (c.module.init())(services, RStr::from(config_json.as_str())).into_result();
        let slug = c.manifest.slug.clone();
        match result {
            Ok(_) => {
                tracing::info!(plugin = %slug, file = %c.file.display(), version = %c.manifest.version,
                    ms = started.elapsed().as_millis() as u64, "plugin loaded");
                let plugin = Arc::new(LoadedPlugin {
                    token,
                    file: c.file,
                    manifest: c.manifest,
                    migrations: c.migrations,
                    build: c.build,
                    module: c.module,
                    config_json,
                    served: RwLock::new(about_to_serve),
                });
                register_routes(&plugin);
                plugins.push(plugin);
            }
            Err(e) => failures.push(LoadFailure {
                file: c.file.display().to_string(),
                plugin: slug,
                stage: "init",
                error: format!("init failed: {e}"),
            }),
        }
    }
    for f in &failures {
        tracing::error!(plugin = %f.plugin, file = %f.file, stage = f.stage, error = %f.error, "plugin not loaded");
    }
    PluginRegistry { plugins, failures }
}

// ---------------------------------------------------------------------------------------------------------
// Host services. The functions are plain `extern "C"` fns, so they find their context through the token.

struct TokenContext {
    engine: Arc<Engine>,
    slug: String,
    /// The datasets the plugin owns or declared in `reads`: what `records.query` may read.
    readable: Vec<String>,
}

/// Every serving plugin by route, for the `route.get` host call.
fn routes() -> &'static RwLock<HashMap<String, Arc<LoadedPlugin>>> {
    static ROUTES: OnceLock<RwLock<HashMap<String, Arc<LoadedPlugin>>>> = OnceLock::new();
    ROUTES.get_or_init(Default::default)
}

fn register_routes(plugin: &Arc<LoadedPlugin>) {
    let mut map = routes().write().unwrap_or_else(|e| e.into_inner());
    for route in &plugin.manifest.routes {
        map.insert(route.path.clone(), plugin.clone());
    }
}

thread_local! {
    /// How deep `route.get` calls are nested on this thread (a plugin asking another that asks another...).
    static ROUTE_DEPTH: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// `demo` when the plugin's current instance answers from any demo seed, else `ingested`.
pub fn data_status(plugin: &LoadedPlugin) -> &'static str {
    if plugin.serves_demo() {
        "demo"
    } else {
        "ingested"
    }
}

/// Puts `"dataStatus"` first in a JSON object body, the same place for every dataset.
pub fn label_body(body: Vec<u8>, status: &str) -> Vec<u8> {
    let Some(open) = body.iter().position(|b| !b.is_ascii_whitespace()) else { return body };
    if body[open] != b'{' {
        return body;
    }
    let empty = body[open + 1..].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'}');
    let field = format!("\"dataStatus\":\"{status}\"{}", if empty { "" } else { "," });
    let mut out = Vec::with_capacity(body.len() + field.len());
    out.extend_from_slice(&body[..=open]);
    out.extend_from_slice(field.as_bytes());
    out.extend_from_slice(&body[open + 1..]);
    out
}

/// `route.get`: one plugin reads another dataset through that dataset's public API (the same answer a client
/// with an owner key gets), so derived datasets depend on the contract, not on another plugin's internals.
fn route_get(caller: &str, input: &str) -> Result<String, String> {
    #[derive(serde::Deserialize)]
    struct RouteGet {
        route: String,
        #[serde(default)]
        query: Vec<(String, String)>,
    }
    let req: RouteGet =
        serde_json::from_str(input).map_err(|e| format!("route.get takes {{\"route\", \"query\": [[k, v]]}}: {e}"))?;
    let target = routes()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(&req.route)
        .cloned()
        .ok_or_else(|| format!("no loaded plugin serves {}", req.route))?;
    if target.slug() == caller {
        return Err(format!("plugin {caller} asked for its own route {}", req.route));
    }
    let depth = ROUTE_DEPTH.with(|d| d.get());
    if depth >= 2 {
        return Err(format!("route.get nested too deep at {}", req.route));
    }
    let envelope = datahost_plugin_api::RequestEnvelope {
        route: req.route.clone(),
        query: req.query,
        tier: datahost_plugin_api::Tier::Owner,
        request_id: format!("internal:{caller}"),
    };
    let json = serde_json::to_string(&envelope).map_err(|e| e.to_string())?;
    ROUTE_DEPTH.with(|d| d.set(depth + 1));
    let outcome = target.handle(&json);
    ROUTE_DEPTH.with(|d| d.set(depth));
    match outcome {
        // Labelled as clients see it, so a derived dataset knows when it derives from demo rows.
        HandleOutcome::Response { status: 200, body, .. } => String::from_utf8(label_body(body, data_status(&target)))
            .map_err(|_| format!("{} answered a body that is not UTF-8", req.route)),
        HandleOutcome::Response { status, body, .. } => {
            Err(format!("{} answered {status}: {}", req.route, first_line(&String::from_utf8_lossy(&body))))
        }
        HandleOutcome::Fault { status, message } => Err(format!("{} failed ({status}): {message}", req.route)),
        HandleOutcome::Panic { .. } => Err(format!("{} panicked", req.route)),
    }
}

fn tokens() -> &'static RwLock<HashMap<u64, Arc<TokenContext>>> {
    static TOKENS: OnceLock<RwLock<HashMap<u64, Arc<TokenContext>>>> = OnceLock::new();
    TOKENS.get_or_init(Default::default)
}

fn register_token(engine: Arc<Engine>, manifest: &Manifest) -> u64 {
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

fn context(token: u64) -> Option<Arc<TokenContext>> {
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
fn shielded(f: impl FnOnce() -> Result<String, String>) -> FfiReply {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(s)) => FfiReply::ok(s),
        Ok(Err(e)) => FfiReply::err(e),
        Err(_) => FfiReply::err("the host service failed unexpectedly"),
    }
}

extern "C" fn svc_log(token: u64, level: u8, message: RStr<'_>) {
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

extern "C" fn svc_metric(token: u64, kind: u8, name: RStr<'_>, value: f64, _labels: RStr<'_>) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let Some(ctx) = context(token) else { return };
        let name: String = name.as_str().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').take(64).collect();
        let metric = format!("datahost_plugin_{name}");
        let labels = [("plugin", ctx.slug.clone())];
        match kind {
            0 => metrics::counter!(metric, &labels).increment(value.max(0.0) as u64),
            1 => metrics::gauge!(metric, &labels).set(value),
            _ => metrics::histogram!(metric, &labels).record(value),
        }
    }));
}

extern "C" fn svc_load_dataset(token: u64, dataset: RStr<'_>) -> FfiReply {
    shielded(|| {
        let ctx = context(token).ok_or("unknown plugin token")?;
        ctx.engine.load_dataset(dataset.as_str()).map(|s| s.to_string())
    })
}

extern "C" fn svc_query(token: u64, request_json: RStr<'_>) -> FfiReply {
    shielded(|| {
        let ctx = context(token).ok_or("unknown plugin token")?;
        ctx.engine.query(&ctx.slug, request_json.as_str())
    })
}

extern "C" fn svc_call(token: u64, name: RStr<'_>, input: RStr<'_>) -> FfiReply {
    shielded(|| {
        let ctx = context(token).ok_or("unknown plugin token")?;
        match name.as_str() {
            "engine.kind" => Ok(format!("\"{}\"", ctx.engine.kind())),
            datahost_plugin_api::reference::RESOLVE_CALL => {
                let queries: Vec<datahost_plugin_api::reference::CompanyQuery> =
                    serde_json::from_str(input.as_str())
                        .map_err(|e| format!("companies.resolve takes a JSON array of queries: {e}"))?;
                let index = ctx.engine.companies();
                let answers: Vec<_> = queries.iter().map(|q| index.resolve(q)).collect();
                serde_json::to_string(&answers).map_err(|e| e.to_string())
            }
            "host.version" => Ok(format!("\"{}\"", env!("CARGO_PKG_VERSION"))),
            datahost_plugin_api::host::PLUGIN_DIR_CALL => {
                let dir = ctx.engine.plugin_dir(&ctx.slug)?;
                serde_json::to_string(&dir.to_string_lossy()).map_err(|e| e.to_string())
            }
            "route.get" => route_get(&ctx.slug, input.as_str()),
            datahost_plugin_api::query::QUERY_CALL => {
                let q: datahost_plugin_api::query::RecordsQuery = serde_json::from_str(input.as_str())
                    .map_err(|e| format!("records.query takes {{dataset, collection, filters, limit}}: {e}"))?;
                let page = ctx.engine.query_records(&ctx.readable, &q)?;
                serde_json::to_string(&page).map_err(|e| e.to_string())
            }
            other => Err(format!("unknown host call `{other}`")),
        }
    })
}

/// For `plugins list`: one line per plugin and per failure.
pub fn describe(registry: &PluginRegistry) -> String {
    let mut out = String::new();
    for p in &registry.plugins {
        let routes: Vec<&str> = p.manifest.routes.iter().map(|r| r.path.as_str()).collect();
        out.push_str(&format!(
            "ok      {:<24} {:<8} v{:<8} {}  ({})\n",
            p.slug(),
            p.maturity().as_str(),
            p.manifest.version,
            if routes.is_empty() { "(reference dataset, no routes)".to_string() } else { routes.join(", ") },
            file_label(&p.file)
        ));
        let formats = Parser::formats_of(&p.manifest);
        if !formats.is_empty() {
            out.push_str(&format!("        {:<24} ingest: {}\n", "", formats.join(", ")));
        }
    }
    for f in &registry.failures {
        out.push_str(&format!(
            "FAILED  {:<24} {:<11} {}  ({})\n",
            f.plugin,
            f.stage,
            f.error,
            file_label(Path::new(&f.file))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(abi_major: u32, panic_strategy: &str) -> BuildInfo {
        BuildInfo {
            abi_major,
            sdk_version: datahost_plugin_api::SDK_VERSION.into(),
            rustc: "rustc".into(),
            panic_strategy: panic_strategy.into(),
            crate_name: "x".into(),
            crate_version: "1".into(),
        }
    }

    #[test]
    fn refuses_abort_builds_and_other_abi_majors() {
        assert_eq!(check_build(&build(1, "unwind")), Ok(()));
        assert_eq!(
            check_build(&build(1, "abort")).unwrap_err(),
            "built with panic = \"abort\"; plugins must unwind so a panic cannot kill the host"
        );
        assert_eq!(check_build(&build(2, "unwind")).unwrap_err(), "built for plugin ABI 2 but this host speaks 1");
    }

    #[test]
    fn a_plugin_of_an_older_sdk_loads_silently_and_a_newer_one_with_a_note() {
        let with_sdk = |v: &str| BuildInfo { sdk_version: v.into(), ..build(1, "unwind") };
        let (major, minor) = {
            let mut p = datahost_plugin_api::SDK_VERSION.split('.').map(|n| n.parse::<u64>().unwrap());
            (p.next().unwrap(), p.next().unwrap())
        };
        for older_or_same in [format!("{major}.{minor}.99"), format!("{major}.0.0"), "0.9.0".into()] {
            assert_eq!(newer_sdk_note(&with_sdk(&older_or_same)), None, "{older_or_same}");
            assert_eq!(check_build(&with_sdk(&older_or_same)), Ok(()));
        }
        for newer in [format!("{major}.{}.0", minor + 1), format!("{}.0.0", major + 1), "not-a-version".into()] {
            let note = newer_sdk_note(&with_sdk(&newer)).expect(&newer);
            assert!(note.contains(&format!("SDK {newer}")) && note.contains("it loads"), "{note}");
            // Loading is decided by the ABI major alone.
            assert_eq!(check_build(&with_sdk(&newer)), Ok(()));
        }
    }
}
