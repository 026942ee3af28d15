//! The vehicle dataset and its lookups. Two sources, never mixed ([`Vehicles`]):
//! - the demo seed (`{meta, vehicles, plants, recalls, complaints, thefts}`), indexed in memory at `init`
//!   ([`Index`]): seed patterns by WMI/VDS, recalls by make and model, complaints by make/model/year, theft
//!   reports by VIN;
//! - once NHTSA files are ingested, the records of `ingest.rs` stay in the records engine's table (the dataset
//!   is table-backed: it declares record indexes, so its document carries only the `ingested` block with
//!   counts per collection) and every request looks up what it needs with `records.query` ([`Stored`]):
//!   the vPIC decode by VIN, recalls by make and model key, complaints by VIN prefix or by make, model and
//!   model year. National FLAT_RCL and FLAT_CMPL files (millions of rows) never enter plugin memory.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};

use datahost_plugin_api::ingest::{IngestedInfo, INGESTED_KEY};
use datahost_plugin_api::query::RecordsQuery;
use datahost_plugin_api::{Host, HostError};
use datahost_plugin_kit::error::StoredError;
use datahost_plugin_kit::snapshot::SnapshotMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ingest::{DecodeRow, RecallRow, COMPLAINTS_FILE_URL, RECALLS_FILE_URL};

/// NHTSA publishes the first 11 characters of a complaint's VIN; a shorter prefix is too vague to tie a
/// complaint to one vehicle, so such complaints count by make, model and model year instead.
pub const MIN_VIN_PREFIX: usize = 11;

/// A vPIC-style decode pattern: a WMI, five VDS characters (positions 4-8, `*` matches any character) and
/// the model years it covers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VehiclePattern {
    pub wmi: String,
    pub vds: String,
    pub year_from: i32,
    pub year_to: i32,
    pub make: String,
    pub model: String,
    pub trim: String,
    pub body_class: String,
    pub engine: String,
    pub gvwr: Option<String>,
}

impl VehiclePattern {
    pub fn matches(&self, vds: &str, year: i32) -> bool {
        self.vds.len() == vds.len()
            && self.vds.bytes().zip(vds.bytes()).all(|(p, c)| p == b'*' || p == c)
            && (self.year_from..=self.year_to).contains(&year)
    }
    /// How many VDS positions the pattern pins down; the most specific matching pattern wins.
    fn specificity(&self) -> usize {
        self.vds.bytes().filter(|b| *b != b'*').count()
    }
}

/// An assembly plant, keyed by WMI and the plant code in VIN position 11.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plant {
    pub wmi: String,
    pub code: String,
    pub plant: String,
}

/// One row of a recall campaign, for one make and model over a model-year range (NHTSA publishes one row
/// per make, model and year; a campaign spanning several models has several rows).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recall {
    pub campaign_number: String,
    pub make: String,
    pub model: String,
    pub year_from: i32,
    pub year_to: i32,
    pub manufacturer: String,
    pub component: String,
    pub summary: String,
    pub consequence: String,
    pub remedy: String,
    pub report_date: String,
    pub potential_units_affected: Option<u64>,
    /// NHTSA's page of the campaign (ingested rows; demo rows have none).
    #[serde(default)]
    pub source_url: Option<String>,
}

impl Recall {
    /// A FLAT_RCL row as a one-year campaign row; `None` for rows that cannot match a vehicle (equipment,
    /// tire and child-seat recalls, or model year 9999).
    pub fn from_row(r: RecallRow) -> Option<Self> {
        let year = r.year.filter(|_| r.recall_type == "V")?;
        Some(Self {
            campaign_number: r.campaign_number,
            make: r.make,
            model: r.model,
            year_from: year,
            year_to: year,
            manufacturer: r.manufacturer,
            component: r.component,
            summary: r.summary,
            consequence: r.consequence,
            remedy: r.remedy,
            report_date: r.report_date.to_string(),
            potential_units_affected: r.potential_units_affected,
            source_url: Some(r.source_url),
        })
    }
}

/// One consumer complaint (only make, model and year are needed to count them).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Complaint {
    pub odi_number: String,
    pub make: String,
    pub model: String,
    pub year: i32,
    pub component: String,
    pub date_received: String,
    pub crash: bool,
    pub fire: bool,
    pub injured: u32,
    pub state: String,
    pub summary: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Theft {
    pub vin: String,
    pub reported_date: String,
    pub state: String,
}

