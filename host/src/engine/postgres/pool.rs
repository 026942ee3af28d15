//! The PostgreSQL engine's handle, `PgEngine`: the connection pool (TLS as `engine.url` says, `tls.rs`), the
//! query and connect timeouts, the health check, and `block_on` for synchronous callers. What the engine does
//! with the pool lives in the sibling files (`migrate`, `datasets`, `query`, `keys`, `records`).

use std::str::FromStr;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres_rustls::MakeRustlsConnect;
use tokio_util::task::TaskTracker;

use crate::config::{redact_url, Config};
use crate::engine::error::{postgres as pg_err, EngineError};

pub struct PgEngine {
    pub(super) pool: Pool,
    pub(super) pg_config: tokio_postgres::Config,
    /// TLS as `sslmode` in `engine.url` says (`tls.rs`), for the pool and the LISTEN connection.
    pub(super) tls: MakeRustlsConnect,
    pub(super) address: String,
    query_timeout: Duration,
    connect_timeout: Duration,
    /// The tasks that drive this engine's connections (pooled and LISTEN), so a stop can wait for them to say
    /// goodbye to the server ([`PgEngine::close`]).
    pub(super) connections: TaskTracker,
    /// Cancelled by [`PgEngine::close`]: ends the LISTEN connection.
    pub(super) closing: tokio_util::sync::CancellationToken,
    /// `engine.prepared_statements`: the statements requests run are prepared once per connection ([`PgEngine::rows`]).
    prepared: bool,
}

/// Opens pooled connections as deadpool's own connector does, but drives each one in a task deadpool does not
/// hold. deadpool aborts the task it is given when it drops a client, which cut the socket without PostgreSQL's
/// Terminate message: the server logged "could not receive data from client: Connection reset by peer" and
/// counted an abandoned session for every pooled connection at every host stop. Here a dropped client ends its
/// connection the regular way (tokio-postgres sends Terminate, then the task ends), and the tasks are tracked
/// so a stop waits for them.
struct GracefulConnect {
    tls: MakeRustlsConnect,
    connections: TaskTracker,
    /// Whether statements are prepared and kept ([`PgEngine::rows`]): then each connection plans every run for its
    /// own values.
    prepared: bool,
}

impl deadpool_postgres::Connect for GracefulConnect {
    fn connect(
        &self,
        pg_config: &tokio_postgres::Config,
    ) -> futures_util::future::BoxFuture<
        '_,
        Result<(tokio_postgres::Client, tokio::task::JoinHandle<()>), tokio_postgres::Error>,
    > {
        let (pg_config, tls) = (pg_config.clone(), self.tls.clone());
        Box::pin(async move {
            let (client, connection) = pg_config.connect(tls).await?;
            self.connections.spawn(async move {
                if let Err(e) = connection.await {
                    tracing::warn!(error = %e, "PostgreSQL connection error");
                }
            });
            if self.prepared {
                // A kept statement would otherwise be planned once for any values after five runs (PostgreSQL's
                // generic plan), which on skewed data (a word on a million documents or on three) can be the walk
                // of a whole index; planned for each run's values, reuse saves only the parse, as intended.
                client.batch_execute("SET plan_cache_mode = force_custom_plan").await?;
            }
            // What deadpool aborts on drop: a task with nothing to do, so the connection itself ends on its own.
            Ok((client, tokio::spawn(async {})))
        })
    }
}

/// Statements a pooled connection keeps prepared at most ([`PgEngine::rows`]).
const KEPT_STATEMENTS: usize = 256;

/// Whether `e` says a kept statement no longer runs as prepared: "cached plan must not change result type"
/// (feature not supported) or an unknown prepared statement.
fn is_stale(e: &tokio_postgres::Error) -> bool {
    use tokio_postgres::error::SqlState;
    matches!(e.code(), Some(c) if *c == SqlState::FEATURE_NOT_SUPPORTED || *c == SqlState::INVALID_SQL_STATEMENT_NAME)
}

