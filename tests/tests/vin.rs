//! Black-box tests of `/v1/vin` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn decodes_with_recalls_complaints_and_theft() {
    let server = Server::start();
    let (status, body) = server.get("/v1/vin?vin=1hgcv1f17kadem006");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["vin"], "1HGCV1F17KADEM006");
    let decode = &body["decode"];
    assert_eq!((decode["make"].as_str(), decode["model"].as_str()), (Some("HONDA"), Some("Accord")));
    assert_eq!(decode["year"], 2019);
    for field in ["trim", "bodyClass", "engine", "plant"] {
        assert!(decode[field].is_string(), "{field}");
    }
    assert!(decode.get("gvwr").is_some());
    let recalls = body["openRecalls"].as_array().unwrap();
    assert_eq!(recalls.len(), 2);
    for r in recalls {
        for field in ["campaignNumber", "component", "summary", "remedy", "reportDate"] {
            assert!(r[field].is_string(), "{field}");
        }
    }
    assert_eq!(body["complaintsCount"], 3);
    assert_eq!(body["theftFlag"], true);
    assert!(body["titleBrand"].is_null());
    assert_eq!(body["checkDigitValid"], true);
}

#[test]
fn classic_vin_and_foreign_check_digit() {
    let server = Server::start();
    let (status, body) = server.get("/v1/vin?vin=1M8GDM9AXKP042788");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["decode"]["year"], 1989);
    let (status, body) = server.get("/v1/vin?vin=WVWZZZAUZFW123456");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["checkDigitValid"], false);
}

#[test]
fn errors_are_envelopes() {
    let server = Server::start();
    let (status, body) = server.get("/v1/vin");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the vin query parameter is required");
    let (status, body) = server.get("/v1/vin?vin=1M8GDM9AXKP04278");
    assert_envelope(status, &body, 400);
    assert!(body["error"].as_str().unwrap().contains("17 characters"));
    let (status, body) = server.get("/v1/vin?vin=1M8GDM9AIKP042788");
    assert_envelope(status, &body, 400);
    let (status, body) = server.get("/v1/vin?vin=1M8GDM9A1KP042788");
    assert_envelope(status, &body, 400);
    assert!(body["error"].as_str().unwrap().contains("check digit"));
    // 1ZZ is no covered manufacturer; the check digit (7) is valid, so the answer is 404, not 400.
    let (status, body) = server.get("/v1/vin?vin=1ZZCV1F17KA014233");
    assert_envelope(status, &body, 404);
}
