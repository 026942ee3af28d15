//! Parser tests on the real NYC exports in `tests/fixtures/` (see its SOURCES.md; values read by hand from
//! the files, line numbers given), malformed inputs, and ingest -> host -> `/v1/property`.

use datahost_plugin_api::testing::{get, TestHost};
use datahost_plugin_api::{IngestBatch, Plugin, Refusal, SourceFile};
use serde_json::Value;

use crate::{Property, ROUTE};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse(name: &str) -> IngestBatch {
    Property::ingest(&SourceFile { name, bytes: &fixture(name) }).unwrap_or_else(|r| panic!("{name} refused: {r}"))
}

fn refused(text: &str) -> Refusal {
    Property::ingest(&SourceFile { name: "malformed.csv", bytes: text.as_bytes() }).expect_err("must be refused")
}

fn record<'a>(batch: &'a IngestBatch, key: &str) -> &'a Value {
    &batch.records.iter().find(|r| r.key == key).unwrap_or_else(|| panic!("no record {key}")).data
}

#[test]
fn pluto_rows_are_read_through_the_nyc_pluto_mapping() {
    let batch = parse("pluto_latest.csv");
    assert_eq!(batch.format, "nyc-pluto");
    assert_eq!(batch.problems, vec![]);
    assert_eq!(batch.records.len(), 5, "5 lots after the header");
    // Line 2: "BX","5480","111",... "761 CLARENCE AVENUE" ... "A5","1","0",,"RODRIGUEZ, JOSE R","1,700","1,683" ...
    // assessland "10080", assesstot "40140", yearbuilt "1950", zonedist1 "R3A", postcode "10465", BBL "2054800111".
    let first = &batch.records[0];
    assert_eq!(first.collection, "parcels");
    assert_eq!(first.key, "nyc-pluto:bronx-ny:2054800111");
    assert_eq!(first.group, "nyc-pluto:bronx-ny");
    let r = &first.data;
    assert_eq!(r["street"], "761 CLARENCE AVENUE");
    assert_eq!(r["streetKey"], "761 CLARENCE AVE");
    assert_eq!(
        (r["city"].as_str(), r["state"].as_str(), r["zip"].as_str()),
        (Some("BRONX"), Some("NY"), Some("10465"))
    );
    assert_eq!(r["county"], "bronx-ny");
    assert_eq!(r["ownerName"], "RODRIGUEZ, JOSE R");
    assert_eq!(r["assessorId"], "2054800111");
    assert_eq!(r["sourceId"], "NYC-PLUTO:2054800111");
    assert_eq!(r["sourceUrl"], "https://zola.planning.nyc.gov/l/lot/2/5480/111");
    assert_eq!(r["yearBuilt"], 1950);
    assert_eq!(r["squareFootage"], 1683, "\"1,683\" with its thousands separator");
    let acres = r["lotSize"].as_f64().unwrap();
    assert!((acres - 1700.0 / 43560.0).abs() < 1e-12, "1,700 sq ft in acres, got {acres}");
    assert_eq!(r["zoning"], "R3A");
    assert_eq!(r["propertyType"], "A5");
    assert_eq!(r["landValue"], 10080.0);
    assert_eq!(r["improvementValue"], 30060.0, "assesstot 40140 - assessland 10080");
    for absent in ["marketValue", "bedrooms", "bathrooms", "lastSaleDate", "hoaFee", "legalDescription"] {
        assert!(r[absent].is_null(), "PLUTO has no {absent}: null, not invented");
    }
    // Line 6: "BX","5477","15", ... "837 CLARENCE AVENUE", owner "MARIE DIPOLO", lotarea "4,361", bldgarea "725".
    let last = record(&batch, "nyc-pluto:bronx-ny:2054770015");
    assert_eq!((last["ownerName"].as_str(), last["squareFootage"].as_i64()), (Some("MARIE DIPOLO"), Some(725)));
}

#[test]
fn dof_roll_rows_are_read_through_their_own_mapping() {
    let batch = parse("dof_property_valuation_and_assessments.csv");
    assert_eq!(batch.format, "nyc-dof-assessment-roll");
    assert_eq!(batch.problems, vec![]);
    assert_eq!(batch.records.len(), 5);
    // Line 3: PARID 1000010101, BORO 1, BLOCK 1, LOT 101, YEAR 2024, ... CURMKTTOT 30489000, CURACTLAND 4225950,
    // CURACTTOT 13720050, BLDG_CLASS P7, OWNER "U S GOVT LAND & BLDGS", ZONING R3-2, HOUSENUM_LO 1,
    // STREET_NAME "LIBERTY ISLAND", ZIP_CODE 10004, LAND_AREA 541886, YRBUILT 1900, GROSS_SQFT 541886.
    let r = record(&batch, "nyc-dof-assessment-roll:new-york-ny:1000010101");
    assert_eq!(r["street"], "1 LIBERTY ISLAND");
    assert_eq!(r["city"], "NEW YORK");
    assert_eq!(r["zip"], "10004");
    assert_eq!(r["ownerName"], "U S GOVT LAND & BLDGS");
    assert_eq!(r["sourceId"], "NYC-DOF:1000010101:2024");
    assert_eq!(r["sourceUrl"], "https://zola.planning.nyc.gov/l/lot/1/1/101");
    assert_eq!(r["marketValue"], 30489000.0);
    assert_eq!(r["landValue"], 4225950.0);
    assert_eq!(r["improvementValue"], 9494100.0, "13720050 - 4225950");
    assert_eq!(r["yearBuilt"], 1900);
    assert_eq!(r["squareFootage"], 541886);
    assert_eq!(r["propertyType"], "P7");
    // Line 4: PARID 1000010111, no house number, STREET_NAME "ANDES ROAD", YRBUILT 0 (unknown): null.
    let andes = record(&batch, "nyc-dof-assessment-roll:new-york-ny:1000010111");
    assert_eq!(andes["street"], "ANDES ROAD");
    assert!(andes["yearBuilt"].is_null(), "0 means unknown in the roll");
}

