//! The PostgreSQL records engine: connection pool, versioned migrations (the host's, and each plugin's in its
//! own schema), seed loading, the key table, parameterised plugin queries, and the background task that keeps
//! keys and datasets fresh (LISTEN/NOTIFY, with a periodic check as the fallback) and tracks engine health.
//!
//! Dataset snapshots are stored as text with a SHA-256 checksum, so what a replica serves is byte-for-byte what
//! the embedded engine serves, and `load-seeds` can tell "unchanged" from "changed" without comparing documents.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use serde_json::{json, Value};
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::access::keys::{FileKeyStore, KeyRecord, KeySource};
use crate::config::{redact_url, Config};
use crate::engine::Engine;
use datahost_plugin_api::Migration;

/// Channel the datasets trigger notifies on.
pub const DATASET_CHANNEL: &str = "datahost_datasets";

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
    (3, "ingested records and their provenance", crate::engine::postgres::records::MIGRATION),
    (4, "sync state, raw file provenance and freshness", crate::sync::state::PG_MIGRATION),
];

pub struct PgEngine {
    pool: Pool,
    pg_config: tokio_postgres::Config,
    /// TLS as `sslmode` in `engine.url` says (`tls.rs`), for the pool and the LISTEN connection.
    tls: MakeRustlsConnect,
    address: String,
    query_timeout: Duration,
    connect_timeout: Duration,
}

use crate::engine::records::checksum;

/// The schema a plugin's tables live in.
pub fn plugin_schema(slug: &str) -> String {
    format!("plugin_{}", slug.replace('-', "_"))
}

