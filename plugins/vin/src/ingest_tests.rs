//! Parser tests on every NHTSA corpus file of the three formats (values read by hand from the files, line
//! numbers given), malformed and truncated inputs, idempotence, and ingest -> host -> `/v1/vin`.

use datahost_plugin_api::testing::{get, TestHost};
use datahost_plugin_api::{IngestBatch, Plugin, SourceFile};
use serde_json::{json, Value};

use crate::{Vin, ROUTE};

fn corpus(file: &str) -> Option<Vec<u8>> {
    let path = format!("{}/../../../shared/corpus/nhtsa/{file}", env!("CARGO_MANIFEST_DIR"));
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("corpus absent: skipping ({path})");
            None
        }
    }
}

fn parse(name: &str, bytes: &[u8]) -> IngestBatch {
    Vin::ingest(&SourceFile { name, bytes }).unwrap_or_else(|r| panic!("{name} refused: {r}"))
}

fn refused(name: &str, bytes: &[u8]) -> datahost_plugin_api::Refusal {
    Vin::ingest(&SourceFile { name, bytes }).expect_err("must be refused")
}

/// A hand-written vPIC DecodeVin answer (the corpus holds one real clean decode only): error code 0 and the
/// variables the route serves.
fn handmade_decode(vin: &str, make: &str, model: &str, year: &str) -> Vec<u8> {
    json!({"Count": 4, "SearchCriteria": format!("VIN:{vin}"), "Results": [
        {"Value": "0", "ValueId": "0", "Variable": "Error Code", "VariableId": 143},
        {"Value": make, "ValueId": "", "Variable": "Make", "VariableId": 26},
        {"Value": model, "ValueId": "", "Variable": "Model", "VariableId": 28},
        {"Value": year, "ValueId": "", "Variable": "Model Year", "VariableId": 29}
    ]})
    .to_string()
    .into_bytes()
}

#[test]
fn recalls_flat_file_every_row() {
    let Some(bytes) = corpus("recalls.txt") else { return };
    let batch = parse("recalls.txt", &bytes);
    assert_eq!(batch.format, "nhtsa-flat-rcl");
    assert_eq!(batch.problems, vec![]);
    assert_eq!(batch.records.len(), 100, "100 CRLF lines, 24 tab-separated fields each");
    // recalls.txt line 1: `1 02V288000 FORD FOCUS 2001 02S41 ELECTRICAL SYSTEM:BATTERY:CABLES FORD MOTOR
    // COMPANY 19990719 20010531 V 291854 20030210 ODI Ford Motor Company 20021106 20021106 ... (tabs)
    // ... 000015339000215022000000202`.
    let first = &batch.records[0];
    assert_eq!(first.collection, "recalls");
    assert_eq!(first.key, "02V288000:000015339000215022000000202");
    assert_eq!(first.group, "02V288000");
    let r = &first.data;
    assert_eq!(
        (r["campaignNumber"].as_str(), r["make"].as_str(), r["model"].as_str()),
        (Some("02V288000"), Some("FORD"), Some("FOCUS"))
    );
    assert_eq!(r["year"], 2001);
    assert_eq!(r["component"], "ELECTRICAL SYSTEM:BATTERY:CABLES");
    assert_eq!(r["manufacturer"], "FORD MOTOR COMPANY");
    assert_eq!(r["reportDate"], "2002-11-06", "field 16 RCDATE 20021106");
    assert_eq!(r["ownerNotificationDate"], "2003-02-10");
    assert_eq!(r["potentialUnitsAffected"], 291854);
    assert_eq!(r["recallType"], "V");
    assert!(r["summary"].as_str().unwrap().starts_with("CERTAIN PASSENGER VEHICLES EQUIPPED WITH ZETEC ENGINES"));
    assert!(r["remedy"].as_str().unwrap().starts_with("DEALERS WILL INSPECT THE BATTERY CABLES"));
    assert_eq!(r["sourceUrl"], "https://www.nhtsa.gov/recalls?nhtsaId=02V288000");
    // Line 2: the same campaign for model year 2000, component id ...215021...
    assert_eq!(batch.records[1].key, "02V288000:000015339000215021000000202");
    assert_eq!(batch.records[1].data["year"], 2000);
    // Line 37: `02E052000 EMC EGB-SS 9999 ... E`: an equipment recall, model year unknown.
    assert_eq!(batch.records[36].data["year"], Value::Null);
    assert_eq!(batch.records[36].data["recallType"], "E");
}

