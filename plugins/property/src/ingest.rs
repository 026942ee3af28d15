//! Parser of county assessor exports: a CSV with a header row, read through the county column mapping whose
//! `detect` columns the header holds (`mapping.rs`, files in `mappings/`). Shipped: New York City's PLUTO
//! (`nyc-pluto`) and the Department of Finance assessment roll (`nyc-dof-assessment-roll`).
//!
//! Records: `parcels`, one per row; key `<mapping>:<county>:<assessorId>` (a newer export of the same
//! county replaces a lot's row; the two NYC sources stay side by side), group `<mapping>:<county>`. The data
//! is the served parcel (street line, locality, the SPEC record fields; a field the export does not carry is
//! null) plus `streetKey` (the normalised street line the lookup index holds). A row that cannot be read is a
//! row problem naming its line and column; nothing is guessed.

use datahost_plugin_api::{IngestBatch, IngestRecord, Refusal, RowProblem, SourceFile};
use datahost_plugin_kit::address::normalize_address;
use datahost_plugin_kit::county::parse_county_slug;
use datahost_plugin_kit::tabular::Table;
use serde_json::{Map, Value as Json};

use crate::mapping::{self, Header, Mapping, Value};

/// The ingest formats: one per shipped mapping, named after it.
pub const FORMATS: &[&str] = &["nyc-pluto", "nyc-dof-assessment-roll"];
pub const PARCELS: &str = "parcels";
/// The field of a parcel record the lookup index holds.
pub const STREET_KEY_FIELD: &str = "streetKey";
pub const COUNTY_FIELD: &str = "county";

pub fn parse(file: &SourceFile<'_>) -> Result<IngestBatch, Refusal> {
    let table = Table::open(file.text()?)?;
    let (mappings, broken) = mapping::shipped();
    let Some(mapping) = mappings.iter().find(|m| m.detects(&table.header)) else {
        let known: Vec<String> =
            mappings.iter().map(|m| format!("{} (columns {})", m.name, m.detect.join(", "))).collect();
        let mut reason =
            format!("no county column mapping matches this file's header; the mappings are: {}", known.join("; "));
        if !broken.is_empty() {
            reason.push_str(&format!(" (unreadable mappings: {})", broken.join("; ")));
        }
        return Err(Refusal::at("line 1", reason));
    };
    let mut batch = IngestBatch { format: mapping.name.clone(), ..Default::default() };
    let records = &mut batch.records;
    table.rows(&mut batch.problems, |header, row, line| {
        let (key, group, data) = parcel(mapping, header, row)
            .map_err(|p| RowProblem::new(format!("line {line}, column {}", p.column), p.message))?;
        records.push(IngestRecord::new(PARCELS, key, group, data).map_err(|r| RowProblem::line(line, r.reason))?);
        Ok(())
    })?;
    if batch.records.is_empty() && batch.problems.is_empty() {
        return Err(Refusal::new(format!("{}: the file has a header and no rows", file.name)));
    }
    batch.notes.push(format!("read with the county column mapping `{}` ({})", mapping.name, mapping.title));
    Ok(batch)
}

/// One row as a parcel record: (key, group, data).
fn parcel(
    mapping: &Mapping,
    header: &Header,
    row: &csv::StringRecord,
) -> Result<(String, String, Json), mapping::CellProblem> {
    let county = mapping.county(header, row)?;
    let county = parse_county_slug("county", &county)
        .map_err(|e| mapping::CellProblem { column: "county".into(), message: e.message })?;
    let fields = mapping.fields(header, row)?;
    let text = |name: &str| match fields.get(name) {
        Some(Value::Text(t)) => t.clone(),
        _ => String::new(),
    };
    let mut street = text("street");
    let unit = text("unit");
    if !unit.is_empty() {
        street = format!("{street} UNIT {unit}");
    }
    let assessor_id = text("assessorId");
    let mut data = Map::new();
    for (name, value) in &fields {
        if matches!(*name, "street" | "unit") {
            continue;
        }
        let json = match value {
            Value::Text(t) => Json::from(t.clone()),
            Value::Integer(n) => Json::from(*n),
            Value::Number(n) => serde_json::Number::from_f64(*n).map_or(Json::Null, Json::Number),
            // Text fields the response always carries are "" when the export has nothing; the rest null.
            Value::Absent if ALWAYS_TEXT.contains(name) => Json::from(""),
            Value::Absent => Json::Null,
        };
        data.insert((*name).to_string(), json);
    }
    data.insert(STREET_KEY_FIELD.into(), Json::from(normalize_address(&street)));
    data.insert("street".into(), Json::from(street));
    data.insert(COUNTY_FIELD.into(), Json::from(county.clone()));
    let key = format!("{}:{county}:{assessor_id}", mapping.name);
    let group = format!("{}:{county}", mapping.name);
    Ok((key, group, Json::Object(data)))
}

/// Text fields served as `""` rather than null when an export has no value for them.
const ALWAYS_TEXT: &[&str] = &["city", "state", "zip", "ownerName"];