/// The demo seed document: `{meta, vehicles, plants, recalls, complaints, thefts}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Snapshot {
    /// Required so that a snapshot without its source and demo caveat fails to load; not served.
    #[allow(dead_code)]
    pub meta: SnapshotMeta,
    pub vehicles: Vec<VehiclePattern>,
    pub plants: Vec<Plant>,
    pub recalls: Vec<Recall>,
    pub complaints: Vec<Complaint>,
    pub thefts: Vec<Theft>,
}

/// The ingested document: the `ingested` block (its `collections` counts tell which official files are held).
/// A document assembled before the dataset became table-backed still lists the records; only which
/// collections it has is read from it.
#[derive(Deserialize)]
struct IngestedDoc {
    ingested: IngestedInfo,
    #[serde(default)]
    recalls: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    complaints: Option<serde::de::IgnoredAny>,
}

/// Make and model as NHTSA matches them: case-insensitive, surrounding space ignored.
pub fn model_key(make: &str, model: &str) -> (String, String) {
    (make.trim().to_uppercase(), model.trim().to_uppercase())
}

/// What a complaint is counted by: its ODI number (one complaint, several component rows), and the VIN
/// prefix it names or else its make, model and model year.
struct ComplaintRef {
    odi_number: String,
    vin_prefix: Option<String>,
    vehicle: Option<(String, String, i32)>,
}

/// The official files the served data comes from (ingested data only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    pub recalls: Option<&'static str>,
    pub complaints: Option<&'static str>,
}

pub struct Index {
    decodes: HashMap<String, DecodeRow>,
    patterns: HashMap<String, Vec<VehiclePattern>>,
    plants: HashMap<(String, String), String>,
    recalls: HashMap<(String, String), Vec<Recall>>,
    complaints_by_vin: HashMap<String, Vec<usize>>,
    complaints_by_vehicle: HashMap<(String, String, i32), Vec<usize>>,
    complaints: Vec<ComplaintRef>,
    thefts: HashSet<String>,
    /// Whether theft reports exist at all (the demo seed has some; no official theft file is ingested).
    pub theft_checked: bool,
    pub sources: Sources,
}

/// The host's document does not read as the vehicle dataset, which fails `init`.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("the ingested vehicle records are not readable: {0}")]
    Ingested(serde_json::Error),
    #[error("dataset `vin` does not match its schema: {0}")]
    Seed(serde_json::Error),
}

/// Where a request's vehicle facts come from.
pub enum Vehicles {
    Demo(Box<Index>),
    Stored(Stored),
}

impl Vehicles {
    /// From whichever document the host served: the demo seed, or the `ingested` block of the NHTSA records.
    pub fn load(doc: Value, host: Host) -> Result<Self, LoadError> {
        if doc.get(INGESTED_KEY).is_some() {
            let doc: IngestedDoc = serde_json::from_value(doc).map_err(LoadError::Ingested)?;
            let held = |name: &str, listed: bool| listed || doc.ingested.collections.get(name).is_some_and(|n| *n > 0);
            let sources = Sources {
                recalls: held("recalls", doc.recalls.is_some()).then_some(RECALLS_FILE_URL),
                complaints: held("complaints", doc.complaints.is_some()).then_some(COMPLAINTS_FILE_URL),
            };
            return Ok(Self::Stored(Stored { host, sources }));
        }
        let snapshot: Snapshot = serde_json::from_value(doc).map_err(LoadError::Seed)?;
        Ok(Self::Demo(Box::new(Index::new(snapshot))))
    }

    pub fn sources(&self) -> Sources {
        match self {
            Self::Demo(index) => index.sources.clone(),
            Self::Stored(stored) => stored.sources.clone(),
        }
    }

    /// Whether theft reports exist at all (the demo seed has some; no official theft file is ingested).
    pub fn theft_checked(&self) -> bool {
        matches!(self, Self::Demo(index) if index.theft_checked)
    }

    pub fn decode(&self, vin: &str) -> Result<Option<DecodeRow>, StoredError> {
        match self {
            Self::Demo(index) => Ok(index.decode(vin).cloned()),
            Self::Stored(stored) => stored.decode(vin),
        }
    }

    /// The demo seed's most specific pattern (ingested data decodes through vPIC instead).
    pub fn vehicle(&self, wmi: &str, vds: &str, year: i32) -> Option<&VehiclePattern> {
        match self {
            Self::Demo(index) => index.vehicle(wmi, vds, year),
            Self::Stored(_) => None,
        }
    }