/// The schema a plugin's tables live in.
pub fn plugin_schema(slug: &str) -> String {
    format!("plugin_{}", slug.replace('-', "_"))
}

impl PgEngine {
    /// Builds the pool and checks that the server answers.
    pub async fn connect(config: &Config) -> Result<Self, EngineError> {
        let address = redact_url(&config.engine.url);
        let connect_timeout = Duration::from_secs(config.engine.connect_timeout_secs.max(1));
        let tls = crate::tls::PgTls::from_url(&config.engine.url)
            .map_err(|e| EngineError::Config(format!("engine.url {address}: {e}")))?;
        let mut pg_config = tokio_postgres::Config::from_str(&tls.url)
            .map_err(|e| EngineError::Config(format!("engine.url {address} is not a valid PostgreSQL URL: {e}")))?;
        pg_config.ssl_mode(tls.tokio_mode());
        let ca_file = Some(config.engine.tls_ca_file.as_path()).filter(|p| !p.as_os_str().is_empty());
        let connector = tls.connector(ca_file).map_err(|e| EngineError::Config(format!("engine TLS: {e}")))?;
        pg_config.connect_timeout(connect_timeout);
        // How the server's activity views name these connections, unless the URL names them (one name per
        // replica, say).
        if pg_config.get_application_name().is_none() {
            pg_config.application_name("datahost");
        }
        let connections = TaskTracker::new();
        let manager = Manager::from_connect(
            pg_config.clone(),
            GracefulConnect {
                tls: connector.clone(),
                connections: connections.clone(),
                prepared: config.engine.prepared_statements,
            },
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(config.engine.pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(connect_timeout))
            .create_timeout(Some(connect_timeout))
            .recycle_timeout(Some(connect_timeout))
            .build()
            .map_err(|e| EngineError::Config(format!("cannot build the PostgreSQL pool for {address}: {e}")))?;
        let engine = Self {
            pool,
            pg_config,
            tls: connector,
            address: address.clone(),
            query_timeout: Duration::from_secs(config.engine.query_timeout_secs.max(1)),
            connect_timeout,
            connections,
            closing: Default::default(),
            prepared: config.engine.prepared_statements,
        };
        Ok(engine)
    }

    /// Ends every connection the regular way at a stop: the pool closes (its idle clients are dropped, each
    /// connection sends Terminate), the LISTEN connection ends, and the stop waits up to `within` for them. A
    /// client still in use at that point is cut when the process exits.
    pub async fn close(&self, within: Duration) {
        self.pool.close();
        self.closing.cancel();
        self.connections.close();
        if tokio::time::timeout(within, self.connections.wait()).await.is_err() {
            tracing::warn!(open = self.connections.len(), "PostgreSQL connections still open at the stop");
        }
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    /// Opens connections at once until the pool holds `n` (at most its size), left idle in it: a serving host's
    /// first searches then find the connections their statements run on at once, where each would otherwise
    /// open the ones it lacks while it waits (a connection and its setup, about 6 ms on loopback, measured in
    /// a word search's answer; BENCHMARKS.md). Connections that cannot be opened are left to the first
    /// requests, as before.
    pub async fn warm(&self, n: usize) {
        // Held at once, the idle connections are taken first and the rest opened.
        let target = n.min(self.pool.status().max_size);
        let held = futures_util::future::join_all((0..target).map(|_| self.spare_client())).await;
        let held = held.iter().flatten().count();
        tracing::debug!(held, "PostgreSQL connections open ahead of the first requests");
    }

    pub(crate) async fn client(&self) -> Result<deadpool_postgres::Object, EngineError> {
        pooled(&self.pool, &self.address).await
    }

    /// A connection free now (a pooled one, or a new one while the pool is below its size), without waiting
    /// for one in use; `None` when there is none (or it cannot be opened).
    pub(crate) async fn spare_client(&self) -> Option<deadpool_postgres::Object> {
        let now = deadpool_postgres::Timeouts {
            wait: Some(Duration::ZERO),
            create: Some(self.connect_timeout),
            recycle: Some(self.connect_timeout),
        };
        self.pool.timeout_get(&now).await.ok()
    }

    /// How many connections the pool holds and how many are free.
    #[cfg(test)]
    pub(crate) fn pool_status(&self) -> deadpool_postgres::Status {
        self.pool.status()
    }

    /// The rows of a statement a request runs on `client`: prepared once per connection and reused when
    /// `engine.prepared_statements` is on (PostgreSQL then parses it once, and plans each run for its values), else
    /// sent whole each time. A connection keeps at most [`KEPT_STATEMENTS`]; past that it forgets them all and
    /// starts again (plugin queries and word searches of many shapes cannot grow it without bound). A kept
    /// statement the server can no longer run as prepared (its tables' columns changed under a `SELECT *`, say by a
    /// newer replica's plugin migration, or the server forgot it) is prepared again once.
    pub(crate) async fn rows(
        &self,
        client: &deadpool_postgres::Object,
        sql: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        if !self.prepared {
            return client.query_typed(sql, params).await;
        }
        if client.statement_cache.size() >= KEPT_STATEMENTS {
            client.statement_cache.clear();
        }
        let types: Vec<Type> = params.iter().map(|(_, t)| t.clone()).collect();
        let values: Vec<&(dyn ToSql + Sync)> = params.iter().map(|(v, _)| *v).collect();
        let statement = client.prepare_typed_cached(sql, &types).await?;
        match client.query(&statement, &values).await {
            Err(e) if is_stale(&e) => {
                client.statement_cache.remove(sql, &types);
                let statement = client.prepare_typed_cached(sql, &types).await?;
                client.query(&statement, &values).await
            }
            answer => answer,
        }
    }

    /// Runs a future under the query timeout.
    pub(super) async fn timed<T>(
        &self,
        what: &str,
        fut: impl std::future::Future<Output = Result<T, EngineError>>,
    ) -> Result<T, EngineError> {
        match tokio::time::timeout(self.query_timeout, fut).await {
            Ok(r) => r,
            Err(_) => Err(self.timed_out(what, self.query_timeout)),
        }
    }

    /// The error of a call that did not finish within `after`.
    pub(super) fn timed_out(&self, what: &str, after: Duration) -> EngineError {
        EngineError::TimedOut { what: what.to_string(), address: self.address.clone(), after }
    }

    /// Checks that the engine answers.
    pub async fn ping(&self) -> Result<(), EngineError> {
        self.timed("ping", async {
            let c = self.client().await?;
            c.simple_query("SELECT 1").await.map_err(pg_err("ping"))?;
            Ok(())
        })
        .await
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

/// A connection from the pool, or why there is none. PostgreSQL answers a plain connection that pg_hba.conf allows
/// only over TLS (`hostssl`) with "... no encryption"; that is said in the engine's terms.
pub(super) async fn pooled(pool: &Pool, address: &str) -> Result<deadpool_postgres::Object, EngineError> {
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
        EngineError::Unreachable(format!("records engine at {address} is unreachable: {e}{hint}"))
    })
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

    /// An engine on the `postgres` database with `engine.prepared_statements` as given.
    async fn engine(prepared: bool) -> super::PgEngine {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pg.toml");
        let toml = format!(
            "[engine]\nurl = \"postgres://postgres@127.0.0.1:5432/postgres\"\nprepared_statements = {prepared}\n"
        );
        std::fs::write(&file, toml).unwrap();
        super::PgEngine::connect(&crate::config::Config::load(Some(&file)).unwrap()).await.expect("PostgreSQL")
    }

    /// Warming opens connections up to the number asked (at most the pool's size) and leaves them idle in the
    /// pool; warming again opens none.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn warming_leaves_the_connections_asked_for_idle_in_the_pool() {
        let pg = engine(true).await;
        assert_eq!(pg.pool_status().size, 0);
        pg.warm(3).await;
        let status = pg.pool_status();
        assert_eq!((status.size, status.available), (3, 3));
        pg.warm(3).await;
        assert_eq!(pg.pool_status().size, 3);
        let size = pg.pool_status().max_size;
        pg.warm(size + 5).await;
        let status = pg.pool_status();
        assert_eq!((status.size, status.available), (size, size));
    }

    /// The server's own count of statements prepared on this connection, and its plan cache mode.
    async fn server_side(client: &deadpool_postgres::Object) -> (i64, String) {
        let kept = client.query_one("SELECT count(*) FROM pg_prepared_statements", &[]).await.unwrap().get(0);
        let mode = client.query_one("SHOW plan_cache_mode", &[]).await.unwrap().get(0);
        (kept, mode)
    }

    /// With `engine.prepared_statements` on, a statement is prepared once per connection and reused, each
    /// run planned for its own values (`force_custom_plan`), and a connection keeps at most `KEPT_STATEMENTS`
    /// (on the server as well: the ones forgotten are closed there). Off, nothing is kept.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn read_statements_are_prepared_once_per_connection_and_planned_per_run() {
        use tokio_postgres::types::Type;
        let pg = engine(true).await;
        let client = pg.client().await.unwrap();
        assert_eq!(server_side(&client).await.1, "force_custom_plan");
        let sql = "SELECT $1::text || '!', $2::int8 + 1";
        for (word, n) in [("a", 1_i64), ("b", 41)] {
            let rows = pg.rows(&client, sql, &[(&word, Type::TEXT), (&n, Type::INT8)]).await.unwrap();
            assert_eq!((rows[0].get::<_, String>(0), rows[0].get::<_, i64>(1)), (format!("{word}!"), n + 1));
        }
        assert_eq!(client.statement_cache.size(), 1, "the second run reused the first's statement");
        let before = server_side(&client).await.0;
        for i in 0..super::KEPT_STATEMENTS + 10 {
            let rows = pg.rows(&client, &format!("SELECT {i}::int8"), &[]).await.unwrap();
            assert_eq!(rows[0].get::<_, i64>(0), i as i64);
        }
        assert!(client.statement_cache.size() <= super::KEPT_STATEMENTS, "{}", client.statement_cache.size());
        let kept = server_side(&client).await.0;
        assert!(kept >= before && kept <= before + super::KEPT_STATEMENTS as i64, "{before} then {kept} on the server");
        assert!(kept < before + super::KEPT_STATEMENTS as i64 + 10, "some were forgotten on the server too");

        // A kept `SELECT *` whose table gained a column (a newer replica's plugin migration) is prepared again.
        let table = format!("dh_prepared_{}", std::process::id());
        client.batch_execute(&format!("DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (a int8)")).await.unwrap();
        client.batch_execute(&format!("INSERT INTO {table} VALUES (7)")).await.unwrap();
        let select = format!("SELECT * FROM {table}");
        assert_eq!(pg.rows(&client, &select, &[]).await.unwrap()[0].len(), 1);
        client.batch_execute(&format!("ALTER TABLE {table} ADD COLUMN b text DEFAULT 'x'")).await.unwrap();
        let rows = pg.rows(&client, &select, &[]).await.expect("prepared again for the new columns");
        assert_eq!((rows[0].get::<_, i64>(0), rows[0].get::<_, String>(1)), (7, "x".to_string()));
        client.batch_execute(&format!("DROP TABLE {table}")).await.unwrap();

        let pg = engine(false).await;
        let client = pg.client().await.unwrap();
        let (kept, mode) = server_side(&client).await;
        assert_eq!(mode, "auto", "the server's default, untouched");
        let rows = pg.rows(&client, sql, &[(&"c", Type::TEXT), (&2_i64, Type::INT8)]).await.unwrap();
        assert_eq!(rows[0].get::<_, String>(0), "c!");
        assert_eq!(client.statement_cache.size(), 0);
        assert_eq!(server_side(&client).await.0, kept, "nothing kept");
    }
}
