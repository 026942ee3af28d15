//! The plugin loader and the host services plugins call back into.
//!
//! Loading is per file and isolated: a file that is not a plugin, has an incompatible ABI or build, an
//! invalid manifest, a slug or route that another plugin already claimed, or an `init` that fails or panics
//! is recorded as a failure naming the file and plugin, and every other plugin goes on loading.
//! Libraries are never unloaded (abi_stable leaks them on purpose), so reloading means a new file path.
//!
//! Submodules: `services` (the host services plugins call), `dispatch` (handler pool, deadlines, thread caps,
//! circuit breaker: how every request reaches a plugin), `outcome` (what a call produced), `served` (what an
//! instance serves, its `dataStatus`, the data generation), `process` (a plugin in a supervised child process),
//! `child` (`datahost plugin-host`, the child's side), `protocol` (the frames between them), `health` (the
//! plugins whose last reload failed) and `ingest` (`datahost ingest`: files through a plugin's parser into the
//! records engine). Depends on `engine` and `config` only.

pub mod child;
pub mod dispatch;
mod error;
pub mod health;
pub mod ingest;
pub mod outcome;
pub mod process;
pub mod protocol;
pub mod served;
mod services;

pub use error::PluginError;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use abi_stable::library::lib_header_from_path;
use abi_stable::std_types::RStr;
use datahost_plugin_api::abi::{FfiResponse, PluginModuleRef, ABI_MAJOR, OUTCOME_OK, OUTCOME_PANIC};
use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::manifest::validate;
use datahost_plugin_api::{BuildInfo, Manifest, Maturity, Migration};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::config::{Config, Isolation, PluginPolicy, Policies};
use crate::engine::Engine;
use dispatch::Callee;
use dispatch::{Guard, HandlerPool};
use outcome::{first_line, first_lines, outcome_of, HandleOutcome};
use process::Supervised;
use served::{publish, served_by, status_label, Served};
pub use services::host_services;
use services::{context, register_routes, register_token, RouteTarget};

/// Component schema names the host defines; plugins may not reuse them (the
/// assembled `/openapi.json` defines them, `http::openapi`).
pub const HOST_SCHEMAS: &[&str] =
    &["Error", "Health", "DatasetHealth", "Ready", "PluginStatus", "DataStatus", "OpenApiDocument"];

/// Where a plugin's `init`, `handle` and `call` run.
enum Runtime {
    /// In this process, through the library's function table.
    InProcess,
    /// In a supervised child process (`datahost plugin-host`), over a local socket.
    Process(Arc<Supervised>),
}

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
    served: Arc<RwLock<Served>>,
    runtime: Runtime,
    /// Thread slots, deadline and circuit breaker of this plugin's calls.
    pub guard: Guard,
}

/// `demo` when the plugin's current instance answers from any demo seed, else `ingested`.
fn data_status(plugin: &LoadedPlugin) -> &'static str {
    status_label(plugin.serves_demo())
}

/// How `dispatch::call` runs a request through a loaded plugin.
impl Callee for LoadedPlugin {
    fn guard(&self) -> &Guard {
        &self.guard
    }

    fn handle(&self, request_json: &str) -> HandleOutcome {
        LoadedPlugin::handle(self, request_json)
    }

    fn overran(&self) {
        LoadedPlugin::overran(self)
    }
}

/// How `route.get` (`services.rs`) reaches a serving plugin.
impl RouteTarget for LoadedPlugin {
    fn slug(&self) -> &str {
        LoadedPlugin::slug(self)
    }

    fn handle(&self, request_json: &str) -> HandleOutcome {
        LoadedPlugin::handle(self, request_json)
    }
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

impl LoadedPlugin {
    pub fn slug(&self) -> &str {
        &self.manifest.slug
    }

    pub fn maturity(&self) -> Maturity {
        self.manifest.maturity
    }

    pub fn isolation(&self) -> Isolation {
        match self.runtime {
            Runtime::InProcess => Isolation::InProcess,
            Runtime::Process(_) => Isolation::Process,
        }
    }

    /// Calls the plugin's `handle` with a JSON request envelope, on this thread (requests go through
    /// `dispatch::call`, which adds the deadline; `route.get` calls this directly, inside the caller's call). A 2xx
    /// body is labelled with the `dataStatus` of the instance serving now as it is copied out of the plugin.
    pub fn handle(&self, request_json: &str) -> HandleOutcome {
        match &self.runtime {
            Runtime::InProcess => {
                let FfiResponse { outcome, status, body, headers_json } =
                    (self.module.handle())(RStr::from(request_json));
                outcome_of(outcome, status, &body, headers_json.as_str(), data_status(self))
            }
            // The work is the child's: this thread only waits for its answer.
            Runtime::Process(child) => dispatch::blocking(|| child.handle(request_json, data_status(self))),
        }
    }

