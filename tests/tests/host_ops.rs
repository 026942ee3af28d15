//! What operators and orchestrators rely on, through the real binary: the `/metrics` series that exist from
//! start (fault and panic counters at 0, build info, engine and readiness gauges, process metrics), per-dataset
//! rows and data age from the same values as `/health`, and `/ready` (200, or 503 naming the records engine or
//! a degraded plugin) while `/health` stays 200.

use datahost_tests::pg::TestDb;
use datahost_tests::{assert_envelope, eventually, fixture, plugin_dir_with, sample, Server, ServerOptions};
use serde_json::Value;

fn ready(server: &Server) -> (u16, Value) {
    server.get_with("/ready", &[])
}

#[test]
fn every_plugin_has_fault_and_panic_counters_at_zero_and_the_gauges_exist_from_start() {
    let server = Server::start();
    let metrics = server.metrics_text();
    let (_, health) = server.get_with("/health", &[]);
    let plugins: Vec<&str> = health["datasets"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(plugins.len() > 10, "{plugins:?}");
    for plugin in &plugins {
        assert_eq!(sample(&metrics, &format!("datahost_plugin_panics_total{{plugin=\"{plugin}\"}}")), Some(0.0));
        for kind in
            ["panic", "invalid-json", "invalid-error", "invalid-status", "invalid-answer", "error", "timeout", "crash"]
        {
            let series = format!("datahost_plugin_faults_total{{plugin=\"{plugin}\",kind=\"{kind}\"}}");
            assert_eq!(sample(&metrics, &series), Some(0.0), "{series} missing:\n{metrics}");
        }
        assert_eq!(sample(&metrics, &format!("datahost_plugin_degraded{{plugin=\"{plugin}\"}}")), Some(0.0));
    }
    assert_eq!(sample(&metrics, "datahost_engine_up"), Some(1.0));
    assert_eq!(sample(&metrics, "datahost_ready"), Some(1.0));
    let build = metrics.lines().find(|l| l.starts_with("datahost_build_info{")).expect("build info");
    assert!(build.contains(&format!("version=\"{}\"", health["version"].as_str().unwrap())), "{build}");
    assert!(build.contains("git_commit=\"") && build.contains("rustc=\"1.") && build.ends_with("} 1"), "{build}");
    for gauge in ["process_resident_memory_bytes", "process_virtual_memory_bytes", "process_open_fds"] {
        assert!(sample(&metrics, gauge).is_some_and(|v| v > 0.0), "{gauge}:\n{metrics}");
    }
    let max_fds = sample(&metrics, "process_max_fds").unwrap();
    assert!(max_fds >= sample(&metrics, "process_open_fds").unwrap());
    assert!(sample(&metrics, "process_cpu_seconds_total").is_some_and(|v| v >= 0.0));
    let started = sample(&metrics, "process_start_time_seconds").unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    assert!(started > 1.6e9 && started <= now + 1.0, "start time {started} vs now {now}");
    // A dataset serving its demo seed is labelled so, and has no row count or age.
    assert_eq!(sample(&metrics, "datahost_dataset_ingested{dataset=\"prices\"}"), Some(0.0));
    assert_eq!(sample(&metrics, "datahost_dataset_rows{dataset=\"prices\"}"), None);
    // Each family has its HELP and TYPE lines (promtool's check runs in tests/tools/deploy-check.sh).
    for family in ["datahost_plugin_faults_total", "datahost_build_info", "process_cpu_seconds_total"] {
        assert!(metrics.contains(&format!("# TYPE {family} ")), "{family}");
        assert!(metrics.contains(&format!("# HELP {family} ")), "{family}");
    }
}

#[test]
fn ingested_rows_and_data_age_match_health() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("SPY.csv");
    std::fs::write(
        &file,
        "Date,Open,High,Low,Close,Adj Close,Volume\n\
         2026-01-05,100,101,99,100.5,100.5,1000\n\
         2026-01-06,100.5,102,100,101.5,101.5,1200\n\
         2026-01-07,101.5,103,101,102.5,102.5,900\n",
    )
    .unwrap();
    let (code, out, err) = server.ingest("prices", &[&file], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    let status = server.wait_for_data("prices", |s| s["rows"] == 3);
    let metrics = server.metrics_text();
    assert_eq!(sample(&metrics, "datahost_dataset_ingested{dataset=\"prices\"}"), Some(1.0));
    assert_eq!(sample(&metrics, "datahost_dataset_rows{dataset=\"prices\"}"), Some(3.0));
    let ingested_at = chrono::DateTime::parse_from_rfc3339(status["lastIngestAt"].as_str().unwrap()).unwrap();
    assert_eq!(
        sample(&metrics, "datahost_dataset_last_ingest_timestamp_seconds{dataset=\"prices\"}"),
        Some(ingested_at.timestamp() as f64)
    );
    let age = sample(&metrics, "datahost_dataset_data_age_seconds{dataset=\"prices\"}").expect("data age");
    let expected = (chrono::Utc::now() - ingested_at.with_timezone(&chrono::Utc)).num_seconds() as f64;
    // Read a moment apart, so equal within the seconds between the scrape and this line.
    assert!(age >= 0.0 && age <= expected + 1.0, "age {age}, expected about {expected}");
}

#[test]
fn ready_names_a_plugin_that_failed_to_initialise_while_health_stays_200() {
    let dir = plugin_dir_with(&[fixture("init-fails")]);
    let server =
        Server::start_with(ServerOptions { plugins_dir: Some(dir.path().to_path_buf()), ..Default::default() });
    let (status, body) = ready(&server);
    assert_envelope(status, &body, 503);
    let message = body["error"].as_str().unwrap();
    assert!(message.contains("degraded plugin: fixture-init-fails"), "{message}");
    assert!(!message.contains("records engine"), "{message}");
    let resp = server.request("/ready", &[]);
    assert_eq!(resp.headers()["cache-control"], "no-store");
    assert_eq!(server.get_with("/health", &[]).0, 200);
    // The other plugins still serve; the orchestrator decides what to do with the replica.
    assert_eq!(server.get("/v1/congress-trades?limit=1").0, 200);
    let metrics = server.metrics_text();
    assert_eq!(sample(&metrics, "datahost_ready"), Some(0.0));
    assert_eq!(sample(&metrics, "datahost_plugin_degraded{plugin=\"fixture-init-fails\"}"), Some(1.0));
    assert_eq!(sample(&metrics, "datahost_plugin_degraded{plugin=\"congress-trades\"}"), Some(0.0));
}

#[test]
fn ready_is_503_naming_the_engine_while_it_is_unreachable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let server = Server::start_with(ServerOptions {
        extra_toml: format!(
            "[engine]\nurl = \"postgres://admin:hunter2@127.0.0.1:{port}/nothing\"\nconnect_timeout_secs = 1\n\
             degraded_start = true\n"
        ),
        no_owner_key: true,
        ..Default::default()
    });
    let (status, body) = ready(&server);
    assert_envelope(status, &body, 503);
    let message = body["error"].as_str().unwrap();
    assert!(
        message.contains(&format!("the records engine at postgres://127.0.0.1:{port}/nothing is unreachable")),
        "{message}"
    );
    assert!(!message.contains("hunter2"), "{message}");
    assert_eq!(server.get_with("/health", &[]).0, 200);
    let metrics = server.metrics_text();
    assert_eq!(sample(&metrics, "datahost_engine_up"), Some(0.0));
    assert_eq!(sample(&metrics, "datahost_ready"), Some(0.0));
}

