//! `GET /v1/vin`: validates and decodes the VIN, then joins the vehicle data: pattern decode, plant, open
//! recalls and complaints by make/model/year, and the theft flag.

use datahost_plugin_api::openapi::schema;
use datahost_plugin_api::params::ParamText;
use datahost_plugin_api::{ApiError, ApiSchema, ParamKind, ParamSpec, Params, RequestEnvelope, Response, RouteSpec};
use datahost_plugin_kit::error::StoredError;
use serde::Serialize;
use serde_json::json;

use crate::data::{Recall, Sources, Vehicles};
use crate::decode::{self, ParsedVin};
use crate::ingest::DecodeRow;
use crate::wmi;

/// Query parameters of `GET /v1/vin`.
#[derive(Params)]
struct Lookup {
    /// 17-character vehicle identification number, case-insensitive: digits and the letters A-Z except I, O and Q.
    /// North American VINs (first character 1-5) must carry a valid check digit in position 9.
    #[param(example = "1HGCV1F17KADEM006")]
    vin: ParsedVin,
}

/// The `vin` parameter is read and checked by the decoder (characters, length, check digit).
impl ParamText for ParsedVin {
    const KIND: ParamKind = ParamKind::String;
    fn parse(_name: &str, raw: &str) -> Result<Self, ApiError> {
        decode::parse(raw.trim())
    }
    fn document(spec: &mut ParamSpec) {
        spec.schema = Some(json!({"minLength": 17, "maxLength": 17}));
    }
}

pub fn route_spec() -> RouteSpec {
    RouteSpec::new(crate::ROUTE, Lookup::specs())
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

impl DecodeLevel {
    /// Documented inline, in the names serde writes.
    fn schema() -> serde_json::Value {
        schema::serde_enum(&[DecodeLevel::Vehicle, DecodeLevel::Manufacturer])
    }
}

/// What the VIN decodes to.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "VinDecode")]
struct Decode<'a> {
    /// Brand, upper case as NHTSA writes it (for example HONDA).
    make: &'a str,
    /// Model name; empty when only the manufacturer could be decoded.
    model: &'a str,
    /// Trim or series; empty when unknown.
    trim: &'a str,
    /// vPIC body class, for example Sedan/Saloon or Pickup; empty when unknown.
    body_class: &'a str,
    /// Engine summary (displacement, layout, fuel, power); empty when unknown.
    engine: &'a str,
    /// Assembly plant from VIN position 11 (city, region, country); empty when unknown.
    plant: &'a str,
    /// Model year from VIN position 10. The 30-year cycle is chosen by position 7: a letter means 2010-2039, a
    /// digit 1980-2009.
    year: i32,
    /// Gross vehicle weight rating class; null when not recorded.
    gvwr: Option<&'a str>,
}

/// One open recall campaign covering the vehicle.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "VinRecall")]
struct RecallOut<'a> {
    /// NHTSA recall campaign number, for example 02V288000 (demo rows: DEMO-...).
    campaign_number: &'a str,
    /// Affected component in NHTSA's component taxonomy.
    component: &'a str,
    summary: &'a str,
    remedy: &'a str,
    /// Date NHTSA received the defect report (FLAT_RCL RCDATE).
    #[schema(format = "date")]
    report_date: &'a str,
    /// The safety risk the defect creates.
    #[schema(optional)]
    consequence: &'a str,
    /// NHTSA's page of the campaign; null for demo rows.
    #[schema(optional, format = "uri")]
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
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "VinSources")]
struct SourcesOut<'a> {
    /// The vPIC DecodeVin call whose ingested answer gave `decode`; null otherwise.
    #[schema(format = "uri")]
    decode: Option<&'a str>,
    /// NHTSA's recall flat file, when recalls were ingested.
    #[schema(format = "uri")]
    recalls: Option<&'a str>,
    /// NHTSA's complaint flat file, when complaints were ingested.
    #[schema(format = "uri")]
    complaints: Option<&'a str>,
}

/// The vehicle one VIN identifies: its decode, open recalls, complaints and theft flag.
#[derive(Serialize, ApiSchema)]
#[serde(rename_all = "camelCase")]
#[schema(name = "VinResponse")]
pub struct Body<'a> {
    /// The VIN, upper-cased (17 characters).
    vin: &'a str,
    decode: Decode<'a>,
    /// Recall campaigns covering the vehicle's make, model and model year, newest first, one row per campaign
    /// (matched as NHTSA does, not per VIN; vehicle recalls only, case-insensitive). Empty when the model could
    /// not be decoded.
    open_recalls: Vec<RecallOut<'a>>,
    /// Distinct consumer complaints (ODI numbers) about this vehicle: those whose VIN prefix (NHTSA publishes 11
    /// characters) starts this VIN, plus those without a VIN that name the same make, model and model year.
    complaints_count: u64,
    /// True when this exact VIN is in the theft reports; false when it is not or when no theft reports are held
    /// (`theftChecked`).
    theft_flag: bool,
    /// Title brand (salvage, flood...); not covered yet, always null.
    title_brand: Option<&'a str>,
    /// World manufacturer identifier, VIN positions 1-3.
    #[schema(optional)]
    wmi: &'a str,
    /// Manufacturer the WMI is assigned to.
    #[schema(optional)]
    manufacturer: &'a str,
    /// Country the WMI is assigned to.
    #[schema(optional)]
    country: &'a str,
    /// ISO 3780 region of the first character.
    #[schema(optional)]
    region: &'a str,
    /// Whether position 9 holds the ISO 3779 / 49 CFR 565 check digit. Always true for North American VINs (a
    /// wrong one is a 400); false is possible for other regions, where the check digit is not mandatory.
    #[schema(optional)]
    check_digit_valid: bool,
    /// `vehicle` when an ingested vPIC decode of this VIN or a (demo) vehicle pattern matched; `manufacturer` when
    /// only the WMI is known (make filled, the other decode strings empty, gvwr null, no recalls; complaints only
    /// by VIN prefix).
    #[schema(optional, with = DecodeLevel::schema)]
    decode_level: DecodeLevel,
    /// Whether theft reports are held at all (the demo seed has some; none ingested).
    #[schema(optional)]
    theft_checked: bool,
    #[schema(optional)]
    sources: SourcesOut<'a>,
}

/// A lookup in the records engine failed: the answer would be incomplete, so say so instead.
fn unavailable(e: StoredError) -> ApiError {
    ApiError::unavailable(format!("the vehicle records could not be read: {e}"))
}

pub fn handle(vehicles: &Vehicles, request: &RequestEnvelope) -> Result<Response, ApiError> {
    let Lookup { vin } = Lookup::parse(request.params())?;
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