    pub fn plant(&self, wmi: &str, code: char) -> Option<&str> {
        match self {
            Self::Demo(index) => index.plant(wmi, code),
            Self::Stored(_) => None,
        }
    }

    pub fn recalls(&self, make: &str, model: &str, year: i32) -> Result<Vec<Recall>, StoredError> {
        match self {
            Self::Demo(index) => Ok(index.recalls(make, model, year).into_iter().cloned().collect()),
            Self::Stored(stored) => stored.recalls(make, model, year),
        }
    }

    pub fn complaints(&self, vin: &str, vehicle: Option<(&str, &str, i32)>) -> Result<u64, StoredError> {
        match self {
            Self::Demo(index) => Ok(index.complaints(vin, vehicle)),
            Self::Stored(stored) => stored.complaints(vin, vehicle),
        }
    }

    pub fn stolen(&self, vin: &str) -> bool {
        matches!(self, Self::Demo(index) if index.stolen(vin))
    }
}

/// Ingested NHTSA records, looked up in the records engine per request.
pub struct Stored {
    host: Host,
    pub sources: Sources,
}

impl Stored {
    fn query(&self, q: RecordsQuery) -> Result<Vec<Value>, HostError> {
        Ok(self.host.query_records(&q)?.records)
    }

    /// vPIC's decode of exactly this VIN, when one was ingested.
    fn decode(&self, vin: &str) -> Result<Option<DecodeRow>, StoredError> {
        let rows = self.query(RecordsQuery::new(crate::SLUG, "decodes").eq("vin", vin).limit(1))?;
        rows.into_iter()
            .next()
            .map(|r| {
                serde_json::from_value(r).map_err(|source| StoredError::Unreadable { what: "vPIC decode", source })
            })
            .transpose()
    }

    fn recalls(&self, make: &str, model: &str, year: i32) -> Result<Vec<Recall>, StoredError> {
        let (make, model) = model_key(make, model);
        let rows = self.query(RecordsQuery::new(crate::SLUG, "recalls").eq("makeKey", make).eq("modelKey", model))?;
        let mut recalls = Vec::with_capacity(rows.len());
        for r in rows {
            let row: RecallRow =
                serde_json::from_value(r).map_err(|source| StoredError::Unreadable { what: "recall row", source })?;
            // Rows that cannot match a vehicle (equipment, tires, child seats) are not recalls of one.
            recalls.extend(Recall::from_row(row));
        }
        Ok(newest_per_campaign(recalls, year))
    }

    /// Distinct ODI numbers: complaints naming a prefix of this VIN, plus those without a usable VIN about the
    /// same make, model and model year (the rule of [`Index::complaints`]).
    fn complaints(&self, vin: &str, vehicle: Option<(&str, &str, i32)>) -> Result<u64, StoredError> {
        let prefixes = (MIN_VIN_PREFIX..=vin.len()).map(|n| Value::from(&vin[..n])).collect();
        let mut odi: HashSet<String> = HashSet::new();
        let rows = self.query(RecordsQuery::new(crate::SLUG, "complaints").any_of("vin", prefixes))?;
        odi.extend(rows.iter().filter_map(|r| r["odiNumber"].as_str().map(str::to_string)));
        if let Some((make, model, year)) = vehicle {
            let (make, model) = model_key(make, model);
            let q = RecordsQuery::new(crate::SLUG, "complaints")
                .eq("makeKey", make)
                .eq("modelKey", model)
                .eq("year", i64::from(year));
            let without_vin = |r: &&Value| r["vin"].as_str().is_none_or(|v| v.len() < MIN_VIN_PREFIX);
            odi.extend(
                self.query(q)?.iter().filter(without_vin).filter_map(|r| r["odiNumber"].as_str().map(str::to_string)),
            );
        }
        Ok(odi.len() as u64)
    }
}

/// Recall rows covering `year`, one per campaign, newest report first.
fn newest_per_campaign<R: Borrow<Recall>>(rows: Vec<R>, year: i32) -> Vec<R> {
    let mut out: Vec<R> =
        rows.into_iter().filter(|r| (r.borrow().year_from..=r.borrow().year_to).contains(&year)).collect();
    out.sort_by(|a, b| {
        let (a, b) = (a.borrow(), b.borrow());
        (&b.report_date, &b.campaign_number).cmp(&(&a.report_date, &a.campaign_number))
    });
    let mut seen = HashSet::new();
    out.retain(|r| seen.insert(r.borrow().campaign_number.clone()));
    out
}