#[test]
fn a_failed_reload_makes_the_plugin_degraded_until_a_reload_succeeds() {
    let db = TestDb::create("ready");
    let server = Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() });
    assert_eq!(ready(&server).0, 200);
    let mut client = db.client();
    let original: String =
        client.query_one("SELECT snapshot FROM datahost.datasets WHERE name = 'congress-trades'", &[]).unwrap().get(0);
    let store = |client: &mut postgres::Client, snapshot: &str| {
        client
            .execute(
                "UPDATE datahost.datasets SET snapshot = $1, checksum = md5(random()::text) \
                 WHERE name = 'congress-trades'",
                &[&snapshot],
            )
            .unwrap();
    };
    // A stored dataset the plugin cannot read: its reload fails and it keeps serving the previous data.
    store(&mut client, "{\"not\": \"a snapshot\"");
    let degraded = ready_when(&server, 503);
    assert_envelope(503, &degraded, 503);
    let message = degraded["error"].as_str().unwrap();
    assert!(message.contains("degraded plugin") && message.contains("congress-trades"), "{message}");
    assert_eq!(server.get("/v1/congress-trades?limit=1").0, 200, "still serving the previous data");
    assert_eq!(server.get_with("/health", &[]).0, 200);
    assert_eq!(sample(&server.metrics_text(), "datahost_plugin_degraded{plugin=\"congress-trades\"}"), Some(1.0));

    store(&mut client, &original);
    let body = ready_when(&server, 200);
    assert_eq!(body["ready"], true);
    assert_eq!(sample(&server.metrics_text(), "datahost_plugin_degraded{plugin=\"congress-trades\"}"), Some(0.0));
}

/// Polls `/ready` until it answers `status`; returns its body.
fn ready_when(server: &Server, status: u16) -> Value {
    eventually(&format!("/ready answers {status}"), || {
        let (got, body) = ready(server);
        if got == status {
            Ok(body)
        } else {
            Err(format!("{got} {body}"))
        }
    })
}
