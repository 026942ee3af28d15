//! The PostgreSQL records engine.

use std::sync::Arc;

use crate::app::AppState;
use crate::config::{redact_url, Config};
use crate::engine::Engine;
use crate::keys::{FileKeyStore, KeyRecord, KeySource};

pub struct PgEngine {}

impl PgEngine {
    pub async fn connect(config: &Config) -> Result<Self, String> {
        Err(format!("the PostgreSQL records engine at {} is not available in this build", redact_url(&config.engine.url)))
    }

    pub async fn prepare(&self, _config: &Config, _engine: &Arc<Engine>) -> Result<(), String> {
        Ok(())
    }

    pub fn plugin_query(&self, _schema: &str, _request_json: &str) -> Result<String, String> {
        Err("not implemented".into())
    }
}

pub struct PgKeys {}

impl PgKeys {
    pub async fn load(&self) -> Result<Vec<KeyRecord>, String> {
        Err("not implemented".into())
    }
    pub async fn insert(&self, _r: KeyRecord) -> Result<(), String> {
        Err("not implemented".into())
    }
    pub async fn revoke(&self, _id: &str) -> Result<bool, String> {
        Err("not implemented".into())
    }
}

/// The key store for this config.
pub fn key_source(config: &Config, _engine: &Arc<Engine>) -> KeySource {
    KeySource::File(FileKeyStore::new(config.keys.file.clone()))
}

/// Background upkeep: reloads keys when the store changes.
pub fn spawn_background(state: Arc<AppState>) {
    let source = key_source(&state.config, &state.engine);
    let interval = std::time::Duration::from_secs(state.config.engine.reload_interval_secs.max(1));
    tokio::spawn(async move {
        let mut last = source.change_token();
        loop {
            tokio::time::sleep(interval).await;
            let token = source.change_token();
            if token.is_some() && token == last {
                continue;
            }
            match source.refresh(&state.keys).await {
                Ok(()) => last = token,
                Err(e) => tracing::warn!(error = %e, "cannot reload API keys; keeping the previous set"),
            }
        }
    });
}

impl PgEngine {
    pub async fn migrate_cli(&self, _config: &Config, _engine: &Arc<Engine>) -> Result<(), String> {
        Err("not implemented".into())
    }
    pub async fn load_seeds_cli(&self, _config: &Config, _engine: &Arc<Engine>) -> Result<(), String> {
        Err("not implemented".into())
    }
}