impl Index {
    /// The demo seed.
    pub fn new(snapshot: Snapshot) -> Self {
        let mut patterns: HashMap<String, Vec<VehiclePattern>> = HashMap::new();
        for p in snapshot.vehicles {
            patterns.entry(p.wmi.to_uppercase()).or_default().push(p);
        }
        let plants =
            snapshot.plants.into_iter().map(|p| ((p.wmi.to_uppercase(), p.code.to_uppercase()), p.plant)).collect();
        let complaints = snapshot
            .complaints
            .into_iter()
            .map(|c| {
                let (make, model) = model_key(&c.make, &c.model);
                ComplaintRef { odi_number: c.odi_number, vin_prefix: None, vehicle: Some((make, model, c.year)) }
            })
            .collect();
        let thefts: HashSet<String> = snapshot.thefts.into_iter().map(|t| t.vin.trim().to_uppercase()).collect();
        let mut index = Self::empty(complaints, snapshot.recalls);
        index.patterns = patterns;
        index.plants = plants;
        index.thefts = thefts;
        index.theft_checked = true;
        index
    }

    fn empty(complaints: Vec<ComplaintRef>, recall_rows: Vec<Recall>) -> Self {
        let mut recalls: HashMap<(String, String), Vec<Recall>> = HashMap::new();
        for r in recall_rows {
            recalls.entry(model_key(&r.make, &r.model)).or_default().push(r);
        }
        let mut complaints_by_vin: HashMap<String, Vec<usize>> = HashMap::new();
        let mut complaints_by_vehicle: HashMap<(String, String, i32), Vec<usize>> = HashMap::new();
        for (i, c) in complaints.iter().enumerate() {
            match (&c.vin_prefix, &c.vehicle) {
                (Some(prefix), _) => complaints_by_vin.entry(prefix.clone()).or_default().push(i),
                (None, Some(vehicle)) => complaints_by_vehicle.entry(vehicle.clone()).or_default().push(i),
                (None, None) => {}
            }
        }
        Self {
            decodes: HashMap::new(),
            patterns: HashMap::new(),
            plants: HashMap::new(),
            recalls,
            complaints_by_vin,
            complaints_by_vehicle,
            complaints,
            thefts: HashSet::new(),
            theft_checked: false,
            sources: Sources::default(),
        }
    }

    /// vPIC's decode of exactly this VIN, when one was ingested.
    pub fn decode(&self, vin: &str) -> Option<&DecodeRow> {
        self.decodes.get(vin)
    }

    /// The most specific pattern of `wmi` matching the VDS and model year (ties: the narrower year range,
    /// then the first listed).
    pub fn vehicle(&self, wmi: &str, vds: &str, year: i32) -> Option<&VehiclePattern> {
        self.patterns.get(wmi)?.iter().filter(|p| p.matches(vds, year)).fold(None, |best, p| match best {
            Some(b)
                if (b.specificity(), -(b.year_to - b.year_from)) >= (p.specificity(), -(p.year_to - p.year_from)) =>
            {
                Some(b)
            }
            _ => Some(p),
        })
    }

    pub fn plant(&self, wmi: &str, code: char) -> Option<&str> {
        self.plants.get(&(wmi.to_string(), code.to_string())).map(String::as_str)
    }

    /// Recall campaigns covering this make, model and model year, one row per campaign, newest report first.
    pub fn recalls(&self, make: &str, model: &str, year: i32) -> Vec<&Recall> {
        let rows = self.recalls.get(&model_key(make, model)).map(|rows| rows.iter().collect()).unwrap_or_default();
        newest_per_campaign(rows, year)
    }

    /// Distinct complaints (ODI numbers) about this vehicle: those whose VIN prefix starts this VIN, plus
    /// those without a usable VIN that name the same make, model and model year (`vehicle`, when known).
    pub fn complaints(&self, vin: &str, vehicle: Option<(&str, &str, i32)>) -> u64 {
        let by_vin = (MIN_VIN_PREFIX..=vin.len()).filter_map(|n| self.complaints_by_vin.get(&vin[..n])).flatten();
        let by_vehicle = vehicle
            .and_then(|(make, model, year)| {
                let (make, model) = model_key(make, model);
                self.complaints_by_vehicle.get(&(make, model, year))
            })
            .into_iter()
            .flatten();
        let odi: HashSet<&str> = by_vin.chain(by_vehicle).map(|&i| self.complaints[i].odi_number.as_str()).collect();
        odi.len() as u64
    }

    pub fn stolen(&self, vin: &str) -> bool {
        self.thefts.contains(vin)
    }
}
