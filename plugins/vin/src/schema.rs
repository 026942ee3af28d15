//! The OpenAPI fragment of `/v1/vin`: full response schema, parameter, 404, example.

use datahost_plugin_api::openapi::{fragment as build_fragment, schema::*, Operation};
use serde_json::{json, Value};

use crate::routes::route_spec;

pub fn fragment() -> Value {
    let decode = object(&[
        ("make", describe(string(), "Brand, upper case as NHTSA writes it (for example HONDA).")),
        ("model", describe(string(), "Model name; empty when only the manufacturer could be decoded.")),
        ("trim", describe(string(), "Trim or series; empty when unknown.")),
        ("bodyClass", describe(string(), "vPIC body class, for example Sedan/Saloon or Pickup; empty when unknown.")),
        ("engine", describe(string(), "Engine summary (displacement, layout, fuel, power); empty when unknown.")),
        (
            "plant",
            describe(string(), "Assembly plant from VIN position 11 (city, region, country); empty when unknown."),
        ),
        (
            "year",
            describe(
                integer(),
                "Model year from VIN position 10. The 30-year cycle is chosen by position 7: a letter means \
                 2010-2039, a digit 1980-2009.",
            ),
        ),
        ("gvwr", describe(nullable(string()), "Gross vehicle weight rating class; null when not recorded.")),
    ]);
    let recall = object_with_optional(
        &[
            ("campaignNumber", describe(string(), "NHTSA recall campaign number, for example 19V502000.")),
            ("component", describe(string(), "Affected component in NHTSA's component taxonomy.")),
            ("summary", string()),
            ("remedy", string()),
            ("reportDate", describe(date(), "Date the manufacturer reported the defect to NHTSA.")),
        ],
        &[("consequence", describe(string(), "The safety risk the defect creates."))],
    );
    let body = object_with_optional(
        &[
            ("vin", describe(string(), "The VIN, upper-cased (17 characters).")),
            ("decode", reference("VinDecode")),
            (
                "openRecalls",
                describe(
                    array(reference("VinRecall")),
                    "Recall campaigns covering the vehicle's make, model and model year, newest first (matched \
                     as NHTSA does, not per VIN). Empty when the model could not be decoded.",
                ),
            ),
            (
                "complaintsCount",
                describe(integer(), "Consumer complaints filed for the same make, model and model year."),
            ),
            ("theftFlag", describe(boolean(), "True when this exact VIN is in the theft reports.")),
            (
                "titleBrand",
                describe(nullable(string()), "Title brand (salvage, flood...); not covered yet, always null."),
            ),
        ],
        &[
            ("wmi", describe(string(), "World manufacturer identifier, VIN positions 1-3.")),
            ("manufacturer", describe(string(), "Manufacturer the WMI is assigned to.")),
            ("country", describe(string(), "Country the WMI is assigned to.")),
            ("region", describe(string(), "ISO 3780 region of the first character.")),
            (
                "checkDigitValid",
                describe(
                    boolean(),
                    "Whether position 9 holds the ISO 3779 / 49 CFR 565 check digit. Always true for North \
                     American VINs (a wrong one is a 400); false is possible for other regions, where the check \
                     digit is not mandatory.",
                ),
            ),
            (
                "decodeLevel",
                describe(
                    string_enum(&["vehicle", "manufacturer"]),
                    "`vehicle` when a vehicle pattern matched; `manufacturer` when only the WMI is known (make \
                     filled, the other decode strings empty, gvwr null, no recalls or complaints).",
                ),
            ),
        ],
    );
    let route = route_spec();
    let op = Operation {
        route: &route,
        operation_id: "getVin",
        summary: "Vehicle history by VIN",
        description: "Decodes a 17-character VIN and reports its open recall campaigns, complaint count and theft \
            flag. The VIN must hold digits and letters except I, O and Q. The check digit (position 9) is \
            computed with the ISO 3779 / 49 CFR 565 transliteration and weights; a wrong check digit is a 400 \
            for North American VINs (first character 1-5) and only flagged (`checkDigitValid: false`) elsewhere. \
            The model year comes from position 10, the manufacturer and country from the WMI (positions 1-3), \
            model, trim, body class, engine and GVWR from the vehicle patterns, the plant from position 11. \
            Recalls and complaints are matched by make, model and model year, as NHTSA does. An unknown WMI \
            is a 404.",
        response: reference("VinResponse"),
        example: Some(example()),
        extra_statuses: &[(404, "The WMI (VIN positions 1-3) belongs to no covered manufacturer.")],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![("VinDecode", decode), ("VinRecall", recall), ("VinResponse", body)],
    )
}

fn example() -> Value {
    json!({
        "vin": "1HGCV1F1XKA014233",
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
            "campaignNumber": "20V870000",
            "component": "EXTERIOR LIGHTING:HEADLIGHTS",
            "summary": "Honda (American Honda Motor Co.) is recalling certain 2017-2019 Honda Accord vehicles. The low-beam headlights may fail to illuminate because of a faulty bulb socket connector.",
            "remedy": "Dealers will replace the headlight wiring connector, free of charge. Owner notification letters are expected to be mailed within 60 days of the report.",
            "reportDate": "2020-04-09",
            "consequence": "Reduced lighting decreases the driver's visibility and the vehicle's conspicuity, increasing the risk of a crash."
        }],
        "complaintsCount": 3,
        "theftFlag": true,
        "titleBrand": null,
        "wmi": "1HG",
        "manufacturer": "American Honda Motor Co., Inc.",
        "country": "United States",
        "region": "North America",
        "checkDigitValid": true,
        "decodeLevel": "vehicle"
    })
}
