//! The PostgreSQL records engine through the real binary, against the real server on 127.0.0.1:5432 (one
//! database per test) and, for the kill test, a private cluster this test starts itself.

use std::path::Path;

use datahost_tests::pg::TestDb;
use datahost_tests::private::PrivateCluster;
use datahost_tests::{fixture, free_port, plugin_dir_with, run_cli, run_cli_raw, until, Server, ServerOptions};
use serde_json::Value;

fn engine_server(db: &TestDb) -> Server {
    Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() })
}

fn config_for(db_url: &str, dir: &Path) -> std::path::PathBuf {
    let file = dir.join("engine.toml");
    std::fs::write(
        &file,
        format!(
            "[plugins]\ndir = {:?}\n[engine]\nurl = \"{db_url}\"\n",
            datahost_tests::target_dir().display().to_string()
        ),
    )
    .unwrap();
    file
}

#[test]
fn migrations_from_empty_and_rerun_and_idempotent_seeds() {
    let db = TestDb::create("migrate");
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(&db.url(), dir.path());
    let first = run_cli(&config, &["engine", "migrate"], &[]);
    assert!(first.contains("applied host 1: datasets and api keys"), "{first}");
    assert!(first.contains("applied host 2: notify on dataset change"), "{first}");
    let second = run_cli(&config, &["engine", "migrate"], &[]);
    assert!(!second.contains("applied"), "re-running applies nothing: {second}");
    assert!(second.contains("migrations up to date"));

    let loaded = run_cli(&config, &["engine", "load-seeds"], &[]);
    assert!(loaded.contains("congress-trades: loaded"), "{loaded}");
    let mut client = db.client();
    let before: Vec<(String, String)> = client
        .query("SELECT name, checksum || updated_at::text FROM datahost.datasets ORDER BY name", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert!(before.len() >= 10, "every plugin's seeds are stored: {before:?}");
    let again = run_cli(&config, &["engine", "load-seeds"], &[]);
    assert!(again.contains("0 dataset(s) changed"), "{again}");
    assert!(again.contains("congress-trades: unchanged"));
    let after: Vec<(String, String)> = client
        .query("SELECT name, checksum || updated_at::text FROM datahost.datasets ORDER BY name", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(before, after, "load-seeds twice changes nothing");
}

/// Requests covering every endpoint; run against both engines.
fn parity_requests(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/v1/") || item["get"]["x-maturity"] == "pro" {
            continue;
        }
        out.push(path.clone());
        let params = item["get"]["parameters"].as_array().cloned().unwrap_or_default();
        let example_query: Vec<String> = params
            .iter()
            .filter_map(|p| {
                let v = p.get("example")?;
                let v = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                Some(format!("{}={}", p["name"].as_str()?, url_encode(&v)))
            })
            .collect();
        if !example_query.is_empty() {
            out.push(format!("{path}?{}", example_query.join("&")));
        }
        for p in &params {
            if let Some(v) = p.get("example") {
                let v = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                out.push(format!("{path}?{}={}", p["name"].as_str().unwrap(), url_encode(&v)));
            }
        }
        out.push(format!("{path}?limit=2"));
    }
    out
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn engine_mode_serves_the_same_responses_as_embedded() {
    let db = TestDb::create("parity");
    let embedded = Server::start();
    let engine = engine_server(&db);
    let (_, health) = engine.get("/health");
    assert_eq!(health["recordsEngineKind"], "postgres");
    assert_eq!(health["ok"], true);
    assert_eq!(health["recordsEngine"], format!("postgres://127.0.0.1:5432/{}", db.name));
    assert!(!health.to_string().contains("not-a-real-password"));
    assert_eq!(health["datasets"], embedded.get("/health").1["datasets"], "same datasets in both modes");

    let doc = embedded.get("/openapi.json").1;
    assert_eq!(doc, engine.get("/openapi.json").1);
    let requests = parity_requests(&doc);
    assert!(requests.len() > 30, "{requests:?}");
    for req in requests {
        let (s1, b1) = embedded.get(&req);
        let (s2, b2) = engine.get(&req);
        assert_eq!(s1, s2, "{req}");
        assert_eq!(b1, b2, "{req} differs between embedded and engine mode");
    }
    assert_eq!(db.schemas(), ["datahost", "public"], "the shipped plugins keep no tables of their own");
}

/// The ABI's escape hatch for plugins built elsewhere: migrations of a plugin's own tables, applied once in its
/// own schema, and its SQL run there by the host; the embedded engine refuses it and only that route degrades.
#[test]
fn a_plugin_built_elsewhere_may_keep_tables_of_its_own_in_postgresql() {
    let db = TestDb::create("own_tables");
    let plugins = plugin_dir_with(&[fixture("own-tables")]);
    let start = |extra_toml: String| {
        Server::start_with(ServerOptions {
            plugins_dir: Some(plugins.path().to_path_buf()),
            extra_toml,
            ..Default::default()
        })
    };
    for _ in 0..2 {
        let engine = start(db.engine_toml());
        let (status, body) = engine.get("/v1/fixture-own-tables");
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["notes"], serde_json::json!(["first", "second"]), "each migration ran once");
    }
    let applied: i64 = db
        .client()
        .query_one("SELECT count(*) FROM datahost.plugin_migrations WHERE plugin = 'fixture-own-tables'", &[])
        .unwrap()
        .get(0);
    assert_eq!(applied, 2);
    assert!(db.schemas().contains(&"plugin_fixture_own_tables".to_string()), "{:?}", db.schemas());

    let embedded = start(String::new());
    let (status, body) = embedded.get("/v1/fixture-own-tables");
    assert_eq!(status, 503, "{body}");
    assert!(body["error"].as_str().unwrap().contains("does not run SQL"), "{body}");
    assert_eq!(embedded.get("/v1/congress-trades?ticker=NVDA").0, 200, "the other plugins serve");
}

