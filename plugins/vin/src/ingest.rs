//! Parser of NHTSA's official vehicle files: the recall flat file `FLAT_RCL.txt` (`nhtsa-flat-rcl`), the
//! complaint flat file `FLAT_CMPL.txt` (`nhtsa-flat-cmpl`) and a vPIC `DecodeVin` response
//! (`vpic-decodevin`, the Variable/Value list).
//!
//! Detection looks at the content only: a JSON object is a vPIC response; otherwise the first line must be
//! a tab-separated FLAT_RCL row (24 fields or more, field 2 a campaign number such as `02V288000`) or a
//! FLAT_CMPL row (48 fields or more, fields 1-2 numeric). Field positions follow NHTSA's data dictionaries
//! `RCL.txt` and `CMPL.txt` (see the README). The flat files are tab-separated, CRLF, without a header, and
//! not always UTF-8 (older extracts are Latin-1), so bytes that are not UTF-8 are read as Latin-1.
//!
//! Records:
//! - `recalls`: one per FLAT_RCL row (a campaign has one row per make, model, model year and component);
//!   key `<campaign>:<RCL_CMPT_ID>`, group the campaign number.
//! - `complaints`: one per FLAT_CMPL row; key `CMPLID`, group the ODI number (one complaint can have several
//!   component rows).
//! - `decodes`: one per vPIC response that decoded cleanly (error code 0); key and group the VIN. A decode
//!   with any other error code is reported as a row problem and never becomes a vehicle.
//!
//! NHTSA updates rows in place and publishes no amendments, so no record declares a lineage: a newer file
//! replaces a row with the same key.

use chrono::NaiveDate;
use datahost_plugin_api::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const FORMATS: &[&str] = &["nhtsa-flat-rcl", "nhtsa-flat-cmpl", "vpic-decodevin", "vpic-decodevinvalues"];

/// The address of NHTSA's recall flat file (what `datahost sync` fetches).
pub const RECALLS_FILE_URL: &str = "https://static.nhtsa.gov/odi/ffdd/rcl/FLAT_RCL.zip";
/// The address of NHTSA's complaint flat file.
pub const COMPLAINTS_FILE_URL: &str = "https://static.nhtsa.gov/odi/ffdd/cmpl/FLAT_CMPL.zip";

/// FLAT_RCL fields per RCL.txt (24 since 2008; later extracts append more, which are not read).
const RCL_FIELDS: usize = 24;
/// FLAT_CMPL fields per CMPL.txt (48 in the corpus extract; later extracts append more).
const CMPL_FIELDS: usize = 48;

/// One recall row: a campaign for one make, model, model year and component.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallRow {
    /// Field 2 CAMPNO, for example `02V288000`.
    pub campaign_number: String,
    /// Fields 3-5 MAKETXT, MODELTXT, YEARTXT (9999, unknown or not applicable, is `None`).
    pub make: String,
    pub model: String,
    pub year: Option<i32>,
    /// Make and model as they are matched and looked up ([`crate::data::model_key`]).
    #[serde(default)]
    pub make_key: String,
    #[serde(default)]
    pub model_key: String,
    /// Field 6 MFGCAMPNO.
    pub mfr_campaign_number: String,
    /// Field 7 COMPNAME.
    pub component: String,
    /// Field 8 MFGNAME: the manufacturer that filed the report.
    pub manufacturer: String,
    /// Fields 9-10 BGMAN, ENDMAN: manufacturing period.
    pub manufactured_from: Option<NaiveDate>,
    pub manufactured_to: Option<NaiveDate>,
    /// Field 11 RCLTYPECD: V vehicle, E equipment, T tire, C child seat.
    pub recall_type: String,
    /// Field 12 POTAFF.
    pub potential_units_affected: Option<u64>,
    /// Field 13 ODATE: owner notification date.
    pub owner_notification_date: Option<NaiveDate>,
    /// Field 14 INFLUENCED_BY: MFR, OVSC or ODI.
    pub initiator: String,
    /// Field 16 RCDATE: the date NHTSA received the defect report (SPEC `reportDate`).
    pub report_date: NaiveDate,
    /// Field 17 DATEA: record creation date.
    pub record_created: Option<NaiveDate>,
    /// Field 19 FMVSS.
    pub fmvss: String,
    /// Fields 20-23 DESC_DEFECT, CONEQUENCE_DEFECT, CORRECTIVE_ACTION, NOTES.
    pub summary: String,
    pub consequence: String,
    pub remedy: String,
    pub notes: String,
    /// Field 24 RCL_CMPT_ID: identifies the recalled component row.
    pub component_id: String,
    /// NHTSA's page of the campaign.
    pub source_url: String,
}

