//! The parser on NHTSA's real file (values read from the file by hand), and the route on what it read.

use datahost_plugin_api::testing::{corpus_file, get, manifest_problems, TestHost};
use datahost_plugin_api::{openapi, Plugin, SourceFile};
use serde_json::json;

use crate::{ingest, NhtsaInvestigations, ROUTE, SLUG};

const FILE: &str = "nhtsa/investigations.txt";

#[test]
fn reads_every_row_of_the_real_file() {
    let Some(bytes) = corpus_file(FILE) else { return };
    let batch = ingest::parse(&SourceFile { name: "investigations.txt", bytes: &bytes }).unwrap();
    assert_eq!((batch.records.len(), batch.problems.len()), (110, 0), "{:?}", batch.problems);
    // Line 1: C85007 BUICK CENTURY 1982 SERVICE BRAKES, HYDRAULIC / General Motors LLC 19850619 19890518
    // 66V178000 REAR BRAKE LOCKUP.
    assert_eq!(batch.records[0].key, "C85007:BUICK:CENTURY:1982:66V178000");
    assert_eq!(batch.records[0].group, "C85007");
    assert_eq!(
        batch.records[0].data,
        json!({"actionNumber": "C85007", "make": "BUICK", "model": "CENTURY", "year": 1982,
               "component": "SERVICE BRAKES, HYDRAULIC", "manufacturer": "General Motors LLC",
               "openedOn": "1985-06-19", "closedOn": "1989-05-18", "recallCampaign": "66V178000",
               "subject": "REAR BRAKE LOCKUP", "summary": "There is no summary currently available",
               "source": "investigations.txt line 1"})
    );
    // Line 107: RQ97017 is still open (no close date).
    assert_eq!(batch.records[106].data["closedOn"], json!(null));
    assert_eq!(batch.records[106].data["model"], "REGAL");
}

#[test]
fn a_row_that_cannot_be_read_is_reported_with_its_line() {
    let Some(bytes) = corpus_file(FILE) else { return };
    let text = String::from_utf8(bytes).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[2] = lines[2].split('\t').take(5).collect::<Vec<_>>().join("\t");
    lines[3] = lines[3].replace("\t19850619\t", "\t1985-06-19\t");
    let cut = lines.join("\r\n");
    let batch = ingest::parse(&SourceFile { name: "cut.txt", bytes: cut.as_bytes() }).unwrap();
    assert_eq!(batch.records.len(), 108);
    let problems: Vec<(&str, &str)> =
        batch.problems.iter().map(|p| (p.location.as_str(), p.message.as_str())).collect();
    assert_eq!(
        problems,
        [
            ("line 3", "5 fields, FLAT_INV has 11"),
            ("line 4", "field 7 (open date) `1985-06-19` is not a YYYYMMDD date")
        ]
    );
}

#[test]
fn another_nhtsa_file_is_refused_whole() {
    let Some(bytes) = corpus_file("nhtsa/recalls.txt") else { return };
    let refusal = ingest::parse(&SourceFile { name: "recalls.txt", bytes: &bytes }).unwrap_err();
    assert!(refusal.reason.contains("not a FLAT_INV row"), "{refusal}");
}

#[test]
fn serves_the_ingested_rows_by_make_model_year_and_action() {
    let Some(bytes) = corpus_file(FILE) else { return };
    let batch = ingest::parse(&SourceFile { name: "investigations.txt", bytes: &bytes }).unwrap();
    let host = TestHost::new().with_seeds(NhtsaInvestigations::seeds());
    assert_eq!(get(&host.init::<NhtsaInvestigations>().unwrap(), ROUTE, &[]).1["count"], 0, "the seed is empty");
    host.set_ingested(SLUG, &[batch]);
    let plugin = host.init::<NhtsaInvestigations>().unwrap();
    // Counted in the file with awk: 14 BUICK rows, 5 of C85007, 1 BUICK CENTURY of 1982.
    assert_eq!(get(&plugin, ROUTE, &[("make", "buick")]).1["count"], 14);
    assert_eq!(get(&plugin, ROUTE, &[("action", "c85007")]).1["count"], 5);
    let (status, body) = get(&plugin, ROUTE, &[("make", "Buick"), ("model", "century"), ("year", "1982")]);
    assert_eq!((status, body["count"].clone()), (200, json!(1)));
    assert_eq!(body["investigations"][0]["openedOn"], "1985-06-19");
    let (_, page) = get(&plugin, ROUTE, &[("action", "C85007"), ("limit", "2")]);
    assert_eq!((page["count"].clone(), page["investigations"].as_array().unwrap().len()), (json!(5), 2));
    // Newest investigation first: the last opened in the file is EA99024 (1999-08-20, lines 105-106).
    assert_eq!(get(&plugin, ROUTE, &[]).1["investigations"][0]["actionNumber"], "EA99024");
    for (param, value, message) in [
        ("year", "1982x", "year must be a positive integer, got `1982x`"),
        ("limit", "0", "limit must be a positive integer, got `0`"),
        ("action", "C850070000000000000", "action must be at most 16 characters"),
    ] {
        let (status, body) = get(&plugin, ROUTE, &[(param, value)]);
        assert_eq!((status, body["error"].as_str().unwrap()), (400, message));
    }
}

#[test]
fn the_route_is_documented_from_its_types() {
    assert!(manifest_problems::<NhtsaInvestigations>().is_empty(), "{:?}", manifest_problems::<NhtsaInvestigations>());
    let manifest = NhtsaInvestigations::manifest();
    assert!(
        openapi::generator_traps(&manifest.openapi).is_empty(),
        "{:?}",
        openapi::generator_traps(&manifest.openapi)
    );
    let params: Vec<&str> = manifest.routes[0].params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["make", "model", "year", "action", "limit"]);
    let op = &manifest.openapi["paths"][ROUTE]["get"];
    assert_eq!(
        op["parameters"][4]["schema"],
        json!({"type": "integer", "minimum": 1, "default": 100, "maximum": 1000})
    );
    assert_eq!(op["parameters"][0]["description"], "Vehicle make as NHTSA spells it, case-insensitive.");
    let row = &manifest.openapi["components"]["schemas"]["NhtsaInvestigation"];
    assert_eq!(row["properties"]["closedOn"]["type"], json!(["string", "null"]));
    assert_eq!(row["properties"]["closedOn"]["format"], "date");
    assert_eq!(row["required"].as_array().unwrap().len(), 12);
    let answer = &manifest.openapi["components"]["schemas"]["NhtsaInvestigationsResponse"];
    assert_eq!(answer["properties"]["investigations"]["items"]["$ref"], "#/components/schemas/NhtsaInvestigation");
}
