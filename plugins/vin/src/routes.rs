//! `GET /v1/vin`: validates and decodes the VIN, then joins the vehicle data: pattern decode, plant, open
//! recalls and complaints by make/model/year, and the theft flag.

use datahost_plugin_api::{ApiError, ParamSpec, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;
use serde_json::json;

use crate::data::{Index, Recall};
use crate::decode::{self, ParsedVin};
use crate::wmi;

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(
        crate::ROUTE,
        vec![ParamSpec::string(
            "vin",
            "17-character vehicle identification number, case-insensitive: digits and the letters A-Z except I, O \
             and Q. North American VINs (first character 1-5) must carry a valid check digit in position 9.",
        )
        .required()
        .example("1HGCV1F1XKA014233")
        .schema(json!({"minLength": 17, "maxLength": 17}))],
    )
}

/// How much of the VIN the vehicle data could decode.
#[derive(Serialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
pub enum DecodeLevel {
    /// A vehicle pattern matched: model, trim, body class, engine and GVWR are known.
    Vehicle,
    /// Only the manufacturer (WMI) is known: `make` is filled, the other strings are empty.
    Manufacturer,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Decode<'a> {
    make: &'a str,
    model: &'a str,
    trim: &'a str,
    body_class: &'a str,
    engine: &'a str,
    plant: &'a str,
    year: i32,
    gvwr: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecallOut<'a> {
    campaign_number: &'a str,
    component: &'a str,
    summary: &'a str,
    remedy: &'a str,
    report_date: &'a str,
    consequence: &'a str,
}

impl<'a> From<&'a Recall> for RecallOut<'a> {
    fn from(r: &'a Recall) -> Self {
        Self {
            campaign_number: &r.campaign_number,
            component: &r.component,
            summary: &r.summary,
            remedy: &r.remedy,
            report_date: &r.report_date,
            consequence: &r.consequence,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    vin: &'a str,
    decode: Decode<'a>,
    open_recalls: Vec<RecallOut<'a>>,
    complaints_count: u64,
    theft_flag: bool,
    title_brand: Option<&'a str>,
    wmi: &'a str,
    manufacturer: &'a str,
    country: &'a str,
    region: &'a str,
    check_digit_valid: bool,
    decode_level: DecodeLevel,
}

pub fn handle(index: &Index, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let raw = request.params().required("vin")?;
    let vin = decode::parse(raw)?;
    let maker = wmi::lookup(vin.wmi()).ok_or_else(|| {
        ApiError::not_found(format!(
            "no manufacturer is known for WMI `{}` (VIN positions 1-3); the decoder covers {} major manufacturers",
            vin.wmi(),
            wmi::TABLE.len()
        ))
    })?;
    Response::json(&body(index, &vin, maker))
}

fn body<'a>(index: &'a Index, vin: &'a ParsedVin, maker: &'static wmi::Wmi) -> Body<'a> {
    let plant = index.plant(vin.wmi(), vin.plant_code()).unwrap_or("");
    let vehicle = index.vehicle(vin.wmi(), vin.vds(), vin.year);
    let (decode, level) = match vehicle {
        Some(v) => (
            Decode {
                make: &v.make,
                model: &v.model,
                trim: &v.trim,
                body_class: &v.body_class,
                engine: &v.engine,
                plant,
                year: vin.year,
                gvwr: v.gvwr.as_deref(),
            },
            DecodeLevel::Vehicle,
        ),
        None => (
            Decode {
                make: maker.make,
                model: "",
                trim: "",
                body_class: "",
                engine: "",
                plant,
                year: vin.year,
                gvwr: None,
            },
            DecodeLevel::Manufacturer,
        ),
    };
    // Without a model there is nothing to match recalls and complaints on (NHTSA keys both by make, model
    // and year), so a manufacturer-level decode reports none rather than every campaign of the make.
    let (open_recalls, complaints_count) = match vehicle {
        Some(v) => (
            index.recalls(&v.make, &v.model, vin.year).into_iter().map(RecallOut::from).collect(),
            index.complaints(&v.make, &v.model, vin.year),
        ),
        None => (Vec::new(), 0),
    };
    Body {
        vin: &vin.vin,
        decode,
        open_recalls,
        complaints_count,
        theft_flag: index.stolen(&vin.vin),
        title_brand: None,
        wmi: vin.wmi(),
        manufacturer: maker.manufacturer,
        country: maker.country,
        region: decode::region(vin.first()),
        check_digit_valid: vin.check_digit_valid,
        decode_level: level,
    }
}