/// One complaint row (a complaint naming several components has several rows with one ODI number).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComplaintRow {
    /// Field 1 CMPLID.
    pub cmpl_id: String,
    /// Field 2 ODINO.
    pub odi_number: String,
    /// Fields 3-6 MFR_NAME, MAKETXT, MODELTXT, YEARTXT (9999 or empty is `None`).
    pub manufacturer: String,
    pub make: String,
    pub model: String,
    pub year: Option<i32>,
    /// Make and model as they are matched and looked up ([`crate::data::model_key`]).
    #[serde(default)]
    pub make_key: String,
    #[serde(default)]
    pub model_key: String,
    /// Fields 7 CRASH, 9 FIRE (`Y`/`N`; `None` when empty).
    pub crash: Option<bool>,
    pub fire: Option<bool>,
    /// Field 8 FAILDATE.
    pub fail_date: Option<NaiveDate>,
    /// Fields 10-11 INJURED, DEATHS.
    pub injured: Option<u32>,
    pub deaths: Option<u32>,
    /// Field 12 COMPDESC.
    pub component: String,
    /// Fields 13-14 CITY, STATE.
    pub city: String,
    pub state: String,
    /// Field 15 VIN: NHTSA publishes the first 11 characters only; `None` when empty.
    pub vin: Option<String>,
    /// Field 16 DATEA: the date the complaint was received.
    pub date_received: Option<NaiveDate>,
    /// Field 20 CDESCR.
    pub summary: String,
    /// Field 21 CMPL_TYPE.
    pub complaint_type: String,
    /// Field 46 PROD_TYPE: V vehicle, T tire, E equipment, C child seat.
    pub product_type: String,
}

/// One vehicle decoded by vPIC without error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecodeRow {
    pub vin: String,
    pub make: String,
    pub model: String,
    pub year: i32,
    /// vPIC `Trim` and `Series` (the route serves Trim, else Series, as SPEC's `trim`).
    pub trim: Option<String>,
    pub series: Option<String>,
    pub body_class: Option<String>,
    /// Summary of Displacement (L), Engine Number of Cylinders, Fuel Type - Primary, Engine Brake (hp).
    pub engine: Option<String>,
    /// Plant City, Plant State, Plant Country.
    pub plant: Option<String>,
    /// Gross Vehicle Weight Rating.
    pub gvwr: Option<String>,
    pub manufacturer: Option<String>,
    pub vehicle_type: Option<String>,
    /// The vPIC call that answers this decode.
    pub source_url: String,
}

/// Detects the format and reads every row.
pub fn parse(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let (text, latin1) = decode_text(file.bytes);
    if text.trim_start().starts_with('{') {
        return decode_vin(&text);
    }
    let lines: Vec<(usize, &str)> = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let Some(&(first_line, first)) = lines.first() else {
        return Err(Refusal::at("line 1", "the file is empty"));
    };
    let fields: Vec<&str> = first.split('\t').collect();
    let mut batch = if fields.len() >= RCL_FIELDS && is_campaign_number(fields[1]) {
        flat_file(&lines, "nhtsa-flat-rcl", RCL_FIELDS, recall_record)?
    } else if fields.len() >= CMPL_FIELDS && is_digits(fields[0]) && is_digits(fields[1]) {
        flat_file(&lines, "nhtsa-flat-cmpl", CMPL_FIELDS, complaint_record)?
    } else {
        return Err(Refusal::at(
            format!("line {first_line}"),
            format!(
                "not an NHTSA file: the first line has {} tab-separated fields and is neither a FLAT_RCL row \
                 ({RCL_FIELDS} fields, field 2 a campaign number) nor a FLAT_CMPL row ({CMPL_FIELDS} fields, \
                 fields 1-2 numeric), and the file is not a vPIC JSON response",
                fields.len()
            ),
        ));
    };
    if latin1 {
        batch.notes.push("the file is not UTF-8: read as Latin-1".into());
    }
    Ok(batch)
}