#[test]
fn complaints_flat_file_every_row() {
    let Some(bytes) = corpus("complaints.txt") else { return };
    let batch = parse("complaints.txt", &bytes);
    assert_eq!(batch.format, "nhtsa-flat-cmpl");
    assert_eq!(batch.problems, vec![]);
    assert_eq!(batch.records.len(), 100);
    // complaints.txt line 1: `1 958124 TOYOTA MOTOR CORPORATION TOYOTA COROLLA 1994 Y 19941128 N 0 0 AIR
    // BAGS:FRONTAL PHOENIX(padded) AZ (no VIN) 19950103 ...`.
    let first = &batch.records[0];
    assert_eq!((first.collection.as_str(), first.key.as_str(), first.group.as_str()), ("complaints", "1", "958124"));
    let c = &first.data;
    assert_eq!(
        (c["make"].as_str(), c["model"].as_str(), c["year"].as_i64()),
        (Some("TOYOTA"), Some("COROLLA"), Some(1994))
    );
    assert_eq!((c["crash"].as_bool(), c["fire"].as_bool()), (Some(true), Some(false)));
    assert_eq!(c["component"], "AIR BAGS:FRONTAL");
    assert_eq!((c["city"].as_str(), c["state"].as_str()), (Some("PHOENIX"), Some("AZ")));
    assert_eq!(c["vin"], Value::Null);
    assert_eq!(c["dateReceived"], "1995-01-03");
    assert_eq!(c["failDate"], "1994-11-28");
    // Line 2: ODI 958164, a 1994 LAND CRUISER with the VIN prefix JT3DJ81W8R0.
    assert_eq!(batch.records[1].data["vin"], "JT3DJ81W8R0");
    assert_eq!(batch.records[1].data["model"], "LAND CRUISER");
    // Lines 18, 27, 28, 55, 56, 60, 61, 91, 94: one complaint (ODI 958167) with nine component rows.
    let rows_of_958167 = batch.records.iter().filter(|r| r.group == "958167").count();
    assert_eq!(rows_of_958167, 9);
}

#[test]
fn vpic_decode_becomes_a_vehicle() {
    let Some(bytes) = corpus("decodeVin.json") else { return };
    let batch = parse("decodeVin.json", &bytes);
    assert_eq!(batch.format, "vpic-decodevin");
    assert_eq!(batch.problems, vec![]);
    assert_eq!(batch.records.len(), 1);
    let d = &batch.records[0];
    assert_eq!(
        (d.collection.as_str(), d.key.as_str(), d.group.as_str()),
        ("decodes", "3VWD07AJ5EM388202", "3VWD07AJ5EM388202")
    );
    // decodeVin.json: SearchCriteria "VIN:3VWD07AJ5EM388202"; Error Code "0"; Make "VOLKSWAGEN"; Model
    // "Jetta"; Model Year "2014"; Series "SE" (Trim null); Body Class "Sedan/Saloon"; Displacement (L)
    // "1.798000"; Engine Number of Cylinders "4"; Fuel Type - Primary "Gasoline"; Engine Brake (hp) "170";
    // Plant City "PUEBLA", Plant State null, Plant Country "MEXICO"; GVWR null.
    assert_eq!(
        d.data,
        json!({
            "vin": "3VWD07AJ5EM388202", "make": "VOLKSWAGEN", "model": "Jetta", "year": 2014,
            "trim": null, "series": "SE", "bodyClass": "Sedan/Saloon",
            "engine": "1.8L, 4 cylinders, Gasoline, 170 hp", "plant": "PUEBLA, MEXICO", "gvwr": null,
            "manufacturer": "VOLKSWAGEN GROUP OF AMERICA, INC.", "vehicleType": "PASSENGER CAR",
            "sourceUrl": "https://vpic.nhtsa.dot.gov/api/vehicles/DecodeVin/3VWD07AJ5EM388202?format=json"
        })
    );
}

