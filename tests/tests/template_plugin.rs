//! The plugin template (`templates/nhtsa-investigations/`), built as a plugin written elsewhere is: from its own
//! manifest, outside the workspace, then loaded into the real host beside the shipped plugins, fed NHTSA's real
//! file through `datahost ingest` and queried over HTTP, documentation included.

use std::path::PathBuf;
use std::process::Command;

use datahost_tests::{assert_envelope, corpus, plugin_dir_with, workspace_root, Server, ServerOptions};

/// Builds the template with `cargo build` on its own manifest (and lock), in the fixture plugins' target dir so
/// the dependencies they share are compiled once.
fn template_library() -> PathBuf {
    let root = workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--quiet", "--locked", "--manifest-path"])
        .arg(root.join("templates/nhtsa-investigations/Cargo.toml"))
        .arg("--target-dir")
        .arg(root.join("tests/fixtures/target"))
        // The fixtures' own profile, so the shared dependencies are not built twice; the template keeps none.
        .args(["--config", "profile.dev.debug=0"])
        .output()
        .expect("run cargo for the template");
    assert!(out.status.success(), "building the template failed:\n{}", String::from_utf8_lossy(&out.stderr));
    root.join("tests/fixtures/target/debug/libdatahost_nhtsa_investigations.so")
}

#[test]
fn the_template_built_out_of_tree_loads_ingests_and_serves() {
    let Some(file) = corpus("nhtsa/investigations.txt") else { return };
    let dir = plugin_dir_with(&[template_library()]);
    let server =
        Server::start_with(ServerOptions { plugins_dir: Some(dir.path().to_path_buf()), ..Default::default() });
    let (_, health) = server.get("/health");
    assert!(health["datasets"].as_array().unwrap().iter().any(|d| d == "nhtsa-investigations"), "{health}");
    assert!(health["datasets"].as_array().unwrap().iter().any(|d| d == "vin"), "the shipped plugins load too");

    // Loaded with its empty seed: nothing is served before the real file is ingested.
    let (status, empty) = server.get("/v1/nhtsa-investigations");
    assert_eq!((status, empty["count"].as_u64()), (200, Some(0)), "{empty}");

    let (code, out, err) = server.ingest("nhtsa-investigations", &[&file], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    server.wait_for_data("nhtsa-investigations", |_| true);
    // Counted in the file with awk: 14 rows of make BUICK; line 1 is C85007, BUICK CENTURY 1982, opened 19850619.
    let body = server.wait_for_route("/v1/nhtsa-investigations?make=buick", |b| b["count"] == 14);
    let century =
        body["investigations"].as_array().unwrap().iter().find(|r| r["model"] == "CENTURY" && r["year"] == 1982);
    let century = century.expect("BUICK CENTURY 1982");
    assert_eq!(century["actionNumber"], "C85007");
    assert_eq!(century["openedOn"], "1985-06-19");
    assert!(century["source"].as_str().unwrap().ends_with("investigations.txt line 1"), "{century}");

    // The derived parameter rules and the host's own: each bad input a 400 envelope naming it.
    let (status, bad) = server.get("/v1/nhtsa-investigations?year=nineteen");
    assert_envelope(status, &bad, 400);
    assert!(bad["error"].as_str().unwrap().contains("year must be a positive integer"), "{bad}");
    let (status, unknown) = server.get("/v1/nhtsa-investigations?colour=red");
    assert_envelope(status, &unknown, 400);

    // Documented from its types in the assembled document, with the host's stamps.
    let doc = server.get("/openapi.json").1;
    let op = &doc["paths"]["/v1/nhtsa-investigations"]["get"];
    assert_eq!(op["x-maturity"], "beta");
    assert_eq!(op["operationId"], "getNhtsaInvestigations");
    let names: Vec<&str> = op["parameters"].as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.starts_with(&["make", "model", "year", "action", "limit"]), "{names:?}");
    let row = &doc["components"]["schemas"]["NhtsaInvestigation"];
    assert_eq!(row["properties"]["openedOn"]["format"], "date", "{row}");
}