/// The text of the file: UTF-8 when it is (a byte-order mark dropped), else Latin-1, whose every byte is a
/// character (NHTSA's older extracts).
fn decode_text(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.into(), false),
        Err(_) => (bytes.iter().map(|&b| b as char).collect::<String>().into(), true),
    }
}

type RowReader = fn(&[&str]) -> Result<IngestRecord, RowError>;

/// Reads every row of a flat file with `read`. A short last row is where a cut download ends: the file is
/// refused; a short row elsewhere is a problem of that row.
fn flat_file(
    lines: &[(usize, &str)],
    format: &str,
    min_fields: usize,
    read: RowReader,
) -> Result<IngestBatch, Refusal> {
    let mut batch = IngestBatch { format: format.into(), ..Default::default() };
    let last = lines.last().map_or(0, |l| l.0);
    for &(line, text) in lines {
        let fields: Vec<&str> = text.split('\t').map(str::trim).collect();
        if fields.len() < min_fields {
            let message = format!("{} tab-separated fields where {format} has {min_fields}", fields.len());
            if line == last {
                return Err(Refusal::at(format!("line {line}"), format!("the file ends inside a row: {message}")));
            }
            batch.problems.push(RowProblem::line(line, message));
            continue;
        }
        match read(&fields) {
            Ok(record) => batch.records.push(record),
            Err(error) => batch.problems.push(RowProblem::line(line, error.to_string())),
        }
    }
    Ok(batch)
}

