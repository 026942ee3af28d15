//! Loader negatives and isolation, with deliberately broken fixture plugins built by the test suite, and a
//! plugin built outside the workspace loading into the already-built host.

use datahost_tests::{assert_envelope, fixture, plugin_dir_with, run_cli_raw, Server, ServerOptions};

fn server_with_fixtures() -> (Server, tempfile::TempDir) {
    let garbage = tempfile::tempdir().unwrap();
    let junk = garbage.path().join("libdatahost_junk.so");
    std::fs::write(&junk, b"this is a text file, not a shared library").unwrap();
    let dir = plugin_dir_with(&[
        fixture("external-echo"),
        fixture("init-fails"),
        fixture("panics"),
        fixture("bad-manifest"),
        fixture("no-export"),
        junk,
    ]);
    let server =
        Server::start_with(ServerOptions { plugins_dir: Some(dir.path().to_path_buf()), ..Default::default() });
    (server, dir)
}

#[test]
fn broken_plugins_are_reported_and_the_rest_serve() {
    let (server, _dir) = server_with_fixtures();
    let (_, health) = server.get("/health");
    let datasets: Vec<&str> = health["datasets"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert!(datasets.contains(&"congress-trades"), "{datasets:?}");
    assert!(datasets.contains(&"external-echo"));
    assert!(datasets.contains(&"fixture-panics"));
    let failures: Vec<(String, String)> = health["pluginFailures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["plugin"].as_str().unwrap().to_string(), f["stage"].as_str().unwrap().to_string()))
        .collect();
    for expected in [
        ("fixture-init-fails", "init"),
        ("Bad Manifest", "manifest"),
        ("libfixture_no_export.so", "open"),
        ("libdatahost_junk.so", "open"),
    ] {
        assert!(
            failures.contains(&(expected.0.to_string(), expected.1.to_string())),
            "missing failure {expected:?} in {failures:?}"
        );
    }
    assert_eq!(server.get("/v1/congress-trades?limit=1").0, 200);
    assert_eq!(server.get("/v1/fixture-init-fails").0, 404, "a plugin that failed init serves nothing");

    // The loader's messages name the plugin and say what is wrong.
    let (code, out, _) = run_cli_raw(&server.config_file, &["plugins", "list"]);
    assert_eq!(code, 0);
    let line = |needle: &str| {
        out.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no `{needle}` in\n{out}")).to_string()
    };
    assert!(line("fixture-init-fails")
        .contains("init failed: dataset `fixture-missing-dataset` is not in the records engine (embedded)"));
    let bad = line("Bad Manifest");
    assert!(bad.contains("invalid manifest: slug `Bad Manifest` must be 1-64 characters"), "{bad}");
    assert!(bad.contains("route `/admin` must be a lowercase path under /v1/"), "{bad}");
    assert!(bad.contains("route `/admin` has no `get` operation in the openapi fragment"), "{bad}");
    assert!(line("libfixture_no_export.so").contains("not a datahost plugin library"));
    let junk = line("libdatahost_junk.so");
    assert!(junk.contains("not a datahost plugin library"), "{junk}");
    // The dynamic loader's own reason, which begins with the file it refused ("...: file too short" here).
    assert!(junk.contains("libdatahost_junk.so: "), "{junk}");
    assert!(line("external-echo").starts_with("ok"));
}

#[test]
fn external_plugin_built_outside_the_workspace_serves() {
    let (server, _dir) = server_with_fixtures();
    let (status, body) = server.get("/v1/external-echo?say=hello%20world");
    assert_eq!(status, 200);
    assert_eq!(body["echo"], "hello world");
    // A header the plugin repeats reaches the client with every value, in order (answered and then cached).
    for _ in 0..2 {
        let resp = server.request("/v1/external-echo?say=hello%20world", &[("X-API-Key", &server.owner_key)]);
        let words: Vec<&str> = resp.headers().get_all("x-echo-word").iter().map(|v| v.to_str().unwrap()).collect();
        assert_eq!(words, ["hello", "world"]);
    }
    let doc = server.get("/openapi.json").1;
    assert_eq!(doc["paths"]["/v1/external-echo"]["get"]["x-maturity"], "beta");
}

#[test]
fn panicking_and_garbage_plugins_give_500_and_the_host_keeps_serving() {
    let (server, _dir) = server_with_fixtures();
    for mode in ["panic", "garbage", "not-utf8", "edited", "status"] {
        let resp = server.request(&format!("/v1/fixture-panics?mode={mode}"), &[("X-API-Key", &server.owner_key)]);
        assert_eq!(resp.status().as_u16(), 500, "mode {mode}");
        let rid = resp.headers()["x-request-id"].to_str().unwrap().to_string();
        let body: serde_json::Value = resp.json().unwrap();
        assert_envelope(500, &body, 500);
        assert_eq!(body["requestId"], rid.as_str());
        assert!(body["error"].as_str().unwrap().contains(&rid));
        // Still serving: the same plugin and the others.
        assert_eq!(server.get("/v1/fixture-panics").0, 200);
        assert_eq!(server.get("/v1/congress-trades?limit=1").0, 200);
    }
    let metrics = server.metrics_text();
    assert!(
        metrics.lines().any(|l| l.starts_with("datahost_plugin_panics_total{plugin=\"fixture-panics\"} 1")),
        "panic metric missing:\n{}",
        metrics.lines().filter(|l| l.contains("plugin")).collect::<Vec<_>>().join("\n")
    );
    // Not JSON: the hand-made body, the string that is not UTF-8, and the written body edited afterwards.
    assert!(metrics.contains("datahost_plugin_faults_total{plugin=\"fixture-panics\",kind=\"invalid-json\"} 3"));
    // The panic message reaches the host log.
    server.wait_for_output("fixture panic on purpose");
}