impl PgEngine {
    /// Builds the pool and checks that the server answers.
    pub async fn connect(config: &Config) -> Result<Self, String> {
        let address = redact_url(&config.engine.url);
        let connect_timeout = Duration::from_secs(config.engine.connect_timeout_secs.max(1));
        let tls = crate::tls::PgTls::from_url(&config.engine.url).map_err(|e| format!("engine.url {address}: {e}"))?;
        let mut pg_config = tokio_postgres::Config::from_str(&tls.url)
            .map_err(|e| format!("engine.url {address} is not a valid PostgreSQL URL: {e}"))?;
        pg_config.ssl_mode(tls.tokio_mode());
        let ca_file = Some(config.engine.tls_ca_file.as_path()).filter(|p| !p.as_os_str().is_empty());
        let connector = tls.connector(ca_file).map_err(|e| format!("engine TLS: {e}"))?;
        pg_config.connect_timeout(connect_timeout);
        pg_config.application_name("datahost");
        let manager = Manager::from_config(
            pg_config.clone(),
            connector.clone(),
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(config.engine.pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(connect_timeout))
            .create_timeout(Some(connect_timeout))
            .recycle_timeout(Some(connect_timeout))
            .build()
            .map_err(|e| format!("cannot build the PostgreSQL pool for {address}: {e}"))?;
        let engine = Self {
            pool,
            pg_config,
            tls: connector,
            address: address.clone(),
            query_timeout: Duration::from_secs(config.engine.query_timeout_secs.max(1)),
            connect_timeout,
        };
        Ok(engine)
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Object, String> {
        pooled(&self.pool, &self.address).await
    }

    /// Runs a future under the query timeout.
    async fn timed<T>(
        &self,
        what: &str,
        fut: impl std::future::Future<Output = Result<T, String>>,
    ) -> Result<T, String> {
        match tokio::time::timeout(self.query_timeout, fut).await {
            Ok(r) => r,
            Err(_) => Err(format!(
                "{what}: the records engine at {} did not answer within {:?}",
                self.address, self.query_timeout
            )),
        }
    }

    /// Checks that the engine answers.
    pub async fn ping(&self) -> Result<(), String> {
        self.timed("ping", async {
            let c = self.client().await?;
            c.simple_query("SELECT 1").await.map_err(|e| e.to_string())?;
            Ok(())
        })
        .await
    }

    /// Applies the host migrations that have not run yet. Safe to run concurrently from several replicas:
    /// a transaction-level advisory lock serialises them.
    pub async fn migrate(&self) -> Result<Vec<String>, String> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(|e| e.to_string())?;
        tx.batch_execute(
            "SELECT pg_advisory_xact_lock(727172);
             CREATE SCHEMA IF NOT EXISTS datahost;
             CREATE TABLE IF NOT EXISTS datahost.migrations (
                 id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());",
        )
        .await
        .map_err(|e| format!("migration bookkeeping failed: {e}"))?;
        let applied: Vec<i32> = tx
            .query("SELECT id FROM datahost.migrations", &[])
            .await
            .map_err(|e| e.to_string())?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut done = Vec::new();
        for (id, name, sql) in HOST_MIGRATIONS {
            if applied.contains(id) {
                continue;
            }
            tx.batch_execute(sql).await.map_err(|e| format!("host migration {id} ({name}) failed: {e}"))?;
            tx.execute("INSERT INTO datahost.migrations (id, name) VALUES ($1, $2)", &[id, name])
                .await
                .map_err(|e| e.to_string())?;
            done.push(format!("host {id}: {name}"));
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(done)
    }

    /// Applies one plugin's migrations in its own schema.
    pub async fn migrate_plugin(&self, slug: &str, migrations: &[Migration]) -> Result<Vec<String>, String> {
        if migrations.is_empty() {
            return Ok(Vec::new());
        }
        let schema = plugin_schema(slug);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(|e| e.to_string())?;
        tx.batch_execute(&format!("SELECT pg_advisory_xact_lock(727173); CREATE SCHEMA IF NOT EXISTS \"{schema}\";"))
            .await
            .map_err(|e| e.to_string())?;
        let applied: Vec<i32> = tx
            .query("SELECT id FROM datahost.plugin_migrations WHERE plugin = $1", &[&slug])
            .await
            .map_err(|e| e.to_string())?
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
                .map_err(|e| format!("plugin {slug} migration {} ({}) failed: {e}", m.id, m.name))?;
            tx.execute(
                "INSERT INTO datahost.plugin_migrations (plugin, id, name) VALUES ($1, $2, $3)",
                &[&slug, &m.id, &m.name],
            )
            .await
            .map_err(|e| e.to_string())?;
            done.push(format!("{slug} {}: {}", m.id, m.name));
        }
        tx.commit().await.map_err(|e| e.to_string())?;
        Ok(done)
    }

    /// Writes a dataset snapshot unless the stored one is identical. Returns whether it changed.
    pub async fn put_dataset(&self, name: &str, snapshot: &str, source: &str) -> Result<bool, String> {
        let sum = checksum(snapshot);
        let client = self.client().await?;
        let n = client
            .execute(
                "INSERT INTO datahost.datasets (name, snapshot, checksum, source) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (name) DO UPDATE SET snapshot = EXCLUDED.snapshot, checksum = EXCLUDED.checksum,
                     source = EXCLUDED.source, updated_at = now()
                 WHERE datahost.datasets.checksum <> EXCLUDED.checksum
                   -- a seed never replaces ingested records
                   AND NOT (EXCLUDED.source = 'seed' AND datahost.datasets.source = 'ingest')",
                &[&name, &snapshot, &sum, &source],
            )
            .await
            .map_err(|e| format!("storing dataset {name}: {e}"))?;
        Ok(n > 0)
    }

    /// Inserts a dataset only when it is missing (start-up seeding never overwrites operator data).
    pub async fn put_dataset_if_missing(&self, name: &str, snapshot: &str) -> Result<bool, String> {
        let client = self.client().await?;
        let n = client
            .execute(
                "INSERT INTO datahost.datasets (name, snapshot, checksum, source) VALUES ($1, $2, $3, 'seed')
                 ON CONFLICT (name) DO NOTHING",
                &[&name, &snapshot, &checksum(snapshot)],
            )
            .await
            .map_err(|e| format!("seeding dataset {name}: {e}"))?;
        Ok(n > 0)
    }

    /// Checksums of every stored dataset.
    pub async fn dataset_checksums(&self) -> Result<HashMap<String, String>, String> {
        self.timed("listing datasets", async {
            let client = self.client().await?;
            let rows = client
                .query("SELECT name, checksum FROM datahost.datasets", &[])
                .await
                .map_err(|e| format!("listing datasets: {e}"))?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })
        .await
    }

    /// One stored dataset snapshot.
    pub async fn fetch_dataset(&self, name: &str) -> Result<Option<String>, String> {
        self.timed("reading a dataset", async {
            let client = self.client().await?;
            let row = client
                .query_opt("SELECT snapshot FROM datahost.datasets WHERE name = $1", &[&name])
                .await
                .map_err(|e| format!("reading dataset {name}: {e}"))?;
            Ok(row.map(|r| r.get(0)))
        })
        .await
    }

    /// Runs a plugin's parameterised query. `{schema}` in the SQL is replaced by the plugin's schema.
    /// Parameters are bound as text, int8, float8, bool or NULL by their JSON type; cast in SQL where needed.
    pub fn plugin_query(&self, slug: &str, request_json: &str) -> Result<String, String> {
        #[derive(serde::Deserialize)]
        struct QueryRequest {
            sql: String,
            #[serde(default)]
            params: Vec<Value>,
        }
        let req: QueryRequest =
            serde_json::from_str(request_json).map_err(|e| format!("query request is not valid: {e}"))?;
        let sql = req.sql.replace("{schema}", &format!("\"{}\"", plugin_schema(slug)));
        let fut = async {
            self.timed("plugin query", async {
                let client = self.client().await?;
                let params = bind_params(&req.params);
                let refs: Vec<(&(dyn ToSql + Sync), Type)> =
                    params.iter().map(|(v, t)| (v.as_ref() as &(dyn ToSql + Sync), t.clone())).collect();
                let rows = client.query_typed(&sql, &refs).await.map_err(|e| format!("query failed: {e}"))?;
                let mut out = Vec::with_capacity(rows.len());
                for row in &rows {
                    out.push(row_to_json(row)?);
                }
                Ok(json!({ "rows": out }).to_string())
            })
            .await
        };
        block_on(fut)
    }

    pub fn keys(&self) -> PgKeys {
        PgKeys { pool: self.pool.clone(), address: self.address.clone() }
    }

    /// Applies each plugin's own-table migrations in its schema.
    pub async fn migrate_plugins(&self, plugins: &[(String, Vec<Migration>)]) -> Result<Vec<String>, String> {
        let mut done = Vec::new();
        for (slug, migrations) in plugins {
            done.extend(self.migrate_plugin(slug, migrations).await?);
        }
        Ok(done)
    }

    /// Brings the engine's dataset cache in line with PostgreSQL: seeds datasets that are missing (when
    /// `engine.seed_on_start`), then loads every stored snapshot. Runs before any plugin `init`.
    pub async fn sync_datasets(&self, config: &Config, engine: &Engine) -> Result<(), String> {
        if config.engine.seed_on_start {
            for (name, snapshot) in engine.seeds() {
                if self.put_dataset_if_missing(&name, &snapshot).await? {
                    tracing::info!(dataset = %name, "seeded missing dataset into the records engine");
                }
            }
        }
        let sums = self.dataset_checksums().await?;
        for name in sums.keys() {
            if let Some(snapshot) = self.fetch_dataset(name).await? {
                engine.set_dataset_with_checksum(name, Arc::from(snapshot.as_str()), sums[name].clone());
            }
        }
        Ok(())
    }

    /// Opens a dedicated connection that LISTENs for dataset changes and wakes `notify` on each one.
    pub async fn listen(&self, notify: Arc<tokio::sync::Notify>) -> Result<(), String> {
        let (client, mut connection) = self
            .pg_config
            .connect(self.tls.clone())
            .await
            .map_err(|e| format!("LISTEN connection to {}: {e}", self.address))?;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let driver = tokio::spawn(async move {
            let mut stream = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
            use futures_util::StreamExt;
            while let Some(msg) = stream.next().await {
                match msg {
                    Ok(tokio_postgres::AsyncMessage::Notification(_)) => {
                        let _ = tx.send(());
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        });
        client.batch_execute(&format!("LISTEN {DATASET_CHANNEL}")).await.map_err(|e| e.to_string())?;
        while rx.recv().await.is_some() {
            notify.notify_one();
        }
        driver.abort();
        drop(client);
        Err("LISTEN connection closed".into())
    }

    pub fn query_timeout(&self) -> Duration {
        self.query_timeout
    }

    pub fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }
}

/// Runs a future to completion from synchronous code that may sit on a runtime thread (plugin `init` at start,
/// the CLI) or on no runtime at all (a plugin's `handle` on a `plugin-handler` thread).
pub(crate) fn block_on<T>(fut: impl std::future::Future<Output = T>) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => tokio::task::block_in_place(|| handle.block_on(fut)),
        // Off any runtime: the engine's own runtime, built once and kept for the life of the process. It used
        // to be a runtime per call, which took with it, when dropped, the driver task of every connection the
        // pool had opened during the call: the next statement on that pooled connection (a word search runs
        // several, on one connection, each under its own call) failed with "connection closed".
        Err(_) => off_runtime().block_on(fut),
    }
}

/// The runtime that drives engine work started off any runtime (two workers: the connection drivers it
/// spawns run there while the calling thread waits).
fn off_runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("engine-io")
            .enable_all()
            .build()
            .expect("the records engine's runtime starts")
    })
}