#[test]
fn vpic_decode_vin_values_extended_becomes_a_vehicle() {
    let file = "nhtsa_vpic_DecodeVinValuesExtended_1FTMW1T88MFA00001.extracted.json";
    let Some(bytes) = corpus(file) else { return };
    let batch = parse(file, &bytes);
    assert_eq!(batch.format, "vpic-decodevinvalues");
    assert_eq!(batch.problems, vec![]);
    assert_eq!(batch.records.len(), 1);
    // The file's Results[0]: VIN "1FTMW1T88MFA00001", ErrorCode "0", Make "FORD", Model "F-150", ModelYear
    // "2021", Trim "SuperCrew-SSV", Series "F-Series", BodyClass "Pickup", DisplacementL "3.5",
    // EngineCylinders "6", FuelTypePrimary "Gasoline", EngineHP "375", PlantCity "DEARBORN", PlantState
    // "MICHIGAN", PlantCountry "UNITED STATES (USA)", GVWR "Class 2E: 6,001 - 7,000 lb (2,722 - 3,175 kg)",
    // Manufacturer "FORD MOTOR COMPANY, USA", VehicleType "TRUCK " (trailing space in the file).
    assert_eq!(
        batch.records[0].data,
        json!({
            "vin": "1FTMW1T88MFA00001", "make": "FORD", "model": "F-150", "year": 2021,
            "trim": "SuperCrew-SSV", "series": "F-Series", "bodyClass": "Pickup",
            "engine": "3.5L, 6 cylinders, Gasoline, 375 hp", "plant": "DEARBORN, MICHIGAN, UNITED STATES (USA)",
            "gvwr": "Class 2E: 6,001 - 7,000 lb (2,722 - 3,175 kg)", "manufacturer": "FORD MOTOR COMPANY, USA",
            "vehicleType": "TRUCK",
            "sourceUrl": "https://vpic.nhtsa.dot.gov/api/vehicles/DecodeVinValuesExtended/1FTMW1T88MFA00001?format=json"
        })
    );

    // The same response as captured with its request (`{url, method, content}`): the same vehicle, and the
    // address it was fetched from (the capture's `url`, with its modelyear parameter) as its source.
    let file = "nhtsa_vpic_fixture_decode-vin-extended.json";
    let Some(bytes) = corpus(file) else { return };
    let captured = parse(file, &bytes);
    assert_eq!(captured.records.len(), 1);
    assert_eq!(captured.records[0].data["model"], "F-150");
    assert_eq!(
        captured.records[0].data["sourceUrl"],
        "https://vpic.nhtsa.dot.gov/api/vehicles/DecodeVinValuesExtended/1FTMW1T88MFA00001?modelyear=2021&format=json"
    );
}

#[test]
fn vpic_batch_patterns_are_reported_not_stored_as_vehicles() {
    let file = "nhtsa_vpic_fixture_decode-vin-batch.json";
    let Some(bytes) = corpus(file) else { return };
    let batch = parse(file, &bytes);
    assert_eq!(batch.format, "vpic-decodevinvalues");
    // POST DATA "5UXWX7C5*BA,2011;5YJSA3DS*EF": both results carry a wildcard VIN (a 2011 BMW X3 and a 2014
    // Tesla Model S by pattern, vPIC error codes 6 and 5,6,14), which decodes a model, not one car.
    assert_eq!(batch.records, vec![]);
    let locations: Vec<&str> = batch.problems.iter().map(|p| p.location.as_str()).collect();
    assert_eq!(locations, ["/content/Results[0]/VIN", "/content/Results[1]/VIN"]);
    assert!(batch.problems[0].message.contains("`5UXWX7C5*BA`"), "{}", batch.problems[0].message);
    assert!(batch.problems[1].message.contains("`5YJSA3DS*EF`"), "{}", batch.problems[1].message);
}

#[test]
fn a_vpic_error_decode_never_becomes_a_vehicle() {
    let Some(bytes) = corpus("DecodeVinError.json") else { return };
    let batch = parse("DecodeVinError.json", &bytes);
    assert_eq!(batch.format, "vpic-decodevin");
    assert_eq!(batch.records, vec![], "VIN 3VW3564650M388202 decoded with error codes 1,11,14");
    assert_eq!(batch.problems.len(), 1);
    assert_eq!(batch.problems[0].location, "/Results[VariableId=143]");
    let message = &batch.problems[0].message;
    assert!(message.contains("3VW3564650M388202") && message.contains("`1,11,14`"), "{message}");
    assert!(message.contains("Check Digit (9th position) does not calculate properly"), "{message}");
}

#[test]
fn the_same_file_gives_the_same_records() {
    for file in [
        "recalls.txt",
        "complaints.txt",
        "decodeVin.json",
        "nhtsa_vpic_DecodeVinValuesExtended_1FTMW1T88MFA00001.extracted.json",
    ] {
        let Some(bytes) = corpus(file) else { return };
        assert_eq!(parse(file, &bytes), parse(file, &bytes), "{file}");
    }
}

