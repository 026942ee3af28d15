//! `GET /v1/vin`: validates and decodes the VIN, then joins the vehicle data: pattern decode, plant, open
//! recalls and complaints by make/model/year, and the theft flag.

use datahost_plugin_api::{ApiError, ParamSpec, RequestEnvelope, Response, RouteSpec};
use serde::Serialize;
use serde_json::json;

use crate::data::{Recall, Sources, Vehicles};
use crate::decode::{self, ParsedVin};
use crate::ingest::DecodeRow;
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
        .example("1HGCV1F17KADEM006")
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
    source_url: Option<&'a str>,
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
            source_url: r.source_url.as_deref(),
        }
    }
}

/// The official sources of this answer (all null for the demo seed).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SourcesOut<'a> {
    decode: Option<&'a str>,
    recalls: Option<&'a str>,
    complaints: Option<&'a str>,
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
    theft_checked: bool,
    sources: SourcesOut<'a>,
}

/// A lookup in the records engine failed: the answer would be incomplete, so say so instead.
fn unavailable(e: String) -> ApiError {
    ApiError::unavailable(format!("the vehicle records could not be read: {e}"))
}

pub fn handle(vehicles: &Vehicles, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let raw = request.params().required("vin")?;
    let vin = decode::parse(raw)?;
    let maker = wmi::lookup(vin.wmi());
    let decoded = vehicles.decode(&vin.vin).map_err(unavailable)?;
    if maker.is_none() && decoded.is_none() {
        return Err(ApiError::not_found(format!(
            "no manufacturer is known for WMI `{}` (VIN positions 1-3); the decoder covers {} major manufacturers",
            vin.wmi(),
            wmi::TABLE.len()
        )));
    }
    let (decode, level) = decode(vehicles, &vin, maker, decoded.as_ref());
    // Recalls are keyed by make, model and model year, so a manufacturer-level decode (no model) matches
    // none rather than every campaign of the make. Complaints also match by VIN prefix.
    let vehicle = (level == DecodeLevel::Vehicle).then_some((decode.make, decode.model, decode.year));
    let recalls = match vehicle {
        Some((make, model, year)) => vehicles.recalls(make, model, year).map_err(unavailable)?,
        None => Vec::new(),
    };
    let complaints_count = vehicles.complaints(&vin.vin, vehicle).map_err(unavailable)?;
    let manufacturer = maker.map(|m| m.manufacturer).or(decoded.as_ref().and_then(|d| d.manufacturer.as_deref()));
    let sources: Sources = vehicles.sources();
    Response::json(&Body {
        vin: &vin.vin,
        decode,
        open_recalls: recalls.iter().map(RecallOut::from).collect(),
        complaints_count,
        theft_flag: vehicles.stolen(&vin.vin),
        title_brand: None,
        wmi: vin.wmi(),
        manufacturer: manufacturer.unwrap_or(""),
        country: maker.map_or("", |m| m.country),
        region: decode::region(vin.first()),
        check_digit_valid: vin.check_digit_valid,
        decode_level: level,
        theft_checked: vehicles.theft_checked(),
        sources: SourcesOut {
            decode: decoded.as_ref().map(|d| d.source_url.as_str()),
            recalls: sources.recalls,
            complaints: sources.complaints,
        },
    })
}

/// The decode, from the most specific knowledge held: vPIC's decode of this exact VIN (ingested), else a
/// vehicle pattern (demo seed), else the manufacturer of the WMI.
fn decode<'a>(
    vehicles: &'a Vehicles,
    vin: &'a ParsedVin,
    maker: Option<&'static wmi::Wmi>,
    decoded: Option<&'a DecodeRow>,
) -> (Decode<'a>, DecodeLevel) {
    let plant = vehicles.plant(vin.wmi(), vin.plant_code()).unwrap_or("");
    if let Some(d) = decoded {
        let text = |v: &'a Option<String>| v.as_deref().unwrap_or("");
        // SPEC's `trim`: vPIC's Trim, else its Series (vPIC files `SE` of a Jetta under Series).
        let trim = d.trim.as_deref().or(d.series.as_deref()).unwrap_or("");
        let decode = Decode {
            make: &d.make,
            model: &d.model,
            trim,
            body_class: text(&d.body_class),
            engine: text(&d.engine),
            plant: text(&d.plant),
            year: d.year,
            gvwr: d.gvwr.as_deref(),
        };
        return (decode, DecodeLevel::Vehicle);
    }
    if let Some(v) = vehicles.vehicle(vin.wmi(), vin.vds(), vin.year) {
        let decode = Decode {
            make: &v.make,
            model: &v.model,
            trim: &v.trim,
            body_class: &v.body_class,
            engine: &v.engine,
            plant,
            year: vin.year,
            gvwr: v.gvwr.as_deref(),
        };
        return (decode, DecodeLevel::Vehicle);
    }
    let make = maker.map_or("", |m| m.make);
    let decode = Decode { make, model: "", trim: "", body_class: "", engine: "", plant, year: vin.year, gvwr: None };
    (decode, DecodeLevel::Manufacturer)
}
