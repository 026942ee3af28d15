//! Table-backed datasets end to end: `vin` declares record indexes, so its ingested NHTSA records stay in the
//! records engine's table (the stored document carries only the `ingested` block with counts) and every
//! request looks up what it needs with `records.query`, in the embedded engine and in PostgreSQL alike.
//! Values asserted were read by hand from `../shared/corpus/nhtsa/recalls.txt` and `complaints.txt`.

use std::path::{Path, PathBuf};

use datahost_tests::{corpus, pg::TestDb, Server, ServerOptions};
use serde_json::{json, Value};

/// A vPIC DecodeVin answer for a VIN of our choosing, made by hand in vPIC's shape (the corpus has no decode
/// of a vehicle that FLAT_RCL lists): make, model and model year are all the lookups need.
fn handmade_decode(dir: &Path, vin: &str, make: &str, model: &str, year: &str) -> PathBuf {
    let body = json!({"Count": 4, "Message": "handmade for a test", "SearchCriteria": format!("VIN:{vin}"),
    "Results": [
        {"Value": "0", "ValueId": "0", "Variable": "Error Code", "VariableId": 143},
        {"Value": make, "ValueId": "", "Variable": "Make", "VariableId": 26},
        {"Value": model, "ValueId": "", "Variable": "Model", "VariableId": 28},
        {"Value": year, "ValueId": "", "Variable": "Model Year", "VariableId": 29}
    ]});
    let path = dir.join(format!("decode-{vin}.json"));
    std::fs::write(&path, body.to_string()).unwrap();
    path
}

/// Ingests the corpus recalls and complaints plus two handmade decodes, then checks the answers.
fn ingest_and_query(server: &Server) -> Option<()> {
    let (recalls, complaints) = (corpus("nhtsa/recalls.txt")?, corpus("nhtsa/complaints.txt")?);
    let extended = corpus("nhtsa/nhtsa_vpic_DecodeVinValuesExtended_1FTMW1T88MFA00001.extracted.json")?;
    let dir = tempfile::tempdir().unwrap();
    let focus = handmade_decode(dir.path(), "1FAFP34P31W100001", "FORD", "Focus", "2001");
    let grand_am = handmade_decode(dir.path(), "1G2NE54N2PM100005", "PONTIAC", "Grand Am", "1993");
    let (code, out, err) = server.ingest("vin", &[&recalls, &complaints, &focus, &grand_am, &extended], &["--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["applied"], 5, "{report}");
    server.wait_for_data("vin", |_| true);

    // recalls.txt line 1: campaign 02V288000, FORD FOCUS model year 2001, report received 20021106. Line 2 is
    // the same campaign for model year 2000, which this 2001 Focus does not match.
    let (status, body) = server.get("/v1/vin?vin=1FAFP34P31W100001");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["dataStatus"], "ingested");
    let recalls = body["openRecalls"].as_array().unwrap();
    assert_eq!(recalls.len(), 1, "{body}");
    assert_eq!(recalls[0]["campaignNumber"], "02V288000");
    assert_eq!(recalls[0]["component"], "ELECTRICAL SYSTEM:BATTERY:CABLES");
    assert_eq!(recalls[0]["reportDate"], "2002-11-06");
    assert_eq!(recalls[0]["sourceUrl"], "https://www.nhtsa.gov/recalls?nhtsaId=02V288000");
    assert_eq!(body["sources"]["recalls"], "https://static.nhtsa.gov/odi/ffdd/rcl/FLAT_RCL.zip");

    // complaints.txt: ODI 958167 names the VIN prefix 1G2NE54N2PM on nine component rows (one complaint).
    let (status, body) = server.get("/v1/vin?vin=1G2NE54N2PM100005");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["complaintsCount"], 1, "{body}");
    assert_eq!(body["decode"]["model"], "Grand Am");

    // The real DecodeVinValuesExtended answer for 1FTMW1T88MFA00001: a 2021 FORD F-150 SuperCrew-SSV pickup,
    // 3.5 L six-cylinder gasoline 375 hp, built in DEARBORN, MICHIGAN (Results[0] of the corpus file).
    let (status, body) = server.get("/v1/vin?vin=1FTMW1T88MFA00001");
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["decode"],
        json!({"make": "FORD", "model": "F-150", "trim": "SuperCrew-SSV", "bodyClass": "Pickup",
               "engine": "3.5L, 6 cylinders, Gasoline, 375 hp", "plant": "DEARBORN, MICHIGAN, UNITED STATES (USA)",
               "year": 2021, "gvwr": "Class 2E: 6,001 - 7,000 lb (2,722 - 3,175 kg)"})
    );
    assert_eq!(
        body["sources"]["decode"],
        "https://vpic.nhtsa.dot.gov/api/vehicles/DecodeVinValuesExtended/1FTMW1T88MFA00001?format=json"
    );
    Some(())
}

#[test]
fn vin_records_stay_in_the_embedded_table_and_are_looked_up_per_request() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start_with(ServerOptions { data_dir: Some(data.path().to_path_buf()), ..Default::default() });
    if ingest_and_query(&server).is_none() {
        return;
    }
    let (_, health) = server.get("/health");
    assert_eq!(health["data"]["vin"]["data"], "ingested", "{}", health["data"]);
    assert_eq!(health["data"]["vin"]["rows"], 203, "100 recall rows + 100 complaint rows + 3 decodes");
}

#[test]
fn vin_records_stay_in_the_postgresql_table_and_are_looked_up_per_request() {
    let db = TestDb::create("table_backed");
    let server = Server::start_with(ServerOptions { extra_toml: db.engine_toml(), ..Default::default() });
    let mut client = db.client();
    // The server built the declared indexes on this fresh database at start, after creating the tables.
    let count_indexes = |client: &mut postgres::Client| -> i64 {
        client
            .query_one(
                "SELECT count(*) FROM pg_indexes WHERE schemaname = 'datahost' AND tablename = 'records' \
                 AND indexname LIKE 'rx_%' AND (indexdef LIKE '%''vin''%' OR indexdef LIKE '%''makeKey''%')",
                &[],
            )
            .unwrap()
            .get(0)
    };
    // One index per definition: (vin) serves decodes and complaints, then (makeKey, modelKey) for recalls and
    // (makeKey, modelKey, year) for complaints (dataset and collection are the indexes' first columns).
    assert_eq!(count_indexes(&mut client), 3, "(vin), (makeKey, modelKey), (makeKey, modelKey, year)");
    if ingest_and_query(&server).is_none() {
        return;
    }
    // The stored document is the header only: counts per collection, no records.
    let doc: String =
        client.query_one("SELECT snapshot FROM datahost.datasets WHERE name = 'vin'", &[]).unwrap().get(0);
    let doc: Value = serde_json::from_str(&doc).unwrap();
    assert_eq!(doc["ingested"]["collections"], json!({"complaints": 100, "decodes": 3, "recalls": 100}), "{doc}");
    assert!(doc.get("recalls").is_none() && doc.get("complaints").is_none(), "{doc}");
    assert_eq!(count_indexes(&mut client), 3, "ingesting built no second copy");
}