    /// A call overran its deadline: a plugin process is presumed hung and is killed (its supervisor restarts
    /// it); an in-process handler cannot be stopped and keeps its thread (`dispatch.rs`).
    pub fn overran(&self) {
        if let Runtime::Process(child) = &self.runtime {
            child.overran();
        }
    }

    /// Re-runs `init` (after a dataset it reads changed). The SDK swaps the new state in atomically.
    pub fn reinit(&self) -> Result<(), PluginError> {
        if let Runtime::Process(child) = &self.runtime {
            return child.reinit();
        }
        let services = host_services(self.token);
        let about_to_serve = context(self.token).map(|c| served_by(&c.engine, &self.manifest)).unwrap_or_default();
        PluginError::from_ffi((self.module.init())(services, RStr::from(self.config_json.as_str())))?;
        publish(&self.served, about_to_serve);
        Ok(())
    }

    /// Whether the plugin is degraded now: its breaker is not closed, or its process is not up.
    pub fn is_degraded(&self) -> bool {
        self.guard.breaker_state() != "closed" || matches!(&self.runtime, Runtime::Process(child) if !child.is_up())
    }

    /// This plugin's state for `/health`: `status` is `degraded` while its breaker is not closed or its process
    /// is not up.
    pub fn health(&self) -> serde_json::Value {
        let breaker = self.guard.breaker_state();
        let mut doc = serde_json::json!({
            "isolation": self.isolation().as_str(),
            "breaker": breaker,
            "overdueCalls": self.guard.overdue(),
        });
        let mut degraded = breaker != "closed";
        if let Runtime::Process(child) = &self.runtime {
            let h = child.health();
            degraded |= h.status != "up";
            doc["process"] = h.status.into();
            doc["restarts"] = h.restarts.into();
            doc["lastExit"] = h.last_exit.into();
        }
        doc["status"] = if degraded { "degraded" } else { "ok" }.into();
        doc
    }

    /// Whether the current instance answers from any demo seed (its own dataset or one it derives from). The
    /// `companies` reference dataset only resolves names and carries no rows of its own.
    pub fn serves_demo(&self) -> bool {
        self.served
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|(d, info)| d != crate::engine::companies::DATASET && info.is_none())
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
    pub fn call(&self, name: &str, input: &str) -> Result<String, PluginError> {
        match &self.runtime {
            Runtime::InProcess => PluginError::from_ffi((self.module.call())(RStr::from(name), RStr::from(input))),
            Runtime::Process(child) => child.call(name, input),
        }
    }

    /// The plugin's ingest entry point.
    pub fn ingest(&self, format: &str, bytes: &[u8], options: &str) -> Result<String, PluginError> {
        PluginError::from_ffi((self.module.ingest())(RStr::from(format), bytes.into(), RStr::from(options)))
    }

