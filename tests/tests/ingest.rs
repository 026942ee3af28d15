//! `datahost ingest` black-box: the real binary reads real official files from `../shared/corpus` into the
//! records engine (embedded SQLite file, and PostgreSQL) while a real server runs, and the server serves them
//! without a restart; unchanged files change nothing; unreadable files are refused by name and change
//! nothing; data survives a restart; demo rows are labelled and never served beside ingested ones.

use std::path::Path;

use datahost_tests::{corpus, pg::TestDb, Server, ServerOptions};
use serde_json::Value;

fn company_tickers() -> Option<std::path::PathBuf> {
    corpus("sec-misc/company_tickers.json")
}

#[test]
fn ingested_companies_are_served_live_survive_a_restart_and_unchanged_files_change_nothing() {
    let Some(tickers) = company_tickers() else { return };
    let data = tempfile::tempdir().unwrap();
    let server = Server::start_with(ServerOptions {
        extra_toml: "[engine]\nreload_interval_secs = 1\n".into(),
        data_dir: Some(data.path().to_path_buf()),
        ..Default::default()
    });
    let (_, health) = server.get_with("/health", &[]);
    assert_eq!(health["data"]["companies"]["data"], "demo", "{health}");
    assert_eq!(health["data"]["insiders"]["data"], "demo");

    let (code, out, err) = server.ingest("companies", &[&tickers], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.starts_with("applied"), "{out}");
    assert!(out.contains("added 9610"), "{out}");
    let status = server.wait_for_data("companies", |s| s["rows"] == 9610);
    assert_eq!(status["files"], 1);
    assert!(status["lastIngestAt"].as_str().is_some_and(|t| t.len() == 20 && t.ends_with('Z')), "{status}");

    // The same file again: nothing changes, exit 0, and the report says so.
    let (code, out, _) = server.ingest("companies", &[&tickers], &["--json"]);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["files"][0]["status"], "unchanged");
    assert_eq!(report["totals"]["unchanged"], 9610);
    assert_eq!(report["totals"]["added"], 0);
    assert_eq!(report["unchanged"], 1);

    // Restart on the same data folder: the records are still there, before any ingest.
    drop(server);
    let again = Server::start_with(ServerOptions { data_dir: Some(data.path().to_path_buf()), ..Default::default() });
    let (_, health) = again.get_with("/health", &[]);
    assert_eq!(health["data"]["companies"]["data"], "ingested", "{health}");
    assert_eq!(health["data"]["companies"]["rows"], 9610);
}

#[test]
fn unreadable_files_are_refused_by_name_and_change_nothing_while_the_others_apply() {
    let Some(tickers) = company_tickers() else { return };
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    // A truncated copy of the real file: cut in the middle of an entry.
    let bytes = std::fs::read(&tickers).unwrap();
    let truncated = dir.path().join("truncated.json");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let not_a_list = dir.path().join("notes.txt");
    std::fs::write(&not_a_list, "this is not a company list\n").unwrap();

    let (code, out, err) = server.ingest("companies", &[dir.path(), &tickers], &["--json"]);
    assert_eq!(code, 1, "a refused file makes the exit status 1: {out}\n{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    let by_name = |suffix: &str| files.iter().find(|f| f["file"].as_str().unwrap().ends_with(suffix)).unwrap();
    let refused = by_name("truncated.json");
    assert_eq!(refused["status"], "refused");
    let reason = refused["reason"].as_str().unwrap();
    assert!(reason.contains("truncated.json:") && reason.contains("does not parse"), "{reason}");
    assert_eq!(refused["counts"]["added"], 0);
    assert_eq!(by_name("notes.txt")["status"], "refused");
    assert_eq!(by_name("company_tickers.json")["status"], "applied");
    assert_eq!(report["refused"], 2);
    assert_eq!(report["applied"], 1);
    server.wait_for_data("companies", |s| s["rows"] == 9610 && s["files"] == 1);

    // The text report names the refused file and the reason.
    let (code, text, _) = server.ingest("companies", &[&truncated], &[]);
    assert_eq!(code, 1);
    assert!(text.starts_with("refused"), "{text}");
    assert!(text.contains("truncated.json") && text.contains("reason:"), "{text}");
}

#[test]
fn usage_errors_exit_2_and_name_what_can_be_ingested() {
    let server = Server::start();
    let (code, _, err) = server.ingest("no-such-dataset", &[Path::new("/dev/null")], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no-such-dataset") && err.contains("companies (sec-company-tickers"), "{err}");
    // entity-graph derives from other datasets and never reads source files of its own.
    let (code, _, err) = server.ingest("entity-graph", &[Path::new("/dev/null")], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("reads no source files"), "{err}");
    let (code, _, _) = server.ingest("companies", &[], &[]);
    assert_eq!(code, 2, "no paths is a usage error");
}

#[test]
fn every_dataset_response_says_whether_it_holds_demo_rows() {
    let server = Server::start();
    let (status, body) = server.get("/v1/insiders?ticker=ORCH");
    assert_eq!(status, 200);
    assert_eq!(body["dataStatus"], "demo", "{body}");
    let resp = server.request("/v1/vin?vin=1HGCM82633A004352", &[("X-API-Key", &server.owner_key)]);
    assert_eq!(resp.headers()["x-data-status"], "demo");
    let body: Value = resp.json().unwrap();
    assert_eq!(body["dataStatus"], "demo");
    // Documented in the contract.
    let (_, doc) = server.get_with("/openapi.json", &[]);
    assert_eq!(doc["components"]["schemas"]["DataStatus"]["enum"], serde_json::json!(["demo", "ingested"]));
}

#[test]
fn postgres_replicas_serve_what_one_ingest_wrote() {
    let Some(tickers) = company_tickers() else { return };
    let db = TestDb::create("ingest");
    let options = ServerOptions { extra_toml: db.engine_toml(), ..Default::default() };
    let a = Server::start_with(options.clone());
    let b = Server::start_with(ServerOptions { keys_file: Some(a.keys_file.clone()), ..options });
    let (code, out, err) = a.ingest("companies", &[&tickers], &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    for replica in [&a, &b] {
        replica.wait_for_data("companies", |s| s["rows"] == 9610);
    }
    let rows: i64 =
        db.client().query_one("SELECT count(*) FROM datahost.records WHERE dataset = 'companies'", &[]).unwrap().get(0);
    assert_eq!(rows, 9610);
    // Idempotent in PostgreSQL too, and `load-seeds` never puts a seed over ingested records.
    let (code, out, _) = b.ingest("companies", &[&tickers], &[]);
    assert_eq!(code, 0);
    assert!(out.starts_with("unchanged"), "{out}");
    let files: i64 = db.client().query_one("SELECT count(*) FROM datahost.ingest_files", &[]).unwrap().get(0);
    assert_eq!(files, 1);
}
