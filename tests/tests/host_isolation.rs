//! Plugin isolation, deadlines and the circuit breaker, black-box: fixture plugins that abort, segfault, loop
//! forever or panic, beside the real dataset plugins, in process mode (`plugins.<slug>.isolation = "process"`:
//! a supervised `datahost plugin-host` child) and in process. Every wait polls for a state (under the harness's hang
//! guard); nothing asserts how long anything took.

use datahost_tests::{assert_envelope, corpus, eventually, fixture, plugin_dir_with, Server, ServerOptions};
use serde_json::Value;

fn server(fixtures: &[&str], extra_toml: &str) -> (Server, tempfile::TempDir) {
    let dir = plugin_dir_with(&fixtures.iter().map(|f| fixture(f)).collect::<Vec<_>>());
    let server = Server::start_with(ServerOptions {
        plugins_dir: Some(dir.path().to_path_buf()),
        extra_toml: extra_toml.to_string(),
        ..Default::default()
    });
    (server, dir)
}

/// Polls `/health` until `plugin`'s entry satisfies `ready`; returns it.
fn wait_for_plugin(server: &Server, plugin: &str, ready: impl Fn(&Value) -> bool) -> Value {
    eventually(&format!("{plugin} in the awaited state"), || {
        let (_, health) = server.get_with("/health", &[]);
        let entry = &health["plugins"][plugin];
        if ready(entry) {
            Ok(entry.clone())
        } else {
            Err(health.to_string())
        }
    })
}

/// Polls `path` until it answers 200; returns the body.
fn wait_for_200(server: &Server, path: &str) -> Value {
    server.wait_for_route(path, |_| true)
}

/// A request with our own request id; (status, body).
fn get_traced(server: &Server, path: &str, request_id: &str) -> (u16, Value) {
    let key = server.owner_key.clone();
    server.get_with(path, &[("X-API-Key", &key), ("X-Request-Id", request_id)])
}

/// Real datasets answer while a fixture misbehaves.
fn others_serve(server: &Server) {
    let (status, body) = server.get("/v1/congress-trades?ticker=LMCS");
    assert_eq!(status, 200, "{body}");
    let (status, body) = server.get("/v1/prices?ticker=SPY&from=2026-10-01");
    assert_eq!(status, 200, "{body}");
}

#[test]
fn an_aborting_plugin_process_costs_only_its_dataset_and_comes_back() {
    let (server, _dir) = server(
        &["aborts"],
        "[plugins]\nrestart_backoff_ms = 20\nbreaker_failures = 0\n[plugins.fixture-aborts]\nisolation = \"process\"\n",
    );
    let (status, first) = server.get("/v1/fixture-aborts");
    assert_eq!(status, 200, "{first}");
    let first_pid = first["pid"].as_u64().unwrap();
    assert_ne!(first_pid, server.pid() as u64, "the plugin runs in a child process");
    let entry = wait_for_plugin(&server, "fixture-aborts", |p| p["status"] == "ok");
    assert_eq!(entry["isolation"], "process");
    assert_eq!(entry["process"], "up");

    let (status, body) = get_traced(&server, "/v1/fixture-aborts?mode=abort", "abort-1");
    assert_envelope(status, &body, 503);
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("fixture-aborts"), "{body}");
    assert_eq!(body["requestId"], "abort-1");
    others_serve(&server);

    // The supervisor restarts the child (with `init`), and the dataset serves again, from a new process.
    let back = wait_for_200(&server, "/v1/fixture-aborts");
    assert_ne!(back["pid"], first_pid, "a new child answers");
    let entry = wait_for_plugin(&server, "fixture-aborts", |p| p["status"] == "ok" && p["restarts"] == 1);
    assert!(entry["lastExit"].as_str().unwrap().contains("SIGABRT"), "{entry}");
    let metrics = server.metrics_text();
    assert!(metrics.contains("datahost_plugin_restarts_total{plugin=\"fixture-aborts\"} 1"), "{metrics}");
    assert!(metrics.contains("datahost_plugin_faults_total{plugin=\"fixture-aborts\",kind=\"crash\"} 1"), "{metrics}");
}