/// What is wrong with one row of a flat file (a row problem, with the row's line). `field` names the field as
/// the file's dictionary does (`3 MAKETXT`); `value` is the field's text, clipped.
#[derive(Debug, thiserror::Error)]
enum RowError {
    #[error("field 2 CAMPNO `{0}` is not a campaign number")]
    NotACampaign(String),
    #[error("field 15 VIN `{0}` is not a VIN or VIN prefix")]
    NotAVin(String),
    #[error("field {0} is empty")]
    Empty(&'static str),
    #[error("field 16 RCDATE (report received date) is empty")]
    NoReportDate,
    #[error("field {field} `{value}` is not a model year")]
    NotAModelYear { field: &'static str, value: String },
    #[error("field {field} `{value}` is not a YYYYMMDD date")]
    NotADate { field: &'static str, value: String },
    #[error("field {field} `{value}` is not a number")]
    NotANumber { field: &'static str, value: String },
    #[error("field {field} `{value}` is not Y or N")]
    NotYesNo { field: &'static str, value: String },
    /// The SDK would not make a record of the row; its reason.
    #[error("{0}")]
    Unstorable(String),
}

fn recall_record(f: &[&str]) -> Result<IngestRecord, RowError> {
    let campaign = f[1];
    if !is_campaign_number(campaign) {
        return Err(RowError::NotACampaign(clip(campaign)));
    }
    let (make, model) = (required(f[2], "3 MAKETXT")?, required(f[3], "4 MODELTXT")?);
    let (make_key, model_key) = crate::data::model_key(&make, &model);
    let row = RecallRow {
        campaign_number: campaign.into(),
        make,
        model,
        year: model_year(f[4], "5 YEARTXT")?,
        make_key,
        model_key,
        mfr_campaign_number: f[5].into(),
        component: f[6].into(),
        manufacturer: f[7].into(),
        manufactured_from: date(f[8], "9 BGMAN")?,
        manufactured_to: date(f[9], "10 ENDMAN")?,
        recall_type: f[10].into(),
        potential_units_affected: number(f[11], "12 POTAFF")?,
        owner_notification_date: date(f[12], "13 ODATE")?,
        initiator: f[13].into(),
        report_date: date(f[15], "16 RCDATE")?.ok_or(RowError::NoReportDate)?,
        record_created: date(f[16], "17 DATEA")?,
        fmvss: f[18].into(),
        summary: f[19].into(),
        consequence: f[20].into(),
        remedy: f[21].into(),
        notes: f[22].into(),
        component_id: f[23].into(),
        source_url: format!("https://www.nhtsa.gov/recalls?nhtsaId={campaign}"),
    };
    // RCL_CMPT_ID identifies the row; older extracts without it fall back to what makes a row unique.
    let key = if row.component_id.is_empty() {
        format!("{campaign}:{}:{}:{}:{}", row.make, row.model, f[4], row.component)
    } else {
        format!("{campaign}:{}", row.component_id)
    };
    IngestRecord::new("recalls", key, campaign, &row).map_err(|r| RowError::Unstorable(r.reason))
}

fn complaint_record(f: &[&str]) -> Result<IngestRecord, RowError> {
    let vin = f[14].to_ascii_uppercase();
    if !vin.is_empty() && (vin.len() > 17 || !vin.chars().all(|c| c.is_ascii_alphanumeric())) {
        return Err(RowError::NotAVin(clip(&vin)));
    }
    // The record's key and group: a row without them cannot be stored or amended later.
    let (cmpl_id, odi_number) = (required(f[0], "1 CMPLID")?, required(f[1], "2 ODINO")?);
    let (make_key, model_key) = crate::data::model_key(f[3], f[4]);
    let row = ComplaintRow {
        cmpl_id,
        odi_number,
        manufacturer: f[2].into(),
        make: f[3].into(),
        model: f[4].into(),
        year: model_year(f[5], "6 YEARTXT")?,
        make_key,
        model_key,
        crash: yes_no(f[6], "7 CRASH")?,
        fail_date: date(f[7], "8 FAILDATE")?,
        fire: yes_no(f[8], "9 FIRE")?,
        injured: number(f[9], "10 INJURED")?,
        deaths: number(f[10], "11 DEATHS")?,
        component: f[11].into(),
        city: f[12].into(),
        state: f[13].into(),
        vin: (!vin.is_empty()).then_some(vin),
        date_received: date(f[15], "16 DATEA")?,
        summary: f[19].into(),
        complaint_type: f[20].into(),
        product_type: f[45].into(),
    };
    let (key, group) = (row.cmpl_id.clone(), row.odi_number.clone());
    IngestRecord::new("complaints", key, group, &row).map_err(|r| RowError::Unstorable(r.reason))
}

/// A vPIC response: DecodeVin (`{Count, Message, SearchCriteria: "VIN:...", Results: [{Variable, Value,
/// VariableId}]}`) or the flat DecodeVinValues / DecodeVinValuesExtended / DecodeVINValuesBatch shape
/// (`Results: [{VIN, Make, Model, ModelYear, ...}]`, one object per vehicle). A saved capture that wraps the
/// body as `{url, method, content}` is read through its `content`, with its `url` as the source.
fn decode_vin(text: &str) -> Result<IngestBatch, Refusal> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        Refusal::at(format!("line {}", e.line()), format!("not a vPIC response: the JSON does not parse: {e}"))
    })?;
    let (body, base, captured_url) = match doc.get("content") {
        Some(content) if content.get("Results").is_some() => {
            (content, "/content", doc.get("url").and_then(Value::as_str).filter(|u| u.starts_with("https://vpic.")))
        }
        _ => (&doc, "", None),
    };
    let results = body.get("Results").and_then(Value::as_array).ok_or_else(|| {
        Refusal::at(format!("{base}/Results"), "not a vPIC DecodeVin response: there is no `Results` list")
    })?;
    if results.iter().all(|r| r.get("VariableId").is_some() && r.get("Variable").is_some()) {
        return variable_list(body, results, base);
    }
    if !results.is_empty() && results.iter().all(|r| r.get("VIN").is_some() && r.get("ModelYear").is_some()) {
        return flat_values(results, base, captured_url);
    }
    Err(Refusal::at(
        format!("{base}/Results"),
        "not a vPIC decode: `Results` is not a Variable/Value list (DecodeVin) and not vehicles with VIN and \
         ModelYear (DecodeVinValues, Extended or Batch)",
    ))
}

/// DecodeVin: variables looked up by their vPIC id, which does not change when vPIC renames a variable
/// (`Engine Brake (hp)` became `Engine Brake (hp) From`).
fn variable_list(body: &Value, results: &[Value], base: &str) -> Result<IngestBatch, Refusal> {
    let criteria = body.get("SearchCriteria").and_then(Value::as_str).unwrap_or_default();
    let vin = criteria.split_once(':').map(|(_, v)| v.trim().to_ascii_uppercase()).unwrap_or_default();
    if vin.len() != 17 || !vin.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(Refusal::at(
            format!("{base}/SearchCriteria"),
            format!("the response names no 17-character VIN (`{}`)", clip(criteria)),
        ));
    }
    let value = |id: u64| -> Option<String> {
        results
            .iter()
            .filter(|r| r.get("VariableId").and_then(Value::as_u64) == Some(id))
            .filter_map(|r| r.get("Value").and_then(Value::as_str))
            .map(str::trim)
            .find(|v| !v.is_empty() && *v != "Not Applicable")
            .map(str::to_string)
    };
    let mut batch = IngestBatch { format: "vpic-decodevin".into(), ..Default::default() };
    let source_url = format!("https://vpic.nhtsa.dot.gov/api/vehicles/DecodeVin/{vin}?format=json");
    match decode_record(&vin, &value, &|id| format!("{base}/Results[VariableId={id}]"), source_url) {
        Ok(record) => batch.records.push(record),
        Err(problem) => batch.problems.push(problem),
    }
    Ok(batch)
}

/// The flat shape: one object per vehicle, keyed by vPIC's variable names without spaces.
fn flat_values(results: &[Value], base: &str, captured_url: Option<&str>) -> Result<IngestBatch, Refusal> {
    let mut batch = IngestBatch { format: "vpic-decodevinvalues".into(), ..Default::default() };
    for (i, result) in results.iter().enumerate() {
        let value = |id: u64| -> Option<String> {
            let key = vpic::FLAT_KEYS.iter().find(|(k, _)| *k == id)?.1;
            result
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|v| !v.is_empty() && *v != "Not Applicable")
                .map(str::to_string)
        };
        let at = |id: u64| {
            let key = vpic::FLAT_KEYS.iter().find(|(k, _)| *k == id).map_or("VIN", |k| k.1);
            format!("{base}/Results[{i}]/{key}")
        };
        let vin = result.get("VIN").and_then(Value::as_str).unwrap_or_default().trim().to_ascii_uppercase();
        if vin.len() != 17 || !vin.chars().all(|c| c.is_ascii_alphanumeric()) {
            batch.problems.push(RowProblem::new(
                format!("{base}/Results[{i}]/VIN"),
                format!(
                    "`{}` is not one vehicle's 17-character VIN (a batch pattern such as `5UXWX7C5*BA` decodes a \
                     model, not a car); it is not stored as a vehicle",
                    clip(&vin)
                ),
            ));
            continue;
        }
        // A single-VIN capture names its own address; otherwise the documented DecodeVinValuesExtended one.
        let source_url = match captured_url {
            Some(url) if results.len() == 1 && url.contains(&vin) => url.to_string(),
            _ => format!("https://vpic.nhtsa.dot.gov/api/vehicles/DecodeVinValuesExtended/{vin}?format=json"),
        };
        match decode_record(&vin, &value, &at, source_url) {
            Ok(record) => batch.records.push(record),
            Err(problem) => batch.problems.push(problem),
        }
    }
    Ok(batch)
}