#[test]
fn unreadable_rows_are_reported_with_line_and_column_and_the_rest_applies() {
    // Hand-written malformed input: the PLUTO header's detect columns, one good row, a row whose lot area
    // is cut mid-number, a borough code the mapping does not list, a row with a missing field, and one
    // without a BBL.
    let header = "borough,tax block,tax lot,address,ownername,assessland,assesstot,bbl,lotarea,borocode";
    let text = format!(
        "{header}\nBX,1,2,1 MAIN STREET,A,1,2,2000010002,\"1,000\",2\nBX,1,3,3 MAIN STREET,B,1,2,2000010003,\"1,0\",2\n\
         ZZ,1,4,4 MAIN STREET,C,1,2,2000010004,100,2\nBX,1,5,5 MAIN STREET,D,1,2\nBX,1,6,6 MAIN STREET,E,1,2,,100,2\n"
    );
    let batch = Property::ingest(&SourceFile { name: "malformed.csv", bytes: text.as_bytes() }).unwrap();
    assert_eq!(batch.records.len(), 1);
    let problems: Vec<String> = batch.problems.iter().map(|p| format!("{}: {}", p.location, p.message)).collect();
    assert_eq!(problems.len(), 4, "{problems:?}");
    assert!(problems[0].starts_with("line 3, column lotarea: `1,0` is not a number"), "{problems:?}");
    assert!(problems[1].starts_with("line 4, column borough: `ZZ` is not one of the values"), "{problems:?}");
    assert!(problems[2].starts_with("line 5: the row has 7 fields where the header has 10"), "{problems:?}");
    assert!(problems[3].starts_with("line 6, column bbl: assessorId is empty"), "{problems:?}");
}

#[test]
fn files_no_mapping_knows_are_refused_naming_the_mappings() {
    let r = refused("parcel,owner\n1,A\n");
    assert_eq!(r.location.as_deref(), Some("line 1"));
    assert!(r.reason.contains("no county column mapping matches"), "{r}");
    assert!(r.reason.contains("nyc-pluto") && r.reason.contains("nyc-dof-assessment-roll"), "{r}");
    let empty = refused("borough,tax block,tax lot,address,ownername,assessland,assesstot,bbl\n");
    assert!(empty.reason.contains("no rows"), "{empty}");
    assert!(Property::ingest(&SourceFile { name: "x.csv", bytes: b"\xff\xfe" }).is_err());
    // The real PLUTO file cut 30 bytes before its end, as a download that stopped: refused whole.
    let bytes = fixture("pluto_latest.csv");
    let cut = Property::ingest(&SourceFile { name: "pluto_latest.csv", bytes: &bytes[..bytes.len() - 30] })
        .expect_err("a cut file is refused");
    assert_eq!(cut.location.as_deref(), Some("line 6"));
    assert!(cut.reason.contains("ends inside a row"), "{cut}");
}

#[test]
fn ingested_parcels_replace_the_demo_seed_and_are_looked_up_by_address() {
    let host = TestHost::new().with_seeds(Property::seeds());
    host.set_ingested(crate::SLUG, &[parse("pluto_latest.csv"), parse("dof_property_valuation_and_assessments.csv")]);
    let plugin: Property = host.init().unwrap();

    let (status, body) = get(&plugin, ROUTE, &[("address", "761 Clarence Ave, Bronx, NY 10465")]);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "matched");
    assert_eq!(body["county"], "bronx-ny");
    assert_eq!(body["record"]["ownerName"], "RODRIGUEZ, JOSE R");
    assert_eq!(body["record"]["assessorId"], "2054800111");
    assert!(body["record"]["marketValue"].is_null());

    let (_, liberty) = get(&plugin, ROUTE, &[("address", "1 Liberty Island, New York, NY"), ("county", "new-york-ny")]);
    assert_eq!(liberty["record"]["marketValue"], 30489000.0, "{liberty}");

    // Three roll lots are on ANDES ROAD with no house number: all match, the first by assessor ID is served.
    let (_, andes) = get(&plugin, ROUTE, &[("address", "Andes Road")]);
    assert_eq!(andes["matchCount"], 3, "{andes}");
    assert_eq!(andes["record"]["assessorId"], "1000010010");

    // The demo counties are no longer onboarded: real and demo parcels are never mixed.
    let (_, demo) = get(&plugin, ROUTE, &[("address", "1204 Cedar Bend Lane, Austin, TX"), ("county", "travis-tx")]);
    assert_eq!(demo["status"], "county-not-onboarded", "{demo}");
    let (_, unscoped) = get(&plugin, ROUTE, &[("address", "1204 Cedar Bend Lane, Austin, TX")]);
    assert_eq!(unscoped["status"], "no-match", "{unscoped}");
    let (_, other) = get(&plugin, ROUTE, &[("address", "761 Clarence Ave"), ("county", "kings-ny")]);
    assert_eq!(other["status"], "county-not-onboarded", "{other}");
}
