//! What a plugin instance serves: per dataset it reads, the ingest info it was built from (`Served`,
//! `served_by`), its `dataStatus` label, and the process-wide data generation that every instance published
//! moves on (`publish`), which keys the response cache.

use std::sync::RwLock;

use datahost_plugin_api::ingest::IngestedInfo;
use datahost_plugin_api::Manifest;

use crate::engine::Engine;

/// Per dataset a plugin instance reads, the ingest info it was built from (`None`: demo seed).
pub type Served = Vec<(String, Option<IngestedInfo>)>;

/// The process-wide data generation: moved on by every plugin instance published (start, re-init, process
/// restart), under the lock that publishes what the instance serves. The response cache keys answers by it, so
/// no answer made before a data change is served after it.
static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A plugin instance was published: answers made before are not to be served again.
pub fn next_generation() {
    GENERATION.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
}

/// The current data generation (`next_generation`).
pub fn data_generation() -> u64 {
    GENERATION.load(std::sync::atomic::Ordering::Acquire)
}

/// Records what a newly initialised instance serves, and moves the response cache to a new data generation
/// under the same lock: whoever sees the new `served` (`/health`, the `dataStatus` label) also finds none of
/// the previous instance's answers (`http/response_cache.rs`).
pub fn publish(served: &RwLock<Served>, about_to_serve: Served) {
    let mut current = served.write().unwrap_or_else(|e| e.into_inner());
    *current = about_to_serve;
    next_generation();
}

/// Per dataset a plugin reads, what the engine holds right now (before the plugin loads it).
/// The datasets an instance initialised now serves, with their ingest info (`None`: the demo seed). Datasets
/// of `also_serves` count only once ingested; with any of them ingested, the plugin's own demo seed is not
/// served (see `Manifest::also_serves`).
pub fn served_by(engine: &Engine, manifest: &Manifest) -> Served {
    let others: Vec<(String, Option<IngestedInfo>)> =
        manifest.also_serves.iter().filter_map(|d| engine.ingested(d).map(|i| (d.clone(), Some(i)))).collect();
    let serving_others = !others.is_empty();
    let own = manifest.datasets.iter().map(|d| (d.clone(), engine.ingested(d)));
    own.filter(|(_, info)| !serving_others || info.is_some())
        .chain(manifest.reads.iter().map(|d| (d.clone(), engine.ingested(d))))
        .chain(others)
        .collect()
}

/// `demo` when an instance answers from any demo seed, else `ingested` (the `dataStatus` label).
pub fn status_label(serves_demo: bool) -> &'static str {
    if serves_demo {
        "demo"
    } else {
        "ingested"
    }
}