#[test]
fn keys_live_in_postgres_and_revocation_reaches_every_replica() {
    let db = TestDb::create("keys");
    let a = engine_server(&db);
    let b = engine_server(&db);
    let key = a.issue_key("pro");
    let route = "/v1/congress-trades?limit=1";
    assert_eq!(a.get_with(route, &[("X-API-Key", &key)]).0, 200);
    assert_eq!(b.get_with(route, &[("X-API-Key", &key)]).0, 200, "a key issued via one replica works on another");
    let mut client = db.client();
    let stored: Vec<String> =
        client.query("SELECT hash FROM datahost.api_keys", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    assert!(stored.iter().all(|h| h.len() == 64 && *h != key), "hashes only");
    let id = a
        .cli(&["keys", "list"])
        .lines()
        .find(|l| l.contains("\tpro\t"))
        .unwrap()
        .split('\t')
        .next()
        .unwrap()
        .to_string();
    a.cli(&["keys", "revoke", &id]);
    for server in [&a, &b] {
        // Each replica says when its periodic key reload applied the revocation; from then on it refuses the key.
        server.wait_for_line(&format!("the revocation of {id}"), |l| l.contains("API key revoked") && l.contains(&id));
        assert_eq!(server.get_with(route, &[("X-API-Key", &key)]).0, 401);
    }
}

#[test]
fn a_dataset_change_reloads_every_replica_atomically() {
    let db = TestDb::create("reload");
    let a = engine_server(&db);
    let b = engine_server(&db);
    let route = "/v1/congress-trades?member=renamed";
    assert_eq!(a.get(route).1["count"], 0);
    let mut client = db.client();
    client
        .batch_execute(
            "UPDATE datahost.datasets SET snapshot = replace(snapshot, 'Avery Hollister', 'Avery Renamed'),
             checksum = md5(random()::text) WHERE name = 'congress-trades'",
        )
        .unwrap();
    for server in [&a, &b] {
        until("reload after NOTIFY", || server.get(route).1["count"].as_u64().unwrap_or(0) > 0);
        // Every filing of the member moved over at once: no request sees a mix of old and new names.
        let (_, old) = server.get("/v1/congress-trades?member=hollister");
        assert_eq!(old["count"], 0);
    }
}

#[test]
fn unreachable_engine_at_start_is_a_clear_error_or_a_degraded_start() {
    let port = free_port();
    let url = format!("postgres://admin:hunter2@127.0.0.1:{port}/nothing");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.toml");
    std::fs::write(
        &file,
        format!("[server]\nlisten = \"127.0.0.1:0\"\n[metrics]\nlisten = \"127.0.0.1:0\"\n[engine]\nurl = \"{url}\"\nconnect_timeout_secs = 1\n"),
    )
    .unwrap();
    let (code, _, stderr) = run_cli_raw(&file, &["serve"]);
    assert_ne!(code, 0);
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "names the address: {stderr}");
    assert!(!stderr.contains("hunter2") && !stderr.contains("admin:"), "no credentials: {stderr}");

    let degraded = Server::start_with(ServerOptions {
        extra_toml: format!("[engine]\nurl = \"{url}\"\nconnect_timeout_secs = 1\ndegraded_start = true\n"),
        no_owner_key: true,
        ..Default::default()
    });
    let (_, health) = degraded.get_with("/health", &[]);
    assert_eq!(health["ok"], false);
    assert_eq!(health["recordsEngine"], format!("postgres://127.0.0.1:{port}/nothing"));
}

