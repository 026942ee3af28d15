//! Versioned migrations of the PostgreSQL engine: the host's own (datasets, keys, the records tables, sync
//! state), applied in order and once under an advisory lock, and each plugin's in its own schema.

use datahost_plugin_api::Migration;

use super::pool::{plugin_schema, PgEngine};
use crate::engine::error::{postgres as pg_err, EngineError};

/// The host's migrations, applied in order, each once.
const HOST_MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "datasets and api keys",
        r#"
        CREATE TABLE IF NOT EXISTS datahost.datasets (
            name       text PRIMARY KEY,
            snapshot   text NOT NULL,
            checksum   text NOT NULL,
            source     text NOT NULL DEFAULT 'seed',
            updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE IF NOT EXISTS datahost.api_keys (
            id         text PRIMARY KEY,
            hash       text NOT NULL UNIQUE,
            tier       text NOT NULL CHECK (tier IN ('free', 'pro', 'rapidapi', 'owner')),
            label      text NOT NULL DEFAULT '',
            created_at timestamptz NOT NULL DEFAULT now(),
            revoked_at timestamptz
        );
        CREATE TABLE IF NOT EXISTS datahost.plugin_migrations (
            plugin     text NOT NULL,
            id         integer NOT NULL,
            name       text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (plugin, id)
        );
        "#,
    ),
    (
        2,
        "notify on dataset change",
        r#"
        CREATE OR REPLACE FUNCTION datahost.notify_dataset() RETURNS trigger AS $$
        BEGIN
            PERFORM pg_notify('datahost_datasets', NEW.name);
            RETURN NEW;
        END;
        $$ LANGUAGE plpgsql;
        DROP TRIGGER IF EXISTS datasets_notify ON datahost.datasets;
        CREATE TRIGGER datasets_notify AFTER INSERT OR UPDATE ON datahost.datasets
            FOR EACH ROW EXECUTE FUNCTION datahost.notify_dataset();
        "#,
    ),
    (3, "ingested records and their provenance", super::records::MIGRATION),
    (4, "sync state, raw file provenance and freshness", SYNC_MIGRATION),
];

impl PgEngine {
    /// Applies the host migrations that have not run yet. Safe to run concurrently from several replicas:
    /// a transaction-level advisory lock serialises them.
    pub async fn migrate(&self) -> Result<Vec<String>, EngineError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_err("migrating"))?;
        tx.batch_execute(
            "SELECT pg_advisory_xact_lock(727172);
             CREATE SCHEMA IF NOT EXISTS datahost;
             CREATE TABLE IF NOT EXISTS datahost.migrations (
                 id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());",
        )
        .await
        .map_err(pg_err("migration bookkeeping"))?;
        let applied: Vec<i32> = tx
            .query("SELECT id FROM datahost.migrations", &[])
            .await
            .map_err(pg_err("migrating"))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut done = Vec::new();
        for (id, name, sql) in HOST_MIGRATIONS {
            if applied.contains(id) {
                continue;
            }
            tx.batch_execute(sql).await.map_err(pg_err(format!("host migration {id} ({name})")))?;
            tx.execute("INSERT INTO datahost.migrations (id, name) VALUES ($1, $2)", &[id, name])
                .await
                .map_err(pg_err("migrating"))?;
            done.push(format!("host {id}: {name}"));
        }
        tx.commit().await.map_err(pg_err("migrating"))?;
        Ok(done)
    }

    /// Applies one plugin's migrations in its own schema.
    pub async fn migrate_plugin(&self, slug: &str, migrations: &[Migration]) -> Result<Vec<String>, EngineError> {
        if migrations.is_empty() {
            return Ok(Vec::new());
        }
        let schema = plugin_schema(slug);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg_err("migrating"))?;
        tx.batch_execute(&format!("SELECT pg_advisory_xact_lock(727173); CREATE SCHEMA IF NOT EXISTS \"{schema}\";"))
            .await
            .map_err(pg_err("migrating"))?;
        let applied: Vec<i32> = tx
            .query("SELECT id FROM datahost.plugin_migrations WHERE plugin = $1", &[&slug])
            .await
            .map_err(pg_err("migrating"))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut done = Vec::new();
        let mut sorted = migrations.to_vec();
        sorted.sort_by_key(|m| m.id);
        for m in sorted {
            if applied.contains(&m.id) {
                continue;
            }
            tx.batch_execute(&format!("SET LOCAL search_path TO \"{schema}\", public; {}", m.sql))
                .await
                .map_err(pg_err(format!("plugin {slug} migration {} ({})", m.id, m.name)))?;
            tx.execute(
                "INSERT INTO datahost.plugin_migrations (plugin, id, name) VALUES ($1, $2, $3)",
                &[&slug, &m.id, &m.name],
            )
            .await
            .map_err(pg_err("migrating"))?;
            done.push(format!("{slug} {}: {}", m.id, m.name));
        }
        tx.commit().await.map_err(pg_err("migrating"))?;
        Ok(done)
    }

    /// Applies each plugin's own-table migrations in its schema.
    pub async fn migrate_plugins(&self, plugins: &[(String, Vec<Migration>)]) -> Result<Vec<String>, EngineError> {
        let mut done = Vec::new();
        for (slug, migrations) in plugins {
            done.extend(self.migrate_plugin(slug, migrations).await?);
        }
        Ok(done)
    }
}

/// Host migration 4: the sync state tables (`sync::state`) in the `datahost` schema.
pub const SYNC_MIGRATION: &str = r#"
CREATE TABLE IF NOT EXISTS datahost.sync_state (
    source     text NOT NULL,
    key        text NOT NULL,
    value      text NOT NULL,
    updated_at text NOT NULL,
    PRIMARY KEY (source, key)
);
CREATE TABLE IF NOT EXISTS datahost.sync_validators (
    url           text PRIMARY KEY,
    source        text NOT NULL,
    etag          text,
    last_modified text,
    sha256        text NOT NULL,
    checked_at    text NOT NULL
);
CREATE TABLE IF NOT EXISTS datahost.sync_files (
    id          bigserial PRIMARY KEY,
    source      text NOT NULL,
    dataset     text NOT NULL,
    url         text NOT NULL,
    path        text NOT NULL,
    sha256      text NOT NULL,
    size        bigint NOT NULL,
    fetched_at  text NOT NULL,
    status      text NOT NULL,
    ingested_at text,
    note        text
);
CREATE INDEX IF NOT EXISTS sync_files_url ON datahost.sync_files (url);
CREATE INDEX IF NOT EXISTS sync_files_status ON datahost.sync_files (source, status);
CREATE TABLE IF NOT EXISTS datahost.sync_datasets (
    dataset         text PRIMARY KEY,
    last_attempt_at text,
    last_success_at text,
    last_error      text
);
"#;