/// One decode as a record, or why it is not stored: vPIC reported an error, or the make, model or model year
/// is missing or not a year.
fn decode_record(
    vin: &str,
    value: &dyn Fn(u64) -> Option<String>,
    at: &dyn Fn(u64) -> String,
    source_url: String,
) -> Result<IngestRecord, RowProblem> {
    let error_code = value(vpic::ERROR_CODE).unwrap_or_default();
    if error_code != "0" {
        let why = value(vpic::ERROR_TEXT).unwrap_or_else(|| "no error text".into());
        return Err(RowProblem::new(
            at(vpic::ERROR_CODE),
            format!(
                "vPIC did not decode VIN {vin} cleanly (error code `{error_code}`: {why}); it is not stored as a \
                 vehicle"
            ),
        ));
    }
    let (Some(make), Some(model), Some(year_text)) = (value(vpic::MAKE), value(vpic::MODEL), value(vpic::MODEL_YEAR))
    else {
        return Err(RowProblem::new(
            at(vpic::MODEL_YEAR),
            format!("vPIC's decode of VIN {vin} lacks its make, model or model year; it is not stored"),
        ));
    };
    let Ok(year) = year_text.parse::<i32>() else {
        return Err(RowProblem::new(
            at(vpic::MODEL_YEAR),
            format!("Model Year `{}` of VIN {vin} is not a year", clip(&year_text)),
        ));
    };
    let engine = engine_summary(value).map_err(|litres| {
        RowProblem::new(
            at(vpic::DISPLACEMENT_L),
            format!("Displacement (L) `{}` of VIN {vin} is not a number", clip(&litres)),
        )
    })?;
    let row = DecodeRow {
        make,
        model,
        year,
        trim: value(vpic::TRIM),
        series: value(vpic::SERIES),
        body_class: value(vpic::BODY_CLASS),
        engine,
        plant: join([vpic::PLANT_CITY, vpic::PLANT_STATE, vpic::PLANT_COUNTRY].into_iter().filter_map(value)),
        gvwr: value(vpic::GVWR),
        manufacturer: value(vpic::MANUFACTURER),
        vehicle_type: value(vpic::VEHICLE_TYPE),
        source_url,
        vin: vin.to_string(),
    };
    IngestRecord::new("decodes", vin, vin, &row).map_err(|r| RowProblem::new(at(vpic::MAKE), r.reason))
}