fn bind_params(params: &[Value]) -> Vec<(Box<dyn ToSql + Sync + Send>, Type)> {
    params
        .iter()
        .map(|v| -> (Box<dyn ToSql + Sync + Send>, Type) {
            match v {
                Value::Null => (Box::new(Option::<String>::None), Type::TEXT),
                Value::Bool(b) => (Box::new(*b), Type::BOOL),
                Value::Number(n) => match n.as_i64() {
                    Some(i) => (Box::new(i), Type::INT8),
                    None => (Box::new(n.as_f64().unwrap_or(0.0)), Type::FLOAT8),
                },
                Value::String(s) => (Box::new(s.clone()), Type::TEXT),
                other => (Box::new(other.to_string()), Type::TEXT),
            }
        })
        .collect()
}

fn row_to_json(row: &tokio_postgres::Row) -> Result<Value, String> {
    let mut obj = serde_json::Map::new();
    for (i, col) in row.columns().iter().enumerate() {
        let t = col.type_();
        let v = match *t {
            Type::BOOL => json!(row.try_get::<_, Option<bool>>(i).map_err(|e| e.to_string())?),
            Type::INT2 => json!(row.try_get::<_, Option<i16>>(i).map_err(|e| e.to_string())?),
            Type::INT4 => json!(row.try_get::<_, Option<i32>>(i).map_err(|e| e.to_string())?),
            Type::INT8 => json!(row.try_get::<_, Option<i64>>(i).map_err(|e| e.to_string())?),
            Type::FLOAT4 => json!(row.try_get::<_, Option<f32>>(i).map_err(|e| e.to_string())?),
            Type::FLOAT8 => json!(row.try_get::<_, Option<f64>>(i).map_err(|e| e.to_string())?),
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => {
                json!(row.try_get::<_, Option<String>>(i).map_err(|e| e.to_string())?)
            }
            Type::JSON | Type::JSONB => {
                row.try_get::<_, Option<Value>>(i).map_err(|e| e.to_string())?.unwrap_or(Value::Null)
            }
            Type::DATE => json!(row
                .try_get::<_, Option<chrono::NaiveDate>>(i)
                .map_err(|e| e.to_string())?
                .map(|d| d.format("%Y-%m-%d").to_string())),
            Type::TIMESTAMPTZ => json!(row
                .try_get::<_, Option<chrono::DateTime<chrono::Utc>>>(i)
                .map_err(|e| e.to_string())?
                .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))),
            Type::TEXT_ARRAY | Type::VARCHAR_ARRAY => {
                json!(row.try_get::<_, Option<Vec<String>>>(i).map_err(|e| e.to_string())?)
            }
            ref other => {
                return Err(format!(
                    "column `{}` has type {other}, which queries cannot return; cast it to text",
                    col.name()
                ))
            }
        };
        obj.insert(col.name().to_string(), v);
    }
    Ok(Value::Object(obj))
}

