//! The OpenAPI fragment of `/v1/contracts`: full response schema, parameter, example.

use datahost_plugin_api::openapi::schema::*;
use datahost_plugin_api::openapi::{components_of, ApiSchema};
use datahost_plugin_kit::companies::{derived_company, CompaniesDoc};
use serde_json::{json, Value};

use crate::routes::{route_spec, CompanyOut, Window};

pub fn fragment() -> Value {
    let (company, mut extra_schemas) = derived_company::<CompanyOut>("Contracts");
    extra_schemas.extend(components_of::<Window>());
    let route = route_spec();
    CompaniesDoc {
        route: &route,
        prefix: "Contracts",
        summary: "Federal contract obligations per company",
        description: "Per company: total obligations, award count and the five largest awards, over federal \
            contract awards from fiscal year 2024 to present (action dates from 2023-10-01) with award type codes \
            A, B, C and D (BPA calls, purchase orders, delivery orders, definitive contracts). IDVs, assistance \
            awards and earlier awards are not counted.",
        generated_at: datetime(),
        caveat: "States the window: fiscal year 2024 to present, award type codes A, B, C and D.",
        extra_meta: vec![("window", Window::schema())],
        company,
        extra_schemas,
        example: example(),
    }
    .fragment()
}

pub fn example() -> Value {
    json!({
        "meta": {
            "generatedAt": "2026-11-01T06:00:00Z",
            "source": "DEMO seed of datahost: federal contract awards to fictional companies with invented amounts, generated for development (not USAspending records)",
            "sourceUrl": "https://demo.invalid/contracts",
            "caveat": "DEMO DATA: award ids, amounts and dates are invented. Figures cover fiscal year 2024 to present for contract award type codes A, B, C and D.",
            "window": {"fiscalYearFrom": 2024, "startDate": "2023-10-01", "awardTypeCodes": ["A", "B", "C", "D"], "topAwardsCap": 5}
        },
        "count": 1,
        "companies": [{
            "name": "Cartwheel Online Retail Inc. (demo)",
            "ticker": "CRTW",
            "totalObligatedUsd": 806747507.75,
            "awardCount": 5,
            "topAwards": [
                {"amount": 707605780.63, "agency": "General Services Administration", "description": "IT PROFESSIONAL SERVICES", "date": "2026-03-17", "awardId": "DEMO-AWD-00172", "awardType": "A"},
                {"amount": 67537766.87, "agency": "Department of Health and Human Services", "description": "CLINICAL RESEARCH IT SERVICES", "date": "2026-10-23", "awardId": "DEMO-AWD-00174", "awardType": "D"},
                {"amount": 15772868.59, "agency": "General Services Administration", "description": "IT PROFESSIONAL SERVICES", "date": "2025-07-24", "awardId": "DEMO-AWD-00170", "awardType": "B"},
                {"amount": 8842289.09, "agency": "Department of Defense", "description": "ENGINEERING AND MANUFACTURING DEVELOPMENT", "date": "2024-11-15", "awardId": "DEMO-AWD-00169", "awardType": "A"},
                {"amount": 6988802.57, "agency": "General Services Administration", "description": "ENTERPRISE SOFTWARE LICENSES", "date": "2026-10-07", "awardId": "DEMO-AWD-00173", "awardType": "C"}
            ]
        }]
    })
}