#[test]
fn a_crashed_plugin_process_is_degraded_in_health_while_it_waits_to_restart() {
    // A backoff far longer than the test: the dataset stays down, so its degraded state can be read at leisure.
    let (server, _dir) = server(
        &["aborts"],
        "[plugins]\nrestart_backoff_ms = 600000\nbreaker_failures = 0\n[plugins.fixture-aborts]\nisolation = \"process\"\n",
    );
    let (status, body) = server.get("/v1/fixture-aborts?mode=segfault");
    assert_envelope(status, &body, 503);
    let entry = wait_for_plugin(&server, "fixture-aborts", |p| p["process"] == "down" && p["lastExit"].is_string());
    assert_eq!(entry["status"], "degraded", "{entry}");
    assert!(entry["lastExit"].as_str().unwrap().contains("SIGSEGV"), "{entry}");
    let (status, body) = server.get("/v1/fixture-aborts");
    assert_envelope(status, &body, 503);
    assert!(body["error"].as_str().unwrap().contains("fixture-aborts dataset is unavailable"), "{body}");
    others_serve(&server);
    let (_, health) = server.get_with("/health", &[]);
    assert_eq!(health["ok"], true, "one degraded plugin does not make the host unhealthy: {health}");
    assert_eq!(health["plugins"]["prices"]["status"], "ok", "{health}");
    let (status, ready) = server.get_with("/ready", &[]);
    assert_envelope(status, &ready, 503);
    assert!(ready["error"].as_str().unwrap().contains("fixture-aborts"), "{ready}");
}

#[test]
fn a_looping_plugin_process_gets_the_deadline_and_is_killed_and_restarted() {
    let (server, _dir) = server(
        &["loops"],
        "[plugins]\nrestart_backoff_ms = 20\nbreaker_failures = 0\n\
         [plugins.fixture-loops]\nisolation = \"process\"\ncall_deadline_ms = 3000\n",
    );
    // The deadline governs every call: long enough for a normal first call of a new child on a loaded machine.
    let (status, first) = server.get("/v1/fixture-loops");
    assert_eq!(status, 200, "{first}");
    let (status, body) = get_traced(&server, "/v1/fixture-loops?mode=loop", "loop-1");
    assert_envelope(status, &body, 503);
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("fixture-loops") && message.contains("3000 ms") && message.contains("loop-1"), "{body}");
    assert_eq!(body["requestId"], "loop-1");
    others_serve(&server);
    let back = wait_for_200(&server, "/v1/fixture-loops");
    assert_ne!(back["pid"], first["pid"], "the hung child was killed and a new one answers");
    let entry = wait_for_plugin(&server, "fixture-loops", |p| p["restarts"] == 1);
    assert!(entry["lastExit"].as_str().unwrap().contains("overran its deadline"), "{entry}");
    assert!(server.metrics_text().contains("datahost_plugin_timeouts_total{plugin=\"fixture-loops\"} 1"));
}

#[test]
fn an_in_process_loop_gets_the_deadline_and_cannot_take_the_pool() {
    let (server, _dir) = server(
        &["loops"],
        "[plugins]\nbreaker_failures = 0\nmax_threads_per_plugin = 2\nhandler_threads = 2\n\
         [plugins.fixture-loops]\ncall_deadline_ms = 500\n",
    );
    for i in 0..2 {
        let id = format!("stuck-{i}");
        let (status, body) = get_traced(&server, "/v1/fixture-loops?mode=loop", &id);
        assert_envelope(status, &body, 503);
        assert!(body["error"].as_str().unwrap().contains("did not answer within 500 ms"), "{body}");
        assert_eq!(body["requestId"], id.as_str());
    }
    // Both of its threads are held by loops that will never end: it is refused at once, and the pool (two
    // threads, both replaced) still serves every other dataset.
    let (status, body) = server.get("/v1/fixture-loops");
    assert_envelope(status, &body, 503);
    assert!(body["error"].as_str().unwrap().contains("overran their deadline"), "{body}");
    others_serve(&server);
    let entry = wait_for_plugin(&server, "fixture-loops", |p| p["isolation"] == "in-process");
    assert_eq!(entry["overdueCalls"], 2, "{entry}");
}

