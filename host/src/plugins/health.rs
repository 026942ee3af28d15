//! The plugins whose last reload failed (`PluginHealth`): written by the engine watch (`lifecycle::watch`) and
//! read by `/ready` and the metrics (`http::readiness::degraded_plugins`).

use std::collections::BTreeSet;
use std::sync::Mutex;

/// Plugins whose last reload (re-init after a dataset change or engine recovery) failed: they keep serving their
/// previous data, which may be stale, until a reload succeeds. Written by `lifecycle/watch.rs`.
#[derive(Default)]
pub struct PluginHealth {
    reload_failures: Mutex<BTreeSet<String>>,
}

impl PluginHealth {
    /// Marks `slug` degraded (the error itself is logged by the caller).
    pub fn reload_failed(&self, slug: &str) {
        self.lock().insert(slug.to_string());
    }

    pub fn reloaded(&self, slug: &str) {
        self.lock().remove(slug);
    }

    /// Slugs whose last reload failed.
    pub fn failed_reloads(&self) -> Vec<String> {
        self.lock().iter().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.reload_failures.lock().unwrap_or_else(|e| e.into_inner())
    }
}