    /// Every dataset this plugin reads (its own and others').
    pub fn reads(&self) -> impl Iterator<Item = &str> {
        self.manifest.datasets.iter().chain(&self.manifest.reads).chain(&self.manifest.also_serves).map(String::as_str)
    }
}

/// All plugins of one host, the files that failed, and the handler threads their calls run on.
pub struct PluginRegistry {
    pub plugins: Vec<Arc<LoadedPlugin>>,
    pub failures: Vec<LoadFailure>,
    pub pool: HandlerPool,
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
pub fn plugin_files(dir: &Path) -> Result<Vec<PathBuf>, PluginError> {
    let folder_error = |source| PluginError::Folder { path: dir.to_path_buf(), source };
    let entries = std::fs::read_dir(dir).map_err(folder_error)?;
    // An entry that cannot be listed fails the listing: skipping it would leave its plugin out unsaid.
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.map(|e| e.path()).map_err(folder_error))
        .filter(|p| p.as_ref().map_or(true, |p| p.extension().is_some_and(|x| x == "so" || x == "dylib" || x == "dll")))
        .collect::<Result<_, _>>()?;
    files.sort();
    Ok(files)
}

/// Whether a library that is no plugin is a Rust proc-macro (it exports `__rustc_proc_macro_decls_<hash>__`). A
/// cargo build folder such as `target/release`, the default `plugins.dir` of a source build, holds the SDK's derive
/// macros as one: a compiler plugin, skipped rather than reported as a broken dataset. Only libraries that failed
/// to open as plugins are read for it, so start-up reads no plugin whole.
fn is_proc_macro_library(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|bytes| memchr::memmem::find(&bytes, b"__rustc_proc_macro_decls_").is_some())
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
    let module = load_module(path).map_err(|(stage, e)| fail(&name, stage, e))?;
    let build: BuildInfo = serde_json::from_str(&(module.build_info())().into_string())
        .map_err(|e| fail(&name, "build-info", format!("unreadable build info: {e}")))?;
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

/// Why a file could not be opened as a plugin library, with the dynamic loader's own reason where it gave one
/// ("invalid ELF header", "cannot allocate memory in static TLS block"): abi_stable's message puts it on the
/// third of its lines, so it is read from the error itself.
fn not_a_plugin_library(error: &abi_stable::library::LibraryError) -> String {
    let reason = match error {
        abi_stable::library::LibraryError::OpenError { err, .. } => err.to_string(),
        other => first_line(&other.to_string()),
    };
    format!("not a datahost plugin library: {reason}")
}

/// Opens a plugin library and checks its build (in the host, and in a `plugin-host` child). The error names
/// the stage that failed.
pub fn load_module(path: &Path) -> Result<PluginModuleRef, (&'static str, String)> {
    let header = lib_header_from_path(path).map_err(|e| ("open", not_a_plugin_library(&e)))?;
    let module = header
        .init_root_module::<PluginModuleRef>()
        .map_err(|e| ("abi", format!("incompatible plugin ABI: {}", first_lines(&e.to_string(), 6))))?;
    let build: BuildInfo = serde_json::from_str(&(module.build_info())().into_string())
        .map_err(|e| ("build-info", format!("unreadable build info: {e}")))?;
    check_build(&build).map_err(|e| ("build-info", e.to_string()))?;
    Ok(module)
}

/// Refuses plugins this host cannot run safely: another ABI major, or a build that aborts on panic (a panic
/// would then kill the host instead of becoming a 500).
pub fn check_build(build: &BuildInfo) -> Result<(), PluginError> {
    if build.abi_major != ABI_MAJOR {
        return Err(PluginError::AbiMismatch { found: build.abi_major });
    }
    if build.panic_strategy != "unwind" {
        return Err(PluginError::AbortsOnPanic(build.panic_strategy.clone()));
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
        let options = match serde_json::to_string(&IngestOptions { file_name: file_name.to_string() }) {
            Ok(options) => options,
            Err(e) => return ParseOutcome::Refused(Refusal::new(format!("cannot encode the parse options: {e}"))),
        };
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

    /// Whether a plugin with this slug was found (loaded, or failed with its manifest read).
    pub fn knows(&self, slug: &str) -> bool {
        self.candidates.iter().any(|c| c.manifest.slug == slug) || self.failures.iter().any(|f| f.plugin == slug)
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
    policies: &Policies,
) -> Result<PluginRegistry, PluginError> {
    Ok(init_all(open_all(dir, engine, disabled)?, engine, settings, policies))
}

/// Opens and validates every plugin library in `dir` and registers their seeds. Runs no plugin `init`.
pub fn open_all(dir: &Path, engine: &Arc<Engine>, disabled: &[String]) -> Result<OpenedPlugins, PluginError> {
    let files = plugin_files(dir)?;
    let mut failures = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut slugs = HashSet::new();
    let mut routes: HashMap<String, String> = HashMap::new();
    let mut schema_names: HashMap<String, String> = HashMap::new();

    for file in files {
        let candidate = match open(&file) {
            Ok(c) => c,
            Err(f) if f.stage == "open" && is_proc_macro_library(&file) => {
                tracing::debug!(file = %file.display(), "a Rust proc-macro library, not a plugin: skipped");
                continue;
            }
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
            HOST_SCHEMAS
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
            if let Some(index) = &candidate.manifest.word_index {
                if let Err(e) = engine.declare_word_index(dataset, index) {
                    tracing::warn!(plugin = %slug, dataset = %dataset, error = %e, "word index not built");
                }
            }
        }
        candidates.push(candidate);
    }
    Ok(OpenedPlugins { candidates, failures })
}

/// Runs `init` of every opened plugin; those that fail join the failures.
/// In process mode `init` runs in the plugin's child process, which is started here.
pub fn init_all(
    opened: OpenedPlugins,
    engine: &Arc<Engine>,
    settings: &BTreeMap<String, serde_json::Value>,
    policies: &Policies,
) -> PluginRegistry {
    let OpenedPlugins { candidates, mut failures } = opened;
    let mut plugins = Vec::new();
    // Every plugin's `init` runs at once on a few threads (most of the start-up is here: indexes, parsed seeds);
    // they are independent by contract (`Host::get_route` is for serving, not `init`), and the plugins are then
    // registered in file order as before.
    let inits: Vec<Init> = candidates
        .into_iter()
        .map(|c| {
            let config_json = settings.get(&c.manifest.slug).map(|v| v.to_string()).unwrap_or_else(|| "{}".into());
            let policy = policies.for_slug(&c.manifest.slug);
            Init { token: register_token(engine.clone(), &c.manifest), config_json, policy, c }
        })
        .collect();
    let outcomes = in_parallel(&inits, |i| {
        let started = Instant::now();
        let served = Arc::new(RwLock::new(Served::new()));
        let result = match i.policy.isolation {
            Isolation::InProcess => {
                let about_to_serve = served_by(engine, &i.c.manifest);
                let reply = (i.c.module.init())(host_services(i.token), RStr::from(i.config_json.as_str()));
                PluginError::from_ffi(reply).map(|_| {
                    *served.write().unwrap_or_else(|e| e.into_inner()) = about_to_serve;
                    Runtime::InProcess
                })
            }
            Isolation::Process => Supervised::start(
                i.c.file.clone(),
                i.token,
                i.c.manifest.clone(),
                i.config_json.clone(),
                i.policy.clone(),
                served.clone(),
            )
            .map(Runtime::Process),
        };
        (result, served, started.elapsed())
    });
    for (Init { token, config_json, policy, c }, (result, served, took)) in inits.into_iter().zip(outcomes) {
        let slug = c.manifest.slug.clone();
        match result {
            Ok(runtime) => {
                tracing::info!(plugin = %slug, file = %c.file.display(), version = %c.manifest.version,
                    isolation = policy.isolation.as_str(), ms = took.as_millis() as u64, "plugin loaded");
                let plugin = Arc::new(LoadedPlugin {
                    token,
                    file: c.file,
                    manifest: c.manifest,
                    migrations: c.migrations,
                    build: c.build,
                    module: c.module,
                    config_json,
                    served,
                    runtime,
                    guard: Guard::new(&slug, policy),
                });
                register_routes(plugin.clone(), plugin.manifest.routes.iter().map(|r| r.path.clone()));
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
    PluginRegistry { plugins, failures, pool: HandlerPool::new(policies.handler_threads, policies.running_calls) }
}

/// What one plugin's `init` needs, prepared in file order.
struct Init {
    token: u64,
    config_json: String,
    policy: PluginPolicy,
    c: Candidate,
}

/// `f` over every item on up to `available_parallelism` threads; the outcomes in the items' order.
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(items.len()).max(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut outcomes: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    let done: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break mine };
                        mine.push((i, f(item)));
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    for (i, r) in done.into_iter().flatten() {
        outcomes[i] = Some(r);
    }
    outcomes.into_iter().map(|r| r.expect("every item ran")).collect()
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

/// Opens every plugin library on a blocking thread (dlopen is synchronous) and registers their seeds.
pub async fn open_plugins(config: &Config, engine: &Arc<Engine>) -> Result<OpenedPlugins, PluginError> {
    let dir = config.plugins_dir();
    let engine = engine.clone();
    let disabled = config.plugins.disabled.clone();
    tokio::task::spawn_blocking(move || open_all(&dir, &engine, &disabled))
        .await
        .map_err(|e| PluginError::LoaderCrashed(e.to_string()))?
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
        assert!(check_build(&build(1, "unwind")).is_ok());
        let abort = check_build(&build(1, "abort")).unwrap_err();
        assert!(matches!(&abort, PluginError::AbortsOnPanic(s) if s == "abort"), "{abort:?}");
        assert_eq!(
            abort.to_string(),
            "built with panic = \"abort\"; plugins must unwind so a panic cannot kill the host"
        );
        let other = check_build(&build(2, "unwind")).unwrap_err();
        assert!(matches!(other, PluginError::AbiMismatch { found: 2 }), "{other:?}");
        assert_eq!(other.to_string(), "built for plugin ABI 2 but this host speaks 1");
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
            assert!(check_build(&with_sdk(&older_or_same)).is_ok());
        }
        for newer in [format!("{major}.{}.0", minor + 1), format!("{}.0.0", major + 1), "not-a-version".into()] {
            let note = newer_sdk_note(&with_sdk(&newer)).expect(&newer);
            assert!(note.contains(&format!("SDK {newer}")) && note.contains("it loads"), "{note}");
            // Loading is decided by the ABI major alone.
            assert!(check_build(&with_sdk(&newer)).is_ok());
        }
    }
}