/// The breaker opens after repeated panics, answers 503 at once during its cool-down, and a successful trial
/// call closes it again; in process and in a plugin process alike.
#[test]
fn the_breaker_opens_after_repeated_panics_and_closes_by_itself() {
    for isolation in ["in-process", "process"] {
        let (server, _dir) = server(
            &["panics"],
            &format!(
                "[plugins]\nbreaker_failures = 3\nbreaker_window_ms = 600000\nbreaker_cooldown_ms = 3000\n\
                 [plugins.fixture-panics]\nisolation = \"{isolation}\"\n"
            ),
        );
        for _ in 0..3 {
            let (status, body) = server.get("/v1/fixture-panics?mode=panic");
            assert_envelope(status, &body, 500);
        }
        let resp = server.request("/v1/fixture-panics", &[("X-API-Key", &server.owner_key)]);
        assert_eq!(resp.status().as_u16(), 503, "{isolation}: open breaker");
        assert!(resp.headers().get("retry-after").is_some());
        let body: Value = resp.json().unwrap();
        assert!(body["error"].as_str().unwrap().contains("fixture-panics dataset is degraded"), "{body}");
        let entry = wait_for_plugin(&server, "fixture-panics", |_| true);
        assert_eq!(entry["status"], "degraded", "{isolation}: {entry}");
        assert_ne!(entry["breaker"], "closed", "{isolation}: {entry}");
        let metrics = server.metrics_text();
        assert!(
            metrics.contains("datahost_plugin_breaker_state{plugin=\"fixture-panics\"} 2"),
            "{isolation}: {metrics}"
        );
        others_serve(&server);

        let body = wait_for_200(&server, "/v1/fixture-panics");
        assert_eq!(body["ok"], true);
        let entry = wait_for_plugin(&server, "fixture-panics", |p| p["breaker"] == "closed");
        assert_eq!(entry["status"], "ok", "{isolation}: {entry}");
        assert!(server.metrics_text().contains("datahost_plugin_breaker_state{plugin=\"fixture-panics\"} 0"));
    }
}

/// Real dataset plugins answer exactly the same body from a child process: plain routes, `entity-graph`
/// (which reads other datasets through `route.get`, forwarded to the host) and, after an NHTSA ingest,
/// `vin` answering through `records.query` on its table-backed records.
#[test]
fn real_plugins_answer_the_same_in_a_plugin_process() {
    let isolated = ["prices", "vin", "entity-graph", "congress-trades", "insiders"];
    let tables: String = isolated.iter().map(|slug| format!("[plugins.{slug}]\nisolation = \"process\"\n")).collect();
    let in_process = Server::start();
    let process = Server::start_with(ServerOptions { extra_toml: tables, ..Default::default() });
    let (_, health) = process.get_with("/health", &[]);
    for slug in isolated {
        assert_eq!(health["plugins"][slug]["isolation"], "process", "{health}");
        assert_eq!(health["plugins"][slug]["process"], "up", "{health}");
    }
    let mut routes = vec![
        "/v1/prices?ticker=SPY&from=2026-10-01".to_string(),
        "/v1/congress-trades?ticker=LMCS".into(),
        "/v1/entity-graph?ticker=lmcs&limit=1000".into(),
        "/v1/insiders".into(),
        "/v1/vin?vin=1FAFP34P31W100001".into(),
        "/v1/prices?ticker=NOPE!".into(),
    ];
    let compare = |routes: &[String]| {
        for route in routes {
            let (a_status, a) = in_process.get(route);
            let (b_status, b) = process.get(route);
            assert_eq!((a_status, &a), (b_status, &b), "{route}");
        }
    };
    compare(&routes);
    // An API error crosses the process boundary as its status and message, in the host's envelope as they are.
    let (status, body) = process.get("/v1/prices?ticker=NOPE!");
    assert_eq!((status, body["code"].as_u64()), (400, Some(400)), "{body}");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(error.contains("ticker") && !error.starts_with("prices:"), "{body}");

    let Some(recalls) = corpus("nhtsa/recalls.txt") else { return };
    let Some(complaints) = corpus("nhtsa/complaints.txt") else { return };
    for server in [&in_process, &process] {
        let (code, out, err) = server.ingest("vin", &[&recalls, &complaints], &[]);
        assert_eq!(code, 0, "{out}{err}");
        server.wait_for_data("vin", |_| true);
    }
    let (status, body) = process.get("/v1/vin?vin=1FAFP34P31W100001");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested", "the child re-ran init on the data change: {body}");
    routes.push("/v1/vin?vin=1G2NE54N2PM100005".into());
    compare(&routes);
}

#[test]
fn an_unknown_plugin_table_or_isolation_stops_the_server_naming_the_key() {
    for (toml, expected) in [
        ("[plugins.no-such-plugin]\nisolation = \"process\"\n", "plugins.no-such-plugin"),
        ("[plugins.prices]\nisolation = \"thread\"\n", "plugins.prices"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("c.toml");
        std::fs::write(
            &config,
            format!(
                "[server]\nlisten = \"127.0.0.1:0\"\n[metrics]\nlisten = \"127.0.0.1:0\"\n[plugins]\ndir = {:?}\n\
                 [engine]\ndata_dir = {:?}\n[keys]\nfile = {:?}\n{toml}",
                datahost_tests::target_dir().display().to_string(),
                dir.path().join("data").display().to_string(),
                dir.path().join("keys.json").display().to_string(),
            ),
        )
        .unwrap();
        let out = std::process::Command::new(datahost_tests::datahost_bin())
            .args(["--config"])
            .arg(&config)
            .arg("serve")
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{stderr}");
    }
}
