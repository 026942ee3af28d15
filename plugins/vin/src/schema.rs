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
            (
                "campaignNumber",
                describe(string(), "NHTSA recall campaign number, for example 02V288000 (demo rows: DEMO-...)."),
            ),
            ("component", describe(string(), "Affected component in NHTSA's component taxonomy.")),
            ("summary", string()),
            ("remedy", string()),
            ("reportDate", describe(date(), "Date NHTSA received the defect report (FLAT_RCL RCDATE).")),
        ],
        &[
            ("consequence", describe(string(), "The safety risk the defect creates.")),
            ("sourceUrl", describe(nullable(uri()), "NHTSA's page of the campaign; null for demo rows.")),
        ],
    );
    let sources = object(&[
        (
            "decode",
            describe(nullable(uri()), "The vPIC DecodeVin call whose ingested answer gave `decode`; null otherwise."),
        ),
        ("recalls", describe(nullable(uri()), "NHTSA's recall flat file, when recalls were ingested.")),
        ("complaints", describe(nullable(uri()), "NHTSA's complaint flat file, when complaints were ingested.")),
    ]);
    let body = object_with_optional(
        &[
            ("vin", describe(string(), "The VIN, upper-cased (17 characters).")),
            ("decode", reference("VinDecode")),
            (
                "openRecalls",
                describe(
                    array(reference("VinRecall")),
                    "Recall campaigns covering the vehicle's make, model and model year, newest first, one row per \
                     campaign (matched as NHTSA does, not per VIN; vehicle recalls only, case-insensitive). Empty \
                     when the model could not be decoded.",
                ),
            ),
            (
                "complaintsCount",
                describe(
                    integer(),
                    "Distinct consumer complaints (ODI numbers) about this vehicle: those whose VIN prefix (NHTSA \
                     publishes 11 characters) starts this VIN, plus those without a VIN that name the same make, \
                     model and model year.",
                ),
            ),
            (
                "theftFlag",
                describe(
                    boolean(),
                    "True when this exact VIN is in the theft reports; false when it is not or when no theft \
                     reports are held (`theftChecked`).",
                ),
            ),
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
                    "`vehicle` when an ingested vPIC decode of this VIN or a (demo) vehicle pattern matched; \
                     `manufacturer` when only the WMI is known (make filled, the other decode strings empty, gvwr \
                     null, no recalls; complaints only by VIN prefix).",
                ),
            ),
            (
                "theftChecked",
                describe(boolean(), "Whether theft reports are held at all (the demo seed has some; none ingested)."),
            ),
            ("sources", reference("VinSources")),
        ],
    );
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
        response: reference("VinResponse"),
        example: Some(example()),
        extra_statuses: &[(404, "The WMI (VIN positions 1-3) belongs to no covered manufacturer.")],
    };
    build_fragment(
        vec![(crate::ROUTE, op.path_item())],
        vec![("VinDecode", decode), ("VinRecall", recall), ("VinSources", sources), ("VinResponse", body)],
    )
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