/// A connection from the pool, or why there is none. PostgreSQL answers a plain connection that pg_hba.conf allows
/// only over TLS (`hostssl`) with "... no encryption"; that is said in the engine's terms.
async fn pooled(pool: &Pool, address: &str) -> Result<deadpool_postgres::Object, String> {
    pool.get().await.map_err(|e| {
        // The server's own words ("FATAL: ... no encryption") are in the error's sources, not its top line.
        let mut text = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            let line = s.to_string();
            if !text.contains(&line) {
                text = format!("{text}: {line}");
            }
            source = s.source();
        }
        let e = text;
        let hint = if e.contains("no encryption") {
            "; the server accepts only TLS connections: set sslmode=require or sslmode=verify-full in engine.url"
        } else {
            ""
        };
        format!("records engine at {address} is unreachable: {e}{hint}")
    })
}

/// API keys in PostgreSQL (engine mode): hashes only.
pub struct PgKeys {
    pool: Pool,
    address: String,
}

impl PgKeys {
    async fn client(&self) -> Result<deadpool_postgres::Object, String> {
        pooled(&self.pool, &self.address).await
    }

    pub async fn load(&self) -> Result<Vec<KeyRecord>, String> {
        self.load_where("", &[]).await
    }

    async fn load_where(&self, filter: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<KeyRecord>, String> {
        let client = self.client().await?;
        let sql = format!(
            "SELECT id, hash, tier, label, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
                    to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
             FROM datahost.api_keys {filter} ORDER BY created_at, id"
        );
        let rows = tokio::time::timeout(Duration::from_secs(5), client.query(&sql, params))
            .await
            .map_err(|_| format!("reading API keys from {} timed out", self.address))?
            .map_err(|e| format!("reading API keys: {e}"))?;
        rows.iter()
            .map(|r| {
                let tier: String = r.get(2);
                Ok(KeyRecord {
                    id: r.get(0),
                    hash: r.get(1),
                    tier: datahost_plugin_api::Tier::parse(&tier)
                        .ok_or_else(|| format!("unknown tier {tier} in api_keys"))?,
                    label: r.get(3),
                    created_at: r.get(4),
                    revoked_at: r.get(5),
                })
            })
            .collect()
    }

    pub async fn find(&self, hash_hex: &str) -> Result<Option<KeyRecord>, String> {
        Ok(self.load_where("WHERE hash = $1", &[&hash_hex]).await?.into_iter().next())
    }

    pub async fn insert(&self, r: KeyRecord) -> Result<(), String> {
        let client = self.client().await?;
        client
            .execute(
                "INSERT INTO datahost.api_keys (id, hash, tier, label) VALUES ($1, $2, $3, $4)",
                &[&r.id, &r.hash, &r.tier.as_str(), &r.label],
            )
            .await
            .map_err(|e| format!("storing the API key: {e}"))?;
        Ok(())
    }

    pub async fn revoke(&self, id: &str) -> Result<bool, String> {
        let client = self.client().await?;
        let exists = client
            .query_opt("SELECT 1 FROM datahost.api_keys WHERE id = $1", &[&id])
            .await
            .map_err(|e| e.to_string())?
            .is_some();
        if exists {
            client
                .execute("UPDATE datahost.api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL", &[&id])
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(exists)
    }
}

/// The key store for this config: the JSON file on the embedded engine, the key table in engine mode.
pub fn key_source(config: &Config, engine: &Arc<Engine>) -> KeySource {
    match engine.pg() {
        Some(pg) => KeySource::Postgres(pg.keys()),
        None => KeySource::File(FileKeyStore::new(config.keys.file.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::block_on;

    /// What the pool does when it opens a connection: it spawns the connection's driver task. Called from a
    /// thread on no runtime (a plugin handler), that task must outlive the call that opened the connection.
    #[test]
    fn a_task_spawned_under_block_on_off_any_runtime_outlives_the_call() {
        std::thread::spawn(|| {
            assert!(tokio::runtime::Handle::try_current().is_err(), "a plain thread");
            let (go, wait) = tokio::sync::oneshot::channel::<()>();
            let (answer, answered) = tokio::sync::oneshot::channel::<u32>();
            block_on(async move {
                tokio::spawn(async move {
                    if wait.await.is_ok() {
                        let _ = answer.send(42);
                    }
                });
            });
            let _ = go.send(());
            assert_eq!(block_on(answered), Ok(42), "the spawned task was dropped with its call");
        })
        .join()
        .unwrap();
    }

    /// The failure seen in the black-box suite, on the real server: a pooled connection opened by one call
    /// from a plugin-handler thread, used by the next (as `search_words` does).
    #[test]
    fn a_connection_opened_off_any_runtime_serves_the_next_call() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pg.toml");
        std::fs::write(&file, "[engine]\nurl = \"postgres://postgres@127.0.0.1:5432/postgres\"\n").unwrap();
        let config = crate::config::Config::load(Some(&file)).unwrap();
        let setup = tokio::runtime::Runtime::new().unwrap();
        let engine = setup.block_on(super::PgEngine::connect(&config)).expect("PostgreSQL on 127.0.0.1:5432");
        std::thread::spawn(move || {
            // More clients at once than the pool holds idle, so some are opened under this thread's calls.
            let clients: Vec<_> = (0..3).map(|_| block_on(engine.client()).unwrap()).collect();
            for client in &clients {
                let rows = block_on(client.query("SELECT 1::int4", &[])).expect("the pooled connection is alive");
                assert_eq!(rows[0].get::<_, i32>(0), 1);
            }
        })
        .join()
        .unwrap();
    }
}
