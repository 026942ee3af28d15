//! The OpenAPI fragment of `/v1/vin`: full response schema, parameter, 404, example.

use datahost_plugin_api::openapi::{components_of, fragment_with, ApiSchema, Operation};
use serde_json::{json, Value};

use crate::routes::{route_spec, Body};

pub fn fragment() -> Value {
    let route = route_spec();
    let op = Operation {
        route: &route,
        summary: "Vehicle history by VIN",
        description: "Decodes a 17-character VIN and reports its open recall campaigns, complaint count and theft \
            flag. The VIN must hold digits and letters except I, O and Q. The check digit (position 9) is \
            computed with the ISO 3779 / 49 CFR 565 transliteration and weights; a wrong check digit is a 400 \
            for North American VINs (first character 1-5) and only flagged (`checkDigitValid: false`) elsewhere. \
            The model year comes from position 10, the manufacturer and country from the WMI (positions 1-3). \
            With NHTSA data ingested, make, model, year, trim (vPIC Trim, else Series), body class, engine, \
            plant and GVWR come from vPIC's decode of this exact VIN when one was ingested (`sources.decode`); \
            the demo seed decodes with vehicle patterns and plant codes instead. Recalls (NHTSA FLAT_RCL) are \
            matched by make, model and model year, as NHTSA does; complaints (FLAT_CMPL) by VIN prefix, else by \
            make, model and model year. An unknown WMI without an ingested decode is a 404.",
        response: Body::schema(),
        example: Some(example()),
        extra_statuses: &[(404, "The WMI (VIN positions 1-3) belongs to no covered manufacturer.")],
    };
    fragment_with(vec![(crate::ROUTE, op.path_item())], components_of::<Body>())
}

fn example() -> Value {
    json!({
        "vin": "1HGCV1F17KADEM006",
        "decode": {
            "make": "HONDA",
            "model": "Accord",
            "trim": "LX",
            "bodyClass": "Sedan/Saloon",
            "engine": "1.5L I4 turbo, gasoline, 192 hp",
            "plant": "Marysville, Ohio, United States",
            "year": 2019,
            "gvwr": "Class 1C: 4,001 - 5,000 lb (1,814 - 2,268 kg)"
        },
        "openRecalls": [{
            "campaignNumber": "DEMO-20V870",
            "component": "EXTERIOR LIGHTING:HEADLIGHTS",
            "summary": "DEMO DATA, a fictional campaign (not an NHTSA recall): The low-beam headlights may fail to illuminate because of a faulty bulb socket connector.",
            "remedy": "DEMO DATA: Dealers will replace the headlight wiring connector, free of charge. Owner notification letters are expected to be mailed within 60 days of the report.",
            "reportDate": "2020-04-09",
            "consequence": "Reduced lighting decreases the driver's visibility and the vehicle's conspicuity, increasing the risk of a crash.",
            "sourceUrl": null
        }],
        "complaintsCount": 3,
        "theftFlag": true,
        "titleBrand": null,
        "wmi": "1HG",
        "manufacturer": "American Honda Motor Co., Inc.",
        "country": "United States",
        "region": "North America",
        "checkDigitValid": true,
        "decodeLevel": "vehicle",
        "theftChecked": true,
        "sources": {"decode": null, "recalls": null, "complaints": null}
    })
}