/// vPIC variable ids (stable across vPIC's renames of the variables).
mod vpic {
    pub const BODY_CLASS: u64 = 5;
    pub const CYLINDERS: u64 = 9;
    pub const DISPLACEMENT_L: u64 = 13;
    pub const FUEL_PRIMARY: u64 = 24;
    pub const GVWR: u64 = 25;
    pub const MAKE: u64 = 26;
    pub const MANUFACTURER: u64 = 27;
    pub const MODEL: u64 = 28;
    pub const MODEL_YEAR: u64 = 29;
    pub const PLANT_CITY: u64 = 31;
    pub const SERIES: u64 = 34;
    pub const TRIM: u64 = 38;
    pub const VEHICLE_TYPE: u64 = 39;
    pub const ENGINE_HP: u64 = 71;
    pub const PLANT_COUNTRY: u64 = 75;
    pub const PLANT_STATE: u64 = 77;
    pub const ERROR_CODE: u64 = 143;
    pub const ERROR_TEXT: u64 = 191;

    /// The same variables' names in the flat DecodeVinValues shapes.
    pub const FLAT_KEYS: [(u64, &str); 18] = [
        (BODY_CLASS, "BodyClass"),
        (CYLINDERS, "EngineCylinders"),
        (DISPLACEMENT_L, "DisplacementL"),
        (FUEL_PRIMARY, "FuelTypePrimary"),
        (GVWR, "GVWR"),
        (MAKE, "Make"),
        (MANUFACTURER, "Manufacturer"),
        (MODEL, "Model"),
        (MODEL_YEAR, "ModelYear"),
        (PLANT_CITY, "PlantCity"),
        (SERIES, "Series"),
        (TRIM, "Trim"),
        (VEHICLE_TYPE, "VehicleType"),
        (ENGINE_HP, "EngineHP"),
        (PLANT_COUNTRY, "PlantCountry"),
        (PLANT_STATE, "PlantState"),
        (ERROR_CODE, "ErrorCode"),
        (ERROR_TEXT, "ErrorText"),
    ];
}

/// `1.8L, 4 cylinders, Gasoline, 170 hp` from the parts vPIC gives; `None` when it gives none. A displacement
/// that is not a number is the displacement text, as given (`Err`), never silently left out.
fn engine_summary(value: &dyn Fn(u64) -> Option<String>) -> Result<Option<String>, String> {
    let litres = match value(vpic::DISPLACEMENT_L) {
        None => None,
        Some(l) => Some(l.parse::<f64>().map(|l| format!("{l:.1}L")).map_err(|_| l)?),
    };
    let cylinders = value(vpic::CYLINDERS).map(|c| format!("{c} cylinders"));
    let hp = value(vpic::ENGINE_HP).map(|hp| format!("{hp} hp"));
    Ok(join([litres, cylinders, value(vpic::FUEL_PRIMARY), hp].into_iter().flatten()))
}

