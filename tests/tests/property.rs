//! Black-box tests of `/v1/property` through the real host and the real plugin library.

use datahost_tests::{assert_envelope, Server};

#[test]
fn matches_normalised_addresses() {
    let server = Server::start();
    let (status, body) =
        server.get("/v1/property?address=1204%20cedar%20bend%20lane%2C%20Austin%2C%20TX&county=travis-tx");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["county"], "travis-tx");
    let record = &body["record"];
    assert_eq!(record["ownerName"], "Maura O'Brien");
    for field in ["yearBuilt", "bedrooms", "squareFootage"] {
        assert!(record[field].is_u64(), "{field}");
    }
    for field in ["bathrooms", "lotSize", "landValue", "improvementValue", "marketValue"] {
        assert!(record[field].is_number(), "{field}");
    }
    assert!(record["hoaFee"].is_null());
    let (_, unit) = server.get("/v1/property?address=1550%20N.%20Clark%20Street%20%234B");
    assert_eq!(unit["county"], "cook-il");
    assert_eq!(unit["record"]["propertyType"], "Condominium");
}

#[test]
fn county_not_onboarded_and_no_match_are_null_records() {
    let server = Server::start();
    let (status, body) = server.get("/v1/property?address=1204%20Cedar%20Bend%20Ln&county=harris-tx");
    assert_eq!(status, 200, "{body}");
    assert!(body["record"].is_null());
    assert_eq!(body["status"], "county-not-onboarded");
    let (status, body) = server.get("/v1/property?address=1%20Nowhere%20Rd&county=king-wa");
    assert_eq!(status, 200, "{body}");
    assert!(body["record"].is_null());
    assert_eq!(body["status"], "no-match");
}

#[test]
fn bad_parameters_are_400() {
    let server = Server::start();
    let (status, body) = server.get("/v1/property");
    assert_envelope(status, &body, 400);
    assert_eq!(body["error"], "the address query parameter is required");
    let (status, body) = server.get("/v1/property?address=1%20Main%20St&county=Travis%20County");
    assert_envelope(status, &body, 400);
}