#[test]
fn engine_killed_and_restarted_while_serving() {
    let cluster = PrivateCluster::start();
    let server = Server::start_with(ServerOptions {
        extra_toml: format!(
            "[engine]\nurl = \"{}\"\nreload_interval_secs = 1\nconnect_timeout_secs = 1\nquery_timeout_secs = 2\n",
            cluster.url()
        ),
        ..Default::default()
    });
    let free = server.issue_key("free");
    let route = "/v1/congress-trades?ticker=LMCS";
    let (status, before) = server.get_with(route, &[("X-API-Key", &free)]);
    assert_eq!(status, 200);

    cluster.pg_ctl("stop");
    until("health reports the lost engine", || server.get_with("/health", &[]).1["ok"] == false);
    // Datasets already loaded keep being served, to keys already known: from memory, the same answer (a request
    // that waited on the stopped engine would fail its 2 s query timeout; the client's hang guard bounds the rest).
    let (status, during) = server.get_with(route, &[("X-API-Key", &free)]);
    assert_eq!(status, 200);
    assert_eq!(during, before);
    assert_eq!(server.get("/v1/prices?ticker=SPY&from=2026-10-01").0, 200);

    cluster.pg_ctl("start");
    until("health recovers by itself", || server.get_with("/health", &[]).1["ok"] == true);
    // And the engine is used again: a dataset change made now is picked up.
    let mut client = postgres::Client::connect(&cluster.url(), postgres::NoTls).unwrap();
    client
        .batch_execute(
            "UPDATE datahost.datasets SET snapshot = replace(snapshot, 'Avery Hollister', 'Avery Recovered'),
             checksum = md5(random()::text) WHERE name = 'congress-trades'",
        )
        .unwrap();
    until("reload after recovery", || {
        server.get("/v1/congress-trades?member=recovered").1["count"].as_u64().unwrap_or(0) > 0
    });
}

/// A serving host opens, before any request, the pooled connections one word search runs its statements on at
/// once (a page beside the count's two parts) and one more, beside its LISTEN connection: the first searches do
/// not wait for connections to open (about 6 ms each on loopback).
#[test]
fn a_serving_host_opens_its_search_connections_before_the_first_request() {
    let db = TestDb::create("warm");
    let _server = engine_server(&db);
    let mut admin = postgres::Client::connect("postgres://postgres@127.0.0.1:5432/postgres", postgres::NoTls).unwrap();
    until("four pooled connections and the LISTEN one are open with no request sent", || {
        host_sessions(&mut admin, &db) >= 5
    });
}

/// The host's sessions on the test's database, by `pg_stat_activity`.
fn host_sessions(admin: &mut postgres::Client, db: &TestDb) -> i64 {
    admin
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'datahost'",
            &[&db.name],
        )
        .unwrap()
        .get(0)
}

/// A host that stops, and a CLI command that ends (`keys issue` here), end their PostgreSQL connections the regular
/// way (the protocol's Terminate message), so the server neither logs a lost client nor counts an abandoned session
/// for each pooled connection at every stop: `pg_stat_database.sessions_abandoned` counts the sessions of the
/// test's own database whose client went away without saying goodbye (before the fix: 4 of 4).
#[test]
fn a_stopping_host_closes_its_postgresql_connections_cleanly() {
    let db = TestDb::create("goodbye");
    let server = engine_server(&db);
    let owner = server.issue_key("owner");
    // Requests and the reload loop use pooled connections; the dataset watch holds its LISTEN connection.
    for route in ["/v1/congress-trades?ticker=LMCS", "/v1/prices?ticker=SPY", "/health"] {
        assert_eq!(server.get_with(route, &[("X-API-Key", &owner)]).0, 200, "{route}");
    }
    let mut admin = postgres::Client::connect("postgres://postgres@127.0.0.1:5432/postgres", postgres::NoTls).unwrap();
    let open = |admin: &mut postgres::Client| host_sessions(admin, &db);
    // The LISTEN connection is opened by a background task: waited for, not assumed.
    until("the host holds pooled and LISTEN connections while it serves", || open(&mut admin) >= 2);
    assert_eq!(server.terminate(), Some(0));
    until("the host's sessions have ended", || open(&mut admin) == 0);
    let ended = |admin: &mut postgres::Client| -> (i64, i64) {
        admin.batch_execute("SELECT pg_stat_clear_snapshot()").unwrap();
        let row = admin
            .query_one("SELECT sessions, sessions_abandoned FROM pg_stat_database WHERE datname = $1", &[&db.name])
            .unwrap();
        (row.get(0), row.get(1))
    };
    until("the ended sessions are counted", || ended(&mut admin).0 >= 2);
    let (sessions, abandoned) = ended(&mut admin);
    assert_eq!(abandoned, 0, "of {sessions} sessions, {abandoned} ended without the client's goodbye");
}