fn join(parts: impl Iterator<Item = String>) -> Option<String> {
    let parts: Vec<String> = parts.collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// NHTSA campaign numbers: two digits (year), a type letter (V, E, T, C...), six digits.
fn is_campaign_number(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 9
        && b[..2].iter().all(u8::is_ascii_digit)
        && b[2].is_ascii_uppercase()
        && b[3..].iter().all(u8::is_ascii_digit)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

fn required(text: &str, field: &'static str) -> Result<String, RowError> {
    if text.is_empty() {
        Err(RowError::Empty(field))
    } else {
        Ok(text.to_string())
    }
}

/// A model year; 9999 ("unknown or N/A" in the dictionaries) and empty are `None`.
fn model_year(text: &str, field: &'static str) -> Result<Option<i32>, RowError> {
    match text {
        "" | "9999" => Ok(None),
        _ => match text.parse::<i32>() {
            Ok(y) if (1900..=2100).contains(&y) => Ok(Some(y)),
            _ => Err(RowError::NotAModelYear { field, value: clip(text) }),
        },
    }
}

/// A YYYYMMDD date; empty is `None`.
fn date(text: &str, field: &'static str) -> Result<Option<NaiveDate>, RowError> {
    if text.is_empty() {
        return Ok(None);
    }
    NaiveDate::parse_from_str(text, "%Y%m%d").map(Some).map_err(|_| RowError::NotADate { field, value: clip(text) })
}

fn number<T: std::str::FromStr>(text: &str, field: &'static str) -> Result<Option<T>, RowError> {
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| RowError::NotANumber { field, value: clip(text) })
}

fn yes_no(text: &str, field: &'static str) -> Result<Option<bool>, RowError> {
    match text {
        "" => Ok(None),
        "Y" => Ok(Some(true)),
        "N" => Ok(Some(false)),
        _ => Err(RowError::NotYesNo { field, value: clip(text) }),
    }
}

fn clip(text: &str) -> String {
    datahost_plugin_api::params::clip(text)
}

#[cfg(test)]
mod regression_tests {
    use super::*;

    /// Regression: `fuzz/regressions/nhtsa-duplicate-recall-key` (fuzzer-mutated bytes of a corpus file, not data) repeats the
    /// recall row; the batch the SDK hands the host keeps that key once instead of refusing the whole file.
    #[test]
    fn a_row_repeated_within_a_file_is_kept_once() {
        datahost_plugin_api::testing::assert_repeated_row_kept_once(
            "nhtsa-duplicate-recall-key",
            parse,
            "recalls",
            "02V237000:000015211000106324000000272",
        );
    }

    /// Regression: `fuzz/regressions/nhtsa-complaint-without-ids` (fuzzer-mutated bytes of a corpus complaints
    /// file, not data) has a complaint row whose CMPLID or ODI number is empty; the parser made a record with an
    /// empty key or group, and the host refused the whole file for it. Now that row is a row problem naming the
    /// field, and the other rows are kept.
    #[test]
    fn a_complaint_row_without_its_ids_is_a_row_problem() {
        let batch = datahost_plugin_api::testing::parse_fuzz_regression("nhtsa-complaint-without-ids", parse)
            .expect("the file is read");
        assert!(batch.records.iter().all(|r| !r.key.is_empty() && !r.group.is_empty()));
        assert!(batch.records.iter().any(|r| r.collection == "complaints"), "the readable rows are kept");
        let named = |p: &&datahost_plugin_api::RowProblem| {
            p.message.contains("1 CMPLID is empty") || p.message.contains("2 ODINO is empty")
        };
        let problem = batch.problems.iter().find(named).expect("a row problem names the empty id field");
        assert!(problem.location.starts_with("line "), "{problem:?}");
    }
}