#[test]
fn malformed_and_truncated_files_are_refused_whole_with_a_location() {
    // Hand-written malformed fixtures.
    let r = refused("x.txt", b"campaign,make\n02V288000,FORD\n");
    assert_eq!(r.location.as_deref(), Some("line 1"));
    assert!(r.reason.contains("not an NHTSA file"), "{r}");
    assert_eq!(refused("x.txt", b"\r\n").location.as_deref(), Some("line 1"));
    let r = refused("x.json", b"{\"Results\": [{\"Variable\": \"Make\",\n \"Value\": ");
    assert_eq!(r.location.as_deref(), Some("line 2"));
    let r = refused("x.json", br#"{"Count": 1, "Results": [{"Make": "FORD", "Model": "Focus"}]}"#);
    assert!(r.reason.contains("not a Variable/Value list"), "{r}");
    let r = refused("x.json", br#"{"SearchCriteria": "VIN:", "Results": []}"#);
    assert_eq!(r.location.as_deref(), Some("/SearchCriteria"));
    // The corpus recall file cut inside its last row.
    let Some(bytes) = corpus("recalls.txt") else { return };
    let cut = &bytes[..bytes.len() - 400];
    let r = refused("recalls.txt", cut);
    assert_eq!(r.location.as_deref(), Some("line 100"));
    assert!(r.reason.contains("ends inside a row"), "{r}");
}

#[test]
fn unreadable_rows_are_reported_by_line() {
    let Some(bytes) = corpus("recalls.txt") else { return };
    let text = String::from_utf8(bytes).unwrap();
    let lines: Vec<&str> = text.split("\r\n").collect();
    // Line 2 gets a report date that is no date; line 3 loses its fields (hand-made damage).
    let damaged = lines[1].replace("\t20021106\t20021106\t", "\t2002-11-06\t20021106\t");
    let text = [lines[0], &damaged, "3\t02V236000\tJAYCO", lines[3]].join("\r\n") + "\r\n";
    let batch = parse("recalls.txt", text.as_bytes());
    assert_eq!(batch.records.len(), 2);
    assert_eq!(batch.problems.len(), 2);
    assert_eq!(batch.problems[0].location, "line 2");
    assert_eq!(batch.problems[0].message, "field 16 RCDATE `2002-11-06` is not a YYYYMMDD date");
    assert_eq!(batch.problems[1].location, "line 3");
    // A Latin-1 byte (0xC9, É) is read, not refused.
    let latin1 = [&lines[0].as_bytes()[..lines[0].len() - 10], b"\xC9\r\n"].concat();
    let batch = parse("recalls.txt", &latin1);
    assert_eq!(batch.records.len(), 1);
    assert!(batch.notes.iter().any(|n| n.contains("Latin-1")));
}

fn served() -> Option<Vin> {
    let files = ["recalls.txt", "complaints.txt", "decodeVin.json", "DecodeVinError.json"];
    let mut batches: Vec<IngestBatch> = Vec::new();
    for file in files {
        batches.push(parse(file, &corpus(file)?));
    }
    batches.push(parse("focus.json", &handmade_decode("1FAFP34P31W100001", "FORD", "Focus", "2001")));
    batches.push(parse("grandam.json", &handmade_decode("1G2NE54N2PM100005", "PONTIAC", "Grand Am", "1993")));
    let host = TestHost::new();
    host.set_ingested("vin", &batches);
    Some(host.init::<Vin>().expect("init on ingested NHTSA records"))
}

#[test]
fn ingested_decode_recalls_and_complaints_are_served_with_provenance() {
    let Some(p) = served() else { return };
    let (status, jetta) = get(&p, ROUTE, &[("vin", "3vwd07aj5em388202")]);
    assert_eq!(status, 200, "{jetta}");
    assert_eq!(
        jetta["decode"],
        json!({"make": "VOLKSWAGEN", "model": "Jetta", "trim": "SE", "bodyClass": "Sedan/Saloon",
               "engine": "1.8L, 4 cylinders, Gasoline, 170 hp", "plant": "PUEBLA, MEXICO", "year": 2014,
               "gvwr": null})
    );
    assert_eq!(jetta["decodeLevel"], "vehicle");
    assert_eq!(jetta["openRecalls"], json!([]), "no JETTA row in recalls.txt");
    assert_eq!(jetta["complaintsCount"], 0);
    assert_eq!((jetta["theftFlag"].as_bool(), jetta["theftChecked"].as_bool()), (Some(false), Some(false)));
    assert_eq!(
        jetta["sources"],
        json!({"decode": "https://vpic.nhtsa.dot.gov/api/vehicles/DecodeVin/3VWD07AJ5EM388202?format=json",
               "recalls": "https://static.nhtsa.gov/odi/ffdd/rcl/FLAT_RCL.zip",
               "complaints": "https://static.nhtsa.gov/odi/ffdd/cmpl/FLAT_CMPL.zip"})
    );

    // FORD FOCUS 2001 matches recalls.txt line 1 (campaign 02V288000), not line 2 (model year 2000).
    let (_, focus) = get(&p, ROUTE, &[("vin", "1FAFP34P31W100001")]);
    assert_eq!(
        focus["openRecalls"],
        json!([{
            "campaignNumber": "02V288000", "component": "ELECTRICAL SYSTEM:BATTERY:CABLES",
            "summary": "CERTAIN PASSENGER VEHICLES EQUIPPED WITH ZETEC ENGINES, LOOSE OR BROKEN ATTACHMENTS AND \
                        MISROUTED BATTERY CABLES COULD LEAD TO CABLE INSULATION DAMAGE.",
            "remedy": focus["openRecalls"][0]["remedy"], "reportDate": "2002-11-06",
            "consequence": focus["openRecalls"][0]["consequence"],
            "sourceUrl": "https://www.nhtsa.gov/recalls?nhtsaId=02V288000"
        }])
    );
    assert!(focus["openRecalls"][0]["consequence"].as_str().unwrap().starts_with("THIS, IN TURN, COULD CAUSE"));

    // PONTIAC GRAND AM 1993: ODI 958167 names VIN prefix 1G2NE54N2PM on nine rows (one complaint); ODI
    // 958150 (line 98) is a 1993 GRAND AM with another VIN prefix (1G2NE14N95M), so it is not this car's.
    let (_, grand_am) = get(&p, ROUTE, &[("vin", "1G2NE54N2PM100005")]);
    assert_eq!(grand_am["complaintsCount"], 1);
    assert_eq!(grand_am["manufacturer"], "", "1G2 is not in the WMI table and the hand-made decode names none");

    // A VIN without an ingested decode: the WMI table gives the make only, and never a seed pattern.
    let (status, honda) = get(&p, ROUTE, &[("vin", "1HGCV1F17KADEM006")]);
    assert_eq!(status, 200);
    assert_eq!(honda["decodeLevel"], "manufacturer");
    assert_eq!(honda["decode"]["model"], "", "seed patterns are not mixed with ingested records");
    assert_eq!(honda["theftFlag"], false, "the demo theft list is not served beside ingested records");
    // The VIN vPIC refused: still a 400 by its check digit, and never a stored vehicle.
    assert_eq!(get(&p, ROUTE, &[("vin", "3VW3564650M388202")]).0, 400);
}

/// A stored recall row the plugin cannot read is the vehicle records' 503, never a recall left out of a 200.
#[test]
fn an_unreadable_stored_recall_row_is_a_503_not_a_missing_recall() {
    let Some(recalls) = corpus("recalls.txt") else { return };
    let mut recalls = parse("recalls.txt", &recalls);
    // recalls.txt line 1: campaign 02V288000, FORD FOCUS 2001, the recall the Focus below is served.
    let row = recalls.records.iter_mut().find(|r| r.data["campaignNumber"] == "02V288000").expect("line 1");
    row.data["year"] = json!("two thousand one");
    let focus = parse("focus.json", &handmade_decode("1FAFP34P31W100001", "FORD", "Focus", "2001"));
    let host = TestHost::new();
    host.set_ingested("vin", &[recalls, focus]);
    let p = host.init::<Vin>().expect("init on ingested NHTSA records");
    let (status, body) = get(&p, ROUTE, &[("vin", "1FAFP34P31W100001")]);
    assert_eq!(status, 503, "{body}");
    let message = body["error"].as_str().unwrap_or_default();
    assert!(message.contains("a stored recall row is not readable"), "{body}");
}

#[test]
fn a_displacement_that_is_not_a_number_is_a_row_problem_not_left_out() {
    let mut decode: Value =
        serde_json::from_slice(&handmade_decode("3VWD07AJ5EM388202", "VW", "Jetta", "2014")).unwrap();
    decode["Results"]
        .as_array_mut()
        .unwrap()
        .push(json!({"Value": "one point eight", "ValueId": "", "Variable": "Displacement (L)", "VariableId": 13}));
    let batch = parse("decode.json", decode.to_string().as_bytes());
    assert!(batch.records.is_empty());
    assert_eq!(batch.problems.len(), 1, "{:?}", batch.problems);
    assert_eq!(batch.problems[0].location, "/Results[VariableId=13]");
    assert_eq!(
        batch.problems[0].message,
        "Displacement (L) `one point eight` of VIN 3VWD07AJ5EM388202 is not a number"
    );
}
